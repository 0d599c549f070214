"""Bot processes: launch from a manifest, capture output per game, stop politely then firmly.

Each bot runs in the sandbox (``referee/sandbox.py``: its own namespaces, filesystem, environment
and limits, set before its first instruction), started in its own session and process group
(``start_new_session=True``): the pid is the sandbox's outer process, and killing it kills every
process inside. Where the machine lets the referee make cgroups, the launch's shell first moves itself
into the bot's own (``referee/cgroups.py``): the kernel bounds its memory and processes as a whole and
counts its CPU time; elsewhere the watchdog (``referee/watchdog.py``) does. With the sandbox off (``--no-sandbox``: ``sandboxed=False``, the referee's
``RefereeSettings.sandboxed``) the limits (``referee/limits.py``) are applied with ``prlimit``
right after the launch (not in a ``preexec_fn``, unsafe when referees run in threads of one
process) and the session is what stopping reaches.

Lifecycle: ``start`` → running (output read by the referee's poller through
``fds``) → ``stop_all`` (the referee has said BYE): wait, SIGTERM the group, wait,
SIGKILL the group and every process left in the bot's session.
"""

from __future__ import annotations

import contextlib
import logging
import os
import resource
import select
import shutil
import signal
import subprocess
import sys
import time
from dataclasses import replace
from pathlib import Path
from typing import BinaryIO

import zmq

from hexarena.referee import cgroups, sandbox
from hexarena.referee.bridge import Bridge
from hexarena.referee.cgroups import Cgroup
from hexarena.referee.limits import Limits  # also imported from here by older code and tests
from hexarena.referee.manifest import Manifest
from hexarena.referee.usage import ProcessTree
from hexarena.referee.watchdog import Watchdog

log = logging.getLogger(__name__)
PYTHONS = ("python", "python3")
MiB = 1024 * 1024
# util-linux's setpriv sets the parent-death signal, then a shell execs the bot (or its sandbox) only if the
# referee is still its parent: a referee SIGKILLed between the fork and that prctl would otherwise leave the
# launch running (bwrap's own --die-with-parent comes later still). Without the sandbox this is also what
# makes a bot die with its referee.
_SETPRIV = shutil.which("setpriv")
_PARENT_STILL_THERE = '[ "$PPID" = "$0" ] && exec "$@"'


def _die_with_referee(command: list[str], group: Cgroup | None = None) -> list[str]:
    """``command`` launched so that it dies with the referee, and first enters the bot's cgroup (``group``)."""
    enter = group.enter_script() if group is not None else ""
    if _SETPRIV is None:
        return ["/bin/sh", "-c", enter + 'exec "$@"', "sh", *command] if enter else command
    return [_SETPRIV, "--pdeathsig", "KILL", "--", "/bin/sh", "-c", _PARENT_STILL_THERE.replace("exec", enter + "exec"),
            str(os.getpid()), *command]


def _cgroup(limits: Limits) -> Cgroup | None:
    """A cgroup of its own for a bot, where the machine has a backend (``referee/cgroups.py``); None: the watchdog."""
    found = cgroups.backend()
    if found is None:
        return None
    try:
        return found.create(limits)
    except OSError as exc:  # e.g. the organiser's cgroup removed under the referee: this bot gets the watchdog
        log.warning("cannot make a cgroup for a bot (%s): its memory is bounded by the watchdog", exc)
        return None

# A bot's environment is exactly the seat's variables (HEXARENA_*) and what the organiser forwards
# by name, HEXARENA_PASS_ENV="NAME,NAME"; the sandbox adds PATH, HOME=/tmp and the locale.
PASS_ENV = "HEXARENA_PASS_ENV"


def bot_environment(seat_env: dict[str, str], sandboxed: bool = True) -> dict[str, str]:
    """The environment a bot starts with: the forwarded variables, the seat's own (endpoint, token)."""
    passed = {name.strip() for name in os.environ.get(PASS_ENV, "").split(",") if name.strip()}
    env = {name: value for name, value in os.environ.items() if name in passed}
    if not sandboxed:  # unconfined, a program still needs its search path and home
        env = {**{k: v for k, v in os.environ.items() if k in ("PATH", "HOME", "LANG") or k.startswith("LC_")}, **env}
    return {**env, **seat_env}  # Python bots import the installed `hexarena` package: no source folder on a path


