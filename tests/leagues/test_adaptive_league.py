"""Adaptive leagues of real bot processes (leagues/running/adaptive.py through ``hexarena league run``); the league
file's bad pairing options are tests/leagues/test_schedule.py's, with the other bad league files."""

from __future__ import annotations

import os
import subprocess
import time
from collections import Counter
from pathlib import Path

import pytest
from helpers import HEXARENA, LEAGUE_BOTS, league_text, make_workspace, processes_with, wait_until

from hexarena.leagues.registry.reference import REFERENCE_AUTHOR
from hexarena.leagues.registry.submit import submit
from hexarena.leagues.results import store
from hexarena.leagues.running.runner import run_league
from hexarena.leagues.schedule.config import parse_league
from hexarena.leagues.workspace.home import Workspace


def hexarena(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([*HEXARENA, *args], check=False, capture_output=True, text=True, timeout=600)


def games_by_bot(home, league: str) -> Counter:
    with Workspace(home) as ws:
        return Counter(bot for record in store.records(ws, league) for bot in record.seats)


@pytest.mark.slow
def test_a_round_robin_switched_to_adaptive_keeps_its_games_and_stops_at_the_budget(tmp_path):
    home = tmp_path / "home"
    make_workspace(home).close()
    robin = tmp_path / "robin.toml"
    robin.write_text(league_text("switch", boards=[("2x2", "hex")], games_per_pairing=2, concurrency=2))
    done = hexarena("league", "run", str(robin), "--home", str(home))
    assert done.returncode == 0, done.stderr
    with Workspace(home) as ws:
        kept = store.played_ids(ws, "switch")
    assert len(kept) == 12  # 4 bots, 6 pairs, a seat-swapped pair each

    adaptive = tmp_path / "adaptive.toml"
    adaptive.write_text(league_text("switch", boards=[("2x2", "hex")], games_per_pairing=2, concurrency=2,
                                    pairing="adaptive", budget=10))
    refused = hexarena("league", "run", str(adaptive), "--home", str(home))
    assert refused.returncode != 0 and "pairing round-robin; this file has adaptive" in refused.stderr
    assert "--replace" in refused.stderr and "Traceback" not in refused.stderr

    done = hexarena("league", "run", str(adaptive), "--home", str(home), "--replace")
    assert done.returncode == 0, done.stderr
    assert "adaptive pairing stopped: the budget is spent" in done.stderr
    with Workspace(home) as ws:
        now = store.played_ids(ws, "switch")
        table_games = store.tally(ws, "switch").sums.groupby("bot")["games"].sum()
    assert kept < now  # the round robin's games stay, and count
    counts = games_by_bot(home, "switch")
    assert set(counts) == set(LEAGUE_BOTS)
    # a table is a seat-swapped pair: a bot plays while it (or its opponent) is under the budget of 10
    assert all(games % 2 == 0 for games in counts.values())
    assert min(counts.values()) >= 10 and max(counts.values()) <= 10 + 2
    assert dict(table_games) == dict(counts)  # the tables cover every stored game of the league

    again = hexarena("league", "run", str(adaptive), "--home", str(home))
    assert again.returncode == 0 and games_by_bot(home, "switch") == counts  # stopped: nothing more to play
    status = hexarena("league", "status", "switch", "--home", str(home))
    assert status.returncode == 0, status.stderr
    assert "adaptive pairing: stopped: the budget is spent" in status.stdout

    # ratings over time: the round robin's run and each adaptive batch left a snapshot
    with Workspace(home) as ws:
        history = store.snapshots(ws, "switch")
    batches = sorted(set(history["batch"]))
    assert len(batches) >= 2 and batches == list(range(1, len(batches) + 1))
    first, last = (history[history["batch"] == b] for b in (batches[0], batches[-1]))
    assert first["games"].sum() == 2 * 12 and last["games"].sum() == 2 * len(now)
    shown = hexarena("league", "table", "switch", "--at", "2999-01-01", "--home", str(home))
    assert shown.returncode == 0, shown.stderr
    assert f"(snapshot {batches[-1]}, taken" in shown.stdout
    csv = hexarena("league", "table", "switch", "--at", "2999-01-01", "--format", "csv", "--home", str(home))
    assert csv.returncode == 0, csv.stderr  # one loadable table: its header first, then the last snapshot's rows
    header, *rows = csv.stdout.splitlines()
    assert header == "rank,bot,version,elo,elo_low,elo_high,games"
    assert sorted(int(row.rsplit(",", 1)[1]) for row in rows) == sorted(last["games"])
    assert f"(snapshot {batches[-1]}, taken" in csv.stderr  # which snapshot it is, beside the table
    early = hexarena("league", "table", "switch", "--at", "2000-01-01", "--home", str(home))
    assert early.returncode != 0 and "no ratings snapshot by 2000-01-01T23:59:59+00:00" in early.stderr
    assert len(early.stderr.strip().splitlines()) == 1
    garbled = hexarena("league", "table", "switch", "--at", "yesterday", "--home", str(home))
    assert garbled.returncode != 0 and "'yesterday' is not a time" in garbled.stderr and "Traceback" not in garbled.stderr

    # a new version of greedy starts the stopped league again: it alone is calibrated, up to its budget
    source = home.parent / f"src-{home.name}" / "greedy"
    main = next(source.glob("*.py"))
    main.write_text(main.read_text() + "\n# version 2\n")
    with Workspace(home) as ws:
        assert submit(ws, source, check=False, author=REFERENCE_AUTHOR).accepted
    rerun = hexarena("league", "run", str(adaptive), "--home", str(home))
    assert rerun.returncode == 0, rerun.stderr
    with Workspace(home) as ws:
        newest = [r for r in store.records(ws, "switch") if r.id not in now]
    mine = [r for r in newest if "greedy" in r.seats]
    assert 10 <= len(mine) <= 12  # calibration tables first, then neighbours, to its budget of 10
    # greedy2's games against the old version left the tables with it: it plays up to its budget again
    assert all({"greedy", "greedy2"} & set(r.seats) for r in newest)
    with Workspace(home) as ws:
        history = store.snapshots(ws, "switch")
    batches = sorted(set(history["batch"]))

    # the site draws each bot's rating over time, and both standings of the latest snapshot
    site = tmp_path / "site"
    published = hexarena("publish", "switch", "--out", str(site), "--home", str(home))
    assert published.returncode == 0, published.stderr
    page = (site / "history.html").read_text()
    assert page.count('class="bot-line"') == len(LEAGUE_BOTS)
    assert page.count('class="version-marker"') == len(LEAGUE_BOTS) + 1  # each version's first snapshot
    assert "Latest versions only" in page and "Every version" in page
    assert f"{len(batches)} snapshots" in page


@pytest.mark.slow
def test_a_new_adaptive_league_calibrates_and_status_says_why_each_table(tmp_path):
    home = tmp_path / "home"
    make_workspace(home).close()
    league = tmp_path / "fresh.toml"
    league.write_text(league_text("fresh", boards=[("2x2", "hex")], concurrency=2, pairing="adaptive",
                                  league_budget=4))
    status = hexarena("league", "status", str(league), "--home", str(home))
    assert status.returncode == 0, status.stderr
    assert "next tables" in status.stdout and "opening" in status.stdout  # a new league: random pairs first
    done = hexarena("league", "run", str(league), "--home", str(home))
    assert done.returncode == 0, done.stderr
    assert sum(games_by_bot(home, "fresh").values()) == 2 * 4  # the league budget: 4 games, 2 seats each
    status = hexarena("league", "status", "fresh", "--home", str(home))
    assert "calibrating" in status.stdout and "±" in status.stdout
    assert "adaptive pairing: stopped" not in status.stdout or "budget" in status.stdout


def parent(pid: int) -> int | None:
    try:
        return int(Path(f"/proc/{pid}/stat").read_bytes().rsplit(b")", 1)[1].split()[1])
    except (OSError, IndexError, ValueError):
        return None


class WorkerSpy:
    """An observer that notes, as each game is stored, the live referee workers of this test (by its marker) and
    the workspace's ``synchronous`` setting."""

    def __init__(self, marker: str, ws: Workspace) -> None:
        self.marker, self.ws, self.workers, self.records, self.synchronous = marker, ws, set(), 0, set()

    def started(self, game_id, seats, config) -> None: ...

    def moved(self, game_id, ply, seat, line, ms) -> None: ...

    def ended(self, record) -> None: ...

    def stored(self, record) -> None:
        self.records += 1
        self.workers |= {pid for pid in processes_with("BROKEN_MARKER", self.marker, "hexarena.referee.pool")
                         if parent(pid) == os.getpid()}  # not a worker's child between its fork and exec
        self.synchronous.add(self.ws.db.execute("PRAGMA synchronous").fetchone()[0])


@pytest.mark.slow
def test_an_adaptive_league_plays_every_batch_on_the_same_workers_and_stops_them_at_the_end(tmp_path, monkeypatch):
    marker = f"adaptive-{os.getpid()}-{time.monotonic_ns()}"
    monkeypatch.setenv("BROKEN_MARKER", marker)  # inherited by the referee workers
    home = tmp_path / "home"
    make_workspace(home).close()
    league = parse_league(league_text("kept", boards=[("2x2", "hex")], concurrency=2, pairing="adaptive",
                                      budget=6), "kept.toml")
    with Workspace(home) as ws:
        spy = WorkerSpy(marker, ws)
        summary = run_league(ws, league, observer=spy)
        synchronous = ws.db.execute("PRAGMA synchronous").fetchone()[0]
    assert summary.played == spy.records >= 12  # three batches at least: 4 bots, 2 tables of 2 games each
    assert len(spy.workers) == 2  # started once for the run (concurrency 2), not once a batch
    wait_until(lambda: not processes_with("BROKEN_MARKER", marker), 10)
    assert processes_with("BROKEN_MARKER", marker) == []  # the workers and their bots stopped with the run
    assert spy.synchronous == {1} and synchronous == 2  # NORMAL while it runs (commits_without_fsync), FULL after
