"""Time controls and deadlines, measured by the referee (PROTOCOL.md §5).

    TimeControl.parse("300ms")              # 300 ms for every move
    TimeControl.parse("10s+100ms")          # a 10 s bank per game, 100 ms added after each move
    TimeControl.parse("2s+50ms/move")       # the same form, spelt out
    TimeControl.parse("300ms,startup=5s,margin=20ms")

``startup`` is the allowance for a bot to start and say HELLO; ``margin`` is added to
every move's limit before a reply counts as late (ZeroMQ's tail under load is milliseconds).

A ``Deadline`` is what every wait of the referee waits on: the startup wait's, and each move's,
which the game loop takes from the mover's clock, counted from the moment its TURN left, and the seat waits on:

    sent = seat.request(*clock.request()); line, seconds = seat.await_move(clock.deadline(sent, grace))
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass
from typing import Annotated

from pydantic import PlainSerializer, PlainValidator

from hexarena.protocol.codec import TimeSpec
from hexarena.protocol.errors import ConfigError

_DURATION = re.compile(r"^(\d+(?:\.\d+)?)(ms|s|m)$")
_UNITS = {"ms": 0.001, "s": 1.0, "m": 60.0}
MAX_DURATION = 24 * 3600.0  # any duration: a bank, a startup allowance, a remote seat's wait
# (field, largest value in seconds, as said): a move or an increment up to an hour, a bank up to a day
LIMITS = (("move", 3600.0, "60m"), ("increment", 3600.0, "60m"), ("bank", MAX_DURATION, "1440m"),
          ("startup", MAX_DURATION, "1440m"), ("margin", 60.0, "1m"))
_FORMS = "e.g. 300ms, 2s, 10s+100ms, 2s+50ms/move, optionally ',startup=5s,margin=50ms'"


def parse_duration(text: str) -> float:
    """``"300ms"`` → ``0.3`` seconds; units ms, s, m."""
    match = _DURATION.match(text.strip())
    if not match:
        raise ConfigError(f"time {text!r} is not a duration ({_FORMS})")
    seconds = float(match[1]) * _UNITS[match[2]]
    if not seconds <= MAX_DURATION:  # "9999999999999999999999s" would overflow the clocks; inf too
        raise ConfigError(f"time {text!r} is too long (a duration is at most 1440m, 24 hours)")
    return seconds


def format_duration(seconds: float) -> str:
    """``0.3`` → ``"300ms"``, ``10.0`` → ``"10s"``: the shortest exact form."""
    ms = round(seconds * 1000, 3)
    if ms % 1000 == 0:
        return f"{int(ms // 1000)}s"
    return f"{ms:g}ms"


@dataclass(frozen=True)
class TimeControl:
    """A fixed limit per move (``move``) or a bank with an ``increment``; all in seconds."""

    move: float | None = 1.0
    bank: float | None = None
    increment: float = 0.0
    startup: float = 10.0
    margin: float = 0.05

    def __post_init__(self) -> None:
        if (self.move is None) == (self.bank is None):
            raise ConfigError("a time control has either a limit per move or a bank, not both")
        positive = [value for value in (self.move, self.bank, self.startup) if value is not None]
        if min(positive) <= 0 or min(self.increment, self.margin) < 0:
            raise ConfigError("time control durations must be positive")
        for name, limit, said in LIMITS:
            value = getattr(self, name)
            if value is not None and value > limit:
                raise ConfigError(f"time control: {name} {format_duration(value)} is over the limit of {said} "
                                  "(a move or an increment up to 60m, a bank or startup up to 1440m, a margin up to 1m)")

    @classmethod
    def parse(cls, text: str, *, startup: float = 10.0, margin: float = 0.05) -> TimeControl:
        """Read ``300ms``, ``10s+100ms`` or ``2s+50ms/move``, with optional ``,startup=…,margin=…``."""
        main, *extras = [part.strip() for part in text.split(",")]
        for extra in extras:
            key, _, value = extra.partition("=")
            if key not in ("startup", "margin") or not value:
                raise ConfigError(f"time {text!r}: unknown part {extra!r} ({_FORMS})")
            if key == "startup":
                startup = parse_duration(value)
            else:
                margin = parse_duration(value)
        bank, plus, increment = main.removesuffix("/move").partition("+")
        if plus and not increment.strip():
            raise ConfigError(f"time {text!r}: the increment after '+' is missing (e.g. 10s+100ms)")
        if plus and not bank.strip():
            raise ConfigError(f"time {text!r}: the bank before '+' is missing (e.g. 10s+100ms)")
        if plus:
            return cls(move=None, bank=parse_duration(bank), increment=parse_duration(increment),
                       startup=startup, margin=margin)
        return cls(move=parse_duration(main.removesuffix("/move")), startup=startup, margin=margin)

    def __str__(self) -> str:
        if self.bank is None:
            return format_duration(self.move)
        return f"{format_duration(self.bank)}+{format_duration(self.increment)}"

    def canonical(self) -> str:
        """The whole control as text that ``parse`` reads back: ``"10s+100ms,startup=10s,margin=50ms"``."""
        return f"{self},startup={format_duration(self.startup)},margin={format_duration(self.margin)}"

    def __repr__(self) -> str:
        return (f"TimeControl.parse('{self}', startup={self.startup!r}, margin={self.margin!r})")

    def spec(self) -> TimeSpec:
        """The ``time`` object of the GAME message (§4.1)."""
        def ms(seconds: float | None) -> int | None:
            return None if seconds is None else round(seconds * 1000)
        return TimeSpec(ms(self.move), ms(self.bank), ms(self.increment), ms(self.margin))

    def clock(self) -> Clock:
        return Clock(self)


def read_time_control(value: object) -> TimeControl:
    """A time control from its text (``"300ms"``, ``"10s+100ms,startup=5s,margin=50ms"``): for pydantic fields."""
    if isinstance(value, TimeControl):
        return value
    if isinstance(value, str):
        return TimeControl.parse(value)
    raise ValueError(f"a time control is text such as '300ms' or '10s+100ms' ({_FORMS}), got {value!r}")


# A pydantic field holding a TimeControl: parsed once where it enters, written back as its whole text
TimeControlField = Annotated[TimeControl, PlainValidator(read_time_control),
                             PlainSerializer(lambda control: control.canonical(), return_type=str)]


class Clock:
    """One seat's clock during one game."""

    __slots__ = ("_request", "control", "left")

    def __init__(self, control: TimeControl) -> None:
        self.control = control
        self.left = control.bank if control.bank is not None else control.move
        self._request = self._times()

    def _times(self) -> tuple[int, int]:
        left = max(0, int(self.left * 1000))
        return left, left

    def request(self) -> tuple[int, int]:
        """``(left_ms, limit_ms)`` for the next TURN (§4.4)."""
        return self._request

    def allowance(self) -> float:
        """Seconds after the TURN is sent within which its reply counts: what is left, plus the margin."""
        return self.left + self.control.margin

    def deadline(self, sent: float, grace: float = 0.0) -> Deadline:
        """The deadline of the move whose TURN left at ``sent`` (``time.perf_counter()``): the allowance, plus
        ``grace`` (the conformance check waits longer than the clock allows and judges lateness itself)."""
        seconds = self.left + self.control.margin + grace  # allowance() + grace, without a call per move
        return Deadline(sent + seconds, seconds, self._request[1])

    def spend(self, seconds: float) -> None:
        """Charge a move's thinking time: a bank shrinks, then grows by the increment."""
        if self.control.bank is not None:
            self.left = max(0.0, self.left - seconds) + self.control.increment
            self._request = self._times()


