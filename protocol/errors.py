"""The hexarena error tree, drawn whole here; each floor defines its own branches in its own ``errors.py``.
The referee raises only for its own bugs; a bot's fault is a result.

    HexarenaError                                  (protocol/errors.py, as are the five below it)
     ├── ConfigError      a bad CLI argument, league file, manifest or board size (one-line message, exit 2)
     │    ├── BoardError        a board size or geometry outside what hexarena plays       (protocol/errors.py)
     │    ├── SandboxMissing    no sandbox can be made here and --no-sandbox was not given  (referee/errors.py)
     │    ├── CheckpointRefused a hexarena solve --checkpoint file that cannot be resumed   (bots/errors.py)
     │    ├── UploadRefused     an uploaded archive refused before anything was written     (leagues/errors.py)
     │    └── NameTaken         the bot's name belongs to another author                    (leagues/errors.py)
     ├── ProtocolError    a message that breaks the protocol grammar (protocol/PROTOCOL.md)
     ├── RulesError       a move the rules forbid
     │    └── IllegalMove       a line out of range or already drawn                         (protocol/errors.py)
     ├── OutOfSpace       a write failed for want of disk space (exit status 1: rerun once space is freed)
     ├── BotFault         a bot misbehaved; carries the termination reason for the game record
     │    └── BuildFailed       a bot's build could not start, failed or hung: no_connection (referee/errors.py)
     ├── WorkerLost       a referee worker process ended without being asked               (referee/errors.py)
     ├── ExecutorLost     what plays a league's games (a cluster's scheduler) is gone      (leagues/errors.py)
     ├── WorkspaceBusy    another process kept the workspace database locked               (leagues/errors.py)
     └── SnapshotMismatch a bot fetched by a cluster worker lacks the hash the task named  (leagues/errors.py)

    SolverTimeout (not a HexarenaError: the solver's own signal that its deadline passed)  (bots/errors.py)
"""


class HexarenaError(Exception):
    """Root of every error hexarena raises on purpose."""


class ConfigError(HexarenaError, ValueError):
    """Bad user input: the message names what is wrong and what is allowed."""


class ProtocolError(HexarenaError, ValueError):
    """A message that does not follow the protocol."""


class RulesError(HexarenaError, ValueError):
    """A move the rules do not allow."""


class OutOfSpace(HexarenaError):
    """A write under ``path`` failed because its file system is full; the message names the free space."""

    def __init__(self, path: object) -> None:
        self.path = path
        super().__init__(f"out of space writing {path} ({_free(path)} free there): nothing was half-written; "
                         "free some space, then run the same command again")


def is_out_of_space(exc: BaseException) -> bool:
    """An OSError of a full disk or quota, or SQLite's "database or disk is full"."""
    import errno

    if isinstance(exc, OSError):
        return exc.errno in (errno.ENOSPC, errno.EDQUOT)
    return getattr(exc, "sqlite_errorname", None) == "SQLITE_FULL" or "database or disk is full" in str(exc)


def _free(path: object) -> str:
    import os
    import shutil

    where = os.path.abspath(str(path))
    while not os.path.exists(where) and os.path.dirname(where) != where:
        where = os.path.dirname(where)
    try:
        free = shutil.disk_usage(where).free
    except OSError:
        return "unknown space"
    for unit in ("bytes", "KiB", "MiB", "GiB"):
        if free < 1024 or unit == "GiB":
            return f"{free:,} bytes" if unit == "bytes" else f"{free:.1f} {unit}"
        free /= 1024
    return ""


class BotFault(HexarenaError):
    """A bot broke the rules of the match; ``reason`` is a termination reason of the game record."""

    def __init__(self, reason: str, detail: str = "") -> None:
        super().__init__(f"{reason}: {detail}" if detail else reason)
        self.reason = reason
        self.detail = detail


class BoardError(ConfigError):
    """A board size or geometry outside what hexarena plays."""


class IllegalMove(RulesError):
    """A line that is out of range or already drawn."""
