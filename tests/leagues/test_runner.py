"""Running leagues (leagues/running/runner.py): whole leagues of real bot processes, their tables from the store,
SIGKILL and rerun, faults, one-line errors. League files and schedules: test_schedule.py."""

import contextlib
import json
import os
import re
import signal
import sqlite3
import subprocess
import sys
import time
import uuid
from collections import Counter
from itertools import combinations
from math import comb
from pathlib import Path

import pandas as pd
import pytest
from helpers import (
    GREEDY,
    HEXARENA,
    LEAGUE_BOTS,
    RANDOM,
    TEST_BOTS,
    league_file,
    league_text,
    make_workspace,
    per_game,
    processes_with,
    stored_ids,
    wait_until,
)

from hexarena.leagues.registry.submit import submit
from hexarena.leagues.results import definitions, store
from hexarena.leagues.results.ratings import ratings
from hexarena.leagues.results.rows import by_configuration
from hexarena.leagues.results.tables import crosstable, ranked, seat_frame, standings
from hexarena.leagues.running.runner import resolve_entrants, run_league
from hexarena.leagues.schedule.config import parse_league
from hexarena.leagues.workspace import schema
from hexarena.leagues.workspace.home import Workspace
from hexarena.protocol.errors import ConfigError
from hexarena.referee.record import GameRecord, HostStall

BOTS = LEAGUE_BOTS


