"""The referee's one place to wait.

``Hub`` owns the ROUTER transport (``referee/transport.py``) and one poller over it and
the seats' plain descriptors (output pipes, process exit descriptors). Every wait of
every seat of one referee goes through ``Hub.poll``, which routes each authenticated
message to its owner and each ready descriptor to whoever watches it: a ``Listener``
(the ZeroMQ seats of ``referee/seats/zmq.py`` are the listeners). The CURVE gate of the
tcp endpoint for remote seats (``referee/curve.py``) is made on first use.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

from hexarena.referee.transport import Hook, Received, Transport


class Listener(Protocol):
    """What the hub routes to: the owner of an admitted token, or the watcher of a descriptor."""

    def receive(self, message: Received) -> None:
        """One authenticated message of this listener's connection."""

    def ready_fd(self, fd: int) -> None:
        """One of this listener's watched descriptors is ready."""


class Hub:
    """One referee's transport and poller; ``gate()`` adds the tcp endpoint for remote seats on first use."""

    def __init__(self, endpoint: str | None = None, hook: Hook | None = None, *,
                 listen: str = "tcp://127.0.0.1:0", announce: Callable | None = None) -> None:
        self.transport = Transport(endpoint, hook)
        self.listen = listen  # the tcp endpoint for remote seats, bound on first use
        self.announce = announce  # called with each remote seat's Credentials
        self._gate = None
        self._fds: dict[int, Listener] = {}

    @property
    def endpoint(self) -> str:
        return self.transport.endpoint

    def gate(self):
        """The CURVE gate of the tcp endpoint (``referee/curve.py``), made on first use."""
        if self._gate is None:
            from hexarena.referee.curve import Gate

            self._gate = Gate(self.transport, self.listen)
        return self._gate

    def watch(self, seat: Listener, fds: list[int]) -> None:
        for fd in fds:
            self._fds[fd] = seat
            self.transport.watch(fd)

    def unwatch(self, fd: int) -> None:
        if self._fds.pop(fd, None) is not None:
            self.transport.unwatch(fd)

    def poll(self, timeout_ms: int | None) -> None:
        """Wait once, until a message or a watched descriptor is ready or ``timeout_ms`` pass (None: no limit);
        route what came."""
        messages, fds = self.transport.poll(timeout_ms)
        for message in messages:
            message.owner.receive(message)
        for fd in fds:
            seat = self._fds.get(fd)
            if seat is not None:
                seat.ready_fd(fd)

    def close(self) -> None:
        if self._gate is not None:
            self._gate.close()
        self.transport.close()
