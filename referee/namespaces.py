"""The sandbox without bubblewrap: the same confinement from the kernel's system calls (issue 13 item 5).

Run as a script by the referee's own interpreter (``python3 -I -S namespaces.py SPEC -- COMMAND...``,
standard library only: it runs before and outside anything a bot controls), it does what
``bwrap --unshare-all --uid 65534 --die-with-parent --new-session ... --remount-ro /`` does:

1. ``unshare(2)`` user, mount, pid, ipc, uts, cgroup and (unless ``SPEC["net"]`` is false) network
   namespaces; the organiser's uid and gid are mapped to 65534 (``setgroups`` denied), so the
   sandbox's processes have no rights over anything the organiser's account does not own, and
   RLIMIT_NPROC counts them alone;
2. fork: the child is the pid namespace's init. Its parent (the referee's child, outside the pid
   namespace) waits for it and has the parent-death signal, and so has the init: a SIGKILLed
   referee, or an exit of the bot, ends the pid namespace, and the kernel kills every process in it;
3. the init builds the filesystem, in ``SPEC["mounts"]``'s order: an empty tmpfs root, bind mounts
   (read-only ones recursively, with ``mount_setattr(2)``; a plain remount where the kernel lacks it),
   symlinks, a fresh ``/proc``, a minimal ``/dev``, size-capped tmpfs; remounts the root read-only;
   ``pivot_root(2)`` into it and detaches the old root; brings the loopback up;
4. it forks the command in a session of its own, with every capability dropped (bounding, ambient,
   effective, permitted, inheritable) and ``no_new_privs``; then it reaps whatever is reparented to it
   and exits with the command's status (128 + signal for a killed one) when the command exits.

The system calls rather than util-linux's ``unshare``/``setpriv``/``mount`` commands: one process does
every step, so the uid mapping can be 65534 (``unshare --map-user`` then loses the capabilities the
mounts need, ``mount(8)`` refuses a non-root user's bind mounts), mounts can be made read-only
recursively, the pid namespace's init reaps and ignores the signals a bot sends it (like bwrap's), and
any failure is one line ``hexarena sandbox: cannot STEP: REASON`` on stderr with exit status 125.

``SPEC`` is a dict in ``marshal`` format, in hex (this interpreter's own format: no ``json`` and ``re`` to
import at every launch): ``{"mounts": [[op, ...], ...], "chdir": PATH, "hostname": NAME, "net": bool,
"tmpfs_root_bytes": N, "dev_bytes": N, "parent": PID}`` with ops ``["bind"|"ro-bind"|"dev-bind", SOURCE, DEST]``,
``["symlink", TARGET, PATH]``, ``["proc", PATH]``, ``["dev", PATH]``, ``["tmpfs", PATH, BYTES]``,
sources already resolved (``os.path.realpath``) by the caller: symlinks in them would resolve
against the wrong root here.
"""

import ctypes
import errno
import fcntl
import marshal
import os
import signal
import socket
import struct
import sys

UID = 65534
FAILED = 125  # the sandbox could not be made (as bwrap's own failures: not the bot's exit status)

CLONE_NEWNS, CLONE_NEWCGROUP, CLONE_NEWUTS, CLONE_NEWIPC = 0x00020000, 0x02000000, 0x04000000, 0x08000000
CLONE_NEWUSER, CLONE_NEWPID, CLONE_NEWNET = 0x10000000, 0x20000000, 0x40000000
MS_RDONLY, MS_NOSUID, MS_NODEV, MS_NOEXEC = 1, 2, 4, 8
MS_REMOUNT, MS_BIND, MS_REC, MS_PRIVATE = 32, 4096, 16384, 1 << 18
MNT_DETACH = 2
PR_SET_PDEATHSIG, PR_SET_DUMPABLE, PR_CAPBSET_DROP, PR_SET_NO_NEW_PRIVS, PR_CAP_AMBIENT = 1, 4, 24, 38, 47
PR_CAP_AMBIENT_CLEAR_ALL = 4
AT_FDCWD, AT_RECURSIVE = -100, 0x8000
MOUNT_ATTR_RDONLY, MOUNT_ATTR_NOSUID, MOUNT_ATTR_NODEV = 1, 2, 4
SYS_MOUNT_SETATTR = 442  # the same number on every architecture (a syscall added after 5.x's unification)
SYS_PIVOT_ROOT = {"x86_64": 155, "aarch64": 41, "riscv64": 41, "ppc64le": 203, "s390x": 217, "armv7l": 218,
                  "i686": 217}
