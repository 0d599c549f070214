"""The bots floor's errors. The whole tree (``protocol/errors.py`` has its root):

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


class SolverTimeout(Exception):
    """The solver ran past its deadline."""
