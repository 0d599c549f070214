"""An adaptive league's schedule as it grows: batches chosen by ``hexarena.leagues.results.adaptive``, refit, again.

    league = AdaptiveLeague(ws, config, entrants, edition)
    while (games := league.next_batch()):       # the schedule so far saved, the results refit, the next tables
        play and store them

The league's schedule is every meeting chosen so far (``hexarena.leagues.schedule.games.meeting_games``: a
seat-swapped pair from one start position, with the round robin's ids), so its tables, ratings and site
are those of any league. What is stored already counts: on a resume, and for a league that was a round
robin before, every meeting with a stored game is part of the schedule, and its missing games are
played first. A new version (a new key) has no games: it is calibrated at the next run.
"""

from __future__ import annotations

import itertools

import numpy as np

from hexarena.leagues.registry.reference import reference_names
from hexarena.leagues.results import definitions, store
from hexarena.leagues.results.adaptive import Batch, Field, Pairing, next_tables, refit
from hexarena.leagues.results.tables import head_to_head
from hexarena.leagues.schedule.config import LeagueConfig
from hexarena.leagues.schedule.games import Entrant, ScheduledGame, meeting_games
from hexarena.leagues.workspace.home import Workspace

DEFAULT_BUDGET = 200  # games per version when the file sets none: about ±50 Elo (95%) for each


def pairing_settings(league: LeagueConfig) -> Pairing:
    """The scheduler's settings from a league file (``budget``, ``league_budget``, its seat orders and seed)."""
    return Pairing(budget=league.budget or DEFAULT_BUDGET, league_budget=league.league_budget,
                   games=len(league.seat_orders), seed=league.seed)


class AdaptiveLeague:
    """The schedule of one run of an adaptive league, batch by batch (module docstring)."""

    def __init__(self, ws: Workspace, league: LeagueConfig, entrants: list[Entrant], edition: int = 0) -> None:
        self.ws, self.league, self.edition = ws, league, edition
        self.entrants = sorted(entrants, key=lambda e: e.key)
        self.by_label = {e.label: e for e in self.entrants}
        self.pairing = pairing_settings(league)
        self.anchors = frozenset(e.label for e in self.entrants if e.key.partition("@")[0] in reference_names())
        self.meetings: dict[frozenset[str], set[int]] = {}
        self.scheduled: list[ScheduledGame] = []
        self.theta: dict[str, float] = {}
        self.number = 0
        self.field: Field | None = None
        self.batch = Batch()
        stored = store.played_ids(ws, league.name)
        rotation = len(league.seat_orders)
        universe = league.games // rotation * sum(len(league.start_positions(c)) for c in range(len(league.configs)))
        for pair in itertools.combinations(self.entrants, 2):
            for number in range(universe):  # the round robin's meetings played so far (any of them)
                if self._stored_meeting(pair, number, stored):
                    self._add(pair, number)
            number = universe
            while self._stored_meeting(pair, number, stored):  # and the adaptive league's own, beyond them
                self._add(pair, number)
                number += 1

    def _stored_meeting(self, pair: tuple[Entrant, Entrant], number: int, stored: set[str]) -> bool:
        return any(g.id in stored for g in meeting_games(self.league, pair, number, self.edition))

    def _add(self, pair: tuple[Entrant, Entrant], number: int) -> list[ScheduledGame]:
        self.meetings.setdefault(frozenset(e.label for e in pair), set()).add(number)
        games = meeting_games(self.league, pair, number, self.edition)
        self.scheduled += games
        return games

    def refit(self) -> Field:
        """The ratings of the stored games of the schedule so far, warm-started from the last fit."""
        labels = [e.label for e in self.entrants]
        index = {label: i for i, label in enumerate(labels)}
        n = len(labels)
        points, met = np.zeros((n, n)), np.zeros((n, n))
        tally = store.tally(self.ws, self.league.name)
        if len(tally.games):
            long = head_to_head(tally.games)
            long = long[long["bot"].isin(index) & long["opponent"].isin(index)]
            rows, columns = long["bot"].map(index).to_numpy(int), long["opponent"].map(index).to_numpy(int)
            points[rows, columns], met[rows, columns] = long["points"], long["games"]
        start = np.array([self.theta.get(label, 0.0) for label in labels])
        self.field = refit(labels, points, met, start=start, anchors=self.anchors)
        self.theta = dict(zip(labels, self.field.theta))
        return self.field

    def next_batch(self, write: bool = True) -> list[ScheduledGame]:
        """The games to play next: a meeting's games still missing (a resume), else the next batch's tables; none
        when the stop rule holds (``self.batch.stop`` says which). ``write``: save the schedule so far first (a
        run); without, only read (``league status``)."""
        if write:
            definitions.save_schedule(self.ws, self.league, self.scheduled, self.edition)
        stored = store.played_ids(self.ws, self.league.name)
        missing = [g for g in self.scheduled if g.id not in stored]
        field = self.refit()
        if missing:
            self.batch = Batch()
            return missing
        self.batch = next_tables(field, self.pairing, self.number)
        self.number += 1
        games = []
        for table in self.batch.tables:
            pair = (self.by_label[table.a], self.by_label[table.b])
            taken = self.meetings.get(frozenset((table.a, table.b)), set())
            games += self._add(pair, next(n for n in itertools.count() if n not in taken))
        if write and games:
            definitions.save_schedule(self.ws, self.league, self.scheduled, self.edition)
        return games

    def snapshot_rows(self, versions: dict[str, str]) -> list[tuple]:
        """The ratings after the last batch (refit), for ``store.save_snapshot``: every bot with games, its version
        as ``versions`` names it (label → the version its records name)."""
        field = self.refit()
        rows = []
        for i, label in enumerate(field.names):
            if field.games[i]:
                elo, half = field.elo(i)
                rows.append((label, versions.get(label, self.by_label[label].key), elo, elo - half, elo + half, int(field.games[i])))
        return rows

    def calibration(self, label: str) -> tuple[float, float, int]:
        """A bot's rating (Elo), the half-width of its 95% interval and its games, under the last fit."""
        field = self.field or self.refit()
        i = field.names.index(label)
        rating, half = field.elo(i)
        return rating, half, int(field.games[i])
