"""perfect: exact moves from as far out as its clock allows (two players), the chain rules until then.

Once the position looks solvable in time it puts up to 40 % of its bank (80 % of a fixed move
limit) into the solve; with three or four players it plays MCTS. The brain is
``hexarena.bots.brains.perfect.Perfect``; ``bot_choose`` gives it its time (its own share) from the clock.
"""

from hexarena.bots.brains import bot_choose
from hexarena.bots.brains.perfect import Perfect
from hexarena.protocol.client import run_bot

if __name__ == "__main__":
    run_bot(bot_choose(Perfect()), name="perfect")
