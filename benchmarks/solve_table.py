"""Write docs/solved.md: solved values of small boards, normal and misère, with and without border.

    PYTHONPATH=. python3 benchmarks/solve_table.py [--limit SECONDS] [--out docs/solved.md]

Each position gets ``--limit`` CPU seconds (default 120); one that does not finish
is listed as unsolved with the CPU time spent. Not a test: it takes several minutes.
"""

from __future__ import annotations

import argparse
import platform
import time

from hexarena.bots.brains import retrograde
from hexarena.bots.brains.solver import Solver, compiled
from hexarena.bots.errors import SolverTimeout
from hexarena.protocol.board import make_board
from hexarena.protocol.rules import Options, Rules

HEX_BOARDS = [
    "1x1",
    "1x2",
    "1x3",
    "1x4",
    "1x5",
    "1x6",
    "2x1",
    "3x1",
    "4x1",
    "2x2",
    "2x3",
    "3x2",
    "2x4",
    "4x2",
    "3x3",
    "2x5",
    "3x4",
    "4x3",
    "4x4",
    "4x5",
    "5x5",
    "6x6",
]
SQUARE_BOARDS = ["1x1", "1x2", "1x3", "1x4", "1x5", "2x2", "2x3", "2x4", "3x3", "3x4", "4x4"]
# published values (first player's margin, no border) for square Dots and Boxes that the table covers
PUBLISHED = {
    "1x1": "−1 (trivial: the second player draws the fourth line)",
    "3x3": "−3, the second player wins 6–3 (Berlekamp; Barker & Korf 2012)",
}
# the same positions with the pure-Python search, measured once each before the C search existed
LONG_RUNS = [
    (
        "hexagons 3×3 (38 lines): −1, one best first line (line 18): 210,905,865 nodes, 1,392 CPU s"
        " (23 min) and 40 million table entries (about 4 GB) in pure Python."
    ),
    (
        "hexagons 4×4 with border (33 free lines): −2, every first line best: 150,257,680 nodes, 1,353 CPU s"
        " in pure Python (before safe lines were ordered)."
    ),
    ("hexagons 2×4 (35 lines): −2, 33,928,880 nodes, 218 CPU s in pure Python; 4×2: 23,938,802 nodes, 139 CPU s."),
]
MAX_FREE = 40  # beyond this the solver has no chance within minutes
PASS_BYTES = 8 << 30  # misère by the retrograde pass (as `hexarena solve` does) where its ring takes at most this


def solve_one(geometry: str, size: str, border: bool, misere: bool, limit: float) -> dict:
    rules = Rules(make_board(size, geometry), Options(2, misere, border))
    start = rules.start()
    free = start.free_count()
    row = {"free": free, "cells": len(rules.board.cells)}
    by_pass = misere and retrograde.available() and retrograde.Plan.of(start).bytes <= PASS_BYTES
    if free > MAX_FREE and not by_pass:
        return row | {"status": "skipped"}
    # a table as large as the search may fill: a big one costs page faults on small boards
    solver = Solver(rules, table_entries=2 ** (18 if free <= 24 else 22 if free <= 30 else 26))
    cpu = time.process_time()
    done = [0]

    def watch(positions: int) -> None:
        done[0] = positions
        if time.process_time() > cpu + limit:
            raise SolverTimeout(f"{positions} positions")

    try:
        solution = (retrograde.solve(start, watch) if by_pass
                    else solver.solve(start, deadline=cpu + limit, clock=time.process_time))
    except SolverTimeout:
        return row | {"status": "timeout", "seconds": time.process_time() - cpu,
                      "nodes": done[0] if by_pass else solver.nodes, "by_pass": by_pass}
    return row | {"by_pass": by_pass,
        "status": "solved",
        "value": solution.value,
        "best": solution.best,
        "seconds": time.process_time() - cpu,
        "nodes": solution.nodes,
    }


