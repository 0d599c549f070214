"""spinner: before each move, 80 ms of CPU time (by its own clock), then a random line: a bot whose CPU time per
move is known. ``python3 bot.py child``: the 80 ms are spent in a forked child, reaped before the MOVE."""

import os
import sys
import time

from hexarena.protocol.client import run_bot

SPIN_S = 0.08


def spin() -> None:
    end = time.process_time() + SPIN_S
    while time.process_time() < end:
        pass


def choose(game, state) -> int:
    if sys.argv[1:] == ["child"]:
        child = os.fork()
        if child == 0:
            spin()
            os._exit(0)
        os.waitpid(child, 0)
    else:
        spin()
    return game.rng.choice(state.legal_moves())


if __name__ == "__main__":
    run_bot(choose)
