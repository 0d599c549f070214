"""Workers that each own one referee: several games at once, bots kept running across them.

    with closing(RefereePool(lambda: Referee(settings), 2)) as pool:
        for record in pool.map(lambda referee, job: referee.play(...), jobs):   # in the order they finish
            ...
    with closing(RefereeProcessPool(RefereeSettings(time_control=tc), 2)) as pool:
        for record in pool.map(play, jobs, observer):     # play: a module-level function(referee, job, observer)
            ...

``RefereePool`` runs its referees on threads of this process; ``RefereeProcessPool`` in worker processes,
one referee each, made from the ``RefereeSettings`` (``referee/settings.py``) it sends them pickled: the
sandbox choice travels in it, and with it only what the sandbox binds of the files ``/usr`` links to
(``sandbox.linked_out``, found once here, remembered across runs); nothing else of this process's state does. Threads share one GIL: two referees in one process spend a move's Python work one at a
time, so on a busy machine a league at concurrency 2 played at about the speed of one. The processes pay
an interpreter's start each (0.25 s of CPU importing the referee) and a pickled record per game; ``hexarena league
run`` and ``hexarena sprt`` start them first (``Workers``), forked from their own process where they safely can, so
that none imports.

The pool outlives one ``map`` (``hexarena sprt`` plays batch after batch on the same warm bots); the
league runner's ``LocalExecutor`` makes one per run (kept across an adaptive league's batches). ``close`` stops it: work not started is not done,
work in flight finishes, then every referee says BYE and stops its bots. An exception of a worker (a
referee's own bug, a full disk) is raised by ``map``, so a run never hangs on a dead worker.
"""

from __future__ import annotations

import collections
import contextlib
import gc
import logging
import multiprocessing.connection
import os
import pickle
import queue
import signal
import socket
import subprocess
import sys
import threading
import time
import traceback
from collections.abc import Callable, Iterable, Iterator
from functools import partial
from multiprocessing.connection import Connection
from typing import TYPE_CHECKING, Any, NoReturn, Self, TypeVar

from hexarena.protocol.errors import HexarenaError
from hexarena.referee.errors import WorkerLost
from hexarena.referee.exiting import die_with_parent, exit_now
from hexarena.referee.observers import tell

if TYPE_CHECKING:  # imported where used: ``Workers`` starts its processes before this process imports the referee
    from hexarena.referee.referee import Referee
    from hexarena.referee.settings import RefereeSettings

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

    def map(self, work: Callable[..., Result], items: Iterable[Item], observer: Any = None,
            last: bool = False) -> Iterator[Result]:
        """``work(referee, item)`` (with an ``observer``: ``work(referee, item, observer)``, called on the
        workers' threads) for every item on the workers; the results in the order they finish. ``last``: no
        ``map`` follows, so each referee stops its bots once the items run out, while the caller takes the last
        results (``close`` still waits for them)."""
        if observer is not None:
            work = partial(work, observer=observer)
        items = list(items)
        for item in items:
            self._todo.put((work, item))
        for _ in self._threads if last else ():
            self._todo.put(None)
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


def referee_pool(settings: RefereeSettings, size: int, name: str = "referee",
                 workers: Workers | None = None, pin: bool = False) -> RefereePool | RefereeProcessPool:
    """``size`` referees made with ``Referee(settings)``: on a thread of this process for one, else in worker
    processes (no shared GIL; ``workers``: processes started ahead, taken first; ``pin``: each on a core of its own,
    ``RefereeProcessPool``). Either way ``map(work, items, observer)``, with ``work`` picklable."""
    if size <= 1:
        from hexarena.referee.referee import Referee

        return RefereePool(lambda: Referee(settings), size, name)
    return RefereeProcessPool(settings, size, name, workers, pin)


