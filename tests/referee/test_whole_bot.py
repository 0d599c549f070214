"""One bot's memory and CPU as a whole (referee/watchdog.py, referee/usage.py): every process of its sandbox
counted together, the limit named in the fault, the sandbox gone at once; CPU time per move in the record."""

from __future__ import annotations

import re
import signal
import subprocess
import time
from pathlib import Path

import pytest
from helpers import BOTS, HEXARENA, HOSTILE, TEST_BOTS, Recorder, bot_cgroups, processes_with, wait_for, wait_until

from hexarena.referee.clock import TimeControl
from hexarena.referee.launch import Limits
from hexarena.referee.record import BoardConfig, GameRecord, HostStall
from hexarena.referee.seats.process import BotSpec

RANDOM = BotSpec("random", BOTS / "random")
ROOMY = TimeControl.parse("20s,startup=20s")  # the memory fault must come first, however loaded the machine


@pytest.mark.slow
def test_eight_children_of_1_gib_each_end_with_the_memory_fault_under_a_2_gib_whole_bot_limit(
        make_referee, monkeypatch, tmp_path, sandbox_path, whole_bot):
    marker = str(tmp_path / "marker")
    monkeypatch.setenv("BROKEN_PIDS", marker)
    monkeypatch.setenv("HOSTILE_MB", "1024")
    monkeypatch.setenv("HEXARENA_PASS_ENV", "BROKEN_PIDS,HOSTILE_MB")
    referee = make_referee(limits=Limits(memory_mb=2048), time_control=ROOMY)
    started = time.monotonic()
    record = referee.play([BotSpec("memory_tree", HOSTILE / "memory_tree"), RANDOM], BoardConfig(size="2x2"),
                          game_id="memory", seed=1)
    assert (record.result.termination, record.result.offender) == ("crashed", 0)
    detail = record.result.forfeits[0].detail
    if whole_bot == "watchdog":
        assert detail.startswith("memory limit: the bot's processes together held ")
        assert detail.endswith("over its limit of 2048 MiB (the whole bot)")
        held = int(re.search(r"held (\d+) MiB", detail).group(1))
    else:  # the kernel refuses the page past the limit: the peak is the limit, never over it
        assert detail.startswith("memory limit: the bot's processes together reached its limit of 2048 MiB "
                                 f"(the whole bot; {whole_bot}: the kernel stopped it, peak ")
        held = int(re.search(r"peak (\d+) MiB", detail).group(1))
    overshoot = held - 2048
    print(f"\n[{sandbox_path}, {whole_bot}] stopped at {held} MiB: {overshoot} MiB past the 2048 MiB limit, "
          f"{time.monotonic() - started:.1f} s into the game")
    assert 0 <= overshoot < 1024 if whole_bot == "watchdog" else 1536 <= held <= 2048
    assert "hostile memory_tree:" not in (tmp_path / "logs" / "memory.seat0.memory_tree.log").read_text()
    # every child dies with the sandbox (a second on an idle machine; a loaded one takes longer to free 2 GiB)
    def left() -> list[int]:  # the bot and its children (the opponent carries the marker too, and plays on)
        return processes_with("BROKEN_PIDS", marker, "memory_tree") + processes_with("BROKEN_PIDS", marker, "2**20")

    wait_until(lambda: left() == [], 10)
    assert left() == []
    referee.close()
    assert bot_cgroups() == []  # the cgroups of both bots removed with them


def test_cpu_time_per_move_is_recorded_beside_the_think_time(make_referee, sandbox_path):
    record = make_referee().play([bot_spec("greedy"), RANDOM], BoardConfig(size="2x2"), game_id="cpu", seed=2)
    assert record.result.termination == "completed"
    assert all(move.cpu_ms is not None and 0 <= move.cpu_ms for move in record.moves)
    assert all(move.cpu_ms <= move.ms + 50 for move in record.moves)  # one thread thinks: no more CPU than wall
    assert record.lag_ms is not None and record.lag_ms >= 0


@pytest.mark.slow
@pytest.mark.parametrize("spinner", ["spinner", "spinner_child"])
def test_a_bots_cpu_time_per_move_is_what_it_spent_in_its_process_or_a_child_it_reaped(
        spinner, make_referee, sandbox_path):
    """The spinner spends 80 ms of CPU by its own clock before each move, itself or in a forked child that it
    reaps before its MOVE (whose time then is its parent's ``cutime``, counted in clock ticks)."""
    record = make_referee(time_control=TimeControl.parse("5s,startup=20s")).play(
        [bot_spec_of(TEST_BOTS / spinner), RANDOM], BoardConfig(size="2x2"), game_id="spin", seed=3)
    assert record.result.termination == "completed"
    spun = [move.cpu_ms for move in record.moves if move.seat == 0]
    assert spun and all(80 - 20 <= cpu_ms <= 80 + 150 for cpu_ms in spun), spun  # a tick of rounding; then load
    assert all(move.cpu_ms < 60 for move in record.moves if move.seat == 1)


