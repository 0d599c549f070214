"""The one ``Deadline`` (referee/clock.py): the startup wait's and every move's, on a clock the tests move.

A move's deadline comes from the mover's clock (limit plus margin plus grace) and the ZeroMQ seat
waits on it: its polls are rounded up so the wait never ends before the deadline, and its timeout
faults keep their words.
"""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from hexarena.protocol.errors import BotFault
from hexarena.referee import clock as clock_module
from hexarena.referee.clock import Deadline, TimeControl
from hexarena.referee.seats import zmq as zmq_module
from hexarena.referee.seats.base import SeatState
from hexarena.referee.seats.zmq import ZmqSeat
from hexarena.referee.transport import Received


class FakeTime:
    """``time.perf_counter`` that moves only when told."""

    def __init__(self, now: float = 100.0) -> None:
        self.now = now

    def perf_counter(self) -> float:
        return self.now


@pytest.fixture
def fake_time(monkeypatch) -> FakeTime:
    fake = FakeTime()
    monkeypatch.setattr(clock_module, "time", fake)
    monkeypatch.setattr(zmq_module, "time", fake)  # the seat's stamp of when its TURN left
    return fake


def test_no_deadline_never_passes_and_waits_without_limit():
    deadline = Deadline(None)
    assert deadline.remaining_ms() is None and not deadline.passed()


@pytest.mark.parametrize(("left", "expected"), [
    (0.5, 501),  # exact milliseconds: one more
    (0.0004, 1),  # under a millisecond left: still a wait of one, not of none
    (0.0015, 2),  # between whole milliseconds: up
    (1e-9, 1),
])
def test_remaining_ms_is_rounded_up_so_a_wait_never_ends_early(fake_time, left, expected):
    deadline = Deadline(fake_time.now + left)
    assert deadline.remaining_ms() == expected
    assert deadline.remaining_ms() >= left * 1000
    assert not deadline.passed()


@pytest.mark.parametrize("past", [0.0, 1e-9, 0.0005, 0.002, 10.0])
def test_a_deadline_at_or_past_now_has_passed_and_nothing_remains(fake_time, past):
    deadline = Deadline(fake_time.now - past)
    assert deadline.passed() and deadline.remaining_ms() == 0


def test_after_counts_from_now_and_expires(fake_time):
    deadline = Deadline.after(0.25)
    assert (deadline.at, deadline.seconds) == (100.25, 0.25)
    fake_time.now += 0.2
    assert not deadline.passed() and 50 <= deadline.remaining_ms() <= 51
    fake_time.now += 0.05
    assert deadline.passed() and deadline.remaining_ms() == 0


def test_a_moves_deadline_is_the_limit_plus_margin_plus_grace_from_when_the_turn_left():
    clock = TimeControl.parse("1s,margin=50ms").clock()
    deadline = clock.deadline(100.0)
    assert deadline.at == pytest.approx(101.05) and deadline.seconds == clock.allowance()
    assert (deadline.limit_ms, deadline.margin_ms) == (1000, 50)
    graced = clock.deadline(100.0, 0.2)  # the check waits longer than the clock allows
    assert graced.seconds == clock.allowance() + 0.2 and graced.margin_ms == 250


def test_a_bank_moves_deadline_follows_what_is_left():
    clock = TimeControl.parse("10s+500ms,margin=20ms").clock()
    clock.spend(3.5)
    assert clock.request() == (7000, 7000)
    deadline = clock.deadline(100.0)
    assert deadline.limit_ms == 7000 and deadline.margin_ms == 20
    assert deadline.at == pytest.approx(100 + 7.0 + 0.02)


class FakeHub:
    """A hub whose polls pass the time they were given, or less when the next of ``replies`` (seconds after the
    poll began, data) comes sooner: the poller sees it then."""

    def __init__(self, fake_time: FakeTime, seat: ZmqSeat) -> None:
        self.time, self.seat = fake_time, seat
        self.replies: list[tuple[float, bytes]] = []
        self.timeouts: list[int | None] = []
        self.transport = SimpleNamespace(send=lambda seat, data: None)

    def poll(self, timeout_ms: int | None) -> None:
        self.timeouts.append(timeout_ms)
        if self.replies and self.replies[0][0] <= timeout_ms / 1000:
            after, data = self.replies.pop(0)
            self.time.now += after
            self.seat.receive(Received(self.seat, data, self.time.now))
        else:
            self.time.now += timeout_ms / 1000


def requested(seat: ZmqSeat, fake_time: FakeTime) -> None:
    assert seat.request(300, 300) == fake_time.now  # when the TURN left


def waiting_seat(fake_time: FakeTime) -> tuple[ZmqSeat, FakeHub]:
    seat = ZmqSeat("bot", "bot", None)
    seat.hub = FakeHub(fake_time, seat)
    seat.state = SeatState.READY
    requested(seat, fake_time)
    return seat, seat.hub


def test_a_zmq_seat_waits_until_the_deadline_then_words_the_timeout(fake_time):
    seat, hub = waiting_seat(fake_time)
    start = fake_time.now
    deadline = TimeControl.parse("300ms,margin=50ms").clock().deadline(start)
    with pytest.raises(BotFault) as fault:
        seat.await_move(deadline)
    assert (fault.value.reason, fault.value.detail) == ("timeout", "no MOVE within 300 ms (+50 ms margin)")
    # one poll, as long as the whole span at least (rounded up): when it ended, the deadline had passed
    assert len(hub.timeouts) == 1 and hub.timeouts[0] >= (deadline.at - start) * 1000 and deadline.passed()


def test_a_zmq_seat_takes_a_move_by_the_deadline_and_words_a_late_one(fake_time):
    seat, hub = waiting_seat(fake_time)
    hub.replies = [(0.2, b"MOVE 1 4")]
    line, seconds = seat.await_move(Deadline.after(0.5))
    assert line == 4 and seconds == pytest.approx(0.2) and hub.timeouts == [501]

    requested(seat, fake_time)
    hub.replies = [(0.5, b"MOVE 2 5")]  # seen exactly at the deadline: in time
    assert seat.await_move(Deadline.after(0.5)) == (5, 0.5)

    requested(seat, fake_time)
    hub.timeouts, hub.replies = [], [(0.0009, b"MOVE 3 6")]  # within the poll's rounded-up millisecond
    with pytest.raises(BotFault) as fault:
        seat.await_move(Deadline.after(0.0003))
    assert hub.timeouts == [1]
    assert (fault.value.reason, fault.value.detail) == ("timeout", "MOVE came 1 ms after the deadline")
