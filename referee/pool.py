"""Worker threads that each own one referee: several games at once, bots kept running across them.

    with closing(RefereePool(lambda: Referee(time_control=tc), 2)) as pool:
        for record in pool.map(lambda referee, job: referee.play(...), jobs):   # in the order they finish
            ...

The pool outlives one ``map`` (``hexarena sprt`` plays batch after batch on the same warm bots); the
league runner's ``LocalExecutor`` makes one per run. ``close`` stops it: work not started is not done,
work in flight finishes, then every referee says BYE and stops its bots. An exception of a worker (a
referee's own bug, a full disk) is raised by ``map``, so a run never hangs on a dead worker.
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable, Iterable, Iterator
from typing import TypeVar

from referee.referee import Referee

Item = TypeVar("Item")
Result = TypeVar("Result")


class RefereePool:
    """``size`` threads, each with the referee ``make_referee`` returns (made in that thread)."""

    def __init__(self, make_referee: Callable[[], Referee], size: int, name: str = "referee") -> None:
        self._todo: queue.Queue = queue.Queue()
        self._done: queue.Queue = queue.Queue()
        self._stop = threading.Event()
        self._threads = [threading.Thread(target=self._work, args=(make_referee,), daemon=True, name=f"{name}-{i}")
                         for i in range(size)]
        for thread in self._threads:
            thread.start()

    def _work(self, make_referee: Callable[[], Referee]) -> None:
        try:
            with make_referee() as referee:
                while (task := self._todo.get()) is not None:
                    if not self._stop.is_set():  # after close: drained, not done
                        work, item = task
                        self._done.put((True, work(referee, item)))
        except BaseException as exc:  # noqa: BLE001 - map re-raises it: a referee bug must not hang the run
            self._done.put((False, exc))

    def map(self, work: Callable[[Referee, Item], Result], items: Iterable[Item]) -> Iterator[Result]:
        """``work(referee, item)`` for every item on the workers; the results in the order they finish."""
        items = list(items)
        for item in items:
            self._todo.put((work, item))
        for _ in items:
            ok, value = self._done.get()
            if not ok:
                raise value
            yield value

    def close(self, wait: bool = True) -> None:
        """Stop: no new work starts; with ``wait``, return once every referee has stopped its bots."""
        self._stop.set()
        for _ in self._threads:
            self._todo.put(None)
        if wait:
            for thread in self._threads:
                thread.join()
