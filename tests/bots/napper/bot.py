"""napper: 100 ms asleep before each move, then a random line: a bot whose wall time is not CPU time. Says
"napped" on stderr before each MOVE (its log shows how far the game got)."""

import sys
import time

from hexarena.protocol.client import run_bot


def choose(game, state) -> int:
    time.sleep(0.1)
    print("napped", file=sys.stderr, flush=True)
    return game.rng.choice(state.legal_moves())


if __name__ == "__main__":
    run_bot(choose)
