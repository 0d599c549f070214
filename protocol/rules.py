"""The rules engine: pure game states, no I/O, fast enough for a bot's inner loop.

    rules = Rules(make_board("4x4"), Options(players=2, misere=False, border=True))
    state = rules.start()
    step = state.apply(17)          # Step(state, closed, again)
    state = step.state
    state.legal_moves()             # sorted free lines
    state.is_over(), state.outcome()

A state is an immutable value of bitmasks: ``drawn`` is a bitmask of drawn lines, ``owned``
per seat a bitmask of the cells it closed; ``owners`` gives each cell's seat (``-1`` while open),
``scores`` counts cells per seat, ``to_move`` is the seat on turn. Lines are drawn with bit
``1 << line``, cells owned with bit ``1 << cell``.
Seats that forfeited (``State.forfeit``) are skipped in the rotation and placed last.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache
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


class Step:
    """What ``State.apply`` returns: the next state, the cells closed, whether the mover goes again.

    It unpacks and compares like the tuple ``(state, closed, again)``; slots rather than a NamedTuple, as
    reading ``step.state`` and making one are what a playout does most.
    """

    __slots__ = ("again", "closed", "state")

    def __init__(self, state: State, closed: tuple[int, ...], again: bool) -> None:
        self.state = state
        self.closed = closed
        self.again = again

    def __iter__(self) -> Iterator:
        return iter((self.state, self.closed, self.again))

    def __eq__(self, other: object) -> bool:
        return tuple(self) == (tuple(other) if isinstance(other, Step) else other)

    def __hash__(self) -> int:
        return hash(tuple(self))

    def __repr__(self) -> str:
        return f"Step(state={self.state!r}, closed={self.closed!r}, again={self.again!r})"


def _next_seat(seat: int, players: int, forfeited: int) -> int:
    """The next seat after ``seat`` in the rotation that is not in the bitmask ``forfeited`` (``seat`` if none)."""
    for _ in range(players):
        seat = (seat + 1) % players
        if not forfeited >> seat & 1:
            return seat
    return seat


@cache
def _byte_lines(count: int) -> tuple[tuple[tuple[int, ...], ...], ...]:
    """``[k][byte]``: the lines of the bits set in ``byte`` as bits 8k to 8k + 7 of a mask, for k < ``count``
    (legal_moves reads a mask a byte at a time); every board of as many bytes of lines shares one table."""
    return tuple(tuple(tuple(8 * k + bit for bit in range(8) if byte >> bit & 1) for byte in range(256))
                 for k in range(count))


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
        # apply's table, one look-up per move (a bad line is a missing key): per line its bit, the masks of the
        # (up to) two cells it touches (an edge line's second can never be drawn in full), and what it closes
        # when the first, the second or both are full: (cells, their bits)
        never = 1 << self.lines
        self.facts = {}
        for line, touches in enumerate(self.touches):
            (first, mask1), (second, mask2) = (touches + ((None, never),))[:2]
            closes = ((first,), 1 << first), None, None
            if second is not None:
                closes = closes[0], ((second,), 1 << second), ((first, second), 1 << first | 1 << second)
            self.facts[line] = (1 << line, mask1, mask2, *closes)
        self.byte_lines = _byte_lines((self.lines + 7) // 8)
        # a state's turn is ``forfeited << 2 | to_move``; after[turn] is the turn once ``to_move`` is done
        players = options.players
        self.after = tuple(forfeited << 2 | _next_seat(seat, players, forfeited) if seat < players else 0
                           for forfeited in range(1 << players) for seat in range(4))

    def start(self) -> State:
        """The position before the first move (with the border drawn if the options ask): a new one each time,
        as one ``Rules`` serves every game of its configuration (``BoardConfig.rules``)."""
        return State(self, self.predrawn, (0,) * self.options.players, 0, 0)

    def replay(self, lines) -> State:
        """The state after drawing ``lines`` in order from the start."""
        state = self.start()
        for line in lines:
            state = state.apply(line).state
        return state

    def __repr__(self) -> str:
        return f"Rules({self.board!r}, {self.options!r})"


_new = object.__new__  # apply makes its State and Step without a Python-level __init__ (the hot path)


class State:
    """One position, an immutable value: ``apply`` and ``forfeit`` return new states.

    Bitmasks and small ints: ``drawn`` (lines, bit ``1 << line``), ``owned`` (per seat, the cells it
    closed, bit ``1 << cell``) and ``turn``, which holds ``to_move`` (its low two bits) and ``forfeited``
    (the bitmask of the seats out of the game, above them). ``scores`` and ``owners`` are read from ``owned``.
    """

    __slots__ = ("drawn", "owned", "rules", "turn")

    def __init__(self, rules: Rules, drawn: int, owned: tuple[int, ...], to_move: int, forfeited: int) -> None:
        self.rules = rules
        self.drawn = drawn
        self.owned = owned
        self.turn = forfeited << 2 | to_move

    @property
    def to_move(self) -> int:
        """The seat on turn."""
        return self.turn & 3

    @property
    def forfeited(self) -> int:
        """The bitmask of the seats out of the game."""
        return self.turn >> 2

    def apply(self, line: int) -> Step:
        """Draw ``line`` for the seat to move."""
        rules = self.rules
        try:
            bit, first, second, closes_first, closes_second, closes_both = rules.facts[line]
        except (KeyError, TypeError):
            raise IllegalMove(f"line {line} is out of range (0-{rules.lines - 1})") from None
        drawn = self.drawn | bit
        if drawn == self.drawn:
            raise IllegalMove(f"line {line} is already drawn")
        state = _new(State)
        state.rules = rules
        state.drawn = drawn
        if drawn & first != first:
            if drawn & second != second:
                state.owned = self.owned
                state.turn = rules.after[self.turn]
                step = _new(Step)
                step.state, step.closed, step.again = state, (), False
                return step
            closed, cells = closes_second
        else:
            closed, cells = closes_both if drawn & second == second else closes_first
        state.turn = turn = self.turn
        owned = list(self.owned)
        owned[turn & 3] |= cells
        state.owned = tuple(owned)
        step = _new(Step)
        step.state, step.closed, step.again = state, closed, True
        return step

    def forfeit(self, seat: int) -> State:
        """The state with ``seat`` out: skipped in the rotation and placed last."""
        forfeited = self.forfeited | 1 << seat
        to_move = self.rules.after[forfeited << 2 | seat] & 3 if self.to_move == seat else self.to_move
        return State(self.rules, self.drawn, self.owned, to_move, forfeited)

    @property
    def scores(self) -> tuple[int, ...]:
        """Cells closed per seat."""
        return tuple(map(int.bit_count, self.owned))

    @property
    def owners(self) -> tuple[int, ...]:
        """Each cell's seat, ``-1`` while open (or closed before the first move)."""
        owners = [-1] * len(self.rules.board.cells)
        for seat, cells in enumerate(self.owned):
            while cells:
                low = cells & -cells
                owners[low.bit_length() - 1] = seat
                cells ^= low
        return tuple(owners)

    @property
    def active_seats(self) -> list[int]:
        return [s for s in range(len(self.owned)) if not self.forfeited >> s & 1]

    def legal_moves(self) -> list[int]:
        """The free lines, in increasing order."""
        free = self.rules.full ^ self.drawn
        moves = []
        for lines in self.rules.byte_lines:  # eight lines at a time: the free ones of each byte, looked up
            if free & 255:
                moves += lines[free & 255]
            free >>= 8
        return moves

    def free_count(self) -> int:
        """How many lines are free (``len(legal_moves())`` without building the list)."""
        return (self.rules.full ^ self.drawn).bit_count()

    def is_legal(self, line: int) -> bool:
        return 0 <= line < self.rules.lines and not self.drawn >> line & 1

    def is_over(self) -> bool:
        """Every line drawn, or fewer than two seats left in the game."""
        return self.drawn == self.rules.full or len(self.owned) - self.forfeited.bit_count() < 2

    def outcome(self) -> Outcome:
        """Scores and placements: most cells first (fewest in misère), forfeited seats last."""
        scores = tuple(map(int.bit_count, self.owned))
        keys = tuple(-score for score in scores) if self.rules.options.misere else scores
        forfeited = self.forfeited
        if not forfeited:
            # a seat's place is 1 + how many scored better: its first index below a sentinel, best first
            ranked = [math.inf, *sorted(keys, reverse=True)]
            return Outcome(scores, tuple(map(ranked.index, keys)))
        active = [key for seat, key in enumerate(keys) if not forfeited >> seat & 1]
        ranked = [math.inf, *sorted(active, reverse=True)]
        return Outcome(scores, tuple(len(ranked) if forfeited >> seat & 1 else ranked.index(key)
                                     for seat, key in enumerate(keys)))

    def _key(self) -> tuple:
        return (self.drawn, self.owned, self.turn)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, State) and self.rules is other.rules and self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    def __repr__(self) -> str:
        return (
            f"<State {self.rules.board.size} {self.rules.board.geometry} drawn={self.drawn.bit_count()}/"
            f"{self.rules.lines} scores={self.scores} to_move={self.to_move}>"
        )
