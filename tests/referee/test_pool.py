"""The pools of referees behind ``league run`` and ``sprt`` (referee/pool.py): threads with in-process seats,
worker processes with real bots."""

from __future__ import annotations

import logging
import os
import signal
import subprocess
import sys
import threading
import time
from contextlib import closing
from pathlib import Path

import pytest
from helpers import FAST, HOSTILE, ROOT, Recorder, processes_with, survivors_of_a_killed, wait_for, wait_until

from hexarena.leagues.running.jobs import Job, play_job
from hexarena.protocol.errors import ConfigError
from hexarena.referee import cgroups
from hexarena.referee.clock import TimeControl
from hexarena.referee.errors import WorkerLost
from hexarena.referee.pool import Forked, RefereePool, RefereeProcessPool, Workers, referee_pool
from hexarena.referee.record import BoardConfig
from hexarena.referee.referee import Referee
from hexarena.referee.seats.inprocess import InProcessSpec
from hexarena.referee.seats.process import BotSpec
from hexarena.referee.settings import RefereeSettings

FIRST_FREE = InProcessSpec("first", lambda game, state: state.legal_moves()[0])
LAST_FREE = InProcessSpec("last", lambda game, state: state.legal_moves()[-1])
CONFIG = BoardConfig(size="2x2")


def make_referee() -> Referee:
    return Referee(time_control=TimeControl.parse("1s"))


def test_every_item_is_played_once_on_warm_referees():
    referees = set()

    def play(referee: Referee, number: int):
        referees.add(id(referee))
        return referee.play([FIRST_FREE, LAST_FREE], CONFIG, game_id=f"g{number}", seed=number)

    pool = RefereePool(make_referee, 2)
    try:
        first = sorted(record.id for record in pool.map(play, range(10)))
        second = sorted(record.id for record in pool.map(play, range(10, 14)))  # the same threads and referees
        last = sorted(record.id for record in pool.map(play, range(14, 15), last=True))
        wait_until(lambda: not any(thread.is_alive() for thread in pool._threads), 10)  # stopped with no close
    finally:
        pool.close()
    assert first == sorted(f"g{n}" for n in range(10)) and second == sorted(f"g{n}" for n in range(10, 14))
    assert last == ["g14"] and len(referees) <= 2


def test_a_workers_exception_is_raised_by_map_not_a_hang():
    def broken(referee: Referee, number: int):
        if number == 3:
            raise RuntimeError("a referee bug")
        return number

    pool = RefereePool(make_referee, 1)
    try:
        with pytest.raises(RuntimeError, match="a referee bug"):
            list(pool.map(broken, range(6)))
    finally:
        pool.close()


def test_a_referee_that_cannot_be_made_is_raised_by_map():
    def no_referee() -> Referee:
        raise OSError("cannot bind the referee socket")

    pool = RefereePool(no_referee, 2)
    with pytest.raises(OSError, match="cannot bind"):
        list(pool.map(lambda referee, item: item, range(3)))
    pool.close()


def test_close_plays_no_work_that_has_not_started():
    started, release = threading.Event(), threading.Event()
    done = []

    def slow(referee: Referee, number: int):
        started.set()
        release.wait(10)
        done.append(number)
        return number

    pool = RefereePool(make_referee, 1)
    results = pool.map(slow, range(5))
    waiter = threading.Thread(target=lambda: next(results, None))
    waiter.start()
    assert started.wait(10)
    closer = threading.Thread(target=pool.close)
    closer.start()  # waits for the game in flight, then stops
    release.set()
    closer.join(10)
    waiter.join(10)
    assert not closer.is_alive() and done == [0]


# --- worker processes (RefereeProcessPool): real bots, since work and items travel pickled ---

RANDOM = BotSpec("random", ROOT / "bots" / "random")
RANDOM2 = BotSpec("random2", ROOT / "bots" / "random")
OPTIONS = RefereeSettings(time_control=FAST)


def jobs(count: int, start: int = 0) -> list[Job]:
    return [Job(f"g{n}", CONFIG, (RANDOM, RANDOM2) if n % 2 else (RANDOM2, RANDOM), seed=n)
            for n in range(start, start + count)]


@pytest.mark.slow
def test_worker_processes_play_every_job_once_and_the_same_games_as_a_thread():
    pool = referee_pool(OPTIONS, 2)
    assert isinstance(pool, RefereeProcessPool)
    try:
        records = {record.id: record for record in pool.map(play_job, jobs(8))}
        again = sorted(record.id for record in pool.map(play_job, jobs(2, start=8)))  # the same warm workers
    finally:
        pool.close()
    assert sorted(records) == sorted(f"g{n}" for n in range(8)) and again == ["g8", "g9"]
    with closing(referee_pool(OPTIONS, 1)) as thread:
        assert isinstance(thread, RefereePool)
        (record,) = thread.map(play_job, jobs(1, start=3))
    assert [m.line for m in record.moves] == [m.line for m in records["g3"].moves]  # seeded: the same game
    assert record.result == records["g3"].result and record.seats == records["g3"].seats == ["random", "random2"]


