"""The solver's analysis of a played game: the exact value of every position, what each move cost, the losing move.

    analysis = analyse(record, budget=10.0)   # pure: a GameRecord in, an Analysis out (no store, no I/O)
    analysis.values      # values[i]: seat 0's final margin under perfect play before move i (one more: the end)
    analysis.costs       # costs[i]: what move i gave away, from its mover's side (0: a best move)
    analysis.losing_move # the first move after which the loser could no longer reach a draw, or None
    analysis.best        # best[i]: the best lines at move i's position when move i was not one of them, else []

Values are ``hexarena solve``'s: seat 0's cells minus seat 1's at the end, cells already taken included; under
misère seat 0 wants it low, so "from a seat's side" (``side``) is the margin for seat 0 in normal play and for
seat 1 in misère, negated for the other seat. A value the solver did not settle within the budget is None, and
so is every cost next to one.

Positions are solved from the end backwards with one ``Solver``: late positions (few free lines) are cheap and
fill its transposition table for the earlier ones. ``budget`` is the seconds for the whole game; once it is
spent every earlier position stays None. Two players only (the solver's); ``ConfigError`` for more.
"""

from __future__ import annotations

import time
from dataclasses import asdict, dataclass

from hexarena.bots.brains.solver import Solver
from hexarena.bots.errors import SolverTimeout
from hexarena.protocol.errors import ConfigError
from hexarena.referee.record import GameRecord

Value = int | None


@dataclass(frozen=True)
class Analysis:
    """What ``hexarena analyse --json`` prints, field for field (see the module docstring)."""

    game: str
    values: list[Value]
    costs: list[Value]
    losing_move: int | None
    best: list[list[int]]
    solved_positions: int
    seconds: float

    def to_json(self) -> dict:
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict) -> Analysis:
        return cls(**{field: data[field] for field in cls.__dataclass_fields__})

    @property
    def complete(self) -> bool:
        return self.solved_positions == len(self.values)


def side(value: int, seat: int, misere: bool) -> int:
    """A value (seat 0's margin) as ``seat`` sees it: higher is better for that seat."""
    return value if (seat == 0) != misere else -value


def loser(record: GameRecord) -> int | None:
    """The seat that lost a two-player game, or None for a draw."""
    placements = record.result.placements
    return None if placements[0] == placements[1] else placements.index(max(placements))


def lost_from_start(record: GameRecord, analysis: Analysis) -> bool:
    """The loser could not reach a draw even before the first move (its value there is known and below 0) and
    never got back to one (no losing move)."""
    seat = loser(record)
    start = analysis.values[0] if analysis.values else None
    return (seat is not None and start is not None and analysis.losing_move is None
            and side(start, seat, record.config.misere) < 0)


def check_two_players(record: GameRecord) -> None:
    if record.config.players != 2:
        raise ConfigError(f"game {record.id} has {record.config.players} players: the analysis covers "
                          "2-player games only (the solver's)")


def analyse(record: GameRecord, budget: float, solver: Solver | None = None) -> Analysis:
    """Solve every position of ``record`` within ``budget`` seconds in all (see the module docstring);
    ``solver``: one of the record's rules to reuse (its table carries over between games)."""
    check_two_players(record)
    started = time.monotonic()
    rules = record.config.rules()
    solver = solver or Solver(rules)
    states = [rules.replay(record.opening)]
    for move in record.moves:
        states.append(states[-1].apply(move.line).state)
    deadline = started + budget
    solutions: list = [None] * len(states)
    for index in range(len(states) - 1, -1, -1):  # the values first: each line's search only where it is needed
        try:
            solutions[index] = solver.solve(states[index], deadline, lines=False)
        except SolverTimeout:
            break
    values = [s.value if s is not None else None for s in solutions]
    misere = record.config.misere
    costs: list[Value] = []
    best: list[list[int]] = []
    for index, move in enumerate(record.moves):
        before, after = values[index], values[index + 1]
        cost = None if before is None or after is None else side(before, move.seat, misere) - side(after, move.seat, misere)
        costs.append(cost)
        best.append(_best_lines(solver, states[index], deadline) if cost else [])  # a move that cost 0 was a best one
    return Analysis(record.id, values, costs, losing_move(record, values), best,
                    sum(v is not None for v in values), round(time.monotonic() - started, 3))


def _best_lines(solver: Solver, state, deadline: float) -> list[int]:
    """The best lines of a position whose value is in ``solver``'s table; [] once the budget is spent."""
    try:
        return list(solver.solve(state, deadline).best)
    except SolverTimeout:
        return []


def losing_move(record: GameRecord, values: list[Value]) -> int | None:
    """The first move whose position the loser valued at ≥ 0 and whose next it valued below 0 (both known);
    None for a draw, a game lost from the start, or one whose drop the budget did not reach."""
    seat = loser(record)
    if seat is None:
        return None
    misere = record.config.misere
    for index in range(len(values) - 1):
        before, after = values[index], values[index + 1]
        if before is not None and after is not None and side(before, seat, misere) >= 0 > side(after, seat, misere):
            return index
    return None