SIOCGIFFLAGS, SIOCSIFFLAGS, IFF_UP = 0x8913, 0x8914, 1
DEVICES = ("null", "zero", "full", "random", "urandom", "tty")
STATVFS_KEPT = (os.ST_NOSUID | os.ST_NODEV | os.ST_NOEXEC | os.ST_NOATIME | os.ST_NODIRATIME | os.ST_RELATIME)

_libc = ctypes.CDLL(None, use_errno=True)


class Failed(Exception):
    """A step of building the sandbox failed: ``step`` and the system's reason."""


def _check(result: int, step: str) -> int:
    if result == -1:
        code = ctypes.get_errno()
        raise Failed(f"{step}: {os.strerror(code)} (errno {errno.errorcode.get(code, code)})")
    return result


def _c(text: str | None) -> bytes | None:
    return None if text is None else os.fsencode(text)


def mount(source: str | None, target: str, kind: str | None, flags: int, data: str | None = None) -> None:
    _check(_libc.mount(_c(source), _c(target), _c(kind), ctypes.c_ulong(flags), _c(data)),
           f"mount {source or kind or ''} on {target}")


def prctl(option: int, value: int, step: str) -> None:
    _check(_libc.prctl(option, ctypes.c_ulong(value), 0, 0, 0), step)


def _write(path: str, text: str) -> None:
    try:
        with open(path, "w") as file:
            file.write(text)
    except OSError as exc:
        raise Failed(f"write {path}: {exc.strerror}") from None


def enter_namespaces(net: bool) -> None:
    """New namespaces for this process's future children; this process becomes uid/gid 65534 in the new user one."""
    uid, gid = os.getuid(), os.getgid()
    flags = CLONE_NEWUSER | CLONE_NEWNS | CLONE_NEWPID | CLONE_NEWIPC | CLONE_NEWUTS | (CLONE_NEWNET if net else 0)
    if _libc.unshare(flags | CLONE_NEWCGROUP) == -1:  # cgroup namespaces where the kernel has them (bwrap: -try)
        _check(_libc.unshare(flags), "unshare the user, mount, pid, ipc, uts and network namespaces")
    _write("/proc/self/setgroups", "deny")
    _write("/proc/self/uid_map", f"{UID} {uid} 1")
    _write("/proc/self/gid_map", f"{UID} {gid} 1")


def pivot_root(new_root: str, put_old: str) -> None:
    number = SYS_PIVOT_ROOT.get(os.uname().machine)
    if number is None:
        raise Failed(f"pivot_root: unknown system call number on {os.uname().machine}")
    _check(_libc.syscall(ctypes.c_long(number), _c(new_root), _c(put_old)), f"pivot_root to {new_root}")


def read_only(target: str) -> None:
    """``target`` (a bind mount) and every mount under it read-only, nosuid and nodev."""

    class MountAttr(ctypes.Structure):
        _fields_ = [("attr_set", ctypes.c_uint64), ("attr_clr", ctypes.c_uint64), ("propagation", ctypes.c_uint64),
                    ("userns_fd", ctypes.c_uint64)]

    attr = MountAttr(MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV, 0, 0, 0)
    result = _libc.syscall(ctypes.c_long(SYS_MOUNT_SETATTR), AT_FDCWD, _c(target), AT_RECURSIVE, ctypes.byref(attr),
                           ctypes.sizeof(attr))
    if result == -1 and ctypes.get_errno() == errno.ENOSYS:  # before Linux 5.12: the top mount only
        kept = os.statvfs(target).f_flag & STATVFS_KEPT  # flags locked by the outer namespace must be repeated
        mount(None, target, None, MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOSUID | MS_NODEV | kept)
        return
    _check(result, f"make {target} read-only")


