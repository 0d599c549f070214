"""The chain rules (instant): free captures, double-dealing, the smallest sacrifice; misère's quiet lines.

``Chains`` plays them until the exact solver takes over near the end (two players, ``endgame``).
"""

from __future__ import annotations

import random
import time

from hexarena.bots.brains.endgame import SOLVE_FREE, Endgame
from hexarena.bots.brains.lines import capturable_lines, effect, handout
from hexarena.protocol.rules import Rules, State


def heuristic(state: State, rng: random.Random, seconds: float = 0.0) -> int:
    """The chain rules alone (instant): ``chain_move``, or ``misere_move`` under misère."""
    return misere_move(state, rng) if state.rules.options.misere else chain_move(state, rng)


class Chains:
    """Rule-based play on chains of cells, with the exact solver near the end (2 players)."""

    def __init__(self) -> None:
        self.endgame = Endgame(SOLVE_FREE)

    def __call__(self, state: State, rng: random.Random, seconds: float) -> int:
        best = self.endgame.best(state, time.monotonic() + seconds)
        return rng.choice(best) if best else heuristic(state, rng)


def chain_move(state: State, rng: random.Random) -> int:
    """Normal play: take what is free, double-deal to keep control, else give away the least."""
    rules, drawn = state.rules, state.drawn
    moves = state.legal_moves()
    facts = {line: effect(rules, drawn, line) for line in moves}
    captures = [line for line in moves if facts[line][0]]
    for line in captures:
        if not facts[line][1]:
            return line  # a capture that offers nothing back: always right
    if captures:
        if len(state.active_seats) == 2:
            deal = double_deal(rules, drawn, captures)
            if deal is not None:
                return deal
        return captures[0]
    safe = [line for line in moves if facts[line] == (0, 0)]
    if safe:
        return rng.choice(safe)
    return smallest_sacrifice(rules, drawn, moves, rng)


def double_deal(rules: Rules, drawn: int, captures: list[int]) -> int | None:
    """The line that declines the last two cells of a chain, if keeping control pays.

    At a chain's last two cells (taking one makes the other capturable, and taking that
    one offers nothing), drawing the far cell's last line instead leaves both to be
    closed by one line: the opponent takes two cells and must then open the next chain.
    It pays when every sacrifice left afterwards gives away at least three cells.
    """
    for line in captures:
        after = drawn | 1 << line
        following = capturable_lines(rules, after)
        if len(following) != 1 or capturable_lines(rules, after | 1 << following[0]):
            continue
        far = following[0]
        if effect(rules, drawn, far)[0]:
            continue
        rest = after | 1 << far
        left = [line for line in range(len(rules.board.lines)) if not rest >> line & 1]
        if not left:
            return None
        if any(effect(rules, rest, other) == (0, 0) for other in left):
            return None  # safe lines remain: no chain fight yet, take the cells
        if min(handout(rules, rest | 1 << other) for other in left) >= 3:
            return far
        return None
    return None


def smallest_sacrifice(rules: Rules, drawn: int, moves: list[int], rng: random.Random) -> int:
    """The line that gives the fewest cells; among equals one that leaves no room to double-deal."""
    def cost(line: int) -> tuple[int, int, float]:
        after = drawn | 1 << line
        given = handout(rules, after)
        # cells capturable at once: a chain opened in its middle cannot be declined
        open_now = sum(1 for mask in rules.cell_masks if (mask & ~after).bit_count() == 1)
        return given, -open_now, rng.random()

    return min(moves, key=cost)


def misere_move(state: State, rng: random.Random) -> int:
    """Misère: never close a cell while another line is free; prefer lines that offer nothing."""
    rules, drawn = state.rules, state.drawn
    moves = state.legal_moves()
    facts = {line: effect(rules, drawn, line) for line in moves}
    quiet = [line for line in moves if not facts[line][0]]
    if not quiet:
        return min(moves, key=lambda line: (facts[line][0], rng.random()))
    safe = [line for line in quiet if not facts[line][1]]
    if safe:
        return rng.choice(safe)
    # every line offers cells: offer the most, the taker is stuck with them
    return max(quiet, key=lambda line: (handout(rules, drawn | 1 << line), rng.random()))
