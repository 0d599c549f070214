"""The leagues floor's errors: its branches of the one tree (drawn whole in ``protocol/errors.py``).

    HexarenaError
     ├── ConfigError
     │    ├── UploadRefused     an uploaded archive refused before anything was written (413 when too large)
     │    └── NameTaken         the bot's name belongs to another author (403)
     ├── ExecutorLost           what plays a league's games (a cluster's scheduler) is gone; a rerun resumes
     ├── WorkspaceBusy          another process held the workspace database's write lock past the wait
     └── SnapshotMismatch       a bot a cluster worker fetched lacks the content hash its task named
"""

from __future__ import annotations

from hexarena.protocol.errors import ConfigError, HexarenaError

# what a league stopped before its end keeps, as every one-line message about it says
RERUN = "the finished games are stored, and running the same command again plays the rest"


class SnapshotMismatch(HexarenaError):
    """A bot snapshot fetched from the driver does not have the content hash the task named."""


class ExecutorLost(HexarenaError):
    """An executor lost what plays its games (a cluster's scheduler): one line; the games stored so far are kept."""


class WorkspaceBusy(HexarenaError):
    """Another process held the workspace database's write lock for longer than ``home.BUSY_SECONDS``: the change
    was not made (one line; the server answers 503)."""


class UploadRefused(ConfigError):
    """An archive refused before anything was written. ``too_large``: over a size or count cap (HTTP 413)."""

    def __init__(self, message: str, *, too_large: bool = False) -> None:
        super().__init__(message)
        self.too_large = too_large


class NameTaken(ConfigError):
    """The bot's name belongs to another author (the server answers 403)."""
