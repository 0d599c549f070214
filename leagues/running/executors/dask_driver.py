"""Leagues across machines: an ``Executor`` that plays on a Dask distributed cluster (the ``dask`` extra).

    executor = DaskExecutor("tcp://10.0.0.5:8786", settings)     # the league's RefereeSettings
    for record in executor.run(jobs): ...          # as each seat cycle finishes, on whichever worker
    executor.close()

``distributed`` is imported only when a ``DaskExecutor`` is made (here) or a worker runs one of its tasks
(``dask_worker.py``); without the extra, ``DaskExecutor(...)`` is a one-line ``ConfigError``.

The contract, driver side:
    * One task per seat cycle: the games of one table on one board sharing one seed (every seat
      rotation, ``hexarena.leagues.schedule.games``), so a pair is never split across machines of
      different speed and its bots start once. A task asks for ``resources={"seat": players}``; start workers with
      ``dask worker ADDRESS --nthreads N --resources seat=N`` (one seat per core).
    * Workers are watched (``WorkerWatch``): before anything is submitted, a cluster with no worker offering
      enough ``seat`` resources for the league's tables is a ConfigError naming the worker command that fixes
      it; during the run each worker joining or leaving is one line, and so is the last capable worker
      leaving (the run then waits for another: the tasks stay queued on the scheduler).
    * Bots travel by content hash. The driver copies each bot folder once with the registry's
      ``copy_and_hash`` (so the hash describes exactly the bytes sent), tars the copy and publishes it
      on the scheduler as the dataset ``hexarena-bot-<hash>`` (content-addressed, so drivers sharing a
      scheduler share it; no worker has to survive for it to stay). A game names its seats
      ``(label, hash, version)``; a worker asks for the bytes only when its disk cache lacks that hash.
    * Records stream back with ``as_completed``; the driver alone writes SQLite (the runner, one
      transaction per game). Closing the iterator cancels every pending task.
    * Faults: a worker that dies mid-task → Dask runs the task again elsewhere (game ids are
      idempotent: the store ignores a game stored already). A task that killed more workers than
      Dask's ``allowed-failures`` (default 3) is reported on stderr and left unplayed (a rerun tries it again).
      The scheduler lost → ``ExecutorLost`` (one line); a rerun resumes.
    * Each task carries the run's ``RefereeSettings`` (``referee/settings.py``): the workers' referees are
      made from it, sandboxed or not as the organiser chose; the bots' logs come back to its ``log_dir``.

Worker side: ``dask_worker.py`` (``play_cycle``, the bot cache, the warm referees).
"""

from __future__ import annotations

import logging
import re
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import CancelledError
from pathlib import Path

from hexarena.leagues.registry.snapshot import pack_snapshot
from hexarena.leagues.running.executors.base import Executor
from hexarena.leagues.errors import RERUN, ExecutorLost, SnapshotMismatch
from hexarena.leagues.running.executors.dask_worker import PLUGIN, RefereePlugin, WireJob, play_cycle
from hexarena.leagues.running.jobs import Job
from hexarena.leagues.results.wording import plural
from hexarena.protocol.errors import ConfigError
from hexarena.referee.game import GameObserver
from hexarena.referee.record import GameRecord
from hexarena.referee.settings import RefereeSettings

ADDRESS = re.compile(r"(tcp|tls|ws|wss)://(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.\-]+):\d{1,5}")  # IPv6 in brackets
CONNECT_TIMEOUT = 10.0  # seconds to reach the scheduler
WATCH_EVERY = 1.0  # seconds between looks at the scheduler's workers during a run


def seat_cycles(jobs: Sequence[Job]) -> list[list[Job]]:
    """Jobs grouped by (board configuration, sorted seat labels, seed), in the order they first appear."""
    groups: dict[tuple, list[Job]] = {}
    for job in jobs:
        key = (job.config.model_dump_json(), tuple(sorted(spec.name for spec in job.seats)), job.seed)
        groups.setdefault(key, []).append(job)
    return list(groups.values())


def _said(exc: OSError | SnapshotMismatch) -> str:
    """An error raised on a worker, in one line: an OSError's kind, text and file (a worker's path, not this
    machine's); a snapshot refused, with a hint at its likeliest cause."""
    if isinstance(exc, SnapshotMismatch):
        return f"{exc} (is the worker's hexarena the same version as this one?)"
    where = f": {exc.filename}" if exc.filename else ""
    return f"{type(exc).__name__}: {exc.strerror or exc}{where}"


def distributed_module():
    try:
        import distributed
    except ImportError:
        raise ConfigError("--scheduler needs Dask distributed, which is not installed: "
                          "python3 -m pip install 'hexarena[dask]'") from None
    return distributed