def hexarena(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([*HEXARENA, *args], check=False, capture_output=True, text=True, timeout=120)


def assert_the_tally_gives_the_same_tables(ws: Workspace, league: str, records: list[GameRecord]) -> None:
    """The store's tally (games folded in SQL) gives exactly the tables of the records' seat frame."""
    frame = seat_frame(records)
    tally = store.tally(ws, league)
    parts = [("", frame), *by_configuration(frame)]
    folded = [("", tally), *tally.by_configuration()]
    assert [label for label, _ in parts] == [label for label, _ in folded]
    for (_, part), (_, fold) in zip(parts, folded, strict=True):
        table, folded_table = standings(part, 0.1), ranked(fold.sums, 0.1)
        # the mean think time is rounded to 0.01 ms after sums taken in another order: one unit apart at most
        pd.testing.assert_series_equal(folded_table["think_ms"], table["think_ms"], check_exact=False, rtol=0,
                                       atol=0.01 + 1e-9)
        pd.testing.assert_frame_equal(folded_table.drop(columns="think_ms"), table.drop(columns="think_ms"))
        order = table["bot"].tolist()
        pd.testing.assert_frame_equal(crosstable(fold.games, order), crosstable(part, order))
        pd.testing.assert_frame_equal(ratings(fold.games), ratings(part), rtol=1e-9)


def independent_counts(records: list[GameRecord]) -> dict[str, Counter]:
    """Wins, draws and losses per bot, counted straight from the records' placements."""
    counts: dict[str, Counter] = {}
    for record in records:
        places = record.result.placements
        for seat, bot in enumerate(record.seats):
            top = places.count(1)
            kind = "losses" if places[seat] != 1 else "wins" if top == 1 else "draws"
            counts.setdefault(bot, Counter())[kind] += 1
    return counts


def json_tables(home: Path, league: str) -> dict:
    done = hexarena("league", "table", league, "--format", "json", "--home", str(home))
    assert done.returncode == 0, done.stderr
    tables = json.loads(done.stdout)
    for row in tables["standings"]:
        del row["think_ms"]  # measured time: the one column two runs do not share
    return tables


# ---------------------------------------------------------------- whole leagues with real bots


@pytest.fixture(scope="module")
def uninterrupted(tmp_path_factory):
    """A 4-bot league on two configurations, played to the end by `hexarena league run`."""
    root = tmp_path_factory.mktemp("leagues")
    make_workspace(root / "home").close()
    league_file = root / "four.toml"
    league_file.write_text(league_text("four", boards=[("4x4", "hex"), ("3x3", "square")], games_per_pairing=2,
                                       seed=11, concurrency=2))
    done = hexarena("league", "run", str(league_file), "--home", str(root / "home"))
    assert done.returncode == 0, done.stderr
    return root, league_file, done


@pytest.mark.slow
def test_league_table_matches_counts_from_the_stored_records(uninterrupted):
    root, _, done = uninterrupted
    assert "league four: 24 of 24 games played (24 now)" in done.stderr
    assert done.stdout.startswith("standings\n rank")
    with Workspace(root / "home") as ws:
        records = store.records(ws, "four")
    assert len(records) == 24 and {r.config.label for r in records} == {"4x4 hex", "3x3 square"}
    assert all(r.result.termination == "completed" for r in records)
    counts = independent_counts(records)
    table = json_tables(root / "home", "four")
    assert {row["bot"]: Counter(wins=row["wins"], draws=row["draws"], losses=row["losses"])
            for row in table["standings"]} == counts
    for row in table["standings"]:
        assert row["games"] == 12 and row["points"] == row["wins"] + row["draws"] / 2
    assert {row["bot"] for row in table["ratings"]} == set(BOTS)
    assert all(row["elo_low"] < row["elo"] < row["elo_high"] for row in table["ratings"])
    by_config = hexarena("league", "table", "four", "--by", "configuration", "--format", "md", "--home",
                         str(root / "home"))
    assert "### standings — 3x3 square" in by_config.stdout and "### crosstable — 4x4 hex" in by_config.stdout
    only = hexarena("league", "table", "four", "--table", "crosstable", "--format", "json", "--home", str(root / "home"))
    crosstable = json.loads(only.stdout)
    assert list(crosstable) == ["crosstable"] and len(crosstable["crosstable"]) == len(BOTS)


@pytest.mark.slow
def test_sigkill_then_rerun_ends_like_an_uninterrupted_run(uninterrupted, tmp_path):
    root, league_file, _ = uninterrupted
    home, marker, status, _ = interrupted_in_a_new_home(league_file, tmp_path, signal.SIGKILL)
    kill_processes_marked(marker)  # its bots, orphaned by the SIGKILL: gone before the next run under the same marker
    partial = stored_ids(home)
    assert status == -signal.SIGKILL and 4 <= len(partial) < 24, "the run was not killed in the middle"
    shown = hexarena("league", "status", "four", "--home", str(home))
    assert f"league four: {len(partial)} of 24 games played" in shown.stdout
    # what is left, by configuration and by bot, counted from the schedule minus the stored games
    left = [line.split() for line in shown.stdout.split("left by configuration")[1].split("left by bot")[0]
            .strip().splitlines()[1:]]
    assert sum(int(row[-1]) for row in left) == 24 - len(partial)
    by_bot = [line.split() for line in shown.stdout.split("left by bot")[1].strip().splitlines()[1:]]
    assert {row[0] for row in by_bot} <= set(BOTS) and sum(int(row[-1]) for row in by_bot) == 2 * (24 - len(partial))

    status, err = interrupt_run(league_file, home, marker, signal.SIGTERM, after=len(partial) + 4)
    said = ("hexarena: error: league four interrupted; the finished games are stored, and running the same command "
            "again plays the rest")
    assert status == 143 and [line for line in err.splitlines() if line.startswith("hexarena: error:")] == [said], err
    assert kill_processes_marked(marker, grace=10) == 0  # SIGTERM stops the bots too
    partial = stored_ids(home)
    assert len(partial) < 24, "the second run was not stopped in the middle"

    rerun = hexarena("league", "run", str(league_file), "--home", str(home))
    assert rerun.returncode == 0, rerun.stderr
    assert f"24 of 24 games played ({24 - len(partial)} now)" in rerun.stderr
    ids = stored_ids(home)
    assert len(ids) == len(set(ids)) == 24 and set(partial) <= set(ids)
    assert per_game(home, "four") == per_game(root / "home", "four")
    assert json_tables(home, "four") == json_tables(root / "home", "four")


@pytest.mark.slow
def test_a_referee_worker_killed_mid_run_is_one_line_and_a_rerun_plays_the_rest(uninterrupted, tmp_path):
    """The OOM killer's way: a referee worker SIGKILLed mid-league. Before, the run ended with a traceback."""
    root, league_file, _ = uninterrupted
    home, marker, status, err = interrupted_in_a_new_home(league_file, tmp_path, signal.SIGKILL, worker=True)
    kill_processes_marked(marker, grace=10)
    said = [line for line in err.splitlines() if line.startswith("hexarena: error:")]
    assert status == 1 and "Traceback" not in err, err
    assert len(said) == 1 and re.fullmatch(r"hexarena: error: referee worker referee-\d ended \(exit status -9\) in "
                                           r"a game; the finished games are stored, and running the same command "
                                           r"again plays the rest", said[0]), err
    partial = stored_ids(home)
    assert 4 <= len(partial) < 24, "the worker was not killed in the middle"
    rerun = hexarena("league", "run", str(league_file), "--home", str(home))
    assert rerun.returncode == 0 and f"24 of 24 games played ({24 - len(partial)} now)" in rerun.stderr, rerun.stderr
    assert per_game(home, "four") == per_game(root / "home", "four")


@pytest.mark.slow
def test_a_rerun_with_nothing_left_leaves_no_process_behind(uninterrupted):
    """The referee workers a run starts before it knows what is left are stopped when nothing is."""
    root, league_file, _ = uninterrupted
    marker = uuid.uuid4().hex
    done = subprocess.run([*HEXARENA, "league", "run", str(league_file), "--home", str(root / "home")],
                          capture_output=True, text=True, timeout=120, check=False,
                          env={**os.environ, "LEAGUE_TEST": marker})
    assert done.returncode == 0 and "24 of 24 games played (0 now)" in done.stderr, done.stderr
    assert kill_processes_marked(marker) == 0


def interrupted_in_a_new_home(league_file: Path, tmp_path: Path, signum: int,
                              worker: bool = False) -> tuple[Path, str, int, str]:
    """``interrupt_run`` after 4 games in a new workspace under ``tmp_path``: the home, the marker, status, stderr."""
    home, marker = tmp_path / "home", uuid.uuid4().hex
    make_workspace(home).close()
    return home, marker, *interrupt_run(league_file, home, marker, signum, after=4, worker=worker)


def interrupt_run(league_file: Path, home: Path, marker: str, signum: int, after: int,
                  worker: bool = False) -> tuple[int, str]:
    """Start `hexarena league run`, send ``signum`` once ``after`` games are stored (to its first referee worker
    with ``worker``); its exit status and stderr."""
    run = subprocess.Popen([*HEXARENA, "league", "run", str(league_file), "--home", str(home)], text=True,
                           stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env={**os.environ, "LEAGUE_TEST": marker})
    deadline = time.monotonic() + 60
    while len(stored_ids(home)) < after and run.poll() is None and time.monotonic() < deadline:
        time.sleep(0.005)
    if worker:  # forked from the run: its only children
        os.kill(int(Path(f"/proc/{run.pid}/task/{run.pid}/children").read_text().split()[0]), signum)
    else:
        run.send_signal(signum)
    _, err = run.communicate(timeout=60)
    return run.returncode, err


def kill_processes_marked(marker: str, grace: float = 0) -> int:
    """SIGKILL the processes started under this test marker that are still alive after ``grace`` seconds, and wait
    until they are gone; how many there were. (A process already SIGKILLed but held in an uninterruptible wait, by a
    disk busy with other work, dies as that wait ends: ``grace`` lets what is dying go first.)"""
    wait_until(lambda: not processes_with("LEAGUE_TEST", marker), grace)
    found = processes_with("LEAGUE_TEST", marker)
    for pid in found:
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGKILL)
    wait_until(lambda: not processes_with("LEAGUE_TEST", marker), 10)
    return len(found)


