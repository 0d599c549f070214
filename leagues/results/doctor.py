"""``hexarena doctor``: what is wrong with a workspace's database, and salvaging its intact games.

    report = examine(home)            reads the database read-only, whatever state it is in
    report.lines                      one line per finding; report.sound when there is nothing to report
    salvage(home, new_home)           every intact league definition, schedule and game into a new workspace

A workspace that ``Workspace`` refuses (damaged pages, a foreign file, a missing table or column) can
still be examined: the database is opened read-only and read row by row (``hexarena.leagues.results.store.scan``), so
one damaged page costs the rows on it, not the rest. Salvage writes only to ``new_home`` (which must not
hold games yet); the registry's bots are not carried over: the new workspace gets the reference bots,
and a submitted bot is submitted again from its folder (its old snapshot is ``HOME/registry/<hash>/``).
"""

from __future__ import annotations

import os
import sqlite3
from dataclasses import dataclass, field
from pathlib import Path

from hexarena.leagues.workspace import schema
from hexarena.leagues.results import definitions, store
from hexarena.leagues.schedule.config import LeagueConfig
from hexarena.leagues.workspace.home import Workspace
from hexarena.protocol.errors import ConfigError
from hexarena.referee.record import GameRecord


@dataclass
class Report:
    database: Path
    lines: list[str] = field(default_factory=list)  # the findings, one line each
    leagues: dict[str, LeagueConfig] = field(default_factory=dict)  # the intact league definitions
    games: list[tuple[str, GameRecord]] = field(default_factory=list)  # (league, record) of the intact games
    garbled: int = 0  # rows that cannot be read or validated

    @property
    def sound(self) -> bool:
        return not self.lines


def _open(database: Path) -> sqlite3.Connection:
    if not database.is_file():
        given = os.environ.get("HEXARENA_HOME")
        source = (f"HEXARENA_HOME={given} names a folder without one: set it to the workspace, or give --home"
                  if given and database.parent == Path(given) else "give the workspace with --home")
        raise ConfigError(f"{database}: no workspace database there ({source})")
    return sqlite3.connect(f"file:{database}?mode=ro", uri=True, timeout=30)


def examine(home: Path) -> Report:
    """Every problem of the workspace database at ``home``, and what of it is intact."""
    report = Report(home / "hexarena.db")
    db = _open(report.database)
    try:
        try:
            version = db.execute("PRAGMA user_version").fetchone()[0]
        except sqlite3.DatabaseError as exc:
            report.lines.append(f"not readable as a SQLite database: {exc}")
            return report
        if version != schema.VERSION:
            report.lines.append(f"schema version {version}, not {schema.VERSION} "
                                "(opening the workspace with hexarena migrates an older one)")
        if version == 0 and schema.foreign_tables(db):
            report.lines.append(f"tables hexarena never made: {', '.join(schema.foreign_tables(db))}")
        report.lines += schema.problems(db)
        _read_rows(db, report)
    finally:
        db.close()
    return report


def _read_rows(db: sqlite3.Connection, report: Report) -> None:
    def league(row: tuple) -> None:
        report.leagues[row[0]] = LeagueConfig.model_validate_json(row[1])

    def game(row: tuple) -> None:
        report.games.append((row[1], GameRecord.model_validate_json(row[2])))

    _each(report, store.scan_leagues(db), league, lambda row: f"league {row[0]}: its stored definition is garbled")
    _each(report, store.scan_games(db), game,
          lambda row: f"game {row[0]} of league {row[1]}: its stored record is garbled")


def _each(report: Report, rows, keep, garbled) -> None:
    """``keep(row)`` for each row; an unreadable row or one that ``keep`` cannot validate is a finding."""
    for row in rows:
        if row[0] is None:
            report.lines.append(f"unreadable: {row[1]}")
            report.garbled += 1
            continue
        try:
            keep(row)
        except ValueError as exc:
            report.lines.append(f"{garbled(row)} ({_first(exc)})")
            report.garbled += 1


def _first(exc: Exception) -> str:
    return str(exc).strip().splitlines()[0][:160] if str(exc).strip() else type(exc).__name__


def salvage(home: Path, new_home: Path) -> tuple[Report, int]:
    """Copy the intact league definitions, their readable schedules and every intact game of ``home`` into
    the new workspace ``new_home``; returns the report and how many games were copied."""
    if new_home.resolve() == home.resolve():
        raise ConfigError("--salvage needs a new workspace folder, not the damaged one")
    report = examine(home)
    with Workspace(new_home) as ws:
        if ws.db.execute("SELECT COUNT(*) FROM games").fetchone()[0]:
            raise ConfigError(f"--salvage {new_home}: that workspace holds games already; give a new folder")
        db = _open(report.database)
        try:
            for name, league in report.leagues.items():
                definitions.save_rows(ws, league, store.scan_schedule(db, name), store.scan_edition(db, name))
        finally:
            db.close()
        copied = sum(store.save_game(ws, league, record) for league, record in report.games)
    return report, copied