def _mount_point(path: str, directory: bool) -> None:
    try:
        if directory:
            os.makedirs(path, 0o755, exist_ok=True)
        else:
            os.makedirs(os.path.dirname(path), 0o755, exist_ok=True)
            os.close(os.open(path, os.O_WRONLY | os.O_CREAT, 0o644))
    except OSError as exc:
        raise Failed(f"make the mount point {path}: {exc.strerror}") from None


def bind(source: str, dest: str, how: str) -> None:
    """``source`` (a path of the old root, under /oldroot) at ``dest`` (under /newroot)."""
    if not os.path.exists(source):
        raise Failed(f"bind {source.removeprefix('/oldroot')}: no such file or folder")
    _mount_point(dest, os.path.isdir(source))
    mount(source, dest, None, MS_BIND | MS_REC)
    if how == "ro-bind":
        read_only(dest)
    elif how == "bind":
        mount(None, dest, None, MS_REMOUNT | MS_BIND | MS_NOSUID | MS_NODEV | (os.statvfs(dest).f_flag & STATVFS_KEPT))


def minimal_dev(dest: str, size: int) -> None:
    """The host's harmless device nodes bound in, ``/dev/shm`` and the standard symlinks (bwrap's ``--dev``)."""
    _mount_point(dest, True)
    mount("tmpfs", dest, "tmpfs", MS_NOSUID, f"mode=0755,size={size}")
    for name in DEVICES:
        if os.path.exists(f"/oldroot/dev/{name}"):
            bind(f"/oldroot/dev/{name}", f"{dest}/{name}", "dev-bind")
    for name, target in (("fd", "/proc/self/fd"), ("stdin", "/proc/self/fd/0"), ("stdout", "/proc/self/fd/1"),
                         ("stderr", "/proc/self/fd/2"), ("core", "/proc/kcore")):
        os.symlink(target, f"{dest}/{name}")
    os.mkdir(f"{dest}/shm", 0o1777)
    os.chmod(f"{dest}/shm", 0o1777)


