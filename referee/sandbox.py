"""The sandbox every bot process, build step and conformance check runs in (bubblewrap, or the kernel's namespaces).

    command = wrap(["python3", "bot.py"], folder, env, limits, endpoint=endpoint)   # bwrap … -- prlimit … -- cmd
    command = wrap(command, folder, env, limits, sandboxed=False)   # the organiser's --no-sandbox: unconfined

Whether bots are sandboxed is the organiser's choice, made once per command and carried by the
``RefereeSettings`` (``referee/settings.py``) down to each call here as ``sandboxed``: there is no
process-wide switch (default: sandboxed).

The contract (docs/security.md has the threat model):

* namespaces of its own: user (uid/gid 65534 inside, no capabilities), pid (``/proc`` shows only
  the sandbox's processes), mount, ipc, uts, cgroup and network (no network at all; an ``ipc://``
  referee socket is bound in at its own path, a unix socket crosses the network namespace);
  the parent-death signal and pid 1 of the namespace: when the sandbox's outer process dies, every
  process inside dies with it, ``setsid`` or not;
* a filesystem of its own: the bot's folder read-only (a build's folder writable), ``/usr`` and
  the system's library folders, a few files of ``/etc``, the Python interpreter's prefix and the
  folders of the installed ``hexarena`` (its ``protocol`` and ``bots``) and ``zmq`` packages read-only, a private
  size-capped ``/tmp``; nothing of the workspace, the registry, other bots, the repository or ``/root``;
* folders the organiser shares with every bot, read-only: ``HEXARENA_SANDBOX_SHARE=/path:/path``
  (e.g. a script several test bots run as ``../broken.py``);
* an environment of exactly the caller's variables (the protocol's and what the organiser
  forwards, ``referee/launch.py``; a Python bot's PYTHONPATH names ``LEGACY``) plus PATH, HOME=/tmp and the locale;
* limits set by ``prlimit`` inside the sandbox before it execs the bot (no race): address space
  per process, processes (RLIMIT_NPROC counts the private uid's processes, so the whole bot),
  open files, CPU seconds, file size, no core dumps (``referee/limits.py``: ``Limits.prlimit_args``);
* a bot whose manifest says ``transport = "tcp"`` gets ``tcp://127.0.0.1:PORT`` from the relay
  (``referee/relay.py``) that runs inside its sandbox, in its network namespace.

Two paths build the same sandbox from one list of mounts (``_mounts``): bubblewrap (``bwrap``) where it
is installed, else the kernel's namespaces through ``referee/namespaces.py`` (system calls from
Python: a machine with only python3 and pip). ``HEXARENA_SANDBOX=bwrap|unshare`` in the organiser's
environment forces one (tests, benchmarks); a bot's environment never carries it unless forwarded,
and the choice is made here, by the referee, whatever a bot's is. Where neither works, ``wrap``
raises ``SandboxMissing`` (a ConfigError: one line, how to install bubblewrap) unless the organiser
turned the sandbox off.
"""

from __future__ import annotations

import errno
import marshal
import os
import shutil
import stat
import subprocess
import sys
import time
from pathlib import Path

from hexarena.protocol.errors import ConfigError
from hexarena.referee import namespaces, relay
from hexarena.referee.limits import Limits
from hexarena.referee.errors import SandboxMissing

INSTALL = "apt-get install bubblewrap"
UID = namespaces.UID  # nobody, inside the sandbox's own user namespace
SYSTEM = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")
ETC = ("ld.so.cache", "ld.so.conf", "ld.so.conf.d", "alternatives", "ssl", "ca-certificates", "localtime",
       "passwd", "group", "nsswitch.conf", "mime.types")
# what Python bots import, bound at their own paths: in a source tree hexarena/ and its floors are sibling folders
PACKAGES = ("hexarena", "hexarena.protocol", "hexarena.bots", "zmq", "pyzmq.libs")
# `protocol` for Python bots written for hexarena 0.1 (legacy/protocol/__init__.py), on their PYTHONPATH
LEGACY = Path(__file__).resolve().parent / "legacy"
LOCALE = ("LANG", "LANGUAGE", "TZ")
SHARE = "HEXARENA_SANDBOX_SHARE"
CHOICE = "HEXARENA_SANDBOX"  # "bwrap" or "unshare": the organiser forces a path; unset: bwrap where installed
PATHS = ("bwrap", "unshare")
MiB = 1024 * 1024


def bwrap() -> str | None:
    """bubblewrap on the organiser's PATH."""
    return shutil.which("bwrap")


_namespaces_problem: list[str | None] = []  # computed once: None if the namespaces path works here


