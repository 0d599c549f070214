"""Prove the solver's reductions by exhaustive search on every board of up to 27 free lines (bots/brains/proof.py).

    PYTHONPATH=. nice -n 10 python3 benchmarks/prove_reductions.py [--max-free 27] [--search-free 23] [--min-free 1]

For every board (hexagons and squares, 1-10 x 1-10, with and without border) with at most ``--max-free`` free
lines, normal play and misère: plain retrograde search gives the value of every position (every subset of the free
lines), and each reduction of the C search is evaluated in every position against it; on boards of up to
``--search-free`` free lines the whole search too (null windows around each position's value, transposition cutoffs
at every node). Prints one row per board and rule set (positions, where each rule applied, wrong), the totals, and
the first wrong position of each rule, if any. Exit status 1 if any rule is wrong anywhere.

The whole set (108 boards, 2 x 1.24 G positions) took 1,227 CPU s (20 minutes of one core at load 5-9); memory: 128
MiB of values for 27 free lines, and the search's table (up to 2**24 entries, 205 MiB); the whole search on the 24-27-line
boards too (``--search-free 27``) takes 2-5 times longer there.
"""

from __future__ import annotations

import argparse
import sys
import time

from hexarena.bots.brains.proof import available, prove
from hexarena.protocol.board import boards_with_few_free_lines
from hexarena.protocol.rules import Options, Rules

RULES = ("free captures", "chain rule", "border lines", "symmetries", "pieces of three", "search")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--max-free", type=int, default=27, help="the most free lines of a board (at most 30)")
    parser.add_argument("--min-free", type=int, default=1)
    parser.add_argument("--search-free", type=int, default=23, help="check the whole search up to this many")
    args = parser.parse_args()
    if not 1 <= args.max_free <= 30:
        sys.exit(f"prove_reductions: --max-free {args.max_free}: allowed 1-30 (2**free bytes of values)")
    if not available():
        sys.exit("prove_reductions: the C modules are not built (pip install -e . with gcc and python3-dev)")
    boards = sorted(
        (len(board.lines) - (len(board.border) if border else 0), board.geometry, board.rows, board.cols, board, border)
        for board, border in boards_with_few_free_lines(args.max_free)
    )
    totals = {rule: [0, 0] for rule in RULES}
    positions = 0
    examples = []
    began = time.process_time()
    print("| board | border | free lines | rule set | positions | value | " + " | ".join(RULES) + " | CPU s |")
    print("|---" * (len(RULES) + 7) + "|")
    for free, geometry, _, _, board, border in boards:
        if free < args.min_free:
            continue
        for misere in (False, True):
            rules = Rules(board, Options(2, misere, border))
            started = time.process_time()
            report = prove(rules, search=free <= args.search_free, table_entries=2**24)
            seconds = time.process_time() - started
            positions += report.positions
            cells = []
            for rule in RULES:
                verdict = report.rules[rule]
                totals[rule][0] += verdict.applied
                totals[rule][1] += verdict.wrong
                cells.append(f"{verdict.applied:,}" + (f" ({verdict.wrong:,} wrong)" if verdict.wrong else ""))
                if verdict.wrong:
                    examples.append(
                        f"{geometry} {board.size} border={border} misere={misere} {rule}: {verdict.example}"
                    )
            print(
                f"| {geometry} {board.size} | {'yes' if border else 'no'} | {free} | {'misère' if misere else 'normal'} "
                f"| {report.positions:,} | {report.value:+d} | " + " | ".join(cells) + f" | {seconds:.1f} |",
                flush=True,
            )
    summary = ", ".join(f"{rule} {applied:,} ({wrong:,} wrong)" for rule, (applied, wrong) in totals.items())
    print(f"\n{positions:,} positions; {summary}; {time.process_time() - began:.0f} CPU s")
    for example in examples:
        print("first wrong position:", example)
    sys.exit(1 if examples else 0)


if __name__ == "__main__":
    main()
