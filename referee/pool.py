"""Workers that each own one referee: several games at once, bots kept running across them.

    with closing(RefereePool(lambda: Referee(time_control=tc), 2)) as pool:
        for record in pool.map(lambda referee, job: referee.play(...), jobs):   # in the order they finish
            ...
    with closing(RefereeProcessPool({"time_control": tc}, 2)) as pool:
        for record in pool.map(play, jobs, observer):     # play: a module-level function(referee, job, observer)
            ...

``RefereePool`` runs its referees on threads of this process; ``RefereeProcessPool`` in worker processes,
one referee each. Threads share one GIL: two referees in one process spend a move's Python work one at a
time, so on a busy machine a league at concurrency 2 played at about the speed of one. The processes pay
an interpreter's start each (a fraction of a second) and a pickled record per game.

The pool outlives one ``map`` (``hexarena sprt`` plays batch after batch on the same warm bots); the
league runner's ``LocalExecutor`` makes one per run. ``close`` stops it: work not started is not done,
work in flight finishes, then every referee says BYE and stops its bots. An exception of a worker (a
referee's own bug, a full disk) is raised by ``map``, so a run never hangs on a dead worker.
"""

from __future__ import annotations

import ctypes
import logging
import multiprocessing.connection
import os
import queue
import signal
import socket
import subprocess
import sys
import threading
from collections.abc import Callable, Iterable, Iterator
from functools import partial
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any, TypeVar

from protocol.errors import HexarenaError
from referee import sandbox
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

    def map(self, work: Callable[..., Result], items: Iterable[Item], observer: Any = None) -> Iterator[Result]:
        """``work(referee, item)`` (with an ``observer``: ``work(referee, item, observer)``, called on the
        workers' threads) for every item on the workers; the results in the order they finish."""
        if observer is not None:
            work = partial(work, observer=observer)
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


log = logging.getLogger("hexarena.referee.pool")


def referee_pool(options: dict[str, Any], size: int, name: str = "referee") -> RefereePool | RefereeProcessPool:
    """``size`` referees made with ``Referee(**options)``: on a thread of this process for one, else in worker
    processes (no shared GIL). Either way ``map(work, items, observer)``, with ``work`` picklable."""
    if size <= 1:
        return RefereePool(lambda: Referee(**options), size, name)
    return RefereeProcessPool(options, size, name)


class WorkerLost(HexarenaError):
    """A referee worker process ended without being asked (killed, out of memory): one line."""


