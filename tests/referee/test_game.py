"""The one game loop (referee/game.py) driven by scripted and in-process seats: milliseconds, no processes.

Then the two fixes found by a new user, with real bot processes: a second HELLO is dropped and
logged (PROTOCOL §3.3), and what a bot writes in answer to END lands in that game's log.
"""

from __future__ import annotations

from helpers import bot

from hexarena.protocol import codec
from hexarena.protocol.errors import BotFault
from hexarena.referee.clock import TimeControl
from hexarena.referee.record import BoardConfig, GameRecord
from hexarena.referee.referee import Referee
from hexarena.referee.seats.base import Seat, SeatState
from hexarena.referee.seats.inprocess import InProcessSpec, ScriptedSpec

CONTROL = TimeControl.parse("1s,startup=1s,margin=20ms")
TWO = BoardConfig(size="1x2")  # 11 lines, 2 cells


def referee(**kwargs) -> Referee:
    return Referee(time_control=CONTROL, **kwargs)


def lowest(game, state) -> int:
    return state.legal_moves()[0]


def test_every_seat_kind_implements_the_declared_interface():
    from hexarena.referee.hub import Hub
    from hexarena.referee.seats.process import BotSpec
    from hexarena.referee.settings import RefereeSettings

    hub = Hub()
    try:
        settings = RefereeSettings()
        seats = [BotSpec("greedy", bot("greedy").folder).make(hub, "greedy", settings),
                 BotSpec("alice", None, remote=True).make(hub, "alice", settings),
                 InProcessSpec("f", lowest).make(hub, "f", settings), ScriptedSpec("s").make(hub, "s", settings)]
        assert all(isinstance(seat, Seat) and seat.state is SeatState.NEW for seat in seats)
        assert [type(seat).__name__ for seat in seats] == ["ProcessSeat", "RemoteSeat", "InProcessSeat", "ScriptedSeat"]
    finally:
        hub.close()


def test_a_scripted_game_is_announced_to_every_seat_in_order_and_recorded():
    a, b = ScriptedSpec("a", [0, 1]), ScriptedSpec("b", [2])
    with referee() as ref:
        record = ref.play([a, b], TWO, game_id="g", seed=5)
    assert record.result.termination == "completed" and record.result.forfeits == []
    assert [move.line for move in record.moves][:3] == [0, 2, 1]
    assert [move.seat for move in record.moves][:3] == [0, 1, 0]
    seen_a, seen_b = a.seats[0].received, b.seats[0].received
    assert isinstance(seen_a[0], codec.Game) and seen_a[0].seat == 0 and seen_b[0].seat == 1
    assert seen_a[1] == codec.Turn(1, 1000, 1000)
    # every seat hears every move, in the order played; each gets END last
    drawn = [codec.Drawn(m.seat, m.line, tuple(m.closed)) for m in record.moves]
    assert [m for m in seen_a if isinstance(m, codec.Drawn)] == drawn == [m for m in seen_b if isinstance(m, codec.Drawn)]
    assert isinstance(seen_a[-1], codec.End) and seen_a[-1].scores == tuple(record.result.scores)
    assert record.replay().is_over()


def test_a_two_player_fault_ends_the_game_against_the_offender():
    faulty = ScriptedSpec("faulty", [0, BotFault("illegal_line", "line 99 is out of range")])
    with referee() as ref:
        record = ref.play([faulty, ScriptedSpec("steady")], TWO, game_id="g", seed=1)
    result = record.result
    assert (result.termination, result.offender, result.placements) == ("illegal_line", 0, [2, 1])
    assert [(f.seat, f.reason, f.move) for f in result.forfeits] == [(0, "illegal_line", 2)]
    assert len(record.moves) == 2


def test_an_illegal_line_from_a_chooser_is_worded_by_the_rules_engine():
    with referee() as ref:
        record = ref.play([InProcessSpec("drawn-again", lambda game, state: 0), ScriptedSpec("b")], TWO,
                          game_id="g", seed=1)
    fault = record.result.forfeits[0]
    assert (fault.seat, fault.reason, fault.move) == (0, "illegal_line", 2)
    assert "already drawn" in fault.detail


def test_a_three_player_fault_puts_the_offender_out_and_the_others_play_on():
    three = BoardConfig(size="2x2", players=3)
    specs = [ScriptedSpec("a"), ScriptedSpec("b", [BotFault("timeout", "no MOVE")]), ScriptedSpec("c")]
    with referee() as ref:
        record = ref.play(specs, three, game_id="g", seed=1)
    result = record.result
    assert result.termination == "completed" and result.offender is None
    assert result.placements[1] == 3 and sorted(result.placements[::2]) in ([1, 2], [1, 1])
    assert all(move.seat != 1 for move in record.moves)
    assert codec.Forfeit(1, "timeout") in specs[0].seats[0].received


def test_substitute_policy_draws_for_the_offender_who_plays_on():
    specs = [ScriptedSpec("a", [BotFault("malformed_message", "junk")]), ScriptedSpec("b")]
    with referee(fault_policy="substitute") as ref:
        record = ref.play(specs, TWO, game_id="g", seed=3)
    assert record.result.termination == "completed"
    assert [(m.seat, m.substituted) for m in record.moves][:2] == [(0, True), (1, False)]
    assert record.result.forfeits[0].substituted and any(m.seat == 0 and not m.substituted for m in record.moves)


