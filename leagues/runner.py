"""Running a league: resolve the bots, schedule, play what is missing, store each game as it ends.

    summary = run_league(ws, load_league("leagues/demo.toml"), concurrency=2)

Games are played through an ``Executor``: it takes jobs and yields finished records in any order.
``LocalExecutor`` plays them on threads, each owning one ``Referee`` (which keeps its bots running
across the games it plays). A distributed engine can plug in by implementing ``Executor.run``.

Resuming is the normal case: the schedule is computed afresh on every run and only games whose id is
not stored yet are played. Every finished game is stored in one transaction as soon as it arrives, so
SIGKILL or Ctrl-C loses at most the games in flight.
"""

from __future__ import annotations

import os
import queue
import sys
import threading
import time
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterator, Sequence
from contextlib import closing
from dataclasses import dataclass
from math import comb
from pathlib import Path

from leagues import registry, store
from leagues.config import ALL, MAX_TABLES, LeagueConfig
from leagues.locks import league_lock
from leagues.schedule import Entrant, ScheduledGame, gauntlet_entrant, schedule
from leagues.tables import seat_rows
from leagues.workspace import Workspace
from protocol.errors import ConfigError, HexarenaError
from referee.local import BotSpec
from referee.record import BoardConfig, GameRecord
from referee.referee import Referee


@dataclass(frozen=True)
class Job:
    """One game to play: everything an executor needs, nothing about the league."""

    id: str
    config: BoardConfig
    seats: tuple[BotSpec, ...]
    seed: int
    opening: tuple[int, ...] = ()  # the start position, played as the referee's prelude


class ExecutorLost(HexarenaError):
    """An executor lost what plays its games (a cluster's scheduler): one line; the games stored so far are kept."""


class Executor(ABC):
    """Plays jobs, several at once, and yields each record as its game finishes (in any order).

    Closing the iterator early (or an exception while consuming it) stops the executor: games not yet
    started are not played, games in flight are abandoned or finished but not yielded.
    """

    @abstractmethod
    def run(self, jobs: Sequence[Job]) -> Iterator[GameRecord]: ...

    def status(self) -> str:
        """A few words for the progress display (e.g. workers and games in flight); empty by default."""
        return ""


class LocalExecutor(Executor):
    """Worker threads on this machine, each with its own ``Referee`` from ``make_referee``."""

    def __init__(self, make_referee: Callable[[], Referee], concurrency: int) -> None:
        self.make_referee = make_referee
        self.concurrency = max(1, concurrency)

    def run(self, jobs: Sequence[Job]) -> Iterator[GameRecord]:
        pending: queue.Queue[Job] = queue.Queue()
        for job in jobs:
            pending.put(job)
        done: queue.Queue[GameRecord | BaseException] = queue.Queue()
        stop = threading.Event()
        workers = [threading.Thread(target=self._work, args=(pending, done, stop), daemon=True, name=f"referee-{i}")
                   for i in range(min(self.concurrency, len(jobs)))]
        for worker in workers:
            worker.start()
        try:
            for _ in jobs:
                item = done.get()
                if isinstance(item, BaseException):
                    raise item
                yield item
        finally:
            stop.set()
            for worker in workers:
                worker.join()

    def _work(self, pending: queue.Queue, done: queue.Queue, stop: threading.Event) -> None:
        try:
            with self.make_referee() as referee:
                while not stop.is_set():
                    try:
                        job = pending.get_nowait()
                    except queue.Empty:
                        return
                    done.put(referee.play(list(job.seats), job.config, game_id=job.id, seed=job.seed,
                                          prelude=job.opening))
        except BaseException as exc:  # noqa: BLE001 - the consumer re-raises it: a referee bug must not hang the run
            done.put(exc)


@dataclass(frozen=True)
class RunSummary:
    league: str
    total: int  # games in the schedule
    already: int  # stored before this run
    played: int  # stored by this run


def resolve_entrants(ws: Workspace, league: LeagueConfig, source: str) -> dict[Entrant, Path]:
    """The league's bots (label, version key) and their folders; ConfigError naming the file and field."""
    try:
        bots = registry.active_bots(ws) if league.participants == [ALL] else [
            registry.resolve(ws, text) for text in league.participants]
    except ConfigError as exc:
        raise ConfigError(f"{source}: participants: {exc}") from None
    names = [bot.name for bot in bots]
    entrants = {}
    for bot in bots:
        label = bot.name if names.count(bot.name) == 1 else bot.label  # two versions of one bot: name@hash
        key = f"{bot.name}@{bot.version_hash}" if bot.version_hash else f"{bot.name}@{bot.folder}"
        entrants[Entrant(label, key)] = bot.folder
    if len({e.key for e in entrants}) < len(entrants) or len({e.label for e in entrants}) < len(entrants):
        raise ConfigError(f"{source}: participants: the same bot version is listed twice")
    if len(entrants) < league.players:
        listed = ", ".join(sorted(e.label for e in entrants)) or "none"
        raise ConfigError(f"{source}: players = {league.players} needs at least {league.players} participants, "
                          f"got {len(entrants)} ({listed})")
    if league.gauntlet and gauntlet_entrant(list(entrants), league.gauntlet) is None:
        listed = ", ".join(sorted(e.label for e in entrants))
        raise ConfigError(f"{source}: gauntlet: {league.gauntlet!r} is not a participant (participants: {listed})")
    tables = comb(len(entrants), league.players)
    if league.players > 2 and not league.sample and tables > MAX_TABLES:
        raise ConfigError(f"{source}: {len(entrants)} bots make {tables:,} tables of {league.players}; set sample = N "
                          f"(at most {MAX_TABLES:,}) to play N tables per board, balanced")
    return entrants


