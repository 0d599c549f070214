"""Remote seats: a bot started by hand (another machine, another terminal) joins a match over tcp with CURVE.

    with Referee(listen="tcp://0.0.0.0:7000", announce=lambda c: print(c.instructions())) as referee:
        referee.play([BotSpec("alice", None, remote=True), BotSpec("greedy", Path("bots/greedy"))], ...)

The referee's ROUTER socket keeps its ipc endpoint for local bots and binds one more,
tcp, endpoint as a ZeroMQ CURVE server: libzmq takes a socket's security options at
bind time, so the two endpoints differ. Over tcp every message is encrypted, and the
ZAP handler admits only client keys this gate issued: for each remote seat it makes a
client key pair and announces the credentials (endpoint, one-time token, the server's
public key, the client's key pair) for the organiser to hand to the bot's owner. A
client with any other key is refused during the handshake; it never reaches the
referee, so it can neither take the seat nor read the game. The token still has to
match (PROTOCOL.md §3), as for a local bot.

``RemoteSeat`` is the seat (``referee/seats/base.py``) of such a bot: it has no process of ours.
"""

from __future__ import annotations

import logging
import shlex
import socket
import threading
from dataclasses import dataclass

import zmq
from zmq.auth.thread import ThreadAuthenticator

from hexarena.protocol.errors import ConfigError
from hexarena.referee.transport import Transport

log = logging.getLogger("hexarena.referee.remote")

DOMAIN = "hexarena"  # the ZAP domain of the tcp endpoint


@dataclass(frozen=True)
class Credentials:
    """What the owner of a remote bot needs to join (PROTOCOL.md §2 plus the CURVE keys, Z85 text)."""

    name: str
    endpoint: str
    token: str
    server_key: str
    public_key: str
    secret_key: str

    def env(self) -> dict[str, str]:
        return {"HEXARENA_ENDPOINT": self.endpoint, "HEXARENA_TOKEN": self.token, "HEXARENA_NAME": self.name,
                "HEXARENA_PROTOCOL": "v1", "HEXARENA_SERVER_KEY": self.server_key,
                "HEXARENA_PUBLIC_KEY": self.public_key, "HEXARENA_SECRET_KEY": self.secret_key}

    def instructions(self) -> str:
        """Two lines for the organiser to pass on: who, and the environment to start the bot with."""
        assignments = " ".join(f"{key}={shlex.quote(value)}" for key, value in self.env().items())
        return f"remote seat {self.name!r} waits for its bot; start it with:\n  {assignments} <your bot's command>"


class Gate:
    """CURVE server and ZAP authentication for the tcp endpoint of a referee's ROUTER socket."""

    def __init__(self, transport: Transport, listen: str = "tcp://127.0.0.1:0") -> None:
        if not listen.startswith("tcp://"):
            raise ConfigError(f"remote endpoint {listen!r} must be tcp://HOST:PORT (e.g. tcp://0.0.0.0:7000)")
        if not zmq.has("curve"):
            raise ConfigError("this pyzmq has no CURVE support: remote seats need it (pip install pyzmq)")
        self.server_key, secret = zmq.curve_keypair()
        self._allowed: set[bytes] = set()
        self._lock = threading.Lock()
        self.refused: list[str] = []  # one line per refused client key
        self.auth = ThreadAuthenticator(transport.context, log=log)
        self.auth.start()
        self.auth.configure_curve_callback(domain=DOMAIN, credentials_provider=self)
        sock = transport.socket
        sock.curve_server = True
        sock.curve_secretkey = secret
        sock.zap_domain = DOMAIN.encode()
        try:
            sock.bind(listen.replace("tcp://0.0.0.0:", "tcp://*:"))
        except zmq.ZMQError as exc:
            self.close()
            raise ConfigError(f"cannot listen on {listen}: {exc}") from None
        bound = sock.getsockopt_string(zmq.LAST_ENDPOINT)
        host = bound.removeprefix("tcp://").rsplit(":", 1)[0]
        self.endpoint = bound.replace(host, socket.gethostname(), 1) if host in ("0.0.0.0", "[::]") else bound

    def callback(self, domain: str, key: bytes) -> bool:
        """ZAP: admit a CURVE client only with a public key this gate issued."""
        with self._lock:
            allowed = key in self._allowed
        if not allowed:
            self.refused.append(f"refused CURVE client key {key.decode(errors='replace')}")
            log.warning("%s", self.refused[-1])
        return allowed

    def admit(self, name: str, token: str) -> Credentials:
        """Issue a client key pair for one remote seat and authorise it."""
        public, secret = zmq.curve_keypair()
        with self._lock:
            self._allowed.add(public)
        return Credentials(name, self.endpoint, token, self.server_key.decode(), public.decode(), secret.decode())

    def close(self) -> None:
        """Stop the ZAP handler (before the referee's context is terminated)."""
        if self.auth.is_alive():
            self.auth.stop()
