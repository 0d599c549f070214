"""The sandbox's cost (referee/sandbox.py): bot start time and TURN → MOVE, with and without it, in one run.

    python3 benchmarks/sandbox_cost.py [--starts 20] [--games 100]

1. Start: a Referee launches the random bot and waits for its HELLO (process start, interpreter,
   imports, connect), ``--starts`` times each way, alternating.
2. TURN → MOVE: random vs random on 4x4 hexagons, bots kept running, the referee's recorded
   thinking time per move (one round trip plus the bot's choice).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from referee import sandbox
from referee.clock import TimeControl
from referee.local import BotSpec
from referee.record import BoardConfig
from referee.referee import Referee

RANDOM = BotSpec("random", ROOT / "bots" / "random")


def start_seconds() -> float:
    with Referee(time_control=TimeControl.parse("1s,startup=10s")) as referee:
        seats = referee.seat_bots([RANDOM])
        begun = time.perf_counter()
        referee.start(seats)
        return time.perf_counter() - begun


def turn_to_move(games: int) -> list[float]:
    config = BoardConfig(size="4x4")
    with Referee(time_control=TimeControl.parse("1s")) as referee:
        referee.play([RANDOM, RANDOM], config, game_id="warm-up", seed=0)
        return [move.ms / 1000 for n in range(games)
                for move in referee.play([RANDOM, RANDOM], config, game_id=f"g{n}", seed=n).moves]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--starts", type=int, default=20)
    parser.add_argument("--games", type=int, default=100)
    args = parser.parse_args()
    print(f"sandbox: {sandbox.describe()}")
    starts: dict[bool, list[float]] = {True: [], False: []}
    for _ in range(args.starts):
        for enabled in (True, False):
            sandbox.configure(enabled)
            starts[enabled].append(start_seconds())
    moves = {}
    for enabled in (True, False):
        sandbox.configure(enabled)
        moves[enabled] = turn_to_move(args.games)
    sandbox.configure(True)
    for enabled, label in ((True, "sandboxed"), (False, "unconfined")):
        print(f"{label:>10}: bot start to HELLO median {statistics.median(starts[enabled]) * 1e3:.1f} ms; "
              f"TURN -> MOVE median {statistics.median(moves[enabled]) * 1e6:.0f} µs "
              f"({len(moves[enabled])} moves)")
    extra = statistics.median(starts[True]) - statistics.median(starts[False])
    print(f"the sandbox adds {extra * 1e3:.1f} ms to a bot's start")


if __name__ == "__main__":
    main()
