"""Registering a bot: ``submit`` turns a bot folder into a new version of the registry, or says why not.

    submit(ws, folder)      manifest → copy the folder (hashing it) → build the copy → check the copy
                            → move it to ws.registry_dir/<hash>/ and record bot + version in ONE transaction
    submitted(ws, result)   the one line saying what an accepted submit did (the CLI prints it, the server answers it)
    ensure_reference_bots   the reference bots (``bots/``) submitted once per workspace
    remove_stale_staging    the staging copies of submits killed midway, removed

The copy, not the author's folder, is built, checked and run from then on: what its content hash covers and
what the copy keeps is ``hexarena.leagues.registry.snapshot``'s. A folder whose hash is the bot's latest version
registers nothing (``unchanged``; a retired bot becomes active again); a return to an earlier version reuses
that version's built and checked snapshot. The copy is made in a staging folder
(``ws.registry_dir/.staging-<pid>-<random>``), then moved to its snapshot's own path before the build (a
per-hash lock, ``HOME/locks/snapshot-<hash>.lock``, makes concurrent submits of one content take turns), built
there, frozen, and checked there: the check sees the very path, modes and environment its games will, so a
bot cannot behave for its check alone (docs/security.md). A build whose folder then holds more than
``max_snapshot_bytes`` is refused with the figure. A failed build or check registers nothing and removes the
folder (status ``rejected``, with the reason, the build log and the check's items). The hash of what the
snapshot holds, build outputs included, is kept (``registry_meta``, key ``built:<hash>``;
``hexarena.leagues.registry.catalog.verify_snapshot`` checks it before every run).

Who may submit a name is ``hexarena.leagues.registry.reference``'s rule, checked before the copy and again
inside the transaction (concurrent submits take turns there: ``BEGIN IMMEDIATE``).

This module writes the registry's rows (tables bots, bot_versions, registry_meta); reading them is
``hexarena.leagues.registry.catalog``'s. Their layout and its migrations are in ``hexarena.leagues.workspace.schema``.
"""

from __future__ import annotations

import contextlib
import fcntl
import getpass
import json
import os
import shutil
import tempfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from hexarena.leagues.workspace.home import Workspace
from hexarena.protocol.errors import ConfigError, HexarenaError, OutOfSpace, is_out_of_space
from hexarena.referee.build import BUILD_TIMEOUT, build, forget
from hexarena.referee.errors import BuildFailed
from hexarena.referee import sandbox
from hexarena.referee.manifest import Manifest, load_manifest
from hexarena.leagues.registry.catalog import bot_history, checks_of, latest_row, snapshot_folder, utc_now, version_row
from hexarena.leagues.registry.reference import REFERENCE_AUTHOR, REPO_BOTS, reference_names
from hexarena.leagues.registry.snapshot import (MAX_BOT_BYTES, MAX_SNAPSHOT_BYTES, SHORT_HASH, copy_and_hash, folder_bytes,
                                                freeze, megabytes, thaw, tree_hash)
from hexarena.leagues.workspace.files import remove_stale
from hexarena.leagues.errors import NameTaken

AUTHOR_FROM = "--author, by default your user name"  # where a local submit's author comes from

if TYPE_CHECKING:
    from hexarena.referee.check import CheckItem
    from hexarena.referee.clock import TimeControl


@dataclass(frozen=True)
class SubmitResult:
    """What ``submit`` did. status: registered (new bot), new_version, unchanged, reactivated, rejected."""

    status: str
    name: str
    version_hash: str
    folder: Path | None  # the snapshot; None when rejected
    checks: list[CheckItem]
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
    removed = remove_stale(ws.registry_dir, ".staging-")
    for folder in ws.registry_dir.iterdir():  # built or checked at its own path when its submit was killed
        if not folder.name.startswith(".") and folder.is_dir() and version_row(ws, folder.name) is None:
            with snapshot_lock(ws, folder.name, wait=False) as held:
                if held and version_row(ws, folder.name) is None:
                    _remove(folder)
                    removed.append(folder)
    return removed


