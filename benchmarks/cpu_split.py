"""Where a league's CPU goes, against the floors': the runner's own process, its referee workers, their bots.

    python3 benchmarks/cpu_split.py                  # 300 games random vs random, 4x4, concurrency 2, pinned, 3 rounds
    python3 benchmarks/cpu_split.py --games 1000 --rounds 2

The machine is saturated by a league at concurrency 2 on 2 cores (the floors too: their CPU is about twice their
wall time), so a league's time over the floors' follows its CPU over theirs. This says which process to make
cheaper. The league runs unsandboxed (``--no-sandbox``), since a sandboxed bot's CPU escapes the reaped count. Each
process's CPU is its own ``getrusage``: the runner's ``RUSAGE_SELF``, and each worker's ``RUSAGE_SELF`` and
``RUSAGE_CHILDREN`` (its bots) as it ends, taken in a wrapper that starts ``hexarena`` with ``_serve`` wrapped
(the workers are forked from the runner). Each floor (``floor.minimal_referee``, pinned to its core) gives its
own ``RUSAGE_SELF`` (the referee) and ``RUSAGE_CHILDREN`` (its two bots).
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import baseline
import floor

WRAPPER = """
import os, resource, sys
import hexarena.cli as cli
import hexarena.referee.pool as pool

def used(who):
    usage = resource.getrusage(who)
    return usage.ru_utime + usage.ru_stime

serve = pool._serve

def counted(*args):
    try:
        serve(*args)
    finally:
        os.write(2, f"cpu worker {used(resource.RUSAGE_SELF):.3f} {used(resource.RUSAGE_CHILDREN):.3f}\\n".encode())

pool._serve = counted
sys.argv = ["hexarena", *sys.argv[1:]]
try:
    cli.main()
finally:
    print(f"cpu runner {used(resource.RUSAGE_SELF):.3f}", file=sys.stderr)
"""

FLOOR = """
import resource, sys
sys.path.insert(0, {benchmarks!r})
import floor
floor.minimal_referee({games}, {size!r})
self, children = (resource.getrusage(who) for who in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN))
print(f"cpu floor {{self.ru_utime + self.ru_stime:.3f}} {{children.ru_utime + children.ru_stime:.3f}}")
"""


def league_split(folder: Path, games: int, size: str) -> tuple[float, dict[str, float]]:
    """(wall seconds, CPU seconds by part) of ``league run --pin-cores --no-sandbox`` at concurrency 2."""
    home = folder / "home"
    floor.seeded_home(sys.executable, home)
    league = floor.league_file(folder, games, size, baseline.random_bot(sys.executable), "split")
    began = time.perf_counter()
    done = subprocess.run([sys.executable, "-c", WRAPPER, "league", "run", str(league), "--home", str(home),
                           "--pin-cores", "--no-sandbox"], cwd=folder, capture_output=True, text=True, check=True)
    wall = time.perf_counter() - began
    parts = {"runner": 0.0, "referees": 0.0, "bots": 0.0}
    for line in done.stderr.splitlines():
        words = line.split()
        if words[:2] == ["cpu", "runner"]:
            parts["runner"] += float(words[2])
        elif words[:2] == ["cpu", "worker"]:
            parts["referees"] += float(words[2])
            parts["bots"] += float(words[3])
    return wall, parts


def floors_split(games: int, size: str) -> tuple[float, dict[str, float]]:
    """(wall seconds, CPU seconds by part) of two minimal referees side by side, floor ``i`` on core ``i``."""
    script = FLOOR.format(benchmarks=str(floor.ROOT / "benchmarks"), games=games // 2, size=size)
    began = time.perf_counter()
    runs = [subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True,
                             preexec_fn=lambda core=core: os.sched_setaffinity(0, {core}))  # noqa: PLW1509
            for core in sorted(os.sched_getaffinity(0))[:2]]
    outputs = [run.communicate()[0] for run in runs]
    wall = time.perf_counter() - began
    parts = {"runner": 0.0, "referees": 0.0, "bots": 0.0}
    for output in outputs:
        words = output.split()
        parts["referees"] += float(words[2])
        parts["bots"] += float(words[3])
    return wall, parts


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=300)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--size", default="4x4")
    args = parser.parse_args()
    baseline.compiled(floor.ROOT)
    rows = []
    for number in range(1, args.rounds + 1):
        with tempfile.TemporaryDirectory(prefix="cpu-split-") as tmp:
            floors = floors_split(args.games, args.size)
            league = league_split(Path(tmp), args.games, args.size)
        rows.append((floors, league))
        for name, (wall, parts) in (("floors", floors), ("league", league)):
            print(f"round {number} {name}: {wall:.2f} s wall, CPU {sum(parts.values()):.2f} s = "
                  + ", ".join(f"{part} {seconds:.2f}" for part, seconds in parts.items()), flush=True)
    print(f"median over {args.rounds} rounds of {args.games} games on {args.size} at concurrency 2, pinned:")
    for part in ("runner", "referees", "bots"):
        print(f"  {part:>8}: league {statistics.median(league[1][part] for _, league in rows):.2f} CPU s, "
              f"floors {statistics.median(floors[1][part] for floors, _ in rows):.2f}")
    ratios = [sum(league[1].values()) / sum(floors[1].values()) for floors, league in rows]
    walls = [league[0] / floors[0] for floors, league in rows]
    print(f"  league / floors: CPU {statistics.median(ratios):.2f}x (rounds {min(ratios):.2f}-{max(ratios):.2f}), "
          f"wall {statistics.median(walls):.2f}x (rounds {min(walls):.2f}-{max(walls):.2f})")


if __name__ == "__main__":
    main()
