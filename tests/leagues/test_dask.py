"""Leagues across machines (issue 16): the DaskExecutor on real scheduler and worker processes, loopback only."""

from __future__ import annotations

import csv
import re
import io
import os
import shutil
import signal
import socket
import sqlite3
import subprocess
import sys
import tarfile
import threading
import time
from pathlib import Path

import pytest
from helpers import HEXARENA, has_libzmq_headers, league_text, make_workspace, per_game, stored_ids, wait_for

from hexarena.leagues.registry.snapshot import pack_snapshot as pack
from hexarena.leagues.results import store
from hexarena.leagues.registry.submit import submit
from hexarena.leagues.running.executors import dask_driver
from hexarena.leagues.running.executors.dask_driver import DaskExecutor, seat_cycles
from hexarena.leagues.running.executors.dask_worker import CACHE_ENV, close_referees, snapshot
from hexarena.leagues.errors import ExecutorLost, SnapshotMismatch
from hexarena.leagues.schedule.config import parse_league
from hexarena.leagues.running.runner import league_settings, run_league
from hexarena.leagues.workspace.home import Workspace
from hexarena.referee.settings import RefereeSettings

distributed = pytest.importorskip("distributed")

REPO = Path(__file__).resolve().parents[2]
HAVE_CBOT = has_libzmq_headers  # the C bot joins the league where it can be built
LOOPBACK = "127.0.0.1"


@pytest.fixture(autouse=True)
def bot_cache(tmp_path, monkeypatch):
    """Each test's workers cache bots in its own folder (inherited by spawned worker processes)."""
    monkeypatch.setenv(CACHE_ENV, str(tmp_path / "cache"))
    return tmp_path / "cache"


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind((LOOPBACK, 0))
        return probe.getsockname()[1]


def kill(process: subprocess.Popen) -> None:
    if process.poll() is None:
        process.kill()
    process.wait(timeout=10)
    for pipe in (process.stdout, process.stderr):  # a failed test's pipes: else a later test's ResourceWarning
        if pipe is not None:
            pipe.close()


@pytest.mark.slow
def test_local_cluster_plays_the_same_games_as_the_local_executor(tmp_path):
    participants = ["greedy", "random", str(REPO / "tests" / "bots_broken" / "bad_build")]
    homes = {"local": tmp_path / "local", "dask": tmp_path / "dask"}
    for home in homes.values():
        ws = make_workspace(home)
        if HAVE_CBOT:
            assert submit(ws, REPO / "bots" / "cbot", check=False).accepted
        ws.close()
    text = league_text("same", participants=participants + ["cbot"] * HAVE_CBOT,
                       boards=(("2x2", "hex"), ("1x2", "hex")), seed=5)
    league = parse_league(text)
    with Workspace(homes["local"]) as ws:
        assert run_league(ws, league, progress=False, concurrency=2).played == len(per_game(homes["local"], "same"))
    with distributed.LocalCluster(processes=True, n_workers=2, threads_per_worker=1, resources={"seat": 2},
                                  host=LOOPBACK, dashboard_address=":0") as cluster, Workspace(homes["dask"]) as ws:
        summary = run_league(ws, league, progress=False, scheduler=cluster.scheduler_address)
    local, dask = per_game(homes["local"], "same"), per_game(homes["dask"], "same")
    assert summary.played == summary.total == len(local) == len(dask)
    assert dask == local  # game by game: seats, scores, placements, termination
    bad = [game for game in dask.values() if "bad_build" in game[0]]
    assert bad and all(game[3] != "completed" for game in bad)  # the failed build is the bot's fault, not a lost task
    assert any(game[3] == "no_connection" for game in bad)
    logs = {home: sorted(p.name for p in (homes[home] / "logs").rglob("*.log")) for home in homes}
    assert logs["dask"] == logs["local"]  # the bots' logs (if they wrote any) travelled back with the records
    versions = {}
    for home in homes:
        with Workspace(homes[home]) as ws:
            versions[home] = {record.id: record.versions for record in store.records(ws, "same")}
    assert versions["dask"] == versions["local"] and all(versions["dask"].values())  # played by play_job there too


