"""The bots floor's errors. The product's tree is drawn whole in ``protocol/errors.py``; the one exception here
is not in it: ``SolverTimeout`` is the solver's own signal that its deadline passed, caught by its callers (a
brain falls back to its heuristic; ``hexarena solve --timeout`` says it gave up). ``CheckpointRefused`` is a
``ConfigError``: a ``hexarena solve --checkpoint`` file that cannot be resumed.
"""

from __future__ import annotations

from hexarena.protocol.errors import ConfigError


class SolverTimeout(Exception):
    """The solver ran past its deadline."""


class CheckpointRefused(ConfigError):
    """A solver checkpoint file that cannot be resumed (damaged, truncated, another position or format);
    the message is one line naming the file and what is wrong. The file is left as it is."""
