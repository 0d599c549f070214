"""A league run's progress on stderr (``ProgressDisplay``): games done of the total, rate, time left, leader.

On a terminal a rich bar, updated as each record is stored, with the leader and the executor's status on a
line of their own (each line fits 80 columns); without one (nohup, CI, a pipe) a plain line now and then. The
leader is counted from the stored games' points, then from each new record. ``close`` prints the closing line:
games played, elapsed time, games/s.
"""

from __future__ import annotations

import sys
import time

from hexarena.leagues.results import store
from hexarena.leagues.results.rows import seat_rows
from hexarena.leagues.workspace.home import Workspace
from hexarena.referee.record import GameRecord


class ProgressDisplay:
    """Progress on stderr: games done / total, rate, time left, current leader — a rich bar on a terminal;
    without one (nohup, CI, a pipe) a plain line every ``LINES_EVERY`` games or ``SECONDS_EVERY`` seconds."""

    LINES_EVERY = 50
    SECONDS_EVERY = 30.0

    def __init__(self, ws: Workspace, league: str, total: int, done: int, terminal: bool | None = None) -> None:
        self.points: dict[str, float] = {}
        self.games: dict[str, int] = {}
        sums = store.tally(ws, league).sums.groupby("bot")[["points", "games"]].sum()
        for bot, row in sums.iterrows():
            self.points[str(bot)], self.games[str(bot)] = float(row["points"]), int(row["games"])
        self.started, self.count = time.monotonic(), 0
        self.league, self.total, self.done = league, total, done
        self.terminal = sys.stderr.isatty() if terminal is None else terminal
        self.last_line = self.started
        if not self.terminal:
            self.bar = None
            print(f"{league}: {done}/{total} games stored, {total - done} to play", file=sys.stderr, flush=True)
            return
        from hexarena.leagues.running.progress_bar import two_line_bar  # rich: a terminal's only (0.03 s to import)

        self.bar = two_line_bar(league)
        self.bar.below = self._leader()
        self.task = self.bar.add_task("games", total=total, completed=done, rate="")
        self.bar.start()

    def _leader(self) -> str:
        if not self.games:
            return ""
        best = max(self.games, key=lambda bot: (self.points[bot] / self.games[bot], self.points[bot]))
        return f"leader {best} {100 * self.points[best] / self.games[best]:.0f}%"

    def update(self, record: GameRecord, status: str = "") -> None:
        for row in seat_rows(record):
            self.points[row["bot"]] = self.points.get(row["bot"], 0.0) + row["points"]
            self.games[row["bot"]] = self.games.get(row["bot"], 0) + 1
        self.count += 1
        now = time.monotonic()
        rate = self.count / max(now - self.started, 1e-9)
        if self.bar is not None:
            self.bar.below = " · ".join(filter(None, [self._leader(), status]))
            self.bar.update(self.task, advance=1, rate=f"{rate:.1f} games/s")
            return
        done = self.done + self.count
        if self.count % self.LINES_EVERY == 0 or now - self.last_line >= self.SECONDS_EVERY or done == self.total:
            self.last_line = now
            left = (self.total - done) / rate if rate > 0 else 0
            print(f"{self.league}: {done}/{self.total} games, {rate:.1f} games/s, about {left:.0f} s left"
                  + "".join(f"; {part}" for part in (self._leader(), status) if part), file=sys.stderr, flush=True)

    def close(self, where: str = "") -> None:
        """Stop the bar and print the closing line (``where``: the executor's summary, e.g. the hosts)."""
        if self.bar is not None:
            self.bar.stop()
        elapsed = time.monotonic() - self.started
        print(f"{self.league}: {self.count} {'game' if self.count == 1 else 'games'} played in {elapsed:.1f} s, "
              f"{self.count / max(elapsed, 1e-9):.1f} games/s" + (f" {where}" if where else ""),
              file=sys.stderr, flush=True)

