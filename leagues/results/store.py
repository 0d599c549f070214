"""League results in the workspace's SQLite database: every SQL statement on the store's tables.

    leagues        one row per league: its definition (the league file as JSON text) as last run, its edition
    league_games   the league's schedule as last run (game id, position, round, configuration, seats, seed)
    games          every finished game: indexed columns + the full record (JSON)
    moves          every move of every game
    results        one row per seat of every game, the columns of ``RESULT_COLUMNS``
    totals, shapes the results of each league's current schedule folded for its tables (``tally``), kept
    tallied        by ``save_game`` for the leagues listed in ``tallied``, else folded when first read

This module owns the rows of these tables and the statements that read and write them, for every
caller (the league runner, the tables, ``hexarena replay``...). It speaks rows: game records
(``hexarena.referee.record``), the seat rows and tallies of ``hexarena.leagues.results.rows``, plain values and
tuples; it parses no league file and shows nothing. A league's definition is JSON text to it
(``hexarena.leagues.results.definitions`` reads and writes it as a ``LeagueConfig``). Their layout, its version
and its migrations are in ``hexarena.leagues.workspace.schema``, made when the workspace opens. The store declares
the columns it writes itself: ``RESULT_COLUMNS`` is the results table's layout, not the seat rows' column list
(``hexarena.leagues.results.rows.SEAT_COLUMNS``), though it holds the same columns; a new seat column (a new
fault reason, say) needs a new schema version before the store can keep it.

A finished game is written in ONE transaction (game, moves, results), so a crash or SIGKILL loses at
most the games still being played, never half a game. A league's tables and records cover the games
of its current schedule: after a bot's new version, the old version's games stay stored but leave
the tables, as the schedule no longer lists them. A garbled stored record is left out of what is read,
with a warning logged (logger ``hexarena.leagues.results.store``; the CLI prints it as a
``hexarena: warning:`` line): ``hexarena doctor`` reports every damaged row.
"""

from __future__ import annotations

import json
import logging
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from typing import TYPE_CHECKING

from hexarena.leagues.results.rows import SUM_COLUMNS, Tally, normalise, seat_rows
from hexarena.leagues.workspace.home import Workspace
from hexarena.protocol.errors import ConfigError, OutOfSpace
from hexarena.referee.record import GameRecord

if TYPE_CHECKING:  # imported where a frame is made: a league run stores its first games before it needs pandas
    import pandas as pd

FAULT_RESULT_COLUMNS = ("fault_no_connection", "fault_crashed", "fault_timeout", "fault_illegal_line",
                        "fault_malformed_message", "fault_wrong_request", "fault_host_stall")
RESULT_COLUMNS = ("game", "configuration", "players", "seat", "bot", "score", "against", "placement", "points",
                  "win", "draw", "loss", "moves", "think_ms", "faults", *FAULT_RESULT_COLUMNS)
SEATS = 4  # the most players at a table (referee.record.BoardConfig)
TOTALS_COLUMNS = ("league", "configuration", "bot", "games", "faulty", *SUM_COLUMNS)
SHAPE_COLUMNS = ("league", "configuration", "players", *(f"{c}{i}" for i in range(SEATS) for c in ("bot", "placement")),
                 "games")
RECORD_KEYS = frozenset(("id", "config", "seats", "moves", "result"))  # what a stored record must have to be read
MOVES, RESULT = ',"moves":[', ',"result":'  # where a stored record's moves start and end (``_read_record``)
# the stored games of a league's current schedule (s: its league_games rows, g: their games rows)
SCHEDULED = "FROM league_games s JOIN games g ON g.id = s.game WHERE s.league = ?"
# the results of a league's current schedule (s: its league_games rows, r: their results rows)
SCHEDULED_RESULTS = "FROM league_games s JOIN results r ON r.game = s.game WHERE s.league = ?"
log = logging.getLogger("hexarena.leagues.results.store")


# ---------------------------------------------------------------- leagues and their schedules


def league_row(ws: Workspace, name: str) -> tuple[str, int] | None:
    """The league's stored definition (the JSON text ``save_league`` was given) and edition; None if no league
    of that name is stored."""
    row = ws.db.execute("SELECT config, edition FROM leagues WHERE name = ?", (name,)).fetchone()
    return (row["config"], row["edition"]) if row is not None else None