def plan(ws: Workspace, league: LeagueConfig, source: str = "<league>") -> tuple[list[ScheduledGame], dict[str, Path]]:
    """The full schedule and each label's bot folder; raises ConfigError before anything is stored."""
    entrants = resolve_entrants(ws, league, source)
    return schedule(league, list(entrants)), {e.label: folder for e, folder in entrants.items()}


def run_league(ws: Workspace, league: LeagueConfig, concurrency: int | None = None, progress: bool = True,
               source: str = "<league>", executor: Executor | None = None, scheduler: str | None = None) -> RunSummary:
    """Play every game of the league that is not stored yet (see the module docstring). One runner per
    league and workspace (``leagues.locks``): ConfigError naming the running one's pid.

    ``scheduler`` (or the league file's ``executor = "dask"`` and ``scheduler``) plays it on a Dask cluster
    (``leagues/dask_executor.py``); an unreachable or malformed address is a ConfigError before anything is stored.
    """
    with league_lock(ws, league.name):
        owned = None
        if executor is None and (scheduler or league.executor == "dask"):
            from leagues.dask_executor import DaskExecutor

            executor = owned = DaskExecutor(scheduler or league.scheduler or "", time_control=league.time_control,
                                            fault_policy=league.fault_policy, log_dir=ws.logs_dir / league.name)
        try:
            return _run_league(ws, league, concurrency, progress, source, executor)
        finally:
            if owned is not None:
                owned.close()


def _run_league(ws: Workspace, league: LeagueConfig, concurrency: int | None, progress: bool, source: str,
                executor: Executor | None) -> RunSummary:
    games, folders = plan(ws, league, source)
    store.save_schedule(ws, league, games)
    stored = store.played_ids(ws, league.name)
    todo = [g for g in games if g.id not in stored]
    jobs = [Job(g.id, g.config, tuple(BotSpec(label, folders[label]) for label in g.seats), g.seed, g.opening)
            for g in todo]
    if executor is None:
        log_dir = ws.logs_dir / league.name
        executor = LocalExecutor(
            lambda: Referee(log_dir=log_dir, time_control=league.time_control, fault_policy=league.fault_policy),
            concurrency or league.concurrency or os.cpu_count() or 1)
    already = len(games) - len(todo)
    display = ProgressDisplay(ws, league.name, len(games), already) if progress and jobs else None
    played = 0
    with closing(executor.run(jobs)) as finished:
        try:
            for record in finished:
                played += store.save_game(ws, league.name, record)
                if display:
                    display.update(record, executor.status())
        finally:
            if display:
                display.close()
    return RunSummary(league.name, len(games), already, played)


class ProgressDisplay:
    """Progress on stderr: games done / total, rate, time left, current leader — a rich bar on a terminal;
    without one (nohup, CI, a pipe) a plain line every ``LINES_EVERY`` games or ``SECONDS_EVERY`` seconds."""

    LINES_EVERY = 50
    SECONDS_EVERY = 30.0

    def __init__(self, ws: Workspace, league: str, total: int, done: int, terminal: bool | None = None) -> None:
        from rich.console import Console
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

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
        self.bar = Progress(TextColumn(f"[bold]{league}"), BarColumn(), MofNCompleteColumn(),
                            TextColumn("{task.fields[rate]}"), TimeRemainingColumn(), TextColumn("{task.fields[leader]}"),
                            TextColumn("{task.fields[status]}"), console=Console(file=sys.stderr), transient=False)
        self.task = self.bar.add_task("games", total=total, completed=done, rate="", leader=self._leader(), status="")
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
            self.bar.update(self.task, advance=1, rate=f"{rate:.1f} games/s", leader=self._leader(), status=status)
            return
        done = self.done + self.count
        if self.count % self.LINES_EVERY == 0 or now - self.last_line >= self.SECONDS_EVERY or done == self.total:
            self.last_line = now
            left = (self.total - done) / rate if rate > 0 else 0
            print(f"{self.league}: {done}/{self.total} games, {rate:.1f} games/s, about {left:.0f} s left, "
                  f"{self._leader()}" + (f" ({status})" if status else ""), file=sys.stderr, flush=True)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.stop()
