"""The solver's analysis of whole games (``hexarena.leagues.results.analysis``), from the end backwards, and what it
adds to publishing the demo league.

    PYTHONPATH=.:tests python benchmarks/analysis.py [--games N] [--budget SECONDS] [--home DEMO_HOME]

Part 1: games of two sloppy players (random lines, a capture when there is one) on 2x3, 3x3 and 4x4 hex; each
analysed with one Solver within --budget seconds: seconds per game and positions solved.
Part 2 (with --home, a workspace where the demo league has been run: ``hexarena demo --home H``): publish
the demo league with analysis off, on (the stored analyses deleted before each "on") and off without its logs
(publish_logs = false), in turn, three times.
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
    """The demo league published with analysis off, on (its stored analyses deleted first) and off with its logs
    private (``publish_logs = false``: what copying each game's logs costs), in turn, three times."""
    from hexarena.leagues.site import publish as site
    from hexarena.leagues.workspace.home import Workspace

    original = definitions.league_config
    changes = {"off": {"analysis_budget": 0}, "on": {}, "no logs": {"analysis_budget": 0, "publish_logs": False}}
    times: dict[str, list[float]] = {mode: [] for mode in changes}
    logs = 0
    with Workspace(home) as ws, tempfile.TemporaryDirectory() as out:
        for _ in range(3):
            for mode, change in changes.items():
                if mode == "on":
                    with ws.transaction() as db:
                        db.execute("DELETE FROM analyses")
                definitions.league_config = lambda ws, name, change=change: original(ws, name).model_copy(update=change)
                site.definitions.league_config = definitions.league_config
                started = time.perf_counter()
                site.publish(ws, "demo", out)
                times[mode].append(time.perf_counter() - started)
                if mode == "off":
                    logs = len(list(Path(out, "logs").glob("*.js")))  # the games whose logs a publish copies
        definitions.league_config = site.definitions.league_config = original
        games = ws.db.execute("SELECT COUNT(*) FROM analyses").fetchone()[0]
    off = times["off"]
    for mode in ("on", "no logs"):
        print(f"demo publish, {mode} against off ({games} games analysed, {logs} games' logs): "
              f"off {', '.join(f'{t:.2f}' for t in off)} s, {mode} {', '.join(f'{t:.2f}' for t in times[mode])} s;"
              f" ratio {min(times[mode]) / min(off):.2f} (runs: "
              f"{', '.join(f'{a / b:.2f}' for a, b in zip(times[mode], off))})")


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
