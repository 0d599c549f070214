"""The sandbox every bot process, build step and conformance check runs in (bubblewrap).

    command = wrap(["python3", "bot.py"], folder, env, limits, endpoint=endpoint)   # bwrap … -- prlimit … -- cmd
    configure(enabled=False)     # the organiser's --no-sandbox: bots run unconfined (warned every run)

The contract (docs/security.md has the threat model):

* namespaces of its own: user (uid/gid 65534 inside, no capabilities), pid (``/proc`` shows only
  the sandbox's processes), mount, ipc, uts, cgroup and network (no network at all; an ``ipc://``
  referee socket is bound in at its own path, a unix socket crosses the network namespace);
  ``--die-with-parent`` and pid 1 of the namespace: when the sandbox's outer process dies, every
  process inside dies with it, ``setsid`` or not;
* a filesystem of its own: the bot's folder read-only (a build's folder writable), ``/usr`` and
  the system's library folders, a few files of ``/etc``, the Python interpreter's prefix and the
  folders of the installed ``protocol``, ``bots`` and ``zmq`` packages read-only, a private
  size-capped ``/tmp``; nothing of the workspace, the registry, other bots, the repository or ``/root``;
* folders the organiser shares with every bot, read-only: ``HEXARENA_SANDBOX_SHARE=/path:/path``
  (e.g. a script several test bots run as ``../broken.py``);
* an environment of exactly the caller's variables (the protocol's and what the organiser
  forwards, ``referee/process.py``) plus PATH, HOME=/tmp and the locale;
* limits set by ``prlimit`` inside the sandbox before it execs the bot (no race): address space
  per process, processes (RLIMIT_NPROC counts the private uid's processes, so the whole bot),
  open files, CPU seconds, file size, no core dumps.

Where bwrap is missing, ``wrap`` raises ``SandboxMissing`` (a ConfigError: one line, how to
install it) unless the organiser turned the sandbox off.
"""

from __future__ import annotations

import errno
import os
import shutil
import sys
from dataclasses import dataclass
from pathlib import Path

from protocol.errors import ConfigError

INSTALL = "apt-get install bubblewrap"
UID = 65534  # nobody, inside the sandbox's own user namespace
SYSTEM = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")
ETC = ("ld.so.cache", "ld.so.conf", "ld.so.conf.d", "alternatives", "ssl", "ca-certificates", "localtime",
       "passwd", "group", "nsswitch.conf", "mime.types")
PACKAGES = ("protocol", "bots", "zmq", "pyzmq.libs")  # what Python bots import, bound at their own paths
LOCALE = ("LANG", "LANGUAGE", "TZ")
SHARE = "HEXARENA_SANDBOX_SHARE"


@dataclass(frozen=True)
class SandboxLimits:
    """What the sandbox enforces; None leaves a limit alone (``referee/process.py`` Limits has the defaults)."""

    memory_mb: int | None
    processes: int | None
    open_files: int | None
    cpu_seconds: int | None
    file_mb: int | None
    tmp_mb: int


class SandboxMissing(ConfigError):
    """No sandbox can be made on this machine and the organiser did not pass --no-sandbox."""


_enabled = True


def configure(enabled: bool) -> None:
    """The organiser's choice for this process: ``False`` (--no-sandbox) runs bots unconfined."""
    global _enabled
    _enabled = enabled


def enabled() -> bool:
    return _enabled


def bwrap() -> str | None:
    return shutil.which("bwrap") or next((p for p in ("/usr/bin/bwrap",) if os.access(p, os.X_OK)), None)


def describe() -> str:
    """Which path this process takes: for the CLI's warning and the docs' measurements."""
    if not _enabled:
        return "none (--no-sandbox: bots run unconfined, with the organiser's rights)"
    return f"bubblewrap ({bwrap()})" if bwrap() else f"none available (install it: {INSTALL})"


def require() -> None:
    """Raise SandboxMissing if bots are to be sandboxed and cannot be."""
    if _enabled and bwrap() is None:
        raise SandboxMissing(f"cannot sandbox bots: bubblewrap (bwrap) is not installed; install it "
                             f"({INSTALL}) or pass --no-sandbox to run bots unconfined")


