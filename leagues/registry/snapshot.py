"""A bot folder as content: its content hash, its copy into the registry, the frozen snapshot, its archive.

    digest = copy_and_hash(folder, staging, sources_only=True)   # what ``submit`` registers: copy and hash, one pass
    source_hash(folder), tree_hash(snapshot)                      # the same hash, copying nothing
    freeze(snapshot), thaw(snapshot)                              # read-only once built (and back, to replace it)
    digest, data = pack_snapshot(folder)                          # the same content as a .tar.gz, and its hash

What the content hash covers: every regular file, directory and symlink under the folder,
in sorted order of relative path, each with its kind, its path, its exec bit and its bytes (a
symlink: its target, relative to itself). Left out, because they are caches or an editor's rather
than the bot: directories named in ``IGNORED_DIRS`` and ``*.pyc`` files. Left out of a submitted
folder's hash AND of its copy (``sources_only``): editor files (``EDITOR_FILES``) and what the folder's own
``.gitignore`` lists (``hexarena.leagues.registry.gitignore``; never ``ALWAYS_SOURCES``), its build outputs: the
build makes them again in the copy, so a folder built in place (``make`` run there, or ``hexarena match`` on it)
hashes as it did before its build, and the reference bots hash the same from the repository (an editable
install, where ``bots/cbot/cbot`` may lie) as from a ``pip install .`` (which ships the ``.gitignore`` files
too). Why ``.gitignore``: it is the list of build outputs authors already keep, and hexarena cannot tell
outputs from sources otherwise. ``bot.toml`` is content too, so the bot's name and author are in the hash.

A symlink is kept only if it leads inside the folder; a special file (socket, FIFO, device) is refused;
more than ``max_bytes`` of files is refused (each a ConfigError naming the entry). Reading and hashing are
one pass, so the hash describes exactly the bytes copied or packed. A snapshot, once built, is frozen
(files and folders lose their write bits); its ``tree_hash`` (build outputs included) is what
``hexarena.leagues.registry.catalog.verify_snapshot`` checks before it runs.

``pack_snapshot`` is the one archive of a bot: the sources a submit hashes (no build outputs, no editor
files), the content at the archive's top, no owners or times. ``hexarena submit --server`` uploads it
(``hexarena.leagues.registry.uploads.pack``: without symlinks, which an upload may not hold) and a Dask
league ships it to its workers, which unpack it, hash what they unpacked (``tree_hash``: nothing else is in
it) and refuse it unless that is the digest the driver named; the build runs again on the worker.

This module reads and writes folders only: no database, no workspace.
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import os
import re
import stat
import tarfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import NamedTuple

from hexarena.leagues.registry.gitignore import read_gitignore
from hexarena.protocol.errors import ConfigError

MAX_BOT_BYTES = 50 * 1024 * 1024  # default size limit of a submitted folder
MAX_SNAPSHOT_BYTES = 200 * 1024 * 1024  # default size limit of a folder after its build (the organiser's to change)
SHORT_HASH = 10  # hash prefix shown to users
IGNORED_DIRS = frozenset({".git", ".hg", ".svn", "__pycache__", ".mypy_cache", ".pytest_cache", ".ruff_cache"})
EDITOR_FILES = re.compile(r".*~|\..*\.sw[a-p]|#.*#|\.DS_Store")  # backups and swap files: never a bot's sources
ALWAYS_SOURCES = frozenset({"bot.toml", ".gitignore"})  # whatever the .gitignore lists: the bot is not the bot without them
UNLIMITED = 2**62  # max_bytes that is no limit


def source_hash(folder: Path) -> str:
    """The content hash a submit of ``folder`` registers (its build outputs left out), copying nothing."""
    return copy_and_hash(folder, None, max_bytes=UNLIMITED, sources_only=True)


def tree_hash(folder: Path) -> str:
    """The content hash of a folder as it is (a snapshot, build outputs included), copying nothing."""
    return copy_and_hash(folder, None, max_bytes=UNLIMITED)


class Entry(NamedTuple):
    """One entry of a bot folder as the hash reads it: kind ``d`` (folder), ``l`` (symlink: ``link`` its target,
    relative to its folder) or ``f`` (file: ``path`` to read it from, ``size`` its bytes' count)."""

    kind: str
    rel: str
    link: str = ""
    path: Path | None = None
    size: int = 0
    executable: bool = False


CHUNK = 1 << 20  # a file is hashed and copied a mebibyte at a time: never whole in memory


def copy_and_hash(folder: Path, dest: Path | None, *, max_bytes: int = MAX_BOT_BYTES, sources_only: bool = False) -> str:
    """Copy ``folder`` into the empty folder ``dest`` (None: copy nothing) and return the content hash of what was
    copied; ``sources_only``: without what the folder's ``.gitignore`` lists (its build outputs).

    Raises ConfigError for an unreadable entry, a symlink leading outside, a special file, or too many bytes.
    """
    digest = hashlib.sha256()
    for entry in entries(folder, max_bytes=max_bytes, sources_only=sources_only):
        if dest is None:
            _hash(digest, entry)
            continue
        target = dest / entry.rel
        if entry.kind == "l":
            target.symlink_to(entry.link)
        elif entry.kind == "d":
            target.mkdir()
        else:
            with open(target, "wb") as copy:
                _hash(digest, entry, copy.write)
            target.chmod(0o755 if entry.executable else 0o644)
            continue
        _hash(digest, entry)
    return digest.hexdigest()


def pack_snapshot(folder: Path, *, links: bool = True, max_bytes: int = MAX_BOT_BYTES) -> tuple[str, bytes]:
    """(content hash, ``.tar.gz``) of the sources a submit of ``folder`` hashes and keeps (see the module
    docstring); the hash is ``source_hash(folder)``, of exactly the bytes packed, and the archive unpacked
    anywhere has that ``tree_hash``. ``links=False``: a symlink is a ConfigError (an upload holds none)."""
    digest = hashlib.sha256()
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz", format=tarfile.PAX_FORMAT) as archive:
        for entry in entries(folder, max_bytes=max_bytes, sources_only=True):
            if entry.kind == "l" and not links:
                raise ConfigError(f"{folder / entry.rel}: a symlink; an upload holds regular files and folders only "
                                  "(copy the file into the folder)")
            data = io.BytesIO()
            _hash(digest, entry, data.write)
            member = tarfile.TarInfo(entry.rel)
            member.mode = 0o755 if entry.kind == "d" or entry.executable else 0o644
            if entry.kind == "d":
                member.type = tarfile.DIRTYPE
            elif entry.kind == "l":
                member.type, member.linkname, member.mode = tarfile.SYMTYPE, entry.link, 0o777
            else:
                member.size = entry.size
            data.seek(0)
            archive.addfile(member, data if entry.kind == "f" else None)
    return digest.hexdigest(), buffer.getvalue()


def entries(folder: Path, *, max_bytes: int = MAX_BOT_BYTES, sources_only: bool = False) -> Iterator[Entry]:
    """The entries of ``folder`` the content hash covers, in ``walk`` order, files read as they come (one at a
    time in memory); ConfigError for an unreadable entry, a symlink leading outside, a special file, or more than
    ``max_bytes`` of files."""
    root = folder.resolve()
    total = 0
    for rel in walk(root, sources_only):
        path = root / rel
        info = path.lstat()
        if stat.S_ISLNK(info.st_mode):
            yield Entry("l", rel, link=_inside_link(root, rel))
        elif stat.S_ISDIR(info.st_mode):
            yield Entry("d", rel)
        elif stat.S_ISREG(info.st_mode):
            total += info.st_size
            if total > max_bytes:
                raise ConfigError(f"{folder}: bot folder is larger than the limit of {megabytes(max_bytes)} "
                                  f"(at {rel}); leave out data and build outputs, or raise the limit")
            yield Entry("f", rel, path=path, size=info.st_size, executable=bool(info.st_mode & 0o111))
        else:
            raise ConfigError(f"{folder / rel}: not a regular file, folder or symlink; remove it from the bot folder")


def _hash(digest, entry: Entry, sink: Callable[[bytes], object] | None = None) -> None:
    """Add one entry to the content hash (the layout every registered hash has: never change it); a file's bytes
    are read a chunk at a time, each handed to ``sink`` too (the copy: exactly the bytes hashed)."""
    if entry.kind == "l":
        digest.update(f"l\0{entry.rel}\0{entry.link}\0".encode())
    elif entry.kind == "d":
        digest.update(f"d\0{entry.rel}\0".encode())
    else:
        digest.update(f"f\0{entry.rel}\0{'x' if entry.executable else '-'}\0{entry.size}\0".encode())
        left = entry.size
        try:
            file = open(entry.path, "rb")  # noqa: SIM115 -- closed below; a sink's OSError (a full disk) is not ours
        except OSError as exc:
            raise ConfigError(f"{entry.path}: cannot read: {exc.strerror}") from None
        with file:
            while chunk := _read_chunk(file, entry.path, min(CHUNK, left) if left else 1):
                left -= len(chunk)
                if left < 0:
                    break
                digest.update(chunk)
                if sink is not None:
                    sink(chunk)
        if left:
            raise ConfigError(f"{entry.path}: changed while it was read; submit again when nothing writes the folder")


def _read_chunk(file, path: Path, size: int) -> bytes:
    try:
        return file.read(size)
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read: {exc.strerror}") from None


def folder_bytes(folder: Path, stop_at: int = UNLIMITED) -> int:
    """The bytes of the regular files under ``folder`` (symlinks not followed), counted up to past ``stop_at``."""
    total = 0
    for root, folders, files in os.walk(folder):
        for name in files:
            with contextlib.suppress(OSError):
                info = os.lstat(os.path.join(root, name))
                if stat.S_ISREG(info.st_mode):
                    total += info.st_size
        if total > stop_at:
            break
    return total


def freeze(folder: Path) -> None:
    """Nobody may write the snapshot: every file and folder loses its write bits (exec bits stay: they are content)."""
    for rel in walk(folder)[::-1] + [""]:
        path = folder / rel
        if not path.is_symlink():
            path.chmod(path.stat().st_mode & ~0o222)


def thaw(folder: Path) -> None:
    """Give the snapshot's owner back the write bits ``freeze`` took (to remove or replace it)."""
    for rel in [""] + walk(folder):
        path = folder / rel
        if not path.is_symlink():
            path.chmod(path.stat().st_mode | 0o200)


def walk(root: Path, sources_only: bool = False) -> list[str]:
    """Relative POSIX paths of every entry under root, sorted, without following symlinks; ``sources_only``:
    without editor files and what root's ``.gitignore`` lists (see the module docstring)."""
    listed = read_gitignore(root) if sources_only else None
    found: list[str] = []
    pending = [""]
    while pending:
        rel = pending.pop()
        try:
            listing = list(os.scandir(root / rel))
        except OSError as exc:
            raise ConfigError(f"{root / rel}: cannot read folder: {exc.strerror}") from None
        for entry in listing:
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


def megabytes(count: int) -> str:
    """A size as limits are stated: ``50 MB``, or ``1,536 bytes`` below a megabyte."""
    return f"{count / 2**20:g} MB" if count >= 2**20 else f"{count:,} bytes"
