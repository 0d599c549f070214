"""The seat interface: what the one game loop (``referee/game.py``) needs from whoever plays a seat.

    seat = spec.make(hub, label, settings)   # a SeatSpec says what to run (settings: the referee's RefereeSettings)
    seat.launch()                  # begin starting; the hub waits for every launching seat's HELLO at once
    seat.begin_game(log_path)      # the game's log (a process's output goes there)
    seat.send(codec.Drawn(...))    # announcements
    sent = seat.request(left_ms, limit_ms, move)   # TURN; the move's deadline, from the mover's clock, counts from sent
    line, seconds = seat.await_move(clock.deadline(sent, grace))   # MOVE by then, or BotFault
    notes = seat.take_notes()      # the INFO texts it sent before that MOVE (§4.8)
    seat.retire(fault)             # BYE; a process is stopped by the referee afterwards (``seat.process``)

Implementations:

    ProcessSeat              a bot process from its folder, over ZeroMQ or the stdio bridge (seats/process.py)
    RemoteSeat               a bot started by hand elsewhere, over tcp with CURVE (seats/remote.py)
    InProcessSeat            a ``choose(game, state)`` function in this process: tests, duels (seats/inprocess.py)
    ScriptedSeat             a list of replies and faults, for tests of the game loop (seats/inprocess.py)

The first two share ``ZmqSeat`` (seats/zmq.py): the handshake and TURN/MOVE over the hub's socket.

A seat moves through ``SeatState``: NEW (made, not launched) → STARTING (launched, token
admitted, no HELLO yet) → READY (said HELLO) → CLOSED (retired, or failed to start; ``fault`` says why).
"""

from __future__ import annotations

import enum
from pathlib import Path
from typing import TYPE_CHECKING, Protocol, runtime_checkable

from hexarena.protocol import codec
from hexarena.protocol.errors import BotFault

if TYPE_CHECKING:
    from collections.abc import Sequence

    from hexarena.referee.clock import Deadline
    from hexarena.referee.hub import Hub
    from hexarena.referee.launch import BotProcess


class SeatState(enum.Enum):
    NEW = "new"
    STARTING = "starting"
    READY = "ready"
    CLOSED = "closed"


@runtime_checkable
class Seat(Protocol):
    """One player of a game, as the game loop sees it. Every bot fault surfaces as ``BotFault``."""

    name: str  # shown in records and in GAME's names
    label: str  # name, with "#2" for a second copy of one spec in a game (records and logs use name and seat)
    state: SeatState
    fault: BotFault | None  # why the seat closed (set when it failed to start or was retired for a fault)
    process: BotProcess | None  # the local process to stop after BYE, or None
    startup: float | None  # its own startup allowance in seconds (a remote seat's), or None: the time control's

    def launch(self) -> None:
        """Begin starting (NEW → STARTING or READY); a failure closes the seat with ``fault`` set."""

    def poll_start(self) -> None:
        """While STARTING: close the seat with a fault if it can no longer come up (its process exited)."""

    def startup_report(self) -> str:
        """Words for a startup fault's detail: the command run and its stderr's last lines ("" if none)."""

    def gone(self) -> str | None:
        """Why the seat can no longer play (its process exited), or None."""

    def cpu_ms(self) -> float | None:
        """CPU time (user + system) the bot's whole process tree has used so far, in ms; None where the seat has
        no process of the referee's to measure (in-process, remote)."""

    def begin_game(self, log_path: Path | None) -> None:
        """A game starts: the seat's output goes to ``log_path`` (None: kept nowhere)."""

    def send(self, message: codec.Message) -> None:
        """Deliver one message; a seat that cannot take it faults later, at its turn."""

    def request(self, left_ms: int, limit_ms: int, move: int = 0, news: Sequence[codec.Message] = ()) -> float:
        """Send ``news`` (what the seat has not heard yet: DRAWN, FORFEIT), then TURN (§4.4) with the next request
        id; the seat's thinking time starts now. Returns when the TURN left (``time.perf_counter()``): the move's
        deadline counts from it. ``move``: the number (from 1) of the record's move it asks for, marked in the
        seat's game log first (``launch.MOVE_MARK``; 0: not marked). The news and the TURN leave back to back,
        with nothing between them that makes a system call: the bot's ZeroMQ I/O thread then takes them in one
        wake-up and the bot reads them in one, where work between them (the log's mark, reading the output
        pipes) cost a wake-up of each a message."""

    def await_move(self, deadline: Deadline) -> tuple[int, float]:
        """The line of the reply to the last TURN and the seconds it took; BotFault if none came by ``deadline``
        (the move's, ``Clock.deadline``: from when the TURN left, its limit plus the margin and any grace), or the
        reply broke the protocol (§6, §7). A seat without a transport (in-process) holds its thinking time to the
        deadline's span, ``deadline.seconds``."""

    def take_notes(self) -> list[str]:
        """The bot's notes (INFO, §4.8) on the request just answered, for the move's record; [] if none."""

    def note(self, text: str) -> None:
        """A referee line in the seat's log."""

    def retire(self, fault: BotFault | None = None, reason: str = "") -> None:
        """Say BYE and detach (→ CLOSED); a fault is recorded in the log. Idempotent."""

    def closed(self) -> None:
        """After the referee stopped ``process`` (if any): release what is left."""


class SeatSpec(Protocol):
    """What to run for a seat; hashable: the referee keeps one warm seat per spec (and copy) across games."""

    name: str
    remote: bool  # a bot started by hand elsewhere: one that never joined is not waited for again (see Referee)
    version: str  # its exact version for the record (``name@hash``), "" when there is none to name

    def make(self, hub: Hub, label: str, settings) -> Seat:
        """A new seat (not launched); ``settings`` is the referee's ``RefereeSettings`` (``referee/settings.py``):
        a bot process takes its limits and whether it is sandboxed from it."""