def build_filesystem(mounts: list[list], root_bytes: int, dev_bytes: int) -> None:
    """The sandbox's filesystem, then made this process's root (the host's root detached)."""
    mount(None, "/", None, MS_REC | MS_PRIVATE)  # nothing of ours propagates to the host, nor back
    mount("tmpfs", "/tmp", "tmpfs", MS_NOSUID | MS_NODEV, "mode=0755,size=1m")  # a base: old root under it
    os.chdir("/tmp")
    os.mkdir("newroot", 0o755)
    os.mkdir("oldroot", 0o755)
    pivot_root("/tmp", "/tmp/oldroot")
    os.chdir("/")
    mount("tmpfs", "/newroot", "tmpfs", MS_NOSUID | MS_NODEV, f"mode=0755,size={root_bytes}")
    for op, *args in mounts:
        dest = "/newroot" + args[-1] if op != "tmpfs" else "/newroot" + args[0]
        if op in ("bind", "ro-bind", "dev-bind"):
            bind("/oldroot" + args[0], dest, op)
        elif op == "symlink":
            _mount_point(os.path.dirname(dest), True)
            os.symlink(args[0], dest)
        elif op == "proc":
            _mount_point(dest, True)
            mount("proc", dest, "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC)
        elif op == "dev":
            minimal_dev(dest, dev_bytes)
        elif op == "tmpfs":
            _mount_point(dest, True)
            mount("tmpfs", dest, "tmpfs", MS_NOSUID | MS_NODEV, f"mode=0755,size={args[1]}")
        else:
            raise Failed(f"unknown mount operation {op!r}")
    mount(None, "/newroot", None, MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOSUID | MS_NODEV)
    _check(_libc.umount2(b"/oldroot", MNT_DETACH), "detach the host's root")
    os.chdir("/newroot")
    pivot_root(".", ".")  # the tmpfs base stacked under the new root: detach it too
    _check(_libc.umount2(b".", MNT_DETACH), "detach the base")
    os.chdir("/")


def loopback_up() -> None:
    """A new network namespace's loopback starts down (bwrap brings it up, as here)."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock:
        request = struct.pack("16sH14x", b"lo", 0)
        flags = struct.unpack("16sH", fcntl.ioctl(sock, SIOCGIFFLAGS, request)[:18])[1]
        fcntl.ioctl(sock, SIOCSIFFLAGS, struct.pack("16sH14x", b"lo", flags | IFF_UP))


def drop_privileges() -> None:
    """No capability in any set, none to gain by exec (no_new_privs)."""
    for cap in range(64):
        if _libc.prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) == -1:
            _check(-1 if ctypes.get_errno() != errno.EINVAL else 0, "drop the capability bounding set")
            break  # EINVAL: past the kernel's last capability
    _check(_libc.prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0), "clear the ambient capabilities")
    header = (ctypes.c_uint32 * 2)(0x20080522, 0)  # _LINUX_CAPABILITY_VERSION_3, this process
    data = (ctypes.c_uint32 * 6)()  # effective, permitted, inheritable: two words each, all zero
    _check(_libc.capset(header, data), "drop the capabilities")
    prctl(PR_SET_NO_NEW_PRIVS, 1, "set no_new_privs")


def exit_status(status: int) -> int:
    return os.WEXITSTATUS(status) if os.WIFEXITED(status) else 128 + os.WTERMSIG(status)


def init(spec: dict, command: list[str]) -> None:
    """Pid 1 of the sandbox: build it, start the command, reap, end with the command's status."""
    prctl(PR_SET_PDEATHSIG, signal.SIGKILL, "set the parent-death signal")
    signal.signal(signal.SIGINT, signal.SIG_DFL)  # no handler: pid 1 ignores what the bot sends it
    prctl(PR_SET_DUMPABLE, 0, "make the init undumpable")  # the bot, the same uid, cannot ptrace it
    _check(_libc.sethostname(spec["hostname"].encode(), len(spec["hostname"])), "set the host name")
    if spec["net"]:
        try:
            loopback_up()
        except OSError as exc:
            raise Failed(f"bring the loopback up: {exc.strerror}") from None
    build_filesystem(spec["mounts"], spec["tmpfs_root_bytes"], spec["dev_bytes"])
    drop_privileges()
    null = os.open("/dev/null", os.O_RDWR | os.O_CLOEXEC)
    child = os.fork()
    if child == 0:
        run(command, spec["chdir"])
    _away_from_the_bots_pipes(null)
    while True:
        try:
            pid, status = os.waitpid(-1, 0)
        except ChildProcessError:
            os._exit(FAILED)
        if pid == child:
            os._exit(exit_status(status))


def run(command: list[str], folder: str) -> None:
    """The command in its own session and folder (never returns)."""
    try:
        os.setsid()
        os.chdir(folder)
        os.execvp(command[0], command)  # exec makes it dumpable again: its own /proc/self is its own
    except OSError as exc:
        print(f"hexarena sandbox: cannot run {command[0]}: {exc.strerror}", file=sys.stderr, flush=True)
        os._exit(127)


def _away_from_the_bots_pipes(null: int) -> None:
    """The bot's stdin and stdout are its own: a stdio bot's pipe closes when the bot closes it."""
    os.dup2(null, 0)
    os.dup2(null, 1)
    os.close(null)


def fail(step: str) -> None:
    print(f"hexarena sandbox: cannot {step}", file=sys.stderr, flush=True)
    os._exit(FAILED)


def main(argv: list[str]) -> None:
    if len(argv) < 4 or argv[2] != "--":
        fail("start: usage: namespaces.py SPEC -- COMMAND...")
    spec, command = marshal.loads(bytes.fromhex(argv[1])), argv[3:]
    try:
        prctl(PR_SET_PDEATHSIG, signal.SIGKILL, "set the parent-death signal")
        if os.getppid() != spec["parent"]:  # the referee died before the signal was set
            os._exit(FAILED)
        enter_namespaces(spec["net"])
        # opened now: the init's pivot_root moves this process's root too (one mount namespace), /dev/null with it
        null = os.open("/dev/null", os.O_RDWR | os.O_CLOEXEC)
        child = os.fork()
        if child == 0:
            os.close(null)
            init(spec, command)
    except Failed as exc:
        fail(str(exc))
    except OSError as exc:  # a step without a name of its own (a mount point's folder, a symlink)
        fail(f"build the sandbox: {exc}")
    _away_from_the_bots_pipes(null)
    os._exit(exit_status(os.waitpid(child, 0)[1]))


if __name__ == "__main__":
    main(sys.argv)
