"""The referee floor's errors: its branches of the one tree (drawn whole in ``protocol/errors.py``).

    HexarenaError
     ├── ConfigError
     │    └── SandboxMissing    no sandbox can be made here and --no-sandbox was not given
     ├── BotFault
     │    └── BuildFailed       a bot's build could not start, failed or hung: its game's no_connection
     └── WorkerLost             a referee worker process ended without being asked
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
