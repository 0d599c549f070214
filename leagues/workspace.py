"""The workspace: one folder that holds all service state.

    hexarena-home/            (default ./hexarena-home, or --home / HEXARENA_HOME)
      hexarena.db             SQLite, WAL; every change in one transaction
      registry/               bot snapshots, one folder per content hash
      logs/                   per-game bot logs

Modules that store things create their own tables with ``CREATE TABLE IF NOT EXISTS``
through ``Workspace.ensure_schema``.
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Self

from protocol.errors import ConfigError

DEFAULT_HOME = "hexarena-home"


def default_home() -> Path:
    return Path(os.environ.get("HEXARENA_HOME") or DEFAULT_HOME)


class Workspace:
    """Paths and the database connection of one workspace folder."""

    def __init__(self, home: str | Path | None = None) -> None:
        self.home = Path(home) if home is not None else default_home()
        try:
            for folder in (self.home, self.registry_dir, self.logs_dir):
                folder.mkdir(parents=True, exist_ok=True)
            self.db = sqlite3.connect(self.home / "hexarena.db", timeout=30, isolation_level=None)
            self.db.execute("PRAGMA journal_mode=WAL")
            self.db.execute("PRAGMA foreign_keys=ON")
        except (OSError, sqlite3.Error) as exc:
            raise ConfigError(f"workspace {self.home}: cannot open: {exc}") from None
        self.db.row_factory = sqlite3.Row

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

    def ensure_schema(self, ddl: str) -> None:
        """Run ``CREATE ... IF NOT EXISTS`` statements (idempotent)."""
        self.db.executescript(ddl)

    def close(self) -> None:
        self.db.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
