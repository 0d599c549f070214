"""Check the solver's speed goals: every board with up to 20 free lines in under a second.

    PYTHONPATH=. python3 benchmarks/solve_speed.py [--max-free 20] [--goal 1.0]

Solves the start position of every size (1-10 × 1-10), both geometries, with and
without border, normal and misère, that has at most ``--max-free`` free lines, and
prints the slowest ones in CPU seconds. Exit status 1 if any took longer than ``--goal``.
"""

from __future__ import annotations

import argparse
import sys
import time

from protocol.board import boards_with_few_free_lines
from referee.rules import Options, Rules
from referee.solver import Solver


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
            began = time.process_time()
            solution = Solver(rules).solve(rules.start())
            seconds = time.process_time() - began
            runs.append((seconds, board.geometry, board.size, border, misere, free, solution.value, solution.nodes))
    runs.sort(reverse=True)
    print(f"{len(runs)} positions with 1-{args.max_free} free lines; total {sum(r[0] for r in runs):.1f} CPU s")
    for seconds, geometry, size, border, misere, free, value, nodes in runs[: args.show]:
        options = " ".join(name for name, on in (("border", border), ("misère", misere)) if on)
        print(f"  {seconds:6.2f} s  {geometry:6} {size:5} {options:14} {free:2} free  "
              f"value {value:+d}  {nodes:,} nodes")
    slow = [r for r in runs if r[0] > args.goal]
    print(f"{len(slow)} over the {args.goal} s goal")
    sys.exit(1 if slow else 0)


if __name__ == "__main__":
    main()
