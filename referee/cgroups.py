"""Each bot in a cgroup of its own, where the organiser's machine lets the referee make one: the kernel bounds the
bot's memory and processes as a whole and counts its CPU time.

    backend = cgroups.backend()            # CgroupV2, CgroupV1, or None (the watchdog's fallback): found once
    group = backend.create(limits)         # a fresh cgroup under the referee's own, its limits written
    script = group.enter_script()          # the launch's shell moves itself into it, then execs the sandbox
    group.cpu_ns(); group.peak_bytes()     # what the bot used, all its processes together (one read each)
    group.exceeded()                       # "memory" / "processes" once the kernel stopped it at a limit, else None
    group.kill(); group.remove()           # every process in it; then the cgroup itself (False: still busy)
    cgroups.unavailable()                  # why there is no backend here (None: there is one)

Two kinds, one interface (``Cgroup``):

* **cgroup v2** where a cgroup2 hierarchy hands the ``memory`` controller to the referee's cgroup's children
  (systemd's ``Delegate=yes``, a user slice, a writable ``cgroup.subtree_control``): ``memory.max``,
  ``memory.swap.max = 0``, ``memory.oom.group = 1`` (the kernel kills the whole cgroup, not its largest process),
  ``pids.max``; CPU time from ``cpu.stat``; limits seen in ``memory.events`` and ``pids.events``;
* **cgroup v1** where the ``memory`` hierarchy is writable (a hybrid machine whose cgroup2 has no controllers):
  ``memory.limit_in_bytes`` and ``memory.memsw.limit_in_bytes`` (where swap is accounted) in ``memory``,
  ``pids.max`` in ``pids``, CPU time from ``cpuacct.usage`` in ``cpuacct`` (each of the last two where it is
  writable too); an OOM kill is seen in ``memory.oom_control``'s ``oom_kill`` count, after which the referee
  kills the rest of the cgroup.

Each bot's cgroup is ``hexarena-<referee pid>-<n>`` under the referee's own cgroup of each hierarchy
(``/proc/self/cgroup``). The launch's shell writes its own pid to the cgroup's ``cgroup.procs`` before it
execs the sandbox, so everything the bot ever runs starts inside (no race with a fork). The cgroup is removed
when the bot is closed; one left by a referee that was killed is removed by the next referee that makes one
(its referee's pid gone; whatever still runs in it is killed first: ``sweep``), or by the pool of referee
workers it belonged to as that pool closes (``referee/pool.py``).

``HEXARENA_CGROUP_ROOT`` (default ``/sys/fs/cgroup``) is where the hierarchies are looked for: a folder that
holds none, or that the referee cannot write, leaves the watchdog (``referee/watchdog.py``) in force.
Standard library only.
"""

from __future__ import annotations

import contextlib
import itertools
import os
import shlex
import signal
import threading
import time

from hexarena.referee.limits import Limits

ROOT = "/sys/fs/cgroup"
ROOT_ENV = "HEXARENA_CGROUP_ROOT"
PREFIX = "hexarena-"
MiB = 1024 * 1024
SANDBOX_TASKS = 1  # the sandbox's outer process (bwrap's, namespaces.py's): in the cgroup, not the bot's own


def _pread(fd: int, size: int = 512) -> bytes:
    try:
        return os.pread(fd, size, 0)
    except OSError:
        return b""


def _field(text: bytes, name: bytes) -> int:
    """The number after ``name`` in a flat-keyed cgroup file (``oom_kill 1\\n...``); 0 if absent."""
    for line in text.splitlines():
        key, _, value = line.partition(b" ")
        if key == name:
            return int(value)
    return 0


def _write(path: str, value: str) -> None:
    with open(path, "w") as file:
        file.write(value)


def _own_paths(proc_cgroup: str = "/proc/self/cgroup") -> dict[str, str]:
    """This process's cgroup in each hierarchy: controller name (``""`` for cgroup2) → path."""
    found = {}
    with open(proc_cgroup) as file:
        for line in file:
            _, controllers, path = line.rstrip("\n").split(":", 2)
            for controller in controllers.split(",") if controllers else [""]:
                found[controller] = path
    return found


def _is_cgroup(folder: str) -> bool:
    """A folder the kernel made (cgroupfs fills every new cgroup with its ``cgroup.procs``), not a plain one."""
    return os.path.exists(os.path.join(folder, "cgroup.procs"))


