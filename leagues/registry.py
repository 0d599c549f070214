"""The bot registry: exact, versioned snapshots of submitted bot folders.

    submit(ws, folder)      manifest → copy the folder (hashing it) → build the copy → check the copy
                            → move it to ws.registry_dir/<hash>/ and record bot + version in ONE transaction
    resolve(ws, text)       "greedy" (latest version), "greedy@1a2b" (hash prefix ≥ 4), or a folder path:
                            every bot argument (CLI, league files) is read here
    active_bots(ws)         every registered bot that is not retired, at its latest version
    list_bots, bot_history, retire, ensure_reference_bots

What the content hash covers: every regular file, directory and symlink under the folder,
in sorted order of relative path, each with its kind, its path, its exec bit and its bytes (a
symlink: its target, relative to itself). Left out, because they are caches or an editor's rather
than the bot: directories named in ``IGNORED_DIRS`` and ``*.pyc`` files. Left out of a submitted
folder's hash AND of its copy: editor files (``EDITOR_FILES``) and what the folder's own ``.gitignore``
lists (``leagues.gitignore``; never ``ALWAYS_SOURCES``), its build outputs: the build makes them again in the
copy, so a folder built in place (``make`` run there, or ``hexarena match`` on it) hashes as it did
before its build, and the reference bots hash the same from the repository (an editable install, where
``bots/cbot/cbot`` may lie) as from a ``pip install .`` (which ships the ``.gitignore`` files too).
Why ``.gitignore``: it is the list of build outputs authors already keep, and hexarena cannot tell
outputs from sources otherwise. ``bot.toml`` is content too, so the bot's name and author are in the hash.

The copy, not the author's folder, is built, checked and run from then on. A symlink is kept only
if it leads inside the folder; a special file (socket, FIFO, device) is refused. Once built, the
snapshot is made read-only (files and folders) and the hash of what it then holds, build outputs
included, is kept (``registry_meta``, key ``built:<hash>``); every ``resolve`` and ``active_bots``
hashes the snapshot again and refuses a changed one (ConfigError naming it: the match or league
does not start, since a rewritten registry means a breach the organiser must look at).

A name has one owner: the author who first submitted it (``submit(..., author=)``: the organiser's
``--author``, by default the OS user), never the manifest's ``author`` field, which is informational.
The reference bots' names (``bots/``) belong to ``REFERENCE_AUTHOR``.

This module owns the registry's rows (tables bots, bot_versions, registry_meta) and every SQL statement
on them; their layout and its migrations are in ``leagues.schema``, made when the workspace opens.
"""

from __future__ import annotations

import getpass
import hashlib
import json
import os
import re
import shutil
import stat
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from pathlib import Path

from leagues.gitignore import read_gitignore
from leagues.workspace import Workspace
from protocol.errors import ConfigError, HexarenaError, OutOfSpace, is_out_of_space
from referee.build import BUILD_TIMEOUT, BuildFailed, build, moved
from referee.manifest import Manifest, load_manifest

MAX_BOT_BYTES = 50 * 1024 * 1024  # default size limit of a submitted folder
MIN_PREFIX = 4  # shortest hash prefix accepted in name@prefix
SHORT_HASH = 10  # hash prefix shown to users
IGNORED_DIRS = frozenset({".git", ".hg", ".svn", "__pycache__", ".mypy_cache", ".pytest_cache", ".ruff_cache"})
EDITOR_FILES = re.compile(r".*~|\..*\.sw[a-p]|#.*#|\.DS_Store")  # backups and swap files: never a bot's sources
ALWAYS_SOURCES = frozenset({"bot.toml", ".gitignore"})  # whatever the .gitignore lists: the bot is not the bot without them
REPO_BOTS = Path(__file__).resolve().parent.parent / "bots"  # the reference bots shipped with hexarena
REFERENCE_AUTHOR = "hexarena"  # owns the reference bots' names


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


