"""The worker side of leagues across machines (``dask_driver.py`` has the driver and the contract).

A task (``play_cycle``) plays one seat cycle. Each bot is taken from a disk cache keyed by hash
(``$HEXARENA_BOT_CACHE``, default ``~/.cache/hexarena/bots``); a missing entry is fetched from the driver's bytes. Before first
use in a worker process the entry is copied into that process's run folder with ``copy_and_hash``
and the hash compared: a tampered or half-written entry is refused, deleted and fetched again.
The task carries the driver's ``RefereeSettings`` (time control, fault policy, limits, and whether the
bots run sandboxed, as the organiser chose); a worker plays each game with ``play_job``
(``hexarena.leagues.running.jobs``), as the local pool does, so its records name the same exact versions.
The copy is built there once per (hash, worker process) under ``referee/build.py``'s lock, so a
failed build is that bot's ``no_connection`` in the game record, not a lost task. Each worker thread
keeps one warm ``Referee`` per distinct settings (its logs in the worker's run folder); ``RefereePlugin``
closes them when the worker shuts down. The bots' game logs travel back with the records.

The module imports ``distributed`` only for the plugin's base class (without it, it still imports) and for
fetching a bot's bytes in a task.
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
from dataclasses import dataclass, replace
from pathlib import Path

from hexarena.leagues.registry.snapshot import copy_and_hash
from hexarena.leagues.running.jobs import Job, play_job
from hexarena.leagues.workspace.files import remove_stale
from hexarena.protocol.errors import ConfigError
from hexarena.referee.record import BoardConfig
from hexarena.referee.referee import Referee
from hexarena.referee.seats.process import BotSpec
from hexarena.referee.settings import RefereeSettings
from hexarena.leagues.errors import SnapshotMismatch

try:  # the plugin's base class; without distributed the module still imports (and DaskExecutor says why not)
    from distributed import WorkerPlugin as _PluginBase
except ImportError:
    _PluginBase = object
CACHE_ENV = "HEXARENA_BOT_CACHE"
PLUGIN = "hexarena-referees"


@dataclass(frozen=True)
class WireJob:
    """A job as it travels: seats are ``(label, content hash, version)``, no paths of the driver's machine."""

    id: str
    config: BoardConfig
    seats: tuple[tuple[str, str, str], ...]  # version: the exact one the record names ("" if none)
    seed: int
    opening: tuple[int, ...] = ()  # a start position, played as the referee's prelude

    @classmethod
    def of(cls, job: Job, digests: dict[Path, str]) -> WireJob:
        """``job`` with each seat's folder named by its content hash."""
        return cls(job.id, job.config, tuple((s.name, digests[s.folder], s.version) for s in job.seats), job.seed,
                   tuple(job.opening))

    def job(self, folders: dict[str, Path]) -> Job:
        """The job again, on this worker: each hash's verified copy as the seat's folder."""
        return Job(self.id, self.config, tuple(BotSpec(label, folders[digest], version=version)
                                               for label, digest, version in self.seats), self.seed, self.opening)


# ---------------------------------------------------------------- worker side


_lock = threading.Lock()  # one snapshot is prepared at a time in a worker process
_ready: dict[str, Path] = {}  # content hash → this process's verified (and, once played, built) copy
_referees: dict[tuple[int, RefereeSettings], Referee] = {}  # (thread, settings) → its warm referee, for the plugin
_run_dir: Path | None = None


def cache_dir() -> Path:
    return Path(os.environ.get(CACHE_ENV) or Path.home() / ".cache" / "hexarena" / "bots")


def run_dir(cache: Path) -> Path:
    """This worker process's folder of runnable copies (removed at teardown; a dead process's, on the next start)."""
    global _run_dir
    if _run_dir is None or not _run_dir.is_dir():
        runs = cache / "run"
        runs.mkdir(parents=True, exist_ok=True)
        remove_stale(runs, "")
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


def thread_referee(settings: RefereeSettings) -> Referee:
    """This thread's warm referee for these settings (made on first use; closed by ``RefereePlugin``), its bots'
    logs in this process's run folder (the driver writes them back to ``settings.log_dir``)."""
    key = (threading.get_ident(), settings)
    with _lock:
        referee = _referees.get(key)
        logs = run_dir(cache_dir()) / "logs"
    if referee is None:
        referee = Referee(replace(settings, log_dir=logs))
        with _lock:
            _referees[key] = referee
    return referee


def play_cycle(games: list[WireJob], keys: dict[str, str], settings: RefereeSettings) -> dict:
    """A Dask task: play one seat cycle on this worker. Returns the records (JSON), their logs, the host."""
    started = time.perf_counter()
    folders = {digest: snapshot(digest, lambda key=key: _fetch(key)) for digest, key in keys.items()}
    referee = thread_referee(settings)
    records = [play_job(referee, game.job(folders)).model_dump_json() for game in games]
    logs = {}
    if referee.log_dir is not None:
        for game in games:
            # the game's logs, and those of attempts a host stall replaced (``Referee.play``)
            for path in [*referee.log_dir.glob(f"{game.id}.seat*.log"), *referee.log_dir.glob(f"{game.id}.stalled*")]:
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
