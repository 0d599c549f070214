"""mcts: UCT Monte-Carlo tree search with greedy playouts, within a share of its clock per move.

Twice the share in the critical middle game; the exact solver once 22 or fewer lines are free
(two players); the chain rules when its time allows too few playouts. The brain is
``hexarena.bots.brains.mcts.Mcts``; ``bot_choose`` gives it its time from the referee's clock.
"""

from hexarena.bots.brains import bot_choose
from hexarena.bots.brains.mcts import Mcts
from hexarena.protocol.client import run_bot

if __name__ == "__main__":
    run_bot(bot_choose(Mcts()), name="mcts")
