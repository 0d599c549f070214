"""A bot written for hexarena 0.1: it imports the client library as ``protocol`` (now ``hexarena.protocol``)."""

import hexarena.protocol.rules
from protocol.client import run_bot
from protocol.rules import State

assert State is hexarena.protocol.rules.State  # one module under both names, not a second copy


def choose(game, state) -> int:
    return min(state.legal_moves())


if __name__ == "__main__":
    run_bot(choose)