class Workers:
    """Worker processes started before their settings are known, for a ``RefereeProcessPool`` to take
    (``referee_pool(..., workers=...)``): a caller that will play games at once starts them first (``hexarena
    league run``, ``hexarena sprt``), so that they are ready by the time it has read what it plays. Each waits for
    its settings; those no pool takes are killed by ``close`` (they have started no bot), which the caller that
    started them calls once it is done with them (``with Workers(...) as workers:``, or a ``finally``): no one else
    closes them.

    Fresh interpreters by default, which import the referee (0.25 s of CPU each) while the caller imports and
    reads. With ``fork``, this process imports the referee once and forks them, ready at once: only while it
    runs no other thread (a fork copies only the forking thread, and any lock another one holds stays held in
    the copy) and before it opens anything a copy must not share (a database: the caller's part); else they
    are started fresh. A forked worker keeps none of this process's descriptors but its own connection and
    stdout and stderr, and ends with ``os._exit`` (no buffer or finaliser of this process runs twice)."""

    def __init__(self, size: int, fork: bool = False) -> None:
        self.forked = fork and hasattr(os, "fork") and _threads() == 1
        if self.forked:  # what a worker needs, imported once here
            import hexarena.referee.referee
            import hexarena.referee.sandbox  # noqa: F401
        self._started = [_fork() if self.forked else _spawn() for _ in range(size)]

    def take(self, size: int) -> list[tuple[Connection, subprocess.Popen | Forked]]:
        """Up to ``size`` of the started workers, no longer this object's to close."""
        taken, self._started = self._started[:size], self._started[size:]
        return taken

    def close(self) -> None:
        """Kill the workers no pool took."""
        started, self._started = self._started, []
        for connection, process in started:
            process.kill()
            process.wait()
            connection.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def pin_to_cores(pids: list[int], first: int = 0) -> None:
    """Hold process ``pids[i]`` (and what it starts from then on) to core ``first + i``, counted over the cores this
    process may use (its own affinity: an organiser's ``taskset`` is kept) and around again; nothing where the
    system has no affinity."""
    if not hasattr(os, "sched_setaffinity"):
        return
    cores = sorted(os.sched_getaffinity(0))
    for number, pid in enumerate(pids, first):
        with contextlib.suppress(OSError):  # gone already: its pool reports it
            os.sched_setaffinity(pid, {cores[number % len(cores)]})


_next_core = 0  # where the next pinned pool of this process starts (``_cores_in_turn``)
_next_core_lock = threading.Lock()


def _cores_in_turn(count: int) -> int:
    """The first core number for ``count`` pinned workers: the pinned pools of one process (a server's leagues at
    once) take the cores in turn rather than each starting at the first."""
    global _next_core
    with _next_core_lock:
        first, _next_core = _next_core, _next_core + count
    return first


def _threads() -> int:
    """This process's threads: the kernel's count where it shows one (a library's own threads too), else Python's."""
    try:
        return len(os.listdir("/proc/self/task"))
    except OSError:
        return threading.active_count()


class Forked:
    """A forked worker, with what the pool uses of ``subprocess.Popen``: pid, returncode, poll, wait, kill.

    Reaped by something else (a SIGCHLD handler, a ``waitpid(-1)`` of a library): exited, its status unknown,
    taken as 0, as ``Popen`` takes it."""

    def __init__(self, pid: int) -> None:
        self.pid, self.returncode = pid, None

    def _reap(self, flags: int) -> None:
        try:
            pid, status = os.waitpid(self.pid, flags)
        except ChildProcessError:  # not ours to reap any more: gone
            self.returncode = 0
            return
        if pid:
            self.returncode = os.waitstatus_to_exitcode(status)

    def poll(self) -> int | None:
        if self.returncode is None:
            self._reap(os.WNOHANG)
        return self.returncode

    def wait(self, timeout: float | None = None) -> int:
        if timeout is None and self.returncode is None:
            self._reap(0)
        deadline = time.monotonic() + (timeout or 0)
        while self.poll() is None:
            if time.monotonic() > deadline:
                raise subprocess.TimeoutExpired(f"worker {self.pid}", timeout or 0)
            time.sleep(0.005)
        return self.returncode

    def kill(self) -> None:
        if self.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.kill(self.pid, signal.SIGKILL)


def _fork() -> tuple[Connection, Forked]:
    """A worker forked from this process (``Workers``), waiting for its settings on the returned connection."""
    ours, theirs = socket.socketpair()
    sys.stdout.flush()
    sys.stderr.flush()
    parent = os.getpid()
    pid = os.fork()
    if pid == 0:  # the worker: nothing but its connection and the standard streams, as a fresh one has
        status = 1
        try:
            keep = theirs.fileno()
            os.closerange(3, keep)
            os.closerange(keep + 1, os.sysconf("SC_OPEN_MAX"))
            null = os.open(os.devnull, os.O_RDONLY)
            os.dup2(null, 0)
            os.close(null)
            _serve(Connection(theirs.detach()), parent)
            status = 0
        except BaseException:  # noqa: BLE001 - as a fresh interpreter would: the traceback, exit status 1
            traceback.print_exc()
        finally:
            os._exit(status)
    theirs.close()
    return Connection(ours.detach()), Forked(pid)


