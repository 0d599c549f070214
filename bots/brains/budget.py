"""Thinking time: the seconds a brain may spend on one move, from the referee's clock.

``move_budget`` turns ``TURN left_ms limit_ms`` (a fixed limit per move, or a bank plus increment)
into seconds; ``is_critical`` spots the middle game's turning point, where it spends more.
"""

from __future__ import annotations

from hexarena.bots.brains.lines import effect
from hexarena.protocol.rules import State


def move_budget(left_ms: int | None, limit_ms: int | None, free: int, players: int, critical: bool = False,
                per_move: bool = True, increment_ms: int = 0, bank_share: float | None = None) -> float:
    """Seconds to think about one move: more in the critical phase, never the whole limit.

    A fixed limit per move (``per_move``) is used at 60 %, 80 % when ``critical``. A
    bank is shared over the moves this seat still expects (half the free lines over
    the players, at least 2), doubled when ``critical`` (or ``bank_share`` of it, for a
    brain that spends it on one decisive move), plus most of the increment.
    50 ms and 15 % of the limit always stay back for the round trip and Python's pauses.
    """
    if left_ms is None or limit_ms is None:
        return 0.5
    limit = min(left_ms, limit_ms) / 1000
    if per_move:
        share = limit * (0.8 if critical else 0.6)
    else:
        if bank_share is None:
            bank_share = (2 if critical else 1) / max(2.0, free / players / 2)
        share = left_ms / 1000 * bank_share + increment_ms / 1000 * 0.8
    return max(0.0, min(share, limit * 0.85 - 0.05))


def is_critical(state: State) -> bool:
    """The middle game's turning point: no capture on offer and few safe lines left."""
    rules, drawn = state.rules, state.drawn
    safe = sum(1 for line in state.legal_moves() if effect(rules, drawn, line) == (0, 0))
    return 0 < safe <= 4 * len(state.scores)
