"""The referee's one ZeroMQ seam: a bound ROUTER socket, token authentication, one poller with deadlines.

Bots connect DEALER sockets (PROTOCOL.md §1.1) and authenticate with a one-time token
(§3). Each bot process of ours gets an ``ipc://`` socket file of its own (``seat_endpoint``: one more endpoint
of the same ROUTER, in the referee's private folder ``TMPDIR/hexarena-referee-<pid>-*``), so that no bot can
make unusable the socket another bot connects to. The transport maps each authenticated peer to its *owner* (whatever object the
referee registered the token for); messages from peers that have not authenticated
are dropped (§3.3) and logged, one warning line per ``LOG_EVERY`` seconds at most whatever a peer
sends; one ``poll`` reads at most ``DRAIN_MAX`` messages, so a flood cannot hold the game loop
(ZeroMQ queues peers fairly: an authenticated bot's message is among the first read). The
process's descriptor limit is raised to its hard limit once, so peers' connections do not exhaust
it before the bots' own limits do (``referee/sandbox.py``). The same poller also watches plain file descriptors
(bot output pipes, process exit descriptors), so the referee waits in one place.
No ``zmq.Again`` or other ZeroMQ error leaves this module except on the referee's own bugs.
"""

from __future__ import annotations

import contextlib
import logging
import os
import resource
import shutil
import tempfile
import time
from collections.abc import Callable, Hashable
from typing import NamedTuple

import zmq

from hexarena.protocol import codec
from hexarena.protocol.errors import ProtocolError

log = logging.getLogger("hexarena.referee.transport")

# plain ints: no enum arithmetic per send and receive
_MORE, _LAST = int(zmq.SNDMORE | zmq.NOBLOCK), int(zmq.NOBLOCK)
_EVENTS, _POLLIN = int(zmq.EVENTS), int(zmq.POLLIN)
_RCVMORE = int(zmq.RCVMORE)
# the compiled calls, without pyzmq's Python wrappers (routing_id/group for draft sockets, enum results): half the cost
_send, _recv, _getsockopt = zmq.backend.Socket.send, zmq.backend.Socket.recv, zmq.backend.Socket.get
_zmq_poll = zmq.backend.zmq_poll  # zmq.Poller.poll without its wrapper

SOCKET_PREFIX = "hexarena-referee-"  # TMPDIR/hexarena-referee-<pid>-<random>: a referee's sockets
DRAIN_MAX = 256  # messages read per poll
LOG_EVERY = 5.0  # seconds between two warnings about dropped messages


def raise_descriptor_limit() -> None:
    """The soft RLIMIT_NOFILE up to the hard one: every accepted connection costs the referee a descriptor."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft != hard:
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
        except (OSError, ValueError):
            pass


# hook(direction "in" | "out", owner, raw text): sees every authenticated message (transcripts, debugging)
Hook = Callable[[str, Hashable, bytes], None]


class Received(NamedTuple):
    owner: Hashable
    data: bytes | None  # None: a multi-frame message, which §1.2 forbids
    at: float  # time.perf_counter() when the poller saw it


SOCKET_PATH_LIMIT = 107  # bytes of a unix socket's path on Linux (sun_path, its NUL aside)
_LONGEST_SOCKET = f"/{SOCKET_PREFIX}{2**22}-{'x' * 8}/seat-999999.sock"  # what a folder's path must leave room for


def socket_bases() -> tuple[str, ...]:
    """Where a referee's socket folders go: TMPDIR, and ``/tmp`` for when TMPDIR's path is too long for them."""
    return tuple(dict.fromkeys((tempfile.gettempdir(), "/tmp")))


def socket_folder() -> str:
    """A new private folder for a referee's sockets (``TMPDIR/hexarena-referee-<pid>-<random>``), in the first of
    ``socket_bases`` whose path leaves room for a socket's address; OSError (one line) if none does."""
    for base in socket_bases():
        if len(base) + len(_LONGEST_SOCKET) <= SOCKET_PATH_LIMIT:
            return tempfile.mkdtemp(prefix=f"{SOCKET_PREFIX}{os.getpid()}-", dir=base)
    raise OSError(f"no folder for the referee's sockets: TMPDIR ({tempfile.gettempdir()}) and /tmp leave no room "
                  f"for a unix socket's {SOCKET_PATH_LIMIT}-byte path; set TMPDIR to a shorter one")


