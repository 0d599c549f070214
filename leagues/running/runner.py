"""Running a league: resolve the bots, schedule, play what is missing, store each game as it ends.

    summary = run_league(ws, load_league("leagues/demo.toml"), concurrency=2)

Games are played through an ``Executor``: it takes jobs and yields finished records in any order.
``LocalExecutor`` plays them on this machine: in worker processes for two or more games at once, on a
thread for one; each worker owns one ``Referee`` (``referee/pool.py``), which keeps its bots running
across the games it plays. A distributed engine can plug in by implementing ``Executor.run``. Every
executor's referees are made from one ``RefereeSettings``: ``league_settings`` reads it from the league
file (time control, fault policy, ``sandbox``) once per run, and the caller may hand its own.

An ``observer`` (``LeagueObserver``, e.g. the server's live results) hears of every game's start, moves
and end from the game loop (the local executor; the Dask executor ignores it: its games run on workers),
and of every record once it is stored.

Resuming is the normal case: the schedule is computed afresh on every run and only games whose id is
not stored yet are played. Every finished game is stored in one transaction as soon as it arrives, so
SIGKILL or Ctrl-C loses at most the games in flight. While it runs, the commits are not flushed to the disk one
by one (``store.commits_without_fsync``): a committed game survives the runner's death, and only a power cut
or kernel crash can take back the last ones, which the next run plays again.
"""

from __future__ import annotations

import logging
from collections import Counter
from contextlib import closing, nullcontext
from dataclasses import dataclass
from math import comb
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from hexarena.leagues.results import definitions, store
from hexarena.leagues.registry.resolve import ResolvedBot, active_bots, resolve
from hexarena.leagues.schedule.config import ALL, MAX_TABLES, LeagueConfig
from hexarena.leagues.running.jobs import Job
from hexarena.leagues.running.fairness import games_at_once
from hexarena.leagues.workspace.locks import league_lock
from hexarena.leagues.schedule.games import Entrant, ScheduledGame, gauntlet_entrant, schedule
from hexarena.leagues.workspace.home import Workspace
from hexarena.protocol.errors import ConfigError
from hexarena.referee.game import GameObserver
from hexarena.referee.observers import tell
from hexarena.referee.pool import Workers
from hexarena.referee.seats.process import BotSpec
from hexarena.referee.record import GameRecord
from hexarena.referee.settings import RefereeSettings
from hexarena.leagues.running.executors.base import Executor
from hexarena.leagues.running.executors.local import LocalExecutor
from hexarena.leagues.running.progress import ProgressDisplay

if TYPE_CHECKING:  # both import pandas: a league run hands out its first games before it needs it
    import pandas as pd

    from hexarena.leagues.running.adaptive import AdaptiveLeague


log = logging.getLogger("hexarena.leagues.runner")


class LeagueObserver(GameObserver, Protocol):
    """A ``GameObserver`` that also hears when a finished game's record is stored (called from the runner's thread)."""

    def stored(self, record: GameRecord) -> None: ...


def league_settings(ws: Workspace, league: LeagueConfig, *, sandboxed: bool | None = None) -> RefereeSettings:
    """How the league's referees are made: its file's time control and fault policy, the bots' logs in the
    workspace (``logs/NAME``), sandboxed as the file says (``sandbox``) unless ``sandboxed`` says otherwise
    (the organiser's --no-sandbox, or the server, which sandboxes every league)."""
    return RefereeSettings(time_control=league.time_control, fault_policy=league.fault_policy,
                           sandboxed=league.sandbox if sandboxed is None else sandboxed,
                           log_dir=ws.logs_dir / league.name, replay_host_stalls=league.replay_host_stalls)


@dataclass(frozen=True)
class RunSummary:
    league: str
    total: int  # games in the schedule
    already: int  # stored before this run
    played: int  # stored by this run


def resolve_entrants(ws: Workspace, league: LeagueConfig, source: str,
                     verify: bool = True) -> dict[Entrant, ResolvedBot]:
    """The league's bots (label, version key) and what each runs; ConfigError naming the file and field."""
    try:
        bots = active_bots(ws, verify) if league.participants == [ALL] else [
            resolve(ws, text, verify=verify) for text in league.participants]
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
    definition: definitions.Definition
    adaptive: AdaptiveLeague | None = None  # an adaptive league: its field and next batch (``batch``)

    def left(self) -> tuple[pd.DataFrame, pd.DataFrame]:
        """Games to play by configuration and by bot (a game counts once for each of its seats)."""
        import pandas as pd

        configurations = Counter(g.config.label for g in self.todo)
        bots = Counter(label for g in self.todo for label in g.seats)
        return (pd.DataFrame(configurations.items(), columns=["configuration", "left"]),
                pd.DataFrame(bots.most_common(), columns=["bot", "left"]))