def _probe(parent: str) -> str | None:
    """Why a bot's cgroup cannot be made under ``parent`` (None: it can: one was made and removed)."""
    if not _is_cgroup(parent):
        return f"{parent} is not a cgroup" if os.path.isdir(parent) else f"no {parent}"
    probe = os.path.join(parent, f"{PREFIX}{os.getpid()}-probe")  # named as a bot's: sweep removes a killed one's
    try:
        os.mkdir(probe)
    except FileExistsError:
        pass
    except OSError as exc:
        return f"cannot make a cgroup in {parent}: {exc.strerror}"
    made = _is_cgroup(probe)
    with contextlib.suppress(OSError):
        os.rmdir(probe)
    return None if made else f"{parent} is not a cgroup"


class Cgroup:
    """One bot's cgroup (a folder per hierarchy); the counters it reads are held open and read with one pread."""

    version = ""
    counts_processes = False  # pids.max bounds the bot's processes and threads (else RLIMIT_NPROC does)

    def __init__(self, folders: list[str]) -> None:
        self.folders = folders
        self._fds: dict[str, int] = {}
        self._lock = threading.Lock()

    def _read(self, path: str) -> bytes:
        fd = self._fds.get(path)  # once open, read with no lock: the CPU counter is read twice a move
        if fd is None:
            with self._lock:
                fd = self._fds.get(path)
                if fd is None:
                    try:
                        fd = self._fds[path] = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
                    except OSError:
                        return b""
        return _pread(fd)

    def enter_script(self) -> str:
        """The start of a shell script that moves the shell itself into this cgroup (each hierarchy's), each step
        ``&&`` the next: a shell that cannot exits with status 1 and the reason on stderr, before the bot runs."""
        return "".join(f"echo $$ > {shlex.quote(os.path.join(folder, 'cgroup.procs'))} && " for folder in self.folders)

    def members(self) -> list[int]:
        pids: set[int] = set()
        for folder in self.folders:
            with contextlib.suppress(OSError), open(os.path.join(folder, "cgroup.procs")) as file:
                pids.update(int(pid) for pid in file.read().split())
        return sorted(pids)

    def kill(self, seconds: float = 1.0) -> bool:
        """SIGKILL every process in the cgroup until none is left (True), or ``seconds`` have passed (0: one pass,
        no wait: the watchdog's, which must not hold up its other looks)."""
        end = time.monotonic() + seconds
        while members := self.members():
            for pid in members:
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.kill(pid, signal.SIGKILL)
            if time.monotonic() >= end:
                return False
            time.sleep(0.002)
        return True

    def remove(self, seconds: float = 2.0) -> bool:
        """Kill what is left, close the counters, remove the cgroup's folders; False if one stayed (busy)."""
        self.kill(seconds / 2)
        with self._lock:
            fds, self._fds = self._fds, {}
        for fd in fds.values():
            os.close(fd)
        end, left = time.monotonic() + seconds, list(self.folders)
        while left:
            for folder in list(left):
                try:
                    os.rmdir(folder)
                    left.remove(folder)
                except FileNotFoundError:
                    left.remove(folder)
                except OSError:  # EBUSY: a process still leaving
                    pass
            if left and time.monotonic() > end:
                return False
            if left:
                time.sleep(0.005)
        return True

    # what each kind reads
    def cpu_ns(self) -> int | None:
        raise NotImplementedError

    def peak_bytes(self) -> int | None:
        raise NotImplementedError

    def exceeded(self) -> str | None:
        raise NotImplementedError


class CgroupV1(Cgroup):
    version = "cgroup v1"

    def __init__(self, memory: str, pids: str | None, cpuacct: str | None) -> None:
        super().__init__([folder for folder in (memory, pids, cpuacct) if folder is not None])
        self.memory, self.pids, self.cpuacct = memory, pids, cpuacct
        self._usage = f"{cpuacct}/cpuacct.usage" if cpuacct is not None else None
        self.counts_processes = pids is not None

    def limit(self, limits: Limits) -> None:
        if limits.memory_mb is not None:
            _write(f"{self.memory}/memory.limit_in_bytes", str(limits.memory_mb * MiB))
            if os.path.exists(f"{self.memory}/memory.memsw.limit_in_bytes"):  # swap accounted: none for the bot
                _write(f"{self.memory}/memory.memsw.limit_in_bytes", str(limits.memory_mb * MiB))
        if self.pids is not None and limits.processes is not None:
            _write(f"{self.pids}/pids.max", str(limits.processes + SANDBOX_TASKS))

    def cpu_ns(self) -> int | None:
        data = self._read(self._usage) if self._usage is not None else b""
        return int(data) if data.strip() else None

    def peak_bytes(self) -> int | None:
        data = self._read(f"{self.memory}/memory.max_usage_in_bytes")
        return int(data) if data.strip() else None

    def exceeded(self) -> str | None:
        if _field(self._read(f"{self.memory}/memory.oom_control"), b"oom_kill"):
            return "memory"
        if self.pids is not None and _field(self._read(f"{self.pids}/pids.events"), b"max"):
            return "processes"
        return None


