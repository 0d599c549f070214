"""The sandbox's cost (referee/sandbox.py): bot start time and TURN → MOVE on each path, in one run.

    python3 benchmarks/sandbox_cost.py [--starts 20] [--games 100]

The paths: bubblewrap, the kernel's namespaces without it (``referee/namespaces.py``, forced with
``HEXARENA_SANDBOX=unshare``), and unconfined (``--no-sandbox``); those this machine cannot take are left out.

1. Start: a Referee launches the random bot and waits for its HELLO (process start, interpreter,
   imports, connect), ``--starts`` times each way, alternating.
2. Bare launch: ``true`` run to its exit in the sandbox (no interpreter, no bot): the sandbox's own cost.
3. TURN → MOVE: random vs random on 4x4 hexagons, bots kept running, the referee's recorded
   thinking time per move (one round trip plus the bot's choice).
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from hexarena.referee import sandbox
from hexarena.referee.clock import TimeControl
from hexarena.referee.limits import Limits
from hexarena.referee.record import BoardConfig
from hexarena.referee.referee import Referee
from hexarena.referee.seats.process import BotSpec

RANDOM = BotSpec("random", ROOT / "bots" / "random")
SANDBOXED = [True]  # the path being measured: False for "unconfined" (``use``)


def start_seconds() -> float:
    with Referee(time_control=TimeControl.parse("1s,startup=10s"), sandboxed=SANDBOXED[0]) as referee:
        seats = referee.seat_bots([RANDOM])
        begun = time.perf_counter()
        referee.start(seats)
        return time.perf_counter() - begun


def bare_launch_seconds() -> float:
    command, env = sandbox.wrap(["true"], ROOT, {}, Limits(), sandboxed=SANDBOXED[0])
    begun = time.perf_counter()
    subprocess.run(command, env=env, cwd=ROOT, check=True)
    return time.perf_counter() - begun


def turn_to_move(games: int) -> list[float]:
    config = BoardConfig(size="4x4")
    with Referee(time_control=TimeControl.parse("1s"), sandboxed=SANDBOXED[0]) as referee:
        referee.play([RANDOM, RANDOM], config, game_id="warm-up", seed=0)
        return [move.ms / 1000 for n in range(games)
                for move in referee.play([RANDOM, RANDOM], config, game_id=f"g{n}", seed=n).moves]


def use(path: str) -> None:
    """Sandbox this process's bots by ``path``: "bwrap", "unshare" or "unconfined"."""
    SANDBOXED[0] = path != "unconfined"
    if path != "unconfined":
        os.environ[sandbox.CHOICE] = path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--starts", type=int, default=20)
    parser.add_argument("--games", type=int, default=100)
    args = parser.parse_args()
    paths = [p for p in ("bwrap", "unshare") if (p == "bwrap" and sandbox.bwrap()) or
             (p == "unshare" and sandbox.user_namespaces() is None)] + ["unconfined"]
    print(f"sandbox by default: {sandbox.describe()}; measured: {', '.join(paths)}")
    starts: dict[str, list[float]] = {path: [] for path in paths}
    for _ in range(args.starts):
        for path in paths:
            use(path)
            starts[path].append(start_seconds())
    bare: dict[str, list[float]] = {path: [] for path in paths}
    for _ in range(args.starts):
        for path in paths:
            use(path)
            bare[path].append(bare_launch_seconds())
    moves = {}
    for path in paths:
        use(path)
        moves[path] = turn_to_move(args.games)
    base = statistics.median(starts["unconfined"])
    for path in paths:
        start = statistics.median(starts[path])
        print(f"{path:>10}: bot start to HELLO median {start * 1e3:.1f} ms ({start / base:.2f} x unconfined); "
              f"bare launch of true {statistics.median(bare[path]) * 1e3:.1f} ms; "
              f"TURN -> MOVE median {statistics.median(moves[path]) * 1e6:.0f} µs ({len(moves[path])} moves)")
    if {"bwrap", "unshare"} <= set(paths):
        ratio = statistics.median(starts["unshare"]) / statistics.median(starts["bwrap"])
        bare_ratio = statistics.median(bare["unshare"]) / statistics.median(bare["bwrap"])
        print(f"the kernel-namespaces path starts a bot in {ratio:.2f} x bubblewrap's time "
              f"(a bare launch: {bare_ratio:.2f} x)")


if __name__ == "__main__":
    main()