@dataclass(frozen=True)
class SubmitResult:
    """What ``submit`` did. status: registered (new bot), new_version, unchanged, reactivated, rejected."""

    status: str
    name: str
    version_hash: str
    folder: Path | None  # the snapshot; None when rejected
    checks: list[tuple[str, bool, str]]
    build_log: str = ""
    reason: str = ""  # why it was rejected

    @property
    def accepted(self) -> bool:
        return self.status != "rejected"

    @property
    def label(self) -> str:
        """``name@hashprefix``: the version as commands and pages show it."""
        return f"{self.name}@{self.version_hash[:SHORT_HASH]}"


def submitted(ws: Workspace, result: SubmitResult) -> str:
    """The one line saying what an accepted submit did (the CLI prints it, the server answers it)."""
    versions = len(bot_history(ws, result.name))
    return {
        "registered": f"registered {result.label}: a new bot",
        "new_version": f"registered {result.label}: submission {versions} of {result.name}",
        "unchanged": f"unchanged: {result.label} is already the latest version; nothing registered",
        "reactivated": f"reactivated {result.label}: the bot was retired and takes part in leagues again",
    }[result.status]


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
    checks: list[tuple[str, bool, str]]
    build_log: str
    source: str


class NameTaken(ConfigError):
    """The bot's name belongs to another author (the server answers 403)."""


class _Rejected(Exception):
    """The build or the check failed: the bot is not registered, ``reason`` says why."""

    def __init__(self, reason: str, build_log: str = "", checks: list | None = None) -> None:
        super().__init__(reason)
        self.reason, self.build_log, self.checks = reason, build_log, checks or []


# ---------------------------------------------------------------- submitting


def remove_stale_staging(ws: Workspace) -> list[Path]:
    """Delete the staging copies of submits whose process is gone (SIGKILL mid-submit); returns them.

    A staging folder is named ``.staging-<pid>-<random>``; one whose process still runs is another
    submit in progress and is left alone.
    """
    removed = []
    for folder in ws.registry_dir.glob(".staging-*"):
        pid = folder.name.split("-")[1]
        if pid.isdigit() and int(pid) != os.getpid() and not _alive(int(pid)):
            shutil.rmtree(folder, ignore_errors=True)
            removed.append(folder)
    return removed


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's process
        return True
    return True


def submit(
    ws: Workspace,
    folder: str | Path,
    *,
    max_bytes: int = MAX_BOT_BYTES,
    build_timeout: float = BUILD_TIMEOUT,
    check: bool = True,
    progress: Callable[[str], None] = lambda step: None,
    author: str | None = None,
    source: str | None = None,
) -> SubmitResult:
    """Register the bot in ``folder`` (see the module docstring for the steps) for ``author`` (default: the OS
    user; for a reference bot's own folder in ``bots/``, ``REFERENCE_AUTHOR``).

    Bad input (manifest, name clash, unreadable folder, symlink leading outside, too big) raises
    ConfigError and changes nothing. A failed build or check returns status "rejected" with the reason.
    ``check=False`` skips the conformance check (recorded as such); used for reference bots only.
    ``progress`` hears about the slow steps (build, check) before they start. ``source``: where it came from,
    as ``bots show`` lists it (default: the folder's path; the server says "upload by AUTHOR").
    """
    folder = Path(folder)
    manifest = load_manifest(folder)
    author = author or (REFERENCE_AUTHOR if folder.resolve().is_relative_to(REPO_BOTS) else getpass.getuser())
    _check_owner(ws, manifest.name, author)
    remove_stale_staging(ws)
    try:
        staging = Path(tempfile.mkdtemp(prefix=f".staging-{os.getpid()}-", dir=ws.registry_dir))
    except OSError as exc:
        raise OutOfSpace(ws.registry_dir) if is_out_of_space(exc) else exc from None
    staging.chmod(0o755)
    try:
        digest = copy_and_hash(folder, staging, max_bytes=max_bytes, sources_only=True)
        latest = _latest_row(ws, manifest.name)
        if latest is not None and latest["hash"] == digest:
            return _unchanged(ws, latest)
        earlier = _version_row(ws, digest)
        if earlier is not None:  # back to an earlier version: its snapshot was built and checked already
            return _store(ws, manifest, author, digest, None, _checks_of(earlier), earlier["build_log"],
                          source or str(folder.resolve()))
        try:
            if manifest.build:
                progress(f"building {manifest.name}: {' '.join(manifest.build)}")
            build_log = _build(manifest, staging, build_timeout)  # the check and the games reuse this build
            if check:
                progress(f"checking {manifest.name} (hexarena check: a dozen crafted games)")
            checks = run_check(staging) if check else [("conformance check", True, "skipped (reference bot)")]
        except _Rejected as rejected:
            return SubmitResult("rejected", manifest.name, digest, None, rejected.checks,
                                rejected.build_log, rejected.reason)
        return _store(ws, manifest, author, digest, staging, checks, build_log, source or str(folder.resolve()))
    except OSError as exc:  # copying the folder: the staging copy goes, nothing is registered
        if is_out_of_space(exc):
            raise OutOfSpace(ws.registry_dir) from None
        raise
    finally:
        shutil.rmtree(staging, ignore_errors=True)


