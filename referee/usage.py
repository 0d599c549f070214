"""What a bot's processes use together, read from ``/proc``: its process tree, their memory, their CPU time.

    tree = tree_pids(process.pid)      # the sandbox's outer process and every descendant (bwrap, its init, the bot...)
    memory_bytes(tree)                 # resident anonymous memory, summed: what the whole bot holds
    cpu_ns(tree)                       # CPU time (user + system) of every thread, and of children already reaped

A bot's sandbox is one process tree under the process the referee started: descendants are found through
``/proc/PID/task/TID/children`` (no scan of all of ``/proc``). Memory counts each process's resident pages
that are not file-backed or shared (``statm``'s resident − shared): a shared library mapped by eight
processes is not counted eight times, a page a forked child has touched is. CPU time is the scheduler's own
count in nanoseconds (``/proc/PID/task/TID/schedstat``), plus what exited children left to their parents
(``cutime`` + ``cstime``, in clock ticks). Linux only; elsewhere every figure is 0 and the tree is empty.
A process that exits while it is read is simply left out.
"""

from __future__ import annotations

import os

PAGE = os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096
TICK_NS = 10**9 // (os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100)


def _read(path: str) -> bytes:
    try:
        with open(path, "rb") as file:
            return file.read()
    except OSError:
        return b""


def tree_pids(root: int) -> list[int]:
    """``root`` and its descendants (pids of this machine's pid namespace), ``root`` first; [] once it is gone."""
    if not os.path.exists(f"/proc/{root}"):
        return []
    found, todo = [], [root]
    while todo:
        pid = todo.pop()
        found.append(pid)
        try:
            tasks = os.listdir(f"/proc/{pid}/task")
        except OSError:
            continue
        for task in tasks:  # a thread that is not the leader can fork too: its children are listed under it
            todo.extend(int(child) for child in _read(f"/proc/{pid}/task/{task}/children").split())
    return found


def memory_bytes(pids: list[int]) -> int:
    """Resident anonymous memory of ``pids``, summed (bytes)."""
    total = 0
    for pid in pids:
        fields = _read(f"/proc/{pid}/statm").split()
        if len(fields) >= 3:
            total += max(0, int(fields[1]) - int(fields[2]))
    return total * PAGE


def cpu_ns(pids: list[int]) -> int:
    """User + system CPU time of ``pids``' threads, and of their children already reaped (nanoseconds)."""
    total = 0
    for pid in pids:
        try:
            tasks = os.listdir(f"/proc/{pid}/task")
        except OSError:
            continue
        for task in tasks:
            fields = _read(f"/proc/{pid}/task/{task}/schedstat").split()
            if fields:
                total += int(fields[0])
        stat = _read(f"/proc/{pid}/stat").rsplit(b")", 1)
        if len(stat) == 2 and len(fields := stat[1].split()) > 14:
            total += (int(fields[13]) + int(fields[14])) * TICK_NS  # cutime, cstime: reaped children's
    return total
