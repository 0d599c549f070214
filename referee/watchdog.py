"""The referee's watchdog: each bot's memory as a whole, and how late the referee's own process runs.

    watchdog = Watchdog.shared()          # one thread per referee process, started on the first watch
    watchdog.watch(process)               # a BotProcess: its whole tree's memory against its limit
    watchdog.unwatch(process)
    watchdog.lag_ms(since)                # the most the thread woke late since ``since`` (perf_counter seconds)

Every ``INTERVAL`` seconds the thread sums the resident anonymous memory of each watched bot's process tree
(``referee/usage.py``'s ``ProcessTree``, found again at every look: the sandbox's processes, every child and daemon of the bot) and SIGKILLs the bot's
process group, which takes its whole sandbox with it (the parent-death signal of bwrap's and
``namespaces.py``'s init), as soon as the sum passes the bot's ``memory_mb``. The process then exits, and
its seat reports the fault ``crashed`` with the limit named (``BotProcess.describe_exit``). The per-process
address-space limit (RLIMIT_AS, the same ``memory_mb``) keeps one allocation from overshooting far between
two looks; docs/security.md has the measured overshoot.

Where cgroup v2 is delegated a cgroup would do this in the kernel; these machines have none
(``cgroup_v2_memory()`` says which), so the watchdog is the one enforcement, on every machine.

The same thread measures the host: each time it wakes later than it asked to, the lateness is kept
(``lag_ms``), which the game loop records as the referee's scheduling lag (the host's share of a slow move).
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import threading
import time
from collections import deque
from typing import Protocol

from hexarena.referee.usage import ProcessTree

INTERVAL = 0.02  # seconds between two looks at every watched bot
LAG_KEPT = 30_000  # wake-ups remembered (10 minutes at INTERVAL): lag_ms looks back that far at most
MiB = 1024 * 1024
CGROUP_ROOT = "/sys/fs/cgroup"


class Watched(Protocol):
    pid: int
    popen: subprocess.Popen
    tree: ProcessTree
    memory_limit_bytes: int | None
    peak_bytes: int
    limit_hit: str | None


class Watchdog:
    """A daemon thread that bounds each watched bot's whole memory and measures its own wake-up lateness."""

    _shared: Watchdog | None = None
    _shared_lock = threading.Lock()

    def __init__(self, interval: float = INTERVAL) -> None:
        self.interval = interval
        self._watched: set[Watched] = set()
        self._lock = threading.Lock()
        self._looking = threading.Lock()  # held while the thread measures: unwatch waits for the look to end
        self._wake = threading.Condition(self._lock)
        self._thread: threading.Thread | None = None
        self._planned: float | None = None  # when the thread means to wake next (None: idle, nothing watched)
        self._lags: deque[tuple[float, float]] = deque(maxlen=LAG_KEPT)  # (woke at, seconds late), late ones only

    @classmethod
    def shared(cls) -> Watchdog:
        with cls._shared_lock:
            if cls._shared is None or (cls._shared._thread is not None and cls._shared._pid != os.getpid()):
                cls._shared = cls()  # a forked worker gets a thread of its own
            return cls._shared

    def watch(self, process: Watched) -> None:
        with self._lock:
            self._watched.add(process)
            if self._thread is None or not self._thread.is_alive():
                self._pid = os.getpid()
                self._thread = threading.Thread(target=self._run, name="hexarena-watchdog", daemon=True)
                self._thread.start()
            self._wake.notify()

    def unwatch(self, process: Watched) -> None:
        """Stop watching ``process``; once this returns, the thread is not measuring it (its tree may be closed)."""
        with self._lock:
            self._watched.discard(process)
        with self._looking:
            pass

    def lag_ms(self, since: float, until: float | None = None) -> float:
        """The most the thread woke late between ``since`` and ``until`` (perf_counter seconds), in ms; 0.0 if it
        was never late (or watched nothing then)."""
        now = time.perf_counter()
        until = now if until is None else until
        with self._lock:
            late = [lag for at, lag in self._lags if at >= since and at - lag <= until]
            planned = self._planned
        if planned is not None and now - planned > self.interval / 2:  # overdue right now: the host has not let
            late.append(now - max(planned, since))  # the thread run yet (it would count this when it wakes)
        return round(1000 * max(late, default=0.0), 3)

    def _run(self) -> None:
        planned = time.perf_counter()
        while True:
            with self._lock:
                while not self._watched:
                    self._planned = None
                    self._wake.wait()
                    planned = time.perf_counter()
                watched = list(self._watched)
            with self._looking:
                for process in watched:
                    if process in self._watched:  # not unwatched since the copy
                        self.look(process)
            planned += self.interval
            self._planned = planned
            pause = planned - time.perf_counter()
            if pause > 0:
                time.sleep(pause)
            woke = time.perf_counter()
            if woke - planned > self.interval / 2:  # later than the scheduler's ordinary jitter
                with self._lock:
                    self._lags.append((woke, woke - planned))
            planned = max(planned, woke - self.interval)  # a long stall is counted once, not caught up on

    def look(self, process: Watched) -> None:
        """Measure ``process``'s tree once; past its limit, kill its sandbox and say why."""
        if process.popen.returncode is not None or process.limit_hit is not None:
            return  # reaped already (its pid may be another process's now), or being killed
        process.tree.refresh()  # also what the game loop's CPU reads use
        if process.memory_limit_bytes is None:
            return
        used = process.tree.memory_bytes()
        process.peak_bytes = max(process.peak_bytes, used)
        if used > process.memory_limit_bytes:
            process.limit_hit = (f"memory limit: the bot's processes together held {used / MiB:.0f} MiB, over its "
                                 f"limit of {process.memory_limit_bytes / MiB:.0f} MiB (the whole bot)")
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(process.pid, signal.SIGKILL)


def cgroup_v2_memory() -> str | None:
    """Why no cgroup v2 can bound a bot's memory here (None: one could: the memory controller is delegated)."""
    controllers = f"{CGROUP_ROOT}/cgroup.controllers"
    if not os.path.exists(controllers):
        unified = f"{CGROUP_ROOT}/unified/cgroup.controllers"
        if not os.path.exists(unified):
            return "no cgroup v2 hierarchy"
        controllers = unified
    with open(controllers) as file:
        if "memory" not in file.read().split():
            return "cgroup v2 has no memory controller here (the v1 hierarchy holds it)"
    return None


def describe() -> str:
    """One line for ``hexarena doctor`` and ``serve``: how a bot's whole memory is bounded here, or that it is not."""
    own = os.getpid()
    if not os.path.exists(f"/proc/{own}/task/{own}/children"):
        return ("whole-bot memory: NOT enforced (no /proc/PID/task/TID/children to find a bot's processes: a kernel "
                "without CONFIG_PROC_CHILDREN); each process keeps its RLIMIT_AS")
    why = cgroup_v2_memory()
    cgroup = "cgroup v2 not used" + (f": {why}" if why else "")
    return f"whole-bot memory: the referee's watchdog, every {INTERVAL * 1000:.0f} ms ({cgroup}); CPU time per move from /proc"