@contextlib.contextmanager
def snapshot_lock(ws: Workspace, digest: str, wait: bool = True) -> Iterator[bool]:
    """The lock of version ``digest``'s snapshot folder while a submit builds and checks it there (a ``flock``:
    released however its process ends). Yields whether it is held (``wait=False``: False if another has it)."""
    ws.locks_dir.mkdir(exist_ok=True)
    fd = os.open(ws.locks_dir / f"snapshot-{digest}.lock", os.O_RDWR | os.O_CREAT, 0o644)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | (0 if wait else fcntl.LOCK_NB))
        except BlockingIOError:
            yield False
            return
        yield True
    finally:
        os.close(fd)


def _remove(folder: Path) -> None:
    """A snapshot folder not registered (a rejected build or check, a killed submit's), and its build's outcome."""
    forget(folder)
    with contextlib.suppress(OSError):
        thaw(folder)
    shutil.rmtree(folder, ignore_errors=True)


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
    sandboxed: bool = True,
    max_snapshot_bytes: int = MAX_SNAPSHOT_BYTES,
    time_control: TimeControl | None = None,
    time_source: str = "",
    author_from: str = AUTHOR_FROM,
) -> SubmitResult:
    """Register the bot in ``folder`` (see the module docstring for the steps) for ``author`` (default: the OS
    user; for a reference bot's own folder in ``bots/``, ``REFERENCE_AUTHOR``).

    Bad input (manifest, name clash, unreadable folder, symlink leading outside, too big) raises
    ConfigError and changes nothing. A failed build or check returns status "rejected" with the reason.
    ``check=False`` skips the conformance check (recorded as such); used for reference bots only.
    ``progress`` hears about the slow steps (build, check) before they start. ``source``: where it came from,
    as ``bots show`` lists it (default: the folder's path; the server says "upload by AUTHOR").
    ``sandboxed=False``: the build and the check run unconfined (the organiser's --no-sandbox).
    ``max_snapshot_bytes``: what the folder may hold after its build (rejected with the figure beyond it).
    ``time_control``: the check's (default: ``referee.check.CHECK_TIME``), e.g. the strictest of the leagues the
    bot will enter, which ``time_source`` names in the progress and in a refusal ("league club's 200ms").
    ``author_from``: where ``author`` came from, as a name taken by another author says it (the server: the token).
    """
    folder = Path(folder)
    manifest = load_manifest(folder)
    author = author or (REFERENCE_AUTHOR if folder.resolve().is_relative_to(REPO_BOTS) else getpass.getuser())
    _check_owner(ws, manifest.name, author, author_from)
    remove_stale_staging(ws)
    try:
        staging = Path(tempfile.mkdtemp(prefix=f".staging-{os.getpid()}-", dir=ws.registry_dir))
    except OSError as exc:
        raise OutOfSpace(ws.registry_dir) if is_out_of_space(exc) else exc from None
    staging.chmod(0o755)
    try:
        digest = copy_and_hash(folder, staging, max_bytes=max_bytes, sources_only=True)
        latest = latest_row(ws, manifest.name)
        if latest is not None and latest["hash"] == digest:
            return _unchanged(ws, latest)
        with snapshot_lock(ws, digest):
            earlier = version_row(ws, digest)
            if earlier is not None:  # back to an earlier version: its snapshot was built and checked already
                return _store(ws, manifest, author, digest, None, checks_of(earlier), earlier["build_log"],
                              source or str(folder.resolve()), author_from)
            final = snapshot_folder(ws, digest)
            if final.exists():  # a killed submit's (the lock is ours: no live one's)
                _remove(final)
            staging.rename(final)  # built and checked where its games will run it
            stored = None
            try:
                if manifest.build:
                    progress(f"building {manifest.name}: {' '.join(manifest.build)}")
                build_log = _build(manifest, final, build_timeout, sandboxed)  # the check and the games reuse it
                _bound_size(final, max_snapshot_bytes)
                freeze(final)  # as its games will see it
                if check:
                    at = f" at {time_source}" if time_source else ""
                    progress(f"checking {manifest.name}{at} (hexarena check: a dozen crafted games)")
                    checks = run_check(final, sandboxed, time_control, time_source)
                else:
                    checks = skipped_check()
                stored = _store(ws, manifest, author, digest, final, checks, build_log,
                                source or str(folder.resolve()), author_from)
                return stored
            except _Rejected as rejected:
                return SubmitResult("rejected", manifest.name, digest, None, rejected.checks,
                                    rejected.build_log, rejected.reason)
            finally:
                if stored is None or stored.folder != final:
                    _remove(final)
    except OSError as exc:  # copying the folder: the staging copy goes, nothing is registered
        if is_out_of_space(exc):
            raise OutOfSpace(ws.registry_dir) from None
        raise
    finally:
        shutil.rmtree(staging, ignore_errors=True)


