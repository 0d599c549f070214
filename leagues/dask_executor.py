"""Leagues across machines: an ``Executor`` that plays on a Dask distributed cluster (the ``dask`` extra).

    executor = DaskExecutor("tcp://10.0.0.5:8786", time_control=league.time_control, log_dir=logs)
    for record in executor.run(jobs): ...          # as each seat cycle finishes, on whichever worker
    executor.close()

This is the only module that imports ``distributed``, and only when a ``DaskExecutor`` is made or a
worker runs one of its tasks; without the extra, ``DaskExecutor(...)`` is a one-line ``ConfigError``.

The contract, driver side:
    * One task per seat cycle: the games of one table on one board sharing one seed (every seat
      rotation, ``leagues/schedule.py``), so a pair is never split across machines of different speed
      and its bots start once. A task asks for ``resources={"seat": players}``; start workers with
      ``dask worker ADDRESS --nthreads N --resources seat=N`` (one seat per core).
    * Bots travel by content hash. The driver copies each bot folder once with the registry's
      ``copy_and_hash`` (so the hash describes exactly the bytes sent), tars the copy and publishes it
      on the scheduler as the dataset ``hexarena-bot-<hash>`` (content-addressed, so drivers sharing a
      scheduler share it; no worker has to survive for it to stay). A game names its seats ``(label, hash)``;
      a worker asks for the bytes only when its disk cache lacks that hash.
    * Records stream back with ``as_completed``; the driver alone writes SQLite (the runner, one
      transaction per game). Closing the iterator cancels every pending task.
    * Faults: a worker that dies mid-task → Dask runs the task again elsewhere (game ids are
      idempotent: the store ignores a game stored already). A task that killed more workers than
      Dask's ``allowed-failures`` (default 3) is reported on stderr and left unplayed (a rerun tries it again).
      The scheduler lost → ``ExecutorLost`` (one line); a rerun resumes.

Worker side (``play_cycle``): each bot is taken from a disk cache keyed by hash (``$HEXARENA_BOT_CACHE``,
default ``~/.cache/hexarena/bots``); a missing entry is fetched from the driver's bytes. Before first
use in a worker process the entry is copied into that process's run folder with ``copy_and_hash``
and the hash compared: a tampered or half-written entry is refused, deleted and fetched again.
The bots run sandboxed or not as the organiser chose (``referee/sandbox.py``; the choice travels with
the task). The copy is built there once per (hash, worker process) under ``referee/build.py``'s lock, so a
failed build is that bot's ``no_connection`` in the game record, not a lost task. Each worker thread
keeps one warm ``Referee`` per time control and fault policy; ``RefereePlugin`` closes them when
the worker shuts down. The bots' game logs travel back with the records.
"""

from __future__ import annotations

import fcntl
import io
import logging
import os
import re
import shutil
import socket
import sys
import tarfile
import tempfile
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import CancelledError
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from leagues.registry import _alive, copy_and_hash  # the registry's hashing and its liveness test
from leagues.runner import Executor, ExecutorLost, Job
from protocol.errors import ConfigError, HexarenaError
from referee import sandbox
from referee.clock import TimeControl
from referee.game import GameObserver
from referee.local import BotSpec
from referee.record import BoardConfig, GameRecord
from referee.referee import Referee

try:  # the plugin's base class; without distributed the module still imports (and DaskExecutor says why not)
    from distributed import WorkerPlugin as _PluginBase
except ImportError:
    _PluginBase = object

ADDRESS = re.compile(r"(tcp|tls|ws|wss)://(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.\-]+):\d{1,5}")  # IPv6 in brackets
CACHE_ENV = "HEXARENA_BOT_CACHE"
PLUGIN = "hexarena-referees"
CONNECT_TIMEOUT = 10.0  # seconds to reach the scheduler


class SnapshotMismatch(HexarenaError):
    """A bot snapshot fetched from the driver does not have the content hash the task named."""


