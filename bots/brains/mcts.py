"""The Mcts brain: UCT Monte-Carlo tree search with greedy playouts, until its time is used.

The exact solver takes over near the end (two players, ``endgame``), the chain rules when the
time allows too few playouts to trust.
"""

from __future__ import annotations

import gc
import math
import random
import time

from hexarena.bots.brains.chains import heuristic
from hexarena.bots.brains.endgame import SOLVE_FREE, Endgame
from hexarena.bots.brains.lines import capturable_lines, effect
from hexarena.protocol.rules import Rules, State

MIN_VISITS = 8  # playouts per candidate line below which MCTS trusts the chain rules instead


class Node:
    __slots__ = ("children", "drawn", "scores", "seat", "totals", "untried", "visits")

    def __init__(self, drawn: int, scores: tuple, seat: int, moves: list[int]) -> None:
        self.drawn, self.scores, self.seat = drawn, scores, seat
        self.untried = moves
        self.children: dict[int, Node] = {}
        self.visits = 0
        self.totals = [0.0] * len(scores)


class Mcts:
    """UCT over the rules engine; playouts capture when they can and avoid offering cells."""

    def __init__(self, exploration: float = 0.8, solve: bool = True) -> None:
        self.exploration = exploration
        self.endgame = Endgame(SOLVE_FREE if solve else 0)

    def __call__(self, state: State, rng: random.Random, seconds: float) -> int:
        moves = state.legal_moves()
        if len(moves) == 1:
            return moves[0]
        deadline = time.monotonic() + seconds
        best = self.endgame.best(state, deadline - seconds / 2)
        if best:
            return rng.choice(best)
        collecting = gc.isenabled()
        gc.disable()  # the tree holds no cycles; a full collection would only pause the clock
        try:
            return self._search(state, rng, deadline)
        finally:
            if collecting:
                gc.enable()

    def _search(self, state: State, rng: random.Random, deadline: float) -> int:
        root = Node(state.drawn, state.scores, state.to_move, candidates(state.rules, state.drawn))
        if len(root.untried) == 1:
            return root.untried[0]
        rng.shuffle(root.untried)
        while True:
            self._iterate(state, root, rng)
            if time.monotonic() >= deadline:
                break
        if root.visits < MIN_VISITS * (len(root.children) + len(root.untried)):
            return heuristic(state, rng)  # too little time for the statistics to mean anything
        best = max(root.children.items(), key=lambda item: (item[1].visits, rng.random()))
        return best[0]

    def _iterate(self, state: State, root: Node, rng: random.Random) -> None:
        path = [root]
        node = root
        log = math.log
        while not node.untried and node.children:
            parent_log = log(node.visits)
            seat = node.seat
            node = max(
                node.children.values(),
                key=lambda child: child.totals[seat] / child.visits
                + self.exploration * math.sqrt(parent_log / child.visits),
            )
            path.append(node)
        if node.untried:
            line = node.untried.pop()
            drawn, scores, seat = advance(state, node.drawn, list(node.scores), node.seat, line)
            child = Node(drawn, tuple(scores), seat, candidates(state.rules, drawn))
            rng.shuffle(child.untried)
            node.children[line] = child
            node = child
            path.append(node)
        rewards = rewards_of(state, playout(state, node.drawn, list(node.scores), node.seat, rng))
        for visited in path:
            visited.visits += 1
            totals = visited.totals
            for seat, reward in enumerate(rewards):
                totals[seat] += reward


def candidates(rules: Rules, drawn: int) -> list[int]:
    """The lines worth a tree node: one border line per cell (they are the same move), and

    normal play: a capture that offers nothing back alone, else captures and safe lines
    while safe lines last; misère: lines that close nothing while there are any.
    """
    seen_cells = set()
    lines = []
    for line in free_lines(rules, drawn):
        cells = rules.touches[line]
        if len(cells) == 1:
            if cells[0][0] in seen_cells:
                continue
            seen_cells.add(cells[0][0])
        lines.append(line)
    facts = {line: effect(rules, drawn, line) for line in lines}
    if rules.options.misere:
        quiet = [line for line in lines if not facts[line][0]]
        return quiet or lines
    for line in lines:
        if facts[line][0] and not facts[line][1]:
            return [line]
    calm = [line for line in lines if facts[line][0] or not facts[line][1]]
    return calm if any(not facts[line][0] for line in calm) else lines


def free_lines(rules: Rules, drawn: int) -> list[int]:
    return [line for line in range(len(rules.board.lines)) if not drawn >> line & 1]


def advance(state: State, drawn: int, scores: list[int], seat: int, line: int) -> tuple[int, list[int], int]:
    """Draw ``line`` for ``seat``: the new lines, scores (updated in place) and seat to move."""
    drawn |= 1 << line
    closed = sum(1 for _, mask in state.rules.touches[line] if drawn & mask == mask)
    if closed:
        scores[seat] += closed
        return drawn, scores, seat
    return drawn, scores, state.rules.after[state.forfeited << 2 | seat] & 3


def playout(state: State, drawn: int, scores: list[int], seat: int, rng: random.Random) -> list[int]:
    """Play to the end: capture when possible (normal play), else a line offering nothing, else any.

    The lines that capture are kept on a stack as they appear (a cell left one side short stays so until
    that side is drawn), rather than found by looking at every cell before each move.
    """
    rules = state.rules
    touches, after = rules.touches, rules.after
    forfeited = state.forfeited << 2
    misere = rules.options.misere
    free = free_lines(rules, drawn)
    captures = [] if misere else capturable_lines(rules, drawn)
    draw = rng.random
    while free:
        line = -1
        while captures:
            line = captures.pop()
            if not drawn >> line & 1:
                break
            line = -1  # drawn meanwhile: it closed the cell on its other side
        if line < 0:
            count = len(free)
            for _ in range(6):
                line = free[int(draw() * count)]
                left = ~(drawn | 1 << line)
                for _, mask in touches[line]:
                    short = mask & left
                    if not short & (short - 1):  # this line would leave the cell one side short (or close it)
                        break
                else:
                    break
        free.remove(line)
        drawn |= 1 << line
        closed = 0
        for _, mask in touches[line]:
            short = mask & ~drawn
            if not short:
                closed += 1
            elif not misere and not short & (short - 1):
                captures.append(short.bit_length() - 1)
        if closed:
            scores[seat] += closed
        else:
            seat = after[forfeited | seat] & 3
    return scores


def rewards_of(state: State, scores: list[int]) -> list[float]:
    """Per seat: 1 for a sole first place down to 0 for last, ties sharing, plus a little for the margin."""
    misere = state.rules.options.misere
    active = state.active_seats
    cells = max(1, len(state.rules.cell_masks))
    rewards = []
    players = max(2, len(active))
    for seat, mine in enumerate(scores):
        if seat not in active:
            rewards.append(0.0)
            continue
        better = sum(1 for s in active if (scores[s] < mine if misere else scores[s] > mine))
        tied = sum(1 for s in active if scores[s] == mine) - 1
        place = better + tied / 2
        share = mine / cells
        rewards.append(0.9 * (1 - place / (players - 1)) + 0.1 * ((1 - share) if misere else share))
    return rewards
