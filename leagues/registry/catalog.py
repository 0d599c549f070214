"""Reading the registry: its bots, their versions, and the check that a snapshot is as it was registered.

    list_bots(ws), get_bot(ws, name)    every registered bot (``BotInfo``), one bot
    bot_history(ws, name)               every submission of a bot, oldest first (``VersionInfo``)
    retire(ws, name)                    out of future leagues (its versions and games stay)
    verify_snapshot(ws, name, digest)   the snapshot's folder, unchanged since it was built, or ConfigError

Every snapshot is hashed again before it runs (``verify_snapshot``: ``resolve`` and ``active_bots`` call it)
and refused if it changed since it was registered (its ``tree_hash`` against ``registry_meta``'s
``built:<hash>``): the match or league does not start, since a rewritten registry means a breach the
organiser must look at.

This module holds the SQL that reads the registry's rows (tables bots, bot_versions, registry_meta), and
retiring; registering is ``hexarena.leagues.registry.submit``'s.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

from hexarena.leagues.workspace.home import Workspace
from hexarena.protocol.errors import ConfigError
from hexarena.referee.manifest import Manifest
from hexarena.leagues.registry.snapshot import SHORT_HASH, freeze, tree_hash

if TYPE_CHECKING:
    from hexarena.referee.check import CheckItem


@dataclass(frozen=True)
class BotInfo:
    name: str
    author: str
    versions: int
    latest: str  # hash of the latest version
    submitted: str  # when the latest version was submitted
    retired: str | None


@dataclass(frozen=True)
class VersionInfo:
    hash: str
    submitted: str
    manifest: Manifest
    checks: list[CheckItem]
    build_log: str
    source: str


def verify_snapshot(ws: Workspace, name: str, digest: str) -> Path:
    """The snapshot of version ``digest``, unchanged since it was registered; ConfigError naming it if not."""
    folder = snapshot_folder(ws, digest)
    shown = f"{name}@{digest[:SHORT_HASH]}"
    row = ws.db.execute("SELECT value FROM registry_meta WHERE key = ?", (f"built:{digest}",)).fetchone()
    try:
        found = tree_hash(folder)
    except ConfigError as exc:
        raise ConfigError(f"registry snapshot {shown} cannot be read ({exc}); it will not run") from None
    if row is None:  # registered before snapshots were frozen: its hash as it is now, from now on
        with ws.transaction() as db:
            db.execute("INSERT OR IGNORE INTO registry_meta (key, value) VALUES (?, ?)", (f"built:{digest}", found))
        freeze(folder)
    elif row["value"] != found:
        raise ConfigError(f"registry snapshot {shown} ({folder}) was changed after it was registered "
                          "(its content hash differs); it will not run: submit the bot again")
    return folder


# ---------------------------------------------------------------- reading


def list_bots(ws: Workspace) -> list[BotInfo]:
    """Every registered bot (retired ones too), by name."""
    rows = ws.db.execute(
        "SELECT b.name, b.author, b.retired, COUNT(DISTINCT v.hash) AS versions, MAX(v.id) AS latest"
        " FROM bots b JOIN bot_versions v ON v.bot = b.name GROUP BY b.name ORDER BY b.name").fetchall()
    latest = {r["id"]: r for r in ws.db.execute(
        f"SELECT id, hash, submitted FROM bot_versions WHERE id IN ({','.join('?' * len(rows))})",
        [r["latest"] for r in rows])}
    return [BotInfo(r["name"], r["author"], r["versions"], latest[r["latest"]]["hash"],
                    latest[r["latest"]]["submitted"], r["retired"]) for r in rows]


def get_bot(ws: Workspace, name: str) -> BotInfo:
    """One registered bot; ConfigError naming a few known bots if there is none by that name."""
    bot_row(ws, name)
    return next(info for info in list_bots(ws) if info.name == name)


def bot_history(ws: Workspace, name: str) -> list[VersionInfo]:
    """Every submission of a bot, oldest first (a return to earlier content appears again)."""
    bot_row(ws, name)
    rows = ws.db.execute("SELECT * FROM bot_versions WHERE bot = ? ORDER BY id", (name,)).fetchall()
    return [VersionInfo(r["hash"], r["submitted"], Manifest.model_validate_json(r["manifest"]), checks_of(r),
                        r["build_log"], r["source"]) for r in rows]


def retire(ws: Workspace, name: str) -> bool:
    """Take a bot out of future leagues (its versions and past games stay). False if it was already retired."""
    bot_row(ws, name)
    with ws.transaction() as db:
        changed = db.execute("UPDATE bots SET retired = ? WHERE name = ? AND retired IS NULL", (utc_now(), name))
        return changed.rowcount == 1


def snapshot_folder(ws: Workspace, digest: str) -> Path:
    """Where version ``digest``'s snapshot lies: ``ws.registry_dir/<hash>``."""
    return (ws.registry_dir / digest).resolve()


# ---------------------------------------------------------------- rows (for the registry's other modules)


def bot_row(ws: Workspace, name: str):
    """The bot's row; ConfigError naming a few registered bots if there is none by that name."""
    row = ws.db.execute("SELECT * FROM bots WHERE name = ?", (name,)).fetchone()
    if row is None:
        names = [r["name"] for r in ws.db.execute("SELECT name FROM bots ORDER BY name LIMIT 9")]
        known = ", ".join(names[:8]) + (", ..." if len(names) > 8 else "") if names else "none yet"
        raise ConfigError(f"unknown bot {name!r}: no registered bot or folder by that name (registered: {known})")
    return row


def active_names(ws: Workspace) -> list[str]:
    """The names of the bots that are not retired, in order."""
    return [r["name"] for r in ws.db.execute("SELECT name FROM bots WHERE retired IS NULL ORDER BY name")]


def latest_row(ws: Workspace, name: str):
    """The bot's latest version row, or None."""
    return ws.db.execute("SELECT * FROM bot_versions WHERE bot = ? ORDER BY id DESC LIMIT 1", (name,)).fetchone()


def version_row(ws: Workspace, digest: str):
    """The latest version row of content ``digest`` (of any bot), or None."""
    return ws.db.execute("SELECT * FROM bot_versions WHERE hash = ? ORDER BY id DESC LIMIT 1", (digest,)).fetchone()


def prefix_rows(ws: Workspace, name: str, prefix: str) -> list:
    """The bot's versions whose hash starts with ``prefix`` (lower case hex), the latest row of each."""
    return ws.db.execute("SELECT * FROM bot_versions WHERE id IN (SELECT MAX(id) FROM bot_versions"
                         " WHERE bot = ? AND hash LIKE ? || '%' GROUP BY hash)", (name, prefix)).fetchall()


def checks_of(version) -> list[CheckItem]:
    """A version row's check items, stored as a JSON list of ``[name, passed, reason]``."""
    from hexarena.referee.check import CheckItem  # the referee's machinery: imported when checks are read

    return [CheckItem(*item) for item in json.loads(version["checks"])]


def utc_now() -> str:
    """The registry's timestamps: UTC, ISO 8601, to the microsecond."""
    return datetime.now(UTC).isoformat(timespec="microseconds")