@dataclass(frozen=True)
class Game:
    """A job as it travels: seats are ``(label, content hash)``, no paths of the driver's machine."""

    id: str
    config: BoardConfig
    seats: tuple[tuple[str, str], ...]
    seed: int
    opening: tuple[int, ...] = ()  # a start position, played as the referee's prelude


@dataclass(frozen=True)
class Settings:
    """What a worker's referee is made with (its threads keep one warm referee per distinct value)."""

    time_control: TimeControl
    fault_policy: str
    sandbox: bool = True  # the organiser's choice (--no-sandbox), applied on the worker before it plays


def seat_cycles(jobs: Sequence[Job]) -> list[list[Job]]:
    """Jobs grouped by (board configuration, sorted seat labels, seed), in the order they first appear."""
    groups: dict[tuple, list[Job]] = {}
    for job in jobs:
        key = (job.config.model_dump_json(), tuple(sorted(spec.name for spec in job.seats)), job.seed)
        groups.setdefault(key, []).append(job)
    return list(groups.values())


def _distributed():
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
        distributed = _distributed()
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
        distributed = _distributed()
        packs = self._packs(jobs)
        futures, cycles = [], {}
        for cycle in seat_cycles(jobs):
            games = [Game(j.id, j.config, tuple((s.name, packs[s.folder][0]) for s in j.seats), j.seed,
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
            digest, data = pack(folder)
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


def pack(folder: Path) -> tuple[str, bytes]:
    """(content hash, tar of exactly the bytes hashed): the registry's ``copy_and_hash`` into a scratch copy."""
    with tempfile.TemporaryDirectory(prefix="hexarena-pack-") as scratch:
        copy = Path(scratch) / "bot"
        copy.mkdir()
        digest = copy_and_hash(Path(folder), copy)
        buffer = io.BytesIO()
        with tarfile.open(fileobj=buffer, mode="w:gz") as tar:
            tar.add(copy, arcname=".")
        return digest, buffer.getvalue()


# ---------------------------------------------------------------- worker side


_lock = threading.Lock()  # one snapshot is prepared at a time in a worker process
_ready: dict[str, Path] = {}  # content hash → this process's verified (and, once played, built) copy
_referees: dict[tuple[int, Settings], Referee] = {}  # (thread, settings) → its warm referee, for the plugin to close
_run_dir: Path | None = None


def cache_dir() -> Path:
    return Path(os.environ.get(CACHE_ENV) or Path.home() / ".cache" / "hexarena" / "bots")


def run_dir(cache: Path) -> Path:
    """This worker process's folder of runnable copies (removed at teardown; a dead process's, on the next start)."""
    global _run_dir
    if _run_dir is None or not _run_dir.is_dir():
        runs = cache / "run"
        runs.mkdir(parents=True, exist_ok=True)
        for old in runs.glob("*-*"):
            pid = old.name.split("-")[0]
            if pid.isdigit() and not _alive(int(pid)):
                shutil.rmtree(old, ignore_errors=True)
        _run_dir = Path(tempfile.mkdtemp(prefix=f"{os.getpid()}-", dir=runs))
    return _run_dir


@contextmanager
def _file_lock(path: Path):
    with open(path, "a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def snapshot(digest: str, fetch: Callable[[], bytes], cache: Path | None = None) -> Path:
    """The runnable copy of bot ``digest`` for this process: from the disk cache if its content hash
    checks, else fetched (``fetch()`` → tar bytes), verified and cached; SnapshotMismatch if the fetched
    bytes are not that bot. Once per hash and process; processes sharing the cache take a file lock."""
    cache = cache or cache_dir()
    with _lock:
        if digest in _ready and _ready[digest].is_dir():
            return _ready[digest]
        cache.mkdir(parents=True, exist_ok=True)
        entry, copy = cache / digest, run_dir(cache) / digest
        with _file_lock(cache / f"{digest}.lock"):
            if not (entry.is_dir() and _copy_checks(entry, copy, digest)):
                shutil.rmtree(entry, ignore_errors=True)  # missing, half-written or tampered: fetch it again
                _install(fetch(), entry, digest)
                if not _copy_checks(entry, copy, digest):
                    raise SnapshotMismatch(f"bot {digest[:10]}: the cached copy changed while it was being read")
        _ready[digest] = copy
        return copy


def _copy_checks(entry: Path, copy: Path, digest: str) -> bool:
    """Copy the cache entry to ``copy`` (the registry's hashing function): True if it has the content hash ``digest``."""
    shutil.rmtree(copy, ignore_errors=True)
    copy.mkdir(parents=True)
    try:
        return copy_and_hash(entry, copy) == digest
    except ConfigError:
        return False


def _install(data: bytes, entry: Path, digest: str) -> None:
    """Unpack fetched bytes and move them into the cache only if they hash to ``digest``."""
    staging = Path(tempfile.mkdtemp(prefix=f".fetch-{digest[:10]}-", dir=entry.parent))
    try:
        unpacked, checked = staging / "tar", staging / "bot"
        unpacked.mkdir()
        checked.mkdir()
        with tarfile.open(fileobj=io.BytesIO(data), mode="r:gz") as tar:
            tar.extractall(unpacked, filter="data")
        got = copy_and_hash(unpacked, checked)
        if got != digest:
            raise SnapshotMismatch(f"bot fetched as {digest[:10]} has content hash {got[:10]}; refused")
        checked.rename(entry)
    finally:
        shutil.rmtree(staging, ignore_errors=True)


def _fetch(name: str) -> bytes:
    """A bot's tar, as the driver published it on the scheduler (a dataset named after its hash)."""
    from distributed import get_client

    return get_client().get_dataset(name)


def thread_referee(settings: Settings) -> Referee:
    """This thread's warm referee for these settings (made on first use; closed by ``RefereePlugin``)."""
    key = (threading.get_ident(), settings)
    with _lock:
        referee = _referees.get(key)
        logs = run_dir(cache_dir()) / "logs"
    if referee is None:
        referee = Referee(log_dir=logs, time_control=settings.time_control, fault_policy=settings.fault_policy)
        with _lock:
            _referees[key] = referee
    return referee


def play_cycle(games: list[Game], keys: dict[str, str], settings: Settings) -> dict:
    """A Dask task: play one seat cycle on this worker. Returns the records (JSON), their logs, the host."""
    started = time.perf_counter()
    sandbox.configure(settings.sandbox)  # a worker process serves one organiser's choice at a time
    folders = {digest: snapshot(digest, lambda key=key: _fetch(key)) for digest, key in keys.items()}
    referee = thread_referee(settings)
    records = []
    for game in games:
        seats = [BotSpec(label, folders[digest]) for label, digest in game.seats]
        played = referee.play(seats, game.config, game_id=game.id, seed=game.seed, **({"prelude": game.opening} if game.opening else {}))
        records.append(played.model_dump_json())
    logs = {}
    if referee.log_dir is not None:
        for game in games:
            for path in referee.log_dir.glob(f"{game.id}.seat*.log"):
                logs[path.name] = path.read_bytes()
                path.unlink()
    return {"records": records, "logs": logs, "host": socket.gethostname(),
            "seconds": time.perf_counter() - started}


def close_referees() -> None:
    """Close every referee of this process (its bots are stopped) and remove its run folder."""
    global _run_dir
    with _lock:
        referees = list(_referees.values())
        _referees.clear()
    for referee in referees:
        referee.close()
    if _run_dir is not None:
        shutil.rmtree(_run_dir, ignore_errors=True)
        _run_dir = None
        _ready.clear()


class RefereePlugin(_PluginBase):
    """Registered on every worker by the driver: closes the worker's referees when it shuts down."""

    def teardown(self, worker) -> None:
        close_referees()
