"""TODO docstring: part of the former hexarena.leagues.running.executors.dask_worker."""

from __future__ import annotations

import logging
import re
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import CancelledError
from pathlib import Path

from hexarena.leagues.running.executors.base import Executor, ExecutorLost
from hexarena.leagues.running.jobs import Job
from hexarena.protocol.errors import ConfigError
from hexarena.referee import sandbox
from hexarena.referee.clock import TimeControl
from hexarena.referee.game import GameObserver
from hexarena.referee.record import GameRecord
from hexarena.leagues.running.executors.dask_worker import PLUGIN, RefereePlugin, Settings, WireJob, play_cycle
from hexarena.leagues.registry.snapshot import pack_snapshot

ADDRESS = re.compile(r"(tcp|tls|ws|wss)://(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.\-]+):\d{1,5}")  # IPv6 in brackets
CONNECT_TIMEOUT = 10.0  # seconds to reach the scheduler


def seat_cycles(jobs: Sequence[Job]) -> list[list[Job]]:
    """Jobs grouped by (board configuration, sorted seat labels, seed), in the order they first appear."""
    groups: dict[tuple, list[Job]] = {}
    for job in jobs:
        key = (job.config.model_dump_json(), tuple(sorted(spec.name for spec in job.seats)), job.seed)
        groups.setdefault(key, []).append(job)
    return list(groups.values())


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

    def __init__(self, scheduler: str, *, time_control: TimeControl, fault_policy: str = "forfeit",
                 log_dir: Path | None = None, timeout: float | None = None,
                 warn: Callable[[str], None] = lambda line: print(f"hexarena: {line}", file=sys.stderr)) -> None:
        distributed = distributed_module()
        timeout = timeout or CONNECT_TIMEOUT
        if not isinstance(scheduler, str) or not ADDRESS.fullmatch(scheduler):
            raise ConfigError(f"scheduler {scheduler!r} is not a Dask scheduler address "
                              "(expected tcp://HOST:PORT, or tls://HOST:PORT)")
        self.settings = Settings(time_control, fault_policy, sandbox.enabled())
        self.log_dir = log_dir
        self.warn = warn
        self.hosts: dict[str, int] = {}  # host name → games played there in this run
        self.in_flight = 0
        self.tasks, self.busy = 0, 0.0  # seat cycles finished, and the seconds workers spent in them
        self._asked, self._workers = 0.0, 0
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

    def status(self) -> str:
        """Workers, seat cycles in flight and games by host, for the progress display (asks the scheduler once a second)."""
        if time.monotonic() - self._asked > 1.0 and self.client.status == "running":
            self._asked, self._workers = time.monotonic(), len(self.client.nthreads())
        hosts = ", ".join(f"{host} {count}" for host, count in sorted(self.hosts.items()))
        return f"{self._workers} workers, {self.in_flight} cycles in flight; games by host: {hosts}"

    def run(self, jobs: Sequence[Job], observer: GameObserver | None = None) -> Iterator[GameRecord]:
        """The games, as their seat cycles finish on the workers; ``observer`` is ignored (the moves are played
        on the workers: of an observer, only ``LeagueObserver.stored`` is called, by the runner)."""
        distributed = distributed_module()
        packs = self._packs(jobs)
        futures, cycles = [], {}
        for cycle in seat_cycles(jobs):
            games = [WireJob(j.id, j.config, tuple((s.name, packs[s.folder][0]) for s in j.seats), j.seed,
                          tuple(getattr(j, "opening", ()))) for j in cycle]
            keys = dict(packs[s.folder] for j in cycle for s in j.seats)
            futures.append(self.client.submit(play_cycle, games, keys, self.settings, key=f"hexarena-cycle-{cycle[0].id}",
                                              resources={"seat": cycle[0].config.players}, pure=False))
            cycles[futures[-1].key] = cycle[0]
        self.in_flight = len(futures)
        pending = set(futures)
        try:
            for future in distributed.as_completed(futures, loop=self.client.loop):
                pending.discard(future)
                self.in_flight = len(pending)
                try:
                    result = future.result()
                except distributed.KilledWorker:
                    first = cycles[future.key]
                    self.warn(f"the seat cycle of {' v '.join(s.name for s in first.seats)} on {first.config.label} "
                              f"(game {first.id} and its rotations) killed every worker it ran on; left unplayed, "
                              "a rerun tries it again")
                    continue
                except (CancelledError, OSError) as exc:
                    raise ExecutorLost(f"lost the Dask scheduler ({type(exc).__name__}); the finished games are "
                                       "stored, and running the same command again plays the rest") from None
                self.hosts[result["host"]] = self.hosts.get(result["host"], 0) + len(result["records"])
                self.tasks, self.busy = self.tasks + 1, self.busy + result["seconds"]
                self._write_logs(result["logs"])
                for text in result["records"]:
                    yield GameRecord.model_validate_json(text)
        finally:
            if pending and self.client.status == "running":
                self.client.cancel(list(pending))

    def _packs(self, jobs: Sequence[Job]) -> dict[Path, tuple[str, str]]:
        """Each bot folder → (content hash, name of the scheduler's dataset holding its tar), once per folder."""
        packs: dict[Path, tuple[str, str]] = {}
        for folder in {spec.folder for job in jobs for spec in job.seats}:
            digest, data = pack_snapshot(folder)
            name = f"hexarena-bot-{digest}"
            self.client.publish_dataset(override=True, **{name: data})
            packs[folder] = (digest, name)
        return packs

    def _write_logs(self, logs: dict[str, bytes]) -> None:
        if self.log_dir is None or not logs:
            return
        self.log_dir.mkdir(parents=True, exist_ok=True)
        for name, data in logs.items():
            (self.log_dir / Path(name).name).write_bytes(data)
