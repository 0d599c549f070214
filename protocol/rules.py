"""The rules engine: pure game states, no I/O, fast enough for a bot's inner loop.

    rules = Rules(make_board("4x4"), Options(players=2, misere=False, border=True))
    state = rules.start()
    step = state.apply(17)          # Step(state, closed, again)
    state = step.state
    state.legal_moves()             # sorted free lines
    state.is_over(), state.outcome()

A state is an immutable value: ``drawn`` is a bitmask of drawn lines, ``owners``
gives each cell's seat (``-1`` while open), ``scores`` counts cells per seat,
``to_move`` is the seat on turn. Lines are drawn with bit ``1 << line``.
Seats that forfeited (``State.forfeit``) are skipped in the rotation and placed last.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

from hexarena.protocol.board import Board
from hexarena.protocol.errors import IllegalMove


@dataclass(frozen=True)
class Options:
    """Table setup: players in rotation (2–4), misère, pre-drawn border."""

    players: int = 2
    misere: bool = False
    border: bool = False

    def __post_init__(self) -> None:
        if self.players not in (2, 3, 4):
            raise ValueError(f"players must be 2, 3 or 4, got {self.players}")


class Outcome(NamedTuple):
    """Final scores and placements (1 = first; equal scores share a place)."""

    scores: tuple[int, ...]
    placements: tuple[int, ...]

    def result_for(self, seat: int) -> str:
        """``win``, ``draw`` or ``loss`` from a seat's point of view (any player count)."""
        best = min(self.placements)
        if self.placements[seat] != best:
            return "loss"
        return "draw" if self.placements.count(best) > 1 else "win"


class Step(NamedTuple):
    """What ``State.apply`` returns: the next state, the cells closed, whether the mover goes again."""

    state: State
    closed: tuple[int, ...]
    again: bool


def _next_seat(seat: int, players: int, forfeited: int) -> int:
    """The next seat after ``seat`` in the rotation that is not in the bitmask ``forfeited`` (``seat`` if none)."""
    for _ in range(players):
        seat = (seat + 1) % players
        if not forfeited >> seat & 1:
            return seat
    return seat


class Rules:
    """A board and options, with everything the engine precomputes for them."""

    def __init__(self, board: Board, options: Options = Options()) -> None:
        self.board = board
        self.options = options
        self.lines = len(board.lines)
        self.full = (1 << self.lines) - 1
        self.cell_masks = tuple(sum(1 << line for line in cell) for cell in board.cells)
        # per line: ((cell, mask of that cell), ...) — the only cells a line can close
        self.touches = tuple(
            tuple((cell, self.cell_masks[cell]) for cell in cells) for cells in board.line_cells()
        )
        self.predrawn = sum(1 << line for line in board.border) if options.border else 0
        # next_seat[forfeited][seat]: who moves after ``seat`` when the seats of bitmask ``forfeited`` are out
        players = options.players
        self.next_seat = tuple(tuple(_next_seat(seat, players, forfeited) for seat in range(players))
                               for forfeited in range(1 << players))

    def start(self) -> State:
        """The position before the first move (with the border drawn if the options ask): a new one each time,
        as one ``Rules`` serves every game of its configuration (``BoardConfig.rules``)."""
        return State(self, self.predrawn, (-1,) * len(self.board.cells), (0,) * self.options.players, 0, 0)

    def replay(self, lines) -> State:
        """The state after drawing ``lines`` in order from the start."""
        state = self.start()
        for line in lines:
            state = state.apply(line).state
        return state

    def __repr__(self) -> str:
        return f"Rules({self.board!r}, {self.options!r})"


class State:
    """One position. Treat as immutable: ``apply`` and ``forfeit`` return new states."""

    __slots__ = ("drawn", "forfeited", "owners", "rules", "scores", "to_move")

    def __init__(self, rules: Rules, drawn: int, owners: tuple, scores: tuple, to_move: int, forfeited: int) -> None:
        self.rules = rules
        self.drawn = drawn
        self.owners = owners
        self.scores = scores
        self.to_move = to_move
        self.forfeited = forfeited  # bitmask of seats out of the game

    def apply(self, line: int) -> Step:
        """Draw ``line`` for the seat to move."""
        rules = self.rules
        if line < 0 or line >= rules.lines:
            raise IllegalMove(f"line {line} is out of range (0-{rules.lines - 1})")
        bit = 1 << line
        if self.drawn & bit:
            raise IllegalMove(f"line {line} is already drawn")
        drawn = self.drawn | bit
        closed = ()
        for cell, mask in rules.touches[line]:  # one or two cells: a loop, not a generator
            if drawn & mask == mask:
                closed += (cell,)
        seat = self.to_move
        if closed:
            owners = list(self.owners)
            for cell in closed:
                owners[cell] = seat
            scores = list(self.scores)
            scores[seat] += len(closed)
            return Step(State(rules, drawn, tuple(owners), tuple(scores), seat, self.forfeited), closed, True)
        return Step(State(rules, drawn, self.owners, self.scores, rules.next_seat[self.forfeited][seat],
                          self.forfeited), (), False)

    def forfeit(self, seat: int) -> State:
        """The state with ``seat`` out: skipped in the rotation and placed last."""
        forfeited = self.forfeited | 1 << seat
        to_move = self.rules.next_seat[forfeited][seat] if self.to_move == seat else self.to_move
        return State(self.rules, self.drawn, self.owners, self.scores, to_move, forfeited)

    @property
    def active_seats(self) -> list[int]:
        return [s for s in range(len(self.scores)) if not self.forfeited >> s & 1]

    def legal_moves(self) -> list[int]:
        """The free lines, in increasing order."""
        free = self.rules.full & ~self.drawn
        moves = []
        while free:
            low = free & -free
            moves.append(low.bit_length() - 1)
            free ^= low
        return moves

    def free_count(self) -> int:
        """How many lines are free (``len(legal_moves())`` without building the list)."""
        return (self.rules.full & ~self.drawn).bit_count()

    def is_legal(self, line: int) -> bool:
        return 0 <= line < self.rules.lines and not self.drawn >> line & 1

    def is_over(self) -> bool:
        """Every line drawn, or fewer than two seats left in the game."""
        return self.drawn == self.rules.full or len(self.scores) - self.forfeited.bit_count() < 2

    def outcome(self) -> Outcome:
        """Scores and placements: most cells first (fewest in misère), forfeited seats last."""
        misere = self.rules.options.misere
        scores = self.scores
        active = self.active_seats

        def place(seat: int) -> int:
            if seat not in active:
                return len(active) + 1
            mine = scores[seat]
            return 1 + sum(1 for s in active if (scores[s] < mine if misere else scores[s] > mine))

        return Outcome(tuple(scores), tuple(place(s) for s in range(len(scores))))

    def _key(self) -> tuple:
        return (self.drawn, self.owners, self.to_move, self.forfeited)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, State) and self.rules is other.rules and self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    def __repr__(self) -> str:
        return (
            f"<State {self.rules.board.size} {self.rules.board.geometry} drawn={self.drawn.bit_count()}/"
            f"{len(self.rules.board.lines)} scores={self.scores} to_move={self.to_move}>"
        )