def _check_owner(ws: Workspace, name: str, author: str) -> None:
    """ConfigError unless ``author`` may submit ``name``: its first submitter, or the reference author for bots/'s names."""
    row = ws.db.execute("SELECT author FROM bots WHERE name = ?", (name,)).fetchone()
    owner = REFERENCE_AUTHOR if name in reference_names() else row["author"] if row is not None else author
    if owner != author:
        raise NameTaken(f"bot name {name!r} is taken by author {owner!r} (you submit as {author!r}: "
                          "--author, by default your user name); choose another name")


_reference_names: frozenset[str] | None = None


def reference_names() -> frozenset[str]:
    """The reference bots' names (``bots/*/bot.toml``), owned by ``REFERENCE_AUTHOR``."""
    global _reference_names
    if _reference_names is None:
        names = set()
        for folder in REPO_BOTS.glob("*/bot.toml"):
            try:
                names.add(load_manifest(folder.parent).name)
            except ConfigError:
                names.add(folder.parent.name)
        _reference_names = frozenset(names)
    return _reference_names


def _unchanged(ws: Workspace, latest, db=None) -> SubmitResult:
    """The latest version again: nothing changes, except that a retired bot becomes active again.
    ``db``: the connection when called inside a transaction already."""
    status = "unchanged"
    if ws.db.execute("SELECT retired FROM bots WHERE name = ?", (latest["bot"],)).fetchone()["retired"]:
        if db is not None:
            db.execute("UPDATE bots SET retired = NULL WHERE name = ?", (latest["bot"],))
        else:
            with ws.transaction() as db:
                db.execute("UPDATE bots SET retired = NULL WHERE name = ?", (latest["bot"],))
        status = "reactivated"
    return SubmitResult(status, latest["bot"], latest["hash"], _snapshot(ws, latest["hash"]), _checks_of(latest),
                        latest["build_log"])


def _store(ws: Workspace, manifest: Manifest, author: str, digest: str, staging: Path | None, checks: list,
           build_log: str, source: str) -> SubmitResult:
    """Record the version and move the built copy (None: the snapshot exists already) into place, atomically."""
    final = _snapshot(ws, digest)
    now = _now()
    with ws.transaction() as db:  # BEGIN IMMEDIATE: concurrent submits (and seedings) take turns from here
        _check_owner(ws, manifest.name, author)  # again, inside the lock: another submit may have taken it meanwhile
        latest = _latest_row(ws, manifest.name)
        if latest is not None and latest["hash"] == digest:  # a concurrent submit of the same content won
            return _unchanged(ws, latest, db)
        status = "registered" if db.execute(
            "INSERT INTO bots (name, author, created) VALUES (?, ?, ?) ON CONFLICT (name) DO NOTHING",
            (manifest.name, author, now)).rowcount else "new_version"
        db.execute("UPDATE bots SET retired = NULL WHERE name = ?", (manifest.name,))
        appended = db.execute(  # UNIQUE (bot, follows), schema 2: one chain of versions per bot
            "INSERT INTO bot_versions (hash, bot, submitted, manifest, checks, build_log, source, follows)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (bot, follows) DO NOTHING",
            (digest, manifest.name, now, manifest.model_dump_json(), json.dumps(checks), build_log,
             source, latest["id"] if latest is not None else 0))
        if not appended.rowcount:
            raise ConfigError(f"bot {manifest.name!r}: another submit changed its versions meanwhile; submit again")
        if staging is not None:
            if final.exists():  # left over from a submit that died between the move and the commit
                _thaw(final)
                shutil.rmtree(final)
            staging.rename(final)
            moved(staging, final)  # built already: games in this process do not build it again
            _freeze(final)
            db.execute("INSERT OR REPLACE INTO registry_meta (key, value) VALUES (?, ?)",
                       (f"built:{digest}", tree_hash(final)))
    return SubmitResult(status, manifest.name, digest, final, checks, build_log)


