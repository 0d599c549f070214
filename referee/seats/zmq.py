"""The part of the seat interface that every ZeroMQ-connected seat shares.

``ZmqSeat``: the handshake, TURN/MOVE with request ids (§4.4, §6), the inbox bound, BYE; the hub
(``referee/hub.py``) routes its messages and descriptors to it. Its subclasses say how the bot is
started: ``seats/process.py`` (a process of ours) and ``seats/remote.py`` (a bot started by hand elsewhere).
"""

from __future__ import annotations

import secrets
import time
from collections import deque
from pathlib import Path
from typing import TYPE_CHECKING

from hexarena.protocol import codec
from hexarena.protocol.errors import BotFault, ProtocolError
from hexarena.referee.seats.base import SeatState
from hexarena.referee.transport import Received

if TYPE_CHECKING:
    from collections.abc import Sequence

    from hexarena.referee.clock import Deadline
    from hexarena.referee.hub import Hub

INBOX_LIMIT = 100  # unrequested messages allowed from a bot between two of its replies; more is a fault (§6.4)


def is_info(data: bytes) -> bool:
    """Whether a message is an INFO (§4.8), well formed or not: the word, then the end or a white space."""
    return data.startswith(b"INFO") and (len(data) == 4 or data[4] in b" \t\n\r\x0b\x0c")