# the referee's line in a bot's game log as each TURN leaves (PROTOCOL.md §2; the replay viewer's log links)
MOVE_MARK = "move {move}, TURN {request}"


class BotProcess:
    """One running bot and its output."""

    TAIL = 4096

    def __init__(self, popen: subprocess.Popen, limits: Limits, sandboxed: bool = True,
                 cgroup: Cgroup | None = None) -> None:
        self.popen = popen
        self.pid = popen.pid
        self.limits = limits
        self.sandboxed = sandboxed
        self.stdout = popen.stdout.fileno() if popen.stdout is not None else None  # None: a stdio bot's bridge has it
        self.bridge: Bridge | None = None  # a stdio bot's relay (set by ``start``)
        self.stderr = popen.stderr.fileno()
        self.open_fds = {fd for fd in (self.stdout, self.stderr) if fd is not None}
        for fd in self.open_fds:
            os.set_blocking(fd, False)
        try:
            self.exit_fd: int | None = os.pidfd_open(self.pid)  # readable once the process has exited
        except (AttributeError, OSError):
            self.exit_fd = None
        self.stderr_tail = b""
        self._between = b""  # output while no game log is open
        self._log: BinaryIO | None = None
        self._log_path: Path | None = None
        self._last_output = 0.0  # time.monotonic() of the last output read
        self.silent = True  # nothing read from its output since it started (``switch_log`` does not wait for it)
        self.ended_at: float | None = None  # when the last END was sent, until the next game's log opens
        self._logged = 0
        self._skipped = 0
        self._mid_line = False  # the log's last byte is not a line break: a referee line starts on a new one
        self._held: list[str] = []  # TURN marks not written yet: they go out before the next output, note or close
        self._waiting = select.poll()  # the open output pipes: whether anything waits in them, in one system call
        for fd in self.open_fds:
            self._waiting.register(fd, select.POLLIN)
        self._namespace: str | None = None  # the sandbox's pid namespace ("" if none), found on the first signal
        # the whole bot's memory (every process of its tree): its cgroup's, in the kernel, or the referee's watchdog
        self.cgroup = cgroup
        self.memory_limit_bytes = None if limits.memory_mb is None else limits.memory_mb * MiB
        self._peak = 0  # the most its processes held together at one look of the watchdog (no cgroup)
        self.limit_hit: str | None = None  # which limit the watchdog stopped it for
        self.tree = ProcessTree(self.pid)  # its sandbox's processes and threads: memory and CPU time without a cgroup
        self._cgroup_cpu = cgroup is not None and cgroup.cpu_ns() is not None
        self._cpu_ns = cgroup.cpu_ns if self._cgroup_cpu else self.tree.cpu_ns  # read twice a move: bound once
        self.watchdog = Watchdog.shared()
        self.watchdog.watch(self)

    @classmethod
    def start(cls, folder: Path, manifest: Manifest, env: dict[str, str], limits: Limits = Limits(), *,
              sandboxed: bool = True) -> BotProcess:
        """Launch the manifest's command in ``folder`` (in the sandbox unless ``sandboxed`` is False); OSError if
        it cannot be started."""
        command = list(manifest.command)
        if command[0] in PYTHONS:  # the referee's own interpreter, so bots see the same packages
            command[0] = sys.executable
            env = {**env, "PYTHONPATH": str(sandbox.LEGACY)}  # `protocol.client` for bots written for 0.1
        limits = limits.within(manifest.limits)
        stdio = manifest.transport == "stdio"
        group = _cgroup(limits)
        inside = limits
        if limits.processes is not None:
            # the whole bot's processes and threads are bounded by its cgroup's pids.max, or counted by the
            # watchdog, both with the sandbox's outer process (SANDBOX_TASKS); RLIMIT_NPROC, which counts the
            # sandbox's uid only (and nothing where the organiser is root: the kernel exempts uid 0's processes),
            # is one above, so that the whole-bot bound is the one that sees a bot go past it
            inside = replace(limits, processes=limits.processes + cgroups.SANDBOX_TASKS)
        try:
            command, full_env = sandbox.wrap(command, folder, bot_environment(env, sandboxed), inside,
                                             sandboxed=sandboxed, endpoint=env.get("HEXARENA_ENDPOINT"),
                                             tcp=manifest.transport == "tcp")
            popen = subprocess.Popen(
                _die_with_referee(command, group), cwd=folder, env=full_env,
                stdin=subprocess.PIPE if stdio else subprocess.DEVNULL, stdout=subprocess.PIPE,
                stderr=subprocess.PIPE, start_new_session=True, close_fds=True,
            )
        except BaseException:
            if group is not None:
                group.remove()
            raise
        bridge = None
        if stdio:  # protocol lines on stdin/stdout, relayed to the referee's socket
            try:
                bridge = Bridge.attach(popen, env["HEXARENA_ENDPOINT"])
            except (OSError, zmq.ZMQError) as exc:  # e.g. too many open files: the bot failed to start, not the referee
                with contextlib.suppress(OSError):
                    os.killpg(popen.pid, signal.SIGKILL)
                popen.wait()
                if group is not None:
                    group.remove()
                raise OSError(f"cannot relay the bot's stdio: {exc}") from None
        process = cls(popen, limits, sandboxed, group)
        process.bridge = bridge
        if not sandboxed:
            process._apply_limits()
        return process

    def _apply_limits(self) -> None:
        """Unsandboxed: limits right after the launch (the sandbox sets them before the bot runs)."""
        for kind, value in self.limits.rlimits(confined=False):
            try:
                resource.prlimit(self.pid, kind, (value, value))
            except (OSError, ValueError, OverflowError):  # gone, a hard limit below ours (keep it), too large
                pass

    @property
    def fds(self) -> list[int]:
        """Descriptors for the poller: output pipes still open, and the exit descriptor."""
        return sorted(self.open_fds) + ([self.exit_fd] if self.exit_fd is not None else [])

    def exited(self) -> bool:
        return self.popen.poll() is not None

    @property
    def returncode(self) -> int | None:
        return self.popen.poll()

    def read(self, fd: int) -> bool:
        """Read what is waiting on an output pipe into the log; False once the pipe is closed."""
        while True:
            try:
                chunk = os.read(fd, 65536)
            except BlockingIOError:
                return True
            except OSError:
                chunk = b""
            if not chunk:
                if fd in self.open_fds:  # not yet if ``drain`` read it to its end first
                    self.open_fds.remove(fd)
                    self._waiting.unregister(fd)
                return False
            self._last_output = time.monotonic()
            self.silent = False
            if fd == self.stderr:
                self.stderr_tail = (self.stderr_tail + chunk)[-self.TAIL:]
            self._write(chunk)

    def drain(self) -> None:
        for fd in list(self.open_fds):
            self.read(fd)

    def _file(self) -> BinaryIO | None:
        """The game's log, opened on first use; None (the output is dropped) if it cannot be written:
        a full disk or an unwritable folder must not stop the game."""
        if self._log is None and self._log_path is not None:
            try:
                self._log_path.parent.mkdir(parents=True, exist_ok=True)
                # unbuffered: the bot's output is in the file as soon as it is read (it comes in 64 KiB chunks);
                # the TURN marks held after it follow at its next output, a referee line, or the game's end
                self._log = open(self._log_path, "ab", buffering=0)  # noqa: SIM115 -- open until close_log
            except OSError:
                self._log_path = None
                return None
        return self._log

    def _write(self, data: bytes) -> None:
        if self._log_path is None:  # startup or between games: kept for the next game's log
            self._between = (self._between + data)[-self.limits.log_bytes:]
            return
        if self._file() is None:
            return
        if self._held:
            self._write_held()
        room = max(0, self.limits.log_bytes - self._logged)
        try:
            self._log.write(data[:room])
        except OSError:
            return
        if room and data:
            self._mid_line = not data[:room].endswith(b"\n")
        self._logged += min(room, len(data))
        self._skipped += len(data) - min(room, len(data))

    def open_log(self, path: Path | None) -> None:
        """Send output to ``path`` (one log per game) until the next ``open_log``/``close_log``. The file is made
        when there is something to put in it, the bot's output or a referee line (``note``): a game in which the
        bot wrote nothing leaves no log, not a file of ``TURN`` marks alone: a league of quiet bots made two
        files a game (a million-game league's logs folder, two million), and making them was 4.5 % of a 300-game
        league's CPU on this project's machines."""
        self.close_log()
        self._log_path = path
        if path is not None and self._between:
            between, self._between = self._between, b""
            self._write(between)

    def switch_log(self, path: Path | None) -> None:
        """The next game's log, from the moment its GAME leaves: what the bot writes from then on is that game's.

        What it writes in answer to the last game's END belongs to the last game's log: when an END was sent
        (``ended``), the output is first read until the pipes have been quiet for ``QUIET`` seconds (at most
        ``SETTLE`` seconds after the END), so the answer reaches the old log however fast the next game began.
        A bot that has written nothing since it started (``silent``, after what waits in its pipes is read) is
        not waited for: the quiet spell would cost each game of a fast league ``QUIET`` seconds for nothing. The
        one line of such a bot that could land in the next game's log is its very first output, if that answers
        an END and comes after the next GAME left; from then on it is waited for like any bot that writes.
        """
        if self.ended_at is not None and self._log_path is not None:  # no log kept: nothing to settle
            self.drain()
            if not self.silent:
                self.settle()
        self.ended_at = None
        self.open_log(path)

    QUIET, SETTLE = 0.02, 0.25  # seconds

    def ended(self) -> None:
        """An END was sent to the bot (``switch_log`` lets its answer reach that game's log)."""
        self.ended_at = time.monotonic()

    def settle(self) -> None:
        cap = self.ended_at + self.SETTLE
        while self.open_fds:
            now = time.monotonic()
            wait = min(max(self._last_output, self.ended_at) + self.QUIET, cap) - now
            if wait <= 0 or not self._waiting.poll(wait * 1000):
                break
            self.drain()

    def note(self, text: str) -> None:
        """A referee line in the log, ``--- hexarena: text`` on a line of its own, written even past the size cap,
        after what the bot wrote before it (read first)."""
        if self._file() is not None:
            self.drain()
            self._hold(text)
            self._write_held()

    def _hold(self, text: str) -> None:
        start = "\n" if self._mid_line else ""  # after a bot's unfinished line
        self._held.append(f"{start}--- hexarena: {text}\n")
        self._mid_line = False

    def _write_held(self) -> None:
        held, self._held = "".join(self._held), []
        with contextlib.suppress(OSError):
            self._log.write(held.encode())

    def mark_turn(self, move: int, request: int) -> None:
        """The line ``--- hexarena: move K, TURN R`` before the TURN leaves (``MOVE_MARK``): what the bot wrote
        before it is read first, so the lines after it are what the bot wrote from then on (the replay viewer
        opens a seat's log there). Nothing without a log.

        The line is held, not written: it goes out before the bot's next output, the next referee line, or when
        the log closes (the game's end), so the log reads the same; a bot that writes nothing costs no write per
        move. Whether output waits in the pipes is one poll, not a read of each pipe. Marks alone make no log: they
        are dropped at the game's end if the bot wrote nothing (``open_log``)."""
        if self._log_path is not None:
            if self.open_fds and self._waiting.poll(0):
                self.drain()
            self._hold(MOVE_MARK.format(move=move, request=request))

    def close_log(self) -> None:
        if self._log_path is not None:
            self.drain()
        if self._log is not None:
            if self._skipped:
                self.note(f"{self._skipped} more bytes of output not kept (log cap {self.limits.log_bytes})")
            elif self._held:
                self._write_held()
            self._log.close()
        self._log, self._log_path, self._logged, self._skipped, self._mid_line = None, None, 0, 0, False
        self._held = []  # marks of a game the bot wrote nothing in: no log

    def cpu_ms(self) -> float:
        """CPU time (user + system) the bot's whole process tree has used so far, in ms: its cgroup's count where
        it has one (one read), else its threads' (``referee/usage.py``)."""
        return self._cpu_ns() / 1e6

    @property
    def peak_bytes(self) -> int:
        """The most memory the bot's processes held together: its cgroup's peak, else the watchdog's looks'."""
        peak = self.cgroup.peak_bytes() if self.cgroup is not None else None
        return self._peak if peak is None else peak

    def exceeded(self) -> str | None:
        """Which whole-bot limit the bot is past, in a fault's words (None: none); the watchdog's look, every
        ``watchdog.INTERVAL``: the cgroup's counters where it has one (the kernel enforced the limit), else the
        memory of its process tree. CPU time is checked against ``cpu_seconds`` either way."""
        if self.cgroup is not None:
            if (hit := self._cgroup_limit()) is not None:
                return hit
            if not self._cgroup_cpu:  # a v1 cgroup without cpuacct: CPU time from the tree, found again here
                self.tree.refresh()
        else:
            self.tree.refresh()  # also what the game loop's CPU reads use
            tasks = self.tree.task_count()
            if self.limits.processes is not None and tasks > self.limits.processes + cgroups.SANDBOX_TASKS:
                return (f"processes limit: the bot's processes and threads went past its limit of "
                        f"{self.limits.processes} ({tasks} seen, with the sandbox's own; the whole bot)")
            if self.memory_limit_bytes is not None:
                used = self.tree.memory_bytes()
                self._peak = max(self._peak, used)
                if used > self.memory_limit_bytes:
                    return (f"memory limit: the bot's processes together held {used / MiB:.0f} MiB, over its "
                            f"limit of {self.memory_limit_bytes / MiB:.0f} MiB (the whole bot)")
        if self.limits.cpu_seconds is not None and self.cpu_ms() > self.limits.cpu_seconds * 1000:
            return (f"CPU limit: the bot's processes together used {self.cpu_ms() / 1000:.1f} s of CPU time, over its "
                    f"limit of {self.limits.cpu_seconds} s (the whole bot)")
        return None

    def _cgroup_limit(self) -> str | None:
        which = self.cgroup.exceeded()
        if which == "memory":
            return (f"memory limit: the bot's processes together reached its limit of "
                    f"{(self.memory_limit_bytes or 0) / MiB:.0f} MiB (the whole bot; {self.cgroup.version}: the kernel "
                    f"stopped it, peak {self.peak_bytes / MiB:.0f} MiB)")
        if which == "processes":
            return (f"processes limit: the bot tried to run more than its {self.limits.processes} processes and "
                    f"threads together (the whole bot; {self.cgroup.version}: the kernel refused the next one)")
        return None

    def stop_for(self, limit: str) -> None:
        """Past a limit: say which, and kill the whole sandbox now (its cgroup's every process, if it has one).
        One pass, no wait (it runs on the watchdog's thread): the watchdog calls it again at each look until the
        bot is reaped, and ``kill_all`` waits for the rest."""
        self.limit_hit = limit
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.pid, signal.SIGKILL)
        if self.cgroup is not None:
            self.cgroup.kill(0)

    def describe_exit(self) -> str:
        """``exited with status 1: <last stderr line>`` for a fault's detail; the limit, if one stopped it."""
        self.drain()
        if self.limit_hit is None and self.cgroup is not None:  # the kernel's OOM kill of the bot's own process
            self.limit_hit = self._cgroup_limit()
        if self.limit_hit is not None:
            return self.limit_hit
        code = self.returncode
        if (signalled := _signal_of(code, self.sandboxed)) is not None and (limit := self._rlimit(signalled)):
            return limit
        how = f"killed by signal {-code}" if code is not None and code < 0 else f"exited with status {code}"
        lines = self.stderr_tail.decode(errors="replace").strip().splitlines()
        return f"{how}: {lines[-1][:200]}" if lines else how

    def _rlimit(self, signalled: int) -> str | None:
        """The per-process limit a signal of the kernel's names (RLIMIT_CPU's SIGXCPU, RLIMIT_FSIZE's SIGXFSZ)."""
        if signalled == signal.SIGXCPU and self.limits.cpu_seconds is not None:
            return (f"CPU limit: a process of the bot was killed (SIGXCPU) at its limit of {self.limits.cpu_seconds} "
                    f"s of CPU time (cpu_seconds, per process)")
        if signalled == signal.SIGXFSZ and self.limits.file_mb is not None:
            return (f"file size limit: a process of the bot was killed (SIGXFSZ) writing past {self.limits.file_mb} "
                    f"MiB in one file (file_mb)")
        return None

    def signal_group(self, sig: int) -> None:
        """``sig`` to the bot's group; in the sandbox, a SIGTERM goes to the bot's processes inside it (the
        sandbox's outer process would die of it at once and take them along, with no chance to finish)."""
        if self._namespace is None and self.sandboxed:  # before the sandbox dies and its pid 1 is reparented
            self._namespace = next((ns for pid in children(self.pid) if (ns := pid_namespace(pid)) != _OWN), "")
        inside = namespace_members(self._namespace) if self._namespace and sig == signal.SIGTERM else []
        for pid in inside:  # the namespace's pid 1 (bwrap's, namespaces.py's) has no handler: only the bot's processes hear it
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, sig)
        if not inside:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(self.pid, sig)

    def kill_all(self) -> None:
        """SIGKILL the process group and every process left in the bot's session (even in other groups),
        or in its sandbox's pid namespace, or in its cgroup; wait for them."""
        self.signal_group(signal.SIGKILL)
        if self.cgroup is not None:
            self.cgroup.kill()
        end = time.monotonic() + 1.0
        # SIGKILL takes a moment
        while (members := session_members(self.pid, self._namespace)) and time.monotonic() < end:
            for pid in members:
                try:
                    os.kill(pid, signal.SIGKILL)
                except (ProcessLookupError, PermissionError):
                    pass
            time.sleep(0.002)

    def close(self) -> None:
        """Release descriptors and reap; the process must be gone (``kill_all`` first)."""
        self.watchdog.unwatch(self)
        self.tree.close()
        self.close_log()
        try:
            self.popen.wait(timeout=5)
        except subprocess.TimeoutExpired:
            pass
        if self.cgroup is not None and not self.cgroup.remove():
            log.warning("a bot's cgroup %s is still busy: left for the next referee to remove", self.cgroup.folders[0])
        for stream in (self.popen.stdout, self.popen.stderr):
            if stream is not None:
                stream.close()
        if self.exit_fd is not None:
            os.close(self.exit_fd)
            self.exit_fd = None
        self.open_fds.clear()