def league_names(ws: Workspace) -> list[str]:
    """The names of every stored league, in order."""
    return [r["name"] for r in ws.db.execute("SELECT name FROM leagues ORDER BY name")]


def game_count(ws: Workspace, league: str) -> int:
    """How many games of the league are stored (of any definition or schedule)."""
    return ws.db.execute("SELECT COUNT(*) FROM games WHERE league = ?", (league,)).fetchone()[0]


def save_league(ws: Workspace, name: str, definition: str, schedule: list[tuple], edition: int = 0) -> None:
    """Record a league: its definition (JSON text), its edition and its current schedule, rows of (game, round,
    configuration, seats JSON, seed) in schedule order (replacing the previous ones), in one transaction; when it
    schedules other games than before, the league's totals are folded anew (``tally``)."""
    with ws.transaction() as db:
        db.execute("INSERT OR REPLACE INTO leagues (name, config, updated, edition) VALUES (?, ?, ?, ?)",
                   (name, definition, datetime.now(UTC).isoformat(timespec="seconds"), edition))
        before = {r[0] for r in db.execute("SELECT game FROM league_games WHERE league = ?", (name,))}
        if before != {row[0] for row in schedule}:
            _forget_tally(db, name)
        db.execute("DELETE FROM league_games WHERE league = ?", (name,))
        db.executemany(
            "INSERT INTO league_games (league, game, position, round, configuration, seats, seed)"
            " VALUES (?, ?, ?, ?, ?, ?, ?)",
            [(name, game, i, round_, configuration, seats, seed)
             for i, (game, round_, configuration, seats, seed) in enumerate(schedule)])


# ---------------------------------------------------------------- games


def save_game(ws: Workspace, league: str, record: GameRecord) -> bool:
    """Store a finished game (record, moves, per-seat results, added to the totals: ``tally``) in one
    transaction; False if it was already stored."""
    with ws.transaction() as db:
        inserted = db.execute(
            "INSERT OR IGNORE INTO games (id, league, configuration, seats, termination, offender, started, finished,"
            " record) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (record.id, league, record.config.label, json.dumps(record.seats), record.result.termination,
             record.result.offender, _time(record.started), _time(record.finished), record.model_dump_json()))
        if inserted.rowcount == 0:
            return False
        db.executemany(
            "INSERT INTO moves (game, number, seat, line, closed, ms, substituted, cpu_ms)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            [(record.id, n, m.seat, m.line, _json_ints(m.closed), m.ms, int(m.substituted), m.cpu_ms)
             for n, m in enumerate(record.moves)])
        rows = seat_rows(record)
        db.executemany(_insert("results", RESULT_COLUMNS), [tuple(row[c] for c in RESULT_COLUMNS) for row in rows])
        _count(db, record.id, rows)
    return True


@contextmanager
def commits_without_fsync(ws: Workspace) -> Iterator[None]:
    """While a league runs: its commits are not flushed to the disk one by one (SQLite's ``synchronous=NORMAL``
    in WAL mode), which costs the games' cores nothing. A committed game still survives the runner's SIGKILL or
    crash (the write-ahead log is in the file system's hands); only a power cut or a kernel crash can take back
    the commits since the log's last checkpoint (at most ``WAL_PAGES`` of it), and the next run plays those games
    again (resuming is the normal case). ``benchmarks/store_writes.py`` measures the difference."""
    before = ws.db.execute("PRAGMA synchronous").fetchone()[0]
    ws.db.execute("PRAGMA synchronous=NORMAL")
    try:
        yield
    finally:
        ws.db.execute(f"PRAGMA synchronous={int(before):d}")


def _json_ints(values: list[int]) -> str:
    """``json.dumps`` of a list of ints, the same text (``[3, 17]``) at a fraction of its cost per move."""
    return "[" + ", ".join(map(str, values)) + "]"


def _time(moment: datetime | None) -> str | None:
    return moment.isoformat() if moment else None


def first_line(exc: Exception) -> str:
    """An exception's first line, at most 200 characters (a garbled row's problem, as a warning or error says it)."""
    return str(exc).strip().splitlines()[0][:200] if str(exc).strip() else type(exc).__name__


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
    if row is None:
        return None
    try:
        return json.loads(row["record"])
    except ValueError as exc:
        raise ConfigError(f"game {game_id}: its stored record is garbled ({exc}); see 'hexarena doctor'") from None