@pytest.mark.slow
def test_a_pool_takes_the_workers_started_ahead_and_those_it_does_not_take_are_killed():
    with Workers(3) as workers:  # the caller that started them closes them: those the pool did not take
        started = [process for _, process in workers._started]
        pool = referee_pool(OPTIONS, 2, workers=workers)
    try:
        assert [p.pid for p in pool._processes.values()] == [p.pid for p in started[:2]]
        assert started[2].wait(5) == -signal.SIGKILL  # it had started no bot
        assert sorted(record.id for record in pool.map(play_job, jobs(3))) == ["g0", "g1", "g2"]
        assert sorted(record.id for record in pool.map(play_job, jobs(1, start=3), last=True)) == ["g3"]
        # the last map: each worker stops once it has answered its last item (one had none), before any close
        wait_until(lambda: all(process.poll() is not None for process in started[:2]), 10)
    finally:
        pool.close()
    assert [p.poll() for p in started[:2]] == [0, 0]  # stopped by the pool, as its own


@pytest.mark.slow
def test_a_workers_errors_are_raised_by_map_with_their_own_message():
    pool = RefereeProcessPool(OPTIONS, 2)
    three = Job("g3p", BoardConfig(size="2x2", players=3), (RANDOM, RANDOM2), seed=1)
    try:
        with pytest.raises(ConfigError, match="2 bots for a 3-player game"):
            list(pool.map(play_job, [three]))
        assert [r.id for r in pool.map(play_job, jobs(1))] == ["g0"]  # the worker plays on
    finally:
        pool.close()
    broken = RefereeProcessPool(RefereeSettings(fault_policy="nonsense"), 2)
    try:
        with pytest.raises(ConfigError, match="fault policy 'nonsense' is not one of"):
            list(broken.map(play_job, jobs(2)))
    finally:
        broken.close()



def fail_on_one(referee: Referee, item: int) -> int:
    """A worker's item (picklable: this module is on the worker's path): item 1 fails as a full disk or a log
    folder removed mid-league would."""
    if item == 1:
        raise FileNotFoundError(2, "No such file or directory", "/gone/g1.seat0.log")
    return item


def test_a_workers_os_error_is_raised_by_map_not_taken_for_a_lost_worker(monkeypatch):
    """An OSError a game raised in a worker is that game's error: before, the pool took it for the worker's
    connection breaking and waited for the (live) worker to exit, and the league hung with no word."""
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(str(Path(__file__).parents[n]) for n in (2, 1)))
    pool = RefereeProcessPool(OPTIONS, 2)
    outcome: list = []

    def take_all() -> None:
        try:
            outcome.append(sorted(pool.map(fail_on_one, [0, 1, 2])))
        except BaseException as exc:  # noqa: BLE001 - the test reads it
            outcome.append(exc)

    try:
        taker = threading.Thread(target=take_all, daemon=True)
        taker.start()
        taker.join(60)
        assert not taker.is_alive(), "map hung on a worker's OSError"
        assert isinstance(outcome[0], FileNotFoundError) and outcome[0].filename == "/gone/g1.seat0.log"
        assert sorted(pool.map(fail_on_one, [3, 4])) == [3, 4]  # both workers play on
    finally:
        pool.close()



def test_a_worker_killed_before_its_settings_came_is_worker_lost_and_the_others_stop_quietly(capfd):
    """Killed while it waited for its settings (the OOM killer, early): WorkerLost in one line, the other worker
    stopped without a traceback. Before, the settings' send raised BrokenPipeError, which the command line's
    library takes for its own output's pipe closing: the command ended with status 1 and no word."""
    workers = Workers(2)
    (_, first), (_, second) = workers._started
    first.kill()
    first.wait()
    with pytest.raises(WorkerLost, match=r"^referee worker referee-0 ended \(exit status -9\) before its first game$"):
        RefereeProcessPool(OPTIONS, 2, workers=workers)
    assert second.wait(timeout=10) is not None
    assert "Traceback" not in capfd.readouterr().err