def _spawn() -> tuple[Connection, subprocess.Popen]:
    """A worker process, waiting for its settings on the returned connection."""
    ours, theirs = socket.socketpair()
    # a fresh interpreter, not multiprocessing's spawn: that one runs the caller's main script again
    process = subprocess.Popen([sys.executable, "-m", "hexarena.referee.pool", str(theirs.fileno()), str(os.getpid())],
                               pass_fds=[theirs.fileno()], stdin=subprocess.DEVNULL, env=_worker_env())
    theirs.close()
    return Connection(ours.detach()), process


class RefereeProcessPool:
    """``size`` worker processes, each with one ``Referee(settings)``; the same contract as ``RefereePool``.

    ``work`` must be picklable (a module-level function): ``work(referee, item)``, or with an ``observer``
    ``work(referee, item, observer)``, whose calls are forwarded to this process and made here, on the
    thread that iterates ``map``. Items and results are pickled. A worker dies with this process (and
    its bots with it, ``referee/launch.py``); a worker that dies on its own is ``WorkerLost`` from ``map``.

    Each worker holds one item beyond the one it plays (``AHEAD``), so it starts its next game while this
    process is still storing the last one; a worker checks for ``close`` before it starts an item.

    With ``pin``, each worker is held to a core of its own, in turn over the cores this process may use (``hexarena
    league run --pin-cores``: worker ``i`` on core ``i``), before its referee starts a bot, and the bots it starts
    inherit that core: each game at once keeps a core, its referee and bots taking turns on it, where unpinned the
    scheduler kept waking them on the busy core while the other idled (300 games at concurrency 2 on 2 cores:
    0.68-0.77x the time, 0.88-0.91x at 4). A bot then cannot use a second core, not even an idle one, and a bot that
    thinks on its opponent's time takes it from its opponent alone.
    """

    AHEAD = 1

    def __init__(self, settings: RefereeSettings, size: int, name: str = "referee",
                 workers: Workers | None = None, pin: bool = False) -> None:
        from hexarena.referee.sandbox import linked_out

        self._processes: dict[Connection, subprocess.Popen] = {}
        self._names: dict[Connection, str] = {}
        self._given: dict[Connection, int] = {}  # items handed and not answered yet
        self._map = 0  # the current map's number: an earlier map's late answers are dropped
        self._stopped: set[Connection] = set()  # told to stop (``None`` sent): a last map's idle workers, or all
        self._closed = False
        started = workers.take(size) if workers is not None else []
        started += [_spawn() for _ in range(size - len(started))]
        if pin:  # before the settings go: no bot has started yet
            pin_to_cores([process.pid for _, process in started], _cores_in_turn(len(started)))
        for number, (connection, process) in enumerate(started):
            self._processes[connection] = process
            self._names[connection] = f"{name}-{number}"
            self._given[connection] = 0
        # what sandboxed bots' files lead to outside /usr (``sandbox.linked_out``: 0.25 s of CPU when /usr is walked,
        # 0.05 s when a walk of an earlier run is found still true): found here once, not by each worker
        linked = "\n".join(linked_out()) if settings.sandboxed else None
        for connection in self._processes:
            try:
                connection.send((settings, linked))
            except OSError:  # died before its settings came (killed): the others are not left running
                self.close(wait=False)
                self._lost(connection, "before its first game")

    def _lost(self, connection: Connection, when: str = "in a game") -> NoReturn:
        """The worker's end of ``connection`` is gone: it died (a game's failure is a "failed" answer instead). Never
        an OSError or EOFError: the command line's library takes those for its own output's pipe closing, and exits
        with status 1 and no word."""
        status = self._processes[connection].wait()
        raise WorkerLost(f"referee worker {self._names[connection]} ended (exit status {status}) {when}") \
            from None  # what that costs is the caller's to say: a league keeps its stored games, an sprt its pairs

    def map(self, work: Callable, items: list, observer: Any = None, last: bool = False) -> Iterator:
        """``work`` on every item, on the workers; the results in the order they finish. The first items go
        to the workers at once (their bots start while the caller gets ready), the rest as workers free up.
        ``last``: no ``map`` follows, so a worker is stopped as soon as it has answered its last item (its referee
        says BYE to its bots while the caller still takes the last results; ``close`` then waits for it)."""
        self._map += 1
        if items and not self._processes:
            raise ValueError("a pool of no workers cannot play anything")
        return _Results(self, self._map, work, items, observer, last)

    def close(self, wait: bool = True) -> None:
        """Stop: no new work starts; with ``wait``, return once every worker has stopped its bots (a game in
        flight finishes first, its result dropped); without, the workers are killed (their bots die with them)."""
        if self._closed:
            return
        self._closed = True
        for connection, process in self._processes.items():
            self._stop(connection)
            if not wait:
                process.kill()
        open_ = dict(self._processes)
        killed = False
        while open_:  # read what they still send (a result, events): a full pipe would block a worker's exit
            for connection in multiprocessing.connection.wait(list(open_)):
                try:
                    _, kind, value = connection.recv()
                    if kind == "log":  # a worker's warning as it stops (a bot's cgroup still busy)
                        _relog(value)
                except (EOFError, OSError):
                    killed |= open_.pop(connection).wait() != 0
                    connection.close()
        if killed:  # one that stopped by itself has stopped its bots
            _sweep_dead_referees()


    def _stop(self, connection: Connection) -> None:
        """Tell a worker to stop (once): it plays what it holds, then its referee says BYE and it exits."""
        if connection not in self._stopped:
            self._stopped.add(connection)
            try:
                connection.send(None)
            except OSError:
                pass


