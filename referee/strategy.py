"""Bot brains: pure move choosers on the rules engine (no I/O, no sockets).

Every brain is a function ``(state, rng, seconds) -> line``: the position, a seeded
``random.Random`` and the time it may spend on this move. ``move_budget`` turns the
referee's clock (``TURN left_ms limit_ms``) into those seconds.

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
"""

from __future__ import annotations

import gc
import math
import random
import time
from collections.abc import Callable

from protocol.rules import Rules, State
from referee.solver import Solver, SolverTimeout, compiled

Brain = Callable[[State, random.Random, float], int]

SOLVE_FREE = 22  # the solver is tried from this many free lines down (2x3 hexagons, 27 lines, take ~4 s)
MIN_VISITS = 8  # playouts per candidate line below which MCTS trusts the chain rules instead
TABLE_LIMIT = 2_000_000  # transposition-table entries a bot's solver may keep between moves


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


# ---- line facts ---------------------------------------------------------------------------------

def effect(rules: Rules, drawn: int, line: int) -> tuple[int, int]:
    """(cells the line closes, cells it leaves one side short) for a free ``line``."""
    after = drawn | 1 << line
    closed = short = 0
    for _, mask in rules.touches[line]:
        left = mask & ~after
        if not left:
            closed += 1
        elif not left & (left - 1):
            short += 1
    return closed, short


def capturable_lines(rules: Rules, drawn: int) -> list[int]:
    """The last free line of every cell with one side left, sorted, without repeats."""
    lines = set()
    for mask in rules.cell_masks:
        left = mask & ~drawn
        if left and not left & (left - 1):
            lines.add(left.bit_length() - 1)
    return sorted(lines)


def handout(rules: Rules, drawn: int) -> int:
    """Cells the player to move can take in a row by capturing greedily from ``drawn``."""
    taken = 0
    while True:
        lines = capturable_lines(rules, drawn)
        if not lines:
            return taken
        taken += effect(rules, drawn, lines[0])[0]
        drawn |= 1 << lines[0]


def is_critical(state: State) -> bool:
    """The middle game's turning point: no capture on offer and few safe lines left."""
    rules, drawn = state.rules, state.drawn
    safe = sum(1 for line in state.legal_moves() if effect(rules, drawn, line) == (0, 0))
    return 0 < safe <= 4 * len(state.scores)


# ---- chains -------------------------------------------------------------------------------------

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


# ---- MCTS ---------------------------------------------------------------------------------------

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
    players = len(scores)
    seat = (seat + 1) % players
    while state.forfeited >> seat & 1:
        seat = (seat + 1) % players
    return drawn, scores, seat


def playout(state: State, drawn: int, scores: list[int], seat: int, rng: random.Random) -> list[int]:
    """Play to the end: capture when possible (normal play), else a line offering nothing, else any."""
    rules = state.rules
    touches = rules.touches
    misere = rules.options.misere
    free = free_lines(rules, drawn)
    while free:
        line = -1
        if not misere:
            for mask in rules.cell_masks:
                left = mask & ~drawn
                if left and not left & (left - 1):
                    line = left.bit_length() - 1
                    break
        if line < 0:
            for _ in range(6):
                line = free[rng.randrange(len(free))]
                after = drawn | 1 << line
                if all((mask & ~after).bit_count() > 1 for _, mask in touches[line]):
                    break
        free.remove(line)
        drawn, scores, seat = advance(state, drawn, scores, seat, line)
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


# ---- perfect ------------------------------------------------------------------------------------

class Perfect:
    """Exact moves from as far out as the clock allows (two players), the chain rules until then.

    The first full solve decides the game, and once it is done every later solve is a
    few table hits. So ``perfect`` spends almost nothing on the opening (the chain rules
    are instant), then puts up to ``bank_share`` of its bank (or 80 % of a fixed limit per
    move) into solving as soon as the position looks solvable in that time. With three or
    four players (no solver) it plays ``mcts``, which optimises its placement.

    Measured over 20 games on 4x4 hexagons with a 10 s + 100 ms bank: 17 wins, 3 draws
    against ``chains``, 20 wins against ``mcts`` (with MCTS instead of the chain rules
    before the solve, ``chains`` had beaten it 10-8 at 200 ms a move).
    """

    def __init__(self, bank_share: float = 0.4) -> None:
        self.bank_share = bank_share
        self.endgame = Endgame(max_free=None)
        self.multiplayer = Mcts(solve=False)

    def __call__(self, state: State, rng: random.Random, seconds: float) -> int:
        if len(state.scores) != 2 or state.forfeited:
            return self.multiplayer(state, rng, seconds)
        best = self.endgame.best(state, time.monotonic() + seconds)
        return rng.choice(best) if best else heuristic(state, rng)

    def budget(self, state: State, left_ms: int | None, limit_ms: int | None, per_move: bool,
               increment_ms: int) -> float:
        """Seconds for this move: a share of the bank for the solve, not of the moves still expected."""
        free, players = state.free_count(), len(state.active_seats)
        if len(state.scores) != 2 or state.forfeited:
            return move_budget(left_ms, limit_ms, free, players, is_critical(state), per_move, increment_ms)
        return move_budget(left_ms, limit_ms, free, players, True, per_move, increment_ms, self.bank_share)


BRAINS: dict[str, Callable[[], Brain]] = {"chains": Chains, "mcts": Mcts, "perfect": Perfect}


def bot_choose(brain: Brain) -> Callable[..., int]:
    """A ``protocol.client.run_bot`` chooser around a brain: the clock of the last TURN sets its time."""

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
