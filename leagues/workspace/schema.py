"""The layout of the workspace database (``hexarena.db``): its tables, its version and the way up to it.

This module owns every ``CREATE`` statement of the database and nothing else; the modules that own
the rows own the statements that read and write them:

    hexarena.leagues.results.store      leagues, league_games, games, moves, results     (league schedules and played games)
                       totals, shapes, tallied                         (their results folded)
                       rating_snapshots                                (their ratings after each batch)
    hexarena.leagues.registry.submit   bots, bot_versions, registry_meta               (the bot registry)
    hexarena.leagues.registry.authors    authors                                         (the server's authors and their tokens)
    hexarena.leagues.results.analyses   analyses                                        (the solver's analysis of games)

``PRAGMA user_version`` is the layout's version, for the whole file. ``Workspace`` calls ``upgrade`` on
every open, before anything reads a table:

    no tables yet             created at ``VERSION`` from ``TABLES`` (one transaction)
    user_version < VERSION    each step of ``MIGRATIONS`` from its version up, in ONE transaction that
                              also sets the new user_version: a crash leaves the old version, never half
                              a migration; a second process that was waiting finds the work done
    user_version = VERSION    nothing (one PRAGMA read)
    user_version > VERSION    refused with ConfigError: this code does not know that layout

``Workspace`` then calls ``problems`` (``PRAGMA quick_check``, the tables and columns of ``TABLES``) and
refuses a damaged or foreign database with one line saying what is wrong and what to do (``RESTORE``);
a version-0 file with tables hexarena never made is another application's, refused before any step.

Versions:

    0   no user_version: written by hexarena up to commit 957ae21, where each module created its own
        tables (CREATE TABLE IF NOT EXISTS) when first used, so some may be missing, and the results
        table's columns were derived from the seat frame of ``hexarena.leagues.results.tables``
    1   the same tables and columns, all present, declared here; user_version stamped
    2   bot_versions.follows: the id of the bot's row this submission followed (0 for its first), UNIQUE
        per bot: a bot's history is one chain, so two racing submits of the same content cannot both
        append to it, while content may come back later (A, B, A: three rows, distinct ``follows``).
        The step first deletes what a racing older release may have left: a row with the same hash as
        the bot's row just before it (the first is kept)
    3   leagues.edition: how many times ``league run --replace`` changed the league's terms of play (time
        control, fault policy, seed), which game ids do not otherwise hash; 0 for every existing league
    4   authors: who may write to ``hexarena serve`` (name, the SHA-256 of their token, admin, created, revoked)
    5   totals, shapes, tallied: each league's results folded for its tables (``hexarena.leagues.results.store.tally``), kept
        by ``save_game`` in the game's transaction for the leagues listed in ``tallied``. The step creates
        them empty: an existing league's are folded from its results when first read. And the index
        league_games_in_order (league, position)
    6   rating_snapshots: each league's ratings after every batch of games (``league run``: an adaptive league's
        batches, a round robin's run): each version's Elo, its 95% interval and games so far, with the time taken
        (``league table --at``, the server's history). The step creates it empty: a league has no history
        before it
    7   analyses: each game's solver analysis (``hexarena.leagues.results.analysis``), one row per game, made
        once and kept (the budget it had; a game analysed in part is done again only with a larger one)
    8   results.fault_host_stall, totals.fault_host_stall: a seat's timeouts the host caused
        (``hexarena.referee.stalls``), counted apart from its own faults. The step counts them from the stored
        records (a forfeit with ``host_stall``), takes them out of fault_timeout and faults, and drops every
        league's totals and shapes: they are folded anew when first read
    9   moves.cpu_ms: the bot's CPU time for the move (``hexarena.referee.usage``), NULL where not measured, so
        the bot page reads it beside ``ms`` instead of parsing records; the step copies it from the records

A new layout is a new version: append its step to ``MIGRATIONS`` (a function of the connection, run
inside the upgrade's transaction), write the new layout into ``TABLES`` and raise ``VERSION``. A step
never reads ``TABLES``, which is always the newest layout: it brings its own statements.
"""

from __future__ import annotations

import functools
import sqlite3
from collections.abc import Callable
from contextlib import closing

from hexarena.protocol.errors import ConfigError

# ---------------------------------------------------------------- a later version's table: an earlier one plus a column