class RefereeProcessPool:
    """``size`` worker processes, each with one ``Referee(**options)``; the same contract as ``RefereePool``.

    ``work`` must be picklable (a module-level function): ``work(referee, item)``, or with an ``observer``
    ``work(referee, item, observer)``, whose calls are forwarded to this process and made here, on the
    thread that iterates ``map``. Items and results are pickled. A worker dies with this process (and
    its bots with it, ``referee/process.py``); a worker that dies on its own is ``WorkerLost`` from ``map``.
    """

    def __init__(self, options: dict[str, Any], size: int, name: str = "referee") -> None:
        self._idle: list[Connection] = []
        self._processes: dict[Connection, subprocess.Popen] = {}
        self._names: dict[Connection, str] = {}
        self._closed = False
        for number in range(size):
            ours, theirs = socket.socketpair()
            # a fresh interpreter, not multiprocessing's spawn: that one runs the caller's main script again
            process = subprocess.Popen([sys.executable, "-m", "referee.pool", str(theirs.fileno()), str(os.getpid())],
                                       pass_fds=[theirs.fileno()], stdin=subprocess.DEVNULL, env=_worker_env())
            theirs.close()
            connection = Connection(ours.detach())
            connection.send((options, sandbox.enabled()))
            self._processes[connection] = process
            self._names[connection] = f"{name}-{number}"
            self._idle.append(connection)

    def map(self, work: Callable, items: Iterable, observer: Any = None) -> Iterator:
        """``work`` on every item, on the workers; the results in the order they finish. The first items go
        to the workers at once (their bots start while the caller gets ready), the rest as workers free up."""
        todo = list(items)
        todo.reverse()
        busy: set[Connection] = set()

        def hand(connection: Connection) -> None:
            connection.send((work, todo.pop(), observer is not None))
            busy.add(connection)

        while todo and self._idle:
            hand(self._idle.pop())
        return self._results(todo, busy, hand, observer)

    def _results(self, todo: list, busy: set[Connection], hand: Callable, observer: Any) -> Iterator:
        while busy:
            for connection in multiprocessing.connection.wait(list(busy)):
                try:
                    while connection.poll():
                        kind, value = connection.recv()
                        if kind == "event":
                            _tell(observer, *value)
                            continue
                        busy.discard(connection)
                        if kind == "failed":
                            self._idle.append(connection)
                            raise value
                        if todo:  # its next game starts before the caller stores this one
                            hand(connection)
                        else:
                            self._idle.append(connection)
                        yield value
                        break
                except (EOFError, OSError):
                    status = self._processes[connection].wait()
                    raise WorkerLost(f"referee worker {self._names[connection]} ended (exit status {status}) "
                                     "in a game; the games stored so far are kept") from None

    def close(self, wait: bool = True) -> None:
        """Stop: no new work starts; with ``wait``, return once every worker has stopped its bots (a game in
        flight finishes first, its result dropped); without, the workers are killed (their bots die with them)."""
        if self._closed:
            return
        self._closed = True
        for connection, process in self._processes.items():
            try:
                connection.send(None)
            except OSError:
                pass
            if not wait:
                process.kill()
        open_ = dict(self._processes)
        while open_:  # read what they still send (a result, events): a full pipe would block a worker's exit
            for connection in multiprocessing.connection.wait(list(open_)):
                try:
                    connection.recv()
                except (EOFError, OSError):
                    open_.pop(connection).wait()
                    connection.close()


def _worker_env() -> dict[str, str]:
    """This environment, with the folder this code is imported from first on the path (a source tree too)."""
    ours = str(Path(__file__).resolve().parent.parent)
    path = os.environ.get("PYTHONPATH")
    return {**os.environ, "PYTHONPATH": ours + (os.pathsep + path if path else "")}


def _tell(observer: Any, event: str, args: tuple) -> None:
    try:
        getattr(observer, event)(*args)
    except Exception:  # an observer's bug must not stop the games
        log.exception("the observer failed on %r (the games play on)", event)


class _Forward:
    """In a worker: an observer whose calls travel to the pool's process."""

    def __init__(self, connection: Connection) -> None:
        self.connection = connection

    def __getattr__(self, event: str) -> Callable:
        return lambda *args: self.connection.send(("event", (event, args)))


def _serve(connection: Connection, parent: int) -> None:
    """A worker process: one referee, items until ``None``, then BYE to its bots."""
    ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG: die with the pool's process
    if os.getppid() != parent:  # it died before the prctl
        os._exit(1)
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C reaches the whole group: the pool's process decides
    try:
        options, sandboxed = connection.recv()
        sandbox.configure(enabled=sandboxed)
        try:
            referee = Referee(**options)
        except Exception as exc:  # noqa: BLE001 - every task is answered with it (map raises it)
            while connection.recv() is not None:
                connection.send(("failed", _picklable(exc)))
            return
        with referee:
            while (task := connection.recv()) is not None:
                work, item, observed = task
                try:
                    result = work(referee, item, _Forward(connection)) if observed else work(referee, item)
                except BaseException as exc:  # noqa: BLE001 - the pool raises it: a referee bug must not hang the run
                    connection.send(("failed", _picklable(exc)))
                    continue
                connection.send(("done", result))
    except (EOFError, OSError, KeyboardInterrupt):  # the pool's process is gone or stopping
        pass


def _picklable(exc: BaseException) -> BaseException:
    import pickle

    try:
        pickle.loads(pickle.dumps(exc))
        return exc
    except Exception:  # noqa: BLE001 - any exception type may refuse pickling
        return HexarenaError(f"{type(exc).__name__}: {exc}")


if __name__ == "__main__":  # a worker: python -m referee.pool FD PARENT_PID
    _serve(Connection(int(sys.argv[1])), int(sys.argv[2]))
