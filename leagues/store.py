"""League results in the workspace's SQLite database: every SQL statement on the store's tables.

    leagues        one row per league: its validated file (JSON) as last run
    league_games   the league's schedule as last run (game id, position, round, configuration, seats, seed)
    games          every finished game: indexed columns + the full record (JSON)
    moves          every move of every game
    results        one row per seat of every game, the columns of ``RESULT_COLUMNS``

This module owns the rows of these tables and the statements that read and write them, for every
caller (the league runner, the tables, ``hexarena replay``...). Their layout, its version and its
migrations are in ``leagues.schema``, made when the workspace opens. The store declares the columns
it writes itself: ``RESULT_COLUMNS`` is the results table's layout, not the seat frame's column list
(``leagues.tables.SEAT_COLUMNS``, presentation), though it holds the same columns; a new seat-frame
column (a new fault reason, say) needs a new schema version before the store can keep it.

A finished game is written in ONE transaction (game, moves, results), so a crash or SIGKILL loses at
most the games still being played, never half a game. A league's tables and records cover the games
of its current schedule: after a bot's new version, the old version's games stay stored but leave
the tables, as the schedule no longer lists them.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import UTC, datetime

import pandas as pd

from leagues.config import LeagueConfig
from leagues.schedule import ScheduledGame
from leagues.tables import normalise, seat_rows
from leagues.workspace import Workspace
from protocol.errors import ConfigError
from referee.record import GameRecord

FAULT_RESULT_COLUMNS = ("fault_no_connection", "fault_crashed", "fault_timeout", "fault_illegal_line",
                        "fault_malformed_message", "fault_wrong_request")
RESULT_COLUMNS = ("game", "configuration", "players", "seat", "bot", "score", "against", "placement", "points",
                  "win", "draw", "loss", "moves", "think_ms", "faults", *FAULT_RESULT_COLUMNS)


def save_schedule(ws: Workspace, league: LeagueConfig, games: list[ScheduledGame]) -> None:
    """Record the league file and its current schedule (replacing the previous one), in one transaction."""
    with ws.transaction() as db:
        db.execute("INSERT OR REPLACE INTO leagues (name, config, updated) VALUES (?, ?, ?)",
                   (league.name, league.model_dump_json(exclude={"boards": {"__all__": {"players"}}}), datetime.now(UTC).isoformat(timespec="seconds")))
        db.execute("DELETE FROM league_games WHERE league = ?", (league.name,))
        db.executemany(
            "INSERT INTO league_games (league, game, position, round, configuration, seats, seed)"
            " VALUES (?, ?, ?, ?, ?, ?, ?)",
            [(league.name, g.id, i, g.round, g.config.label, json.dumps(g.seats), g.seed) for i, g in enumerate(games)])


def save_game(ws: Workspace, league: str, record: GameRecord) -> bool:
    """Store a finished game (record, moves, per-seat results) in one transaction; False if it was already stored."""
    with ws.transaction() as db:
        inserted = db.execute(
            "INSERT OR IGNORE INTO games (id, league, configuration, seats, termination, offender, started, finished,"
            " record) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (record.id, league, record.config.label, json.dumps(record.seats), record.result.termination,
             record.result.offender, _time(record.started), _time(record.finished), record.model_dump_json()))
        if inserted.rowcount == 0:
            return False
        db.executemany(
            "INSERT INTO moves (game, number, seat, line, closed, ms, substituted) VALUES (?, ?, ?, ?, ?, ?, ?)",
            [(record.id, n, m.seat, m.line, json.dumps(m.closed), m.ms, int(m.substituted))
             for n, m in enumerate(record.moves)])
        rows = seat_rows(record)
        db.executemany(f"INSERT INTO results ({', '.join(RESULT_COLUMNS)})"
                       f" VALUES ({', '.join('?' * len(RESULT_COLUMNS))})",
                       [tuple(row[c] for c in RESULT_COLUMNS) for row in rows])
    return True


def _time(moment: datetime | None) -> str | None:
    return moment.isoformat() if moment else None


def league_config(ws: Workspace, name: str) -> LeagueConfig:
    """The league file as last run; ConfigError naming the known leagues if there is none of that name."""
    row = ws.db.execute("SELECT config FROM leagues WHERE name = ?", (name,)).fetchone()
    if row is None:
        known = [r["name"] for r in ws.db.execute("SELECT name FROM leagues ORDER BY name")]
        raise ConfigError(f"no league named {name!r} in workspace {ws.home} (leagues: {', '.join(known) or 'none yet'}; "
                          "start one with 'hexarena league run FILE')")
    return LeagueConfig.model_validate_json(row["config"])


def game_data(ws: Workspace, game_id: str) -> dict | None:
    """The stored record of a game of any league, by its id or a unique prefix of it, as the JSON object it
    was stored as (the caller validates it); None if none matches, ConfigError if the prefix is ambiguous."""
    row = ws.db.execute("SELECT record FROM games WHERE id = ?", (game_id,)).fetchone()
    if row is None and game_id:  # a prefix: ids from game_id up to the next string that does not start with it
        rows = ws.db.execute("SELECT id, record FROM games WHERE id >= ? AND id < ? ORDER BY id LIMIT 3",
                             (game_id, game_id + "\U0010ffff")).fetchall()
        if len(rows) > 1:
            shown = ", ".join(r["id"] for r in rows[:2]) + (", …" if len(rows) > 2 else "")
            raise ConfigError(f"game id prefix {game_id!r} is ambiguous ({shown}): give more of the id")
        row = rows[0] if rows else None
    return None if row is None else json.loads(row["record"])


def played_ids(ws: Workspace, league: str) -> set[str]:
    """Ids of every stored game of the league (current schedule or not)."""
    return {r["id"] for r in ws.db.execute("SELECT id FROM games WHERE league = ?", (league,))}


def records(ws: Workspace, league: str) -> list[GameRecord]:
    """The stored records of the league's current schedule, in schedule order."""
    rows = ws.db.execute("SELECT g.record FROM league_games s JOIN games g ON g.id = s.game"
                         " WHERE s.league = ? ORDER BY s.position", (league,))
    return [GameRecord.model_validate_json(r["record"]) for r in rows]