def _statement(tables: tuple[str, ...], table: str) -> str:
    """The CREATE TABLE statement of ``table`` among ``tables``."""
    (found,) = (statement for statement in tables if statement.startswith(f"CREATE TABLE IF NOT EXISTS {table} ("))
    return found


def _replaced(tables: tuple[str, ...], table: str, statement: str) -> tuple[str, ...]:
    """``tables`` with ``table``'s CREATE TABLE statement replaced by ``statement``."""
    old = _statement(tables, table)
    return tuple(statement if other is old else other for other in tables)


def _with_column(statement: str, column: str) -> str:
    """A CREATE TABLE statement (one column a line, maybe with a ``--`` comment, ``)`` on its own line) with
    ``column`` added last: the comma goes before the old last column's comment, not into it."""
    body, close = statement.rsplit("\n", 1)
    head, last = body.rsplit("\n", 1)
    code, dashes, comment = last.partition("--")
    padding = len(code) - len(code.rstrip())
    last = code.rstrip() + "," + " " * max(padding - 1, 1 if dashes else 0) + dashes + comment
    indent = last[:len(last) - len(last.lstrip())]
    return f"{head}\n{last}\n{indent}{column}\n{close}"


# ---------------------------------------------------------------- version 1

_TABLES_1 = (
    # the store (leagues.store)
    """CREATE TABLE IF NOT EXISTS leagues (
        name     TEXT PRIMARY KEY,
        config   TEXT NOT NULL,            -- the validated league file, as JSON
        updated  TEXT NOT NULL
    )""",
    """CREATE TABLE IF NOT EXISTS league_games (
        league         TEXT NOT NULL REFERENCES leagues(name),
        game           TEXT NOT NULL,
        position       INTEGER NOT NULL,
        round          INTEGER NOT NULL,
        configuration  TEXT NOT NULL,
        seats          TEXT NOT NULL,      -- JSON list of bot labels in seat order
        seed           INTEGER NOT NULL,
        PRIMARY KEY (league, game)
    )""",
    """CREATE TABLE IF NOT EXISTS games (
        id             TEXT PRIMARY KEY,
        league         TEXT NOT NULL,
        configuration  TEXT NOT NULL,
        seats          TEXT NOT NULL,
        termination    TEXT NOT NULL,
        offender       INTEGER,
        started        TEXT,
        finished       TEXT,
        record         TEXT NOT NULL       -- the GameRecord as JSON
    )""",
    "CREATE INDEX IF NOT EXISTS games_by_league ON games (league, configuration)",
    """CREATE TABLE IF NOT EXISTS moves (
        game         TEXT NOT NULL REFERENCES games(id),
        number       INTEGER NOT NULL,
        seat         INTEGER NOT NULL,
        line         INTEGER NOT NULL,
        closed       TEXT NOT NULL,        -- JSON list of cells
        ms           REAL NOT NULL,
        substituted  INTEGER NOT NULL,
        PRIMARY KEY (game, number)
    )""",
    """CREATE TABLE IF NOT EXISTS results (
        game                     TEXT NOT NULL REFERENCES games(id),
        configuration            TEXT NOT NULL,
        players                  INTEGER NOT NULL,
        seat                     INTEGER NOT NULL,
        bot                      TEXT NOT NULL,
        score                    INTEGER NOT NULL,
        against                  INTEGER NOT NULL,
        placement                INTEGER NOT NULL,
        points                   REAL NOT NULL,
        win                      INTEGER NOT NULL,
        draw                     INTEGER NOT NULL,
        loss                     INTEGER NOT NULL,
        moves                    INTEGER NOT NULL,
        think_ms                 REAL NOT NULL,
        faults                   INTEGER NOT NULL,
        fault_no_connection      INTEGER NOT NULL,
        fault_crashed            INTEGER NOT NULL,
        fault_timeout            INTEGER NOT NULL,
        fault_illegal_line       INTEGER NOT NULL,
        fault_malformed_message  INTEGER NOT NULL,
        fault_wrong_request      INTEGER NOT NULL,
        PRIMARY KEY (game, seat)
    )""",
    "CREATE INDEX IF NOT EXISTS results_by_bot ON results (bot)",
    # the registry (leagues.registry)
    """CREATE TABLE IF NOT EXISTS bots (
        name     TEXT PRIMARY KEY,
        author   TEXT NOT NULL,
        created  TEXT NOT NULL,
        retired  TEXT                       -- when it was retired; NULL while active
    )""",
    """CREATE TABLE IF NOT EXISTS bot_versions (
        id         INTEGER PRIMARY KEY,     -- submission order; the highest id of a bot is its latest version
        hash       TEXT NOT NULL,           -- sha256 of the folder's content; the snapshot is registry/<hash>/
        bot        TEXT NOT NULL REFERENCES bots(name),
        submitted  TEXT NOT NULL,
        manifest   TEXT NOT NULL,           -- JSON of the validated bot.toml
        checks     TEXT NOT NULL,           -- JSON list of [name, passed, reason]
        build_log  TEXT NOT NULL,
        source     TEXT NOT NULL            -- the folder it was submitted from
    )""",
    "CREATE INDEX IF NOT EXISTS bot_versions_by_bot ON bot_versions (bot, id)",
    "CREATE TABLE IF NOT EXISTS registry_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
)


