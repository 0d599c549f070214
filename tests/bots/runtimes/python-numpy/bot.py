"""The lowest free line, found by numpy: a bot that needs a package beyond hexarena's client."""

import numpy

from hexarena.protocol.client import run_bot


def choose(game, state) -> int:
    return int(numpy.min(numpy.array(state.legal_moves(), dtype=numpy.int64)))


if __name__ == "__main__":
    run_bot(choose)
