"""chains: the `Chains` brain of referee/strategy.py behind the protocol client."""

from protocol.client import run_bot
from referee.strategy import Chains, bot_choose

if __name__ == "__main__":
    run_bot(bot_choose(Chains()), name="chains")