def _from_0(db: sqlite3.Connection) -> None:
    """0 → 1: create the tables the old code had not created yet; check that the others have version 1's
    columns (a database of an older development build may not: refused, as no step knows its layout)."""
    for table, columns in _columns(_TABLES_1).items():
        found = _table_columns(db, table)
        if found and found != columns:
            raise ConfigError(f"table {table} has columns ({', '.join(found)}), not schema 1's ({', '.join(columns)})")
    for statement in _TABLES_1:
        db.execute(statement)


# ---------------------------------------------------------------- version 2

_BOT_VERSIONS_2 = _with_column(_statement(_TABLES_1, "bot_versions"),
                              "follows    INTEGER NOT NULL DEFAULT 0  -- id of the bot's previous latest version; 0 for its first")
_ONE_CHAIN = "CREATE UNIQUE INDEX IF NOT EXISTS bot_versions_chain ON bot_versions (bot, follows)"
_TABLES_2 = _replaced(_TABLES_1, "bot_versions", _BOT_VERSIONS_2) + (_ONE_CHAIN,)


def _from_1(db: sqlite3.Connection) -> None:
    """1 → 2: delete the doubled rows of racing submits (same bot and hash as the bot's row just before;
    the first stays), then give every row the id it follows, unique per bot."""
    db.execute("""DELETE FROM bot_versions WHERE id IN (
        SELECT id FROM (SELECT id, hash, LAG(hash) OVER (PARTITION BY bot ORDER BY id) AS before
                        FROM bot_versions) WHERE hash = before)""")
    db.execute("ALTER TABLE bot_versions ADD COLUMN follows INTEGER NOT NULL DEFAULT 0")
    db.execute("""UPDATE bot_versions SET follows = COALESCE((SELECT MAX(p.id) FROM bot_versions p
                  WHERE p.bot = bot_versions.bot AND p.id < bot_versions.id), 0)""")
    db.execute(_ONE_CHAIN)


# ---------------------------------------------------------------- version 3

_LEAGUES_3 = _with_column(_statement(_TABLES_1, "leagues"),
                         "edition  INTEGER NOT NULL DEFAULT 0  -- terms of play replaced (league run --replace); in its game ids if > 0")
_TABLES_3 = _replaced(_TABLES_2, "leagues", _LEAGUES_3)


def _from_2(db: sqlite3.Connection) -> None:
    """2 → 3: every league keeps its game ids (edition 0)."""
    db.execute("ALTER TABLE leagues ADD COLUMN edition INTEGER NOT NULL DEFAULT 0")


# ---------------------------------------------------------------- version 4

_AUTHORS_4 = """CREATE TABLE IF NOT EXISTS authors (
        name          TEXT PRIMARY KEY,
        token_sha256  TEXT NOT NULL UNIQUE,    -- hex SHA-256 of the token; the token itself is never stored
        admin         INTEGER NOT NULL DEFAULT 0,  -- 1: the organiser (may start league runs)
        created       TEXT NOT NULL,
        revoked       TEXT                     -- when the token was revoked; NULL while it is valid
    )"""
_TABLES_4 = _TABLES_3 + (_AUTHORS_4,)


def _from_3(db: sqlite3.Connection) -> None:
    """3 → 4: the authors table (new, empty)."""
    db.execute(_AUTHORS_4)


# ---------------------------------------------------------------- version 5

