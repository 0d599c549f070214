"""TODO docstring: part of the former hexarena.leagues.registry.submit."""

from __future__ import annotations

import hashlib
import io
import os
import re
import stat
import tarfile
import tempfile
from pathlib import Path

from hexarena.leagues.registry.gitignore import read_gitignore
from hexarena.protocol.errors import ConfigError

MAX_BOT_BYTES = 50 * 1024 * 1024  # default size limit of a submitted folder
IGNORED_DIRS = frozenset({".git", ".hg", ".svn", "__pycache__", ".mypy_cache", ".pytest_cache", ".ruff_cache"})
EDITOR_FILES = re.compile(r".*~|\..*\.sw[a-p]|#.*#|\.DS_Store")  # backups and swap files: never a bot's sources
ALWAYS_SOURCES = frozenset({"bot.toml", ".gitignore"})  # whatever the .gitignore lists: the bot is not the bot without them


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
                raise ConfigError(f"{folder}: bot folder is larger than the limit of {megabytes(max_bytes)} "
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


def freeze(folder: Path) -> None:
    """Nobody may write the snapshot: every file and folder loses its write bits (exec bits stay: they are content)."""
    for rel in walk(folder)[::-1] + [""]:
        path = folder / rel
        if not path.is_symlink():
            path.chmod(path.stat().st_mode & ~0o222)


def thaw(folder: Path) -> None:
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


def megabytes(count: int) -> str:
    return f"{count / 2**20:g} MB" if count >= 2**20 else f"{count:,} bytes"


def pack_snapshot(folder: Path) -> tuple[str, bytes]:
    """(content hash, tar of exactly the bytes hashed): the registry's ``copy_and_hash`` into a scratch copy."""
    with tempfile.TemporaryDirectory(prefix="hexarena-pack-") as scratch:
        copy = Path(scratch) / "bot"
        copy.mkdir()
        digest = copy_and_hash(Path(folder), copy)
        buffer = io.BytesIO()
        with tarfile.open(fileobj=buffer, mode="w:gz") as tar:
            tar.add(copy, arcname=".")
        return digest, buffer.getvalue()


SHORT_HASH = 10  # hash prefix shown to users
