"""Timeouts the host caused: the rule that tells a stalled host from a bot that was slow or asleep.

    stall = host_stall(cpu_ms=12.0, lag_ms=640.0, limit_ms=1000)   # HostStall(...) or None

A timeout is a ``host_stall`` when both hold (docs/security.md, "Timeouts the host caused"):

* the bot's CPU time for the move (its whole process tree, ``referee/usage.py``) is at most
  ``CPU_SHARE`` of the move's limit: it was not simply computing too long;
* the referee's own process ran late in that move (``referee/watchdog.py``'s lag) by at least
  ``LAG_MIN_MS`` and at least ``LAG_SHARE`` of the limit: the host, not the bot, lost the time.

A bot that sleeps, blocks or waits on a lock is not forgiven: its CPU time is low but the referee
ran on time. A move whose CPU time was not measured (a remote or in-process seat) is never one.
The league's ``replay_host_stalls`` plays such a game again instead of scoring it.
"""

from __future__ import annotations

from hexarena.referee.record import HostStall

CPU_SHARE = 0.5  # of the move's limit: at most this much CPU time
LAG_MIN_MS = 100.0  # the referee ran at least this late...
LAG_SHARE = 0.2  # ...and at least this share of the move's limit


def host_stall(cpu_ms: float | None, lag_ms: float, limit_ms: int) -> HostStall | None:
    """The figures of a timeout the host caused, or None if the bot's own time explains it."""
    if cpu_ms is None or cpu_ms > CPU_SHARE * limit_ms or lag_ms < max(LAG_MIN_MS, LAG_SHARE * limit_ms):
        return None
    return HostStall(cpu_ms=round(cpu_ms, 3), lag_ms=round(lag_ms, 3), limit_ms=limit_ms)
