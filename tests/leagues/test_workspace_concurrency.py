"""Two processes on one workspace (issue 15, item 1): one runner per league, registry rows once per submission,
and the schema 2 migration that removes the doubled rows an older release's race may have left."""

from __future__ import annotations

import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pytest
from helpers import (ANALYSIS_TABLES, AUTHOR_TABLES, FIXTURE, REGISTRY_TABLES, STORE_TABLES, TALLY_TABLES, holding_the_write_lock,
                     league_text, make_workspace, stored_ids, tables, user_version)

from hexarena.leagues.workspace import schema
from hexarena.leagues.registry.catalog import bot_history, get_bot, list_bots
from hexarena.leagues.registry.submit import ensure_reference_bots
from hexarena.leagues.schedule.config import parse_league
from hexarena.leagues.workspace.locks import league_lock
from hexarena.leagues.running.runner import run_league
from hexarena.leagues.workspace.home import Workspace
from hexarena.protocol.errors import ConfigError

REPO = Path(__file__).resolve().parents[2]


def start_league_run(league_file: Path, home: Path) -> subprocess.Popen[str]:
    """``hexarena league run`` in a process of its own, once it has stored its first game (60 s at most)."""
    running = subprocess.Popen([sys.executable, "-m", "hexarena", "league", "run", str(league_file), "--home",
                                str(home)], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 60
    while not stored_ids(home) and time.monotonic() < deadline and running.poll() is None:
        time.sleep(0.01)
    return running


@pytest.mark.slow
def test_a_second_runner_of_a_league_is_refused_naming_the_first_pid(tmp_path: Path) -> None:
    make_workspace(tmp_path / "home").close()
    league_file = tmp_path / "dup.toml"
    league_file.write_text(league_text("dup", participants=("greedy", "random"), boards=[("6x6", "hex")],
                                       games_per_pairing=200, concurrency=1))
    first = start_league_run(league_file, tmp_path / "home")
    try:
        second = subprocess.run([sys.executable, "-m", "hexarena", "league", "run", str(league_file), "--home",
                                 str(tmp_path / "home")], capture_output=True, text=True, check=False, timeout=60)
        assert first.poll() is None, "the first run ended before the second started"
        assert second.returncode == 2, second.stderr
        assert second.stderr == (f"hexarena: error: league dup is already running in workspace {tmp_path / 'home'} "
                                 f"(pid {first.pid}); wait for it to end or stop it, then run again to resume\n")
        first.send_signal(signal.SIGTERM)  # stops like Ctrl-C, keeping its finished games
        _, err = first.communicate(timeout=60)
        assert first.returncode == 143, err
    finally:
        if first.poll() is None:
            first.kill()
            first.wait()
    ids = stored_ids(tmp_path / "home")
    assert 0 < len(ids) == len(set(ids)) < 200
    rerun = subprocess.run([sys.executable, "-m", "hexarena", "league", "status", "dup", "--home",
                            str(tmp_path / "home")], capture_output=True, text=True, check=False, timeout=60)
    assert rerun.stdout.startswith(f"league dup: {len(ids)} of 200 games played")


def test_a_sigkilled_runner_leaves_no_stuck_lock(tmp_path: Path) -> None:
    ws = Workspace(tmp_path / "home")
    holder = subprocess.Popen([sys.executable, "-c", (
        "import sys, time; from hexarena.leagues.workspace.home import Workspace; from hexarena.leagues.workspace.locks import league_lock\n"
        f"ws = Workspace({str(tmp_path / 'home')!r})\n"
        "with league_lock(ws, 'x'):\n    print('locked', flush=True); time.sleep(60)")],
        stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline() == "locked\n"
        with pytest.raises(ConfigError, match=rf"league x is already running .* \(pid {holder.pid}\)"), \
                league_lock(ws, "x"):
            pass
    finally:
        holder.send_signal(signal.SIGKILL)
        holder.communicate()
    with league_lock(ws, "x"):  # the kernel freed it with the process
        assert (tmp_path / "home" / "locks" / "x.lock").read_text() == f"{os.getpid()}\n"
    with league_lock(ws, "x"), pytest.raises(ConfigError, match="already running"), league_lock(ws, "x"):
        pass
    ws.close()


def test_run_league_holds_the_lock(tmp_path: Path) -> None:
    ws = make_workspace(tmp_path / "home")
    league = parse_league(league_text("held", participants=("greedy", "random")))
    with league_lock(ws, "held"), pytest.raises(ConfigError, match=rf"\(pid {os.getpid()}\)"):
        run_league(ws, league, progress=False)
    ws.close()


SEED = ("import sys; from hexarena.leagues.workspace.home import Workspace\n"
        "from hexarena.leagues.registry.submit import ensure_reference_bots\n"
        "ws = Workspace(sys.argv[1]); sys.stdin.readline(); ensure_reference_bots(ws)")


@pytest.mark.slow
def test_seeding_the_reference_bots_from_racing_processes_registers_each_once(tmp_path: Path) -> None:
    home = tmp_path / "home"
    Workspace(home).close()
    racers = [subprocess.Popen([sys.executable, "-c", SEED, str(home)], stdin=subprocess.PIPE, text=True,
                               stderr=subprocess.PIPE) for _ in range(4)]
    for racer in racers:  # all started and opened the workspace: go at once
        racer.stdin.write("go\n")
        racer.stdin.flush()
    for racer in racers:
        _, err = racer.communicate(timeout=300)
        assert racer.returncode == 0, err
    with Workspace(home) as ws:
        rows = Counter(r["bot"] for r in ws.db.execute("SELECT bot FROM bot_versions"))
        assert set(rows.values()) == {1} and "greedy" in rows
        assert all(info.versions == 1 for info in list_bots(ws))


def test_the_schema_refuses_a_doubled_version_row(tmp_path: Path) -> None:
    with Workspace(tmp_path / "home") as ws:
        ensure_reference_bots(ws)
        with pytest.raises(sqlite3.IntegrityError):
            ws.db.execute("INSERT INTO bot_versions (hash, bot, submitted, manifest, checks, build_log, source, follows)"
                          " SELECT hash, bot, submitted, manifest, checks, build_log, source, follows"
                          " FROM bot_versions WHERE bot = 'greedy'")


def test_migration_2_removes_the_doubled_rows_of_a_race_and_keeps_returns_to_earlier_content(tmp_path: Path) -> None:
    home = tmp_path / "old"
    home.mkdir()
    shutil.copy(FIXTURE / "hexarena.db", home / "hexarena.db")
    with Workspace(home):  # schema 0 → current
        pass
    with sqlite3.connect(home / "hexarena.db") as db:  # back to schema 1, as the previous release left it
        db.execute("DROP INDEX bot_versions_chain")
        db.execute("ALTER TABLE bot_versions DROP COLUMN follows")
        db.execute("ALTER TABLE leagues DROP COLUMN edition")  # nor schema 3's column
        db.execute("PRAGMA user_version = 1")
        copy = ("INSERT INTO bot_versions (hash, bot, submitted, manifest, checks, build_log, source)"
                " SELECT {hash}, bot, submitted, manifest, checks, build_log, source FROM bot_versions"
                " WHERE bot = '{bot}' ORDER BY id LIMIT 1")
        db.execute(copy.format(hash="hash", bot="greedy"))  # a racing seeder's double
        db.execute(copy.format(hash="'b' || hash", bot="random"))  # random: A, B, A (a return to earlier content)
        db.execute(copy.format(hash="hash", bot="random"))
        first_ids = dict(db.execute("SELECT bot, MIN(id) FROM bot_versions GROUP BY bot").fetchall())
    with Workspace(home) as ws:
        assert ws.migrated_from == 1
        versions = {bot: [r["hash"][:1] for r in ws.db.execute("SELECT hash FROM bot_versions WHERE bot = ?"
                                                                " ORDER BY id", (bot,))] for bot in ("greedy", "random")}
        assert len(versions["greedy"]) == 1 and len(versions["random"]) == 3
        assert dict(ws.db.execute("SELECT bot, MIN(id) FROM bot_versions GROUP BY bot").fetchall()) == first_ids
        assert [v.hash for v in bot_history(ws, "greedy")] == [get_bot(ws, "greedy").latest]
    assert user_version(home) == schema.VERSION
    assert tables(home) == STORE_TABLES | REGISTRY_TABLES | AUTHOR_TABLES | TALLY_TABLES | ANALYSIS_TABLES


@pytest.mark.slow
def test_a_backup_taken_during_a_league_run_is_a_sound_workspace(tmp_path: Path) -> None:
    make_workspace(tmp_path / "home").close()
    league_file = tmp_path / "b.toml"
    league_file.write_text(league_text("b", participants=("greedy", "random"), games_per_pairing=60, concurrency=2))
    running = start_league_run(league_file, tmp_path / "home")
    try:
        backup = subprocess.run([sys.executable, "-m", "hexarena", "backup", str(tmp_path / "copy" / "hexarena.db"),
                                 "--home", str(tmp_path / "home")], capture_output=True, text=True, check=False, timeout=60)
        assert backup.returncode == 0, backup.stderr
        assert backup.stdout.startswith(f"backed up {tmp_path / 'home' / 'hexarena.db'} (")
        _, err = running.communicate(timeout=120)
        assert running.returncode == 0, err
    finally:
        if running.poll() is None:
            running.kill()
            running.communicate()
    copied = stored_ids(tmp_path / "copy")
    assert 0 < len(copied) <= 60 and set(copied) <= set(stored_ids(tmp_path / "home"))
    status = subprocess.run([sys.executable, "-m", "hexarena", "doctor", "--home", str(tmp_path / "copy")],
                            capture_output=True, text=True, check=False, timeout=60)
    assert status.returncode == 0 and "nothing wrong found" in status.stdout, status.stdout



@pytest.mark.slow
def test_a_backup_into_a_folder_is_the_whole_workspace_and_a_second_copies_only_new_snapshots(tmp_path: Path) -> None:
    make_workspace(tmp_path / "home").close()
    command = [sys.executable, "-m", "hexarena", "backup", str(tmp_path / "copy"), "--home", str(tmp_path / "home")]
    first = subprocess.run(command, capture_output=True, text=True, check=False, timeout=60)
    assert first.returncode == 0, first.stderr
    assert first.stdout.endswith(f"and the bot snapshots to {tmp_path / 'copy' / 'registry'} (4 new of 4)\n")
    assert sorted(p.name for p in (tmp_path / "copy" / "registry").iterdir()) == \
        sorted(p.name for p in (tmp_path / "home" / "registry").iterdir() if not p.name.startswith("."))
    again = subprocess.run(command, capture_output=True, text=True, check=False, timeout=60)
    assert again.stdout.endswith("(0 new of 4)\n")
    status = subprocess.run([sys.executable, "-m", "hexarena", "doctor", "--home", str(tmp_path / "copy")],
                            capture_output=True, text=True, check=False, timeout=60)
    assert status.returncode == 0 and "nothing wrong found" in status.stdout, status.stdout  # its snapshots too


def test_a_write_another_process_keeps_locked_out_is_one_line_exit_1_and_changes_nothing(tmp_path, monkeypatch,
                                                                                        capsys):
    """Before, the wait's end was a traceback (sqlite3.OperationalError: database is locked); at a migration, the
    workspace was called unreadable and its backup restored for nothing."""
    from hexarena.cli import main
    from hexarena.leagues.errors import WorkspaceBusy
    from hexarena.leagues.workspace import home as home_module

    monkeypatch.setattr(home_module, "BUSY_SECONDS", 0.3)
    home = tmp_path / "home"
    make_workspace(home).close()
    with holding_the_write_lock(home / "hexarena.db"):
        with Workspace(home) as ws, pytest.raises(WorkspaceBusy, match=r"another process held it locked for over "
                                                                       r"0\.3 s .*this change was not made"), \
                ws.transaction() as db:
            db.execute("INSERT INTO authors (name, token_hash, created) VALUES ('eve', 'x', 'now')")
        with pytest.raises(SystemExit) as ended:
            main(["authors", "add", "alice", "--home", str(home)])
        said = capsys.readouterr().err.splitlines()
        assert ended.value.code == 1 and len(said) == 1, said
        assert said[0].startswith(f"hexarena: error: workspace database {home / 'hexarena.db'}: another process held "
                                  "it locked for over 0.3 s (a long write, or a program keeping a transaction open), "
                                  "so this change was not made; what was stored before is kept")
    with Workspace(home) as ws:  # the lock gone, nothing written, and writes work again
        assert ws.db.execute("SELECT COUNT(*) FROM authors").fetchone()[0] == 0
    assert main_status(["authors", "add", "alice", "--home", str(home)]) == 0


def main_status(argv: list[str]) -> int:
    from hexarena.cli import main

    with pytest.raises(SystemExit) as ended:
        main(argv)
    return ended.value.code or 0


def test_a_migration_another_process_keeps_locked_out_is_busy_not_damage(tmp_path, monkeypatch):
    """An older workspace opened while another process writes: before, it was called unreadable and its backup
    restored (or salvaged) for nothing. Now the open waits, says the file is busy, and migrates once it is not."""
    from hexarena.leagues.errors import WorkspaceBusy
    from hexarena.leagues.workspace import home as home_module

    monkeypatch.setattr(home_module, "BUSY_SECONDS", 0.3)
    home = tmp_path / "old"
    shutil.copytree(FIXTURE, home)
    with holding_the_write_lock(home / "hexarena.db"), pytest.raises(WorkspaceBusy, match="another process held"):
        Workspace(home)
    with Workspace(home) as ws:
        assert ws.migrated_from is not None and ws.migrated_from < schema.VERSION