@pytest.mark.slow
def test_cli_on_scheduler_and_workers_survives_a_killed_worker(tmp_path):
    port = free_port()
    address = f"tcp://{LOOPBACK}:{port}"
    home, reference = tmp_path / "home", tmp_path / "reference"
    make_workspace(home).close()
    make_workspace(reference).close()
    file = tmp_path / "league.toml"
    file.write_text(league_text("killed", boards=(("2x2", "hex"), ("1x2", "hex")), games_per_pairing=6, seed=2))
    # `dask scheduler` and `dask worker`, run by this interpreter (no `dask` looked up on PATH)
    scheduler = [sys.executable, "-m", "distributed.cli.dask_scheduler"]
    worker = [sys.executable, "-m", "distributed.cli.dask_worker"]
    spawned = []
    try:
        spawned.append(subprocess.Popen([*scheduler, "--host", LOOPBACK, "--port", str(port), "--no-dashboard"],
                                        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
        for _ in range(2):
            spawned.append(subprocess.Popen(
                [*worker, address, "--host", LOOPBACK, "--nthreads", "1", "--resources", "seat=2",
                 "--no-nanny", "--no-dashboard"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
        with distributed.Client(address, timeout=30) as client:
            client.wait_for_workers(2, timeout=30)
        run = subprocess.Popen([*HEXARENA, "--home", str(home), "league", "run", str(file), "--scheduler", address],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        spawned.append(run)
        deadline = time.monotonic() + 60
        while len(stored_ids(home)) < 3 and run.poll() is None and time.monotonic() < deadline:
            time.sleep(0.01)
        assert run.poll() is None and len(stored_ids(home)) < 72  # mid-run
        spawned[1].send_signal(signal.SIGKILL)  # a worker dies mid-run; its cycle is played again on the other
        out, err = run.communicate(timeout=90)
        assert run.returncode == 0, err
    finally:
        for process in reversed(spawned):
            kill(process)
    ids = stored_ids(home)
    assert len(ids) == len(set(ids))  # every game stored exactly once
    with Workspace(reference) as ws:  # the uninterrupted local run
        run_league(ws, parse_league(file.read_text()), progress=False, concurrency=2)
    assert per_game(home, "killed") == per_game(reference, "killed")
    assert "standings" in out
    assert table_without_timing(home) == table_without_timing(reference)  # the same table


def table_without_timing(home: Path) -> list[dict]:
    """The league's standings and ratings as CSV rows, less the think-time column (wall-clock, not results)."""
    from hexarena.commands.league import league_tables

    rows = []
    with Workspace(home) as ws:
        for which in ("standings", "ratings"):
            shown = league_tables(ws, "killed", which, None, "csv")  # one table: loadable as it is
            rows += [{k: v for k, v in row.items() if "ms" not in k} for row in csv.DictReader(io.StringIO(shown))]
    return rows


def test_a_missing_snapshot_is_fetched_and_a_tampered_one_refused(tmp_path, bot_cache):
    digest, data = pack(REPO / "bots" / "random")
    fetched = []

    def fetch() -> bytes:
        fetched.append(1)
        return data

    def fresh_process() -> None:  # what a new worker process starts with: the disk cache, nothing in memory
        close_referees()

    try:
        copy = snapshot(digest, fetch, bot_cache)
        assert len(fetched) == 1 and (copy / "bot.toml").read_text() == (REPO / "bots/random/bot.toml").read_text()
        assert snapshot(digest, fetch, bot_cache) == copy and len(fetched) == 1  # once per process
        fresh_process()
        snapshot(digest, fetch, bot_cache)
        assert len(fetched) == 1  # the cache entry's hash checks: not fetched again
        fresh_process()
        (bot_cache / digest / "bot.py").write_text("print('tampered')\n")
        copy = snapshot(digest, fetch, bot_cache)
        assert len(fetched) == 2  # refused and fetched again
        assert (copy / "bot.py").read_bytes() == (REPO / "bots/random/bot.py").read_bytes()
        assert (bot_cache / digest / "bot.py").read_bytes() == (REPO / "bots/random/bot.py").read_bytes()
        fresh_process()
        other = io.BytesIO()
        with tarfile.open(fileobj=other, mode="w:gz") as tar:
            tar.add(REPO / "bots" / "greedy", arcname=".")
        shutil.rmtree(bot_cache / digest)
        with pytest.raises(SnapshotMismatch, match="refused"):
            snapshot(digest, lambda: other.getvalue(), bot_cache)
        assert not (bot_cache / digest).exists()
    finally:
        close_referees()


def league_file(tmp_path: Path) -> Path:
    file = tmp_path / "bad.toml"
    file.write_text(league_text("bad", participants=("greedy", "random")))
    return file


def run_cli(home: Path, *args: str) -> int:
    from hexarena.cli import main

    with pytest.raises(SystemExit) as exit_info:
        main(["--home", str(home), *args])
    return exit_info.value.code


def nothing_stored(home: Path) -> bool:
    if not (home / "hexarena.db").exists():
        return True
    with sqlite3.connect(home / "hexarena.db") as db:
        return db.execute("SELECT COUNT(*) FROM leagues").fetchone()[0] == 0 and not stored_ids(home)


@pytest.mark.parametrize("scheduler, message", [
    ("tcp://127.0.0.1:{closed}", "cannot reach the Dask scheduler at tcp://127.0.0.1:"),
    ("http://127.0.0.1:8786", "is not a Dask scheduler address"),
    ("nonsense", "is not a Dask scheduler address"),
    ("missing", "needs Dask distributed, which is not installed"),
])
@pytest.mark.slow
def test_bad_scheduler_input_is_one_line_exit_2_and_nothing_stored(tmp_path, capsys, monkeypatch, scheduler, message):
    home = tmp_path / "home"
    make_workspace(home).close()
    monkeypatch.setattr(dask_driver, "CONNECT_TIMEOUT", 1.0)
    if scheduler == "missing":
        monkeypatch.setitem(sys.modules, "distributed", None)  # as if the dask extra were not installed
        scheduler = "tcp://127.0.0.1:8786"
    capsys.readouterr()
    code = run_cli(home, "league", "run", str(league_file(tmp_path)), "--scheduler",
                   scheduler.format(closed=free_port()))
    err = capsys.readouterr().err
    assert code == 2
    assert message in err and err.strip().count("\n") == 0, err
    assert nothing_stored(home)


@pytest.mark.slow
def test_a_league_file_can_name_the_cluster(tmp_path, capsys, monkeypatch):
    home = tmp_path / "home"
    make_workspace(home).close()
    monkeypatch.setattr(dask_driver, "CONNECT_TIMEOUT", 1.0)
    file = tmp_path / "bad.toml"
    file.write_text(f'executor = "dask"\nscheduler = "tcp://127.0.0.1:{free_port()}"\n'
                    + league_text("bad", participants=("greedy", "random")))
    assert run_cli(home, "league", "run", str(file)) == 2
    assert "cannot reach the Dask scheduler" in capsys.readouterr().err
    assert nothing_stored(home)
    assert "executor" not in parse_league(league_text("plain")).model_dump_json()  # stored configs unchanged


def test_seat_cycles_group_the_rotations_of_one_table_board_and_seed(tmp_path):
    ws = make_workspace(tmp_path / "home")
    from hexarena.leagues.running.runner import Job, plan
    from hexarena.referee.seats.process import BotSpec

    league = parse_league(league_text("cycles", boards=(("2x2", "hex"), ("1x2", "hex")), games_per_pairing=4))
    games, folders = plan(ws, league)
    jobs = [Job(g.id, g.config, tuple(BotSpec(s, folders[s]) for s in g.seats), g.seed) for g in games]
    cycles = seat_cycles(jobs)
    assert sum(len(c) for c in cycles) == len(jobs) and len(cycles) == 6 * 2 * 2  # pairs × boards × cycles
    for cycle in cycles:
        assert len(cycle) == 2 and {j.seats for j in cycle} == {cycle[0].seats, cycle[0].seats[::-1]}
    ws.close()


@pytest.mark.slow
def test_closing_the_iterator_cancels_the_pending_cycles(tmp_path):
    from hexarena.leagues.running.runner import Job, plan
    from hexarena.referee.seats.process import BotSpec

    ws = make_workspace(tmp_path / "home")
    league = parse_league(league_text("cancel", boards=(("2x2", "hex"),), games_per_pairing=8))
    games, folders = plan(ws, league)
    ws.close()
    jobs = [Job(g.id, g.config, tuple(BotSpec(s, folders[s]) for s in g.seats), g.seed) for g in games]

    def cycles_on_scheduler(dask_scheduler) -> int:
        return sum(str(key).startswith("hexarena-cycle") for key in dask_scheduler.tasks)

    with distributed.LocalCluster(processes=True, n_workers=1, threads_per_worker=1, resources={"seat": 2},
                                  host=LOOPBACK, dashboard_address=":0") as cluster:
        executor = DaskExecutor(cluster.scheduler_address, RefereeSettings(time_control=league.time_control))
        try:
            records = executor.run(jobs)
            assert next(records).id in {job.id for job in jobs}
            assert executor.client.run_on_scheduler(cycles_on_scheduler) > 1
            records.close()
            deadline = time.monotonic() + 20
            while executor.client.run_on_scheduler(cycles_on_scheduler) and time.monotonic() < deadline:
                time.sleep(0.05)
            assert executor.client.run_on_scheduler(cycles_on_scheduler) == 0  # cancelled, not played on
        finally:
            executor.close()


@pytest.mark.slow
def test_a_cycle_that_kills_three_workers_is_reported_not_retried_forever(tmp_path, capsys, monkeypatch):
    killer = tmp_path / "killer"
    killer.mkdir()
    (killer / "bot.toml").write_text('name = "killer"\ncommand = ["python3", "bot.py"]\nlanguage = "python"\n')
    (killer / "bot.py").write_text("import os, signal\nos.kill(os.getppid(), signal.SIGKILL)  # its referee's worker\n")
    home = tmp_path / "home"
    make_workspace(home).close()
    league = parse_league(league_text("killer", participants=("random", str(killer)), boards=(("1x2", "hex"),)))
    with distributed.LocalCluster(processes=True, n_workers=2, threads_per_worker=1, resources={"seat": 2},
                                  host=LOOPBACK, dashboard_address=":0",
                                  scheduler_kwargs={"allowed_failures": 2}) as cluster, Workspace(home) as ws:
        # unconfined, so that it can reach its worker (the settings travel with the task)
        summary = run_league(ws, league, progress=False, scheduler=cluster.scheduler_address,
                             settings=league_settings(ws, league, sandboxed=False))
    assert summary.played == 0 and summary.total == 2
    assert "killed every worker it ran on" in capsys.readouterr().err
    assert not stored_ids(home)



@pytest.mark.slow
def test_a_workers_own_os_error_is_named_as_the_workers_not_as_a_lost_scheduler(tmp_path, monkeypatch):
    """A worker that cannot make its bots' run folder (a full disk, a cache folder that is not one) fails every
    cycle with an OSError. Before, the run said it had lost the scheduler, and sent the organiser to the wrong machine."""
    (tmp_path / "a-file").write_text("not a folder\n")
    monkeypatch.setenv(CACHE_ENV, str(tmp_path / "a-file" / "cache"))  # inherited by the workers
    home = tmp_path / "home"
    make_workspace(home).close()
    league = parse_league(league_text("unwritable", boards=(("1x2", "hex"),)))
    with distributed.LocalCluster(processes=True, n_workers=1, threads_per_worker=1, resources={"seat": 2},
                                  host=LOOPBACK, dashboard_address=":0") as cluster, Workspace(home) as ws, \
            pytest.raises(ExecutorLost) as lost:
        run_league(ws, league, progress=False, scheduler=cluster.scheduler_address)
    message = str(lost.value)
    assert message.startswith("a Dask worker failed at game ") and "Not a directory" in message, message
    assert str(tmp_path / "a-file") in message and "scheduler" not in message
    assert not stored_ids(home)




@pytest.mark.slow
def test_a_bot_that_reaches_a_worker_changed_is_refused_in_one_line_naming_the_game(tmp_path, monkeypatch):
    """What a worker fetches is checked against the hash its task names: here every bot is published with another
    bot's files (as a worker of another hexarena version, hashing otherwise, would see it). Before, the run ended
    with a traceback."""
    real = dask_driver.pack_snapshot
    monkeypatch.setattr(dask_driver, "pack_snapshot", lambda folder: (real(folder)[0], pack(REPO / "bots" / "greedy")[1]))
    home = tmp_path / "home"
    make_workspace(home).close()
    league = parse_league(league_text("changed", participants=("random", "random2"), boards=(("1x2", "hex"),)))
    with distributed.LocalCluster(processes=True, n_workers=1, threads_per_worker=1, resources={"seat": 2},
                                  host=LOOPBACK, dashboard_address=":0") as cluster, Workspace(home) as ws, \
            pytest.raises(ExecutorLost) as lost:
        run_league(ws, league, progress=False, scheduler=cluster.scheduler_address)
    assert re.fullmatch(r"a Dask worker failed at game \w+: bot fetched as \w{10} has content hash \w{10}; refused "
                        r"\(is the worker's hexarena the same version as this one\?\); the finished games are stored, and "
                        r"running the same command again plays the rest once the worker is mended", str(lost.value)), \
        str(lost.value)
    assert not stored_ids(home)


def _times_out() -> None:
    raise TimeoutError("the cycle's own wait ran out")


@pytest.mark.slow
def test_a_cycles_own_timeout_error_is_raised_not_waited_on_for_ever():
    """A TimeoutError is also what the driver's wait for a result raises when the wait runs out: one the cycle
    itself raised was taken for that, and waited on again, for ever."""
    with distributed.LocalCluster(processes=True, n_workers=1, threads_per_worker=1, resources={"seat": 2},
                                  host=LOOPBACK, dashboard_address=":0") as cluster:
        executor = DaskExecutor(cluster.scheduler_address, RefereeSettings())
        try:
            executor.check([])  # as a run does first: the workers looked at
            future = executor.client.submit(_times_out, pure=False)
            wait_for(future.done, 60, "the cycle's end")
            outcome: list = []
            taker = threading.Thread(target=lambda: outcome.append(_raised(executor._result, future)), daemon=True)
            taker.start()
            taker.join(30)
            assert not taker.is_alive(), "the driver waits for ever on a cycle's own TimeoutError"
            assert isinstance(outcome[0], TimeoutError) and str(outcome[0]) == "the cycle's own wait ran out"
        finally:
            executor.close()


def _raised(call, *args) -> BaseException | None:
    try:
        call(*args)
    except BaseException as exc:  # noqa: BLE001 - the test reads it
        return exc
    return None


class Cluster:
    """A `dask scheduler` and `dask worker`s as processes of this interpreter, on loopback; ``stop()`` kills them."""

    def __init__(self) -> None:
        self.port = free_port()
        self.address = f"tcp://{LOOPBACK}:{self.port}"
        self.spawned = [subprocess.Popen([sys.executable, "-m", "distributed.cli.dask_scheduler", "--host", LOOPBACK,
                                          "--port", str(self.port), "--no-dashboard"],
                                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)]
        self.workers = 0

    def worker(self, *resources: str) -> subprocess.Popen:
        process = subprocess.Popen([sys.executable, "-m", "distributed.cli.dask_worker", self.address, "--host",
                                    LOOPBACK, "--nthreads", "1", *resources, "--no-nanny", "--no-dashboard"],
                                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        self.spawned.append(process)
        self.workers += 1
        with distributed.Client(self.address, timeout=60) as client:
            client.wait_for_workers(self.workers, timeout=60)
        return process

    def lose(self, worker: subprocess.Popen) -> None:
        kill(worker)
        self.workers -= 1

    def stop(self) -> None:
        for process in reversed(self.spawned):
            kill(process)


@pytest.mark.slow
def test_a_cluster_whose_workers_cannot_seat_the_tables_is_refused_with_the_worker_command(tmp_path):
    home = tmp_path / "home"
    make_workspace(home).close()
    file = tmp_path / "league.toml"
    file.write_text(league_text("seatless", boards=(("1x2", "hex"),), seed=1))
    cluster = Cluster()
    try:
        for resources in ((), ("--resources", "seat=1")):  # none at all, then one seat for 2-player tables
            cluster.worker(*resources)
            done = subprocess.run([*HEXARENA, "--home", str(home), "league", "run", str(file), "--scheduler",
                                   cluster.address], capture_output=True, text=True, timeout=120, check=False)
            assert done.returncode == 2 and done.stderr.count("\n") == 1, done.stderr
            assert done.stderr.startswith(f"hexarena: error: no Dask worker at {cluster.address} offers seat=2 "
                                          "for the league's 2-player tables (workers: tcp://127.0.0.1:")
            assert ("seat=1" if resources else "no seat resources") in done.stderr
            assert done.stderr.endswith(f"; start one with: dask worker {cluster.address} --nthreads 2 "
                                        "--resources seat=2\n")
            assert stored_ids(home) == []
    finally:
        cluster.stop()


@pytest.mark.slow
def test_workers_joining_and_leaving_are_announced_and_the_run_ends_with_a_summary(tmp_path):
    home = tmp_path / "home"
    make_workspace(home).close()
    file = tmp_path / "league.toml"
    # 300 games: on 2 idle cores about 70 are stored before both workers are lost, the run outlasts that 4 times
    file.write_text(league_text("watched", boards=(("3x3", "hex"),), games_per_pairing=50, seed=3))
    cluster = Cluster()
    err = tmp_path / "stderr.txt"
    try:
        first = cluster.worker("--resources", "seat=2")
        with open(err, "w") as sink:
            run = subprocess.Popen([*HEXARENA, "--home", str(home), "league", "run", str(file), "--scheduler",
                                    cluster.address], stdout=subprocess.PIPE, stderr=sink, text=True)
        cluster.spawned.append(run)

        def said(words: str, count: int = 1) -> bool:
            return err.read_text().count(words) >= count

        wait_for(lambda: len(stored_ids(home)) >= 3 or run.poll() is not None, 120, "games stored")
        second = cluster.worker("--resources", "seat=2")
        wait_for(lambda: said(" joined (seat=2)") or run.poll() is not None, 90, "the joining announced")
        cluster.lose(first)
        cluster.lose(second)
        wait_for(lambda: said(" left", 2) or run.poll() is not None, 90, "both leavings announced")
        wait_for(lambda: said("no worker left offers seat=2") or run.poll() is not None, 30, "no capable worker")
        assert run.poll() is None, err.read_text()  # waiting for a worker, not failed, not finished
        cluster.worker("--resources", "seat=2")
        run.communicate(timeout=300)
        assert run.returncode == 0, err.read_text()
    finally:
        cluster.stop()
    lines = err.read_text().splitlines()
    assert [line for line in lines if "no worker left" in line] == [
        f"hexarena: no worker left offers seat=2 (no worker is connected): the games wait; start one with: "
        f"dask worker {cluster.address} --nthreads 2 --resources seat=2"]
    assert sum(line.endswith(" joined (seat=2)") for line in lines) == 2
    assert sum(re.fullmatch(r"hexarena: worker tcp://127\.0\.0\.1:\d+ left", line) is not None for line in lines) == 2
    assert re.fullmatch(r"watched: \d+ games played in \d+\.\d s, \d+\.\d games/s on 1 host \(games by host: .+\)",
                        lines[-2]), lines[-2]  # the closing line, then the command's own
    ids = stored_ids(home)
    assert len(ids) == len(set(ids)) == 6 * 50


@pytest.mark.slow
def test_a_result_whose_worker_left_before_it_was_fetched_waits_for_a_worker_and_says_so(tmp_path):
    """A seat cycle finished on a worker that is killed before the driver fetched its result: the driver goes on
    watching (the leaving is said, not a silent hang in the fetch), and the cycle is played again on the next
    worker. (Seen once in a full run: both workers killed just after a cycle finished, and no 'left' in 90 s.)"""
    import threading

    cluster = Cluster()
    said: list[str] = []
    try:
        first = cluster.worker("--resources", "seat=2")
        executor = DaskExecutor(cluster.address, RefereeSettings(), warn=said.append)
        executor.watch = dask_driver.WorkerWatch(executor.client, cluster.address, 2, said.append)
        executor.watch.look(first=True)
        future = executor.client.submit(sum, [1, 2], resources={"seat": 2}, pure=False)
        wait_for(lambda: future.status == "finished", 60, "the cycle finished")
        cluster.lose(first)
        fetched: list[int] = []
        fetching = threading.Thread(target=lambda: fetched.append(executor._result(future)), daemon=True)
        fetching.start()
        wait_for(lambda: any(line.endswith(" left") for line in said), 30, "the leaving said while fetching")
        assert not fetched  # no worker holds it: it waits for one
        cluster.worker("--resources", "seat=2")
        fetching.join(60)
        assert fetched == [3]
        assert said[0].endswith(" left") and said[1].startswith("no worker left offers seat=2"), said
        executor.close()
    finally:
        cluster.stop()


@pytest.mark.slow
def test_batch_after_batch_each_bot_is_packed_and_published_once(tmp_path, monkeypatch):
    """An adaptive league calls ``run`` once a batch on one executor: its bots travel to the scheduler once."""
    from hexarena.leagues.running.runner import Job, plan
    from hexarena.referee.seats.process import BotSpec

    ws = make_workspace(tmp_path / "home")
    league = parse_league(league_text("batches", boards=(("2x2", "hex"),), games_per_pairing=2))
    games, folders = plan(ws, league)
    ws.close()
    jobs = [Job(g.id, g.config, tuple(BotSpec(s, folders[s]) for s in g.seats), g.seed) for g in games]
    packed = []
    monkeypatch.setattr(dask_driver, "pack_snapshot", lambda folder: packed.append(folder) or pack(folder))
    with distributed.LocalCluster(processes=True, n_workers=1, threads_per_worker=2, resources={"seat": 2},
                                  host=LOOPBACK, dashboard_address=":0") as cluster:
        executor = DaskExecutor(cluster.scheduler_address, RefereeSettings(time_control=league.time_control))
        try:
            played = [r.id for half in (jobs[: len(jobs) // 2], jobs[len(jobs) // 2:]) for r in executor.run(half)]
        finally:
            executor.close()
    assert sorted(played) == sorted(job.id for job in jobs)
    assert sorted(packed) == sorted(set(folders.values()))  # each folder once over both batches


def test_a_worker_removes_the_run_folders_of_dead_worker_processes_and_keeps_a_live_ones(tmp_path, monkeypatch):
    """A worker killed mid-game leaves its runnable copies in CACHE/run/<pid>-*: the next worker process to start
    removes them, never a running one's."""
    from hexarena.leagues.running.executors import dask_worker

    dead = subprocess.Popen(["true"])
    dead.wait()
    alive = subprocess.Popen(["sleep", "60"])
    try:
        runs = tmp_path / "run"
        for pid in (dead.pid, alive.pid):
            (runs / f"{pid}-copies" / "bot").mkdir(parents=True)
        monkeypatch.setattr(dask_worker, "_run_dir", None)
        mine = dask_worker.run_dir(tmp_path)
        assert sorted(p.name for p in runs.iterdir()) == sorted([f"{alive.pid}-copies", mine.name])
        assert mine.name.startswith(f"{os.getpid()}-")
    finally:
        alive.kill()
        alive.wait()