class DaskExecutor(Executor):
    """Plays seat cycles as Dask tasks on the cluster whose scheduler is at ``scheduler`` (see the module docstring).

    Connecting happens here, so a bad address is a ``ConfigError`` before anything is stored.
    """

    def __init__(self, scheduler: str, settings: RefereeSettings, *, timeout: float | None = None,
                 warn: Callable[[str], None] = lambda line: print(f"hexarena: {line}", file=sys.stderr)) -> None:
        distributed = distributed_module()
        timeout = timeout or CONNECT_TIMEOUT
        if not isinstance(scheduler, str) or not ADDRESS.fullmatch(scheduler):
            raise ConfigError(f"scheduler {scheduler!r} is not a Dask scheduler address "
                              "(expected tcp://HOST:PORT, or tls://HOST:PORT)")
        self.scheduler = scheduler
        self.settings = settings  # the workers' referees are made from it; the bots' logs come back to its log_dir
        self.log_dir = settings.log_dir
        self.warn = warn
        self.hosts: dict[str, int] = {}  # host name → games played there in this run
        self.in_flight = 0  # seat cycles submitted and not finished (running or queued)
        self.tasks, self.busy = 0, 0.0  # seat cycles finished, and the seconds workers spent in them
        self.watch: WorkerWatch | None = None
        self.published: dict[Path, tuple[str, str]] = {}  # bot folder → (content hash, dataset name), see _packs
        logging.getLogger("distributed.client").setLevel(logging.CRITICAL)  # its reconnect noise: we say it in one line
        try:
            self.client = distributed.Client(scheduler, timeout=timeout, set_as_default=False)
        except (OSError, TimeoutError) as exc:
            raise ConfigError(f"cannot reach the Dask scheduler at {scheduler} within {timeout:g} s "
                              f"({type(exc).__name__}); is 'dask scheduler' running there?") from None
        try:
            self.client.register_plugin(RefereePlugin(), name=PLUGIN)
        except (OSError, TimeoutError) as exc:
            self.client.close()
            raise ExecutorLost(f"lost the Dask scheduler at {scheduler} ({type(exc).__name__}) while preparing "
                               "its workers; nothing was played") from None

    def close(self) -> None:
        self.client.close()

    def check(self, jobs: Sequence[Job]) -> None:
        """A ConfigError naming the worker command that fixes it when no worker offers enough ``seat`` resources."""
        if self.watch is None:
            self.watch = WorkerWatch(self.client, self.scheduler, max((job.config.players for job in jobs), default=2),
                                     self.warn)
            self.watch.look(first=True)

    def status(self) -> str:
        """Workers and seat cycles running and queued, for the progress display (the watch's last look)."""
        if self.watch is None:
            return ""
        running = min(self.watch.running, self.in_flight)
        return f"{plural(len(self.watch.workers), 'worker')}, {running} running, {self.in_flight - running} queued"

    def summary(self) -> str:
        hosts = ", ".join(f"{host} {count}" for host, count in sorted(self.hosts.items()))
        return f"on {plural(len(self.hosts), 'host')}" + (f" (games by host: {hosts})" if hosts else "")

    def run(self, jobs: Sequence[Job], observer: GameObserver | None = None) -> Iterator[GameRecord]:
        """The games, as their seat cycles finish on the workers; ``observer`` is ignored (the moves are played
        on the workers: of an observer, only ``LeagueObserver.stored`` is called, by the runner)."""
        distributed = distributed_module()
        self.check(jobs)
        packs = self._packs(jobs)
        digests = {folder: digest for folder, (digest, _) in packs.items()}
        futures, cycles = [], {}
        for cycle in seat_cycles(jobs):
            games = [WireJob.of(job, digests) for job in cycle]
            keys = dict(packs[s.folder] for j in cycle for s in j.seats)
            futures.append(self.client.submit(play_cycle, games, keys, self.settings, key=f"hexarena-cycle-{cycle[0].id}",
                                              resources={"seat": cycle[0].config.players}, pure=False))
            cycles[futures[-1].key] = cycle[0]
        self.in_flight = len(futures)
        pending = set(futures)
        finished = distributed.as_completed(futures, loop=self.client.loop)
        try:
            for future in self._watched(finished):
                pending.discard(future)
                self.in_flight = len(pending)
                try:
                    result = self._result(future)
                except distributed.KilledWorker:
                    first = cycles[future.key]
                    self.warn(f"the seat cycle of {' v '.join(s.name for s in first.seats)} on {first.config.label} "
                              f"(game {first.id} and its rotations) killed every worker it ran on; left unplayed, "
                              "a rerun tries it again")
                    continue
                except (CancelledError, OSError, SnapshotMismatch) as exc:
                    if not isinstance(exc, CancelledError) and future.status == "error":  # raised on the worker:
                        # not the scheduler lost, which would send the organiser to the wrong machine
                        raise ExecutorLost(f"a Dask worker failed at game {cycles[future.key].id}: {_said(exc)}; "
                                           f"{RERUN} once the worker is mended") from None
                    raise ExecutorLost(f"lost the Dask scheduler ({type(exc).__name__}); {RERUN}") from None
                self.hosts[result["host"]] = self.hosts.get(result["host"], 0) + len(result["records"])
                self.tasks, self.busy = self.tasks + 1, self.busy + result["seconds"]
                self._write_logs(result["logs"])
                for text in result["records"]:
                    yield GameRecord.model_validate_json(text)
        finally:
            if pending and self.client.status == "running":
                self.client.cancel(list(pending))

    def _watched(self, finished) -> Iterator:
        """The futures of ``finished`` (an ``as_completed``) as they finish, looking at the workers every
        ``WATCH_EVERY`` seconds meanwhile (an idle cluster yields nothing: the watch still speaks)."""
        while not finished.is_empty():
            if finished.has_ready():
                yield from finished.next_batch(block=False)
            else:
                time.sleep(0.02)
            if time.monotonic() - self.watch.at >= WATCH_EVERY:
                self._look()

    def _result(self, future):
        """``future.result()``, looking at the workers meanwhile: a finished cycle whose worker left before its
        result was fetched is played again elsewhere, and that waits for a worker, as the games do."""
        while True:
            try:
                return future.result(timeout=WATCH_EVERY)
            except TimeoutError:  # (an OSError: caught here, before the caller takes it for a lost scheduler)
                if future.status == "error":  # the cycle's own TimeoutError, raised on its worker: not a wait
                    raise
                self._look()

    def _look(self) -> None:
        try:
            self.watch.look()
        except (OSError, TimeoutError):  # the scheduler lost: its futures say so
            pass

    def _packs(self, jobs: Sequence[Job]) -> dict[Path, tuple[str, str]]:
        """Each bot folder → (content hash, name of the scheduler's dataset holding its tar), packed and published
        once per folder for this executor's life (an adaptive league's batches send each bot once)."""
        for folder in {spec.folder for job in jobs for spec in job.seats} - self.published.keys():
            digest, data = pack_snapshot(folder)
            name = f"hexarena-bot-{digest}"
            self.client.publish_dataset(override=True, **{name: data})
            self.published[folder] = (digest, name)
        return self.published

    def _write_logs(self, logs: dict[str, bytes]) -> None:
        if self.log_dir is None or not logs:
            return
        self.log_dir.mkdir(parents=True, exist_ok=True)
        for name, data in logs.items():
            (self.log_dir / Path(name).name).write_bytes(data)