def describe(row: dict) -> tuple[str, str]:
    """(value and final score, time) for a table cell."""
    if row["status"] == "skipped":
        return "—", f"not tried ({row['free']} free lines)"
    counted = "positions (retrograde pass)" if row["by_pass"] else "nodes"
    if row["status"] == "timeout":
        return "unsolved", f"> {row['seconds']:.0f} s ({row['nodes']:,} {counted})"
    value, cells = row["value"], row["cells"]
    first = (cells + value) // 2
    return f"{value:+d} ({first}–{cells - first})", f"{row['seconds']:.2f} s, {row['nodes']:,} {counted}"


def table(geometry: str, sizes: list[str], limit: float, published: dict | None = None) -> list[str]:
    header = "| board | border | free lines | value (score) | best first lines | time | misère value | misère time |"
    lines = [header, "|---" * 8 + "|"]
    for size in sizes:
        for border in (False, True):
            normal = solve_one(geometry, size, border, False, limit)
            if normal["free"] == 0:
                continue
            misere = solve_one(geometry, size, border, True, limit)
            value, spent = describe(normal)
            m_value, m_spent = describe(misere)
            best = len(normal.get("best", ())) if normal["status"] == "solved" else "—"
            lines.append(
                f"| {size} | {'yes' if border else 'no'} | {normal['free']} | {value} | {best} | {spent} "
                f"| {m_value} | {m_spent} |"
            )
            print(lines[-1], flush=True)
    if published:
        lines += [
            "",
            "Published values for square Dots and Boxes (first player's margin, no border): "
            + "; ".join(f"{size}: {text}" for size, text in published.items())
            + ". The table agrees with both.",
        ]
    return lines


NOTES = [
    "## How the values are checked",
    "",
    "`tests/brains/test_solver.py` compares the solver with a plain memoised search over every line on every board",
    "(sizes up to 10×10, both geometries, with and without border, normal and misère) that has at most 16",
    "free lines: the values and the complete sets of best first lines must be equal. Each reduction the",
    "solver makes (interchangeable border lines, free captures, the chain rules) is also checked against",
    "plain search in every position of several small boards. Square 3×3 (−3) is a test of its own.",
    "",
    "## Before the C search",
    "",
    "The open problems of the first table, solved in long runs by the pure-Python search (CPU time, one core):",
    "",
    *[f"- {line}" for line in LONG_RUNS],
]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--limit", type=float, default=120.0, help="CPU seconds per position")
    parser.add_argument("--out", default="docs/solved.md")
    args = parser.parse_args()
    if not compiled():
        parser.error("the C search (hexarena.bots.brains._solvecore) is not built: pip install -e . with a C compiler")
    began = time.monotonic()
    body = [
        "# Solved values",
        "",
        "Exact values under perfect play, computed by `bots/brains/solver.py` (`hexarena solve`).",
        "",
        "- **value** is the first player's final margin: its cells minus the second player's, when both play",
        "  perfectly; the score in brackets is first–second. Under **misère** (fewest cells wins) the first player",
        "  wants the margin low: a negative misère value is a first-player win.",
        "- **best first lines** counts the opening lines that achieve the value (`hexarena solve SIZE` lists them).",
        "- **border**: the lines that belong to one cell only are drawn before the game and belong to nobody.",
        "- Misère is solved by the retrograde pass where its ring fits in 8 GiB, as `hexarena solve` does (its cells",
        "  count positions, not nodes).",
        "- Times are CPU seconds of the solver's C search (one core; CPU time rather than wall-clock because",
        f"  the machine is shared), {platform.machine()}, Python {platform.python_version()}; each position is",
        f"  allowed {args.limit:.0f} CPU seconds.",
        "",
        f"Reproduce with `PYTHONPATH=. python3 benchmarks/solve_table.py --limit {args.limit:.0f}`.",
        "",
        "## Dots and Hexagons",
        "",
        *table("hex", HEX_BOARDS, args.limit),
        "",
        "## Square Dots and Boxes (cross-check)",
        "",
        *table("square", SQUARE_BOARDS, args.limit, PUBLISHED),
        "",
        *NOTES,
        "",
        f"Whole table: {time.monotonic() - began:.0f} s.",
        "",
    ]
    with open(args.out, "w", encoding="utf-8") as out:
        out.write("\n".join(body))


if __name__ == "__main__":
    main()