def _signal_of(code: int | None, sandboxed: bool) -> int | None:
    """The signal that ended a bot: a negative status, or in the sandbox, whose init exits with 128 + it."""
    if code is not None and code < 0:
        return -code
    return code - 128 if sandboxed and code is not None and 128 < code < 128 + 65 else None


def _processes() -> list[tuple[int, list[bytes]]]:
    """(pid, the fields of /proc/PID/stat after the command) of every live process (Linux; empty elsewhere)."""
    found = []
    try:
        entries = os.listdir("/proc")
    except OSError:
        return found
    for entry in entries:
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as stat:
                fields = stat.read().rsplit(b")", 1)[1].split()
        except (OSError, IndexError):
            continue
        if fields[0] != b"Z":
            found.append((int(entry), fields))
    return found


def session_members(sid: int, namespace: str | None = None) -> list[int]:
    """Pids of the live processes in session ``sid``, or in pid namespace ``namespace`` if one is given (one scan)."""
    return [pid for pid, fields in _processes()
            if int(fields[3]) == sid or (namespace and pid_namespace(pid) == namespace)]


def children(parent: int) -> list[int]:
    return [pid for pid, fields in _processes() if int(fields[1]) == parent]


def pid_namespace(pid: int) -> str | None:
    try:
        return os.readlink(f"/proc/{pid}/ns/pid")
    except OSError:
        return None


_OWN = pid_namespace(os.getpid())


def namespace_members(namespace: str) -> list[int]:
    """Pids of the live processes in a pid namespace (a sandbox's: ``pid:[inode]``)."""
    return [pid for pid, _ in _processes() if pid_namespace(pid) == namespace]


def stop_all(processes: list[BotProcess], grace: float = 1.0, term_grace: float = 0.5) -> None:
    """Polite then firm, for bots already told BYE: wait ``grace``, SIGTERM, wait, SIGKILL; then reap.

    The SIGKILL to each group and session comes last in every case, so that children a bot
    left behind when it exited by itself are gone too.
    """
    _wait_exit(processes, grace)
    for process in processes:
        if not process.exited():
            process.signal_group(signal.SIGTERM)
    _wait_exit(processes, term_grace)
    for process in processes:
        process.kill_all()
    for process in processes:
        process.close()


def _wait_exit(processes: list[BotProcess], seconds: float) -> None:
    end = time.monotonic() + seconds
    while True:
        for process in processes:
            process.drain()
        if all(p.exited() for p in processes) or time.monotonic() >= end:
            return
        time.sleep(0.005)