def source_hash(folder: Path) -> str:
    """The content hash a submit of ``folder`` registers (its build outputs left out), copying nothing."""
    return copy_and_hash(folder, None, max_bytes=2**62, sources_only=True)


def tree_hash(folder: Path) -> str:
    """The content hash of a folder as it is (a snapshot, build outputs included), copying nothing."""
    return copy_and_hash(folder, None, max_bytes=2**62)


def copy_and_hash(folder: Path, dest: Path | None, *, max_bytes: int = MAX_BOT_BYTES, sources_only: bool = False) -> str:
    """Copy ``folder`` into the empty folder ``dest`` (None: copy nothing) and return the content hash of what was
    copied; ``sources_only``: without what the folder's ``.gitignore`` lists (its build outputs).

    Reading and hashing in one pass means the hash describes exactly the copy.
    Raises ConfigError for an unreadable entry, a symlink leading outside, a special file, or too many bytes.
    """
    root = folder.resolve()
    digest = hashlib.sha256()
    total = 0
    for rel in walk(root, sources_only):
        path = root / rel
        info = path.lstat()
        target = dest / rel if dest is not None else None
        if stat.S_ISLNK(info.st_mode):
            link = _inside_link(root, rel)
            digest.update(f"l\0{rel}\0{link}\0".encode())
            if dest is not None:
                target.symlink_to(link)
        elif stat.S_ISDIR(info.st_mode):
            digest.update(f"d\0{rel}\0".encode())
            if dest is not None:
                target.mkdir()
        elif stat.S_ISREG(info.st_mode):
            total += info.st_size
            if total > max_bytes:
                raise ConfigError(f"{folder}: bot folder is larger than the limit of {_megabytes(max_bytes)} "
                                  f"(at {rel}); leave out data and build outputs, or raise the limit")
            data = _read(path, folder / rel)
            executable = bool(info.st_mode & 0o111)
            digest.update(f"f\0{rel}\0{'x' if executable else '-'}\0{len(data)}\0".encode())
            digest.update(data)
            if dest is not None:
                target.write_bytes(data)
                target.chmod(0o755 if executable else 0o644)
        else:
            raise ConfigError(f"{folder / rel}: not a regular file, folder or symlink; remove it from the bot folder")
    return digest.hexdigest()


def _freeze(folder: Path) -> None:
    """Nobody may write the snapshot: every file and folder loses its write bits (exec bits stay: they are content)."""
    for rel in walk(folder)[::-1] + [""]:
        path = folder / rel
        if not path.is_symlink():
            path.chmod(path.stat().st_mode & ~0o222)


def _thaw(folder: Path) -> None:
    for rel in [""] + walk(folder):
        path = folder / rel
        if not path.is_symlink():
            path.chmod(path.stat().st_mode | 0o200)


