"""Hostile test bots for tests/referee/test_sandbox.py: ``python3 ../hostile.py ATTACK`` from a folder here.

Each bot tries its attack when it starts, writes one line ``hostile ATTACK: <what happened>`` on
stderr (the test reads it from the game's log), then plays random lines like any bot, unless the
attack is to misbehave in the game itself. Paths and ports to attack come from HOSTILE_* variables
the test forwards (an attacker who guessed them).
"""

import contextlib
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

from hexarena.protocol import codec
from hexarena.protocol.client import Connection, play


def report(attack: str, text: str) -> None:
    print(f"hostile {attack}: {text}", file=sys.stderr, flush=True)


def outcome(action) -> str:
    try:
        action()
    except OSError as exc:
        return f"denied ({exc.strerror})"
    return "ALLOWED"


def steal() -> str:
    """Every other process's token (/proc/PID/environ), and the parent's environment."""
    own = os.environ["HEXARENA_TOKEN"]
    tokens, names = set(), set()
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            with contextlib.suppress(OSError):
                for item in Path(f"/proc/{entry}/environ").read_bytes().split(b"\0"):
                    name, _, value = item.decode(errors="replace").partition("=")
                    names.add(name)
                    if name == "HEXARENA_TOKEN" and value != own:
                        tokens.add(value)
    pids = sorted(int(e) for e in os.listdir("/proc") if e.isdigit())
    secret = "visible" if "HOSTILE_SECRET" in names else "not visible"
    return f"{len(tokens)} foreign tokens; referee secret {secret}; {len(pids)} processes visible"


def write(path: str, mode: str, data) -> None:
    with open(path, mode) as file:
        file.write(data)


def read(path: str) -> None:
    with open(path) as file:
        file.read()


def files() -> str:
    home = os.environ.get("HOSTILE_HOME", "/nonexistent")
    other = os.environ.get("HOSTILE_OTHER", "/nonexistent")
    results = {
        "relative db": outcome(lambda: write("../../hexarena.db", "ab", b"x")),
        "db": outcome(lambda: write(f"{home}/hexarena.db", "r+b", b"x")),
        "other bot": outcome(lambda: write(f"{other}/bot.py", "a", "\nprint('pwned')\n")),
        "own folder": outcome(lambda: write("pwned.txt", "w", "x")),
        "root": outcome(lambda: os.listdir("/root") and read("/root/.bashrc")),
    }
    with contextlib.suppress(OSError):
        results["registry"] = f"lists {len(os.listdir(f'{home}/registry'))} entries"
    return "; ".join(f"{k} {v}" for k, v in results.items())


DAEMON = """import os, signal, time
signal.signal(signal.SIGTERM, signal.SIG_IGN)
if os.fork(): os._exit(0)
os.setsid()
if os.fork(): os._exit(0)
time.sleep(300)
"""


def daemons() -> str:
    """A double-forked, setsid child that ignores SIGTERM and hopes to outlive the match."""
    for _ in range(2):
        subprocess.Popen([sys.executable, "-c", DAEMON], start_new_session=True).wait()
    return "2 daemons started"


def memory() -> str:
    """A child over the limit on its own (reported), then two children under it that together exceed it."""
    limit = int(os.environ.get("HOSTILE_MB", "256"))
    grab = ("import sys\ntry:\n    b = bytearray({mb} * 2**20)\n    print('ok')\nexcept MemoryError:\n    print('refused')\n")
    alone = subprocess.run([sys.executable, "-c", grab.format(mb=int(limit * 1.2))], capture_output=True, text=True,
                           check=False)
    report("memory", f"one child over the limit {alone.stdout.strip() or 'killed'}")
    pair = [subprocess.Popen([sys.executable, "-c", grab.format(mb=int(limit * 0.6)) + "import time; time.sleep(1)"],
                             stdout=subprocess.PIPE, text=True) for _ in range(2)]
    together = [p.communicate()[0].strip() for p in pair]
    return f"two under it {' '.join(together)}"  # only if nothing stopped the bot


GRAB = """import sys, time
held = b"\\x01" * (int(sys.argv[1]) * 2**20)  # every page written: resident, not just reserved
print("held", flush=True)
time.sleep(300)
"""


def memory_tree() -> None:
    """At its first TURN: 8 children, each under the per-process limit, each touching HOSTILE_MB (1 GiB)."""
    mb = os.environ.get("HOSTILE_MB", "1024")
    children = [subprocess.Popen([sys.executable, "-c", GRAB, mb], stdout=subprocess.PIPE, text=True)
                for _ in range(8)]
    held = sum(child.stdout.readline() == "held\n" for child in children)
    report("memory_tree", f"{held} children hold {mb} MiB each")  # only if nothing stopped the bot
    time.sleep(300)


BOMB = """import os, time
while True:  # every process forks forever; a refused fork is retried
    try:
        os.fork()
    except OSError:
        time.sleep(0.05)
"""

BURN = """import sys, time
end = time.process_time() + float(sys.argv[1])
while time.process_time() < end:
    pass
time.sleep(300)
"""


