"""Whether this machine can keep a league's clocks fair: ``unfair_warning`` before a run starts.

A bot's clock runs while it waits for a core. With more games at once than cores, an honest bot that
uses a good share of its time is timed out through no fault of its own: ``benchmarks/clock_fairness.py``
measures how often (``MEASURED``), and the runner's caller says so in one line before the league starts.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from hexarena.leagues.schedule.config import LeagueConfig

# benchmarks/clock_fairness.py on a 2-core machine shared with six other jobs (load about 15, 2026-12-02): the
# percentage of moves timed out for two honest bots busy for 60 % of 200 ms a move, by games at once per core. One
# sitting each: the figures move with the machine's other load (at load 4-10 the same runs gave 0.2 % and 0.0 %),
# so the warning quotes the worst one measured at or below its load, never a smaller one for a heavier load.
MEASURED = {2: 5.3, 4: 1.5}


def games_at_once(league: LeagueConfig, concurrency: int | None = None) -> int:
    """How many games a run on this machine plays at once: ``--concurrency``, else the file's, else one per core."""
    return concurrency or league.concurrency or os.cpu_count() or 1


def unfair_warning(games_at_once: int, cores: int | None = None) -> str | None:
    """One line when ``games_at_once`` exceeds the cores (``os.cpu_count()`` by default), else None."""
    cores = cores or os.cpu_count() or 1
    if games_at_once <= cores:
        return None
    per_core = games_at_once / cores
    levels = [n for n in MEASURED if n <= per_core] or [min(MEASURED)]
    worst = max(levels, key=MEASURED.__getitem__)
    return (f"{games_at_once} games at once on {cores} cores: the bots' clocks run while they wait for a core, so "
            f"an honest bot may time out through no fault of its own (measured on a busy 2-core machine: "
            f"{MEASURED[worst]:g} % of the moves of bots busy for 60 % of 200 ms timed out at {worst} games per core, "
            f"benchmarks/clock_fairness.py); --concurrency {cores} keeps the clocks fair")
