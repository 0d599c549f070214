"""The workspace: one folder that holds all service state.

    hexarena-home/            (default ./hexarena-home, or --home / HEXARENA_HOME)
      hexarena.db             SQLite, WAL; every change in one transaction
      registry/               bot snapshots, one folder per content hash
      logs/                   per-game bot logs
      locks/                  one flock file per league: one runner at a time (hexarena.leagues.workspace.locks)
      site/NAME/              each league's results site, where ``hexarena publish`` and the server write it

This module owns the folder's layout (``Layout``: every path above, spelled once) and the database connection: opening it (WAL, foreign keys),
bringing its schema to the current version (``hexarena.leagues.workspace.schema.upgrade``, before anything reads a table;
a database written by a newer hexarena is refused), and ``transaction``. It holds no table's layout
(``hexarena.leagues.workspace.schema``) and reads or writes no rows (``hexarena.leagues.results.store``, ``hexarena.leagues.registry.submit``).
"""

from __future__ import annotations

import os
import sqlite3
import weakref
from collections.abc import Iterator
from contextlib import closing, contextmanager
from pathlib import Path
from typing import Self

from hexarena.leagues.errors import WorkspaceBusy
from hexarena.leagues.workspace import schema
from hexarena.protocol.errors import ConfigError, OutOfSpace, is_out_of_space
from hexarena.referee.exiting import keep_teardown

DEFAULT_HOME = "hexarena-home"
WAL_PAGES = 256  # pages of write-ahead log between checkpoints


def default_home() -> Path:
    return Path(os.environ.get("HEXARENA_HOME") or DEFAULT_HOME)


class Layout:
    """Where each part of the workspace at ``home`` lies (nothing is opened or made: ``Workspace`` opens it)."""

    def __init__(self, home: str | Path | None = None) -> None:
        self.home = Path(home) if home is not None else default_home()

    @property
    def database(self) -> Path:
        return self.home / "hexarena.db"

    @property
    def registry_dir(self) -> Path:
        return self.home / "registry"

    @property
    def logs_dir(self) -> Path:
        return self.home / "logs"

    @property
    def locks_dir(self) -> Path:
        """The league runners' lock files (``hexarena.leagues.workspace.locks``), made by the first runner."""
        return self.home / "locks"

    @property
    def site_dir(self) -> Path:
        """The leagues' results sites, one folder per league (``site_dir / NAME``): ``hexarena publish``'s default
        folder, the demo's, and the one the server publishes and serves."""
        return self.home / "site"


BUSY_SECONDS = 30.0  # how long a write waits for another process's write lock before it is WorkspaceBusy


def _is_busy(exc: BaseException) -> bool:
    """SQLite's "database is locked" (another connection's lock outlasted the wait), not a damaged file."""
    code = getattr(exc, "sqlite_errorcode", 0) & 0xFF  # the primary code of an extended one (SQLITE_BUSY_*)
    return isinstance(exc, sqlite3.OperationalError) and code in (sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED)


# database file (its resolved path: one file under two spellings is one entry) -> its stamp as this process last
# left it (None: changed by something else since, or gone)
_LEFT: dict[Path, str | None] = {}


def _close_quietly(db: sqlite3.Connection) -> None:
    """A workspace's connection closed once its workspace is gone, at the latest as the process exits. One that
    another thread opened (a server's) cannot be closed here: the process then keeps Python's own exit, whose
    teardown frees it (``keep_teardown``), rather than leave its write-ahead log beside the database."""
    try:
        db.close()
    except sqlite3.ProgrammingError:
        keep_teardown()