def adaptive_league(ws: Workspace, league: LeagueConfig, source: str = "<league>", replace: bool = False,
                    verify: bool = True) -> tuple[AdaptiveLeague, dict[str, BotSpec], definitions.Definition]:
    """An adaptive league's schedule so far, each label's bot and the stored definition (refused as ``pending``)."""
    from hexarena.leagues.running.adaptive import AdaptiveLeague

    known = definitions.definition(ws, league)
    if known.differences and not replace:
        raise ConfigError(f"{source}: {known.refusal()}")
    entrants = resolve_entrants(ws, league, source, verify)
    bots = {e.label: BotSpec(e.label, bot.folder, version=bot.version) for e, bot in entrants.items()}
    return AdaptiveLeague(ws, league, list(entrants), known.edition), bots, known


def pending(ws: Workspace, league: LeagueConfig, source: str = "<league>", replace: bool = False,
            verify: bool = True) -> Pending:
    """The resume logic: the schedule computed afresh, less the games already stored (of any earlier run).
    A file whose name is stored with another definition is refused (ConfigError naming the difference)
    unless ``replace``: then its schedule, under the edition ``definitions.definition`` gives it, is what is played."""
    if league.pairing == "adaptive":  # the schedule so far and the next batch (``league status`` shows why)
        adaptive, bots, known = adaptive_league(ws, league, source, replace, verify)
        todo = adaptive.next_batch(write=False)
        return Pending(adaptive.scheduled, todo, bots, known, adaptive)
    known = definitions.definition(ws, league)
    if known.differences and not replace:
        raise ConfigError(f"{source}: {known.refusal()}")
    games, bots = planned(ws, league, source, known.edition, verify)
    stored = store.played_ids(ws, league.name)
    return Pending(games, [g for g in games if g.id not in stored], bots, known)


def run_league(ws: Workspace, league: LeagueConfig, concurrency: int | None = None, progress: bool = True,
               source: str = "<league>", executor: Executor | None = None, scheduler: str | None = None,
               replace: bool = False, observer: LeagueObserver | None = None,
               settings: RefereeSettings | None = None, workers: Workers | None = None,
               pin_cores: bool = False) -> RunSummary:
    """Play every game of the league that is not stored yet (see the module docstring). One runner per
    league and workspace (``hexarena.leagues.workspace.locks``): ConfigError naming the running one's pid. A league stored
    under the same name with another definition is refused unless ``replace`` (``pending``).

    ``scheduler`` (or the league file's ``executor = "dask"`` and ``scheduler``) plays it on a Dask cluster
    (``hexarena.leagues.running.executors.dask_driver``); an unreachable or malformed address is a ConfigError
    before anything is stored. ``settings``: how its referees are made (default: ``league_settings``).
    ``workers``: referee worker processes started ahead (``hexarena.referee.pool.Workers``) for the local executor
    this function makes; those no pool took are the caller's to close (it started them). ``pin_cores``: that
    executor's workers and their bots each on a core of their own (``hexarena.referee.pool.RefereeProcessPool``).
    """
    return _locked(ws, league, concurrency, progress, source, executor, scheduler, replace, observer,
                   settings or league_settings(ws, league), workers, pin_cores)


def _locked(ws: Workspace, league: LeagueConfig, concurrency: int | None, progress: bool, source: str,
            executor: Executor | None, scheduler: str | None, replace: bool, observer: LeagueObserver | None,
            settings: RefereeSettings, workers: Workers | None, pin_cores: bool) -> RunSummary:
    with league_lock(ws, league.name):
        owned = None
        if executor is None and (scheduler or league.executor == "dask"):
            from hexarena.leagues.running.executors.dask_driver import DaskExecutor

            if not (scheduler or league.scheduler):
                raise ConfigError(f'{source}: executor = "dask" needs scheduler = "tcp://HOST:8786" in the file, '
                                  "or --scheduler")

            executor = owned = DaskExecutor(scheduler or league.scheduler or "", settings)
        try:
            return _run_league(ws, league, concurrency, progress, source, executor, replace, observer, settings,
                               workers, pin_cores)
        finally:
            if owned is not None:
                owned.close()