@pytest.mark.slow
def test_a_workers_game_events_reach_the_observer_in_this_process_in_order():
    observer = Recorder()
    with closing(RefereeProcessPool(OPTIONS, 2)) as pool:
        records = list(pool.map(play_job, jobs(4), observer))
    for record in records:
        mine = [e for e in observer.events if e[1] == record.id]
        assert mine[0] == ("started", record.id, record.seats, "2x2") and mine[-1] == ("ended", record.id)
        assert mine[1:-1] == [("moved", record.id, ply, m.seat, m.line) for ply, m in enumerate(record.moves)]


@pytest.mark.slow
def test_a_workers_warnings_are_logged_again_by_the_pools_process(caplog):
    """A worker's warning (the junk bot's unauthenticated flood, dropped by the worker's transport) is logged by the
    pool's process on the logger of the same name, in that process's form: a served league's worker warnings are
    lines of the server's log, not text of the worker's own on the standard error they share."""
    junk = BotSpec("junk", HOSTILE / "junk")
    records = []
    with caplog.at_level(logging.WARNING, logger="hexarena.referee.transport"), \
            closing(RefereeProcessPool(OPTIONS, 1)) as pool:
        end = time.monotonic() + 3.5  # the flood lasts 3 s from the bot's start: some game of these reads it
        while time.monotonic() < end and not caplog.records:
            number = len(records)
            records += pool.map(play_job, [Job(f"j{number}", BoardConfig(size="3x3"), (junk, RANDOM), seed=number)])
    assert {record.result.termination for record in records} == {"completed"}
    assert caplog.records, "no warning of the worker reached this process"
    warning = caplog.records[0]
    assert (warning.name, warning.levelno) == ("hexarena.referee.transport", logging.WARNING)
    assert "from unauthenticated peer" in warning.getMessage() and warning.process == os.getpid()