def user_namespaces() -> str | None:
    """Why ``referee/namespaces.py`` cannot make a sandbox on this machine (None: it can), tried once per process
    with a real launch of ``prlimit -- true`` in a sandbox (so a missing util-linux ``prlimit`` shows here too)."""
    if not _namespaces_problem:
        limits = Limits.none(tmp_mb=1)
        command = _unshare_command(_mounts(limits.tmp_bytes, "/", False, None), "/", net=True) + [
            *limits.prlimit_args(), "--", "true"]
        try:
            done = subprocess.run(command, env=_base_environment(), stdin=subprocess.DEVNULL,
                                  capture_output=True, text=True, timeout=30, check=False)
            lines = done.stderr.strip().splitlines()
            _namespaces_problem.append(None if done.returncode == 0 else
                                       (lines[-1] if lines else f"exit status {done.returncode}"))
        except (OSError, subprocess.TimeoutExpired) as exc:
            _namespaces_problem.append(str(exc))
    return _namespaces_problem[0]


def path() -> str | None:
    """The path this process's sandboxes take: "bwrap", "unshare", or None (neither can be made here)."""
    forced = os.environ.get(CHOICE, "")
    if forced not in ("", *PATHS):
        raise ConfigError(f"{CHOICE}={forced!r}: not a sandbox path; allowed: bwrap, unshare (or unset: "
                          "bubblewrap where it is installed, else the kernel's namespaces)")
    if forced == "bwrap" or (not forced and bwrap() is not None):
        return "bwrap" if bwrap() is not None else None
    return "unshare" if user_namespaces() is None else None


def describe(sandboxed: bool = True) -> str:
    """Which path this process takes: for doctor, the demo, the CLI's warning and the docs' measurements."""
    if not sandboxed:
        return "none (--no-sandbox: bots run unconfined, with the organiser's rights)"
    chosen = path()
    if chosen == "bwrap":
        return f"bubblewrap ({bwrap()})"
    if chosen == "unshare":
        return "kernel namespaces (referee/namespaces.py: no bubblewrap needed)"
    return f"none available ({_missing()})"


def _missing() -> str:
    if os.environ.get(CHOICE) == "bwrap":
        return f"{CHOICE}=bwrap, and bubblewrap (bwrap) is not installed"
    return f"bubblewrap (bwrap) is not installed, and user namespaces do not work here: {user_namespaces()}"


def require(sandboxed: bool = True) -> str | None:
    """The path bots are sandboxed by (None with the sandbox off); SandboxMissing if they are to be and cannot be."""
    if not sandboxed:
        return None
    chosen = path()
    if chosen is None:
        raise SandboxMissing(f"cannot sandbox bots: {_missing()}; install bubblewrap ({INSTALL}) "
                             f"or pass --no-sandbox to run bots unconfined")
    return chosen


def wrap(command: list[str], folder: Path, env: dict[str, str], limits: Limits, *, sandboxed: bool = True,
         writable: bool = False, endpoint: str | None = None, tcp: bool = False) -> tuple[list[str], dict[str, str]]:
    """``command`` (run in ``folder``) as a sandboxed command line, and the environment to start it with.

    ``tcp``: the bot is given a loopback tcp endpoint, relayed to the referee's ``ipc://`` one
    (``referee/relay.py``, in the sandbox's network namespace; unconfined, on the host's loopback).
    With the sandbox off (``sandboxed=False``), the command and environment are returned unchanged but for the relay. A
    program that is not there raises FileNotFoundError here, either way (a failed exec inside the sandbox,
    the relay or the launch's shell would be an exit status: a crash, not "cannot start").
    """
    socket = endpoint.removeprefix("ipc://") if endpoint is not None and endpoint.startswith("ipc://") else None
    relayed = relay.command(sys.executable, socket) if tcp and socket is not None else []
    chosen = require(sandboxed)
    if chosen is None:  # checked here too: the launch's shell (or the relay) would start, and only its exec fail
        _require_program(command, str(folder), env.get("PATH", os.environ.get("PATH", "")))
        return relayed + command, env
    folder = str(Path(folder).resolve())
    env = {**_base_environment(), **env}
    _require_program(command, folder, env["PATH"])
    command = relayed + command
    mounts = _mounts(limits.tmp_bytes, folder, writable, socket)
    net = endpoint is None or socket is not None  # a tcp endpoint for a local bot (tests only): the host's network
    if chosen == "bwrap":
        args = _bwrap_command(mounts, folder, env, net)
    else:
        args = _unshare_command(mounts, folder, net)
    return args + [*limits.prlimit_args(), "--", *command], env