class Transport:
    def __init__(self, endpoint: str | None = None, hook: Hook | None = None) -> None:
        raise_descriptor_limit()
        self._tmp = None
        if endpoint is None:
            self._tmp = socket_folder()
            endpoint = f"ipc://{self._tmp}/referee.sock"
        self.context = zmq.Context()
        self.socket = self.context.socket(zmq.ROUTER)
        self.socket.setsockopt(zmq.LINGER, 0)
        self.socket.setsockopt(zmq.MAXMSGSIZE, codec.MAX_BYTES + 64)  # a bigger message disconnects its sender
        try:
            self.socket.bind(endpoint)
        except zmq.ZMQError as exc:
            self.close()
            raise OSError(f"cannot bind the referee socket to {endpoint}: {exc}") from None
        self.endpoint: str = self.socket.getsockopt_string(zmq.LAST_ENDPOINT)
        self._polled: list[tuple[zmq.Socket | int, int]] = [(self.socket, _POLLIN)]  # the socket, then descriptors
        self.hook = hook
        self._tokens: dict[str, Hashable] = {}  # expected token → owner
        self._owners: dict[bytes, Hashable] = {}  # routing id → owner
        self._routes: dict[Hashable, bytes] = {}  # owner → routing id
        self.dropped: list[str] = []  # one line per dropped message (most recent 100)
        self.dropped_count = 0
        self._seat_sockets = 0  # how many seat_endpoint() bound so far (their file names' numbers)
        self._unlogged = 0  # dropped since the last warning
        self._logged_at = -LOG_EVERY

    def seat_endpoint(self) -> str:
        """A socket of its own for one bot process: another ``ipc://`` endpoint of the same ROUTER, in this
        transport's private folder, so that a bot can make unusable (``chmod``, remove) only the socket it was
        given, never the one the next bot connects to (docs/security.md). A transport on a caller's fixed
        endpoint (a test's, a tcp one) has no folder of its own: its bots share that endpoint."""
        if self._tmp is None:
            return self.endpoint
        self._seat_sockets += 1
        endpoint = f"ipc://{self._tmp}/seat-{self._seat_sockets}.sock"
        # libzmq takes security options at bind time: once the CURVE gate made the socket a CURVE server
        # (referee/curve.py), a local bot's socket is bound as the first one was, without it
        curve = self.socket.curve_server
        try:
            if curve:
                self.socket.curve_server = False
            self.socket.bind(endpoint)
        except zmq.ZMQError as exc:
            raise OSError(f"cannot bind a seat's socket to {endpoint}: {exc}") from None
        finally:
            if curve:
                self.socket.curve_server = True
        return endpoint

    def release_endpoint(self, endpoint: str) -> None:
        """A seat's socket (``seat_endpoint``) no bot will connect to again: unbound, its file removed."""
        if endpoint == self.endpoint or self.socket.closed:
            return
        with contextlib.suppress(zmq.ZMQError):
            self.socket.unbind(endpoint)
        with contextlib.suppress(OSError):
            os.unlink(endpoint.removeprefix("ipc://"))

    def admit(self, token: str, owner: Hashable) -> None:
        """Expect one HELLO with ``token``; its sender becomes ``owner``."""
        self._tokens[token] = owner

    def forget(self, owner: Hashable) -> None:
        """Stop routing to and from ``owner`` (a stopped bot); its later messages are dropped."""
        route = self._routes.pop(owner, None)
        if route is not None:
            del self._owners[route]
        for token in [t for t, o in self._tokens.items() if o == owner]:
            del self._tokens[token]

    def send(self, owner: Hashable, data: bytes) -> bool:
        """Send one message (its encoded text, ``codec`` ``wire``) to an authenticated owner; False if it has no
        connection."""
        route = self._routes.get(owner)
        if route is None:
            return False
        if self.hook is not None:
            self.hook("out", owner, data)
        try:
            _send(self.socket, route, _MORE)
            _send(self.socket, data, _LAST)
        except zmq.ZMQError:  # the peer's queue is full or it went away: it will time out or crash
            return False
        return True

    def watch(self, fd: int) -> None:
        if (fd, _POLLIN) not in self._polled:
            self._polled.append((fd, _POLLIN))

    def unwatch(self, fd: int) -> None:
        self._polled.remove((fd, _POLLIN))

    def poll(self, timeout_ms: int | None) -> tuple[list[Received], list[int]]:
        """Wait until a message or watched descriptor is ready, or ``timeout_ms`` pass (None: no limit).

        Returns the authenticated messages received and the ready descriptors (both may be empty).
        """
        ready = _zmq_poll(self._polled, -1 if timeout_ms is None else timeout_ms)
        now = time.perf_counter()
        messages, fds = [], []
        for polled, _ in ready:
            if polled is self.socket:
                messages = self._drain(now)
            else:
                fds.append(polled)
        return messages, fds

    def _drain(self, now: float) -> list[Received]:
        messages = []
        # the poller saw a message, so the first read needs no check; after it, ask libzmq whether another
        # waits rather than catch zmq.Again: an exception per move costs more
        for count in range(DRAIN_MAX):
            if count and not _getsockopt(self.socket, _EVENTS) & _POLLIN:
                break
            try:  # a ROUTER's message: the peer's routing id, then at least one frame (all arrive together)
                route, data = _recv(self.socket, _LAST), _recv(self.socket, _LAST)
            except zmq.Again:
                break
            body = None
            if _getsockopt(self.socket, _RCVMORE):  # a multi-frame message (§1.2: a fault)
                body = [data]
                while _getsockopt(self.socket, _RCVMORE):
                    body.append(_recv(self.socket, _LAST))
                data = None
            owner = self._owners.get(route)
            if owner is None:
                owner = self._authenticate(route, data)
                if owner is None:
                    continue
            if self.hook is not None:
                self.hook("in", owner, data if body is None else b"".join(body))
            messages.append(Received(owner, data, now))
        return messages

    def _authenticate(self, route: bytes, data: bytes | None) -> Hashable | None:
        """§3.3: a first message must be HELLO with an expected token; anything else is dropped."""
        try:
            hello = codec.parse(data) if data is not None else None
        except ProtocolError:
            hello = None
        owner = self._tokens.pop(hello.token, None) if isinstance(hello, codec.Hello) else None
        if owner is None:
            shown = repr(data[:60]) if data is not None else "a multi-frame message"
            self._drop(f"dropped {shown} from unauthenticated peer {route.hex()}")
            return None
        self._owners[route] = owner
        self._routes[owner] = route
        return owner

    def _drop(self, line: str) -> None:
        self.dropped.append(line)
        del self.dropped[:-100]
        self.dropped_count += 1
        self._unlogged += 1
        now = time.monotonic()
        if now - self._logged_at >= LOG_EVERY:
            more = f" (and {self._unlogged - 1} more dropped since the last warning)" if self._unlogged > 1 else ""
            log.warning("%s%s", line, more)
            self._logged_at, self._unlogged = now, 0

    def close(self) -> None:
        if not self.socket.closed:
            self.socket.close(linger=0)
        self.context.term()
        if self._tmp is not None:
            shutil.rmtree(self._tmp, ignore_errors=True)