@pytest.mark.slow
def test_a_worker_whose_pool_is_gone_drops_its_observer_calls_quietly():
    """The pool's ends of the connections closed while a worker plays (a server stopping): the game's forwarded
    observer calls are dropped, with no 'the observer failed' on the standard error the worker shares with the pool's
    process (it was a text line in the server's JSON log), and the worker ends at its answer, as quietly."""
    script = ("import sys, time; sys.path[:0] = sys.argv[1:]; import test_pool as t; from helpers import Recorder; "
              "from hexarena.referee.pool import RefereeProcessPool; from hexarena.leagues.running.jobs import Job; "
              "from hexarena.referee.record import BoardConfig; pool = RefereeProcessPool(t.OPTIONS, 1); "
              "jobs = [Job(f'long{n}', BoardConfig(size='6x6'), (t.RANDOM, t.RANDOM2), seed=n) for n in range(3)]; "
              "results = pool.map(t.play_job, jobs, Recorder()); print(next(results).id, flush=True); "
              "[connection.close() for connection in pool._processes]; "  # the second game is in flight
              "process = next(iter(pool._processes.values())); print(process.wait(20), flush=True)")
    here = Path(__file__).parent
    done = subprocess.run([sys.executable, "-c", script, str(here), str(here.parent)], capture_output=True, text=True,
                          timeout=60, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["long0", "0"]  # the first game answered; the worker ended on its own, status 0
    assert done.stderr == ""


def test_a_worker_killed_mid_run_is_one_line_and_its_bots_die_with_it(monkeypatch):
    marker = f"pool-{os.getpid()}-{time.monotonic_ns()}"
    monkeypatch.setenv("BROKEN_MARKER", marker)  # forwarded to the bots (conftest's HEXARENA_PASS_ENV)
    pool = RefereeProcessPool(OPTIONS, 2)
    try:
        results = pool.map(play_job, jobs(200))
        next(results)
        for process in pool._processes.values():
            os.kill(process.pid, signal.SIGKILL)
        with pytest.raises(WorkerLost, match=r"referee worker referee-\d ended \(exit status -9\) in a game"):
            list(results)
    finally:
        pool.close()
    # the parent-death signal kills them at once; the bound is for a loaded machine (once seen past 5 s at load 6-7)
    wait_until(lambda: not processes_with("BROKEN_MARKER", marker), 20)
    assert processes_with("BROKEN_MARKER", marker) == []


def test_a_closing_pool_kills_what_a_killed_workers_bot_left_in_its_cgroup():
    """A worker SIGKILLed while bubblewrap was still setting a sandbox up leaves that sandbox running
    (docs/security.md), in a cgroup named for the worker: the pool's close kills it and removes the cgroup, rather
    than the next referee to start a bot. The leftover is made for certain: a process put in such a cgroup."""
    found = cgroups.backend()
    if found is None:
        pytest.skip(f"no cgroup backend here: {cgroups.unavailable()}")
    pool = RefereeProcessPool(OPTIONS, 2)
    left = subprocess.Popen(["sleep", "300"])
    try:
        worker = next(iter(pool._processes.values()))
        folders = [os.path.join(parent, f"{cgroups.PREFIX}{worker.pid}-0") for parent in found.parents.values()]
        for folder in folders:
            os.mkdir(folder)
            Path(folder, "cgroup.procs").write_text(str(left.pid))
        os.kill(worker.pid, signal.SIGKILL)
        pool.close()
        assert left.wait(timeout=10) == -signal.SIGKILL
        assert not any(os.path.exists(folder) for folder in folders)
    finally:
        pool.close()  # once only: a second call returns at once
        left.kill()
        left.wait()


@pytest.mark.slow
def test_workers_and_their_bots_die_with_a_killed_pool_process(tmp_path):
    marker = f"pool-{os.getpid()}-{time.monotonic_ns()}"
    script = ("import sys; sys.path[:0] = sys.argv[1:]; import test_pool as t; from hexarena.referee.pool import "
              "RefereeProcessPool; pool = RefereeProcessPool(t.OPTIONS, 2); "
              "[print(r.id, flush=True) for r in pool.map(t.play_job, t.jobs(10000))]")
    env = {**os.environ, "BROKEN_MARKER": marker}
    here = Path(__file__).parent  # this module's folder, and tests/ (helpers)
    owner = subprocess.Popen([sys.executable, "-c", script, str(here), str(here.parent)], env=env,
                             stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    assert owner.stdout.readline().startswith(b"g")  # games are being played
    # every bot up (bwrap, its init and the bot, each): bubblewrap has its own window while it starts (docs/security.md)
    wait_for(lambda: len(processes_with("BROKEN_MARKER", marker, "bot.py")) >= 12, 20, "4 bots running")
    survivors = survivors_of_a_killed(owner, "BROKEN_MARKER", marker)
    owner.stdout.close()
    assert survivors == []


@pytest.mark.slow
def test_workers_forked_from_a_process_without_threads_play_and_stop_as_fresh_ones_do():
    script = ("import sys; sys.path[:0] = sys.argv[1:]; import test_pool as t; from hexarena.referee.pool import "
              "Workers, referee_pool; workers = Workers(2, fork=True); print(workers.forked); "
              "pool = referee_pool(t.OPTIONS, 2, workers=workers); "
              "print(sorted(r.id for r in pool.map(t.play_job, t.jobs(3), last=True))); pool.close(); "
              "print([p.returncode for p in pool._processes.values()])")
    here = Path(__file__).parent  # this module's folder, and tests/ (helpers)
    done = subprocess.run([sys.executable, "-c", script, str(here), str(here.parent)], capture_output=True, text=True,
                          timeout=60, check=False)
    assert done.stdout.splitlines() == ["True", "['g0', 'g1', 'g2']", "[0, 0]"], done.stderr
    assert done.returncode == 0 and done.stderr == ""



def test_a_forked_worker_reaped_by_something_else_is_gone_not_an_error():
    """Another part of the process (a SIGCHLD handler, a library's waitpid(-1)) reaped the worker first: poll,
    wait and kill answer as Popen's do (exited, status unknown: 0), with no ChildProcessError."""
    pid = os.posix_spawn("/bin/sh", ["sh", "-c", "exit 3"], os.environ)
    assert os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]) == 3  # behind the pool's back
    assert Forked(pid).poll() == 0
    assert Forked(pid).wait() == 0
    assert Forked(pid).wait(timeout=5) == 0
    killed = Forked(pid)
    killed.kill()
    assert killed.returncode == 0

def mark_and_wait(referee: Referee, item: tuple) -> int:
    """A worker's item (picklable: this module is on the worker's path): mark its start, take 1 s."""
    folder, number = item
    (Path(folder) / str(number)).touch()
    time.sleep(1)
    return number


@pytest.mark.slow
def test_close_stops_a_worker_before_the_item_it_holds_ahead(tmp_path, monkeypatch):
    # the worker imports this module as pytest named it (tests.referee.test_pool), and it imports helpers
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(str(Path(__file__).parents[n]) for n in (2, 1)))
    pool = RefereeProcessPool(OPTIONS, 1)
    results = pool.map(mark_and_wait, [(str(tmp_path), n) for n in range(10)])
    assert next(results) == 0
    # item 1 in play (the worker may still be between items when result 0 arrives), item 2 held ahead
    wait_for(lambda: (tmp_path / "1").exists(), 30, "item 1's start")
    pool.close()  # item 2 does not start
    assert sorted(int(p.name) for p in tmp_path.iterdir()) == [0, 1]
