"""uvicorn's HTTP/1.1 protocol (h11) with a header timeout, for a server exposed without a proxy (slowloris).

    uvicorn.run(app, http=HeaderTimeoutH11, **LIMITS)      # hexarena serve

uvicorn (0.54) has no header timeout: every byte a client sends restarts nothing and cancels the keep-alive
timer, so a client sending one header byte every 2 s holds its connection for good, and a few hundred such
clients hold the server. Here a connection whose request head (request line and headers) has not arrived
within ``header_timeout`` seconds of its opening, or of its last response, is closed. A request whose head
has arrived is the application's to bound (an upload's body is capped by size, ``hexarena.server.api_write``).
Behind the documented reverse proxy, the proxy bounds slow clients first (docs/service.md).
"""

from __future__ import annotations

import asyncio

from uvicorn.protocols.http.h11_impl import H11Protocol

HEADER_TIMEOUT = 10.0  # seconds for a request's head to arrive
LIMITS = {
    "timeout_keep_alive": 5,  # seconds an idle kept-alive connection stays open
    "h11_max_incomplete_event_size": 16 * 1024,  # bytes of a request head (request line and headers)
}


class HeaderTimeoutH11(H11Protocol):
    """``H11Protocol`` closing a connection whose request head is late (module docstring)."""

    header_timeout = HEADER_TIMEOUT

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._head_timer: asyncio.TimerHandle | None = None
        self._arm()

    def on_response_complete(self) -> None:
        super().on_response_complete()
        self._arm()

    def connection_lost(self, exc: Exception | None) -> None:
        if self._head_timer is not None:
            self._head_timer.cancel()
        super().connection_lost(exc)

    def _arm(self) -> None:
        """Expect a new request head within the timeout: late, if no request has begun since now."""
        if self._head_timer is not None:
            self._head_timer.cancel()
        waited_for = self.cycle
        self._head_timer = self.loop.call_later(self.header_timeout, self._late, waited_for)

    def _late(self, waited_for) -> None:
        if self.cycle is waited_for and not self.transport.is_closing():
            self.transport.close()


def with_header_timeout(seconds: float) -> type[HeaderTimeoutH11]:
    """The protocol class with another header timeout (``hexarena serve --header-timeout``)."""
    return type("HeaderTimeoutH11", (HeaderTimeoutH11,), {"header_timeout": seconds})
