"""The workspace: one folder that holds all service state.

    hexarena-home/            (default ./hexarena-home, or --home / HEXARENA_HOME)
      hexarena.db             SQLite, WAL; every change in one transaction
      registry/               bot snapshots, one folder per content hash
      logs/                   per-game bot logs
      locks/                  one flock file per league: one runner at a time (leagues.locks)

This module owns the folder's layout and the database connection: opening it (WAL, foreign keys),
bringing its schema to the current version (``leagues.schema.upgrade``, before anything reads a table;
a database written by a newer hexarena is refused), and ``transaction``. It holds no table's layout
(``leagues.schema``) and reads or writes no rows (``leagues.store``, ``leagues.registry``).
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Self

from leagues import schema
from protocol.errors import ConfigError

DEFAULT_HOME = "hexarena-home"


def default_home() -> Path:
    return Path(os.environ.get("HEXARENA_HOME") or DEFAULT_HOME)


class Workspace:
    """Paths and the database connection of one workspace folder, its schema at ``schema.VERSION``.

    ``migrated_from``: the schema version this open migrated the database from; None if it was current
    already or has just been created.
    """

    def __init__(self, home: str | Path | None = None) -> None:
        self.home = Path(home) if home is not None else default_home()
        if self.home.exists() and not self.home.is_dir():
            raise ConfigError(f"workspace {self.home}: is a file, not a folder (give --home or HEXARENA_HOME a folder; "
                              "a new one is made where none exists)")
        try:
            for folder in (self.home, self.registry_dir, self.logs_dir):
                folder.mkdir(parents=True, exist_ok=True)
            self.db = sqlite3.connect(self.database, timeout=30, isolation_level=None)
        except (OSError, sqlite3.Error) as exc:
            raise ConfigError(f"workspace {self.home}: cannot open: {exc}") from None
        try:
            self.db.execute("PRAGMA journal_mode=WAL")
            self.db.execute("PRAGMA foreign_keys=ON")
            self.migrated_from = schema.upgrade(self.db, str(self.database))
        except sqlite3.Error as exc:
            self.db.close()
            raise ConfigError(f"workspace {self.home}: cannot open: {exc}") from None
        except BaseException:
            self.db.close()
            raise
        self.db.row_factory = sqlite3.Row

    @property
    def database(self) -> Path:
        return self.home / "hexarena.db"

    @property
    def registry_dir(self) -> Path:
        return self.home / "registry"

    @property
    def logs_dir(self) -> Path:
        return self.home / "logs"

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        """One atomic change: committed when the block ends, rolled back if it raises."""
        self.db.execute("BEGIN IMMEDIATE")
        try:
            yield self.db
        except BaseException:
            self.db.execute("ROLLBACK")
            raise
        self.db.execute("COMMIT")

    def close(self) -> None:
        self.db.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
