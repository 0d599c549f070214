"""The server's build slots, shared fairly among authors (issue 31 item 5, issue 27 item 4).

    queue = BuildQueue(slots=2)
    async with queue.slot("alice") as upload:   # waits on the event loop (no worker thread held), then builds
        await run_in_threadpool(submit, ..., progress=upload.say)
    queue.plan()                    # each author's place in the queue and an estimate (GET /api/queue/uploads)
    queue.progress("alice")         # the step of alice's upload building, or her first one waiting, and since when

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
from dataclasses import dataclass, field

RECENT = 20  # builds the estimate's mean covers
DEFAULT_SECONDS = 30.0  # the estimate of one build before any has run


@dataclass(eq=False)
class Upload:
    """One upload in the queue: its step (``say``: from any thread), and when it came."""

    came: float = field(default_factory=time.monotonic)
    step: str = "waiting for a build slot"
    granted: asyncio.Future | None = None  # set when its slot is granted
    began: float = 0.0  # when its build began

    def say(self, step: str) -> None:
        self.step = step


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
        self._waiting: dict[str, deque[Upload]] = {}
        self._building: dict[str, Upload] = {}  # author → their upload building
        self._served: dict[str, int] = {}  # author → the tick of their last slot (round robin)
        self._ticks = itertools.count()
        self._durations: deque[float] = deque(maxlen=RECENT)

    @asynccontextmanager
    async def slot(self, author: str) -> AsyncIterator[Upload]:
        """Hold one build slot for ``author`` for the block, after their earlier uploads and a fair turn."""
        upload = Upload(granted=asyncio.get_running_loop().create_future())
        self._waiting.setdefault(author, deque()).append(upload)
        self._dispatch()
        try:
            await upload.granted
        except asyncio.CancelledError:
            if upload.granted.done() and not upload.granted.cancelled():  # granted as the waiter went: give it back
                self._release(author, None)
            else:
                self._drop(author, upload)
            raise
        try:
            yield upload
        finally:
            self._release(author, time.monotonic() - upload.began)

    def progress(self, author: str) -> tuple[str, float] | None:
        """The step of ``author``'s upload building (else of their first one waiting) and the seconds since it
        came; None when they have none in the queue."""
        building = self._building.get(author)
        waiting = self._waiting.get(author)
        upload = building if building is not None else waiting[0] if waiting else None
        return None if upload is None else (upload.step, time.monotonic() - upload.came)

    def _drop(self, author: str, upload: Upload) -> None:
        waiting = self._waiting.get(author)
        if waiting is not None and upload in waiting:
            waiting.remove(upload)
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
            upload = self._waiting[author].popleft()
            if not self._waiting[author]:
                del self._waiting[author]
            if upload.granted.cancelled():
                continue
            upload.began = time.monotonic()
            self._building[author] = upload
            self._served[author] = next(self._ticks)
            upload.granted.set_result(None)

    def mean_seconds(self) -> float:
        return sum(self._durations) / len(self._durations) if self._durations else DEFAULT_SECONDS

    def plan(self) -> list[AuthorPlace]:
        """Every author building or waiting: whether they build now, how many wait, the place of their next one
        among all waiting uploads, and when it should start (the dispatch above, played forward)."""
        now, mean = time.monotonic(), self.mean_seconds()
        free = [max(upload.began + mean, now) for upload in self._building.values()]
        free += [now] * (self.slots - len(free))
        heapq.heapify(free)
        busy_until = {a: upload.began + mean for a, upload in self._building.items()}
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
