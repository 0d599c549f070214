"""Writing what a command produces (``--out`` files and folders) whole or not at all.

    check_out_file(path)        before any game is played: ConfigError unless ``path`` can become a regular file
    check_out_folder(path)      the same for a folder (a results site, written by hexarena.leagues.site.publish)
    with new_file(path) as tmp: write ``tmp`` (a sibling of path); moved onto path when the block ends

The temporary sibling is ``.<name>.tmp-<pid>``: on the same file system, so the move is a rename. A
block that raises removes it and leaves ``path`` as it was; a full disk is ``OutOfSpace`` naming ``path``.
One that a killed process left (SIGKILL, the OOM killer: its pid no longer runs) is removed by the next
``new_file`` of the same path (``remove_stale``).
A special file (``/dev/full``), a folder where a file is wanted, or a place no file can be created in
(``/proc/version``) is refused by the check, with a one-line ConfigError.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from hexarena.protocol.errors import ConfigError, OutOfSpace, is_out_of_space


def _sibling(path: Path) -> Path:
    return path.parent / f".{path.name}.tmp-{os.getpid()}"


def remove_stale(folder: Path, prefix: str) -> list[Path]:
    """Remove what processes that no longer run left in ``folder`` as ``<prefix><pid>`` or ``<prefix><pid>-...``
    (a temporary file or folder each was killed before removing); returns them. Those of running processes stay."""
    removed = []
    try:
        names = [entry.name for entry in os.scandir(folder) if entry.name.startswith(prefix)]
    except OSError:
        return removed
    for name in names:
        pid = name.removeprefix(prefix).split("-")[0]
        if not pid.isdigit() or pid_alive(int(pid)):
            continue
        stale = folder / name
        if stale.is_dir() and not stale.is_symlink():
            shutil.rmtree(stale, ignore_errors=True)
        else:
            stale.unlink(missing_ok=True)
        removed.append(stale)
    return removed


def remove_stale_temp(prefix: str, bases: tuple[str, ...] = ()) -> list[Path]:
    """``remove_stale`` in TMPDIR (or in each of ``bases``)."""
    return [stale for base in bases or (tempfile.gettempdir(),) for stale in remove_stale(Path(base), prefix)]


def pid_alive(pid: int) -> bool:
    """Whether a process of this pid exists (a lock holder's, a temporary file's or folder's maker)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's process
        return True
    return True


def check_out_file(path: Path, option: str = "--out") -> None:
    """ConfigError if ``path`` exists and is not a regular file, or no file can be created beside it."""
    if path.is_dir():
        raise ConfigError(f"{option} {path}: is a folder; give a file name")
    if path.exists() and not path.is_file():
        raise ConfigError(f"{option} {path}: not a regular file (a device, FIFO or socket); give a file name")
    _probe(path, option)


def check_out_folder(path: Path, option: str = "--out") -> None:
    """ConfigError if ``path`` exists and is not a folder, or nothing can be created beside it."""
    if "\0" in str(path):  # no system call takes it (a league name is part of publish's default folder)
        raise ConfigError(f"{option} {str(path)!r}: a folder path cannot hold a NUL character")
    if path.exists() and not path.is_dir():
        raise ConfigError(f"{option} {path}: exists and is not a folder; give a folder")
    _probe(path, option)
    if path.is_dir():  # its files are written beside it, then renamed into it: the same file system, writable
        if path.resolve() != path.resolve().parent and os.stat(path).st_dev != os.stat(path.resolve().parent).st_dev:
            raise ConfigError(f"{option} {path}: a file system of its own (a mount point, or a special folder like "
                              "/proc); the files are made beside it first: give a folder inside it")
        _probe(path / ".hexarena-probe", option)


def _probe(path: Path, option: str) -> None:
    probe = _sibling(path)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        probe.touch()
        probe.unlink()
    except OSError as exc:
        if is_out_of_space(exc):
            raise OutOfSpace(path) from None
        in_the_way = next((parent for parent in path.parents if parent.exists() and not parent.is_dir()), None)
        if in_the_way is not None:  # mkdir's "File exists" would not say which
            raise ConfigError(f"{option} {path}: {in_the_way} is not a folder") from None
        raise ConfigError(f"{option}: cannot write {path}: {exc.strerror}") from None


@contextmanager
def new_file(path: Path) -> Iterator[Path]:
    """A temporary sibling of ``path`` to write; renamed onto ``path`` if the block ends normally."""
    tmp = _sibling(path)
    remove_stale(path.parent, f".{path.name}.tmp-")
    try:
        yield tmp
        os.replace(tmp, path)
    except BaseException as exc:
        tmp.unlink(missing_ok=True)
        if is_out_of_space(exc):
            raise OutOfSpace(path) from None
        raise