def bot_spec(name: str) -> BotSpec:
    return BotSpec(name, BOTS / name)


@pytest.mark.slow
def test_a_timeout_while_the_referee_was_stopped_is_a_host_stall_with_its_figures(tmp_path):
    """The host stalls the referee (SIGSTOP for 1.5 s) while a bot naps 100 ms of its 400 ms: the bot's reply is
    read past its deadline, a timeout, but it used almost no CPU and the referee ran late: ``host_stall``."""
    out = tmp_path / "games.jsonl"
    match = subprocess.Popen([*HEXARENA, "match", str(TEST_BOTS / "napper"), str(BOTS / "random"), "--size", "6x6",
                              "--games", "1", "--time", "400ms", "--out", str(out), "--logs", str(tmp_path / "logs")],
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    # the game under way (not its bots' start, whose time limit is long): the napper's third MOVE is in its log,
    # and the referee waits for its fourth almost all the time (random's moves take a millisecond)
    wait_for(lambda: sum(log.read_text().count("napped") for log in (tmp_path / "logs").rglob("*") if log.is_file())
             >= 3, 60, "the napper's third move")
    match.send_signal(signal.SIGSTOP)
    time.sleep(1.5)
    match.send_signal(signal.SIGCONT)
    match.communicate(timeout=120)
    records = [GameRecord.model_validate_json(line) for line in out.read_text().splitlines()]
    stalls = [f for record in records for f in record.result.forfeits if f.host_stall is not None]
    assert len(stalls) == 1 and stalls[0].reason == "timeout", [r.result for r in records]
    stall = stalls[0].host_stall
    assert stall.limit_ms == 400 and stall.cpu_ms <= 200 and stall.lag_ms >= 1000
    assert max(record.lag_ms for record in records) >= 1000


def test_a_bot_that_sleeps_past_its_deadline_is_no_host_stall(make_referee, sandbox_path):
    record = make_referee(time_control=TimeControl.parse("300ms,startup=10s")).play(
        [bot_spec_of(TEST_BOTS / "timeout"), RANDOM], BoardConfig(size="2x2"), game_id="fault-asleep", seed=1)
    assert (record.result.termination, record.result.offender) == ("timeout", 0)
    assert record.result.forfeits[0].host_stall is None  # almost no CPU, but the referee ran on time


def bot_spec_of(folder: Path) -> BotSpec:
    return BotSpec(folder.name, folder)


@pytest.mark.slow
def test_replay_host_stalls_plays_a_stalled_game_again_at_most_twice_then_scores_it(make_referee, monkeypatch,
                                                                                     tmp_path):
    """The replay's wiring, with the rule's verdict forced (the rule itself: the SIGSTOP test above)."""
    from hexarena.referee import game

    monkeypatch.setattr(game, "host_stall", lambda cpu_ms, lag_ms, limit_ms: HostStall(
        cpu_ms=cpu_ms, lag_ms=500.0, limit_ms=limit_ms))
    heard = Recorder()
    referee = make_referee(time_control=TimeControl.parse("200ms,startup=10s"), replay_host_stalls=True,
                           log_dir=tmp_path / "logs")
    record = referee.play([bot_spec_of(TEST_BOTS / "timeout"), RANDOM], BoardConfig(size="2x2"),
                          game_id="fault-stalled", seed=1, observer=heard)
    assert (record.id, record.result.termination, record.host_stall_replays) == ("fault-stalled", "timeout", 2)
    assert record.result.forfeits[0].host_stall.lag_ms == 500.0
    assert '"host_stall_replays":2' in record.model_dump_json()
    # each attempt is a game of its own to the observer, started and ended once; the record keeps the game's id
    attempts = ["fault-stalled", "fault-stalled.replay1", "fault-stalled.replay2"]
    assert [e[:2] for e in heard.events if e[0] != "moved"] == [
        (event, game) for game in attempts for event in ("started", "ended")]
    # every attempt's logs are kept: the scored one under the game's own names, the replaced ones set apart (the
    # timed-out seat's, with the referee's fault line; random wrote nothing, which leaves no log)
    logs = sorted(path.name for path in (tmp_path / "logs").glob("fault-stalled.*.log"))
    assert logs == sorted(f"fault-stalled.{attempt}seat0.{record.seats[0]}.log"
                          for attempt in ("", "stalled1.", "stalled2."))
    assert all("--- hexarena: fault timeout" in (tmp_path / "logs" / name).read_text() for name in logs)
    again = make_referee(time_control=TimeControl.parse("200ms,startup=10s")).play(  # the option off: scored at once
        [bot_spec_of(TEST_BOTS / "timeout"), RANDOM], BoardConfig(size="2x2"), game_id="fault-once", seed=1)
    assert again.host_stall_replays == 0 and "host_stall_replays" not in again.model_dump_json()


def test_a_league_file_turns_replay_host_stalls_on_for_its_referees(tmp_path):
    from helpers import league_text

    from hexarena.leagues.running.runner import league_settings
    from hexarena.leagues.schedule.config import load_league
    from hexarena.leagues.workspace.home import Workspace

    path = tmp_path / "stalls.toml"
    path.write_text(league_text("stalls", replay_host_stalls=True))
    league = load_league(path)
    assert league_settings(Workspace(tmp_path / "home"), league).replay_host_stalls is True
    path.write_text(league_text("plain"))
    assert league_settings(Workspace(tmp_path / "home"), load_league(path)).replay_host_stalls is False


# attack (tests/hostile/) → the organiser's limits, the figures it is given, and the fault's detail with a cgroup
# and with the watchdog (None: no fault, the game completes: output is capped, the bot plays on)
PAST_A_LIMIT = {
    "forkbomb": (Limits(processes=16), {}, ("processes limit: the bot tried to run more than its 16 processes and "
                 "threads together (the whole bot; {backend}: the kernel refused the next one)"),
                 ("processes limit: the bot's processes and threads went past its limit of 16 (*, with the sandbox's "
                 "own; the whole bot)")),
    "cpu_burn": (Limits(cpu_seconds=1), {"HOSTILE_CPU_S": "0.6"}, ("CPU limit: the bot's processes together used "
                 "*, over its limit of 1 s (the whole bot)"), "same"),
    "open_files": (Limits(open_files=32), {}, ("exited with status 1: OSError: [Errno 24] Too many open files: "
                   "'/dev/null'"), "same"),
    "file_size": (Limits(file_mb=4), {"HOSTILE_MB": "8"}, ("file size limit: a process of the bot was killed "
                  "(SIGXFSZ) writing past 4 MiB in one file (file_mb)"), "same"),
    "output": (Limits(log_bytes=64 * 1024), {"HOSTILE_MB": "16"}, None, None),
}


@pytest.mark.slow
@pytest.mark.parametrize("attack", PAST_A_LIMIT)
def test_a_bot_past_a_limit_loses_naming_it_its_sandbox_goes_and_the_referee_plays_on(
        attack, make_referee, monkeypatch, tmp_path, sandbox_path, whole_bot):
    """The issue's "Bad input", each limit end to end: the fault names the limit, nothing of the bot's sandbox is
    left a moment later (its cgroup neither), and the same referee plays its next game."""
    limits, figures, detail, watchdog_detail = PAST_A_LIMIT[attack]
    detail = detail if whole_bot != "watchdog" or watchdog_detail == "same" else watchdog_detail
    marker = str(tmp_path / "marker")
    monkeypatch.setenv("BROKEN_PIDS", marker)
    for name, value in figures.items():
        monkeypatch.setenv(name, value)
    monkeypatch.setenv("HEXARENA_PASS_ENV", ",".join(["BROKEN_PIDS", *figures]))
    referee = make_referee(limits=limits, time_control=ROOMY)
    record = referee.play([BotSpec(attack, HOSTILE / attack), RANDOM], BoardConfig(size="2x2"), game_id="past",
                          seed=1)
    ended = time.monotonic()

    def left() -> list[int]:  # the bot and what it started (the opponent carries the marker too, and plays on)
        return [pid for part in ("hostile.py", "os.fork", "process_time")
                for pid in processes_with("BROKEN_PIDS", marker, part)]

    if detail is None:  # refused or capped: the bot played on
        assert (record.result.termination, record.result.offender) == ("completed", None), record.result
        referee.close()
        log = (tmp_path / "logs" / f"past.seat0.{attack}.log").read_text()
        skipped = int(re.search(r"(\d+) more bytes of output not kept \(log cap 65536\)", log).group(1))
        assert len(log) < 65 * 1024 and skipped >= 16 * (2**20 + 1) - 65536
        wait_for(lambda: left() == [], 10, "the bot's processes gone once its referee closed")
    else:
        assert (record.result.termination, record.result.offender) == ("crashed", 0)
        head, _, tail = detail.format(backend=whole_bot).partition("*")
        got = record.result.forfeits[0].detail
        assert got.startswith(head) and got.endswith(tail), got
        wait_for(lambda: left() == [], 10, "the bot's sandbox gone")
        print(f"\n[{sandbox_path}, {whole_bot}] {attack}: sandbox gone {time.monotonic() - ended:.2f} s after the "
              "game ended")
        after = referee.play([RANDOM, BotSpec("greedy", BOTS / "greedy")], BoardConfig(size="2x2"), game_id="after",
                             seed=2)
        assert after.result.termination == "completed"
        referee.close()
    assert bot_cgroups() == []
