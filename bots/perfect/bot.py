"""perfect: the `Perfect` brain of referee/strategy.py behind the protocol client."""

from protocol.client import run_bot
from referee.strategy import Perfect, bot_choose

if __name__ == "__main__":
    run_bot(bot_choose(Perfect()), name="perfect")
