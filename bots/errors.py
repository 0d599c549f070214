"""The bots floor's errors. The product's tree is drawn whole in ``protocol/errors.py``; the one exception here
is not in it: ``SolverTimeout`` is the solver's own signal that its deadline passed, caught by its callers (a
brain falls back to its heuristic; ``hexarena solve --timeout`` says it gave up).
"""

from __future__ import annotations


class SolverTimeout(Exception):
    """The solver ran past its deadline."""