class CgroupV2(Cgroup):
    version = "cgroup v2"

    def __init__(self, folder: str) -> None:
        super().__init__([folder])
        self.folder = folder
        self._stat = f"{folder}/cpu.stat"
        self.counts_processes = os.path.exists(f"{folder}/pids.max")

    def limit(self, limits: Limits) -> None:
        with contextlib.suppress(OSError):  # kernels before 4.19 have no group kill: the referee kills the rest
            _write(f"{self.folder}/memory.oom.group", "1")
        if limits.memory_mb is not None:
            _write(f"{self.folder}/memory.max", str(limits.memory_mb * MiB))
            if os.path.exists(f"{self.folder}/memory.swap.max"):
                _write(f"{self.folder}/memory.swap.max", "0")
        if limits.processes is not None and os.path.exists(f"{self.folder}/pids.max"):
            _write(f"{self.folder}/pids.max", str(limits.processes + SANDBOX_TASKS))

    def cpu_ns(self) -> int | None:
        data = self._read(self._stat)
        return _field(data, b"usage_usec") * 1000 if data else None

    def peak_bytes(self) -> int | None:
        data = self._read(f"{self.folder}/memory.peak")  # Linux 5.19 and later
        return int(data) if data.strip() else None

    def exceeded(self) -> str | None:
        if _field(self._read(f"{self.folder}/memory.events"), b"oom_kill"):
            return "memory"
        if _field(self._read(f"{self.folder}/pids.events"), b"max"):
            return "processes"
        return None

    def kill(self, seconds: float = 1.0) -> bool:
        with contextlib.suppress(OSError):  # Linux 5.14 and later: every process at once, forks in flight too
            _write(f"{self.folder}/cgroup.kill", "1")
        return super().kill(seconds)


class Backend:
    """Where bots' cgroups are made: the referee's own cgroup of each hierarchy this kind uses."""

    version = ""

    def __init__(self, parents: dict[str, str]) -> None:
        self.parents = parents  # controller ("memory", "pids", "cpuacct"; "" for cgroup2) → the referee's cgroup
        self._names = itertools.count()
        self._swept = False

    def create(self, limits: Limits) -> Cgroup:
        """A new cgroup for one bot with ``limits`` written; OSError if it cannot be made."""
        if not self._swept:
            self._swept = True
            sweep(self.parents.values())
        while True:
            name = f"{PREFIX}{os.getpid()}-{next(self._names)}"
            if not any(os.path.exists(os.path.join(parent, name)) for parent in self.parents.values()):
                break
        made = []
        try:
            for parent in self.parents.values():
                os.mkdir(os.path.join(parent, name))
                made.append(os.path.join(parent, name))
            group = self._group({controller: os.path.join(parent, name) for controller, parent in self.parents.items()})
            group.limit(limits)
        except OSError:
            for folder in made:
                with contextlib.suppress(OSError):
                    os.rmdir(folder)
            raise
        return group

    def _group(self, folders: dict[str, str]) -> Cgroup:
        raise NotImplementedError

    def describe(self) -> str:
        raise NotImplementedError


class BackendV1(Backend):
    version = "cgroup v1"

    def _group(self, folders: dict[str, str]) -> CgroupV1:
        return CgroupV1(folders["memory"], folders.get("pids"), folders.get("cpuacct"))

    def describe(self) -> str:
        processes = "pids.max" if "pids" in self.parents else "RLIMIT_NPROC (no writable pids hierarchy)"
        cpu = "cpuacct.usage" if "cpuacct" in self.parents else "/proc (no writable cpuacct hierarchy)"
        return (f"cgroup v1 (kernel): memory.limit_in_bytes in {self.parents['memory']}, processes by {processes}, "
                f"CPU time from {cpu}")