class Workspace(Layout):
    """Paths (``Layout``) and the database connection of one workspace folder, its schema at ``schema.VERSION``.

    ``migrated_from``: the schema version this open migrated the database from; None if it was current
    already or has just been created.
    """

    def __init__(self, home: str | Path | None = None, busy_seconds: float | None = None) -> None:
        super().__init__(home)
        # how long a write waits for another process's write lock (default ``BUSY_SECONDS``; a server's requests less)
        self.busy_seconds = BUSY_SECONDS if busy_seconds is None else busy_seconds
        if self.home.exists() and not self.home.is_dir():
            raise ConfigError(f"workspace {self.home}: is a file, not a folder (give --home or HEXARENA_HOME a folder; "
                              "a new one is made where none exists)")
        try:
            for folder in (self.home, self.registry_dir, self.logs_dir):
                folder.mkdir(parents=True, exist_ok=True)
            self._file = self.database.resolve()  # its key in ``_LEFT``, however the home was spelled
            self.db = sqlite3.connect(self.database, timeout=self.busy_seconds, isolation_level=None)
        except (OSError, sqlite3.Error) as exc:
            if is_out_of_space(exc):
                raise OutOfSpace(self.home) from None
            raise ConfigError(f"workspace {self.home}: cannot open: {exc}") from None
        try:
            self.db.execute("PRAGMA journal_mode=WAL")
            # checkpoint the WAL every 1 MiB (not SQLite's 4 MiB) and truncate it back to 1 MiB after: a small
            # disk fills with games, not with a write-ahead log that no checkpoint has reset
            self.db.execute(f"PRAGMA wal_autocheckpoint={WAL_PAGES:d}")
            self.db.execute(f"PRAGMA journal_size_limit={WAL_PAGES * 4096:d}")
            self.db.execute("PRAGMA foreign_keys=ON")
            self.migrated_from = schema.upgrade(self.db, str(self.database))
            stamp = self._file_stamp()
            checked = stamp == self._read_checked()
            wrong = schema.problems(self.db, pages=not checked)
            if wrong:
                raise ConfigError(f"workspace database {self.database}: {'; '.join(wrong)}: {schema.RESTORE}")
            if not checked:
                self._write_checked(stamp)
            _LEFT[self._file] = stamp  # found sound just now (checked, or unchanged since the last check)
            # closed at the latest as the process exits (``atexit``), even where the ``hexarena`` command skips
            # Python's teardown (``referee/exiting.py``): its close checkpoints the WAL into the database file
            self._closer = weakref.finalize(self, _close_quietly, self.db)
        except sqlite3.Error as exc:
            self.db.close()
            if is_out_of_space(exc):
                raise OutOfSpace(self.database) from None
            if _is_busy(exc):  # a migration's or a new file's first write: the file is fine, not "unreadable"
                raise self._busy() from None
            raise ConfigError(f"workspace database {self.database}: unreadable ({exc}): {schema.RESTORE}") from None
        except BaseException:
            self.db.close()
            raise
        self.db.row_factory = sqlite3.Row

    # The page check (``PRAGMA quick_check``) reads the whole file: 12 s for a million games. It runs when the
    # file changed since the last clean check (size or modification time of the database, size of its WAL;
    # every write transaction or checkpoint changes one of them), so reading commands after it are quick. A
    # workspace found sound at its open follows the file through this process's own transactions (committed or
    # rolled back by SQLite, they damage nothing: ``_LEFT``, shared by the process's workspaces of one file) and
    # stamps it at a close, so the next command after a league run or a publish does not read the whole file
    # again. Only while nothing else changed the file: a transaction or a close that finds the file other than
    # this process left it (another process wrote, or something damaged it) stops the following until the next
    # open's check, and a process killed before its close writes no stamp. Either way the next open checks.
    CHECKED = ".hexarena-checked"  # in the home folder: the stamp of the database at its last clean check

    def _file_stamp(self) -> str:
        db = self.database.stat()
        wal = Path(f"{self.database}-wal")
        return f"{db.st_size} {db.st_mtime_ns} {wal.stat().st_size if wal.exists() else 0}"

    def _stamp_left(self) -> str | None:
        """The stamp as this process leaves the file now; None if it cannot be read (the file went): the next open
        checks, and what went wrong meanwhile is what is raised, not this."""
        try:
            return self._file_stamp()
        except OSError:
            return None

    def _read_checked(self) -> str | None:
        try:
            return (self.home / self.CHECKED).read_text(encoding="ascii").strip()
        except (OSError, ValueError):
            return None

    def _write_checked(self, stamp: str) -> None:
        try:
            (self.home / self.CHECKED).write_text(stamp + "\n", encoding="ascii")
        except OSError:  # a read-only home: the next open checks again
            pass

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        """One atomic change: committed when the block ends, rolled back if it raises; a full disk is
        ``OutOfSpace`` naming the database (rolled back: it stays intact)."""
        try:
            self.db.execute("BEGIN IMMEDIATE")
            ours = self._unchanged()  # the write lock is ours: nobody else writes until it ends
            try:
                try:
                    yield self.db
                except BaseException:
                    if self.db.in_transaction:
                        self.db.execute("ROLLBACK")
                    raise
                self.db.execute("COMMIT")
            finally:
                _LEFT[self._file] = self._stamp_left() if ours else None
        except BaseException as exc:
            # whatever stops it leaves no transaction open, also between BEGIN and the block (a Ctrl-C, which
            # a signal handler raises between any two lines); a full disk leaves the database as it was: say
            # so, in one line
            if self.db.in_transaction:
                self.db.execute("ROLLBACK")
            if isinstance(exc, sqlite3.Error) and is_out_of_space(exc):
                raise OutOfSpace(self.database) from None
            if _is_busy(exc):
                raise self._busy() from None
            raise

    def _busy(self) -> WorkspaceBusy:
        return WorkspaceBusy(f"workspace database {self.database}: another process held it locked for over "
                             f"{self.busy_seconds:g} s (a long write, or a program keeping a transaction open), so this "
                             "change was not made; what was stored before is kept: try again once it is done")

    @contextmanager
    def reading(self) -> Iterator[sqlite3.Connection]:
        """One consistent snapshot for every read in the block: a read transaction (WAL), so what other
        processes store meanwhile is not seen until it ends; a block inside another shares the outer snapshot.
        No write may happen in it (``transaction`` would fail)."""
        if self.db.in_transaction:
            yield self.db
            return
        self.db.execute("BEGIN")
        try:
            self.db.execute("SELECT COUNT(*) FROM sqlite_master").fetchone()  # the snapshot starts at the first read
            yield self.db
        finally:
            if self.db.in_transaction:
                self.db.execute("COMMIT")  # reads only: nothing to keep or undo

    def backup(self, dest: Path) -> None:
        """A consistent copy of the database at ``dest`` while other processes keep writing (SQLite's online
        backup), written beside it and moved into place: ``dest`` is whole or untouched."""
        from hexarena.leagues.workspace.files import check_out_file, new_file

        check_out_file(dest, "backup")
        with new_file(dest) as tmp, closing(sqlite3.connect(tmp)) as copy:
            self.db.backup(copy)

    def _unchanged(self) -> bool:
        """Whether the file is as this process last left it (False once it was not, or it is gone)."""
        try:
            return _LEFT.get(self._file) is not None and self._file_stamp() == _LEFT[self._file]
        except OSError:
            return False

    def close(self) -> None:
        ours = self._unchanged()
        self._closer()
        if ours:  # the close's own checkpoint of the WAL is the last change: stamped as it leaves the file
            _LEFT[self._file] = stamp = self._stamp_left()
            if stamp is not None:
                self._write_checked(stamp)

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
