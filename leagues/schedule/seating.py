"""Seat orders: who sits where at a table, so that who plays after whom varies too, not only who starts.

    seat_orders(2)             (0, 1), (1, 0): the seats swapped
    seat_orders(3)             all 6 permutations: the 3 rotations first, then the 3 of the reversed order
    seat_orders(4)             all 24: the balanced Latin square (``WILLIAMS_4``) first, then the other 20
    seat_orders(4, games=8)    ``WILLIAMS_4`` alone: when fewer than a multiple of 24 games, or ``balanced``

An order is a tuple of positions in the table's base list: order (1, 2, 0, 3) seats the table's
second bot first. ``WILLIAMS_4`` (a Williams design) puts each bot in each seat once, each bot
directly before each other bot once, and each bot earlier than each other bot in two of the four.
A prefix of ``seat_orders(k)`` of its first k rows is a Latin square (each bot in each seat once).
"""

from __future__ import annotations

import itertools
from functools import cache

WILLIAMS_4 = ((0, 1, 3, 2), (1, 2, 0, 3), (2, 3, 1, 0), (3, 0, 2, 1))
CYCLE = {2: 2, 3: 6, 4: 4}  # the fewest games that play a table in balanced seat orders


@cache
def seat_orders(players: int, games: int | None = None, balanced: bool = False) -> tuple[tuple[int, ...], ...]:
    """The seat orders a table plays in turn (module docstring)."""
    if players == 4 and (balanced or (games is not None and games % 24)):
        return WILLIAMS_4
    if players == 4:
        first = WILLIAMS_4
    else:
        first = tuple(tuple((seat + shift) % players for seat in range(players)) for shift in range(players))
    return first + tuple(p for p in itertools.permutations(range(players)) if p not in first)


def seated(table: list, order: tuple[int, ...]) -> list:
    """The table's bots in the seats of ``order``."""
    return [table[position] for position in order]