def played_ids(ws: Workspace, league: str) -> set[str]:
    """Ids of every stored game of the league (current schedule or not)."""
    return {r["id"] for r in ws.db.execute("SELECT id FROM games WHERE league = ?", (league,))}


def records(ws: Workspace, league: str) -> list[GameRecord]:
    """The stored records of the league's current schedule, in schedule order. A garbled record is left out
    with a warning naming its game (see the module docstring)."""
    return _parsed(_rows(ws, f"SELECT g.id, g.record {SCHEDULED} ORDER BY s.position", (league,)), league)


def _parsed(rows: list[tuple], league: str, *, warn: bool = True) -> list[GameRecord]:
    """The GameRecords of ``(id, record JSON)`` rows; a garbled one is left out (with ``_garbled``'s warning)."""
    found = []
    for game, text in rows:
        try:
            found.append(GameRecord.model_validate_json(text))
        except ValueError as exc:
            if warn:
                _garbled(game, league, exc)
    return found


def _garbled(game: str, league: str, exc: Exception) -> None:
    log.warning("game %s of league %s: its stored record is garbled (%s); left out (see 'hexarena doctor')",
                game, league, first_line(exc))


def stored_games(ws: Workspace, league: str) -> Iterator[tuple[str, dict]]:
    """``(record JSON, the same parsed but for its moves)`` of every stored game of the league's current
    schedule, in schedule order, one at a time (a million records never sit in memory together, nor become
    GameRecords). The moves, most of a record, are not parsed: ``moves`` holds how many there are (see
    ``_read_record``). A record that is no JSON object with the fields of a GameRecord is left out with the
    warning of ``records``."""
    cursor = ws.db.cursor()
    cursor.row_factory = None
    cursor.execute(f"SELECT g.id, g.record {SCHEDULED} ORDER BY s.position", (league,))
    for game, text in cursor:
        data = read_stored(game, text, league)
        if data is not None:
            yield text, data


def stored_texts(ws: Workspace, league: str) -> Iterator[tuple[str, bytes]]:
    """``(game id, record JSON as stored, in UTF-8)`` of every stored game of the league's current schedule, in
    schedule order, one at a time and unread: for a reader that takes from each record only what it needs and
    writes it as it is (the site's: ``report.read_games``); ``read_stored`` reads one as ``stored_games`` does."""
    cursor = ws.db.cursor()
    cursor.row_factory = None
    cursor.execute(f"SELECT g.id, CAST(g.record AS BLOB) {SCHEDULED} ORDER BY s.position", (league,))
    yield from cursor


def read_stored(game: str, text: str, league: str) -> dict | None:
    """A stored record's JSON parsed but for its moves (``_read_record``); None, with the warning of ``records``,
    if it is no JSON object with the fields of a GameRecord."""
    try:
        data = _read_record(text)
        if not isinstance(data, dict) or not data.keys() >= RECORD_KEYS:  # a set's test: no loop in Python
            raise ValueError(f"not a game record: it lacks {', '.join(sorted(RECORD_KEYS - data.keys()))}"
                             if isinstance(data, dict) else "not a JSON object")
    except ValueError as exc:
        _garbled(game, league, exc)
        return None
    return data


def _read_record(text: str) -> object:
    """A stored record's JSON parsed but for its moves, whose count replaces them (``"moves": 63``). Records
    are stored as ``GameRecord.model_dump_json`` writes them: the moves list, then the result; other text
    (an older writer's order, no moves) is parsed whole. Each move has one ``"line":`` key, and no other
    text inside the moves list has one; a move list damaged in the store shows in the viewer, not here."""
    start, end = text.find(MOVES), text.rfind(RESULT)
    if start < 0 or end < start:
        data = json.loads(text)
        if isinstance(data, dict) and isinstance(data.get("moves"), list):
            data["moves"] = len(data["moves"])
        return data
    data = json.loads(text[:start] + "," + text[end + 1:])
    if isinstance(data, dict):
        data["moves"] = text.count('"line":', start, end)
    return data


def game_ids(ws: Workspace, league: str) -> list[str]:
    """Ids of the stored games of the league's current schedule, in schedule order."""
    return [r[0] for r in _rows(ws, f"SELECT g.id {SCHEDULED} ORDER BY s.position", (league,))]