_TALLIES_5 = (
    """CREATE TABLE IF NOT EXISTS tallied (
        league  TEXT PRIMARY KEY           -- its totals and shapes are built, and kept by every save_game
    ) WITHOUT ROWID""",
    """CREATE TABLE IF NOT EXISTS totals (
        league                   TEXT NOT NULL,
        configuration            TEXT NOT NULL,
        bot                      TEXT NOT NULL,
        games                    INTEGER NOT NULL,
        faulty                   INTEGER NOT NULL,  -- games with a fault of the bot's seat
        win                      INTEGER NOT NULL,  -- this and every column below: the sum of the results'
        draw                     INTEGER NOT NULL,
        loss                     INTEGER NOT NULL,
        points                   REAL NOT NULL,
        score                    INTEGER NOT NULL,
        against                  INTEGER NOT NULL,
        moves                    INTEGER NOT NULL,
        think_ms                 REAL NOT NULL,
        faults                   INTEGER NOT NULL,
        fault_no_connection      INTEGER NOT NULL,
        fault_crashed            INTEGER NOT NULL,
        fault_timeout            INTEGER NOT NULL,
        fault_illegal_line       INTEGER NOT NULL,
        fault_malformed_message  INTEGER NOT NULL,
        fault_wrong_request      INTEGER NOT NULL,
        PRIMARY KEY (league, configuration, bot)
    ) WITHOUT ROWID""",
    """CREATE TABLE IF NOT EXISTS shapes (
        league         TEXT NOT NULL,
        configuration  TEXT NOT NULL,
        players        INTEGER NOT NULL,
        bot0           TEXT NOT NULL,      -- the bot in seat 0; '' for a seat a table of fewer players lacks
        placement0     INTEGER NOT NULL,   -- its placement; 0 for a seat the table lacks
        bot1           TEXT NOT NULL,
        placement1     INTEGER NOT NULL,
        bot2           TEXT NOT NULL,
        placement2     INTEGER NOT NULL,
        bot3           TEXT NOT NULL,
        placement3     INTEGER NOT NULL,
        games          INTEGER NOT NULL,   -- games of these seats that ended in these placements
        PRIMARY KEY (league, configuration, players, bot0, placement0, bot1, placement1, bot2, placement2,
                     bot3, placement3)
    ) WITHOUT ROWID""",
)
_IN_ORDER_5 = "CREATE INDEX IF NOT EXISTS league_games_in_order ON league_games (league, position)"
_TABLES_5 = _TABLES_4 + _TALLIES_5 + (_IN_ORDER_5,)


def _from_4(db: sqlite3.Connection) -> None:
    """4 → 5: the tallies' tables, empty: a league's are folded from its results when first read; the
    index of a schedule in order (a million games' records are read in schedule order without a sort)."""
    for statement in (*_TALLIES_5, _IN_ORDER_5):
        db.execute(statement)


# ---------------------------------------------------------------- version 6

_SNAPSHOTS_6 = (
    """CREATE TABLE IF NOT EXISTS rating_snapshots (
        league    TEXT NOT NULL,
        batch     INTEGER NOT NULL,         -- the league's snapshots in order, from 1
        taken     TEXT NOT NULL,            -- when (ISO 8601, UTC)
        bot       TEXT NOT NULL,            -- its label in the league
        version   TEXT NOT NULL,            -- name@hash
        elo       REAL NOT NULL,
        elo_low   REAL NOT NULL,
        elo_high  REAL NOT NULL,
        games     INTEGER NOT NULL,
        PRIMARY KEY (league, batch, bot)
    ) WITHOUT ROWID""",
)
_TABLES_6 = _TABLES_5 + _SNAPSHOTS_6


def _from_5(db: sqlite3.Connection) -> None:
    """5 → 6: the ratings' snapshots, empty (a league's history starts at its next run)."""
    for statement in _SNAPSHOTS_6:
        db.execute(statement)


# ---------------------------------------------------------------- version 7

_ANALYSES_7 = """CREATE TABLE IF NOT EXISTS analyses (
        game      TEXT PRIMARY KEY REFERENCES games(id),
        budget    REAL NOT NULL,           -- the seconds it was given (a partial one is redone with more)
        complete  INTEGER NOT NULL,        -- 1: every position solved
        analysis  TEXT NOT NULL,           -- the JSON of ``hexarena analyse --json``
        created   TEXT NOT NULL
    )"""
