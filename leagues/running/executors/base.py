"""The executor interface: what the league runner plays its games through (``Executor``, ``ExecutorLost``).

An executor takes ``Job``s (``hexarena.leagues.running.jobs``) and yields each game's record as it finishes,
in any order; the runner stores them. Implementations: ``local.py`` (this machine), ``dask_driver.py``
(a Dask cluster); a distributed engine of another kind plugs in by implementing ``run``.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterator, Sequence

from hexarena.leagues.running.jobs import Job
from hexarena.referee.game import GameObserver
from hexarena.referee.record import GameRecord


class Executor(ABC):
    """Plays jobs, several at once, and yields each record as its game finishes (in any order).

    Closing the iterator early (or an exception while consuming it) stops the executor: games not yet
    started are not played, games in flight are abandoned or finished but not yielded. ``observer`` is
    handed to each game loop where the games are played in this process (others may ignore it).
    """

    @abstractmethod
    def run(self, jobs: Sequence[Job], observer: GameObserver | None = None) -> Iterator[GameRecord]: ...

    def check(self, jobs: Sequence[Job]) -> None:
        """ConfigError, before anything is stored or started, when these jobs cannot be played (e.g. no worker
        can seat their tables); nothing to check by default."""

    def threaded(self, jobs: Sequence[Job]) -> bool:
        """Whether ``run(jobs)`` plays on a thread of this process (sharing its GIL with the caller's work);
        not by default."""
        return False

    def status(self) -> str:
        """A few words for the progress display (e.g. workers and games in flight); empty by default."""
        return ""

    def summary(self) -> str:
        """A few words for the run's closing line (e.g. where the games were played); empty by default."""
        return ""
