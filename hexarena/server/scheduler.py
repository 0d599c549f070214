"""The server's continuous leagues: one runner thread per league, woken when a bot version is registered.

    scheduler = LeagueScheduler(home, [(config, "leagues/club.toml")], observer=hub.observer)
    scheduler.start()           each league runs at once (``run_league`` plays what is not stored yet)
    scheduler.wake()            after an upload: every league plans again (a new version's games are scheduled)
    scheduler.wake("club")      the organiser's POST /api/leagues/club/run
    scheduler.stop()            no run starts any more; a run in progress is abandoned with the process

A runner runs its league to the end, then idles until woken; a wake during a run makes it run again
after. Crash safety is the runner's (``hexarena.leagues.running.runner``): each finished game is stored as it ends, a
restart plays only what is missing, and ``hexarena.leagues.workspace.locks`` keeps one runner per league and workspace (a
``hexarena league run`` of the same league elsewhere: this one reports the lock and tries again later).
A league that cannot run (too few bots, a bot's snapshot changed, any bug) is reported on stderr and in
the queue, and never stops the server: the runner waits for the next wake, or ``RETRY`` seconds.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from hexarena.leagues.schedule.config import ALL, LeagueConfig
from hexarena.leagues.running.runner import league_settings, run_league
from hexarena.leagues.workspace.home import Workspace
from hexarena.protocol.errors import HexarenaError
from hexarena.server.lifecycle import event, log
from hexarena.referee.clock import TimeControl

RETRY = 60.0  # seconds before a league that failed to run tries again unwoken


@dataclass
class LeagueRunner:
    """One league's thread and what the queue shows of it."""

    config: LeagueConfig
    source: str
    wake: threading.Event = field(default_factory=threading.Event)
    state: str = "queued"  # queued (woken, about to run), running, idle, error
    last_error: str | None = None
    last_run: str | None = None  # when the last run ended
    runs: int = 0
    thread: threading.Thread | None = None


class LeagueScheduler:
    """Plays the given leagues continuously in ``home`` (module docstring)."""

    def __init__(self, home: Path, leagues: list[tuple[LeagueConfig, str]],
                 observer: Callable[[str], object] | None = None, retry: float = RETRY, pin_cores: bool = False) -> None:
        self.home = home
        self.pin_cores = pin_cores  # each league's referee workers and their bots on cores of their own, in turn
        self.runners = {config.name: LeagueRunner(config, source) for config, source in leagues}
        self.observer = observer
        self.retry = retry
        self.stopping = threading.Event()

    def start(self) -> None:
        for runner in self.runners.values():
            runner.wake.set()
            runner.thread = threading.Thread(target=self._loop, args=(runner,), daemon=True,
                                             name=f"league-{runner.config.name}")
            runner.thread.start()

    def strictest_time_control(self, bot: str) -> tuple[TimeControl, str] | None:
        """The time control an upload of ``bot`` is checked at: the strictest of the served leagues it will enter
        (participants ``all``, or its name), and how to name it ("league club's 200ms"); None if it enters none.
        Strictest: the least time for a move (a bank's control by its increment plus a thirtieth of the bank: a
        bot's share of the moves of a mid-sized board)."""
        def per_move(control: TimeControl) -> float:
            return control.move if control.move is not None else control.increment + control.bank / 30

        entered = [runner.config for runner in self.runners.values()
                   if any(p == ALL or p.partition("@")[0] == bot for p in runner.config.participants)]
        if not entered:
            return None
        strictest = min(entered, key=lambda config: (per_move(config.time_control), config.name))
        return strictest.time_control, f"league {strictest.name}'s time control {strictest.time_control}"

    def wake(self, league: str | None = None) -> None:
        """Make one league (None: every league) plan and run again as soon as its current run ends."""
        for runner in self.runners.values() if league is None else [self.runners[league]]:
            if runner.state != "running":
                runner.state = "queued"
            runner.wake.set()

    def stop(self) -> None:
        self.stopping.set()
        for runner in self.runners.values():
            runner.wake.set()

    def _loop(self, runner: LeagueRunner) -> None:
        with Workspace(self.home) as ws:
            while not self.stopping.is_set():
                runner.wake.wait(None if runner.state != "error" else self.retry)
                if self.stopping.is_set():
                    return
                runner.wake.clear()
                self._run_once(ws, runner)

    def _run_once(self, ws: Workspace, runner: LeagueRunner) -> None:
        name = runner.config.name
        runner.state = "running"
        began = time.monotonic()
        event("league_started", f"league {name}: run started", league=name)
        try:
            # uploaded code runs only in the sandbox, whatever the file says (create_app refuses sandbox = false)
            settings = league_settings(ws, runner.config, sandboxed=True)
            summary = run_league(ws, runner.config, progress=False, source=runner.source, settings=settings,
                                 observer=self.observer(name) if self.observer else None, pin_cores=self.pin_cores)
        except HexarenaError as exc:  # too few bots, the league's lock held elsewhere, a changed snapshot
            self._failed(runner, str(exc))
            return
        except Exception as exc:  # noqa: BLE001 - a bug here must not stop the server: reported, retried
            log.exception("league %s: internal error", name, extra={"event": "internal_error", "fields": {}})
            self._failed(runner, f"internal error: {type(exc).__name__}: {exc}")
            return
        runner.runs += 1
        runner.last_error = None
        runner.last_run = datetime.now(UTC).isoformat(timespec="seconds")
        runner.state = "queued" if runner.wake.is_set() else "idle"
        seconds = time.monotonic() - began
        stored = summary.already + summary.played
        event("league_finished", f"league {name}: run finished, {summary.played} games played in {seconds:.1f} s, "
                                 f"{stored} of {summary.total} stored", league=name, played=summary.played,
              seconds=round(seconds, 3), stored=stored, total=summary.total)

    def _failed(self, runner: LeagueRunner, message: str) -> None:
        runner.state, runner.last_error = "error", message.splitlines()[0] if message else "failed"
        event("league_failed", f"league {runner.config.name} did not run: {runner.last_error} "
                               f"(again after the next upload, or in {self.retry:.0f} s)", logging.WARNING,
              league=runner.config.name, error=runner.last_error)