def _require_program(command: list[str], folder: str, path: str) -> None:
    """FileNotFoundError unless ``command``'s program is an executable (in ``folder``, or on ``path``)."""
    program = command[0] if "/" in command[0] else shutil.which(command[0], path=path)
    if program is None or not os.access(os.path.join(folder, program), os.X_OK):
        raise FileNotFoundError(errno.ENOENT, os.strerror(errno.ENOENT), command[0])


def _bwrap_command(mounts: list[tuple], folder: str, env: dict[str, str], net: bool) -> list[str]:
    args = [bwrap(), *(["--unshare-all"] if net else ["--unshare-pid", "--unshare-ipc", "--unshare-uts",
                                                     "--unshare-cgroup-try"]),
            "--unshare-user", "--uid", str(UID), "--gid", str(UID), "--cap-drop", "ALL", "--die-with-parent",
            "--new-session", "--hostname", "bot", "--clearenv"]
    for name, value in env.items():
        args += ["--setenv", name, value]
    for op, *operands in mounts:
        if op == "tmpfs":
            args += ["--size", str(operands[1]), "--tmpfs", operands[0]]
        else:
            args += [f"--{op}", *operands]
    # the folders made for the mount points stay read-only; /tmp is its own mount
    return args + ["--chdir", folder, "--remount-ro", "/", "--"]


def _unshare_command(mounts: list[tuple], folder: str, net: bool) -> list[str]:
    """``referee/namespaces.py`` run by this interpreter, isolated (no site, no PYTHON* variables)."""
    resolved = [[op, os.path.realpath(operands[0]), *operands[1:]] if op.endswith("bind") else [op, *operands]
                for op, *operands in mounts]
    tmp = next(operands[1] for op, *operands in mounts if op == "tmpfs")
    spec = {"mounts": resolved, "chdir": folder, "hostname": "bot", "net": net, "tmpfs_root_bytes": MiB,
            "dev_bytes": tmp, "parent": os.getpid()}
    return [sys.executable, "-I", "-S", namespaces.__file__, marshal.dumps(spec).hex(), "--"]


def program(name: str, sandboxed: bool = True) -> str | None:
    """Where a bot's command or build finds the program ``name`` (``node``, ``rustc``): on the sandbox's PATH
    (this interpreter's folder, /usr/local/bin, /usr/bin, /bin: a ``rustc`` only in ~/.cargo/bin is not there),
    or unconfined on the organiser's; None where it finds none."""
    return shutil.which(name, path=_base_environment()["PATH"] if sandboxed else None)


def _base_environment() -> dict[str, str]:
    path = [os.path.dirname(sys.executable), "/usr/local/bin", "/usr/bin", "/bin"]
    env = {"PATH": ":".join(dict.fromkeys(path)), "HOME": "/tmp", "TMPDIR": "/tmp"}
    env.update({k: v for k, v in os.environ.items() if k in LOCALE or k.startswith("LC_")})
    return env


def _mounts(tmp_bytes: int, folder: str, writable: bool, socket: str | None) -> list[tuple]:
    """The sandbox's filesystem in the order it is made: ``(op, operands...)`` as bwrap's options name them."""
    ops: list[tuple] = []
    for top in SYSTEM:
        if os.path.islink(top):
            ops.append(("symlink", os.readlink(top), top))
        elif os.path.isdir(top):
            ops.append(("ro-bind", top, top))
    ops += [("ro-bind", f"/etc/{name}", f"/etc/{name}") for name in ETC if os.path.exists(f"/etc/{name}")]
    ops += [("ro-bind", path, path) for path in linked_out()]
    ops += [("proc", "/proc"), ("dev", "/dev"), ("tmpfs", "/tmp", tmp_bytes)]
    shared = [os.path.realpath(p) for p in os.environ.get(SHARE, "").split(":") if p and os.path.isdir(p)]
    ops += [("ro-bind", path, path) for path in _runtime_folders() + shared]
    if folder != "/":  # "/": the probe, which needs no folder of its own
        ops.append(("bind" if writable else "ro-bind", folder, folder))
    if socket is not None:
        # the socket itself, not its folder: it cannot be unlinked; read-only: the user namespace maps its owner to
        # the bot's uid, and a writable mount would let the bot chmod it (connecting needs no writable mount)
        ops.append(("ro-bind", socket, socket))
    return ops


_runtime: list[str] | None = None


