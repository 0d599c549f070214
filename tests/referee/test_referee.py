"""The referee with real bot processes: results, faults, restarts, authentication, clean shutdown."""

from __future__ import annotations

import logging
import os
import re
import subprocess
import threading
import time
from pathlib import Path

import pytest
import zmq
from helpers import HEXARENA, bot, processes_with, survivors_of_a_killed, wait_until

from hexarena.protocol import codec
from hexarena.protocol.errors import ConfigError
from hexarena.referee.clock import TimeControl
from hexarena.referee.seats.process import BotSpec
from hexarena.referee.manifest import Manifest
from hexarena.referee.launch import BotProcess, Limits
from hexarena.referee.record import FAULTS, BoardConfig

GREEDY, RANDOM = bot("greedy"), bot("random")


def assert_replay_agrees(record) -> None:
    final = record.replay()
    assert final.is_over()
    assert list(final.outcome().scores) == record.result.scores
    assert list(final.outcome().placements) == record.result.placements


def test_greedy_beats_random_on_3x3(make_referee):
    referee = make_referee()
    wins = 0
    for number in range(20):
        seats = [GREEDY, RANDOM] if number % 2 == 0 else [RANDOM, GREEDY]
        record = referee.play(seats, BoardConfig(size="3x3"), game_id=f"g{number}", seed=number)
        assert record.result.termination == "completed"
        assert_replay_agrees(record)
        wins += record.result.placements[seats.index(GREEDY)] == 1 and record.result.placements[
            seats.index(RANDOM)] == 2
    assert wins >= 16


@pytest.mark.parametrize(
    "config",
    [
        BoardConfig(size="3x3", misere=True),
        BoardConfig(size="3x3", border=True),
        BoardConfig(size="3x4", geometry="square"),
        BoardConfig(size="3x3", players=3),
        BoardConfig(size="2x3", geometry="square", players=4, misere=True, border=True),
    ],
    ids=lambda config: config.label,
)
def test_every_table_setup_completes_and_replays(make_referee, config):
    referee = make_referee()
    seats = [GREEDY, RANDOM, GREEDY, RANDOM][: config.players]
    record = referee.play(seats, config, game_id="setup", seed=5)
    assert record.result.termination == "completed" and record.result.offender is None
    assert len(record.moves) == len(config.board().lines) - len(config.board().border) * config.border
    assert sum(record.result.scores) == len(config.board().cells)
    assert record.seats == [spec.name for spec in seats]
    assert_replay_agrees(record)


def test_a_bot_can_play_itself(make_referee):
    record = make_referee().play([GREEDY, GREEDY], BoardConfig(size="2x2"), game_id="self", seed=9)
    assert record.seats == ["greedy", "greedy"] and record.result.termination == "completed"
    assert {move.seat for move in record.moves} == {0, 1}


def test_bots_connect_over_tcp_too(make_referee):
    referee = make_referee(endpoint="tcp://127.0.0.1:*")
    assert referee.endpoint.startswith("tcp://127.0.0.1:")
    record = referee.play([GREEDY, RANDOM], BoardConfig(size="2x2"), game_id="tcp", seed=1)
    assert record.result.termination == "completed"


