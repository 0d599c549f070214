"""The local executor: a league's games on this machine, on a pool of warm referees (``referee/pool.py``).

    executor = LocalExecutor(settings, concurrency=4)    # settings: the league's RefereeSettings
    for record in executor.run(jobs, observer): ...      # as each game finishes
    executor.close()                                     # the kept pool (keep=True), unused workers stop

One referee on a thread of this process for one game at a time, else one per worker process (games at
once share no GIL); every game is played by ``play_job`` (``hexarena.leagues.running.jobs``), as on a
Dask worker, and the observer hears each game's events in this process.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from hexarena.leagues.running.executors.base import Executor
from hexarena.leagues.running.jobs import Job, play_job
from hexarena.referee.game import GameObserver
from hexarena.referee.pool import Workers, referee_pool
from hexarena.referee.record import GameRecord
from hexarena.referee.settings import RefereeSettings


class LocalExecutor(Executor):
    """This machine: ``concurrency`` referees made with ``Referee(settings)`` (``hexarena.referee.pool.referee_pool``:
    one on a thread of this process, two or more in worker processes, so that games at once do not share a GIL).

    By default each ``run`` has a pool of its own, stopped when its iterator is closed; with ``keep``, one pool of
    ``concurrency`` referees serves every ``run`` until ``close`` (an adaptive league's batches: the workers and
    their bots start once, not once a batch). ``workers``: worker processes started ahead (``referee.pool.Workers``),
    which the first pool takes; what it does not take stays the caller's to close (it started them). ``pin``: each
    worker and its bots on a core of its own (``referee.pool.RefereeProcessPool``)."""

    def __init__(self, settings: RefereeSettings, concurrency: int, keep: bool = False,
                 workers: Workers | None = None, pin: bool = False) -> None:
        self.settings = settings
        self.concurrency = max(1, concurrency)
        self.keep = keep
        self.pin = pin
        self._pool = None
        self._workers = workers

    def run(self, jobs: Sequence[Job], observer: GameObserver | None = None) -> Iterator[GameRecord]:
        """Starts the workers (or, kept, reuses them) and hands them their first games at once (not on the first
        ``next``)."""
        if self.keep:
            if self._pool is None:
                self._pool = self._new_pool(jobs)
            return _Finished(self._pool, self._pool.map(play_job, jobs, observer), owned=False)
        pool = self._new_pool(jobs)
        try:
            return _Finished(pool, pool.map(play_job, jobs, observer, last=True))
        except BaseException:
            pool.close()
            raise

    def _new_pool(self, jobs: Sequence[Job]):
        workers, self._workers = self._workers, None
        return referee_pool(self.settings, self._size(jobs), workers=workers, pin=self.pin)

    def threaded(self, jobs: Sequence[Job]) -> bool:
        """Whether ``run(jobs)`` plays on a thread of this process (one referee), not in worker processes."""
        return self._size(jobs) <= 1

    def _size(self, jobs: Sequence[Job]) -> int:
        """The referees of the pool that plays ``jobs``: ``concurrency`` kept, else no more than the games."""
        return self.concurrency if self.keep else min(self.concurrency, len(jobs))

    def close(self) -> None:
        """Stop the kept pool (nothing to do without ``keep``: each run's pool stops with its iterator)."""
        if self._pool is not None:
            self._pool, pool = None, self._pool
            pool.close()


class _Finished(Iterator[GameRecord]):
    """The records of a pool's games; closing it (also before the first ``next``) closes the pool if ``owned``."""

    def __init__(self, pool, results: Iterator[GameRecord], owned: bool = True) -> None:
        self.pool, self.results, self.owned = pool, results, owned

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
        if self.owned:
            self.pool.close()