class _Results(Iterator):
    """A process pool's results of one ``map``, in the order they arrive; the first items are handed at once."""

    def __init__(self, pool: RefereeProcessPool, number: int, work: Callable, items: Iterable, observer: Any,
                 last: bool = False) -> None:
        self.pool, self.number, self.work, self.observer, self.last = pool, number, work, observer, last
        self.todo = list(items)[::-1]
        self.arrived: collections.deque = collections.deque()
        for _ in range(1 + pool.AHEAD):  # one each first, so a short list is spread over every worker
            for connection, given in pool._given.items():
                if self.todo and given <= pool.AHEAD:
                    self._hand(connection)
        for connection, given in pool._given.items() if last else ():
            if not given:  # more workers than items
                pool._stop(connection)

    def _hand(self, connection: Connection) -> None:
        try:
            connection.send((self.number, self.work, self.observer is not None, self.todo.pop()))
        except OSError:
            self.pool._lost(connection)
        self.pool._given[connection] += 1

    def __next__(self) -> Any:
        while not self.arrived:
            given = [c for c, n in self.pool._given.items() if n]
            if not given:
                raise StopIteration
            self._read(multiprocessing.connection.wait(given))
        return self.arrived.popleft()

    def _read(self, connections: list) -> None:
        pool = self.pool
        for connection in connections:
            while self._ready(connection):
                try:
                    answer, kind, value = connection.recv()
                except (EOFError, OSError):
                    self.pool._lost(connection)
                if kind == "event":  # a move's, in a watched league: the common case first
                    if answer == self.number:
                        tell(self.observer, value[0], *value[1], logger=log)
                    continue
                if kind == "log":
                    _relog(value)
                    continue
                pool._given[connection] -= 1
                if self.todo:  # its next game is queued before the caller stores this one
                    self._hand(connection)
                elif self.last and not pool._given[connection]:  # its bots stop while the caller stores
                    pool._stop(connection)
                if answer != self.number:
                    continue  # an earlier map's, which raised before it was read
                if kind == "failed":  # raised as it is, an OSError too: the worker that sent it plays on
                    raise value
                self.arrived.append(value)

    def _ready(self, connection: Connection) -> bool:
        try:
            return connection.poll()
        except (EOFError, OSError):
            self.pool._lost(connection)



def _worker_env() -> dict[str, str]:
    """This environment, with the folder the ``hexarena`` package is imported from first on the path (a source
    tree too)."""
    ours = os.path.dirname(os.path.dirname(os.path.abspath(sys.modules["hexarena"].__file__)))
    path = os.environ.get("PYTHONPATH")
    return {**os.environ, "PYTHONPATH": ours + (os.pathsep + path if path else "")}