def test_referees_in_parallel_threads_do_not_interfere(make_referee):
    referees = [make_referee(), make_referee()]
    records = {}

    def play(number: int) -> None:
        for game in range(3):
            records[number, game] = referees[number].play([GREEDY, RANDOM], BoardConfig(size="2x3"),
                                                         game_id=f"t{number}-{game}", seed=game)

    threads = [threading.Thread(target=play, args=(number,)) for number in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert len(records) == 6 and all(r.result.termination == "completed" for r in records.values())
    for game in range(3):  # the same seed gives the same game in either thread
        assert [m.line for m in records[0, game].moves] == [m.line for m in records[1, game].moves]


def test_seeded_games_are_reproducible(make_referee):
    first = make_referee().play([GREEDY, RANDOM], BoardConfig(size="3x3"), game_id="a", seed=42)
    second = make_referee().play([GREEDY, RANDOM], BoardConfig(size="3x3"), game_id="a", seed=42)
    assert [m.line for m in first.moves] == [m.line for m in second.moves]
    assert first.seed == 42


@pytest.mark.slow
@pytest.mark.parametrize("fault", FAULTS)
@pytest.mark.parametrize("seat", [0, 1])
def test_each_fault_loses_and_the_restarted_bot_plays_the_next_game(make_referee, tmp_path, monkeypatch, fault, seat):
    monkeypatch.setenv("BROKEN_MARKER", str(tmp_path / "launched-once"))
    referee = make_referee(time_control=TimeControl.parse("1s,startup=2s"))
    seats = [RANDOM, RANDOM]
    seats[seat] = bot(fault)
    record = referee.play(seats, BoardConfig(size="2x2"), game_id="fault-1", seed=1)
    assert (record.result.termination, record.result.offender) == (fault, seat)
    assert record.result.placements[seat] == 2 and record.result.placements[1 - seat] == 1
    assert [(f.seat, f.reason) for f in record.result.forfeits] == [(seat, fault)]
    assert_replay_agrees(record)
    log = (tmp_path / "logs" / f"fault-1.seat{seat}.{fault}.log").read_text()
    assert f"fault {fault}:" in log
    if fault != "no_connection":  # what it printed while starting is in its first game's log, first of its lines
        # (the referee's mark of its first TURN may come before it: the bot prints once WELCOMEd, as the game starts)
        own = [line for line in log.splitlines() if not line.startswith("--- hexarena: ")]
        assert own[0] == f"broken bot ready to commit {fault}", log
    if fault == "crashed":
        assert "deliberate crash" in record.result.forfeits[0].detail and "deliberate crash" in log
    if fault == "timeout":  # the detail names the limit the bot was sent and the referee's margin
        assert record.result.forfeits[0].detail == "no MOVE within 1000 ms (+50 ms margin)"

    monkeypatch.setenv("BROKEN_MARKER", "launched")  # the restarted bot connects (the sandbox keeps no marker file)
    again = referee.play(seats, BoardConfig(size="2x2"), game_id="normal-2", seed=2)
    assert again.result.termination == "completed" and again.result.forfeits == []
    assert_replay_agrees(again)


def test_a_bot_that_dies_before_hello_costs_no_startup_wait_game_after_game(make_referee, tmp_path):
    dead = tmp_path / "dead"
    dead.mkdir()
    (dead / "bot.toml").write_text('name = "dead"\ncommand = ["python3", "-c", "raise SystemExit(3)"]\n')
    referee = make_referee(time_control=TimeControl.parse("1s,startup=20s"))
    for game in range(3):  # restarted before every game; each restart must see the exit, not wait 20 s
        started = time.perf_counter()
        record = referee.play([BotSpec("dead", dead), RANDOM], BoardConfig(size="2x2"), game_id=f"d{game}", seed=game)
        assert (record.result.termination, record.result.offender) == ("crashed", 0)
        assert time.perf_counter() - started < 5


def test_a_bot_that_floods_the_referee_is_a_malformed_message(make_referee):
    record = make_referee().play([bot("flood"), RANDOM], BoardConfig(size="2x2"), game_id="fault-f", seed=1)
    assert (record.result.termination, record.result.offender) == ("malformed_message", 0)
    assert "more than 100 messages" in record.result.forfeits[0].detail


def test_a_flood_read_as_it_comes_is_counted_all_the_same(make_referee):
    """150 unrequested MOVEs a millisecond apart: the referee reads each as it arrives, never 100 at once."""
    record = make_referee().play([bot("trickle"), RANDOM], BoardConfig(size="2x2"), game_id="fault-t", seed=1)
    assert (record.result.termination, record.result.offender) == ("malformed_message", 0)
    assert "more than 100 messages" in record.result.forfeits[0].detail


def test_a_flood_is_one_fault_and_under_the_substitute_policy_the_bot_plays_on(make_referee):
    record = make_referee(fault_policy="substitute").play([bot("flood"), RANDOM], BoardConfig(size="2x2"),
                                                          game_id="fault-f2", seed=1)
    assert [(f.seat, f.reason) for f in record.result.forfeits] == [(0, "malformed_message")]
    assert sum(1 for m in record.moves if m.seat == 0 and not m.substituted) > 1  # its later replies count


def test_a_fault_in_a_three_player_game_puts_the_offender_last_and_the_others_play_on(make_referee):
    referee = make_referee()
    config = BoardConfig(size="3x3", players=3)
    record = referee.play([GREEDY, bot("illegal_line"), RANDOM], config, game_id="fault-3p", seed=3)
    assert record.result.termination == "completed" and record.result.offender is None
    assert [(f.seat, f.reason) for f in record.result.forfeits] == [(1, "illegal_line")]
    assert record.result.placements[1] == 3
    assert len(record.moves) == len(config.board().lines)  # the others drew every line
    assert all(move.seat != 1 for move in record.moves)
    assert_replay_agrees(record)


def test_substitute_policy_draws_for_the_offender_and_the_game_goes_on(make_referee):
    referee = make_referee(fault_policy="substitute")
    record = referee.play([bot("illegal_line"), GREEDY], BoardConfig(size="2x2"), game_id="fault-sub", seed=4)
    assert record.result.termination == "completed" and record.result.offender is None
    mine = [move for move in record.moves if move.seat == 0]
    assert mine and all(move.substituted for move in mine)
    assert not any(move.substituted for move in record.moves if move.seat == 1)
    assert len(record.result.forfeits) == len(mine)
    assert {f.reason for f in record.result.forfeits} == {"illegal_line"}
    assert_replay_agrees(record)


def test_substitute_policy_plays_on_for_a_crashed_bot(make_referee):
    referee = make_referee(fault_policy="substitute")
    for seed in range(3):  # substituted moves that close cells come in runs: the other bot must see them in order
        record = referee.play([bot("crashed"), GREEDY], BoardConfig(size="3x3"), game_id=f"fault-c{seed}", seed=seed)
        assert [(f.seat, f.reason) for f in record.result.forfeits] == [(0, "crashed")]
        assert record.result.termination == "completed"
        assert all(move.substituted for move in record.moves if move.seat == 0)
        assert_replay_agrees(record)


def test_unauthenticated_peer_is_dropped_and_logged(make_referee, caplog):
    referee = make_referee()
    intruder = zmq.Context.instance().socket(zmq.DEALER)
    intruder.setsockopt(zmq.LINGER, 0)
    intruder.connect(referee.endpoint)
    intruder.send_string("HELLO v1 not-a-token intruder")
    intruder.send_string("MOVE 1 0")
    with caplog.at_level(logging.WARNING, logger="hexarena.referee.transport"):
        record = referee.play([GREEDY, RANDOM], BoardConfig(size="2x2"), game_id="intruded", seed=6)
    intruder.close()
    assert record.result.termination == "completed"
    assert len(referee.transport.dropped) == 2
    assert "unauthenticated" in caplog.text and "not-a-token" in caplog.text


def test_no_bot_process_or_child_outlives_the_match(make_referee, tmp_path, monkeypatch):
    marker = str(tmp_path / "pids")
    monkeypatch.setenv("BROKEN_PIDS", marker)
    referee = make_referee()
    for number in range(2):
        record = referee.play([bot("spawner"), RANDOM], BoardConfig(size="2x2"), game_id=f"s{number}", seed=number)
        assert record.result.termination == "completed"
    pids = processes_with("BROKEN_PIDS", marker)
    assert len(pids) >= 4  # the bot and its three children really were running during the match
    referee.close()
    assert processes_with("BROKEN_PIDS", marker) == []


def test_bots_die_with_a_referee_that_was_killed(tmp_path):
    marker = str(tmp_path / "pid")
    env = {**os.environ, "BROKEN_PIDS": marker, "HEXARENA_HOME": str(tmp_path / "home")}
    match = subprocess.Popen(
        [*HEXARENA, "match", str(bot("timeout").folder), str(RANDOM.folder), "--size", "6x6", "--games", "500"],
        env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )
    # the bot itself, not only its sandbox, seen twice (it faults each game and is restarted): the referee is killed
    # while its bots play, not in bubblewrap's own launch window (docs/security.md, "Stopping")
    seen: list[set[int]] = [set()]

    def playing() -> bool:
        now = set(processes_with("BROKEN_PIDS", marker, "broken.py"))
        steady, seen[0] = now & seen[0], now
        return bool(steady) and match.poll() is None

    wait_until(playing, 30)
    assert seen[0] and match.poll() is None  # the match is under way
    assert survivors_of_a_killed(match, "BROKEN_PIDS", marker) == []


@pytest.mark.slow
def test_a_faulted_bot_is_stopped_by_the_end_of_its_game(make_referee, tmp_path, monkeypatch):
    marker = str(tmp_path / "pid")
    monkeypatch.setenv("BROKEN_PIDS", marker)
    referee = make_referee()
    record = referee.play([bot("timeout"), RANDOM], BoardConfig(size="2x2"), game_id="fault-t", seed=1)
    assert record.result.termination == "timeout"
    assert processes_with("BROKEN_PIDS", marker, "broken.py") == []


@pytest.mark.parametrize("text, expected, shown", [
    ("300ms", TimeControl(move=0.3), "300ms"),
    ("2s", TimeControl(move=2.0), "2s"),
    ("10s+100ms", TimeControl(move=None, bank=10.0, increment=0.1), "10s+100ms"),
    ("2s+50ms/move", TimeControl(move=None, bank=2.0, increment=0.05), "2s+50ms"),
    ("1.5s,startup=5s,margin=20ms", TimeControl(move=1.5, startup=5.0, margin=0.02), "1500ms"),
])
def test_time_controls_read_and_print(text, expected, shown):
    control = TimeControl.parse(text)
    assert control == expected and str(control) == shown
    assert eval(repr(control)) == control


@pytest.mark.parametrize("text", ["", "fast", "300", "10s+", "-1s", "1s,startup", "1s,bank=3s", "0ms"])
def test_bad_time_controls_are_config_errors(text):
    with pytest.raises(ConfigError, match="time|positive"):
        TimeControl.parse(text)


def test_a_bank_shrinks_by_thinking_time_and_grows_by_the_increment(make_referee):
    turns = []

    def hook(direction, owner, data):
        if data.startswith(b"TURN") and owner.label == "greedy":
            turns.append(codec.parse(data))

    referee = make_referee(time_control=TimeControl.parse("2s+10ms,startup=10s"), hook=hook)
    record = referee.play([GREEDY, RANDOM], BoardConfig(size="2x2"), game_id="bank", seed=8)
    assert record.time_control == TimeControl.parse("2s+10ms,startup=10s") and record.result.termination == "completed"
    assert turns[0].left_ms == turns[0].limit_ms == 2000
    assert all(turn.left_ms == turn.limit_ms for turn in turns)
    mine = [move for move in record.moves if move.seat == 0]
    # each move costs its thinking time and earns 10 ms; greedy thinks well under 10 ms a move
    assert turns[-1].left_ms > 2000 + 10 * (len(turns) - 1) - sum(m.ms for m in mine[:-1]) - 5
    assert turns[-1].left_ms > 2000


def test_bot_output_goes_to_a_capped_log_and_limits_apply(tmp_path):
    command = ["python3", "-c", "import sys; sys.stderr.write('x' * 50000 + '\\nlast words\\n')"]
    process = BotProcess.start(tmp_path, Manifest(name="chatty", command=command), {}, Limits(log_bytes=1000))
    log = tmp_path / "game.log"
    process.open_log(log)
    process.popen.wait(10)
    process.close_log()
    process.kill_all()
    process.close()
    text = log.read_text()
    assert text.startswith("x" * 1000) and "49012 more bytes of output not kept" in text
    assert process.stderr_tail.decode().endswith("last words\n")


def test_limits_apply_from_the_bots_first_instruction(tmp_path):
    command = ["python3", "-c", "import sys; sys.stderr.write(open('/proc/self/limits').read())"]
    process = BotProcess.start(tmp_path, Manifest(name="limited", command=command), {}, Limits())
    process.popen.wait(10)
    process.drain()
    process.kill_all()
    process.close()
    limits = process.stderr_tail.decode()
    assert re.search(r"Max address space\s+4294967296", limits) and re.search(r"Max core file size\s+0 ", limits)
    nproc = 32 + (process.cgroup is not None and process.cgroup.counts_processes)  # pids.max refuses first
    assert re.search(r"Max open files\s+64 ", limits) and re.search(rf"Max processes\s+{nproc} ", limits)


def test_bots_inherit_only_the_allowlisted_environment(make_referee, monkeypatch):
    """A secret in the referee's environment does not reach a bot; PATH, the seat's token and
    variables named in HEXARENA_PASS_ENV do."""
    monkeypatch.setenv("CLOUD_SECRET_KEY", "do-not-leak")
    monkeypatch.setenv("FOR_MY_BOT", "yes")
    monkeypatch.setenv("HEXARENA_PASS_ENV", "FOR_MY_BOT")
    referee = make_referee()
    record = referee.play([GREEDY, RANDOM], BoardConfig(size="1x2"), game_id="env", seed=1)
    assert record.result.termination == "completed"
    for seated in referee.seats:  # kept running for the next game
        environ = (Path("/proc") / str(seated.process.pid) / "environ").read_bytes().split(b"\0")
        names = {entry.split(b"=", 1)[0].decode() for entry in environ if entry}
        assert "CLOUD_SECRET_KEY" not in names
        assert {"PATH", "HEXARENA_TOKEN", "HEXARENA_ENDPOINT", "FOR_MY_BOT"} <= names


def test_a_manifest_broken_after_submission_loses_the_game_not_the_referee(make_referee, tmp_path):
    folder = tmp_path / "spoilt"
    folder.mkdir()
    (folder / "bot.toml").write_text('name = "spoilt"\ncommand = []\n')
    referee = make_referee()
    record = referee.play([BotSpec("spoilt", folder), RANDOM], BoardConfig(size="1x2"), game_id="spoilt", seed=1)
    assert (record.result.termination, record.result.offender) == ("no_connection", 0)
    assert referee.play([GREEDY, RANDOM], BoardConfig(size="1x2"), game_id="next", seed=1).result.termination \
        == "completed"


def test_a_build_runs_once_for_every_referee_of_the_process(make_referee, tmp_path):
    folder = tmp_path / "built"
    folder.mkdir()
    (folder / "count.sh").write_text("echo x >> builds.txt\n")
    (folder / "bot.toml").write_text('name = "built"\ncommand = ["python3", "bot.py"]\nbuild = ["sh", "count.sh"]\n')
    (folder / "bot.py").write_text((RANDOM.folder / "bot.py").read_text())
    for n in range(2):  # two referees, as the league's worker threads have
        record = make_referee().play([BotSpec("built", folder), RANDOM], BoardConfig(size="1x2"), game_id=f"b{n}", seed=1)
        assert record.result.termination == "completed"
    assert (folder / "builds.txt").read_text() == "x\n"


def test_an_unwritable_log_drops_the_output_and_the_game_goes_on(tmp_path):
    (tmp_path / "a-file").write_text("")
    command = ["python3", "-c", "import sys; sys.stderr.write('x' * 100)"]
    process = BotProcess.start(tmp_path, Manifest(name="chatty", command=command), {}, Limits())
    process.open_log(tmp_path / "a-file" / "game.log")  # its folder is a file: the log cannot be created
    process.popen.wait(10)
    process.drain()
    process.note("a referee line")
    process.close_log()
    process.kill_all()
    process.close()
    assert (tmp_path / "a-file").read_text() == ""


def test_the_transport_reads_one_frame_and_multi_frame_messages_whole():
    """§1.2: a message is one frame; a multi-frame one reaches its seat as ``data=None`` (a fault), in order."""
    from hexarena.referee.transport import Transport

    transport = Transport()
    dealer = transport.context.socket(zmq.DEALER)
    dealer.setsockopt(zmq.LINGER, 0)
    try:
        transport.admit("tok", "seat")
        dealer.connect(transport.endpoint)
        dealer.send(b"HELLO v1 tok")
        dealer.send_multipart([b"MOVE 1", b"2", b"3"])
        dealer.send(b"MOVE 1 2")
        received = []
        end = time.perf_counter() + 5
        while len(received) < 3 and time.perf_counter() < end:
            received += transport.poll(100)[0]
        assert [(r.owner, r.data) for r in received] == [("seat", b"HELLO v1 tok"), ("seat", None),
                                                         ("seat", b"MOVE 1 2")]
    finally:
        dealer.close()
        transport.close()


@pytest.mark.slow
@pytest.mark.parametrize("flushes", [False, True])
def test_a_stdio_bot_that_never_flushes_its_hello_is_told_to_flush(make_referee, tmp_path, flushes):
    """The commonest beginner's mistake: HELLO printed, never flushed (a pipe is block-buffered), so the referee
    reads nothing. The fault says so; a bot that flushes and then falls silent is not given that hint."""
    folder = tmp_path / "quiet"
    folder.mkdir()
    (folder / "bot.py").write_text("import os, sys, time\n"
                                   "print('HELLO v1 ' + os.environ['HEXARENA_TOKEN'] + ' quiet', flush=%s)\n"
                                   "sys.stdin.readline()\nsys.stdin.readline()\ntime.sleep(60)\n" % flushes)
    (folder / "bot.toml").write_text('name = "quiet"\ncommand = ["python3", "bot.py"]\ntransport = "stdio"\n')
    referee = make_referee(time_control=TimeControl.parse("300ms,startup=3s"))
    record = referee.play([BotSpec("quiet", folder), bot("random")], BoardConfig(size="2x2"), game_id="q", seed=1)
    fault = record.result.forfeits[0]
    hint = "nothing was read from its stdout: does it flush after each line?"
    if flushes:
        assert (fault.reason, hint in fault.detail) == ("timeout", False), fault
    else:
        assert fault.reason == "no_connection" and hint in fault.detail, fault
