"""What a bot's processes use together, read from ``/proc``: its process tree, their memory, their CPU time.

    tree = ProcessTree(process.pid)    # the sandbox's outer process and every descendant (bwrap, its init, the bot...)
    tree.refresh()                     # find the processes and threads again (the watchdog does, every 20 ms)
    tree.memory_bytes()                # resident anonymous memory, summed: what the whole bot holds
    tree.cpu_ns()                      # CPU time (user + system) of every thread, and of children already reaped
    tree.task_count()                  # its threads, every process's (what RLIMIT_NPROC and pids.max count)

A bot's sandbox is one process tree under the process the referee started: descendants are found through
``/proc/PID/task/TID/children`` (no scan of all of ``/proc``). Memory counts each process's resident pages
that are not file-backed or shared (``statm``'s resident − shared): a shared library mapped by eight
processes is not counted eight times, a page a forked child has touched is. CPU time is the scheduler's own
count in nanoseconds (``/proc/PID/task/TID/schedstat``), plus what exited children left to their parents
(``cutime`` + ``cstime``, in clock ticks).

The per-move reads are on the game loop's path, so the tree keeps each file it reads open and re-reads it
with one ``pread`` (a ``/proc`` file is current at every read from offset 0): a move costs one system call
per thread of the bot, no path lookups. What reaped children left (each process's ``stat``, whose reading
costs several times a thread's ``schedstat``) is read by ``refresh``, off the game loop's path, and again by
``cpu_ns`` only when a thread it reads is gone (a child that may have been reaped since). The tree is as of
the last ``refresh``: a thread started since counts from the next one, a thread that ended takes its time
with it (its process's own figure keeps it only for processes, through ``cutime``), so a move's CPU time is
a lower bound by at most that.
Linux only; elsewhere every figure is 0 and the tree is empty. A process that exits is simply left out.
"""

from __future__ import annotations

import os
import threading

PAGE = os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096
TICK_NS = 10**9 // (os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100)


def _pread(fd: int, size: int = 512) -> bytes:
    try:
        return os.pread(fd, size, 0)
    except OSError:  # the process or thread is gone
        return b""


class ProcessTree:
    """The processes and threads under ``root``, with their ``/proc`` files held open between refreshes."""

    def __init__(self, root: int) -> None:
        self.root = root
        self._files: dict[str, int] = {}  # path → open descriptor
        self._threads: list[int] = []  # descriptors of each thread's schedstat
        self._processes: list[tuple[int, int]] = []  # descriptors of each process's (stat, statm)
        self._reaped_ns = 0  # what the processes' reaped children used, as of the last refresh
        self._lock = threading.Lock()  # the watchdog refreshes while the game loop reads
        self.refreshed = False

    def _open(self, path: str, kept: dict[str, int]) -> int | None:
        fd = self._files.get(path)
        if fd is None:
            try:
                fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
            except OSError:
                return None
        kept[path] = fd
        return fd

    def refresh(self) -> None:
        """Find the tree's processes and threads again; close the files of those gone."""
        kept: dict[str, int] = {}
        threads, processes, todo = [], [], [self.root]
        while todo:
            pid = todo.pop()
            try:
                tasks = os.listdir(f"/proc/{pid}/task")
            except OSError:  # gone
                continue
            stat, statm = self._open(f"/proc/{pid}/stat", kept), self._open(f"/proc/{pid}/statm", kept)
            if stat is not None and statm is not None:
                processes.append((stat, statm))
            for task in tasks:
                if (fd := self._open(f"/proc/{pid}/task/{task}/schedstat", kept)) is not None:
                    threads.append(fd)
                # a thread that is not the leader can fork too: its children are listed under it
                if (fd := self._open(f"/proc/{pid}/task/{task}/children", kept)) is not None:
                    todo.extend(int(child) for child in _pread(fd, 65536).split())
        reaped = _reaped_ns(processes)
        with self._lock:
            gone = [fd for path, fd in self._files.items() if path not in kept]
            self._files, self._threads, self._processes, self.refreshed = kept, threads, processes, True
            self._reaped_ns = reaped
        for fd in gone:
            os.close(fd)

    def task_count(self) -> int:
        """The tree's threads (every process's, its main thread included), as of the last refresh."""
        with self._lock:
            return len(self._threads)

    def memory_bytes(self) -> int:
        """Resident anonymous memory of the tree's processes, summed (bytes)."""
        total = 0
        with self._lock:
            for _, statm in self._processes:
                fields = _pread(statm).split()
                if len(fields) >= 3:
                    total += max(0, int(fields[1]) - int(fields[2]))
        return total * PAGE

    def cpu_ns(self) -> int:
        """User + system CPU time of the tree's threads, and of their children already reaped (nanoseconds)."""
        if not self.refreshed:
            self.refresh()
        total, gone = 0, False
        with self._lock:
            for fd in self._threads:
                if data := _pread(fd):
                    total += int(data[:data.find(b" ")])
                else:
                    gone = True
            if gone:  # a child process may have been reaped since the refresh: its time is its parent's now
                self._reaped_ns = _reaped_ns(self._processes)
            return total + self._reaped_ns

    def close(self) -> None:
        with self._lock:
            files, self._files, self._threads, self._processes = self._files, {}, [], []
        for fd in files.values():
            os.close(fd)


def _reaped_ns(processes: list[tuple[int, int]]) -> int:
    """What the reaped children of these processes (their ``(stat, statm)`` descriptors) used, user + system (ns)."""
    total = 0
    for stat, _ in processes:
        after = _pread(stat).rsplit(b")", 1)
        if len(after) == 2 and len(fields := after[1].split()) > 14:
            total += int(fields[13]) + int(fields[14])  # cutime, cstime (clock ticks)
    return total * TICK_NS
