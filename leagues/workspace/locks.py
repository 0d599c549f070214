"""One runner per league: an OS-level lock per league per workspace.

    with league_lock(ws, "demo"):       # ConfigError naming the holder's pid if another process runs it
        ...

The lock is ``fcntl.flock`` on ``HOME/locks/<league>.lock`` (``ws.locks_dir``), whose content is the holder's pid (for
the error message only: the flock is the lock). The kernel releases a flock when its process dies
however it dies, SIGKILL included, so a killed runner never leaves a league locked; the file stays
and is simply locked again by the next runner. Locks are advisory and per open file: a second
``league_lock`` of the same league in the same process is refused too.
"""

from __future__ import annotations

import fcntl
import os
from collections.abc import Iterator
from contextlib import contextmanager

from hexarena.leagues.workspace.home import Workspace
from hexarena.protocol.errors import ConfigError


@contextmanager
def league_lock(ws: Workspace, league: str) -> Iterator[None]:
    """Hold the league's lock for the block; ConfigError at once if another runner holds it."""
    folder = ws.locks_dir
    path = folder / f"{league}.lock"
    try:
        folder.mkdir(exist_ok=True)
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    except OSError as exc:
        raise ConfigError(f"{path}: cannot create the league's lock file: {exc.strerror}") from None
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = os.pread(fd, 32, 0).decode(errors="replace").strip() or "unknown"
            raise ConfigError(f"league {league} is already running in workspace {ws.home} (pid {holder}); "
                              "wait for it to end or stop it, then run again to resume") from None
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
        try:
            yield
        finally:
            os.ftruncate(fd, 0)
            fcntl.flock(fd, fcntl.LOCK_UN)
    finally:
        os.close(fd)
