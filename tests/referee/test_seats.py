"""Seats of bots in any language: the C bot, the stdio bridge (Node.js bot), remote seats over tcp+CURVE.
`hexarena check`: test_check.py."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
import zmq
from helpers import needs_c, needs_node

from hexarena.protocol import codec
from hexarena.referee.clock import TimeControl
from hexarena.referee.record import BoardConfig
from hexarena.referee.referee import Referee
from hexarena.referee.seats.process import BotSpec

ROOT = Path(__file__).resolve().parents[2]
BOTS = ROOT / "bots"
BROKEN = Path(__file__).resolve().parents[1] / "bots_broken"
HEXARENA = [sys.executable, "-c", "from hexarena.cli import main; main()"]
QUICK = TimeControl.parse("300ms,startup=5s")  # roomy enough for a loaded CI machine



def spec(folder: Path) -> BotSpec:
    return BotSpec(folder.name, folder)


@pytest.fixture
def referee(tmp_path):
    with Referee(log_dir=tmp_path / "logs", time_control=QUICK, stop_grace=0.3) as referee:
        yield referee


def play_rotating(referee: Referee, bots: list[BotSpec], config: BoardConfig, games: int) -> list:
    records = []
    for number in range(games):
        seats = bots[number % len(bots):] + bots[:number % len(bots)]
        records.append(referee.play(seats, config, game_id=f"g{number}", seed=number))
    return records


def assert_completed_and_consistent(records: list) -> None:
    for record in records:
        assert record.result.termination == "completed", record.result
        final = record.replay()
        assert final.is_over()
        assert list(final.outcome().scores) == record.result.scores


# ---- the C bot and the stdio bot play real games --------------------------------------------------

@needs_c
def test_cbot_plays_full_games_against_the_python_bots_and_beats_greedy(referee):
    cbot, greedy, random_bot = spec(BOTS / "cbot"), spec(BOTS / "greedy"), spec(BOTS / "random")
    records = play_rotating(referee, [cbot, greedy], BoardConfig(size="3x3"), 16)
    records += play_rotating(referee, [cbot, random_bot], BoardConfig(size="3x3", geometry="square"), 2)
    records += play_rotating(referee, [cbot, greedy, random_bot], BoardConfig(size="2x3", players=3, border=True), 3)
    assert_completed_and_consistent(records)
    wins = sum(1 for r in records[:16] if r.result.placements[r.seats.index("cbot")] == 1
               and r.result.placements.count(1) == 1)
    losses = sum(1 for r in records[:16] if r.result.placements[r.seats.index("cbot")] != 1)
    assert wins > losses  # at least as strong as greedy


@needs_node
def test_the_node_bot_plays_full_games_through_the_stdio_bridge(referee):
    records = play_rotating(referee, [spec(BOTS / "nodebot"), spec(BOTS / "greedy")], BoardConfig(size="3x3"), 4)
    records += play_rotating(referee, [spec(BOTS / "nodebot"), spec(BOTS / "random")],
                             BoardConfig(size="2x2", misere=True), 2)
    assert_completed_and_consistent(records)
    assert all(any(m.seat == r.seats.index("nodebot") for m in r.moves) for r in records)


@pytest.mark.slow
@pytest.mark.parametrize("fault, folder", [("timeout", "hang"), ("crashed", "die")])
def test_a_bridged_bot_that_hangs_or_dies_gets_the_same_termination_as_a_native_one(referee, fault, folder):
    results = []
    for bot in (BROKEN / folder, BROKEN / f"{folder}_stdio"):
        record = referee.play([spec(bot), spec(BOTS / "random")], BoardConfig(size="2x2"), game_id=bot.name, seed=1)
        results.append((record.result.termination, record.result.offender, len(record.moves)))
    assert results[0] == results[1] == (fault, 0, 0)
    # and the next game runs normally with a fresh bridged bot and the same opponent
    record = referee.play([spec(BOTS / "greedy"), spec(BOTS / "random")], BoardConfig(size="2x2"), game_id="after")
    assert record.result.termination == "completed"


# ---- remote seats over tcp with CURVE -------------------------------------------------------------

def hello_over_curve(credentials, public: str, secret: str, timeout_ms: int) -> str | None:
    """Connect with the given client key pair and say HELLO; the reply's text, or None if none came."""
    context = zmq.Context()
    socket = context.socket(zmq.DEALER)
    socket.linger = 0
    socket.curve_serverkey = credentials.server_key.encode()
    socket.curve_publickey, socket.curve_secretkey = public.encode(), secret.encode()
    socket.connect(credentials.endpoint)
    socket.send_string(codec.Hello("v1", credentials.token, "intruder").to_text())
    reply = socket.recv_string() if socket.poll(timeout_ms) else None
    socket.close()
    context.term()
    return reply


def test_a_remote_bot_joins_over_tcp_with_curve_and_a_client_with_another_key_is_refused(tmp_path):
    started, refusals = [], []

    def announce(credentials):
        assert credentials.endpoint.startswith("tcp://127.0.0.1:")
        wrong_public, wrong_secret = (key.decode() for key in zmq.curve_keypair())
        refusals.append(hello_over_curve(credentials, wrong_public, wrong_secret, 300))
        env = {**os.environ, **credentials.env(), "PYTHONPATH": str(ROOT)}
        started.append(subprocess.Popen([sys.executable, str(BOTS / "greedy" / "bot.py")], env=env))

    with Referee(time_control=QUICK, announce=announce, stop_grace=0.3) as referee:
        remote = BotSpec("visitor", None, remote=True)
        records = [referee.play([remote, spec(BOTS / "random")], BoardConfig(size="3x3"), game_id="r1", seed=3),
                   referee.play([spec(BOTS / "random"), remote], BoardConfig(size="3x3"), game_id="r2", seed=4)]
        refused = list(referee.hub.gate().refused)
    assert_completed_and_consistent(records)
    assert len(started) == 1  # one remote bot played both games on its connection
    assert started[0].wait(timeout=5) == 0
    assert refusals == [None]  # the wrong key never reached the referee: no WELCOME
    assert len(refused) == 1 and refused[0].startswith("refused CURVE client key")