def _runtime_folders() -> list[str]:
    """The interpreter's prefixes and the installed packages' folders, outside ``/usr`` (computed once)."""
    global _runtime
    if _runtime is None:
        import importlib.util

        folders = {sys.prefix, sys.base_prefix, os.path.dirname(os.path.realpath(sys.executable))}
        for name in PACKAGES:
            try:
                spec = importlib.util.find_spec(name)
            except (ImportError, ValueError):
                spec = None
            if spec is not None and spec.origin and os.path.isfile(spec.origin):
                # the package's own folder, not its __path__: a source tree's hexarena lists the repository there
                folders.add(os.path.dirname(os.path.realpath(spec.origin)))
            elif spec is not None and spec.submodule_search_locations:
                folders.update(os.path.realpath(p) for p in spec.submodule_search_locations)
            site = Path(sys.prefix) / "lib" / f"python{sys.version_info.major}.{sys.version_info.minor}"
            if (site / "site-packages" / name).is_dir():
                folders.add(str(site / "site-packages" / name))
        folders.add(str(LEGACY))
        outside = [f for f in folders if os.path.isdir(f) and not f.startswith("/usr/")]
        # a folder inside another one already bound needs no bind of its own
        _runtime = sorted(f for f in outside if not any(f != o and f.startswith(o + "/") for o in outside))
    return _runtime



# where the system's programs keep files of their own outside the system folders, through symlinks
LINKED_INTO = ("/etc/", "/var/lib/", "/opt/")
NOT_RUNTIME = ("/usr/share/doc", "/usr/share/man", "/usr/share/info", "/usr/include", "/usr/src")
_linked: list[str] | None = None


def linked_out() -> list[str]:
    """What the files of ``/usr`` lead to outside it, to be bound read-only at the same paths (computed once).

    A runtime keeps its configuration where its package put it and links it in: Debian's OpenJDK has
    ``/usr/lib/jvm/java-17-openjdk-amd64/conf/security/java.security`` → ``/etc/java-17-openjdk/…``,
    OpenSSL ``/usr/lib/ssl/openssl.cnf`` → ``/etc/ssl/…``. Every symlink under ``/usr`` (not its
    documentation) is followed hop by hop; each hop into ``LINKED_INTO`` is kept if anyone on the machine
    may read it. A folder under ``/etc`` they lead into is bound whole when everything in it is readable
    by anyone, else only the files the links name: no secret (a key, a password file) that a package's
    link happens to reach is bound, however the sandbox's uid is mapped. So a runtime installed later
    needs no list of ours: what its files lead to is what it gets.
    """
    global _linked
    if _linked is None:
        _linked = _inherited() or _walked()
        os.environ[LINKED_ENV] = "\n".join(_linked)  # the referee's workers and subprocesses walk /usr no more
    return _linked


LINKED_ENV = "_HEXARENA_LINKED_OUT"  # linked_out's answer, from the process that walked /usr (0.2-0.3 s of CPU)


def _inherited() -> list[str] | None:
    """linked_out's answer from the environment a parent of ours left, each path checked again as the walk
    checks it (never a bot's: a bot's environment is a list of names, ``launch.bot_environment``)."""
    given = os.environ.get(LINKED_ENV)
    if given is None:
        return None
    paths = [path for path in given.split("\n") if path]
    return paths if all(p.startswith(LINKED_INTO) and _readable_by_anyone(p) for p in paths) else None


def _walked() -> list[str]:
    targets = {hop for hop in _hops_out("/usr") if _readable_by_anyone(hop)}
    # bound already by ETC, or under a folder that is
    kept = {_whole_folder(t) for t in targets if not any(t == f"/etc/{n}" or t.startswith(f"/etc/{n}/")
                                                        for n in ETC)}
    return sorted(t for t in kept if not any(t.startswith(o + "/") for o in kept))


REMEMBERED = "usr-links"  # in the user's cache folder (``_remembered``): the walk's hops and the folders they came from
RECENT_NS = 2_000_000_000  # a walk that read a folder modified this recently is not remembered