class WorkerWatch:
    """What the scheduler's workers offer, looked at now and then (``look``): one line per worker joining or
    leaving, and one when no worker can seat the league's largest table (``players`` seats)."""

    def __init__(self, client, scheduler: str, players: int, warn: Callable[[str], None]) -> None:
        self.client, self.scheduler, self.players, self.warn = client, scheduler, players, warn
        self.workers: dict[str, dict] = {}  # address → the scheduler's description of it
        self.running = 0  # seat cycles the workers run now (at most their seats allow)
        self.at = 0.0
        self._capable = True

    @property
    def fix(self) -> str:
        n = self.players
        return f"start one with: dask worker {self.scheduler} --nthreads {n} --resources seat={n}"

    def seats(self, worker: dict) -> float:
        return float((worker.get("resources") or {}).get("seat", 0))

    def look(self, first: bool = False) -> None:
        self.at = time.monotonic()
        workers = self.client.scheduler_info(n_workers=-1).get("workers", {})
        if not first:
            for address in sorted(workers.keys() - self.workers.keys()):
                self.warn(f"worker {address} joined ({self.offer(workers[address])})")
            for address in sorted(self.workers.keys() - workers.keys()):
                self.warn(f"worker {address} left")
        self.workers = workers
        processing = self.client.processing() if workers else {}
        self.running = sum(min(len(processing.get(address, ())), int(self.seats(worker) // self.players),
                               int(worker.get("nthreads") or 1)) for address, worker in workers.items())
        capable = any(self.seats(worker) >= self.players for worker in workers.values())
        if first and not capable:
            raise ConfigError(f"no Dask worker at {self.scheduler} offers seat={self.players} for the league's "
                              f"{self.players}-player tables ({self.offers()}); {self.fix}")
        if self._capable and not capable:
            self.warn(f"no worker left offers seat={self.players} ({self.offers()}): the games wait; {self.fix}")
        self._capable = capable

    def offer(self, worker: dict) -> str:
        seats = self.seats(worker)
        return f"seat={seats:g}" if seats else "no seat resources"

    def offers(self) -> str:
        if not self.workers:
            return "no worker is connected"
        return "workers: " + ", ".join(f"{address} {self.offer(w)}" for address, w in sorted(self.workers.items()))
