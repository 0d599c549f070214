"""``hexarena`` with the league runner's own work taken out: a measuring instrument, never a way to run a league.

    python3 benchmarks/bare_runner.py league run LEAGUE.toml --home HOME --pin-cores

The run plays every game as ``hexarena league run`` does (the same workers, referees, sandboxes and bots), but
its runner stores no game, keeps no ratings, imports no pandas (the progress line's leader starts empty) and
prints no table. ``floor.py --bare-runner`` times it beside the real run: the difference is what the runner's
storing and tables cost, and the bare run against the floors is what the referees and bots cost on their own,
which no change to the runner can take below.
"""

from __future__ import annotations

import sys
from types import SimpleNamespace

import hexarena.commands.league as league_command
from hexarena import cli
from hexarena.leagues.results import store
from hexarena.leagues.running import runner


class _NoSums:
    """What the progress line reads of ``store.tally(...).sums``, with no stored games (no pandas)."""

    def groupby(self, *columns):
        return self

    def __getitem__(self, columns):
        return self

    def sum(self):
        return self

    def iterrows(self):
        return iter(())


def bare() -> None:
    store.tally = lambda ws, league, *args, **kwargs: SimpleNamespace(sums=_NoSums())
    store.save_game = lambda ws, league, record: True
    runner.save_ratings_snapshot = lambda *args: None
    league_command.league_tables = lambda *args, **kwargs: ""


if __name__ == "__main__":
    bare()
    sys.argv = ["hexarena", *sys.argv[1:]]
    cli.command()