def faulty_records(ws: Workspace, league: str, *, moves: bool = True) -> list[GameRecord]:
    """The records of the current schedule's games with a fault or a host stall (any seat's), in schedule
    order; garbled ones are left out (``stored_games`` warns of them). ``moves`` False: each without its moves
    (``moves == []``; most of a record, and a tenth of the time to read it), for what needs only its faults."""
    rows = _rows(ws, f"SELECT g.id, g.record {SCHEDULED} AND g.id IN (SELECT game FROM results"
                     " WHERE faults > 0 OR fault_host_stall > 0) ORDER BY s.position", (league,))
    return _parsed(rows if moves else [(game, _without_moves(text)) for game, text in rows], league, warn=False)


def _without_moves(text: str) -> str:
    """A stored record's JSON with an empty moves list (where ``_read_record`` finds them; else as it is)."""
    start, end = text.find(MOVES), text.rfind(RESULT)
    return text if start < 0 or end < start else f"{text[:start]}{MOVES}]{text[end:]}"


def think_times(ws: Workspace, league: str, bot: str, games: int) -> list[float]:
    """The think times (ms) of the bot's own timed moves in its last ``games`` stored games of the current
    schedule (the last stored: read backwards along the index of a bot's results, no sort)."""
    return _own_moves(ws, "ms", league, bot, games)


def cpu_times(ws: Workspace, league: str, bot: str, games: int) -> list[float]:
    """The CPU times (ms) of the moves of ``think_times`` that carry one (not measured: records from before
    ``cpu_ms``, bots in the referee's own process)."""
    return _own_moves(ws, "cpu_ms", league, bot, games)


def _own_moves(ws: Workspace, column: str, league: str, bot: str, games: int) -> list[float]:
    return [r[0] for r in _rows(
        ws, f"SELECT m.{column} FROM (SELECT r.game, r.seat FROM results r WHERE r.bot = ? AND EXISTS (SELECT 1 FROM"
            " league_games s WHERE s.league = ? AND s.game = r.game) ORDER BY r.rowid DESC LIMIT ?) x"
            f" JOIN moves m ON m.game = x.game AND m.seat = x.seat WHERE m.substituted = 0 AND m.{column} IS NOT NULL",
        (bot, league, games))]


def seat_frame(ws: Workspace, league: str) -> pd.DataFrame:
    """The seat rows (``hexarena.leagues.results.rows``) of the league's current schedule as a normalised frame,
    straight from the results table."""
    import pandas as pd

    cursor = ws.db.cursor()
    cursor.row_factory = None  # plain tuples: much faster than sqlite3.Row for many rows
    columns = ", ".join(f"r.{c}" for c in RESULT_COLUMNS)
    cursor.execute(f"SELECT {columns} {SCHEDULED_RESULTS}", (league,))
    frame = pd.DataFrame(cursor.fetchall(), columns=list(RESULT_COLUMNS))
    return normalise(frame.astype({c: "int64" for c in FAULT_RESULT_COLUMNS}))


def time_per_move(ws: Workspace, league: str) -> tuple[float, int]:
    """The league's measured wall-clock milliseconds per move: its stored games' time from start to end (the
    bots' thinking and the referee's messages), summed, over their moves; and that count of moves."""
    row = ws.db.execute(
        "SELECT SUM((julianday(finished) - julianday(started)) * 86400000), SUM(n) FROM (SELECT g.started,"
        " g.finished, (SELECT COUNT(*) FROM moves m WHERE m.game = g.id) AS n FROM games g WHERE g.league = ?"
        " AND g.started IS NOT NULL AND g.finished IS NOT NULL)", (league,)).fetchone()
    return (row[0] / row[1], row[1]) if row[1] else (0.0, 0)


# ---------------------------------------------------------------- the tally


def tally(ws: Workspace, league: str) -> Tally:
    """The tally (``hexarena.leagues.results.rows.Tally``) of the league's current schedule, from its rows of the tables
    ``totals`` and ``shapes`` (a few thousand rows for a million games): ``save_game`` keeps them, and they
    are folded from the results table when the league has none (its first read after the migration to
    schema 5, or after its schedule changed)."""
    import pandas as pd

    totals, shapes = _tally_rows(ws, league)
    sums = pd.DataFrame(totals, columns=list(TOTALS_COLUMNS[1:]))
    seated = [(shape, configuration, players, seat, row[2 * seat], row[2 * seat + 1], count)
              for shape, (configuration, players, *row, count) in enumerate(shapes) for seat in range(players)]
    games = pd.DataFrame(seated, columns=["game", "configuration", "players", "seat", "bot", "placement", "weight"])
    counts = {c: "int64" for c in ("games", "faulty", *SUM_COLUMNS) if c not in ("points", "think_ms")}
    frame_types = {"players": "int64", "seat": "int64", "placement": "int64", "weight": "int64"}
    return Tally(sums.astype(counts | {"points": "float64", "think_ms": "float64"}),
                 normalise(games.astype(frame_types)))


