"""Seats that play inside the referee's process: a ``choose(game, state)`` function, or a script for tests.

    referee.play([InProcessSpec("chains", bot_choose(Chains())), BotSpec("greedy", Path("bots/greedy"))], ...)
    referee.play([ScriptedSpec("a", [3, BotFault("timeout", "…")]), ScriptedSpec("b", [])], ...)

An in-process seat runs the same bot-side code as a Python bot (``hexarena.protocol.client.Player``)
on the referee's messages, without a socket: the one game loop, its clocks and its faults
apply unchanged. Its thinking time is the wall-clock time of ``choose``; an exception in
``choose`` is the fault ``crashed``. Used by the conformance check's other seats, duels
between brains (``benchmarks/duel.py``) and the tests.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from hexarena.protocol import codec
from hexarena.protocol.client import Choose, GameInfo, Player
from hexarena.protocol.errors import BotFault
from hexarena.protocol.rules import State
from hexarena.referee.seats.base import SeatState

if TYPE_CHECKING:
    from hexarena.referee.clock import Deadline


@dataclass(frozen=True, eq=False)
class InProcessSpec:
    """A seat played by ``choose`` in the referee's process (one spec, one warm seat)."""

    name: str
    choose: Choose
    remote = False
    version = ""

    def make(self, hub, label: str, settings) -> InProcessSeat:
        return InProcessSeat(self.name, label, self.choose)


class InProcessSeat:
    """The seat of a ``choose`` function: READY at once, never gone."""

    process = None
    startup = None

    def __init__(self, name: str, label: str, choose: Choose) -> None:
        self.name = name
        self.label = label
        self.state = SeatState.NEW
        self.fault: BotFault | None = None
        self.player = Player(choose)
        self._last_id = 0
        self._turn: codec.Turn | None = None

    def launch(self) -> None:
        self.state = SeatState.READY

    def poll_start(self) -> None:
        pass

    def gone(self) -> str | None:
        return None

    def cpu_ms(self) -> float | None:
        return None  # a thread of the referee's own process: nothing of its own to measure

    def startup_report(self) -> str:
        return ""

    def begin_game(self, log_path: Path | None) -> None:
        pass

    def send(self, message: codec.Message) -> None:
        if self.state is SeatState.READY:
            self.player.receive(message)

    def request(self, left_ms: int, limit_ms: int, move: int = 0, news: Sequence[codec.Message] = ()) -> float:
        for message in news:
            self.send(message)
        self._last_id += 1
        self._turn = codec.Turn(self._last_id, left_ms, limit_ms)
        return time.perf_counter()

    def await_move(self, deadline: Deadline) -> tuple[int, float]:
        # the thinking time is choose's own (no transport to cross): it is held to the deadline's span
        started = time.perf_counter()
        try:
            move = self.player.receive(self._turn)
        except BotFault:
            raise
        except Exception as exc:  # noqa: BLE001 - a brain's bug is its seat's fault, never the referee's
            raise BotFault("crashed", f"{type(exc).__name__}: {exc}"[:200]) from None
        seconds = time.perf_counter() - started
        if seconds > deadline.seconds:
            raise BotFault("timeout", f"chose after {seconds * 1000:.0f} ms, allowed {deadline.seconds * 1000:.0f} ms")
        return move.line, seconds

    def take_notes(self) -> list[str]:
        return self.player.take_notes()

    def note(self, text: str) -> None:
        pass

    def retire(self, fault: BotFault | None = None, reason: str = "") -> None:
        if fault is not None:
            self.fault = fault
        self.state = SeatState.CLOSED

    def closed(self) -> None:
        pass


Step = int | BotFault | Callable[[GameInfo, State], int]


@dataclass(frozen=True, eq=False)
class ScriptedSpec:
    """A seat that replies from ``script``, one step per TURN: a line, a ``BotFault`` to raise, or a
    ``choose`` function; then the lowest free line. ``start_fault`` makes it fail to start."""

    name: str
    script: Sequence[Step] = ()
    start_fault: BotFault | None = None
    seats: list = field(default_factory=list)  # every seat made from this spec, for tests to inspect
    remote = False
    version = ""

    def make(self, hub, label: str, settings) -> ScriptedSeat:
        seat = ScriptedSeat(self.name, label, list(self.script), self.start_fault)
        self.seats.append(seat)
        return seat


class ScriptedSeat(InProcessSeat):
    """Replies from a script; ``received`` keeps every message it was sent."""

    def __init__(self, name: str, label: str, script: list[Step], start_fault: BotFault | None) -> None:
        super().__init__(name, label, self._next)
        self.script = script
        self.start_fault = start_fault
        self.received: list[codec.Message] = []

    def _next(self, game: GameInfo, state: State) -> int:
        if not self.script:
            return state.legal_moves()[0]
        step = self.script.pop(0)
        if isinstance(step, BotFault):
            raise step
        return step(game, state) if callable(step) else step

    def launch(self) -> None:
        if self.start_fault is not None:
            self.fault, self.state = self.start_fault, SeatState.CLOSED
        else:
            super().launch()

    def send(self, message: codec.Message) -> None:
        if self.state is SeatState.READY:
            self.received.append(message)
        super().send(message)

    def request(self, left_ms: int, limit_ms: int, move: int = 0, news: Sequence[codec.Message] = ()) -> float:
        sent = super().request(left_ms, limit_ms, move, news)
        self.received.append(self._turn)
        return sent
