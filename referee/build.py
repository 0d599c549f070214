"""The build runner: a bot folder's ``build`` command (bot.toml) runs once per folder and process.

    log = build(folder, manifest)           # the build's output (tail); BuildFailed if it failed or hung
    log = build(folder, manifest, sandboxed=False)   # the organiser's --no-sandbox: the build runs unconfined

Everything that needs a built bot calls this: the referee before a bot's first launch, the
conformance check, the registry when a bot is submitted (``leagues/registry/submit.py``). The outcome,
success or failure, is remembered per folder (its resolved path), so the registry's build of a
submitted copy is the one its conformance check and its games use; a folder nobody may write (a registry
snapshot, frozen once built) is never built again, in any process. Threads share it: the first
caller builds under the folder's lock, the others wait and get the same outcome.

The build runs in the folder, in the sandbox (``referee/sandbox.py``: its folder writable, nothing
else; the bot's environment, no referee variables; when its first process ends, or on the timeout,
every process it started dies with the sandbox, daemons too), in its own session, with stdin from
/dev/null and stdout and stderr captured together; unconfined only when the caller passes ``sandboxed=False``
(the referee's ``RefereeSettings.sandboxed``).
"""

from __future__ import annotations

import contextlib
import os
import selectors
import signal
import subprocess
import threading
import time
from pathlib import Path

from hexarena.referee import sandbox
from hexarena.referee.errors import BuildFailed
from hexarena.referee.launch import bot_environment
from hexarena.referee.limits import Limits
from hexarena.referee.manifest import Manifest

BUILD_TIMEOUT = 300.0  # seconds
OUTPUT_TAIL = 4000  # characters of build output kept (a report, the registry's database)

_outcomes: dict[Path, str | BuildFailed] = {}  # resolved folder → its build log, or how it failed
_locks: dict[Path, threading.Lock] = {}
_locks_lock = threading.Lock()


def build(folder: Path, manifest: Manifest, *, timeout: float = BUILD_TIMEOUT, sandboxed: bool = True) -> str:
    """Run manifest.build in folder once per folder per process (threads share it under a per-folder lock;
    the outcome, success or failure, is remembered); returns the build log (output), raises BuildFailed.
    ``sandboxed=False``: unconfined (the organiser's --no-sandbox)."""
    if not manifest.build or frozen(folder):
        return ""
    key = Path(folder).resolve()
    with _locks_lock:
        lock = _locks.setdefault(key, threading.Lock())
    with lock:
        if key not in _outcomes:
            try:
                _outcomes[key] = _run(key, manifest.build, timeout, sandboxed)
            except BuildFailed as failed:
                _outcomes[key] = failed
        outcome = _outcomes[key]
    if isinstance(outcome, BuildFailed):
        raise outcome
    return outcome


def frozen(folder: Path) -> bool:
    """A folder nobody may write (a registry snapshot, frozen after its build) is built already: never built again."""
    try:
        return not Path(folder).stat().st_mode & 0o222
    except OSError:
        return False


def forget(folder: Path) -> None:
    """The remembered outcome of ``folder``'s build dropped (the registry removed a rejected snapshot folder: the
    same content submitted again is built again)."""
    with _locks_lock:
        _outcomes.pop(Path(folder).resolve(), None)


def _run(folder: Path, command: list[str], timeout: float, sandboxed: bool) -> str:
    shown = " ".join(command)
    try:
        wrapped, env = sandbox.wrap(command, folder, bot_environment({}, sandboxed), Limits(), sandboxed=sandboxed,
                                    writable=True)
        process = subprocess.Popen(wrapped, cwd=folder, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                   stderr=subprocess.STDOUT, start_new_session=True)
    except OSError as exc:
        raise BuildFailed(f"build command {shown!r} cannot start: {exc.strerror}") from None
    try:
        output, finished = _read_tail(process, timeout)
    finally:
        if process.poll() is None or not finished:
            with contextlib.suppress(ProcessLookupError):  # the whole group: make may have started children
                os.killpg(process.pid, signal.SIGKILL)
        process.stdout.close()
        process.wait()
    log = _tail(output)
    if not finished:
        raise BuildFailed(f"build {shown!r} did not finish within {timeout:g} s", log)
    if process.returncode != 0:
        last = log.strip().splitlines()[-1:] or ["no output"]
        raise BuildFailed(f"build {shown!r} failed with exit status {process.returncode}: {last[0]}", log)
    return log


def _read_tail(process: subprocess.Popen, timeout: float) -> tuple[bytes, bool]:
    """The build's output as it comes, only its last ``4 * OUTPUT_TAIL`` bytes kept (a build printing without end
    costs the server no memory), until the pipe closes and the process has exited or ``timeout`` passes;
    (the tail, whether it finished)."""
    keep = 4 * OUTPUT_TAIL  # UTF-8: at most 4 bytes a character
    tail = bytearray()
    end = time.monotonic() + timeout
    fd = process.stdout.fileno()
    with selectors.DefaultSelector() as selector:
        selector.register(fd, selectors.EVENT_READ)
        while (left := end - time.monotonic()) > 0:
            if not selector.select(left):
                continue
            chunk = os.read(fd, 65536)
            if not chunk:
                break
            tail += chunk
            del tail[:-keep]
        else:
            return bytes(tail), False
    try:
        process.wait(max(0.0, end - time.monotonic()))
    except subprocess.TimeoutExpired:
        return bytes(tail), False
    return bytes(tail), True


def _tail(output: bytes) -> str:
    return output.decode("utf-8", "replace")[-OUTPUT_TAIL:]
