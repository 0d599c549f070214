"""The referee floor's errors, in the one tree (``protocol/errors.py`` has its root and draws it too):

    HexarenaError                                  (protocol/errors.py, as are the five below it)
     ├── ConfigError      a bad CLI argument, league file, manifest or board size (one-line message, exit 2)
     │    ├── BoardError        a board size or geometry outside what hexarena plays       (protocol/errors.py)
     │    ├── SandboxMissing    no sandbox can be made here and --no-sandbox was not given  (referee/errors.py)
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
     └── SnapshotMismatch a bot fetched by a cluster worker lacks the hash the task named  (leagues/errors.py)

    SolverTimeout (not a HexarenaError: the solver's own signal that its deadline passed)  (bots/errors.py)
"""

from __future__ import annotations

from hexarena.protocol.errors import BotFault, ConfigError, HexarenaError


class WorkerLost(HexarenaError):
    """A referee worker process ended without being asked (killed, out of memory): one line."""


class BuildFailed(BotFault):
    """A bot's build could not start, failed or hung: a ``no_connection`` fault; ``log`` is its output's tail."""

    def __init__(self, detail: str, log: str = "") -> None:
        super().__init__("no_connection", detail)
        self.log = log


class SandboxMissing(ConfigError):
    """No sandbox can be made on this machine and the organiser did not pass --no-sandbox."""
