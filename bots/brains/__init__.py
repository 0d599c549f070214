"""Bot brains: pure move choosers on the rules engine (no I/O, no sockets).

Every brain is a function ``(state, rng, seconds) -> line``: the position, a seeded
``random.Random`` and the time it may spend on this move. ``bot_choose`` puts one behind
``hexarena.protocol.client.run_bot``, the referee's clock (``TURN left_ms limit_ms``) setting its time.

    chains   cell-counting rules: free captures, the long-chain rule's double-dealing,
             smallest sacrifice first; the exact solver once few lines are left (2 players)
    mcts     UCT Monte-Carlo tree search with greedy playouts, until its time is used;
             the exact solver (with half the time) once few lines are left (2 players);
             the chain rules when the time allows too few playouts to trust
    perfect  the exact solver from as far out as its clock allows, the chain rules until then
             (``mcts`` with three or four players)

With three or four players the brains play the same way, without double-dealing
(handing two cells to the next seat keeps no "control" over the others) and without the
solver (it is two-player). Under misère they avoid closing cells while they can, and the
solver and MCTS play misère exactly as the rules score it.

The modules, each using only those above it:

    _solvecore.c   the solver's search in C (Solver._search line for line), built by pip where it can
    solver.py      the exact solver (two players): a position's value and every best line
    lines.py       line facts: the cells a line closes or offers, what a greedy taker gets
    budget.py      thinking time: move_budget (seconds from the clock), is_critical
    endgame.py     Endgame, a brain's solver kept between moves; solvable_free, how far out to try it
    chains.py      the chain rules (heuristic, chain_move, misere_move) and the Chains brain
    mcts.py        the Mcts brain: tree, candidate lines, playouts, rewards
    perfect.py     the Perfect brain and its own share of the bank
    __init__.py    BRAINS by name, bot_choose and think_time (a brain's seconds for one move)
"""

from __future__ import annotations

import random
from collections.abc import Callable

from hexarena.bots.brains.budget import is_critical, move_budget
from hexarena.bots.brains.chains import Chains
from hexarena.bots.brains.mcts import Mcts
from hexarena.bots.brains.perfect import Perfect
from hexarena.protocol.rules import State

Brain = Callable[[State, random.Random, float], int]

BRAINS: dict[str, Callable[[], Brain]] = {"chains": Chains, "mcts": Mcts, "perfect": Perfect}


def bot_choose(brain: Brain) -> Callable[..., int]:
    """A ``hexarena.protocol.client.run_bot`` chooser around a brain: the clock of the last TURN sets its time."""

    def choose(game, state: State) -> int:
        clock, spec = game.clock, game.message.time
        seconds = think_time(brain, state, clock and clock.left_ms, clock and clock.limit_ms,
                             spec.move_ms is not None, spec.increment_ms)
        return brain(state, game.rng, seconds)

    return choose


def think_time(brain: Brain, state: State, left_ms: int | None, limit_ms: int | None, per_move: bool,
               increment_ms: int) -> float:
    """The seconds ``brain`` may spend on this move: ``move_budget``, or perfect's own share of its bank."""
    if isinstance(brain, Perfect):
        return brain.budget(state, left_ms, limit_ms, per_move, increment_ms)
    return move_budget(left_ms, limit_ms, state.free_count(), len(state.active_seats), is_critical(state),
                       per_move, increment_ms)
