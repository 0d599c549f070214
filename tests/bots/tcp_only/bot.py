"""A bot whose ZeroMQ can only do tcp (as JeroMQ's): it refuses any endpoint but tcp://127.0.0.1:PORT."""

import os
import re
import sys

from hexarena.protocol.client import run_bot

endpoint = os.environ.get("HEXARENA_ENDPOINT", "")
if not re.fullmatch(r"tcp://127\.0\.0\.1:\d+", endpoint):
    sys.exit(f"tcp-only: cannot use {endpoint!r}: this ZeroMQ has no ipc://")
print(f"tcp-only: connecting to {endpoint}", file=sys.stderr, flush=True)


def choose(game, state) -> int:
    return game.rng.choice(state.legal_moves())


if __name__ == "__main__":
    run_bot(choose)