def ensure_tallied(ws: Workspace, league: str) -> bool:
    """Fold and store the league's totals and shapes from its results unless they are built (listed in
    ``tallied``): a write, so a reader that takes a snapshot (``Workspace.reading``) calls it first. False where
    that write failed (a full disk, a read-only or busy database): the tables are not built."""
    built = "SELECT 1 FROM tallied WHERE league = ?"
    if not ws.db.execute(built, (league,)).fetchone():
        try:
            with ws.transaction() as db:
                if not db.execute(built, (league,)).fetchone():  # another process may have folded them meanwhile
                    _fold(db, league)
        except (OutOfSpace, sqlite3.OperationalError):
            return False
    return True


def _tally_rows(ws: Workspace, league: str) -> tuple[list[tuple], list[tuple]]:
    """The league's rows of totals and shapes (without the league column), in the tables' order. Folded and
    stored first unless built; where that write fails the rows folded are answered all the same, unsaved: a
    read never needs to write."""
    if not ensure_tallied(ws, league):
        totals, shapes = _folded(ws.db, league)
        return sorted(row[1:] for row in totals), sorted(row[1:] for row in shapes)
    return (_rows(ws, f"SELECT {', '.join(TOTALS_COLUMNS[1:])} FROM totals WHERE league = ?"
                      " ORDER BY configuration, bot", (league,)),
            _rows(ws, f"SELECT {', '.join(SHAPE_COLUMNS[1:])} FROM shapes WHERE league = ?"
                      f" ORDER BY {', '.join(SHAPE_COLUMNS[1:-1])}", (league,)))


def _fold(db: sqlite3.Connection, league: str) -> None:
    """Store the league's rows of totals and shapes (``_folded``); it is then listed in ``tallied``."""
    totals, shapes = _folded(db, league)
    db.execute("DELETE FROM totals WHERE league = ?", (league,))
    db.execute("DELETE FROM shapes WHERE league = ?", (league,))
    db.executemany(_insert("totals", TOTALS_COLUMNS), totals)
    db.executemany(_insert("shapes", SHAPE_COLUMNS), shapes)
    db.execute("INSERT INTO tallied (league) VALUES (?)", (league,))


def _folded(db: sqlite3.Connection, league: str) -> tuple[list[tuple], list[tuple]]:
    """The league's rows of totals and shapes as the tables hold them, folded from the results of its current
    schedule in SQL (two GROUP BY queries, reads only: a million games never become millions of Python rows)."""
    sums = ", ".join(f"SUM(r.{c})" for c in SUM_COLUMNS)
    totals = db.execute(f"SELECT ?, r.configuration, r.bot, COUNT(*), SUM(r.faults > 0), {sums}, MAX(r.players)"
                        f" {SCHEDULED_RESULTS} GROUP BY r.configuration, r.bot", (league, league)).fetchall()
    seats = range(max(2, max((row[-1] for row in totals), default=2)))  # join only the seats there are
    joins = " ".join(f"{'LEFT ' * (i > 1)}JOIN results r{i} ON r{i}.game = s.game AND r{i}.seat = {i}" for i in seats)
    picked = ", ".join(f"COALESCE(r{i}.bot, ''), COALESCE(r{i}.placement, 0)" for i in seats)  # '', 0: no such seat
    shapes = db.execute(f"SELECT r0.configuration, r0.players, {picked}, COUNT(*) FROM league_games s {joins}"
                        f" WHERE s.league = ? GROUP BY {', '.join(map(str, range(1, 3 + 2 * len(seats))))}",
                        (league,)).fetchall()
    absent = ("", 0) * (SEATS - len(seats))
    return [row[:-1] for row in totals], [(league, *row[:-1], *absent, row[-1]) for row in shapes]


def _insert(table: str, columns: tuple[str, ...]) -> str:
    return f"INSERT INTO {table} ({', '.join(columns)}) VALUES ({', '.join('?' * len(columns))})"


