"""A league's definition as the store keeps it: the league file read back, and a new file compared with it.

    league_config(ws, name)                 the league file as last run (``LeagueConfig``); ConfigError if none
    definition(ws, league)                  the file against the stored one of its name (``Definition``)
    save_schedule(ws, league, games, edition)   store the file, its edition and its schedule (one transaction)

The store (``hexarena.leagues.results.store``) keeps a definition as JSON text and a schedule as rows;
this module turns them into and out of ``hexarena.leagues.schedule`` values (``LeagueConfig``,
``ScheduledGame``) and compares them (``hexarena.leagues.schedule.config.differences``).
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from hexarena.leagues.results import store
from hexarena.leagues.schedule.config import LeagueConfig, differences, terms_differ
from hexarena.leagues.schedule.games import ScheduledGame
from hexarena.leagues.workspace.home import Workspace
from hexarena.protocol.errors import ConfigError


@dataclass(frozen=True)
class Definition:
    """A league file against the league of its name as stored.

    ``differences``: what the file changes in the stored definition (``hexarena.leagues.schedule.config.differences``; empty when
    the same, or nothing usable is stored). ``edition``: the edition its games are scheduled under once the file
    is run (stored as ``leagues.edition``): the stored one, plus one when the file replaces the terms of play
    (time control, fault policy, seed), so every game is played again under them; games of the same bots and
    boards under the same terms keep their ids. ``games``: stored games of the league, of any definition.
    """

    name: str
    differences: list[str]
    edition: int
    games: int

    def refusal(self) -> str:
        return (f"league {self.name!r} is stored with {'; and with '.join(self.differences)}: run with --replace "
                f"to replace its definition (its {self.games} stored games are kept)")


def definition(ws: Workspace, league: LeagueConfig) -> Definition:
    """The file ``league`` against what is stored under its name (see ``Definition``). A garbled stored
    definition differs in nothing: running the file stores it anew."""
    row = store.league_row(ws, league.name)
    games = store.game_count(ws, league.name)
    if row is None:
        return Definition(league.name, [], 0, games)
    text, edition = row
    try:
        stored = LeagueConfig.model_validate_json(text)
    except ValueError:
        return Definition(league.name, [], edition, games)
    return Definition(league.name, differences(stored, league), edition + terms_differ(stored, league), games)


def league_config(ws: Workspace, name: str) -> LeagueConfig:
    """The league file as last run; ConfigError naming the known leagues if there is none of that name."""
    row = store.league_row(ws, name)
    if row is None:
        known = store.league_names(ws)
        raise ConfigError(f"no league named {name!r} in workspace {ws.home} (leagues: {', '.join(known) or 'none yet'}; "
                          "start one with 'hexarena league run FILE')")
    try:
        return LeagueConfig.model_validate_json(row[0])
    except ValueError as exc:  # a garbled row (pydantic's ValidationError is a ValueError)
        raise ConfigError(f"league {name!r}: its stored definition is garbled ({store.first_line(exc)}); run its "
                          "league file again to store it anew ('hexarena league run FILE'), or see 'hexarena doctor'") from None


def save_schedule(ws: Workspace, league: LeagueConfig, games: list[ScheduledGame], edition: int = 0) -> None:
    """Record the league file, its edition and its current schedule (replacing the previous one), in one
    transaction (``hexarena.leagues.results.store.save_league``)."""
    save_rows(ws, league, [(g.id, g.round, g.config.label, json.dumps(g.seats), g.seed) for g in games], edition)


def save_rows(ws: Workspace, league: LeagueConfig, rows: list[tuple], edition: int = 0) -> None:
    """``save_schedule`` from schedule rows (game, round, configuration, seats JSON, seed) in schedule order, as
    ``hexarena.leagues.results.store.scan_schedule`` reads them from another database."""
    store.save_league(ws, league.name, stored_form(league), rows, edition)


def stored_form(league: LeagueConfig) -> str:
    """The league file as the store keeps it: its JSON, without each board's player count (the league's)."""
    return league.model_dump_json(exclude={"boards": {"__all__": {"players"}}})
