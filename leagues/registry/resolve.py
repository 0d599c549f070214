"""Reading a bot argument: every bot a command line or a league file names is resolved here.

    resolve(ws, "greedy")           the latest version of a registered bot
    resolve(ws, "greedy@1a2b")      the version whose hash starts so (``MIN_PREFIX`` hex digits at least)
    resolve(ws, "path/to/bot")      an ad hoc folder (any argument with a '/', or a folder that exists), unregistered
    active_bots(ws)                 every bot that is not retired, at its latest version ("all" in a league file)

A registered bot resolves to its snapshot, hashed again first (``hexarena.leagues.registry.catalog.verify_snapshot``)
unless ``verify=False`` (nothing will run it). ``ResolvedBot`` is what the referee and the leagues are given:
its folder, its manifest, and the names it shows under (``label``, ``shown``, ``version``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path

from hexarena.leagues.workspace.home import Workspace
from hexarena.protocol.errors import ConfigError
from hexarena.referee.manifest import Manifest, load_manifest
from hexarena.leagues.registry.catalog import (
    active_names, bot_history, bot_row, latest_row, prefix_rows, snapshot_folder, verify_snapshot,
)
from hexarena.leagues.registry.snapshot import SHORT_HASH, source_hash

MIN_PREFIX = 4  # shortest hash prefix accepted in name@prefix


@dataclass(frozen=True)
class ResolvedBot:
    """A runnable bot: its folder (a registry snapshot, or an ad hoc folder when version_hash is None)."""

    name: str
    version_hash: str | None
    folder: Path
    manifest: Manifest
    pinned: bool = field(default=False, compare=False)  # asked for as name@hash, not as the latest version

    @property
    def label(self) -> str:
        """``greedy@1a2b3c4d5e`` for a registered version, the bare name for an ad hoc folder."""
        return f"{self.name}@{self.version_hash[:SHORT_HASH]}" if self.version_hash else self.name

    @property
    def shown(self) -> str:
        """The name a match shows: the label for a version asked for as name@hash, else the name."""
        return self.label if self.pinned else self.name

    @property
    def version(self) -> str:
        """The exact version a record names, ``greedy@1a2b3c4d5e``: for an ad hoc folder, the hash a submit of it
        would register (the same content reads the same); "" for a folder that cannot be hashed (its game says why)."""
        try:
            digest = self.version_hash or source_hash(self.folder)
        except ConfigError:
            return ""
        return f"{self.name}@{digest[:SHORT_HASH]}"


def active_bots(ws: Workspace, verify: bool = True) -> list[ResolvedBot]:
    """Every bot that is not retired, at its latest version, by name ("all active bots" of a league).
    ``verify=False``: the versions only, their snapshots not checked (nothing will run them)."""
    return [_resolved(ws, latest_row(ws, name), verify) for name in active_names(ws)]


def resolve(ws: Workspace | Callable[[], Workspace], text: str, *, verify: bool = True) -> ResolvedBot:
    """A bot argument (the one place that reads one): a folder (ad hoc, unregistered: a folder that exists,
    or any path with a '/'), ``name`` (latest version) or ``name@hashprefix``; ConfigError if it names none.

    ``ws`` may be a function that opens the workspace: it is called only for a registered bot, so the
    command line needs no workspace for folders. ``verify=False``: the version only, its snapshot not checked
    (nothing will run it).
    """
    folder = _folder_form(text)
    if folder is not None:
        manifest = load_manifest(folder)  # "...: not a bot folder (no such directory)" for a path that is none
        return ResolvedBot(manifest.name, None, folder.resolve(), manifest)
    ws = ws() if callable(ws) else ws
    name, at, prefix = text.partition("@")
    row = bot_row(ws, name)
    if not at:
        return _resolved(ws, latest_row(ws, row["name"]), verify)
    if len(prefix) < MIN_PREFIX or any(c not in "0123456789abcdef" for c in prefix.lower()):
        raise ConfigError(f"{text!r}: a version is name@HASH with at least {MIN_PREFIX} hex digits of the hash")
    rows = prefix_rows(ws, name, prefix.lower())
    if len(rows) != 1:
        versions = ", ".join(dict.fromkeys(v.hash[:SHORT_HASH] for v in bot_history(ws, name)))
        problem = "matches no version" if not rows else "is ambiguous"
        raise ConfigError(f"{text!r} {problem} of bot {name!r} (versions: {versions})")
    return replace(_resolved(ws, rows[0], verify), pinned=True)


def bot_folder(ws: Workspace | Callable[[], Workspace], text: str) -> Path:
    """The folder a bot argument names (as ``resolve``) without reading an ad hoc folder's manifest:
    ``hexarena check`` reports a broken one as a failed check."""
    folder = _folder_form(text)
    return folder if folder is not None else resolve(ws, text).folder


def _folder_form(text: str) -> Path | None:
    """The folder a bot argument names, or None for a registered bot (a bot's name never has a '/')."""
    return Path(text) if Path(text).is_dir() or "/" in text else None


def _resolved(ws: Workspace, version, verify: bool = True) -> ResolvedBot:
    manifest = Manifest.model_validate_json(version["manifest"])
    folder = verify_snapshot(ws, version["bot"], version["hash"]) if verify else snapshot_folder(ws, version["hash"])
    return ResolvedBot(version["bot"], version["hash"], folder, manifest)
