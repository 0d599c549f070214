"""The server's build slots, shared fairly among authors (issue 31 item 5, issue 27 item 4).

    queue = BuildQueue(slots=2)
    async with queue.slot("alice"):          # waits on the event loop (no worker thread held), then builds
        await run_in_threadpool(submit, ...)
    queue.plan()                             # each author's place in the queue and an estimate (GET /api/queue/uploads)

An upload's build and check take one of ``slots``; each author has a queue of their own, and holds at most one
slot at a time: one author's ten slow uploads wait behind each other, never in front of another author's. When a
slot frees, it goes to the waiting author served longest ago (round robin), each author's uploads in the order
they came. The estimate assumes every build takes the mean of the last ``RECENT`` builds (``DEFAULT_SECONDS``
before the first); it is a guide, not a promise.
"""

from __future__ import annotations

import asyncio
import heapq
import itertools
import time
from collections import deque
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass

RECENT = 20  # builds the estimate's mean covers
DEFAULT_SECONDS = 30.0  # the estimate of one build before any has run


@dataclass(frozen=True)
class AuthorPlace:
    """One author's uploads in the queue: ``position`` 1 is the next upload to start (0: none waiting)."""

    author: str
    building: bool
    waiting: int
    position: int
    estimate_seconds: float  # until the author's next waiting upload starts (0 when none waits)


class BuildQueue:
    def __init__(self, slots: int) -> None:
        self.slots = slots
        self._waiting: dict[str, deque[asyncio.Future]] = {}
        self._building: dict[str, float] = {}  # author → when their build began
        self._served: dict[str, int] = {}  # author → the tick of their last slot (round robin)
        self._ticks = itertools.count()
        self._durations: deque[float] = deque(maxlen=RECENT)

    @asynccontextmanager
    async def slot(self, author: str) -> AsyncIterator[None]:
        """Hold one build slot for ``author`` for the block, after their earlier uploads and a fair turn."""
        future = asyncio.get_running_loop().create_future()
        self._waiting.setdefault(author, deque()).append(future)
        self._dispatch()
        try:
            await future
        except asyncio.CancelledError:
            if future.done() and not future.cancelled():  # granted just as the waiter went away: give it back
                self._release(author, None)
            else:
                self._drop(author, future)
            raise
        began = time.monotonic()
        try:
            yield
        finally:
            self._release(author, time.monotonic() - began)

    def _drop(self, author: str, future: asyncio.Future) -> None:
        waiting = self._waiting.get(author)
        if waiting is not None and future in waiting:
            waiting.remove(future)
            if not waiting:
                del self._waiting[author]

    def _release(self, author: str, took: float | None) -> None:
        self._building.pop(author, None)
        if took is not None:
            self._durations.append(took)
        self._dispatch()

    def _next_author(self, busy: set[str], served: dict[str, int], waiting: dict[str, int]) -> str | None:
        eligible = [a for a, count in waiting.items() if count and a not in busy]
        return min(eligible, key=lambda a: served.get(a, -1), default=None)  # dicts keep arrival order for ties

    def _dispatch(self) -> None:
        while len(self._building) < self.slots:
            waiting = {a: len(w) for a, w in self._waiting.items()}
            author = self._next_author(set(self._building), self._served, waiting)
            if author is None:
                return
            future = self._waiting[author].popleft()
            if not self._waiting[author]:
                del self._waiting[author]
            if future.cancelled():
                continue
            self._building[author] = time.monotonic()
            self._served[author] = next(self._ticks)
            future.set_result(None)

    def mean_seconds(self) -> float:
        return sum(self._durations) / len(self._durations) if self._durations else DEFAULT_SECONDS

    def plan(self) -> list[AuthorPlace]:
        """Every author building or waiting: whether they build now, how many wait, the place of their next one
        among all waiting uploads, and when it should start (the dispatch above, played forward)."""
        now, mean = time.monotonic(), self.mean_seconds()
        free = [max(began + mean, now) for began in self._building.values()]
        free += [now] * (self.slots - len(free))
        heapq.heapify(free)
        busy_until = {a: began + mean for a, began in self._building.items()}
        served = dict(self._served)
        waiting = {a: len(w) for a, w in self._waiting.items() if w}
        first: dict[str, tuple[int, float]] = {}
        position, ticks = 0, itertools.count(max(served.values(), default=0) + 1)
        while any(waiting.values()) and free:
            at = heapq.heappop(free)
            author = self._next_author({a for a, until in busy_until.items() if until > at}, served, waiting)
            if author is None:  # only authors still building wait: this slot frees when the first of them ends
                heapq.heappush(free, min(until for a, until in busy_until.items() if waiting.get(a)))
                continue
            position += 1
            first.setdefault(author, (position, at - now))
            waiting[author] -= 1
            busy_until[author] = at + mean
            served[author] = next(ticks)
            heapq.heappush(free, at + mean)
        authors = list(self._building) + [a for a in self._waiting if a not in self._building]
        return [AuthorPlace(a, a in self._building, len(self._waiting.get(a, ())), *first.get(a, (0, 0.0)))
                for a in authors]