def test_a_seat_that_cannot_start_loses_with_no_connection_and_a_fresh_one_plays_the_next_game():
    broken = ScriptedSpec("broken", start_fault=BotFault("no_connection", "no HELLO"))
    with referee() as ref:
        first = ref.play([broken, ScriptedSpec("b")], TWO, game_id="g1", seed=1)
        assert (first.result.termination, first.result.offender, first.moves) == ("no_connection", 0, [])
        second = ref.play([ScriptedSpec("ok"), ScriptedSpec("b")], TWO, game_id="g2", seed=1)
    assert second.result.termination == "completed"


def test_a_chooser_that_raises_is_a_crash_and_one_that_overruns_is_a_timeout():
    def boom(game, state):
        raise ZeroDivisionError("in search")

    def slow(game, state):
        import time

        time.sleep(1.1)  # always past CONTROL's 1.02 s: a sleep never ends early
        return state.legal_moves()[0]

    # CONTROL, not a clock of tens of ms: the scripted seat's honest move is timed too, and this process can stall
    # (a collection, a loaded machine) for longer than that
    with Referee(time_control=CONTROL) as ref:
        crashed = ref.play([InProcessSpec("boom", boom), ScriptedSpec("b")], TWO, game_id="c", seed=1)
        late = ref.play([ScriptedSpec("a"), InProcessSpec("slow", slow)], TWO, game_id="t", seed=1)
    assert (crashed.result.termination, crashed.result.forfeits[0].detail) == ("crashed", "ZeroDivisionError: in search")
    assert (late.result.termination, late.result.offender) == ("timeout", 1)


def test_a_prelude_is_announced_before_the_first_turn_and_not_recorded():
    spec = ScriptedSpec("a")
    with referee() as ref:
        record = ref.play([spec, ScriptedSpec("b")], TWO, game_id="g", seed=1, prelude=[3, 4])
    received = spec.seats[0].received
    assert received[1:3] == [codec.Drawn(0, 3, ()), codec.Drawn(1, 4, ())]
    assert all(move.line not in (3, 4) for move in record.moves)


def test_the_record_keeps_the_whole_time_control_and_reads_old_records():
    control = TimeControl.parse("10s+100ms,startup=5s,margin=20ms")
    with Referee(time_control=control) as ref:
        record = ref.play([ScriptedSpec("a"), ScriptedSpec("b")], TWO, game_id="g", seed=1)
    stored = record.model_dump_json()
    assert '"time_control":"10s+100ms,startup=5s,margin=20ms"' in stored
    assert GameRecord.model_validate_json(stored).time_control == control
    old = stored.replace("10s+100ms,startup=5s,margin=20ms", "300ms")  # a record of release 957ae21
    assert GameRecord.model_validate_json(old).time_control == TimeControl.parse("300ms")


# ---- fixes on the way, with real processes ----------------------------------------------------------

def test_a_second_hello_is_dropped_and_logged_not_a_fault(make_referee, tmp_path):
    record = make_referee().play([bot("second_hello"), bot("random")], BoardConfig(size="2x2"), game_id="fault-1",
                                 seed=1)
    assert record.result.termination == "completed" and record.result.forfeits == []
    log = (tmp_path / "logs" / "fault-1.seat0.second_hello.log").read_text()
    assert "a second HELLO on an authenticated connection ignored (§3.3)" in log


def test_a_game_in_which_a_bot_wrote_nothing_leaves_it_no_log(make_referee, tmp_path):
    """TURN marks alone make no log (random writes nothing); a bot that writes gets its log, marks included."""
    referee = make_referee()
    record = referee.play([bot("chatty_end"), bot("random")], BoardConfig(size="1x2"), game_id="quiet", seed=1)
    referee.close()
    logs = tmp_path / "logs"
    assert sorted(path.name for path in logs.iterdir()) == ["quiet.seat0.chatty_end.log"]
    text = (logs / "quiet.seat0.chatty_end.log").read_text()
    marks = [line for line in text.splitlines() if line.startswith("--- hexarena: move ")]
    assert len(marks) == sum(1 for move in record.moves if move.seat == 0) and marks[0].startswith(
        "--- hexarena: move 1, TURN ")
    assert text.rstrip().endswith("chatty_end: quiet ended completed")  # its answer to END, after its marks


def test_what_a_bot_writes_after_end_lands_in_that_games_log(make_referee, tmp_path):
    referee = make_referee()
    for number in (1, 2):
        referee.play([bot("chatty_end"), bot("random")], BoardConfig(size="1x2"), game_id=f"g{number}", seed=number)
    referee.close()  # the last game's line is kept too
    logs = tmp_path / "logs"
    first, second = (logs / "g1.seat0.chatty_end.log").read_text(), (logs / "g2.seat0.chatty_end.log").read_text()
    assert "chatty_end: g1 ended completed" in first and "g2" not in first
    assert "chatty_end: g2 ended completed" in second and "g1 ended" not in second
