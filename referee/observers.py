"""Telling an observer (``GameObserver``, a league's ``stored``): its failure is logged and never raised.

    failed = tell(observer, "moved", game_id, ply, seat, line, ms, what="game g1", then="the game plays on")

Every place that calls an observer goes through ``tell``: the game loop (``referee/game.py``, once per
game: it passes ``quiet`` after a first failure), the process pool forwarding a worker's events
(``referee/pool.py``) and the league runner after a record is stored. An observer's bug must not decide a
game, stop a pool or a league.
"""

from __future__ import annotations

import logging
from typing import Any

log = logging.getLogger("hexarena.referee.observers")


def tell(observer: Any, event: str, *args: Any, what: str = "", then: str = "the games play on",
         logger: logging.Logger = log, quiet: bool = False) -> bool:
    """``observer.<event>(*args)``; True if it raised. The exception is logged on ``logger`` as
    ``WHAT: the observer failed on 'EVENT' (THEN)`` with its traceback (unless ``quiet``), never raised."""
    try:
        getattr(observer, event)(*args)
    except Exception:  # an observer's bug must not stop the games
        if not quiet:
            logger.exception("%sthe observer failed on %r (%s)", f"{what}: " if what else "", event, then)
        return True
    return False
