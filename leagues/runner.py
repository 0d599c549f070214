"""Running a league: resolve the bots, schedule, play what is missing, store each game as it ends.

    summary = run_league(ws, load_league("leagues/demo.toml"), concurrency=2)

Games are played through an ``Executor``: it takes jobs and yields finished records in any order.
``LocalExecutor`` plays them on this machine: in worker processes for two or more games at once, on a
thread for one; each worker owns one ``Referee`` (``referee/pool.py``), which keeps its bots running
across the games it plays. A distributed engine can plug in by implementing ``Executor.run``.

An ``observer`` (``LeagueObserver``, e.g. the server's live results) hears of every game's start, moves
and end from the game loop (the local executor; the Dask executor ignores it: its games run on workers),
and of every record once it is stored.

Resuming is the normal case: the schedule is computed afresh on every run and only games whose id is
not stored yet are played. Every finished game is stored in one transaction as soon as it arrives, so
SIGKILL or Ctrl-C loses at most the games in flight.
"""

from __future__ import annotations

import logging
import os
import sys
import time
from abc import ABC, abstractmethod
from collections import Counter
from collections.abc import Iterator, Sequence
from contextlib import closing
from dataclasses import dataclass
from math import comb
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from leagues import registry, store
from leagues.config import ALL, MAX_TABLES, LeagueConfig
from leagues.jobs import Job, play_job
from leagues.locks import league_lock
from leagues.schedule import Entrant, ScheduledGame, gauntlet_entrant, schedule
from leagues.tables import seat_rows
from leagues.workspace import Workspace
from protocol.errors import ConfigError, HexarenaError
from referee.game import GameObserver
from referee.local import BotSpec
from referee.pool import referee_pool
from referee.record import GameRecord

if TYPE_CHECKING:
    import pandas as pd


log = logging.getLogger("hexarena.leagues.runner")


class LeagueObserver(GameObserver, Protocol):
    """A ``GameObserver`` that also hears when a finished game's record is stored (called from the runner's thread)."""

    def stored(self, record: GameRecord) -> None: ...


class ExecutorLost(HexarenaError):
    """An executor lost what plays its games (a cluster's scheduler): one line; the games stored so far are kept."""


class Executor(ABC):
    """Plays jobs, several at once, and yields each record as its game finishes (in any order).

    Closing the iterator early (or an exception while consuming it) stops the executor: games not yet
    started are not played, games in flight are abandoned or finished but not yielded. ``observer`` is
    handed to each game loop where the games are played in this process (others may ignore it).
    """

    @abstractmethod
    def run(self, jobs: Sequence[Job], observer: GameObserver | None = None) -> Iterator[GameRecord]: ...

    def status(self) -> str:
        """A few words for the progress display (e.g. workers and games in flight); empty by default."""
        return ""


class LocalExecutor(Executor):
    """This machine: ``concurrency`` referees made with ``Referee(**options)`` (``referee.pool.referee_pool``: one
    on a thread of this process, two or more in worker processes, so that games at once do not share a GIL)."""

    def __init__(self, options: dict, concurrency: int) -> None:
        self.options = options
        self.concurrency = max(1, concurrency)

    def run(self, jobs: Sequence[Job], observer: GameObserver | None = None) -> Iterator[GameRecord]:
        """Starts the workers and hands them their first games at once (not on the first ``next``)."""
        pool = referee_pool(self.options, min(self.concurrency, len(jobs)))
        try:
            return _Finished(pool, pool.map(play_job, jobs, observer))
        except BaseException:
            pool.close()
            raise


class _Finished(Iterator[GameRecord]):
    """The records of a pool's games; closing it (also before the first ``next``) closes the pool."""

    def __init__(self, pool, results: Iterator[GameRecord]) -> None:
        self.pool, self.results = pool, results

    def __next__(self) -> GameRecord:
        try:
            return next(self.results)
        except BaseException:
            self.close()
            raise

    def close(self) -> None:
        close = getattr(self.results, "close", None)
        if close is not None:
            close()
        self.pool.close()


def games_at_once(league: LeagueConfig, concurrency: int | None = None) -> int:
    """How many games a run on this machine plays at once: ``--concurrency``, else the file's, else one per core."""
    return concurrency or league.concurrency or os.cpu_count() or 1


@dataclass(frozen=True)
class RunSummary:
    league: str
    total: int  # games in the schedule
    already: int  # stored before this run
    played: int  # stored by this run


def resolve_entrants(ws: Workspace, league: LeagueConfig, source: str,
                     verify: bool = True) -> dict[Entrant, registry.ResolvedBot]:
    """The league's bots (label, version key) and what each runs; ConfigError naming the file and field."""
    try:
        bots = registry.active_bots(ws, verify) if league.participants == [ALL] else [
            registry.resolve(ws, text, verify=verify) for text in league.participants]
    except ConfigError as exc:
        raise ConfigError(f"{source}: participants: {exc}") from None
    names = [bot.name for bot in bots]
    entrants = {}
    for bot in bots:
        label = bot.name if names.count(bot.name) == 1 else bot.label  # two versions of one bot: name@hash
        key = f"{bot.name}@{bot.version_hash}" if bot.version_hash else f"{bot.name}@{bot.folder}"
        entrants[Entrant(label, key)] = bot
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


