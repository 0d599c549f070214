"""Whether this machine can keep a league's clocks fair: ``unfair_warning`` before a run starts.

A bot's clock runs while it waits for a core. With more games at once than cores, an honest bot that
uses a good share of its time is timed out through no fault of its own: ``benchmarks/clock_fairness.py``
measures how often (``MEASURED``), and the runner's caller says so in one line before the league starts.
"""

from __future__ import annotations

import os

# benchmarks/clock_fairness.py on a 2-core machine shared with six other jobs (load about 15, 2026-12-02): the
# share of moves timed out for two honest bots busy for 60 % of 200 ms a move, by games at once per core
MEASURED = {2: "5.3 %", 4: "1.5 %"}


def unfair_warning(games_at_once: int, cores: int | None = None) -> str | None:
    """One line when ``games_at_once`` exceeds the cores (``os.cpu_count()`` by default), else None."""
    cores = cores or os.cpu_count() or 1
    if games_at_once <= cores:
        return None
    per_core = games_at_once / cores
    known = max((n for n in MEASURED if n <= per_core), default=min(MEASURED))
    return (f"{games_at_once} games at once on {cores} cores: the bots' clocks run while they wait for a core, so "
            f"an honest bot may time out through no fault of its own (measured: {MEASURED[known]} of the moves of "
            f"bots busy for 60 % of 200 ms timed out at {known} games per core, benchmarks/clock_fairness.py); "
            f"--concurrency {cores} keeps the clocks fair")