class BackendV2(Backend):
    version = "cgroup v2"

    def _group(self, folders: dict[str, str]) -> CgroupV2:
        return CgroupV2(folders[""])

    def describe(self) -> str:
        return f"cgroup v2 (kernel): memory.max, memory.swap.max=0, pids.max in {self.parents['']}, CPU time from cpu.stat"


def find(root: str = ROOT, proc_cgroup: str = "/proc/self/cgroup") -> Backend | str:
    """The backend under ``root``, or why there is none (one line naming what was tried)."""
    try:
        own = _own_paths(proc_cgroup)
    except (OSError, ValueError) as exc:
        return f"cannot read {proc_cgroup}: {exc}"
    reasons = []
    unified = next((f for f in (root, os.path.join(root, "unified")) if os.path.exists(f"{f}/cgroup.controllers")), None)
    if unified is not None and "" in own:
        parent = os.path.normpath(unified + own[""])
        why = _v2_ready(parent)
        if why is None:
            return BackendV2({"": parent})
        reasons.append(f"cgroup v2: {why}")
    if "memory" in own:
        parents = {}
        for controller in ("memory", "pids", "cpuacct"):
            if controller in own:
                parent = os.path.normpath(os.path.join(root, controller) + own[controller])
                why = _probe(parent)
                if why is None:
                    parents[controller] = parent
                elif controller == "memory":
                    reasons.append(f"cgroup v1: {why}")
                    break
        else:
            return BackendV1(parents)
    elif not reasons:
        reasons.append(f"no cgroup hierarchy with a memory controller under {root}")
    return "; ".join(reasons) or f"no cgroup hierarchy with a memory controller under {root}"


def _v2_ready(parent: str) -> str | None:
    """Why bots' cgroups under ``parent`` (the referee's cgroup2) could not have the memory controller."""
    try:
        with open(f"{parent}/cgroup.controllers") as file:
            available = file.read().split()
    except OSError:
        return f"no {parent}"
    if "memory" not in available:
        return f"no memory controller delegated to {parent}"
    try:
        with open(f"{parent}/cgroup.subtree_control") as file:
            enabled = file.read().split()
    except OSError as exc:
        return f"cannot read {parent}/cgroup.subtree_control: {exc.strerror}"
    wanted = [c for c in ("memory", "pids") if c in available and c not in enabled]
    if wanted:
        try:
            _write(f"{parent}/cgroup.subtree_control", " ".join(f"+{c}" for c in wanted))
        except OSError as exc:  # EBUSY: the referee's cgroup holds processes (start it in a delegated leaf's parent)
            return f"cannot hand {', '.join(wanted)} to the cgroups under {parent}: {exc.strerror}"
    return _probe(parent)


def sweep(parents) -> list[str]:
    """Remove the bots' cgroups a killed referee left under ``parents`` (their referee's pid gone), killing what
    still runs in them first: a bot whose referee was SIGKILLed while bubblewrap was still setting its sandbox up
    outlives it (bwrap sets its init's parent-death signal after its fork, and never checks that its own parent
    is still there); its cgroup kept it bounded until now."""
    removed = []
    for parent in parents:
        with contextlib.suppress(OSError):
            for name in os.listdir(parent):
                owner = name.removeprefix(PREFIX).split("-")[0]
                if not name.startswith(PREFIX) or not owner.isdigit() or _alive(int(owner)):
                    continue
                folder = os.path.join(parent, name)
                if Cgroup([folder]).remove():  # kills what still runs in it first
                    removed.append(folder)
    return removed


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


_found: dict[str, Backend | str] = {}
_found_lock = threading.Lock()


def _root() -> str:
    return os.environ.get(ROOT_ENV) or ROOT


def backend() -> Backend | None:
    """This process's backend for the organiser's root (``HEXARENA_CGROUP_ROOT``), found once; None: none here."""
    found = _find_once()
    return found if isinstance(found, Backend) else None


def unavailable() -> str | None:
    """Why no cgroup bounds a bot here (None: one does)."""
    found = _find_once()
    return found if isinstance(found, str) else None


def _find_once() -> Backend | str:
    root = _root()
    with _found_lock:
        if root not in _found:
            _found[root] = find(root)
        return _found[root]
