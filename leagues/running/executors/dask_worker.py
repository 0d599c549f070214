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
    * Bots travel by content hash. The driver packs each bot folder once with the registry's one
      archive (``pack_snapshot``: its sources, hashed as they are packed, so the hash is the registered
      one and describes exactly the bytes sent) and publishes it on the scheduler as the dataset
      ``hexarena-bot-<hash>`` (content-addressed, so drivers sharing a scheduler share it; no worker has to
      survive for it to stay); the workers build it themselves. A game names its seats ``(label, hash)``;
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
import os
import shutil
import socket
import tarfile
import tempfile
import threading
import time
from collections.abc import Callable
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from hexarena.leagues.workspace.locks import pid_alive
from hexarena.leagues.registry.snapshot import copy_and_hash
from hexarena.protocol.errors import ConfigError, HexarenaError
from hexarena.referee import sandbox
from hexarena.referee.clock import TimeControl
from hexarena.referee.seats.process import BotSpec
from hexarena.referee.record import BoardConfig
from hexarena.referee.referee import Referee

try:  # the plugin's base class; without distributed the module still imports (and DaskExecutor says why not)
    from distributed import WorkerPlugin as _PluginBase
except ImportError:
    _PluginBase = object
CACHE_ENV = "HEXARENA_BOT_CACHE"
PLUGIN = "hexarena-referees"


class SnapshotMismatch(HexarenaError):
    """A bot snapshot fetched from the driver does not have the content hash the task named."""


@dataclass(frozen=True)
class WireJob:
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
            if pid.isdigit() and not pid_alive(int(pid)):
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


def play_cycle(games: list[WireJob], keys: dict[str, str], settings: Settings) -> dict:
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
