"""napper: 100 ms asleep before each move, then a random line: a bot whose wall time is not CPU time."""

import time

from hexarena.protocol.client import run_bot


def choose(game, state) -> int:
    time.sleep(0.1)
    return game.rng.choice(state.legal_moves())


if __name__ == "__main__":
    run_bot(choose)