def test_a_remote_seat_whose_bot_never_joins_is_no_connection(monkeypatch):
    from hexarena.referee import referee as referee_module
    from hexarena.referee.launch import BotProcess

    stopped: list[object] = []  # what the referee waits for when it stops bots: processes of its own only
    stop_all = referee_module.stop_all
    monkeypatch.setattr(referee_module, "stop_all", lambda processes, **kw: (stopped.extend(processes),
                                                                              stop_all(processes, **kw)))
    with Referee(time_control=TimeControl.parse("100ms,startup=20s")) as referee:  # random starts, even under load
        record = referee.play([BotSpec("absent", None, remote=True, startup=0.3), spec(BOTS / "random")],
                              BoardConfig(size="2x2"), game_id="r", seed=1)
    assert (record.result.termination, record.result.offender) == ("no_connection", 0)
    # no waiting for a process that is not ours (it waited 2 x 0.2 s for the absent remote's stand-in): asserted
    # by what is waited for, not by the clock, which a loaded machine stretches
    assert stopped and all(isinstance(process, BotProcess) for process in stopped), stopped


@needs_c
def test_hexarena_match_with_a_remote_seat_prints_credentials_and_the_c_bot_joins_with_them(tmp_path):
    subprocess.run(["make", "-s"], cwd=BOTS / "cbot", check=True)
    match = subprocess.Popen(
        [*HEXARENA, "match", "remote:alice", str(BOTS / "random"), "--size", "3x3",
         "--games", "2", "--time", "200ms", "--remote-wait", "20s", "--seed", "5"],
        cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert "remote seat 'alice' waits for its bot" in match.stderr.readline()
        assignments = match.stderr.readline().split()[:-3]  # drop "<your bot's command>"
        env = dict(os.environ)
        for assignment in assignments:
            key, _, value = assignment.partition("=")
            env[key] = value.strip("'")
        assert {"HEXARENA_SERVER_KEY", "HEXARENA_PUBLIC_KEY", "HEXARENA_SECRET_KEY"} <= set(env)
        joined = subprocess.run([str(BOTS / "cbot" / "cbot")], env=env, check=False, timeout=30)
        out, _ = match.communicate(timeout=30)
    finally:
        match.kill()
    assert joined.returncode == 0
    assert match.returncode == 0
    assert out.count("alice") >= 3 and "no_connection" not in out
    summary = out.strip().splitlines()[-3]  # the per-bot rows, then the Elo difference line
    assert summary.split()[:2] == ["alice", "2"]


def test_remote_seat_names_are_checked():
    done = subprocess.run([*HEXARENA, "match", "remote:Not OK", str(BOTS / "random")],
                          capture_output=True, text=True, cwd=ROOT, check=False, timeout=30)
    assert done.returncode == 2
    assert done.stderr.startswith("hexarena: error: 'remote:Not OK': a remote seat is remote:NAME")


# ---- remote seats that never join (issue 14, item 4) ---------------------------------------------

def test_a_remote_seat_that_never_joined_is_not_waited_for_again_and_its_own_wait_is_honoured():
    import time

    from hexarena.referee.clock import TimeControl
    from hexarena.referee.record import BoardConfig
    from hexarena.referee.referee import Referee
    from hexarena.referee.seats.process import BotSpec

    absent = BotSpec("absent", None, remote=True, startup=0.3)  # shorter than the bots' 10 s startup allowance
    random_bot = BotSpec("random", ROOT / "bots" / "random")
    announced = []
    with Referee(time_control=TimeControl.parse("1s,startup=10s"), announce=announced.append) as referee:
        began = time.perf_counter()
        first = referee.play([absent, random_bot], BoardConfig(size="1x2"), game_id="r1", seed=1)
        waited = time.perf_counter() - began
        began = time.perf_counter()
        second = referee.play([random_bot, absent], BoardConfig(size="1x2"), game_id="r2", seed=2)
        again = time.perf_counter() - began
    assert (first.result.termination, first.result.offender) == ("no_connection", 0)
    assert "no HELLO within the startup allowance of 0.3 s" in first.result.forfeits[0].detail
    assert 0.25 < waited < 5  # its own 0.3 s, not the 10 s of the time control
    assert (second.result.termination, second.result.offender) == ("no_connection", 1)
    assert "did not join in an earlier game: not waited for again" in second.result.forfeits[0].detail
    assert again < waited and len(announced) == 1  # no second wait, no second set of keys


def test_remote_retry_waits_again_before_every_game():
    from hexarena.referee.clock import TimeControl
    from hexarena.referee.record import BoardConfig
    from hexarena.referee.referee import Referee
    from hexarena.referee.seats.process import BotSpec

    absent = BotSpec("absent", None, remote=True, startup=0.2)
    random_bot = BotSpec("random", ROOT / "bots" / "random")
    announced = []
    with Referee(time_control=TimeControl.parse("1s,startup=10s"), announce=announced.append,
                 remote_retry=True) as referee:
        records = [referee.play([absent, random_bot], BoardConfig(size="1x2"), game_id=f"r{n}", seed=n)
                   for n in (1, 2)]
    assert [r.result.forfeits[0].detail.startswith("no HELLO within the startup allowance of 0.2 s")
            for r in records] == [True, True]
    assert len(announced) == 2  # new credentials, announced for each wait
