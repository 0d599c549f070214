"""The store's cost per finished game: one transaction per game, under SQLite's ``synchronous`` modes.

    python3 benchmarks/store_writes.py [--games 300] [--rounds 3]

Stores the same realistic records (random vs random on 4x4, played once by an in-process referee)
into fresh workspaces with ``hexarena.leagues.results.store.save_game``, one transaction per game as the league
runner does, with ``PRAGMA synchronous`` FULL (SQLite's default: the WAL is synced at every commit)
and NORMAL (synced at checkpoints; a crash of the process loses no committed game, a crash of the
machine may lose the last commits since the checkpoint, never the database's consistency). Modes
take turns going first; prints ms per game and the ratio, each round and the medians.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

from hexarena.leagues.results import store
from hexarena.leagues.workspace.home import Workspace
from hexarena.referee.clock import TimeControl
from hexarena.referee.seats.inprocess import InProcessSpec
from hexarena.referee.record import BoardConfig
from hexarena.referee.referee import Referee

MODES = ("FULL", "NORMAL")


def sample_records(games: int) -> list:
    """``games`` records of random vs random, played in this process (no bot processes)."""
    def choose(game, state):
        return game.rng.choice(state.legal_moves())

    specs = [InProcessSpec("random", choose), InProcessSpec("random2", choose)]
    config = BoardConfig(size="4x4")
    with Referee(time_control=TimeControl.parse("1s")) as referee:
        return [referee.play(specs if n % 2 == 0 else specs[::-1], config, game_id=f"g{n}", seed=n)
                for n in range(games)]


def seconds_to_store(records: list, mode: str) -> float:
    with tempfile.TemporaryDirectory(prefix="store-writes-") as home, Workspace(Path(home)) as ws:
        ws.db.execute(f"PRAGMA synchronous={mode}")
        began = time.perf_counter()
        for record in records:
            store.save_game(ws, "bench", record)
        return time.perf_counter() - began


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=300)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    records = sample_records(args.games)
    rows = []
    for number in range(1, args.rounds + 1):
        order = list(MODES) if number % 2 else list(MODES)[::-1]
        row = {mode: seconds_to_store(records, mode) for mode in order}
        rows.append(row)
        print(f"round {number}: " + ", ".join(f"{mode} {row[mode] / args.games * 1000:.2f} ms/game" for mode in MODES)
              + f" (FULL / NORMAL {row['FULL'] / row['NORMAL']:.2f}x)", flush=True)
    medians = {mode: statistics.median(row[mode] for row in rows) / args.games * 1000 for mode in MODES}
    print(f"median over {args.rounds} rounds of {args.games} games: "
          + ", ".join(f"{mode} {ms:.2f} ms/game" for mode, ms in medians.items())
          + f" (FULL / NORMAL {medians['FULL'] / medians['NORMAL']:.2f}x)")


if __name__ == "__main__":
    main()