def _count(db: sqlite3.Connection, game: str, rows: list[dict]) -> None:
    """Add a stored game's results (``seat_rows``) to the totals and shapes of every league that has them
    built and schedules the game."""
    leagues = [r[0] for r in db.execute("SELECT t.league FROM tallied t WHERE EXISTS (SELECT 1 FROM league_games s"
                                        " WHERE s.league = t.league AND s.game = ?)", (game,))]
    if not leagues:
        return
    added = ("games", "faulty", *SUM_COLUMNS)
    db.executemany(_insert("totals", TOTALS_COLUMNS) + " ON CONFLICT (league, configuration, bot) DO UPDATE SET "
                   + ", ".join(f"{c} = {c} + excluded.{c}" for c in added),
                   [(league, row["configuration"], row["bot"], 1, int(row["faults"] > 0), *(row[c] for c in SUM_COLUMNS))
                    for league in leagues for row in rows])
    seats = [value for row in rows for value in (row["bot"], row["placement"])] + ["", 0] * (SEATS - len(rows))
    db.executemany(_insert("shapes", SHAPE_COLUMNS) + f" ON CONFLICT ({', '.join(SHAPE_COLUMNS[:-1])})"
                   " DO UPDATE SET games = games + 1",
                   [(league, rows[0]["configuration"], len(rows), *seats, 1) for league in leagues])


def _forget_tally(db: sqlite3.Connection, league: str) -> None:
    """Drop the league's totals and shapes: the next ``tally`` folds them anew."""
    for table in ("tallied", "totals", "shapes"):
        db.execute(f"DELETE FROM {table} WHERE league = ?", (league,))


def _rows(ws: Workspace, sql: str, params: tuple) -> list[tuple]:
    cursor = ws.db.cursor()
    cursor.row_factory = None  # plain tuples
    return cursor.execute(sql, params).fetchall()


# ---------------------------------------------------------------- the server's read API


def schedule_counts(ws: Workspace) -> dict[str, tuple[int, int]]:
    """Every league's (games in its current schedule, of them played), by name."""
    rows = ws.db.execute("SELECT l.name, COUNT(s.game) AS total, COUNT(g.id) AS played FROM leagues l"
                         " LEFT JOIN league_games s ON s.league = l.name LEFT JOIN games g ON g.id = s.game"
                         " GROUP BY l.name ORDER BY l.name")
    return {r["name"]: (r["total"], r["played"]) for r in rows}


def games_stamp(ws: Workspace, league: str) -> tuple:
    """Changes whenever the league's stored games or its schedule change (a cache key for its tables)."""
    games = ws.db.execute("SELECT COUNT(*), MAX(rowid) FROM games WHERE league = ?", (league,)).fetchone()
    updated = ws.db.execute("SELECT updated FROM leagues WHERE name = ?", (league,)).fetchone()
    return tuple(games) + (updated[0] if updated else None,)


def games_page(ws: Workspace, league: str, *, bot: str | None = None, configuration: str | None = None,
               offset: int = 0, limit: int = 50) -> tuple[int, list[dict]]:
    """The stored games of the league's current schedule, newest first: (how many match, the page asked for).
    ``bot``: games it sat in (its name, any version, or a name@hash label); ``configuration``: a board label."""
    where, params = [], [league]
    if configuration is not None:
        where.append("g.configuration = ?")
        params.append(configuration)
    if bot is not None:
        where.append("EXISTS (SELECT 1 FROM results r WHERE r.game = g.id AND (r.bot = ? OR substr(r.bot, 1, ?) = ?))")
        params += [bot, len(bot) + 1, f"{bot}@"]
    matching = SCHEDULED + "".join(f" AND {condition}" for condition in where)
    total = ws.db.execute(f"SELECT COUNT(*) {matching}", params).fetchone()[0]
    rows = ws.db.execute(f"SELECT g.id, g.configuration, g.seats, g.termination, g.offender, g.started, g.finished,"
                         f" g.record {matching}"
                         f" ORDER BY g.finished DESC, g.id LIMIT ? OFFSET ?", [*params, limit, offset])
    page = []
    for row in rows:
        try:
            result = json.loads(row["record"])["result"]
        except (ValueError, KeyError, TypeError):
            result = {}  # a garbled record: listed without scores ('hexarena doctor' reports it)
        page.append({"id": row["id"], "configuration": row["configuration"], "seats": json.loads(row["seats"]),
                     "scores": result.get("scores"), "placements": result.get("placements"),
                     "termination": row["termination"], "offender": row["offender"], "started": row["started"],
                     "finished": row["finished"]})
    return total, page


