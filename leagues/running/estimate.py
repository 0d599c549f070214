"""How long the games still to play will take (``league run --dry-run``).

Every game draws each free line once: its moves are the board's lines less the pre-drawn border and its
start position (a forfeit ends a game sooner, so that count is itself an upper bound). Two figures:

    at most    every move uses its whole budget: the per-move limit, or with a bank, each player's whole
               bank plus one increment per move
    about      the league's measured time per move (``hexarena.leagues.results.store.time_per_move``: its stored games' time
               from start to end over their moves, so the referee's messages count too), when it has any

each divided by the games played at once. Bot startup and the referee's own work are not counted.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from hexarena.leagues.schedule.games import ScheduledGame
from hexarena.referee.clock import TimeControl


@dataclass(frozen=True)
class Estimate:
    games: int
    moves: int  # moves of those games, every free line drawn
    at_most: float  # seconds, every move using its whole budget
    at_once: int  # games played at the same time
    control: TimeControl
    mean_ms: float = 0.0  # measured time per move
    measured_moves: int = 0  # stored moves it was measured over (0: no figure)

    @property
    def measured(self) -> float | None:
        """Seconds at the measured time per move, or None without stored moves."""
        return self.moves * self.mean_ms / 1000 / self.at_once if self.measured_moves else None

    def describe(self) -> str:
        """One line: the upper bound from the time control and, when there is one, the measured estimate."""
        if not self.games:
            return "time: nothing to play"
        line = (f"time: at most {span(self.at_most)} ({self.moves:,} moves in {self.games:,} games under the time "
                f"control {self.control}, every move using its whole budget, {self.at_once} at a time)")
        if self.measured is not None:
            line += (f"; about {span(self.measured)} at the {self.mean_ms:.1f} ms a move measured over "
                     f"{self.measured_moves:,} stored moves")
        return line


def estimate(todo: Sequence[ScheduledGame], control: TimeControl, concurrency: int, mean_ms: float = 0.0,
             measured_moves: int = 0) -> Estimate:
    """The estimate for the games ``todo`` under ``control``, ``concurrency`` at once (see the module docstring)."""
    free: dict[tuple, int] = {}
    moves = budget = 0.0
    for game in todo:
        key = (game.config, len(game.opening))
        if key not in free:
            board = game.config.board()
            free[key] = len(board.lines) - (len(board.border) if game.config.border else 0) - len(game.opening)
        moves += free[key]
        budget += (free[key] * control.move if control.move is not None
                   else game.config.players * control.bank + free[key] * control.increment)
    at_once = max(1, min(concurrency, len(todo)))
    return Estimate(len(todo), int(moves), budget / at_once, at_once, control, mean_ms, measured_moves)


def span(seconds: float) -> str:
    """``3725`` → ``"1 h 02 min"``, ``250`` → ``"4 min 10 s"``, ``12.4`` → ``"12 s"``."""
    whole = round(seconds)
    hours, rest = divmod(whole, 3600)
    minutes, secs = divmod(rest, 60)
    if hours:
        return f"{hours} h {minutes:02d} min"
    if minutes:
        return f"{minutes} min {secs:02d} s"
    return f"{seconds:.1f} s" if seconds < 10 else f"{whole} s"