def _hops_out(top: str) -> set[str]:
    """Every hop into ``LINKED_INTO`` of every symlink under ``top`` (readable or not: that is checked at each use).

    The walk (0.2-0.3 s of CPU: 17,000 folders under a desktop's /usr) is remembered in the user's cache folder
    (``$XDG_CACHE_HOME``, else ``~/.cache``: ``hexarena/usr-links``) with the inode and modification time of every
    folder it read: each folder under ``top`` it listed, and each folder on the path of each hop it followed. A
    symlink is made, replaced or removed only by changing the folder that holds it, so while every one of them
    is as it was, the walk would find the same hops; checking that takes a ``stat`` per folder (about 0.05 s).
    Anything else (a folder changed, a cache that is not ours to read, a garbled file) and it walks again. A walk
    that read a folder modified in the last ``RECENT_NS`` is not remembered: a file system's clock ticks coarsely,
    and a change within the same tick would leave the folder's time as the walk saw it.
    A forged file can name nothing the walk would not bind: each hop it names must lie under ``LINKED_INTO``
    (normalised), and is checked at each use as a walked one is (``_walked``: readable by anyone)."""
    base = os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache")
    # no home to be found (HOME unset, a uid with no passwd entry: "~" stays, and Path.home would raise), or a
    # relative XDG_CACHE_HOME (which the spec says to ignore): walked every time, not remembered under the cwd
    cache = Path(base) / "hexarena" / REMEMBERED if os.path.isabs(base) else None
    remembered = _remembered(cache, top) if cache is not None else None
    if remembered is not None:
        return remembered
    folders: dict[str, tuple[int, int]] = {}
    began = time.time_ns()
    hops = {hop for link in _symlinks(top, folders) for hop in _hops(link, folders) if hop.startswith(LINKED_INTO)}
    if any(modified > began - RECENT_NS for _, modified in folders.values()):
        return hops  # a folder changed just now may change again within its clock tick, leaving the same time
    if cache is None:
        return hops
    try:
        cache.parent.mkdir(parents=True, exist_ok=True)
        written = cache.with_name(f"{REMEMBERED}.{os.getpid()}")
        written.write_bytes(marshal.dumps((top, sorted(hops), folders)))
        written.replace(cache)
    except OSError:  # a read-only home: walked again next time
        pass
    return hops


def _remembered(cache: Path, top: str) -> set[str] | None:
    """The hops the cache holds for ``top``, if every folder they were read from is as it was; else None."""
    try:
        remembered_top, hops, folders = marshal.loads(cache.read_bytes())
        if remembered_top != top or not all(isinstance(h, str) and h.startswith(LINKED_INTO)
                                            and os.path.normpath(h) == h for h in hops):
            return None
        for folder, noted in folders.items():
            if _stamp(folder) != noted:
                return None
    except (OSError, ValueError, TypeError, EOFError, AttributeError):
        return None
    return set(hops)


def _symlinks(top: str, folders: dict[str, tuple[int, int]]) -> list[str]:
    """The symlinks under ``top`` (not in ``NOT_RUNTIME``); each folder listed goes into ``folders`` (its inode
    and modification time, taken before it is listed)."""
    found, todo = [], [top]
    while todo:
        folder = todo.pop()
        folders[folder] = _stamp(folder)
        try:
            entries = os.scandir(folder)
        except OSError:
            continue
        with entries:
            for entry in entries:
                if entry.is_symlink():
                    found.append(entry.path)
                elif entry.is_dir(follow_symlinks=False) and not entry.path.startswith(NOT_RUNTIME):
                    todo.append(entry.path)
    return found


def _hops(link: str, folders: dict[str, tuple[int, int]], most: int = 16) -> list[str]:
    """Each path a symlink chain passes through after ``link`` (absolute, its folders resolved). Every folder on
    the path of each one read goes into ``folders`` (as ``_symlinks``'s do): what a path leads to changes only
    with one of them."""
    hops, path = [], link
    for _ in range(most):
        _note_folders(path, folders)
        try:
            target = os.readlink(path)
        except OSError:
            break
        path = os.path.join(os.path.realpath(os.path.dirname(path)), target)
        path = os.path.normpath(path)
        hops.append(path)
    return hops


def _note_folders(path: str, folders: dict[str, tuple[int, int]]) -> None:
    """The inode and modification time of each folder ``path`` is looked up through (not noted yet)."""
    folder = os.path.dirname(path)
    while folder not in folders:
        folders[folder] = _stamp(folder)
        if folder == "/":
            return
        folder = os.path.dirname(folder)


def _stamp(folder: str) -> tuple[int, int]:
    """A folder's inode and modification time; (-1, -1) where there is none."""
    try:
        info = os.stat(folder)
    except OSError:
        return (-1, -1)
    return (info.st_ino, info.st_mtime_ns)


def _readable_by_anyone(path: str) -> bool:
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return False
    if stat.S_ISDIR(mode):
        return mode & 0o005 == 0o005
    return stat.S_ISREG(mode) and bool(mode & 0o004)


def _whole_folder(path: str) -> str:
    """``/etc/NAME`` for a path under it, if everything there is readable by anyone; else ``path`` itself."""
    parts = path.split("/")
    if parts[1] != "etc" or len(parts) < 4:
        return path
    folder = "/".join(parts[:3])
    for root, dirs, files in os.walk(folder):
        if not all(_readable_by_anyone(os.path.join(root, name)) for name in dirs + files
                   if not os.path.islink(os.path.join(root, name))):
            return path
    return folder
