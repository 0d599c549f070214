"""The tcp relay: a bot whose manifest says ``transport = "tcp"`` reaches the referee's ipc socket over loopback tcp.

    python3 -I -S -c "$(cat relay.py)" SOCKET -- COMMAND...   # inside the bot's sandbox, before the bot (``command``)

Some ZeroMQ implementations have no ``ipc://`` (JeroMQ, NetMQ on Windows builds). The bot's sandbox
has no network but its own loopback, so the referee cannot listen where the bot could connect; this
relay, trusted code of ours run by the referee's interpreter (standard library only), listens on
``127.0.0.1`` at a free port *in the bot's network namespace*, starts the command with
``HEXARENA_ENDPOINT=tcp://127.0.0.1:PORT``, and copies the bytes of each connection it accepts to and
from a connection of its own to ``SOCKET`` (the referee's ``ipc://`` socket, bound into the sandbox).
ZMTP is the same byte stream over tcp and ipc, so the referee's listener serves it unchanged: the same
HELLO with the same token, the same faults. Nothing else is reachable: the port is in the bot's own
namespace, and the relay connects only to ``SOCKET``. Unconfined (``--no-sandbox``) it does the same
on the host's loopback.

The relay ignores SIGTERM (the referee's polite stop is for the bot, which is the relay's child and
hears it), keeps at most ``MAX_CONNECTIONS`` connections, and ends with the bot's exit status (128 +
signal for a killed one) once the bot has exited and its connections are closed (``LINGER`` at most).
"""

import ctypes
import os
import selectors
import signal
import socket
import sys
import time

MAX_CONNECTIONS = 16  # a bot needs one; more only cost the referee descriptors
CHUNK = 65536
LINGER = 0.2  # seconds to pass on what the bot wrote before it exited
PR_SET_PDEATHSIG = 1


def command(python: str, socket_path: str) -> list[str]:
    """The relay's command line, to put in front of the bot's: its source given with ``-c``, so that no file of
    the referee's needs to be in the sandbox."""
    global _source
    if _source is None:
        with open(__file__, encoding="utf-8") as file:
            _source = file.read()
    return [python, "-I", "-S", "-c", _source, socket_path, "--"]


_source: str | None = None


def start(program: list[str], endpoint: str) -> int:
    """The bot, with the tcp endpoint, SIGTERM as it should be, and death with the relay (unconfined)."""
    env = {**os.environ, "HEXARENA_ENDPOINT": endpoint}
    child = os.fork()
    if child == 0:
        try:
            signal.signal(signal.SIGTERM, signal.SIG_DFL)
            signal.signal(signal.SIGINT, signal.SIG_DFL)
            ctypes.CDLL(None).prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
            os.execvpe(program[0], program, env)
        except OSError as exc:
            print(f"hexarena relay: cannot run {program[0]}: {exc.strerror}", file=sys.stderr, flush=True)
        os._exit(127)
    return child


class Relay:
    def __init__(self, listener: socket.socket, socket_path: str) -> None:
        self.listener = listener
        self.socket_path = socket_path
        self.selector = selectors.DefaultSelector()
        self.selector.register(listener, selectors.EVENT_READ)
        self.peers: dict[socket.socket, socket.socket] = {}  # each end of a pair → the other end

    def accept(self) -> None:
        bot, _ = self.listener.accept()
        if len(self.peers) >= 2 * MAX_CONNECTIONS:
            bot.close()
            return
        # as libzmq does on its own tcp sockets: with Nagle, a TURN written right after a DRAWN waits for the
        # bot's delayed ACK (40 ms a move on Linux loopback)
        bot.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        referee = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            referee.connect(self.socket_path)
        except OSError:
            bot.close()
            referee.close()
            return
        for end in (bot, referee):
            self.peers[end] = bot if end is referee else referee
            self.selector.register(end, selectors.EVENT_READ)

    def forward(self, end: socket.socket) -> None:
        """What ``end`` received, to its peer; both closed when either side closes (blocking: a bot that
        does not read its own connection stalls only itself)."""
        try:
            data = end.recv(CHUNK)
            if data:
                self.peers[end].sendall(data)
                return
        except OSError:
            pass
        self.close(end)

    def close(self, end: socket.socket) -> None:
        other = self.peers.pop(end)
        del self.peers[other]
        for sock in (end, other):
            self.selector.unregister(sock)
            sock.close()

    def serve(self, child: int) -> int:
        exit_fd = os.pidfd_open(child)
        self.selector.register(exit_fd, selectors.EVENT_READ)
        status, until = None, None
        while status is None or (self.peers and time.monotonic() < until):
            timeout = None if until is None else max(0.0, until - time.monotonic())
            for key, _ in self.selector.select(timeout):
                if key.fileobj is self.listener:
                    self.accept()
                elif key.fileobj == exit_fd:
                    self.selector.unregister(exit_fd)
                    status, until = os.waitpid(child, 0)[1], time.monotonic() + LINGER
                elif key.fileobj in self.peers:
                    self.forward(key.fileobj)
        return os.WEXITSTATUS(status) if os.WIFEXITED(status) else 128 + os.WTERMSIG(status)


def main(argv: list[str]) -> None:
    if len(argv) < 4 or argv[2] != "--":
        print("hexarena relay: usage: relay.py SOCKET -- COMMAND...", file=sys.stderr)
        sys.exit(2)
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    listener = socket.create_server(("127.0.0.1", 0), backlog=MAX_CONNECTIONS)
    child = start(argv[3:], f"tcp://127.0.0.1:{listener.getsockname()[1]}")
    os._exit(Relay(listener, argv[1]).serve(child))


if __name__ == "__main__":
    main(sys.argv)