class ZmqSeat:
    """A seat whose bot connects a DEALER socket to the hub and authenticates with a one-time token (§3)."""

    process = None  # a local process to stop after BYE (``ProcessSeat``), else None

    def __init__(self, name: str, label: str, hub: Hub, startup: float | None = None) -> None:
        self.name = name
        self.label = label
        self.hub = hub
        self.startup = startup
        self.state = SeatState.NEW
        self.fault: BotFault | None = None
        self.launched = 0.0  # time.perf_counter() at launch
        self._last_id = 0  # request ids sent so far are 1 … _last_id (§6)
        self._outstanding: int | None = None
        self._sent = 0.0  # time.perf_counter() when the last TURN left: think times count from it
        self._inbox: deque[Received] = deque()
        self._flooded = False  # sent more unrequested messages than INBOX_LIMIT
        # unrequested messages read since the bot's last reply: counted as read, not as queued, so a flood is one
        # fault however the referee's reads interleave with the bot's sends
        self._unrequested = 0
        self._notes: list[str] = []  # the INFO texts of the outstanding request (§4.8)
        self._notes_dropped = 0  # those past codec.INFO_PER_MOVE
        self._notes_ignored = 0  # INFO ignored while this request was outstanding; logged one by one up to a limit

    # ---- starting ------------------------------------------------------------------------------

    def launch(self) -> None:
        token = secrets.token_hex(16)
        env = {"HEXARENA_ENDPOINT": self.hub.endpoint, "HEXARENA_TOKEN": token,
               "HEXARENA_PROTOCOL": codec.VERSION, "HEXARENA_NAME": self.name}
        try:
            self.start_bot(env)
        except BotFault as fault:
            self.fault, self.state = fault, SeatState.CLOSED
            return
        self.hub.transport.admit(token, self)
        self.launched = time.perf_counter()
        self.state = SeatState.STARTING

    def start_bot(self, env: dict[str, str]) -> None:
        """Start (or invite) the bot with the protocol's environment (§2); BotFault if it cannot be."""
        raise NotImplementedError

    def poll_start(self) -> None:
        pass

    def startup_report(self) -> str:
        """Words appended to a startup fault: what was run and what it said (a process seat's)."""
        return ""

    def receive(self, message: Received) -> None:
        """Called by the hub for each message of this seat's connection."""
        if self.state is SeatState.STARTING:
            self._greet(message.data)
        elif self._outstanding is not None and not self._inbox and message.data is not None and is_info(message.data):
            # a note on the outstanding TURN with nothing before it (no MOVE): read at once, so that a burst of
            # notes on the bot's own turn takes no room in the inbox (no flood, §6.4); one after its MOVE waits
            # behind it, and is ignored when read
            self._read_other(message.data)
        elif len(self._inbox) < INBOX_LIMIT:
            self._inbox.append(message)
        else:
            self._flooded = True

    def ready_fd(self, fd: int) -> None:
        """Called by the hub when one of this seat's watched descriptors is ready."""

    def _greet(self, data: bytes | None) -> None:
        hello = codec.parse(data)  # the transport authenticated it: a valid HELLO
        if hello.version != codec.VERSION:
            self.retire(BotFault("malformed_message", f"HELLO names protocol {hello.version!r}, not v1 (§3.5)"))
            return
        self.hub.transport.send(self, codec.Welcome().wire)
        self.state = SeatState.READY

    # ---- playing -------------------------------------------------------------------------------

    def begin_game(self, log_path: Path | None) -> None:
        pass

    def send(self, message: codec.Message) -> None:
        if self.state is not SeatState.CLOSED:
            self.hub.transport.send(self, message.wire)

    def request(self, left_ms: int, limit_ms: int, move: int = 0, news: Sequence[codec.Message] = ()) -> float:
        self._last_id += 1
        if move and self.process is not None:  # the game log's line for this move, before the news and TURN leave
            self.process.mark_turn(move, self._last_id)
        self._outstanding = self._last_id
        self._notes, self._notes_dropped, self._notes_ignored = [], 0, 0
        wires = [message.wire for message in news] if self.state is not SeatState.CLOSED else []
        wires.append(codec.Turn.encode(self._last_id, left_ms, limit_ms))
        send = self.hub.transport.send
        for wire in wires:  # back to back: encoded first
            send(self, wire)
        self._sent = sent = time.perf_counter()
        return sent

    def gone(self) -> str | None:
        """Why the bot can no longer answer (its process exited), or None while it may."""
        return None

    def cpu_ms(self) -> float | None:
        """The CPU time the bot's processes have used so far (ms); None: not measurable (a bot elsewhere)."""
        return None

    def await_move(self, deadline: Deadline) -> tuple[int, float]:
        inbox = self._inbox
        while True:
            if self._flooded:  # checked on every pass: a flood that fills the inbox mid-turn drops the reply too
                self._flooded, self._unrequested = False, 0  # one fault per flood: the bot may play on (substitute)
                inbox.clear()
                raise BotFault("malformed_message", f"more than {INBOX_LIMIT} messages between turns (§6.4)")
            if not inbox:
                if self.gone() is not None:
                    self.hub.poll(1)  # collect a reply sent just before the exit
                    if not inbox:
                        raise BotFault("crashed", self.gone())
                    continue
                wait = deadline.remaining_ms()  # rounded up: the wait never ends before the deadline
                if wait == 0:
                    self._outstanding = None  # unanswered in time: no note is read for it from now on
                    raise BotFault("timeout",
                                   f"no MOVE within {deadline.limit_ms} ms (+{deadline.margin_ms} ms margin)")
                self.hub.poll(wait)
                continue
            received = inbox.popleft()
            if received.at > deadline.at:
                self._outstanding = None
                raise BotFault("timeout", f"MOVE came {1000 * (received.at - deadline.at):.0f} ms after the deadline")
            if received.data is None:
                raise BotFault("malformed_message", "a multi-frame message (§1.2)")
            move = codec.move_fields(received.data) or self._read_other(received.data)
            if move is None:
                continue
            number, line = move
            if number == self._outstanding:
                self._outstanding, self._unrequested = None, 0
                return line, received.at - self._sent
            if 0 < number < self._outstanding:
                self._count_unrequested()
                self.note(f"late reply {codec.Move(number, line).to_text()!r} ignored (§6.2)")
                continue
            raise BotFault("wrong_request", f"MOVE echoes id {number}, the request was {self._outstanding} (§6.3)")

    def _read_other(self, data: bytes) -> tuple[int, int] | None:
        """A reply not written as a plain MOVE: its ``(id, line)``, None for a second HELLO (§3.3: dropped and
        logged) or an INFO (§4.8: kept, or dropped and logged), or the fault it is."""
        try:
            message = codec.parse(data)
        except ProtocolError as exc:
            if is_info(data):  # §4.8: never a fault, whatever follows the word
                self._ignore_note(f"INFO ignored: {exc}")
                return None
            raise BotFault("malformed_message", str(exc)) from None
        if isinstance(message, codec.Info):
            self._keep_note(message)
            return None
        if isinstance(message, codec.Hello):
            self._count_unrequested()
            self.note("a second HELLO on an authenticated connection ignored (§3.3)")
            return None
        if not isinstance(message, codec.Move):
            raise BotFault("malformed_message", f"{message.to_text()[:60]!r} is not a MOVE (§6.4)")
        return message.id, message.line

    def _keep_note(self, info: codec.Info) -> None:
        if info.id != self._outstanding:
            self._count_unrequested()
            self._ignore_note(f"INFO for request {info.id} ignored: the request is {self._outstanding} (§4.8)")
        elif len(self._notes) < codec.INFO_PER_MOVE:
            self._notes.append(info.text)
        else:
            self._notes_dropped += 1

    def _ignore_note(self, why: str) -> None:
        """Log why an INFO was ignored: the first ``INFO_PER_MOVE`` of a move, then only their count (referee lines
        go to the log past its size cap: a bot's stream of bad INFO during its own turn must not fill the disk)."""
        self._notes_ignored += 1
        if self._notes_ignored <= codec.INFO_PER_MOVE:
            self.note(why)

    def _count_unrequested(self) -> None:
        self._unrequested += 1
        if self._unrequested > INBOX_LIMIT:
            self._flooded = True

    def take_notes(self) -> list[str]:
        """The INFO texts of the request just answered (§4.8); the log counts those dropped past the limit."""
        if self._notes_dropped:
            self.note(f"{self._notes_dropped} INFO for request {self._last_id} dropped: at most "
                      f"{codec.INFO_PER_MOVE} per move (§4.8)")
        if self._notes_ignored > codec.INFO_PER_MOVE:
            self.note(f"{self._notes_ignored - codec.INFO_PER_MOVE} more INFO ignored during request {self._last_id}, "
                      "not logged one by one (§4.8)")
        notes, self._notes, self._notes_dropped, self._notes_ignored = self._notes, [], 0, 0
        return notes

    def note(self, text: str) -> None:
        pass

    # ---- stopping ------------------------------------------------------------------------------

    def retire(self, fault: BotFault | None = None, reason: str = "") -> None:
        if fault is not None:
            self.fault = fault
            self.note_fault(fault)
        if self.state is SeatState.CLOSED:
            return
        self.hub.transport.send(self, codec.Bye(f"fault {fault.reason}" if fault else reason).wire)
        self.hub.transport.forget(self)
        self.state = SeatState.CLOSED

    def note_fault(self, fault: BotFault) -> None:
        self.note(f"fault {fault.reason}: {fault.detail}")

    def closed(self) -> None:
        pass