def wrap(command: list[str], folder: Path, env: dict[str, str], limits: SandboxLimits, *,
         writable: bool = False, endpoint: str | None = None) -> tuple[list[str], dict[str, str]]:
    """``command`` (run in ``folder``) as a sandboxed command line, and the environment to start it with.

    With the sandbox off, the command and environment are returned unchanged. A program that is
    not there raises FileNotFoundError here, as a launch outside the sandbox would (inside, the
    failed exec would be an exit status).
    """
    if not _enabled:
        return command, env
    require()
    folder = str(Path(folder).resolve())
    env = {**_base_environment(), **env}
    program = command[0] if "/" in command[0] else shutil.which(command[0], path=env["PATH"])
    if program is None or not os.access(os.path.join(folder, program), os.X_OK):
        raise FileNotFoundError(errno.ENOENT, os.strerror(errno.ENOENT), command[0])
    args = [bwrap(), "--unshare-all", "--unshare-user", "--uid", str(UID), "--gid", str(UID),
            "--cap-drop", "ALL", "--die-with-parent", "--new-session", "--hostname", "bot", "--clearenv"]
    for name, value in env.items():
        args += ["--setenv", name, value]
    args += _filesystem(limits.tmp_mb)
    args += ["--bind" if writable else "--ro-bind", folder, folder, "--chdir", folder]
    if endpoint is not None and endpoint.startswith("ipc://"):
        socket = endpoint.removeprefix("ipc://")
        args += ["--bind", socket, socket]  # the socket itself, not its folder: it cannot be unlinked
    elif endpoint is not None:  # a tcp endpoint for a local bot: the organiser's choice, the host's network
        args.remove("--unshare-all")
        args[1:1] = ["--unshare-pid", "--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try"]
    args += ["--remount-ro", "/"]  # the folders made for the mount points stay read-only; /tmp is its own mount
    return args + ["--", *_prlimit(limits), "--", *command], env


def _base_environment() -> dict[str, str]:
    path = [os.path.dirname(sys.executable), "/usr/local/bin", "/usr/bin", "/bin"]
    env = {"PATH": ":".join(dict.fromkeys(path)), "HOME": "/tmp", "TMPDIR": "/tmp"}
    env.update({k: v for k, v in os.environ.items() if k in LOCALE or k.startswith("LC_")})
    return env


def _filesystem(tmp_mb: int) -> list[str]:
    args = []
    for top in SYSTEM:
        if os.path.islink(top):
            args += ["--symlink", os.readlink(top), top]
        elif os.path.isdir(top):
            args += ["--ro-bind", top, top]
    for name in ETC:
        if os.path.exists(f"/etc/{name}"):
            args += ["--ro-bind", f"/etc/{name}", f"/etc/{name}"]
    args += ["--proc", "/proc", "--dev", "/dev", "--size", str(tmp_mb * 1024 * 1024), "--tmpfs", "/tmp"]
    shared = [os.path.realpath(p) for p in os.environ.get(SHARE, "").split(":") if p and os.path.isdir(p)]
    for path in _runtime_folders() + shared:
        args += ["--ro-bind", path, path]
    return args


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
            if spec is not None and spec.submodule_search_locations:
                folders.update(os.path.realpath(p) for p in spec.submodule_search_locations)
            site = Path(sys.prefix) / "lib" / f"python{sys.version_info.major}.{sys.version_info.minor}"
            if (site / "site-packages" / name).is_dir():
                folders.add(str(site / "site-packages" / name))
        outside = [f for f in folders if os.path.isdir(f) and not f.startswith("/usr/")]
        # a folder inside another one already bound needs no bind of its own
        _runtime = sorted(f for f in outside if not any(f != o and f.startswith(o + "/") for o in outside))
    return _runtime


def _prlimit(limits: SandboxLimits) -> list[str]:
    args = ["prlimit", "--core=0"]
    for option, value in (("as", _mb(limits.memory_mb)), ("nproc", limits.processes),
                          ("nofile", limits.open_files), ("cpu", limits.cpu_seconds), ("fsize", _mb(limits.file_mb))):
        if value is not None:
            args.append(f"--{option}={value}")
    return args


def _mb(value: int | None) -> int | None:
    return None if value is None else value * 1024 * 1024