def _check_owner(ws: Workspace, name: str, author: str, author_from: str = AUTHOR_FROM) -> None:
    """ConfigError unless ``author`` may submit ``name``: its first submitter, or the reference author for bots/'s names."""
    row = ws.db.execute("SELECT author FROM bots WHERE name = ?", (name,)).fetchone()
    owner = REFERENCE_AUTHOR if name in reference_names() else row["author"] if row is not None else author
    if owner != author:
        raise NameTaken(f"bot name {name!r} is taken by author {owner!r} (you submit as {author!r}: "
                        f"{author_from}); choose another name")


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
    return SubmitResult(status, latest["bot"], latest["hash"], snapshot_folder(ws, latest["hash"]), checks_of(latest),
                        latest["build_log"])


def _store(ws: Workspace, manifest: Manifest, author: str, digest: str, built: Path | None, checks: list,
           build_log: str, source: str, author_from: str) -> SubmitResult:
    """Record the version, ``built`` and checked at its snapshot's path (None: the snapshot exists already)."""
    final = snapshot_folder(ws, digest)
    stamp = utc_now()
    with ws.transaction() as db:  # BEGIN IMMEDIATE: concurrent submits (and seedings) take turns from here
        # again, inside the lock: another submit may have taken it meanwhile
        _check_owner(ws, manifest.name, author, author_from)
        latest = latest_row(ws, manifest.name)
        if latest is not None and latest["hash"] == digest:  # a concurrent submit of the same content won
            return _unchanged(ws, latest, db)
        status = "registered" if db.execute(
            "INSERT INTO bots (name, author, created) VALUES (?, ?, ?) ON CONFLICT (name) DO NOTHING",
            (manifest.name, author, stamp)).rowcount else "new_version"
        db.execute("UPDATE bots SET retired = NULL WHERE name = ?", (manifest.name,))
        appended = db.execute(  # UNIQUE (bot, follows), schema 2: one chain of versions per bot
            "INSERT INTO bot_versions (hash, bot, submitted, manifest, checks, build_log, source, follows)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (bot, follows) DO NOTHING",
            (digest, manifest.name, stamp, manifest.model_dump_json(), json.dumps(checks), build_log,
             source, latest["id"] if latest is not None else 0))
        if not appended.rowcount:
            raise ConfigError(f"bot {manifest.name!r}: another submit changed its versions meanwhile; submit again")
        if built is not None:
            freeze(final)  # again: the check ran the bot in it
            db.execute("INSERT OR REPLACE INTO registry_meta (key, value) VALUES (?, ?)",
                       (f"built:{digest}", tree_hash(final)))
    return SubmitResult(status, manifest.name, digest, final, checks, build_log)