def _run_league(ws: Workspace, league: LeagueConfig, concurrency: int | None, progress: bool, source: str,
                executor: Executor | None, replace: bool,
                observer: LeagueObserver | None, settings: RefereeSettings, workers: Workers | None,
                pin_cores: bool) -> RunSummary:
    if league.pairing == "adaptive":
        return _run_adaptive(ws, league, concurrency, progress, source, executor, replace, observer, settings, workers,
                             pin_cores)
    to_play = pending(ws, league, source, replace)
    games, todo = to_play.games, to_play.todo
    jobs = [Job(g.id, g.config, tuple(to_play.bots[label] for label in g.seats), g.seed, g.opening) for g in todo]
    if executor is None:
        executor = LocalExecutor(settings, games_at_once(league, concurrency), workers=workers, pin=pin_cores)
    if jobs:
        executor.check(jobs)
    already = len(games) - len(todo)
    played = 0
    display = None

    def prepare() -> None:  # the schedule stored, the display made (it reads the store's tables)
        nonlocal display
        definitions.save_schedule(ws, league, games, to_play.definition.edition)
        display = ProgressDisplay(ws, league.name, len(games), already) if progress and jobs else None

    # a referee on a thread of this process (one game at a time) shares its GIL: this work done first, it cannot
    # hold up the first game's clocks; else the executor starts first, so the bots start meanwhile
    threaded = executor.threaded(jobs)
    if threaded:
        prepare()
    # an executor written before observers takes the jobs alone
    with closing(executor.run(jobs, observer) if observer is not None else executor.run(jobs)) as finished, \
            store.commits_without_fsync(ws):
        try:
            if not threaded:
                prepare()
            for record in finished:
                played += store.save_game(ws, league.name, record)
                if observer is not None:  # its bug must not stop the league (the record is stored)
                    tell(observer, "stored", record, what=f"league game {record.id}", then="the league plays on",
                         logger=log)
                if display:
                    display.update(record, executor.status())
        finally:
            if display:
                display.close(executor.summary())
    if played:
        save_ratings_snapshot(ws, league.name, {label: spec.version for label, spec in to_play.bots.items()})
    return RunSummary(league.name, len(games), already, played)


def save_ratings_snapshot(ws: Workspace, name: str, versions: dict[str, str]) -> None:
    """The league's ratings (``hexarena.leagues.results.ratings``) stored as its next snapshot (a round robin's run)."""
    from hexarena.leagues.results.ratings import ratings

    table = ratings(store.tally(ws, name).games)
    store.save_snapshot(ws, name, [(row.bot, versions.get(row.bot, row.bot), row.elo, row.elo_low, row.elo_high,
                                    row.games) for row in table.itertuples()])



def _run_adaptive(ws: Workspace, league: LeagueConfig, concurrency: int | None, progress: bool, source: str,
                  executor: Executor | None, replace: bool,
                  observer: LeagueObserver | None, settings: RefereeSettings, workers: Workers | None,
                  pin_cores: bool) -> RunSummary:
    """An adaptive league: batch after batch chosen (``hexarena.leagues.running.adaptive``), played and stored,
    until its stop rule; with ``progress``, one line per batch on stderr (its tables, the calibrating bots)."""
    import sys

    adaptive, bots, _ = adaptive_league(ws, league, source, replace)
    already = sum(1 for g in adaptive.scheduled if g.id in store.played_ids(ws, league.name))
    owned = None
    if executor is None:  # one pool for every batch: its workers and their bots start once
        executor = owned = LocalExecutor(settings, games_at_once(league, concurrency), keep=True, workers=workers,
                                         pin=pin_cores)
    played = 0
    with closing(owned) if owned is not None else nullcontext(), store.commits_without_fsync(ws):
        while games := adaptive.next_batch():
            jobs = [Job(g.id, g.config, tuple(bots[label] for label in g.seats), g.seed, g.opening) for g in games]
            with closing(executor.run(jobs, observer) if observer is not None else executor.run(jobs)) as finished:
                for record in finished:
                    played += store.save_game(ws, league.name, record)
                    if observer is not None:
                        tell(observer, "stored", record, what=f"league game {record.id}", then="the league plays on",
                             logger=log)
            store.save_snapshot(ws, league.name,
                                adaptive.snapshot_rows({label: spec.version for label, spec in bots.items()}))
            if progress:
                print(f"league {league.name}: batch {adaptive.number}: {len(games)} games "
                      f"({len(adaptive.batch.tables)} tables), {already + played} played", file=sys.stderr)
    if progress:
        print(f"league {league.name}: adaptive pairing stopped: {STOPS.get(adaptive.batch.stop, adaptive.batch.stop)}",
              file=sys.stderr)
    return RunSummary(league.name, len(adaptive.scheduled), already, played)


STOPS = {"separated": "every neighbouring pair of the standings is separated at 95% confidence",
         "budget": "the budget is spent (games per version, or in the league)"}
