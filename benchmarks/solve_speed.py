"""Check the solver's speed goals: every board with up to 20 free lines in under a second; or before/after.

    PYTHONPATH=. python3 benchmarks/solve_speed.py [--max-free 20] [--goal 1.0]
    PYTHONPATH=. python3 benchmarks/solve_speed.py --before /work/solver-base [--rounds 2] [--long] [--memory MIB]

With ``--before CHECKOUT`` (another checkout with its C search built in place, e.g. ``git worktree add
/work/solver-base 21ebc33`` and its ``bots/brains/_solvecore.c`` compiled beside it), each position is solved by
``hexarena solve`` as a user types it, in a fresh process, by that checkout and by this one in turn (the order
alternating each round), and the CPU seconds (user + system) of each process compared: the ratio before/after
per position and round, with the spread over rounds, and the nodes of each. ``--long`` adds hexagons 3x3 as typed
(minutes). ``--memory MIB`` gives every solve that table (e.g. 16: the regime of the long rows, where the table
fills and its replacement decides the nodes) instead of the machine-sized default.

Solves the start position of every size (1-10 × 1-10), both geometries, with and
without border, normal and misère, that has at most ``--max-free`` free lines, and
prints the slowest ones in CPU seconds, with the C search (when built) and the pure-Python
search side by side in the same run. Exit status 1 if any took longer than ``--goal`` (in C,
or in Python when the C search is not built).
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

from hexarena.bots.brains.solver import Solver, compiled
from hexarena.protocol.board import boards_with_few_free_lines
from hexarena.protocol.rules import Options, Rules


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--max-free", type=int, default=20)
    parser.add_argument("--goal", type=float, default=1.0, help="CPU seconds allowed per position")
    parser.add_argument("--show", type=int, default=10, help="how many of the slowest to print")
    parser.add_argument("--before", type=Path, help="compare with this checkout (its C search built in place)")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--long", action="store_true", help="with --before: add hexagons 3x3 as typed")
    parser.add_argument("--memory", type=int, help="with --before: --memory MIB for every solve")
    args = parser.parse_args()
    if args.before:
        before_and_after(args.before, args.rounds, args.long, args.memory)
        return
    runs = []
    for board, border in boards_with_few_free_lines(args.max_free):
        free = len(board.lines) - (len(board.border) if border else 0)
        for misere in (False, True):
            rules = Rules(board, Options(2, misere, border))
            seconds = {}
            for in_c in (True, False) if compiled() else (False,):
                solver = Solver(rules, compiled=in_c, table_entries=2**18)
                began = time.process_time()
                solution = solver.solve(rules.start())
                seconds[in_c] = time.process_time() - began
            runs.append(
                (
                    seconds.get(True, seconds[False]),
                    seconds[False],
                    board.geometry,
                    board.size,
                    border,
                    misere,
                    free,
                    solution.value,
                    solution.nodes,
                )
            )
    runs.sort(reverse=True)
    total, total_python = sum(r[0] for r in runs), sum(r[1] for r in runs)
    search = "C" if compiled() else "pure-Python (the C search is not built)"
    print(
        f"{len(runs)} positions with 1-{args.max_free} free lines, {search} search: total {total:.2f} CPU s; "
        f"pure Python {total_python:.1f} CPU s ({total_python / total:.1f}x)"
    )
    for seconds, python, geometry, size, border, misere, free, value, nodes in runs[: args.show]:
        options = " ".join(name for name, on in (("border", border), ("misère", misere)) if on)
        print(
            f"  {seconds:6.3f} s (Python {python:5.2f} s)  {geometry:6} {size:5} {options:14} {free:2} free  "
            f"value {value:+d}  {nodes:,} nodes"
        )
    slow = [r for r in runs if r[0] > args.goal]
    print(f"{len(slow)} over the {args.goal} s goal")
    sys.exit(1 if slow else 0)


# positions as a user types them: the misère ones gained a chain rule, all of them the machine-sized table
POSITIONS = [
    ["2x3", "--misere"],
    ["3x3", "--geometry", "square", "--misere"],
    ["2x4"],
    ["4x3", "--border", "--misere"],
    ["3x4", "--border", "--misere"],
    ["3x5", "--border", "--misere", "--moves", "17,36,48,46,45,13,23"],  # a long row's position (22 free lines)
    ["3x3", "--moves", "12,30,5,22"],  # normal play in a hexagons board's middle game (34 free lines)
]
HERE = Path(__file__).resolve().parents[1]


def cpu_of(checkout: Path, position: list[str]) -> tuple[float, str]:
    """CPU seconds (user + system) of ``hexarena solve POSITION --json`` run from ``checkout``, and its output."""
    env = {**os.environ, "PYTHONPATH": str(checkout)}
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    done = subprocess.run(
        [sys.executable, "-m", "hexarena", "solve", *position, "--json"],
        cwd=checkout,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime, done.stdout


def before_and_after(base: Path, rounds: int, long: bool, memory: int | None = None) -> None:
    """Each position by ``base`` and by this checkout in turn, alternating; ratios of CPU seconds."""
    import json

    table = ["--memory", str(memory)] if memory else []
    positions = [[*position, *table] for position in POSITIONS + ([["3x3"]] if long else [])]
    commit = subprocess.run(
        ["git", "-C", str(base), "rev-parse", "--short", "HEAD"], text=True, capture_output=True, check=False
    ).stdout.strip()
    print(
        f"before: {base} ({commit}), after: {HERE}; CPU seconds (user + system) of `hexarena solve ... --json` "
        f"as typed, {rounds} rounds"
    )
    for position in positions:
        ratios, times, nodes = [], {"before": [], "after": []}, {}
        for round_ in range(rounds):
            order = [("before", base), ("after", HERE)]
            for name, checkout in order if round_ % 2 == 0 else order[::-1]:
                seconds, out = cpu_of(checkout, position)
                times[name].append(seconds)
                result = json.loads(out)
                nodes[name] = result["nodes"]
                if name == "after":
                    after_value = result["value"]
                else:
                    before_value = result["value"]
            assert before_value == after_value, (position, before_value, after_value)
            ratios.append(times["before"][-1] / times["after"][-1])
        spread = f" (rounds {', '.join(f'{r:.2f}' for r in ratios)})" if rounds > 1 else ""
        before, after = statistics.median(times["before"]), statistics.median(times["after"])
        print(
            f"  hexarena solve {' '.join(position):32} value {after_value:+d}  before {before:7.2f} s  after "
            f"{after:7.2f} s  ratio {statistics.median(ratios):5.2f}x{spread}; nodes {nodes['before']:,} -> "
            f"{nodes['after']:,}",
            flush=True,
        )


if __name__ == "__main__":
    main()
