"""The solver's exact method for positions that fit in memory: retrograde analysis, no search.

Every position reachable from the one asked about gets its value, one byte each, in one pass from the last
position back to the first (``bots/brains/_retrograde.c``'s ``solve``): no table to fill, no move order, no rule,
so misère costs what normal play does. A position is the set of free internal lines drawn (lines between two
cells) and, per cell, how many of its free border lines are drawn: a cell's border lines are sides of that cell
only, so which of them are drawn changes nothing (a reduction proven with the others, ``bots/brains/proof.py``).

    plan = Plan.of(state)           # plan.positions, plan.bytes: what the pass needs
    solution = solve(state, watch)  # Solution: value, future, best lines, positions as nodes, seconds

Hexagons 4x4 with border (33 internal lines, no border line free): 2**33 positions, 8 GiB; hexagons 3x3 (16
internal lines, 22 border lines over 8 cells): 1.9 G positions, of which the pass keeps a ring of the last 5,761
blocks of 2**16 (360 MiB). Boards whose ring does not fit are left to the search.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

from hexarena.bots.brains.solver import Solution
from hexarena.protocol.rules import State

try:
    from hexarena.bots.brains import _retrograde
except ImportError:  # no C compiler when hexarena was installed: the search alone
    _retrograde = None

WATCH_EVERY = 1 << 22  # positions between two calls of ``watch``: a few tenths of a second
MAX_POSITIONS = 1 << 40  # the C pass's limit: past it a pass would take days


def available() -> bool:
    """Whether the C pass is installed."""
    return _retrograde is not None and hasattr(_retrograde, "solve")


@dataclass(frozen=True)
class Plan:
    """The pass a position needs: its free internal lines, and per cell with a free line, (its free internal lines
    as numbers among those, its free border lines)."""

    internal: tuple[int, ...]
    cells: tuple[tuple[tuple[int, ...], tuple[int, ...]], ...]

    @classmethod
    def of(cls, state: State) -> Plan:
        board = state.rules.board
        owners = board.line_cells()
        drawn = state.drawn
        free = [line for line in range(len(board.lines)) if not drawn >> line & 1]
        internal = tuple(line for line in free if len(owners[line]) == 2)
        number = {line: j for j, line in enumerate(internal)}
        cells = []
        for cell in board.cells:
            inner = tuple(number[line] for line in cell if line in number)
            border = tuple(line for line in cell if not drawn >> line & 1 and len(owners[line]) == 1)
            if inner or border:
                cells.append((inner, border))
        cells.sort(key=lambda cell: len(cell[1]))  # the most border lines last: the smallest ring (``bytes``)
        return cls(internal, tuple(cells))

    @property
    def positions(self) -> int:
        count = 1 << len(self.internal)
        for _, border in self.cells:
            count *= len(border) + 1
        return count

    @property
    def bytes(self) -> int:
        """The memory the pass takes: one byte per position of the blocks it still reads. A block (one count of
        drawn border lines per cell, every subset of the internal lines) is read only by the blocks at most the
        last cell's radix below it, so the pass keeps a ring of that many blocks plus one."""
        radix, ring = 1, 1
        for _, border in self.cells:
            if border:
                ring = radix + 1
            radix *= len(border) + 1
        return ring << len(self.internal)


def solve(state: State, watch: Callable[[int], None] | None = None) -> Solution:
    """The exact value of a two-player ``state`` and all its best lines. ``watch(positions done)`` is called every
    ``WATCH_EVERY`` positions; what it raises (and a Ctrl-C) stops the pass. MemoryError where the positions do
    not fit."""
    if len(state.scores) != 2:
        raise ValueError("the solver handles two players only")
    started = time.monotonic()
    plan = Plan.of(state)
    misere = state.rules.options.misere
    cells = [(inner, len(border)) for inner, border in plan.cells]
    objective, internal_moves, border_moves = _retrograde.solve(len(plan.internal), cells, misere, watch,
                                                                WATCH_EVERY)
    best = [line for line, value in zip(plan.internal, internal_moves, strict=True) if value == objective]
    for (_, border), value in zip(plan.cells, border_moves, strict=True):
        if value == objective:
            best.extend(border)  # interchangeable: each of them keeps the value
    future = objective * (-1 if misere else 1)
    value = state.scores[0] - state.scores[1] + (future if state.to_move == 0 else -future)
    return Solution(value, future, tuple(sorted(best)), plan.positions, time.monotonic() - started)
