"""chains: the chain rules, with the exact solver once 22 or fewer lines are free (two players).

It takes cells that cost nothing, double-deals to keep control of the chains, and else sacrifices
the fewest cells (under misère: closes nothing while it can). The brain is
``hexarena.bots.brains.chains.Chains``; ``bot_choose`` gives it its time from the referee's clock.
"""

from hexarena.bots.brains import bot_choose
from hexarena.bots.brains.chains import Chains
from hexarena.protocol.client import run_bot

if __name__ == "__main__":
    run_bot(bot_choose(Chains()), name="chains")