def _build(manifest: Manifest, folder: Path, timeout: float, sandboxed: bool = True) -> str:
    """The build (``hexarena.referee.build``: once per folder and process) as the registry reports it: its log, or _Rejected."""
    try:
        return build(folder, manifest, timeout=timeout, sandboxed=sandboxed)
    except BuildFailed as failed:
        raise _Rejected(failed.detail, failed.log) from None


def _bound_size(folder: Path, limit: int) -> None:
    """_Rejected if the built folder holds more than ``limit`` bytes of files."""
    size = folder_bytes(folder, limit)
    if size > limit:
        raise _Rejected(f"the build left at least {size / 2**20:.1f} MB in the bot's folder, over the limit of "
                        f"{megabytes(limit)} for a built bot; keep build outputs smaller")


def run_check(folder: Path, sandboxed: bool = True, time_control: TimeControl | None = None,
              time_source: str = "") -> list[CheckItem]:
    """The conformance check (``hexarena check``) on the built copy, at ``time_control`` (default: the check's own);
    raise _Rejected if it fails, naming ``time_source`` when it is given."""
    from hexarena.referee.check import check_bot  # the referee's machinery: imported when a check runs

    at = f" (checked at {time_source})" if time_source else ""
    try:
        report = check_bot(folder, sandboxed=sandboxed, **({"time_control": time_control} if time_control else {}))
    except HexarenaError as exc:
        raise _Rejected(f"conformance check failed: {exc}{at}") from None
    checks = list(report.items)
    if not report.passed:
        failed = [f"{name}: {reason}" for name, passed, reason in checks if not passed]
        raise _Rejected("conformance check failed: " + "; ".join(failed or ["see the check report"]) + at,
                        checks=checks)
    return checks


def skipped_check() -> list[CheckItem]:
    """The check items of a submit with ``check=False``: one, passed, saying so."""
    from hexarena.referee.check import CheckItem

    return [CheckItem("conformance check", True, "skipped (reference bot)")]


# ---------------------------------------------------------------- reference bots


def ensure_reference_bots(ws: Workspace, bots_dir: Path = REPO_BOTS, *, check: bool = False,
                          sandboxed: bool = True) -> list[SubmitResult]:
    """Submit every reference bot (``bots/*/bot.toml``) the first time a workspace is used; later calls do nothing.
    Their builds (cbot: make) run in the sandbox unless ``sandboxed`` is False (the organiser's --no-sandbox).

    A reference bot whose manifest, build or check fails is reported in the results and skipped, never fatal; so is
    one whose program is not installed here (nodebot without ``node``): registered, it would lose every game.
    """
    if ws.db.execute("SELECT 1 FROM registry_meta WHERE key = 'reference_bots'").fetchone():
        return []
    results = []
    for folder in sorted(p for p in bots_dir.glob("*") if (p / "bot.toml").is_file()):
        if (program := _program_missing(folder, sandboxed)) is not None:
            results.append(SubmitResult("rejected", folder.name, "", None, [], reason=(
                f"its program {program!r} is not installed here (once it is: hexarena submit {folder})")))
            continue
        try:
            results.append(submit(ws, folder, check=check, author=REFERENCE_AUTHOR, sandboxed=sandboxed))
        except HexarenaError as exc:
            results.append(SubmitResult("rejected", folder.name, "", None, [], reason=str(exc)))
    with ws.transaction() as db:
        db.execute("INSERT OR REPLACE INTO registry_meta (key, value) VALUES ('reference_bots', ?)", (utc_now(),))
    return results


def _program_missing(folder: Path, sandboxed: bool) -> str | None:
    """The program a bot's command runs from the PATH (``node``, ``python3``) when the bot would not find it
    (``sandbox.program``); None when it would, or the command runs a file of the bot's own (``./cbot``, made by
    its build), or the manifest is broken (``submit`` says why)."""
    try:
        name = load_manifest(folder).command[0]
    except ConfigError:
        return None
    return name if "/" not in name and sandbox.program(name, sandboxed) is None else None