class Deadline:
    """A point in ``time.perf_counter()`` time by which something must happen; ``at`` None: no deadline.

        deadline = Deadline.after(5.0)               # e.g. a wait for HELLO: 5 s from now
        while not done() and not deadline.passed():
            hub.poll(deadline.remaining_ms())         # never ends before the deadline; 0 once it has passed

    ``seconds`` is the span it was made with (None if unknown). A move's deadline (``Clock.deadline``) also
    keeps ``limit_ms``, the limit its TURN said: ``margin_ms`` is the rest of the span, the margin and any
    grace, as the timeout fault words it (§7).
    """

    __slots__ = ("at", "limit_ms", "seconds")

    def __init__(self, at: float | None, seconds: float | None = None, limit_ms: int = 0) -> None:
        self.at = at
        self.seconds = seconds
        self.limit_ms = limit_ms

    @classmethod
    def after(cls, seconds: float) -> Deadline:
        return cls(time.perf_counter() + seconds, seconds)

    @property
    def margin_ms(self) -> int:
        """The span past the TURN's limit, in whole milliseconds: "no MOVE within 300 ms (+50 ms margin)"."""
        return round(self.seconds * 1000) - self.limit_ms

    def remaining_ms(self) -> int | None:
        """Milliseconds left, rounded up so a wait never ends before the deadline (one more when exact); 0 once
        passed (as ``passed`` says); None for no deadline."""
        if self.at is None:
            return None
        left = self.at - time.perf_counter()
        return int(left * 1000) + 1 if left > 0 else 0

    def passed(self) -> bool:
        return self.at is not None and time.perf_counter() >= self.at
