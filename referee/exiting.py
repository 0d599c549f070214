"""Ending a process without tearing its interpreter down: the ``hexarena`` command and the referee's workers; and a
helper process ending with the process that started it."""

from __future__ import annotations

import atexit
import os
import signal
import sys
import threading
from typing import NoReturn

from hexarena.referee import watchdog

# threads that hold nothing a teardown would release (no file, socket or connection): the referee's clock watch
HOLD_NOTHING = frozenset({watchdog.THREAD})
_teardown_kept = False


def keep_teardown() -> None:
    """End this process with Python's own exit even where ``exit_now`` is called: said by a server as it starts, or
    by an exit function that could not release something (a database connection another thread opened, which only
    that exit's teardown frees)."""
    global _teardown_kept
    _teardown_kept = True


def exit_now(code: int | str | None) -> NoReturn:
    """``sys.exit(code)`` without tearing the interpreter down: the output flushed and the ``atexit`` functions
    run (a pool's workers joined, logging's handlers flushed), then the process ends. Freeing every module's
    objects one by one (pandas', numpy's, pydantic's) took 0.14 s of a league run's wall time here, 10 %
    of a 300-game league's floor, and every command paid it; a referee worker's, 0.03 s that its pool's close
    waits for. Where anything might still need that road, it is taken as usual: another thread still running (a
    daemon one too: what it holds, a server's database connections say, is released only by that teardown), or
    output that cannot be flushed, or something an exit function could not release (``keep_teardown``). Files
    left open are not flushed: write what must last and close it first."""
    if any(thread.is_alive() and thread.name not in HOLD_NOTHING for thread in threading.enumerate()
           if thread is not threading.main_thread()):
        sys.exit(code)
    if code is not None and not isinstance(code, int):
        print(code, file=sys.stderr)  # as sys.exit prints a message
        code = 1
    atexit._run_exitfuncs()  # as Python's exit does, before the streams are flushed; run once, then forgotten
    if _teardown_kept:
        sys.exit(code)
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except (OSError, ValueError):  # a closed pipe or stream: Python's own exit reports it
        sys.exit(code)
    os._exit(code or 0)



def die_with_parent(parent: int) -> None:
    """This process is SIGKILLed when its parent, process ``parent``, ends (however it ends: SIGKILL too); one
    whose parent already ended, before this was said, ends now. For helper processes whose work is worth nothing
    once the process that asked for it is gone (a referee worker, a publish's analyses)."""
    from hexarena.referee.namespaces import PR_SET_PDEATHSIG, prctl  # the sandbox's: imported here only

    prctl(PR_SET_PDEATHSIG, signal.SIGKILL, "set the parent-death signal")
    if os.getppid() != parent:
        os._exit(1)