def plan(ws: Workspace, league: LeagueConfig, source: str = "<league>", edition: int = 0,
         verify: bool = True) -> tuple[list[ScheduledGame], dict[str, Path]]:
    """The full schedule and each label's bot folder; raises ConfigError before anything is stored.
    ``verify=False``: registry snapshots are not checked (nothing will run them: status, dry runs)."""
    games, bots = planned(ws, league, source, edition, verify)
    return games, {label: spec.folder for label, spec in bots.items()}


def planned(ws: Workspace, league: LeagueConfig, source: str, edition: int,
            verify: bool = True) -> tuple[list[ScheduledGame], dict[str, BotSpec]]:
    """``plan`` with each label's ``BotSpec``: its folder, and its exact version for the records."""
    entrants = resolve_entrants(ws, league, source, verify)
    bots = {e.label: BotSpec(e.label, bot.folder, version=bot.version) for e, bot in entrants.items()}
    return schedule(league, list(entrants), edition), bots


@dataclass(frozen=True)
class Pending:
    """What a run of the league file plays: its whole schedule, the games not stored yet, each label's bot,
    and the file against the stored definition of its name."""

    games: list[ScheduledGame]
    todo: list[ScheduledGame]
    bots: dict[str, BotSpec]
    definition: store.Definition

    def left(self) -> tuple[pd.DataFrame, pd.DataFrame]:
        """Games to play by configuration and by bot (a game counts once for each of its seats)."""
        import pandas as pd

        configurations = Counter(g.config.label for g in self.todo)
        bots = Counter(label for g in self.todo for label in g.seats)
        return (pd.DataFrame(configurations.items(), columns=["configuration", "left"]),
                pd.DataFrame(bots.most_common(), columns=["bot", "left"]))


def pending(ws: Workspace, league: LeagueConfig, source: str = "<league>", replace: bool = False,
            verify: bool = True) -> Pending:
    """The resume logic: the schedule computed afresh, less the games already stored (of any earlier run).
    A file whose name is stored with another definition is refused (ConfigError naming the difference)
    unless ``replace``: then its schedule, under the edition ``store.definition`` gives it, is what is played."""
    known = store.definition(ws, league)
    if known.differences and not replace:
        raise ConfigError(f"{source}: {known.refusal()}")
    games, bots = planned(ws, league, source, known.edition, verify)
    stored = store.played_ids(ws, league.name)
    return Pending(games, [g for g in games if g.id not in stored], bots, known)


def run_league(ws: Workspace, league: LeagueConfig, concurrency: int | None = None, progress: bool = True,
               source: str = "<league>", executor: Executor | None = None, scheduler: str | None = None,
               replace: bool = False, observer: LeagueObserver | None = None) -> RunSummary:
    """Play every game of the league that is not stored yet (see the module docstring). One runner per
    league and workspace (``leagues.locks``): ConfigError naming the running one's pid. A league stored
    under the same name with another definition is refused unless ``replace`` (``pending``).

    ``scheduler`` (or the league file's ``executor = "dask"`` and ``scheduler``) plays it on a Dask cluster
    (``leagues/dask_executor.py``); an unreachable or malformed address is a ConfigError before anything is stored.
    """
    with league_lock(ws, league.name):
        owned = None
        if executor is None and (scheduler or league.executor == "dask"):
            from leagues.dask_executor import DaskExecutor

            if not (scheduler or league.scheduler):
                raise ConfigError(f'{source}: executor = "dask" needs scheduler = "tcp://HOST:8786" in the file, '
                                  "or --scheduler")

            executor = owned = DaskExecutor(scheduler or league.scheduler or "", time_control=league.time_control,
                                            fault_policy=league.fault_policy, log_dir=ws.logs_dir / league.name)
        try:
            return _run_league(ws, league, concurrency, progress, source, executor, replace, observer)
        finally:
            if owned is not None:
                owned.close()


def _run_league(ws: Workspace, league: LeagueConfig, concurrency: int | None, progress: bool, source: str,
                executor: Executor | None, replace: bool,
                observer: LeagueObserver | None) -> RunSummary:
    to_play = pending(ws, league, source, replace)
    games, todo = to_play.games, to_play.todo
    jobs = [Job(g.id, g.config, tuple(to_play.bots[label] for label in g.seats), g.seed, g.opening) for g in todo]
    versions = {job.id: [spec.version for spec in job.seats] for job in jobs}
    if executor is None:
        options = {"log_dir": ws.logs_dir / league.name, "time_control": league.time_control,
                   "fault_policy": league.fault_policy}
        executor = LocalExecutor(options, games_at_once(league, concurrency))
    already = len(games) - len(todo)
    played = 0
    display = None
    # an executor written before observers takes the jobs alone; started before the display (which reads the
    # store's tables), so the bots start meanwhile
    with closing(executor.run(jobs, observer) if observer is not None else executor.run(jobs)) as finished:
        try:
            store.save_schedule(ws, league, games, to_play.definition.edition)
            display = ProgressDisplay(ws, league.name, len(games), already) if progress and jobs else None
            for record in finished:
                if record.versions != versions.get(record.id, record.versions):  # a cluster's referee gets folders
                    record = record.model_copy(update={"versions": versions[record.id]})
                played += store.save_game(ws, league.name, record)
                if observer is not None:
                    _tell_stored(observer, record)
                if display:
                    display.update(record, executor.status())
        finally:
            if display:
                display.close()
    return RunSummary(league.name, len(games), already, played)


def _tell_stored(observer: LeagueObserver, record: GameRecord) -> None:
    try:
        observer.stored(record)
    except Exception:  # an observer's bug must not stop the league (the record is stored)
        log.exception("league game %s: the observer failed on 'stored' (the league plays on)", record.id)


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
