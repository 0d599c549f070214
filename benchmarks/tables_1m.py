"""Benchmark: every league table from 1,000,000 synthetic 2-player games (aim: under 5 s).

    python3 benchmarks/tables_1m.py [GAMES] [BOTS]

The seat frame (two rows per game) is generated with numpy, outside the timing; then standings,
crosstable and ratings are built for the whole league and again per configuration (4 boards), as
`hexarena league table NAME` and `--by configuration` do. For scale, the script also times turning
10,000 GameRecord objects into a seat frame (the path the publishing code takes from records).
"""

from __future__ import annotations

import sys
import time

import numpy as np
import pandas as pd

from hexarena.leagues.results.ratings import ratings
from hexarena.leagues.results.rows import FAULT_COLUMNS, SEAT_COLUMNS, by_configuration, normalise
from hexarena.leagues.results.tables import crosstable, seat_frame, standings
from hexarena.referee.record import BoardConfig, GameRecord, Result

CONFIGS = ["3x3 hex", "4x4 hex", "4x4 hex misère", "3x3 square"]


def synthetic_frame(games: int, bots: int, seed: int = 1) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    strength = np.linspace(-1, 1, bots)
    first = rng.integers(0, bots, games)
    second = (first + rng.integers(1, bots, games)) % bots  # never the same bot twice at a table
    seats = np.stack([first, second], axis=1)
    edge = strength[first] - strength[second]
    draw = rng.random(games) < 0.1
    first_wins = ~draw & (rng.random(games) < 1 / (1 + np.exp(-edge)))
    placements = np.where(draw[:, None], 1, np.where(first_wins[:, None], [1, 2], [2, 1]))
    score = np.where(placements == 1, 5, 4)
    frame = pd.DataFrame({
        "game": np.repeat(np.arange(games), 2),
        "configuration": pd.Categorical.from_codes(np.repeat(rng.integers(0, len(CONFIGS), games), 2), CONFIGS),
        "players": 2,
        "seat": np.tile([0, 1], games),
        "bot": pd.Categorical.from_codes(seats.ravel(), [f"bot{i:03d}" for i in range(bots)]),
        "score": score.ravel(),
        "against": score[:, ::-1].ravel(),
        "placement": placements.ravel(),
    })
    frame["points"] = np.where(np.repeat(draw, 2), 0.5, (frame["placement"] == 1).astype(float))
    frame["win"] = ((frame["placement"] == 1) & ~np.repeat(draw, 2)).astype(int)
    frame["draw"] = np.repeat(draw, 2).astype(int)
    frame["loss"] = (frame["placement"] == 2).astype(int)
    frame["moves"] = 20
    frame["think_ms"] = rng.exponential(40.0, 2 * games)
    frame["faults"] = (rng.random(2 * games) < 0.001).astype(int)
    for column in FAULT_COLUMNS:
        frame[column] = frame["faults"] if column == "fault_timeout" else 0
    return frame[SEAT_COLUMNS]


def timed(label: str, work) -> float:
    """Run ``work``; print wall and CPU seconds (the machine is shared: CPU time is the steadier figure)."""
    start, cpu = time.perf_counter(), time.process_time()
    work()
    seconds, cpu = time.perf_counter() - start, time.process_time() - cpu
    print(f"  {label:<44} {seconds:7.3f} s wall {cpu:7.3f} s CPU")
    return seconds


def main() -> None:
    games = int(sys.argv[1]) if len(sys.argv) > 1 else 1_000_000
    bots = int(sys.argv[2]) if len(sys.argv) > 2 else 20
    frame = synthetic_frame(games, bots)
    print(f"{games:,} games, {bots} bots, {len(CONFIGS)} configurations ({len(frame):,} seat rows)")

    def whole_league() -> None:
        ranked = standings(frame)
        crosstable(frame, ranked["bot"].tolist())
        ratings(frame)

    def per_configuration() -> None:
        for _, part in by_configuration(frame):
            ranked = standings(part)
            crosstable(part, ranked["bot"].tolist())
            ratings(part)

    total = timed("normalise (categoricals, order by game/seat)", lambda: normalise(frame))
    total += timed("standings", lambda: standings(frame))
    total += timed("crosstable", lambda: crosstable(frame))
    total += timed("ratings (Bradley-Terry, 95% intervals)", lambda: ratings(frame))
    total += timed("all three again, per configuration", per_configuration)
    print(f"  {'total':<44} {total:7.3f} s")

    records = [GameRecord(id=f"g{i}", config=BoardConfig(size="3x3"), seats=["a", "b"],
                          result=Result(scores=[5, 4], placements=[1, 2])) for i in range(10_000)]
    seconds = timed("seat_frame from 10,000 GameRecord objects", lambda: seat_frame(records))
    print(f"  (records → frame: {10_000 / seconds:,.0f} records/s; whole league above: "
          f"{games / total:,.0f} games/s)")
    assert total < 60, "far off the 5 s aim"
    whole_league()


if __name__ == "__main__":
    main()