@pytest.mark.slow
def test_a_bot_added_later_gets_only_its_games(tmp_path):
    ws = make_workspace(tmp_path / "home")
    three = parse_league(league_text("grow", participants=BOTS[:3], seed=5))
    first = run_league(ws, three, concurrency=2, progress=False)
    assert (first.total, first.played) == (6, 6)
    before = {r.id: r.finished for r in store.records(ws, "grow")}
    second = run_league(ws, parse_league(league_text("grow", seed=5)), concurrency=2, progress=False, replace=True)
    assert (second.total, second.already, second.played) == (12, 6, 6)
    after = store.records(ws, "grow")
    assert {r.id: r.finished for r in after if r.id in before} == before  # nothing replayed
    assert all("random2" in r.seats for r in after if r.id not in before)
    again = run_league(ws, parse_league(league_text("grow", seed=5)), progress=False)
    assert (again.total, again.played) == (12, 0)
    ws.close()


@pytest.mark.slow
@pytest.mark.parametrize("players", [3, 4])
def test_multiplayer_leagues(tmp_path, players):
    ws = make_workspace(tmp_path / "home")
    games = {3: 6, 4: 4}[players]  # every seat order of 3; the balanced 4 of the 24 orders of 4
    league = parse_league(league_text("multi", players=players, games_per_pairing=games,
                                      boards=[("2x2", "hex"), ("2x2", "square")], fault_policy="substitute"))
    summary = run_league(ws, league, concurrency=2, progress=False)
    tables = len(list(combinations(BOTS, players)))
    assert summary.played == tables * games * 2
    records = store.records(ws, "multi")
    assert all(len(r.seats) == players and len(r.result.scores) == players for r in records)
    seats = Counter((bot, seat) for r in records for seat, bot in enumerate(r.seats))
    assert set(seats.values()) == {comb(len(BOTS) - 1, players - 1) * 2 * games // players}  # each seat equally often
    frame = store.seat_frame(ws, "multi")
    assert frame.equals(seat_frame(records))  # the results table holds exactly what the records say
    expected = Counter()
    for r in records:
        places = r.result.placements
        for seat, bot in enumerate(r.seats):
            expected[bot] += sum(1 if p > places[seat] else 0.5 if p == places[seat] else 0
                                 for other, p in enumerate(places) if other != seat) / (players - 1)
    table = standings(frame)
    assert dict(zip(table["bot"], table["points"])) == pytest.approx(dict(expected))
    assert table["points"].sum() == pytest.approx(len(records) * players / 2)  # points shared out fairly
    assert_the_tally_gives_the_same_tables(ws, "multi", records)
    ws.close()


@pytest.mark.slow
@pytest.mark.parametrize("policy", ["forfeit", "substitute"])
def test_faults_are_counted_by_reason_and_flag_the_bot(tmp_path, policy):
    ws = make_workspace(tmp_path / "home")
    broken = tmp_path / "broken"
    broken.mkdir()
    (broken / "bot.toml").write_text('name = "broken"\ncommand = ["python3", "-c", "raise SystemExit(3)"]\n')
    assert submit(ws, broken, check=False).accepted
    text = league_text("faulty", participants=["greedy", "random", "broken"], fault_policy=policy)
    league = parse_league(text.replace('"5s"', '"5s,startup=3s"'))  # restarting the broken bot may wait that long
    run_league(ws, league, concurrency=2, progress=False)
    records = store.records(ws, "faulty")
    table = standings(store.seat_frame(ws, "faulty"), league.flag_threshold).set_index("bot")
    assert_the_tally_gives_the_same_tables(ws, "faulty", records)
    assert table.loc["broken", "faults"] == table.loc["broken", "fault_crashed"] == 4 and table.loc["broken", "flagged"]
    assert "fault_malformed_message" not in table.columns  # only reasons that occurred get a column
    against_broken = [r for r in records if "broken" in r.seats]
    if policy == "forfeit":  # the offender loses at once
        assert all(r.result.offender == r.seats.index("broken") and not r.moves for r in against_broken)
        assert table.loc["broken", "losses"] == 4
    else:  # the referee draws for it and the game is played to the end
        assert all(r.result.termination == "completed" and len(r.moves) == 19 for r in against_broken)
        assert all(m.substituted for r in against_broken for m in r.moves if r.seats[m.seat] == "broken")
    ws.close()


@pytest.mark.slow
def test_host_stalls_are_counted_apart_from_the_bots_own_timeouts_in_the_tables(tmp_path, monkeypatch):
    """A timeout the host caused (``host_stall`` in the record: the rule's verdict forced for every timeout, the
    rule itself in tests/referee/test_whole_bot.py) has its own column: not a timeout, not among the bot's
    faults, never what flags it; a game with one is still listed among the faulty ones."""
    from hexarena.referee import game

    monkeypatch.setattr(game, "host_stall", lambda cpu_ms, lag_ms, limit_ms: HostStall(
        cpu_ms=cpu_ms, lag_ms=900.0, limit_ms=limit_ms))
    ws = make_workspace(tmp_path / "home")
    stalled = tmp_path / "stalled"
    stalled.mkdir()
    (stalled / "bot.py").write_text((TEST_BOTS / "napper" / "bot.py").read_text().replace("0.1", "600"))
    (stalled / "bot.toml").write_text('name = "stalled"\ncommand = ["python3", "bot.py"]\n')
    assert submit(ws, stalled, check=False).accepted
    text = league_text("stalls", participants=["greedy", "stalled"], games_per_pairing=2)
    run_league(ws, parse_league(text.replace('"5s"', '"300ms,startup=10s"')), concurrency=1, progress=False)
    records = store.records(ws, "stalls")
    assert [f.host_stall.lag_ms for r in records for f in r.result.forfeits] == [900.0, 900.0]
    table = standings(store.seat_frame(ws, "stalls")).set_index("bot")
    assert_the_tally_gives_the_same_tables(ws, "stalls", records)
    assert (table.loc["stalled", "fault_host_stall"], table.loc["stalled", "faults"]) == (2, 0)
    assert "fault_timeout" not in table.columns and not table.loc["stalled", "flagged"]
    assert table.loc["stalled", "losses"] == 2  # a host stall that was not played again is still scored
    assert [r.id for r in store.faulty_records(ws, "stalls")] == [r.id for r in records]
    ws.close()
    home = tmp_path / "home"
    shown = hexarena("league", "table", "stalls", "--home", str(home))
    assert shown.returncode == 0, shown.stderr
    header, _, row = shown.stdout.splitlines()[1:4]
    assert dict(zip(header.split(), row.split()))["fault_host_stall"] == "2" and "fault_timeout" not in header
    with sqlite3.connect(home / "hexarena.db") as db:  # back to schema 7: the stalls counted as timeouts
        db.execute("UPDATE results SET fault_timeout = fault_host_stall, faults = fault_host_stall")
        for table in ("results", "totals"):
            db.execute(f"ALTER TABLE {table} DROP COLUMN fault_host_stall")
        db.execute("PRAGMA user_version = 7")
    db.close()
    migrated = hexarena("league", "table", "stalls", "--home", str(home))
    assert (migrated.returncode, migrated.stdout) == (0, shown.stdout), migrated.stderr
    with sqlite3.connect(home / "hexarena.db") as db:
        assert db.execute("PRAGMA user_version").fetchone()[0] == schema.VERSION


# ---------------------------------------------------------------- bad input on the command line


@pytest.mark.parametrize("change, message", [
    ({"colour": "red"}, "four.toml:4: unknown key 'colour'"),
    ({"participants": ["greedy", "nobody"]}, "four.toml: participants: unknown bot 'nobody'"),
    ({"participants": ["greedy", "random", "random2"], "players": 4, "games_per_pairing": 4},
     "four.toml: players = 4 needs at least 4 participants, got 3 (greedy, random, random2)"),
    ({"boards": [("11x3", "hex")]}, "four.toml:6: boards[0].size: board size '11x3': rows must be 1-10, got 11"),
])
@pytest.mark.slow
def test_bad_input_is_one_line_exit_2_and_nothing_runs(registered, tmp_path, change, message):
    fields = {"participants": BOTS, "boards": [("2x2", "hex")], **change}
    league_file = tmp_path / "four.toml"
    league_file.write_text(league_text("four", **fields))
    done = hexarena("league", "run", str(league_file), "--home", str(registered))
    assert done.returncode == 2 and done.stdout == ""
    lines = done.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"hexarena: error: {tmp_path}/{message}")
    with sqlite3.connect(registered / "hexarena.db") as db:
        tables = {row[0] for row in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        assert "league_games" not in tables or db.execute("SELECT COUNT(*) FROM league_games").fetchone() == (0,)
    assert stored_ids(registered) == []
    missing = hexarena("league", "table", "four", "--home", str(registered))
    assert missing.returncode == 2 and "no league named 'four'" in missing.stderr


@pytest.fixture(scope="module")
def registered(tmp_path_factory) -> Path:
    """A workspace with the four bots registered and no league."""
    home = tmp_path_factory.mktemp("registered") / "home"
    make_workspace(home).close()
    return home


def test_too_many_tables_asks_for_a_sample(registered, monkeypatch):
    monkeypatch.setattr("hexarena.leagues.running.runner.MAX_TABLES", 3)
    league = parse_league(league_text("wide", players=3, games_per_pairing=6))
    with Workspace(registered) as ws, pytest.raises(ConfigError, match=r"^wide.toml: 4 bots make 4 tables of 3; "
                                                                      r"set sample = N"):
        run_league(ws, league, source="wide.toml", progress=False)
    with Workspace(registered) as ws, pytest.raises(ConfigError):
        definitions.league_config(ws, "wide")  # refused before anything was stored
    sampled = parse_league(league_text("wide", players=3, games_per_pairing=6, sample=2))
    with Workspace(registered) as ws:
        assert resolve_entrants(ws, sampled, "wide.toml")  # a sample of tables is fine
        assert store.played_ids(ws, "wide") == set()


def test_a_dask_league_without_a_scheduler_or_with_a_half_address_is_one_line(registered):
    league = parse_league(league_text("dask", executor="dask"))
    with Workspace(registered) as ws, pytest.raises(ConfigError, match=r'^dask.toml: executor = "dask" needs scheduler'):
        run_league(ws, league, source="dask.toml", progress=False)
    pytest.importorskip("distributed")
    with Workspace(registered) as ws, pytest.raises(ConfigError, match=r"'tcp://\[::1' is not a Dask scheduler address"):
        run_league(ws, league, source="dask.toml", progress=False, scheduler="tcp://[::1")  # was distributed's traceback


# ---------------------------------------------------------------- a league's definition replaced

@pytest.mark.slow
def test_replace_keeps_every_game_and_the_tables_show_the_new_definitions_schedule(tmp_path: Path):
    import pytest

    from hexarena.leagues.results import definitions, store
    from hexarena.leagues.results.doctor import salvage
    from hexarena.leagues.running.runner import pending, run_league
    from hexarena.leagues.schedule.config import load_league
    from hexarena.leagues.workspace.home import Workspace
    from hexarena.protocol.errors import ConfigError

    file = tmp_path / "club.toml"
    with Workspace(tmp_path / "home") as ws:
        first = run_league(ws, load_league(league_file(file, "club", [RANDOM, GREEDY])), progress=False)
        assert (first.total, first.played) == (2, 2)
        wider = load_league(league_file(file, "club", [RANDOM, GREEDY], boards=("1x2", "1x1")))
        with pytest.raises(ConfigError, match="boards 1x2 hex; this file has 1x2 hex, 1x1 hex: run with --replace"):
            run_league(ws, wider, progress=False)
        added = run_league(ws, wider, progress=False, replace=True)
        assert (added.total, added.already, added.played) == (4, 2, 2)  # the shared games are the same games
        slower = load_league(league_file(file, "club", [RANDOM, GREEDY], boards=("1x2", "1x1"), time_control="2s"))
        again = run_league(ws, slower, progress=False, replace=True)
        assert (again.total, again.already, again.played) == (4, 0, 4)  # new terms of play: every game anew
        assert ws.db.execute("SELECT COUNT(*) FROM games WHERE league = 'club'").fetchone()[0] == 8  # all kept
        assert {str(r.time_control) for r in store.records(ws, "club")} == {"2s"}
        assert len(store.seat_frame(ws, "club")) == 8  # the tables: the 4 games of this definition, 2 seats each
        assert run_league(ws, slower, progress=False).played == 0  # the same file again: nothing to replace
    salvage(tmp_path / "home", tmp_path / "salvaged")  # hexarena doctor --salvage keeps the edition
    with Workspace(tmp_path / "salvaged") as ws:
        assert (len(pending(ws, slower).todo), definitions.definition(ws, slower).edition) == (0, 1)


def test_the_progress_bar_fits_80_columns_and_the_run_ends_with_elapsed_time_and_rate(tmp_path, monkeypatch, capsys):
    from hexarena.leagues.running.progress import ProgressDisplay
    from hexarena.referee.record import BoardConfig
    from hexarena.referee.referee import Referee
    from hexarena.referee.seats.inprocess import InProcessSpec

    monkeypatch.setenv("COLUMNS", "80")
    with Referee() as referee:
        record = referee.play([InProcessSpec("a-rather-long-bot-name", lambda game, state: state.legal_moves()[0]),
                               InProcessSpec("another-long-bot-name", lambda game, state: state.legal_moves()[-1])],
                              BoardConfig(size="2x2"), game_id="p1", seed=1)
    with Workspace(tmp_path / "home") as ws:
        display = ProgressDisplay(ws, "a-league-with-a-long-name", 300, 0, terminal=True)
        display.update(record, "12 workers, 8 running, 140 queued")
        display.close("on 3 hosts (games by host: alpha 1)")
    lines = capsys.readouterr().err.splitlines()
    bar = next(line for line in lines if "1/300" in line)
    assert "…" not in bar and len(bar) <= 80 and "games/s" in bar  # the bar's fields whole
    assert "leader a-rather-long-bot-name 100% · 12 workers, 8 running, 140 queued" in lines
    assert re.fullmatch(r"a-league-with-a-long-name: 1 game played in \d+\.\d s, \d+\.\d games/s on 3 hosts "
                        r"\(games by host: alpha 1\)", lines[-1])


def test_a_resumed_leagues_progress_starts_from_its_stored_points_as_the_tables_count_them(tmp_path, capsys):
    from hexarena.leagues.running.progress import ProgressDisplay
    from hexarena.leagues.schedule.config import load_league

    with Workspace(tmp_path / "home") as ws:
        run_league(ws, load_league(league_file(tmp_path / "club.toml", "club", [RANDOM, GREEDY], boards=("1x2", "2x2"))),
                   progress=False)
        sums = store.tally(ws, "club").sums.groupby("bot")[["points", "games"]].sum()
        display = ProgressDisplay(ws, "club", 8, 4, terminal=False)
    assert {bot: (display.points[bot], display.games[bot]) for bot in display.games} == {
        bot: (float(row["points"]), int(row["games"])) for bot, row in sums.iterrows()}
    assert sorted(display.games.items()) == [("greedy", 4), ("random", 4)]  # two boards, two games each
    assert sum(display.points.values()) == 4  # a point a game between them, halves for a draw
    best = max(display.games, key=lambda bot: display.points[bot])
    assert display._leader().startswith(f"leader {best} ")
    assert capsys.readouterr().err.splitlines()[-1] == "club: 4/8 games stored, 4 to play"


class StopAfterFirst:
    """Ctrl-C as the runner stores its first game (a KeyboardInterrupt from the observer, in the runner's thread)."""

    def started(self, game_id, seats, config) -> None: ...

    def moved(self, game_id, ply, seat, line, ms) -> None: ...

    def ended(self, record) -> None: ...

    def stored(self, record) -> None:
        raise KeyboardInterrupt


@pytest.mark.parametrize("pairing", ["round-robin", "adaptive"])
def test_a_run_stopped_by_ctrl_c_keeps_its_game_and_gives_the_workspace_back_its_fsync(tmp_path, pairing):
    """A workspace outlives a run (the server keeps its own open): synchronous=NORMAL must not stay behind."""
    league = parse_league(league_text("stopped", concurrency=1, games_per_pairing=2, pairing=pairing), "s.toml")
    with make_workspace(tmp_path / "home") as ws:
        with pytest.raises(KeyboardInterrupt):
            run_league(ws, league, progress=False, observer=StopAfterFirst())
        assert ws.db.execute("PRAGMA synchronous").fetchone()[0] == 2 and not ws.db.in_transaction
        assert len(store.played_ids(ws, "stopped")) == 1  # the stored game stays; the next run plays the rest


def test_the_local_executor_says_it_plays_on_a_thread_exactly_when_its_pool_has_one_referee():
    from hexarena.leagues.running.executors.local import LocalExecutor
    from hexarena.referee.settings import RefereeSettings

    settings = RefereeSettings()
    assert LocalExecutor(settings, 1).threaded(["a", "b"])
    assert LocalExecutor(settings, 2).threaded(["a"])  # a pool of its own: no more referees than games
    assert not LocalExecutor(settings, 2).threaded(["a", "b"])
    assert not LocalExecutor(settings, 2, keep=True).threaded(["a"])  # kept: ``concurrency`` referees for every run


def test_the_runner_hands_out_its_first_games_before_it_imports_pandas():
    """What ``league run`` imports before its workers get their first games (the runner, its local executor, the
    store) leaves out pandas and numpy (0.25 s): they come with the progress display, while the bots start."""
    probe = ("import sys, hexarena.leagues.running.runner, hexarena.leagues.running.executors.local; "
             "print(sorted({'pandas', 'numpy'} & set(sys.modules)))")
    run = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=60, check=False)
    assert (run.returncode, run.stdout) == (0, "[]\n"), run.stderr