def seat_frame(ws: Workspace, league: str) -> pd.DataFrame:
    """The seat frame (``leagues.tables``) of the league's current schedule, straight from the results table."""
    cursor = ws.db.cursor()
    cursor.row_factory = None  # plain tuples: much faster than sqlite3.Row for many rows
    columns = ", ".join(f"r.{c}" for c in RESULT_COLUMNS)
    cursor.execute(f"SELECT {columns} FROM league_games s JOIN results r ON r.game = s.game WHERE s.league = ?",
                   (league,))
    frame = pd.DataFrame(cursor.fetchall(), columns=list(RESULT_COLUMNS))
    return normalise(frame.astype({c: "int64" for c in FAULT_RESULT_COLUMNS}))


@dataclass(frozen=True)
class Progress:
    total: int
    played: int
    left: pd.DataFrame  # configuration, games left
    bots_left: pd.DataFrame  # bot, games left


def progress(ws: Workspace, league: str) -> Progress:
    """How much of the current schedule is played, and what is left by configuration and by bot."""
    schedule = pd.read_sql_query(
        "SELECT s.game, s.configuration, s.seats, g.id IS NOT NULL AS played FROM league_games s"
        " LEFT JOIN games g ON g.id = s.game WHERE s.league = ? ORDER BY s.position", ws.db, params=(league,))
    waiting = schedule[schedule["played"] == 0]
    left = waiting.groupby("configuration").size().rename("left").reset_index()
    seats = waiting["seats"].map(json.loads).explode()
    bots_left = seats.value_counts().rename_axis("bot").rename("left").reset_index()
    return Progress(len(schedule), int(schedule["played"].sum()), left, bots_left)
