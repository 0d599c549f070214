"""mcts: the `Mcts` brain of referee/strategy.py behind the protocol client."""

from protocol.client import run_bot
from referee.strategy import Mcts, bot_choose

if __name__ == "__main__":
    run_bot(bot_choose(Mcts()), name="mcts")
