"""Benchmark: scheduling a 100-bot league.

    python3 benchmarks/schedule_100.py

Times the game list of (1) a 2-player league of 100 bots over the 8 preset sizes, 2 games per pairing
(79,200 games); (2) a 4-player league of 100 bots on one board with a balanced sample of 1,000 tables
(4,000 games); (3) writing schedule (1) to SQLite, as `hexarena league run` does before playing.
"""

from __future__ import annotations

import tempfile
import time
from collections import Counter
from itertools import combinations

from hexarena.leagues.results import definitions
from hexarena.leagues.schedule.config import parse_league
from hexarena.leagues.schedule.games import Entrant, schedule
from hexarena.leagues.workspace.home import Workspace
from hexarena.protocol.board import PRESETS


def league(players: int, boards: list[str], games: int, sample: int = 0) -> str:
    text = f'name = "bench{players}"\nplayers = {players}\ngames_per_pairing = {games}\nsample = {sample}\n'
    return text + "".join(f'[[boards]]\nsize = "{size}"\n' for size in boards)


def timed(label: str, work):
    """Run ``work``; print wall and CPU seconds (the machine is shared: CPU time is the steadier figure)."""
    start, cpu = time.perf_counter(), time.process_time()
    result = work()
    print(f"  {label:<52} {time.perf_counter() - start:7.3f} s wall {time.process_time() - cpu:7.3f} s CPU")
    return result


def main() -> None:
    bots = [Entrant(f"bot{i:03d}", f"bot{i:03d}@{i:064x}") for i in range(100)]
    two = parse_league(league(2, list(PRESETS), 2))
    games = timed("2 players, 100 bots, 8 sizes: schedule", lambda: schedule(two, bots))
    rounds = max(g.round for g in games) + 1
    print(f"    {len(games):,} games in {rounds} rounds (ideal: 99)")
    four = parse_league(league(4, ["4x4"], 4, sample=1000))
    sampled = timed("4 players, 100 bots, sample of 1,000 tables: schedule", lambda: schedule(four, bots))
    tables = {frozenset(g.seats) for g in sampled}
    meets = Counter(pair for table in tables for pair in combinations(sorted(table), 2))
    plays = Counter(bot for table in tables for bot in table)
    print(f"    {len(sampled):,} games; plays per bot {min(plays.values())}-{max(plays.values())}; "
          f"pairs met {len(meets):,} of 4,950, each {min(meets.values())}-{max(meets.values())} times")
    with tempfile.TemporaryDirectory() as home, Workspace(home) as ws:
        timed("store the 2-player schedule in SQLite", lambda: definitions.save_schedule(ws, two, games))


if __name__ == "__main__":
    main()