def verify_snapshot(ws: Workspace, name: str, digest: str) -> Path:
    """The snapshot of version ``digest``, unchanged since it was registered; ConfigError naming it if not."""
    folder = _snapshot(ws, digest)
    shown = f"{name}@{digest[:SHORT_HASH]}"
    row = ws.db.execute("SELECT value FROM registry_meta WHERE key = ?", (f"built:{digest}",)).fetchone()
    try:
        found = tree_hash(folder)
    except ConfigError as exc:
        raise ConfigError(f"registry snapshot {shown} cannot be read ({exc}); it will not run") from None
    if row is None:  # registered before snapshots were frozen: its hash as it is now, from now on
        with ws.transaction() as db:
            db.execute("INSERT OR IGNORE INTO registry_meta (key, value) VALUES (?, ?)", (f"built:{digest}", found))
        _freeze(folder)
    elif row["value"] != found:
        raise ConfigError(f"registry snapshot {shown} ({folder}) was changed after it was registered "
                          "(its content hash differs); it will not run: submit the bot again")
    return folder


def walk(root: Path, sources_only: bool = False) -> list[str]:
    """Relative POSIX paths of every entry under root, sorted, without following symlinks; ``sources_only``:
    without editor files and what root's ``.gitignore`` lists (see the module docstring)."""
    listed = read_gitignore(root) if sources_only else None
    found: list[str] = []
    pending = [""]
    while pending:
        rel = pending.pop()
        try:
            entries = list(os.scandir(root / rel))
        except OSError as exc:
            raise ConfigError(f"{root / rel}: cannot read folder: {exc.strerror}") from None
        for entry in entries:
            child = f"{rel}/{entry.name}" if rel else entry.name
            folder = entry.is_dir(follow_symlinks=False)
            if entry.name in IGNORED_DIRS if folder else entry.name.endswith(".pyc"):
                continue
            if listed is not None and child not in ALWAYS_SOURCES and (
                    listed(child, folder) or not folder and EDITOR_FILES.fullmatch(entry.name)):
                continue
            if folder:
                pending.append(child)
            found.append(child)
    return sorted(found)


def _inside_link(root: Path, rel: str) -> str:
    """The target of the symlink ``root/rel``, relative to its folder; ConfigError if it leads outside root."""
    path = root / rel
    resolved = Path(os.path.realpath(path))
    if not resolved.is_relative_to(root):
        raise ConfigError(f"{path}: symlink leads outside the bot folder (to {os.readlink(path)}); "
                          "copy the file into the folder instead")
    return os.path.relpath(resolved, path.parent)


def _read(path: Path, shown: Path) -> bytes:
    try:
        return path.read_bytes()
    except OSError as exc:
        raise ConfigError(f"{shown}: cannot read: {exc.strerror}") from None


def _megabytes(count: int) -> str:
    return f"{count / 2**20:g} MB" if count >= 2**20 else f"{count:,} bytes"


def _build(manifest: Manifest, folder: Path, timeout: float) -> str:
    """The build (``referee.build``: once per folder and process) as the registry reports it: its log, or _Rejected."""
    try:
        return build(folder, manifest, timeout=timeout)
    except BuildFailed as failed:
        raise _Rejected(failed.detail, failed.log) from None


def run_check(folder: Path) -> list[tuple[str, bool, str]]:
    """The conformance check (``hexarena check``) on the built copy; raise _Rejected if it fails."""
    from referee.check import check_bot  # the check starts processes and sockets: import it only when used

    try:
        report = check_bot(folder)
    except HexarenaError as exc:
        raise _Rejected(f"conformance check failed: {exc}") from None
    checks = [(item.name, item.passed, item.reason) for item in report.items]
    if not report.passed:
        failed = [f"{name}: {reason}" for name, passed, reason in checks if not passed]
        raise _Rejected("conformance check failed: " + "; ".join(failed or ["see the check report"]), checks=checks)
    return checks


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
    _bot_row(ws, name)
    return next(info for info in list_bots(ws) if info.name == name)


def bot_history(ws: Workspace, name: str) -> list[VersionInfo]:
    """Every submission of a bot, oldest first (a return to earlier content appears again)."""
    _bot_row(ws, name)
    rows = ws.db.execute("SELECT * FROM bot_versions WHERE bot = ? ORDER BY id", (name,)).fetchall()
    return [VersionInfo(r["hash"], r["submitted"], Manifest.model_validate_json(r["manifest"]), _checks_of(r),
                        r["build_log"], r["source"]) for r in rows]


