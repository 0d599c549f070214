"""Random playouts per second: the real rules engine beside a minimal inline bitmask loop.

    python3 benchmarks/playouts.py [--seconds 3]

Both loops play uniformly random complete games (a random order of the free lines is a
uniformly random game) on one core; the ratio is what the engine's immutable states,
owners, scores and step values cost on top of the bare minimum.
"""

from __future__ import annotations

import argparse
import random
import time

from hexarena.protocol.board import make_board
from hexarena.protocol.rules import Rules


def engine_games(rules: Rules, seconds: float, rng: random.Random) -> float:
    start, games = time.perf_counter(), 0
    begin = rules.start()
    while time.perf_counter() - start < seconds:
        state = begin
        order = state.legal_moves()
        rng.shuffle(order)
        for line in order:
            state = state.apply(line).state
        state.outcome()
        games += 1
    return games / (time.perf_counter() - start)


def bare_games(rules: Rules, seconds: float, rng: random.Random) -> float:
    """The same playouts with only a drawn mask and two counters, inline."""
    touches, lines = rules.touches, list(range(rules.lines))
    start, games = time.perf_counter(), 0
    while time.perf_counter() - start < seconds:
        rng.shuffle(lines)
        drawn, mover, score = 0, 0, [0, 0]
        for line in lines:
            drawn |= 1 << line
            closed = 0
            for _, mask in touches[line]:
                if drawn & mask == mask:
                    closed += 1
            if closed:
                score[mover] += closed
            else:
                mover ^= 1
        games += 1
    return games / (time.perf_counter() - start)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=3.0)
    args = parser.parse_args()
    print(f"{'board':8} {'engine games/s':>15} {'bare loop games/s':>18} {'bare/engine':>12}")
    for size in ("4x4", "6x6"):
        rules = Rules(make_board(size))
        engine = engine_games(rules, args.seconds, random.Random(1))
        bare = bare_games(rules, args.seconds, random.Random(1))
        print(f"{size + ' hex':8} {engine:15,.0f} {bare:18,.0f} {bare / engine:11.2f}x")


if __name__ == "__main__":
    main()
