"""The endgame: a brain's use of the exact solver (two players), and how far out it is worth trying."""

from __future__ import annotations

import math
import time

from hexarena.bots.brains.solver import Solver, compiled
from hexarena.bots.errors import SolverTimeout
from hexarena.protocol.rules import State

SOLVE_FREE = 22  # the solver is tried from this many free lines down (2x3 hexagons, 27 lines, take ~4 s)
TABLE_LIMIT = 2_000_000  # transposition-table entries a bot's solver may keep between moves


class Endgame:
    """A bot's exact solver (two players): one per board, its table kept between moves.

    Tried only from ``max_free`` free lines down (None: as many as the time allows, see
    ``solvable_free``), and after a timeout only once two more lines are drawn, so a
    hopeless position costs one try, not every move.
    """

    def __init__(self, max_free: int | None = SOLVE_FREE) -> None:
        self.max_free = max_free
        self.solvers: dict[int, Solver] = {}
        self.unsolved_at = 10**9
        self.last_free = 0

    def best(self, state: State, deadline: float) -> tuple[int, ...]:
        """Every best line, or ``()`` (more than two players, too many lines, or out of time)."""
        free = state.free_count()
        if free > self.last_free:  # a new game
            self.unsolved_at = 10**9
        self.last_free = free
        seconds = deadline - time.monotonic()
        too_many = free > (solvable_free(seconds) if self.max_free is None else self.max_free)
        if len(state.scores) != 2 or state.forfeited or too_many or free >= self.unsolved_at:
            return ()
        solver = self.solvers.get(id(state.rules))
        if solver is None or solver.rules is not state.rules:
            solver = self.solvers[id(state.rules)] = Solver(state.rules)
        solver.forget(TABLE_LIMIT)
        try:
            return solver.solve(state, deadline).best
        except SolverTimeout:
            self.unsolved_at = free - 2
            return ()


def solvable_free(seconds: float) -> int:
    """Free lines the solver may finish in ``seconds``.

    Measured on hexagons 3x3 in the middle of games: the C search takes a median
    0.2 s at 25 free lines and about 1.9 times longer per line more; the pure-Python
    search (1xN and 2x3: 1.6 times per line, 150-270 thousand nodes a second)
    finishes 22 in 0.25 s.
    """
    if compiled():
        return max(SOLVE_FREE, 25 + math.floor(1.1 * math.log2(max(1e-3, seconds) / 0.25)))
    return SOLVE_FREE + int(2 * math.log2(max(1.0, seconds / 0.25)))
