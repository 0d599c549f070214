"""The bots floor's errors, drawn in the product's tree in ``protocol/errors.py``: ``CheckpointRefused`` is a
``ConfigError`` (a ``hexarena solve --checkpoint`` file that cannot be resumed); ``SolverTimeout`` is no
``HexarenaError`` but the solver's own signal that its deadline passed, caught by its callers (a brain falls
back to its heuristic; ``hexarena solve --timeout`` says it gave up).
"""

from __future__ import annotations

from hexarena.protocol.errors import ConfigError


class SolverTimeout(Exception):
    """The solver ran past its deadline."""


class CheckpointRefused(ConfigError):
    """A solver checkpoint file that cannot be resumed (damaged, truncated, another position or format);
    the message is one line naming the file and what is wrong. The file is left as it is."""
