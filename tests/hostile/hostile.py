"""Hostile test bots for tests/referee/test_sandbox.py: ``python3 ../hostile.py ATTACK`` from a folder here.

Each bot tries its attack when it starts, writes one line ``hostile ATTACK: <what happened>`` on
stderr (the test reads it from the game's log), then plays random lines like any bot, unless the
attack is to misbehave in the game itself. Paths and ports to attack come from HOSTILE_* variables
the test forwards (an attacker who guessed them).
"""

import contextlib
import os
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
    cheat = False
    if attack == "twofaced":
        report(attack, seen := twofaced())
        cheat = seen == "playing"

    def choose(game, state) -> int:
        if attack == "memory_tree":
            memory_tree()
        if attack == "daemons" and game.id.startswith("fault"):
            time.sleep(600)  # a timeout: the referee stops the bot at once, with SIGTERM
        if cheat:
            return max(state.legal_moves()) + 10_000  # an illegal line: this bot's real games are its to lose
        return game.rng.choice(state.legal_moves())

    play(connection, choose)


if __name__ == "__main__":
    main(sys.argv[1])