def retire(ws: Workspace, name: str) -> bool:
    """Take a bot out of future leagues (its versions and past games stay). False if it was already retired."""
    _bot_row(ws, name)
    with ws.transaction() as db:
        changed = db.execute("UPDATE bots SET retired = ? WHERE name = ? AND retired IS NULL", (_now(), name))
        return changed.rowcount == 1


def active_bots(ws: Workspace, verify: bool = True) -> list[ResolvedBot]:
    """Every bot that is not retired, at its latest version, by name ("all active bots" of a league).
    ``verify=False``: the versions only, their snapshots not checked (nothing will run them)."""
    names = [r["name"] for r in ws.db.execute("SELECT name FROM bots WHERE retired IS NULL ORDER BY name")]
    return [_resolved(ws, _latest_row(ws, name), verify) for name in names]


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
    row = _bot_row(ws, name)
    if not at:
        return _resolved(ws, _latest_row(ws, row["name"]), verify)
    if len(prefix) < MIN_PREFIX or any(c not in "0123456789abcdef" for c in prefix.lower()):
        raise ConfigError(f"{text!r}: a version is name@HASH with at least {MIN_PREFIX} hex digits of the hash")
    rows = ws.db.execute("SELECT * FROM bot_versions WHERE id IN (SELECT MAX(id) FROM bot_versions"
                         " WHERE bot = ? AND hash LIKE ? || '%' GROUP BY hash)", (name, prefix.lower())).fetchall()
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
    folder = verify_snapshot(ws, version["bot"], version["hash"]) if verify else _snapshot(ws, version["hash"])
    return ResolvedBot(version["bot"], version["hash"], folder, manifest)


def _snapshot(ws: Workspace, digest: str) -> Path:
    return (ws.registry_dir / digest).resolve()


def _bot_row(ws: Workspace, name: str):
    row = ws.db.execute("SELECT * FROM bots WHERE name = ?", (name,)).fetchone()
    if row is None:
        names = [r["name"] for r in ws.db.execute("SELECT name FROM bots ORDER BY name LIMIT 9")]
        known = ", ".join(names[:8]) + (", ..." if len(names) > 8 else "") if names else "none yet"
        raise ConfigError(f"unknown bot {name!r}: no registered bot or folder by that name (registered: {known})")
    return row


def _latest_row(ws: Workspace, name: str):
    return ws.db.execute("SELECT * FROM bot_versions WHERE bot = ? ORDER BY id DESC LIMIT 1", (name,)).fetchone()


def _version_row(ws: Workspace, digest: str):
    return ws.db.execute("SELECT * FROM bot_versions WHERE hash = ? ORDER BY id DESC LIMIT 1", (digest,)).fetchone()


def _checks_of(version) -> list[tuple[str, bool, str]]:
    return [tuple(item) for item in json.loads(version["checks"])]


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="microseconds")


# ---------------------------------------------------------------- reference bots


def ensure_reference_bots(ws: Workspace, bots_dir: Path = REPO_BOTS, *, check: bool = False) -> list[SubmitResult]:
    """Submit every reference bot (``bots/*/bot.toml``) the first time a workspace is used; later calls do nothing.

    A reference bot whose manifest, build or check fails is reported in the results and skipped, never fatal.
    """
    if ws.db.execute("SELECT 1 FROM registry_meta WHERE key = 'reference_bots'").fetchone():
        return []
    results = []
    for folder in sorted(p for p in bots_dir.glob("*") if (p / "bot.toml").is_file()):
        try:
            results.append(submit(ws, folder, check=check, author=REFERENCE_AUTHOR))
        except HexarenaError as exc:
            results.append(SubmitResult("rejected", folder.name, "", None, [], reason=str(exc)))
    with ws.transaction() as db:
        db.execute("INSERT OR REPLACE INTO registry_meta (key, value) VALUES ('reference_bots', ?)", (_now(),))
    return results
