"""The solver's analysis of whole games (``hexarena.leagues.results.analysis``), from the end backwards, and what it
adds to publishing the demo league.

    PYTHONPATH=.:tests python benchmarks/analysis.py [--games N] [--budget SECONDS] [--home DEMO_HOME]

Part 1: games of two sloppy players (random lines, a capture when there is one) on 2x3, 3x3 and 4x4 hex; each
analysed with one Solver within --budget seconds: seconds per game and positions solved.
Part 2 (with --home, a workspace where the demo league has been run: ``hexarena demo --home H``): publish
the demo league with analysis off and on (the stored analyses deleted before each "on"), alternating, twice.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

from test_analysis import played_game  # tests/leagues: a sloppy game, recorded as the referee does

from hexarena.leagues.results import definitions
from hexarena.leagues.results.analysis import analyse
from hexarena.referee.record import BoardConfig


def per_board(games: int, budget: float) -> None:
    for size in ("2x3", "3x3", "4x4"):
        seconds, solved = [], []
        for seed in range(games):
            record = played_game(BoardConfig(size=size, geometry="hex"), seed)
            analysis = analyse(record, budget)
            seconds.append(analysis.seconds)
            solved.append(f"{analysis.solved_positions}/{len(analysis.values)}")
        print(f"{size} hex: {statistics.median(seconds):.3f} s per game (median of {games}; "
              f"{min(seconds):.3f}-{max(seconds):.3f}), positions solved: {', '.join(solved)}")


def publish_on_off(home: Path) -> None:
    from hexarena.leagues.site import publish as site
    from hexarena.leagues.workspace.home import Workspace

    original = definitions.league_config
    times: dict[str, list[float]] = {"off": [], "on": []}
    with Workspace(home) as ws, tempfile.TemporaryDirectory() as out:
        for _ in range(2):
            for mode in ("off", "on"):
                if mode == "on":
                    with ws.transaction() as db:
                        db.execute("DELETE FROM analyses")
                off = mode == "off"
                definitions.league_config = lambda ws, name, off=off: (
                    original(ws, name).model_copy(update={"analysis_budget": 0}) if off else original(ws, name))
                site.definitions.league_config = definitions.league_config
                started = time.perf_counter()
                site.publish(ws, "demo", out)
                times[mode].append(time.perf_counter() - started)
        definitions.league_config = site.definitions.league_config = original
        games = ws.db.execute("SELECT COUNT(*) FROM analyses").fetchone()[0]
    off, on = times["off"], times["on"]
    print(f"demo publish ({games} games analysed): off {', '.join(f'{t:.2f}' for t in off)} s, "
          f"on {', '.join(f'{t:.2f}' for t in on)} s; ratio on/off {min(on) / min(off):.2f} "
          f"(runs: {', '.join(f'{a / b:.2f}' for a, b in zip(on, off))})")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--games", type=int, default=3)
    parser.add_argument("--budget", type=float, default=20.0)
    parser.add_argument("--home", type=Path)
    args = parser.parse_args()
    if args.games:
        per_board(args.games, args.budget)
    if args.home:
        publish_on_off(args.home)


if __name__ == "__main__":
    main()
