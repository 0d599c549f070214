"""Check the solver's speed goals: every board with up to 20 free lines in under a second.

    PYTHONPATH=. python3 benchmarks/solve_speed.py [--max-free 20] [--goal 1.0]

Solves the start position of every size (1-10 × 1-10), both geometries, with and
without border, normal and misère, that has at most ``--max-free`` free lines, and
prints the slowest ones in CPU seconds, with the C search (when built) and the pure-Python
search side by side in the same run. Exit status 1 if any took longer than ``--goal`` (in C,
or in Python when the C search is not built).
"""

from __future__ import annotations

import argparse
import sys
import time

from hexarena.bots.brains.solver import Solver, compiled
from hexarena.protocol.board import boards_with_few_free_lines
from hexarena.protocol.rules import Options, Rules


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--max-free", type=int, default=20)
    parser.add_argument("--goal", type=float, default=1.0, help="CPU seconds allowed per position")
    parser.add_argument("--show", type=int, default=10, help="how many of the slowest to print")
    args = parser.parse_args()
    runs = []
    for board, border in boards_with_few_free_lines(args.max_free):
        free = len(board.lines) - (len(board.border) if border else 0)
        for misere in (False, True):
            rules = Rules(board, Options(2, misere, border))
            seconds = {}
            for in_c in (True, False) if compiled() else (False,):
                solver = Solver(rules, compiled=in_c, table_bits=18)
                began = time.process_time()
                solution = solver.solve(rules.start())
                seconds[in_c] = time.process_time() - began
            runs.append((seconds.get(True, seconds[False]), seconds[False], board.geometry, board.size, border,
                         misere, free, solution.value, solution.nodes))
    runs.sort(reverse=True)
    total, total_python = sum(r[0] for r in runs), sum(r[1] for r in runs)
    search = "C" if compiled() else "pure-Python (the C search is not built)"
    print(f"{len(runs)} positions with 1-{args.max_free} free lines, {search} search: total {total:.2f} CPU s; "
          f"pure Python {total_python:.1f} CPU s ({total_python / total:.1f}x)")
    for seconds, python, geometry, size, border, misere, free, value, nodes in runs[: args.show]:
        options = " ".join(name for name, on in (("border", border), ("misère", misere)) if on)
        print(f"  {seconds:6.3f} s (Python {python:5.2f} s)  {geometry:6} {size:5} {options:14} {free:2} free  "
              f"value {value:+d}  {nodes:,} nodes")
    slow = [r for r in runs if r[0] > args.goal]
    print(f"{len(slow)} over the {args.goal} s goal")
    sys.exit(1 if slow else 0)


if __name__ == "__main__":
    main()