# ---------------------------------------------------------------- reading a damaged database (hexarena doctor)


def scan(db: sqlite3.Connection, table: str, columns: str, where: str = "", params: tuple = ()) -> Iterator[tuple]:
    """The rows of a store table of a plain, possibly damaged connection, one at a time by rowid: a row that
    cannot be read is yielded as ``(None, error)``; a table that cannot be listed at all as one such item."""
    try:
        rowids = [r[0] for r in db.execute(f"SELECT rowid FROM {table} {where} ORDER BY rowid", params)]
    except sqlite3.DatabaseError as exc:
        yield None, f"table {table}: {exc}"
        return
    for rowid in rowids:
        try:
            yield db.execute(f"SELECT {columns} FROM {table} WHERE rowid = ?", (rowid,)).fetchone()
        except sqlite3.DatabaseError as exc:
            yield None, f"table {table}, row {rowid}: {exc}"


def scan_leagues(db: sqlite3.Connection) -> Iterator[tuple]:
    """(name, config JSON) of every league row."""
    return scan(db, "leagues", "name, config")


def scan_edition(db: sqlite3.Connection, league: str) -> int:
    """The league's edition (``Definition``) in a plain, possibly damaged or older connection; 0 if unreadable."""
    try:
        row = db.execute("SELECT edition FROM leagues WHERE name = ?", (league,)).fetchone()
    except sqlite3.DatabaseError:  # damaged, or a layout before schema 3
        return 0
    return row[0] if row is not None and isinstance(row[0], int) else 0


def scan_games(db: sqlite3.Connection) -> Iterator[tuple]:
    """(id, league, record JSON) of every stored game."""
    return scan(db, "games", "id, league, record")


def scan_schedule(db: sqlite3.Connection, league: str) -> list[tuple]:
    """The league's schedule rows (game, round, configuration, seats, seed), readable ones only, in order."""
    rows = scan(db, "league_games", "position, game, round, configuration, seats, seed", "WHERE league = ?", (league,))
    return [tuple(row[1:]) for row in sorted(r for r in rows if r[0] is not None)]


# ---------------------------------------------------------------- ratings over time

SNAPSHOT_COLUMNS = ("batch", "taken", "bot", "version", "elo", "elo_low", "elo_high", "games")


def save_snapshot(ws: Workspace, league: str, rows: list[tuple], taken: datetime | None = None) -> int:
    """Store the league's ratings as they stand: rows of (bot, version, elo, elo_low, elo_high, games), as its
    next snapshot (numbered from 1), taken now unless ``taken``; returns its number."""
    moment = (taken or datetime.now(UTC)).astimezone(UTC).isoformat(timespec="seconds")
    with ws.transaction() as db:
        batch = db.execute("SELECT COALESCE(MAX(batch), 0) + 1 FROM rating_snapshots WHERE league = ?",
                           (league,)).fetchone()[0]
        db.executemany("INSERT INTO rating_snapshots (league, batch, taken, bot, version, elo, elo_low, elo_high,"
                       " games) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                       [(league, batch, moment, *row) for row in rows])
    return batch


def snapshots(ws: Workspace, league: str, at: datetime | None = None) -> pd.DataFrame:
    """The league's snapshots (``SNAPSHOT_COLUMNS``), in order; with ``at`` only the last one taken by then."""
    import pandas as pd

    columns = ", ".join(SNAPSHOT_COLUMNS)
    if at is None:
        return pd.DataFrame(_rows(ws, f"SELECT {columns} FROM rating_snapshots WHERE league = ? ORDER BY batch, elo DESC",
                                  (league,)), columns=list(SNAPSHOT_COLUMNS))
    moment = at.astimezone(UTC).isoformat(timespec="seconds")
    return pd.DataFrame(_rows(ws, f"SELECT {columns} FROM rating_snapshots WHERE league = ? AND batch = (SELECT"
                                  " MAX(batch) FROM rating_snapshots WHERE league = ? AND taken <= ?) ORDER BY elo DESC",
                              (league, league, moment)), columns=list(SNAPSHOT_COLUMNS))