_TABLES_7 = _TABLES_6 + (_ANALYSES_7,)


def _from_6(db: sqlite3.Connection) -> None:
    """6 → 7: the analyses table (new, empty: games are analysed when first asked for)."""
    db.execute(_ANALYSES_7)


# ---------------------------------------------------------------- version 8

_HOST_STALL_8 = "fault_host_stall         INTEGER NOT NULL DEFAULT 0"


def _with_column_before_key(tables: tuple[str, ...], table: str, column: str) -> str:
    """``table``'s statement with ``column`` (its definition and comment) before its primary key, where
    ``_with_column`` cannot put it (a column may not follow a constraint)."""
    before, key = _statement(tables, table).split("        PRIMARY KEY")
    return f"{before}        {column}\n        PRIMARY KEY{key}"


def _with_host_stall(table: str) -> str:
    return _with_column_before_key(_TABLES_7, table, f"{_HOST_STALL_8},  -- timeouts the host caused: not in faults")


_TABLES_8 = _replaced(_replaced(_TABLES_7, "results", _with_host_stall("results")),
                      "totals", _with_host_stall("totals"))


def _from_7(db: sqlite3.Connection) -> None:
    """7 → 8: host stalls counted apart: read from the records that have one, moved out of the timeouts."""
    for table in ("results", "totals"):
        if "fault_host_stall" not in _table_columns(db, table):  # a copy of a newer file stamped older may have it
            db.execute(f"ALTER TABLE {table} ADD COLUMN {_HOST_STALL_8}")
    db.execute("""UPDATE results SET fault_host_stall = (
                      SELECT COUNT(*) FROM games g, json_each(g.record, '$.result.forfeits') f
                      WHERE g.id = results.game AND json_extract(f.value, '$.seat') = results.seat
                        AND json_extract(f.value, '$.host_stall') IS NOT NULL)
                  WHERE game IN (SELECT id FROM games WHERE json_valid(record) AND instr(record, '"host_stall":'))""")
    db.execute("UPDATE results SET fault_timeout = fault_timeout - fault_host_stall, faults = faults - fault_host_stall"
               " WHERE fault_host_stall > 0")
    for table in ("tallied", "totals", "shapes"):
        db.execute(f"DELETE FROM {table}")


# ---------------------------------------------------------------- version 9

_CPU_MS_9 = "cpu_ms       REAL,"


_TABLES_9 = _replaced(_TABLES_8, "moves", _with_column_before_key(
    _TABLES_8, "moves", f"{_CPU_MS_9}                  -- the bot's CPU time for it; NULL: not measured"))


def _from_8(db: sqlite3.Connection) -> None:
    """8 → 9: moves.cpu_ms, copied from the records that carry it (each record parsed once)."""
    if "cpu_ms" not in _table_columns(db, "moves"):  # a copy of a newer file stamped older may have it
        db.execute(f"ALTER TABLE moves ADD COLUMN {_CPU_MS_9.rstrip(',')}")
    db.execute("""UPDATE moves SET cpu_ms = m.cpu FROM (
                      SELECT g.id AS game, CAST(j.key AS INTEGER) AS number, json_extract(j.value, '$.cpu_ms') AS cpu
                      FROM games g, json_each(CASE WHEN json_valid(g.record) THEN g.record ELSE '{}' END, '$.moves') j
                      WHERE instr(g.record, '"cpu_ms":')) m
                  WHERE moves.game = m.game AND moves.number = m.number AND m.cpu IS NOT NULL""")


# ---------------------------------------------------------------- the current layout and the way up to it

VERSION = 9
TABLES: tuple[str, ...] = _TABLES_9  # the layout at VERSION: what a new database is created with
# step N → N + 1
MIGRATIONS: dict[int, Callable[[sqlite3.Connection], None]] = {0: _from_0, 1: _from_1, 2: _from_2, 3: _from_3,
                                                                 4: _from_4, 5: _from_5, 6: _from_6,
                                                                 7: _from_7, 8: _from_8}