def past_a_limit(attack: str) -> None:
    """At its first TURN, past one of the organiser's limits (the test's HOSTILE_* give the figures); it says what
    happened and plays on only if nothing stopped it."""
    if attack == "forkbomb":
        subprocess.Popen([sys.executable, "-c", BOMB])
        time.sleep(2)
        report(attack, f"{sum(entry.isdigit() for entry in os.listdir('/proc'))} processes")
    elif attack == "cpu_burn":  # children each under the per-process CPU limit, together over it
        seconds = os.environ.get("HOSTILE_CPU_S", "0.5")
        children = [subprocess.Popen([sys.executable, "-c", BURN, seconds]) for _ in range(3)]
        time.sleep(30)
        report(attack, f"{len(children)} children burnt {seconds} s of CPU each")
    elif attack == "open_files":  # most bots do not expect EMFILE: this one dies of it, as they would
        kept = [open("/dev/null") for _ in range(100_000)]  # noqa: SIM115
        report(attack, f"{len(kept)} files open")
    elif attack == "file_size":  # as a C or Go bot would: SIGXFSZ's default kills it (Python ignores it)
        signal.signal(signal.SIGXFSZ, signal.SIG_DFL)
        with open("/tmp/big", "wb") as file:
            file.writelines(b"\0" * 2**20 for _ in range(int(os.environ.get("HOSTILE_MB", "16"))))
        report(attack, "file written")
    elif attack == "output":
        for _ in range(int(os.environ.get("HOSTILE_MB", "16"))):
            sys.stderr.write("x" * 2**20 + "\n")
        report(attack, "output written")


def flood() -> str:
    """As many connections to the referee's socket as the bot can open, from 8 processes."""
    path = os.environ["HEXARENA_ENDPOINT"].removeprefix("ipc://")
    script = ("import socket, sys, time\nn = 0\ntry:\n    keep = []\n    for _ in range(2000):\n"
              "        s = socket.socket(socket.AF_UNIX); s.connect(sys.argv[1]); keep.append(s); n += 1\n"
              "except OSError:\n    pass\nprint(n, flush=True)\ntime.sleep(3)\n")
    children = []
    for _ in range(8):
        with contextlib.suppress(OSError):
            children.append(subprocess.Popen([sys.executable, "-c", script, path], stdout=subprocess.PIPE, text=True))
    opened = sum(int(c.stdout.readline() or 0) for c in children)
    return f"{opened} connections opened"


def tcp() -> str:
    port = int(os.environ["HOSTILE_PORT"])
    return "loopback " + outcome(lambda: socket.create_connection(("127.0.0.1", port), timeout=1).close())


JUNK = """import sys, time, zmq
sock = zmq.Context.instance().socket(zmq.DEALER)
sock.setsockopt(zmq.LINGER, 0)
sock.setsockopt(zmq.SNDHWM, 100000)
sock.connect(sys.argv[1])
end = time.monotonic() + 3
while time.monotonic() < end:
    try:
        sock.send(b"JUNK " + b"x" * 200, zmq.NOBLOCK)
    except zmq.Again:
        pass
"""


def junk(endpoint: str) -> None:
    """A second, unauthenticated connection flooding junk for 3 s, from a process of its own."""
    subprocess.Popen([sys.executable, "-c", JUNK, endpoint])


def deny() -> str:
    """After its own WELCOME: the referee's socket made unusable for every bot it starts later (chmod 0), or
    removed, or replaced."""
    path = os.environ["HEXARENA_ENDPOINT"].removeprefix("ipc://")
    chmod = outcome(lambda: os.chmod(path, 0))
    unlink = outcome(lambda: os.unlink(path))
    return f"chmod {chmod}; unlink {unlink}"


def twofaced() -> str:
    """Behaves while it believes it is checked (a ``.staging-`` folder, a writable one), cheats in real games."""
    here = Path.cwd()
    checked = ".staging-" in str(here) or bool(here.stat().st_mode & 0o222)
    return "checked" if checked else "playing"


PAST_A_LIMIT = ("forkbomb", "cpu_burn", "open_files", "file_size", "output")
ATTACKS = {"steal": steal, "files": files, "daemons": daemons, "memory": memory, "flood": flood, "tcp": tcp}


def main(attack: str) -> None:
    if attack == "stdio_flood":  # on the stdio bridge: HELLO, then bytes without a newline forever
        print(f"HELLO {codec.VERSION} {os.environ['HEXARENA_TOKEN']} stdio-flood", flush=True)
        sys.stdin.readline()
        block = b"x" * 65536
        with contextlib.suppress(OSError):
            while True:
                os.write(1, block)
    connection = Connection(os.environ["HEXARENA_ENDPOINT"])
    if attack in ATTACKS:
        report(attack, ATTACKS[attack]())
    connection.hello(os.environ["HEXARENA_TOKEN"], f"hostile-{attack}")
    if attack == "junk":
        junk(os.environ["HEXARENA_ENDPOINT"])
    if attack == "deny":
        report(attack, deny())
    cheat, done = False, []
    if attack == "twofaced":
        report(attack, seen := twofaced())
        cheat = seen == "playing"

    def choose(game, state) -> int:
        if attack == "memory_tree":
            memory_tree()
        if attack in PAST_A_LIMIT and not done:
            done.append(attack)  # once, at its first TURN
            past_a_limit(attack)
        if attack == "daemons" and game.id.startswith("fault"):
            time.sleep(600)  # a timeout: the referee stops the bot at once, with SIGTERM
        if cheat:
            return max(state.legal_moves()) + 10_000  # an illegal line: this bot's real games are its to lose
        return game.rng.choice(state.legal_moves())

    play(connection, choose)


if __name__ == "__main__":
    main(sys.argv[1])
