"""One game to play, as an executor gets it, and how a referee plays it.

Kept apart from the runner so that a worker process (``referee/pool.py``'s ``RefereeProcessPool``,
a Dask worker) that unpickles a job imports only the referee, not the runner's store and tables.
"""

from __future__ import annotations

from dataclasses import dataclass

from hexarena.referee.game import GameObserver
from hexarena.referee.seats.process import BotSpec
from hexarena.referee.record import BoardConfig, GameRecord
from hexarena.referee.referee import Referee


@dataclass(frozen=True)
class Job:
    """One game to play: everything an executor needs, nothing about the league."""

    id: str
    config: BoardConfig
    seats: tuple[BotSpec, ...]
    seed: int
    opening: tuple[int, ...] = ()  # the start position, played as the referee's prelude


def play_job(referee: Referee, job: Job, observer: GameObserver | None = None) -> GameRecord:
    return referee.play(list(job.seats), job.config, game_id=job.id, seed=job.seed, prelude=job.opening,
                        observer=observer)