class _Forward:
    """In a worker: an observer whose calls travel to the pool's process. Once that process is gone or stopping
    (its end of the connection closed) there is nobody to tell: the call is dropped, not the observer's failure,
    and the worker ends at its next read or answer."""

    def __init__(self, connection: Connection, number: int) -> None:
        self.connection, self.number = connection, number

    def __getattr__(self, event: str) -> Callable:
        return lambda *args: _send_quietly(self.connection, (self.number, "event", (event, args)))


def _send_quietly(connection: Connection, message: tuple) -> None:
    with contextlib.suppress(OSError):
        connection.send(message)


class _ForwardLog(logging.Handler):
    """In a worker: its warnings and errors, logged again by the pool's process (``_relog``), in whatever form that
    process logs: a served league's worker warnings are lines of the server's log (JSON lines with ``--log-format
    json``), not text on the standard error it shares. The worker's referee logs on its one thread."""

    def __init__(self, connection: Connection) -> None:
        super().__init__(logging.WARNING)
        self.connection = connection

    def emit(self, record: logging.LogRecord) -> None:
        # the default formatter: the message, then its traceback if it has one
        _send_quietly(self.connection, (None, "log", (record.name, record.levelno, self.format(record))))


def _sweep_dead_referees() -> None:
    """Kill what still runs in the cgroups of dead referees under this process's own cgroup, where its workers'
    are, and remove them (``cgroups.sweep``): a worker killed while bubblewrap was still setting a sandbox up leaves
    that sandbox running (docs/security.md). Now, rather than when some later referee starts a bot. The cgroups of
    live workers (another pool's, in a server) are left alone."""
    from hexarena.referee import cgroups

    backend = cgroups.backend()
    if backend is not None:
        cgroups.sweep(backend.parents.values())


def _relog(value: tuple) -> None:
    """A worker's log record (``_ForwardLog``), logged here on the logger of the same name."""
    name, level, text = value
    logging.getLogger(name).log(level, "%s", text)


def _serve(connection: Connection, parent: int) -> None:
    """A worker process: one referee, items until ``None``, then BYE to its bots."""
    die_with_parent(parent)  # the pool's process
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C reaches the whole group: the pool's process decides
    package = logging.getLogger("hexarena")
    package.handlers, package.propagate = [_ForwardLog(connection)], False  # not a forked runner's handlers
    from hexarena.referee.referee import Referee  # before the settings come: started early (``Workers``), it
    from hexarena.referee.sandbox import LINKED_ENV  # imports while the pool's process still gets ready

    try:
        given = connection.recv()
        if given is None:  # stopped before its settings came (the pool's start failed): nothing started yet
            return
        settings, linked = given
        if linked is not None:  # checked again by the sandbox, as an inherited answer is
            os.environ[LINKED_ENV] = linked
        try:
            referee = Referee(settings)
        except Exception as exc:  # noqa: BLE001 - every task is answered with it (map raises it)
            while (task := connection.recv()) is not None:
                connection.send((task[0], "failed", _picklable(exc)))
            return
        with referee:
            # what is loaded now (modules, the referee) lives as long as the worker: out of the collector's way, so
            # that the full collections the games' garbage brings walk only what the games made
            gc.freeze()
            for number, work, observed, item in _tasks(connection):
                try:
                    result = work(referee, item, _Forward(connection, number)) if observed else work(referee, item)
                except BaseException as exc:  # noqa: BLE001 - the pool raises it: a referee bug must not hang the run
                    connection.send((number, "failed", _picklable(exc)))
                    continue
                connection.send((number, "done", result))
    except (EOFError, OSError, KeyboardInterrupt):  # the pool's process is gone or stopping
        pass


def _tasks(connection: Connection) -> Iterator[tuple]:
    """The tasks in the order given, until ``None``: read before each one starts, so that ``close`` stops
    a worker before the item it holds ahead."""
    held: collections.deque = collections.deque()
    while True:
        while connection.poll() or not held:
            task = connection.recv()
            if task is None:
                return
            held.append(task)
        yield held.popleft()


def _picklable(exc: BaseException) -> BaseException:
    try:
        pickle.loads(pickle.dumps(exc))
        return exc
    except Exception:  # noqa: BLE001 - any exception type may refuse pickling
        return HexarenaError(f"{type(exc).__name__}: {exc}")


if __name__ == "__main__":  # a worker: python -m referee.pool FD PARENT_PID
    _serve(Connection(int(sys.argv[1])), int(sys.argv[2]))
    exit_now(0)  # its bots said BYE to and its sockets closed: the pool's close waits for nothing else
