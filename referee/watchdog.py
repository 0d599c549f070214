"""The referee's watchdog: each bot's whole-bot limits, and how late the referee's own process runs.

    watchdog = Watchdog.shared()          # one thread per referee process, started on the first watch
    watchdog.watch(process)               # a BotProcess: its whole-bot limits looked at every INTERVAL
    watchdog.unwatch(process)
    watchdog.lag_ms(since)                # the most the thread woke late since ``since`` (perf_counter seconds)
    describe()                            # one line: what bounds a bot's whole memory here

Every ``INTERVAL`` seconds the thread asks each watched bot whether it is past a whole-bot limit
(``BotProcess.exceeded``) and, if so, SIGKILLs its sandbox (``BotProcess.stop_for``): its process group,
which takes the whole sandbox with it (the parent-death signal of bwrap's and ``namespaces.py``'s init),
and every process of its cgroup. The process then exits, and its seat reports the fault ``crashed`` with
the limit named (``BotProcess.describe_exit``). The kill is one pass a look, repeated at each look until the bot
is reaped: a bot slow to die (a process forking as the kill came) holds up neither the other bots' looks nor the
lag measurement.

Where the machine lets the referee make cgroups (``referee/cgroups.py``: v2 where the memory controller is
delegated, v1 where its memory hierarchy is writable) the kernel enforces a bot's memory and processes, and
a look is a read of the cgroup's counters (an OOM kill, a refused fork). Elsewhere the look sums the resident
anonymous memory of the bot's process tree (``referee/usage.py``'s ``ProcessTree``, found again at every
look) against its ``memory_mb``; the per-process address-space limit (RLIMIT_AS, the same ``memory_mb``)
keeps one allocation from overshooting far between two looks. docs/security.md has the measured overshoot
of both.

The same thread measures the host: each time it wakes later than it asked to, the lateness is kept
(``lag_ms``), which the game loop records as the referee's scheduling lag (the host's share of a slow move).
"""

from __future__ import annotations

import os
import subprocess
import threading
import time
from collections import deque
from typing import Protocol

from hexarena.referee import cgroups

INTERVAL = 0.02  # seconds between two looks at every watched bot
LAG_KEPT = 30_000  # wake-ups remembered (10 minutes at INTERVAL): lag_ms looks back that far at most
THREAD = "hexarena-watchdog"  # its thread's name


class Watched(Protocol):
    popen: subprocess.Popen
    limit_hit: str | None

    def exceeded(self) -> str | None: ...

    def stop_for(self, limit: str) -> None: ...


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
                self._thread = threading.Thread(target=self._run, name=THREAD, daemon=True)
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
        """Measure ``process`` once; past a limit, kill its sandbox and say why. Killed and not reaped yet: killed
        again (what a kill leaves, a process forking as it came, is killed at the next look, not waited for here:
        a slow death would hold up the other bots' looks and count as the host's lag)."""
        if process.popen.returncode is not None:
            return  # reaped already (its pid may be another process's now)
        if process.limit_hit is not None:
            process.stop_for(process.limit_hit)
        elif (limit := process.exceeded()) is not None:
            process.stop_for(limit)


def describe() -> str:
    """One line for ``hexarena doctor`` and ``serve``: what bounds a bot's whole memory here."""
    found = cgroups.backend()
    if found is not None:
        return f"whole-bot memory: {found.describe()}"
    own = os.getpid()
    if not os.path.exists(f"/proc/{own}/task/{own}/children"):
        return (f"whole-bot memory: per-process only (RLIMIT_AS; no cgroup: {cgroups.unavailable()}; no "
                "/proc/PID/task/TID/children for a watchdog to find a bot's processes: a kernel without "
                "CONFIG_PROC_CHILDREN)")
    return (f"whole-bot memory: watchdog (every {INTERVAL * 1000:.0f} ms; no cgroup: {cgroups.unavailable()}); "
            "CPU time per move from /proc")
