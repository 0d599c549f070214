"""The hexarena error tree. The referee raises only for its own bugs; a bot's fault is a result.

    HexarenaError
     ├── ConfigError      a bad CLI argument, league file, manifest or board size (one-line message)
     ├── ProtocolError    a message that breaks the protocol grammar (protocol/PROTOCOL.md)
     ├── RulesError       a move the rules forbid (out of range, already drawn)
     └── BotFault         a bot misbehaved; carries the termination reason for the game record
"""


class HexarenaError(Exception):
    """Root of every error hexarena raises on purpose."""


class ConfigError(HexarenaError, ValueError):
    """Bad user input: the message names what is wrong and what is allowed."""


class ProtocolError(HexarenaError, ValueError):
    """A message that does not follow the protocol."""


class RulesError(HexarenaError, ValueError):
    """A move the rules do not allow."""


class BotFault(HexarenaError):
    """A bot broke the rules of the match; ``reason`` is a termination reason of the game record."""

    def __init__(self, reason: str, detail: str = "") -> None:
        super().__init__(f"{reason}: {detail}" if detail else reason)
        self.reason = reason
        self.detail = detail