def upgrade(db: sqlite3.Connection, where: str) -> int | None:
    """Bring the database to ``VERSION`` (see the module docstring). Returns the version it migrated from,
    None if there was nothing to migrate (already current, or created now). ``where`` names the file in errors.

    ``db`` must be in autocommit mode (``isolation_level=None``): this function runs its own transaction.
    """
    if _version(db) == VERSION:
        return None
    migrated_from = None
    db.execute("BEGIN IMMEDIATE")  # the write lock: another process may be upgrading the same file
    try:
        found = _version(db)  # again, inside the lock
        if found > VERSION:
            raise ConfigError(f"{where} was written by a newer hexarena (schema {found}; this one reads up to "
                              f"{VERSION}): upgrade hexarena")
        if found < VERSION:
            migrated_from = _migrate(db, found, where)
            db.execute(f"PRAGMA user_version = {VERSION:d}")
    except BaseException:
        db.execute("ROLLBACK")
        raise
    db.execute("COMMIT")
    return migrated_from


def _migrate(db: sqlite3.Connection, found: int, where: str) -> int | None:
    """Inside the upgrade's transaction: create a new database, or run the steps from ``found`` up."""
    if found == 0 and db.execute("SELECT COUNT(*) FROM sqlite_master").fetchone()[0] == 0:
        for statement in TABLES:
            db.execute(statement)
        return None
    if found == 0 and foreign_tables(db):
        raise ConfigError(f"{where} is not a hexarena workspace database (it holds tables hexarena never made: "
                          f"{', '.join(foreign_tables(db)[:5])}); give another --home, or move the file away")
    try:
        for version in range(found, VERSION):
            MIGRATIONS[version](db)
    except (ConfigError, sqlite3.Error) as exc:
        raise ConfigError(f"{where}: cannot migrate from schema {found} to {VERSION}: {exc}") from None
    return found


def _version(db: sqlite3.Connection) -> int:
    return db.execute("PRAGMA user_version").fetchone()[0]


def _table_columns(db: sqlite3.Connection, table: str) -> tuple[str, ...]:
    return tuple(row[1] for row in db.execute(f"PRAGMA table_info({table})"))


@functools.cache
def _columns(statements: tuple[str, ...]) -> dict[str, tuple[str, ...]]:
    """Each table's column names in a layout, read back from an in-memory database made with it."""
    with closing(sqlite3.connect(":memory:")) as scratch:
        for statement in statements:
            scratch.execute(statement)
        tables = [row[0] for row in scratch.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
        return {table: _table_columns(scratch, table) for table in tables}


# ---------------------------------------------------------------- is this a sound hexarena database?

RESTORE = ("restore the workspace's backup (docs/operations.md), or run 'hexarena doctor --home HOME "
           "--salvage NEWHOME' to copy its intact games into a new workspace")


def problems(db: sqlite3.Connection, pages: bool = True) -> list[str]:
    """What is wrong with a database at ``VERSION``, one line each; empty if it is sound. Reads only:
    ``PRAGMA quick_check`` (damaged pages, broken indexes; the whole file, skipped when not ``pages``), then
    the tables and columns of ``TABLES`` (a missing table or column, or an extra NOT NULL column without a
    default that no insert would fill)."""
    found = []
    try:
        check = [" ".join(str(row[0]).split()) for row in db.execute("PRAGMA quick_check(3)")] if pages else ["ok"]
    except sqlite3.DatabaseError as exc:
        return [f"unreadable: {exc}"]
    if check != ["ok"]:
        found.append(f"damaged (quick_check: {'; '.join(check)})")
    try:
        for table, columns in _columns(TABLES).items():
            info = list(db.execute(f"PRAGMA table_info({table})"))
            if not info:
                found.append(f"table {table} is missing")
                continue
            names = [row[1] for row in info]
            missing = [c for c in columns if c not in names]
            if missing:
                found.append(f"table {table} lacks column {', '.join(missing)}")
            extra = [row[1] for row in info if row[1] not in columns and row[3] and row[4] is None]
            if extra:
                found.append(f"table {table} has a NOT NULL column hexarena does not write: {', '.join(extra)}")
    except sqlite3.DatabaseError as exc:
        found.append(f"unreadable: {exc}")
    return found


def foreign_tables(db: sqlite3.Connection) -> list[str]:
    """Tables hexarena never made: a version-0 file holding them is another application's database."""
    ours = set(_columns(TABLES)) | {"sqlite_sequence", "sqlite_stat1"}
    return sorted(row[0] for row in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")
                  if row[0] not in ours)
