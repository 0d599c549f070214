"""What new users tripped over (issue 14), each with the command that showed it. What was not the command line's
is tested beside its package: referee/test_check.py, test_seats.py, test_manifest.py; leagues/test_runner.py,
test_schedule.py, test_site.py, test_registry.py."""

from __future__ import annotations

import json
import os
import re
import shutil
import sqlite3
import subprocess
import sys
from contextlib import closing
from pathlib import Path

import pytest
from helpers import GREEDY, HEXARENA, RANDOM, ROOT, Terminal, fixture_home, league_file
from typer.testing import CliRunner

from hexarena.cli import register
from hexarena.leagues.registry.submit import submit
from hexarena.referee.errors import SandboxMissing


@pytest.mark.slow
def test_home_works_before_the_subcommand_as_well_as_after(tmp_path: Path):
    before, after = tmp_path / "before", tmp_path / "after"
    for args in (["--home", str(before), "bots"], ["bots", "--home", str(after)]):
        run = subprocess.run([*HEXARENA, *args], capture_output=True, text=True, cwd=tmp_path, timeout=120, check=False)
        assert run.returncode == 0, run.stderr
        assert "random" in run.stdout
    assert (before / "hexarena.db").is_file() and (after / "hexarena.db").is_file()
    assert not (tmp_path / "hexarena-home").exists()


def test_home_before_the_subcommand_does_not_outlive_the_command(tmp_path: Path, monkeypatch):
    monkeypatch.delenv("HEXARENA_HOME", raising=False)
    result = CliRunner().invoke(register(), ["--home", str(tmp_path / "ws"), "bots"])
    assert result.exit_code == 0, result.output
    assert (tmp_path / "ws" / "hexarena.db").is_file()
    assert "HEXARENA_HOME" not in os.environ


# ---- a failing handshake says why (item 2) --------------------------------------------------------

def test_a_bot_that_dies_before_hello_is_reported_with_its_command_and_stderr(tmp_path: Path):
    from hexarena.referee.check import HANDSHAKE, check_bot

    report = check_bot(ROOT / "tests" / "bots" / "crash_at_start", log_dir=tmp_path / "logs")
    reason = report.item(HANDSHAKE).reason
    assert reason.startswith("crashed: before saying HELLO: exited with status 1: weights.bin: no such file")
    assert "[ran python3 -c import sys;" in reason and "stderr: loading weights.bin | weights.bin: no such file" in reason
    run = subprocess.run([*HEXARENA, "match", str(ROOT / "tests" / "bots" / "crash_at_start"), str(ROOT / "bots" / "random"),
                          "--size", "1x2", "--games", "1"], capture_output=True, text=True, timeout=120, check=False)
    assert run.returncode == 0, run.stderr
    assert "crash-at-start: crashed: before saying HELLO" in run.stdout and "loading weights.bin" in run.stdout


# ---- terminal tables (item 14) --------------------------------------------------------------------

def in_a_terminal(args: list[str]) -> str:
    """Run hexarena with its stdout on a pseudo-terminal; what it printed."""
    with Terminal([*HEXARENA, *args], on="stdout", stderr=subprocess.DEVNULL,
                  env={**os.environ, "COLUMNS": "160"}) as terminal:
        status, _, lines = terminal.finish(60)
    assert status == 0
    return "\n".join(lines)


@pytest.mark.slow
def test_league_tables_are_rich_on_a_terminal_and_plain_in_a_pipe(tmp_path: Path):
    home = fixture_home(tmp_path)
    shown = in_a_terminal(["league", "table", "tiny", "--table", "standings", "--home", str(home)])
    assert "Score %" in shown and "Bot" in shown and "score_pct" not in shown and "━" in shown
    piped = subprocess.run([*HEXARENA, "league", "table", "tiny", "--table", "standings", "--home", str(home)],
                           capture_output=True, text=True, timeout=60, check=True).stdout
    assert "score_pct" in piped and "━" not in piped  # --format text (the default in a pipe) stays as it was


# ---- messages (item 15): each a one-line error, exit 2 ----------------------------------------------

def fails(args: list[str], capsys) -> str:
    from hexarena.cli import main

    try:
        main(args)
    except SystemExit as exit:
        assert exit.code == 2, capsys.readouterr()
    else:
        raise AssertionError(f"{args} did not fail")
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("hexarena: error: ") and "Traceback" not in err
    return err


def test_each_newcomer_mistake_gets_a_message_in_words(tmp_path: Path, capsys, monkeypatch):
    home = fixture_home(tmp_path)
    (tmp_path / "file.txt").write_text("not a folder")
    capitals = tmp_path / "Capitals"
    capitals.mkdir()
    (capitals / "bot.toml").write_text('name = "Greedy"\ncommand = ["python3", "bot.py"]\n')
    assert "is a file, not a bot folder" in fails(["submit", str(tmp_path / "file.txt"), "--home", str(home)], capsys)
    assert "bot names are lower case" in fails(["submit", str(capitals), "--home", str(home)], capsys)
    assert "is a folder, not a league file" in fails(["league", "run", str(tmp_path), "--home", str(home)], capsys)
    assert "the increment after '+' is missing" in fails(
        ["match", str(ROOT / "bots" / "random"), str(ROOT / "bots" / "random"), "--time", "300ms+"], capsys)
    assert "is a file; the site needs a folder" in fails(
        ["demo", "--out", str(tmp_path / "file.txt"), "--home", str(home)], capsys)
    assert "ambiguous" in fails(["replay", "3", "--home", str(home)], capsys)
    monkeypatch.setenv("HEXARENA_HOME", str(tmp_path / "file.txt"))
    assert "is a file, not a folder" in fails(["bots"], capsys)


def test_replay_takes_a_unique_prefix_and_bots_show_takes_name_at_hash(tmp_path: Path, capsys):
    from hexarena.cli import main

    home = fixture_home(tmp_path)
    for args in (["replay", "0121", "--home", str(home), "--delay", "0"], ["bots", "show", "greedy@7269", "--home", str(home)]):
        try:
            main(args)
        except SystemExit as exit:
            assert exit.code == 0, capsys.readouterr()
    out = capsys.readouterr().out
    assert out.startswith("012124f7b8e390f5: A greedy vs B random on 2x2 hex")
    assert "1 *  greedy@7269031468" in out and "* the version asked for, greedy@7269031468" in out


# ---- the Quick start on a machine without bubblewrap -----------------------------------------------

def test_the_demo_runs_its_reference_bots_where_no_sandbox_can_be_made_but_nothing_else(tmp_path: Path, monkeypatch):
    import shutil

    from hexarena.commands.league import demo_without_sandbox
    from hexarena.leagues.registry.submit import submit
    from hexarena.leagues.workspace.home import Workspace
    from hexarena.referee import sandbox

    monkeypatch.setattr(sandbox, "bwrap", lambda: None)  # a fresh machine: python3 and pip, no bubblewrap
    monkeypatch.delenv(sandbox.CHOICE, raising=False)
    home = tmp_path / "home"
    if sandbox.user_namespaces() is None:  # the kernel's namespaces sandbox the demo without bubblewrap
        assert demo_without_sandbox(home) is False and sandbox.path() == "unshare"
    monkeypatch.setattr(sandbox, "user_namespaces", lambda: "unshare the user namespace: Operation not permitted")
    assert demo_without_sandbox(home) is True  # neither path: unconfined, warned
    mine = tmp_path / "mine"
    shutil.copytree(ROOT / "bots" / "random", mine)
    (mine / "bot.toml").write_text((mine / "bot.toml").read_text().replace('name = "random"', 'name = "mine"'))
    with Workspace(home) as ws:
        submit(ws, mine, check=False, author="alice")
    assert demo_without_sandbox(home) is False  # an author's bot: the refusal stands
    with __import__("pytest").raises(SandboxMissing):
        sandbox.require()


# ---- progress without a terminal (item 7) ----------------------------------------------------------

@pytest.mark.slow
def test_league_run_without_a_terminal_prints_progress_lines(tmp_path: Path):
    league = tmp_path / "quiet.toml"
    league.write_text(f'name = "quiet"\nparticipants = ["{ROOT / "bots" / "random"}", "{ROOT / "bots" / "greedy"}"]\n'
                      'games_per_pairing = 2\ntime_control = "1s"\nconcurrency = 1\n[[boards]]\nsize = "1x2"\n'
                      '[[boards]]\nsize = "1x1"\n')
    run = subprocess.run([*HEXARENA, "league", "run", str(league), "--home", str(tmp_path / "home")],
                         capture_output=True, text=True, timeout=300, check=False)
    assert run.returncode == 0, run.stderr
    lines = [line for line in run.stderr.splitlines() if line.startswith("quiet: ")]
    assert lines[0] == "quiet: 0/4 games stored, 4 to play"
    assert lines[-2].startswith("quiet: 4/4 games, ") and "games/s" in lines[-2] and "leader " in lines[-2]
    assert lines[-1].startswith("quiet: 4 games played in ") and lines[-1].endswith(" games/s")  # the closing summary


# ---- start positions from the command line and inline in a league file ------------------------------

def test_openings_given_on_the_command_line_or_inline_are_bounded_and_checked(tmp_path: Path, capsys):
    random_bot = str(ROOT / "bots" / "random")
    assert "at most 10000 random start positions" in fails(["match", random_bot, random_bot, "--openings",
                                                            "99999999999"], capsys)
    assert "--openings random needs a number of pairs" in fails(["match", random_bot, random_bot, "--openings",
                                                                 "random"], capsys)
    league = tmp_path / "inline.toml"
    league.write_text(f'name = "inline"\nparticipants = ["{random_bot}", "{ROOT / "bots" / "greedy"}"]\n'
                      '[[boards]]\nsize = "4x4"\nopenings = [[999]]\n')
    home = fixture_home(tmp_path)  # a used workspace: no reference bots registered on the way
    assert f"{league}:5: boards[0].openings[0]: line 999 is out of range (0-62)" in fails(
        ["league", "status", str(league), "--home", str(home)], capsys)
    assert "is a folder; give a file name" in fails(["openings", "2x2", "--count", "2", "--out", str(tmp_path)], capsys)
    import pytest

    from hexarena.leagues.schedule.config import parse_league
    from hexarena.protocol.errors import ConfigError
    with pytest.raises(ConfigError, match=r"boards\[0\]\.openings: no start positions listed"):
        parse_league('name = "none"\n[[boards]]\nsize = "2x2"\nopenings = []\n', "none.toml")
    with pytest.raises(ConfigError, match=r"boards\[0\]\.openings: row 2 is the start position of row 1 again"):
        parse_league('name = "twice"\n[[boards]]\nsize = "2x2"\nopenings = [[1, 2], [2, 1]]\n', "twice.toml")
    tiny = parse_league('name = "tiny"\n[[boards]]\nsize = "1x1"\nopenings = 50\n', "tiny.toml")
    assert len(set(tiny.start_positions(0))) == len(tiny.start_positions(0)) == 6  # a 1x1 hex board has 6 lines


@pytest.mark.slow
def test_check_logs_on_the_command_line_keeps_the_logs_and_refuses_a_place_for_none(tmp_path: Path, capsys):
    logs = tmp_path / "kept" / "logs"
    run = subprocess.run([*HEXARENA, "check", str(ROOT / "tests" / "bots_broken" / "die"), "--logs", str(logs)],
                         capture_output=True, text=True, timeout=120, check=False)
    assert run.returncode == 1 and "FAIL  time limit" in run.stdout
    assert sorted(logs.glob("check*.die.log"))
    assert "--logs /proc/no/such: cannot create the folder" in fails(
        ["check", str(ROOT / "bots" / "random"), "--logs", "/proc/no/such"], capsys)


# ---- league identity (item 5) and what a run will play (item 6) -----------------------------------

def stored(home: Path, sql: str) -> list[tuple]:
    import sqlite3

    with closing(sqlite3.connect(home / "hexarena.db")) as db:
        return db.execute(sql).fetchall()


@pytest.mark.slow
def test_a_league_name_stored_with_another_definition_is_refused_unless_replaced(tmp_path: Path, capsys):
    home = fixture_home(tmp_path)  # league "tiny" of an older release: random and greedy, 2x2 and 2x3, 300ms
    other = league_file(tmp_path / "other.toml", "tiny", ["random", "chains"], boards=("2x2", "2x3"),
                        time_control="300ms", seed=7)
    assert fails(["league", "run", str(other), "--home", str(home)], capsys) == (
        f"hexarena: error: {other}: league 'tiny' is stored with bots random, greedy; this file has random, chains: "
        "run with --replace to replace its definition (its 4 stored games are kept)\n")
    assert "time control 300ms; this file has 1s" in fails(
        ["league", "run", str(league_file(other, "tiny", ["random", "greedy"], ("2x2", "2x3"), seed=7)),
         "--home", str(home)], capsys)
    assert stored(home, "SELECT COUNT(*) FROM games") == [(4,)]
    assert "2x2 hex, 2x3 hex; this file has 2x2 hex, 3x3 hex" in fails(
        ["league", "run", str(league_file(other, "tiny", ["random", "greedy"], ("2x2", "3x3"), "300ms", 7)),
         "--home", str(home), "--dry-run"], capsys)
    # the release's own file, unchanged, needs no --replace (a dry run goes through the same check as a run)
    run = subprocess.run([*HEXARENA, "league", "run", str(home / "tiny.toml"), "--dry-run", "--home", str(home)],
                         capture_output=True, text=True, timeout=120, check=False)
    assert (run.returncode, run.stdout.splitlines()[0]) == (
        0, "league tiny: 4 of 4 games played (100%), 0 left (--dry-run: nothing played, nothing stored)"), run.stderr


def test_status_and_dry_run_count_what_a_run_will_play_and_store_nothing(tmp_path: Path, capsys):
    from hexarena.cli import main

    home = fixture_home(tmp_path)
    file = league_file(tmp_path / "fresh.toml", "fresh", [RANDOM, GREEDY], boards=("1x2", "1x1"))

    def shown(*args: str) -> str:
        try:
            main(list(args))
        except SystemExit as exit:
            assert exit.code == 0, capsys.readouterr()
        return capsys.readouterr().out

    before = stored(home, "SELECT COUNT(*) FROM games") + stored(home, "SELECT COUNT(*) FROM league_games")
    out = shown("league", "status", str(file), "--home", str(home))  # before its first run
    assert out.startswith("league fresh: 0 of 4 games played (0%), 4 left\nleft by configuration\n")
    assert " 1x2 hex     2" in out and " 1x1 hex     2" in out and "greedy     4" in out and "random     4" in out
    out = shown("league", "run", str(file), "--dry-run", "--home", str(home))
    assert out.startswith("league fresh: 0 of 4 games played (0%), 4 left (--dry-run: nothing played, nothing stored)")
    # 1x2 hex has 11 lines, 1x1 hex 6: 2 x 11 + 2 x 6 moves, each up to 1 s, one game at a time
    assert out.splitlines()[-1] == ("time: at most 34 s (34 moves in 4 games under the time control 1s, every move "
                                    "using its whole budget, 1 at a time)")
    assert stored(home, "SELECT COUNT(*) FROM games") + stored(home, "SELECT COUNT(*) FROM league_games") == before
    assert stored(home, "SELECT name FROM leagues") == [("tiny",)]
    # a new version of a bot of a stored league: its games are to play again, as a run would
    assert shown("league", "status", "tiny", "--home", str(home)).startswith("league tiny: 4 of 4 games played")
    newer = tmp_path / "greedy"
    shutil.copytree(GREEDY, newer)
    (newer / "bot.py").write_text((newer / "bot.py").read_text() + "\n# version 2\n")
    from hexarena.leagues.workspace.home import Workspace

    with Workspace(home) as ws:
        submit(ws, newer, check=False, author="hexarena")
    assert shown("league", "status", "tiny", "--home", str(home)).startswith("league tiny: 0 of 4 games played (0%), "
                                                                             "4 left\n")
    out = shown("league", "run", str(home / "tiny.toml"), "--dry-run", "--home", str(home))
    assert "about " in out.splitlines()[-1] and "ms a move measured over 92 stored moves" in out  # its stored games


# ---- versions are visible (item 9) ------------------------------------------------------------------

@pytest.mark.slow
def test_match_says_which_greedy_it_runs_and_records_each_seats_version(tmp_path: Path):
    from hexarena.leagues.registry.snapshot import source_hash

    home = fixture_home(tmp_path)  # greedy@7269031468 registered
    mine = tmp_path / "greedy"
    shutil.copytree(GREEDY, mine)
    (mine / "bot.py").write_text((mine / "bot.py").read_text() + "\n# my change\n")
    run = subprocess.run([*HEXARENA, "match", "greedy", RANDOM, "--size", "1x2", "--games", "2", "--home", str(home),
                          "--out", "games.jsonl"], capture_output=True, text=True, cwd=tmp_path, timeout=120, check=False)
    assert run.returncode == 0, run.stderr
    assert "greedy: the folder ./greedy (not the registered greedy@7269031468)\n" in run.stderr
    records = [json.loads(line) for line in (tmp_path / "games.jsonl").read_text().splitlines()]
    versions = {"greedy": f"greedy@{source_hash(mine)[:10]}", "random": f"random@{source_hash(Path(RANDOM))[:10]}"}
    assert versions["greedy"] != "greedy@7269031468"
    assert [r["versions"] for r in records] == [[versions[s] for s in r["seats"]] for r in records]
    quiet = subprocess.run([*HEXARENA, "match", str(mine), RANDOM, "--size", "1x1", "--games", "2", "--home",
                            str(home)], capture_output=True, text=True, timeout=120, check=False)
    assert quiet.returncode == 0 and "the folder" not in quiet.stderr  # a path says which itself


def test_a_command_loads_only_its_own_module_and_every_command_is_found_that_way():
    """``hexarena NAME`` imports only the module registering NAME (a short match pays for no server or registry
    imports); each command and group of the whole app is found by that rule, after ``--home DIR`` too."""
    import importlib

    import typer

    from hexarena import cli

    app = cli.register()
    names = [c.name or c.callback.__name__ for c in app.registered_commands] + [g.name for g in app.registered_groups]
    assert {"match", "submit", "demo", "league", "bots", "serve", "sprt"} <= set(names)
    for name in names:
        module = cli.module_of(["--home", "/tmp/x", name, "--help"])
        alone = typer.Typer()
        importlib.import_module(f"hexarena.commands.{module}").register(alone)
        found = [c.name or c.callback.__name__ for c in alone.registered_commands] + [g.name for g in alone.registered_groups]
        assert name in found, f"{name}: module {module} does not register it"
    assert cli.module_of(["--help"]) is None and cli.module_of([]) is None and cli.module_of(["nosuch"]) is None
    code = ("import sys; from hexarena.cli import main; sys.argv = ['hexarena', 'board', '--size', '2x2']\n"
            "try: main()\nexcept SystemExit: pass\nprint(sorted(m for m in sys.modules if m.startswith('hexarena.commands.')))")
    loaded = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert loaded.strip().splitlines()[-1] == "['hexarena.commands.board']"


def test_the_command_line_gives_numpys_blas_one_thread_unless_the_organiser_sets_it():
    """OpenBLAS starts a thread per core at import, which takes CPU from a league's games: hexarena runs it on one
    (the tables' matrices are small), unless OPENBLAS_NUM_THREADS says otherwise."""
    code = ("import os, sys; from hexarena.cli import main; sys.argv = ['hexarena', 'board', '2x2']\n"
            "try: main()\nexcept SystemExit: pass\nimport numpy\n"
            "print(os.environ['OPENBLAS_NUM_THREADS'], len(os.listdir('/proc/self/task')))")
    env = {k: v for k, v in os.environ.items() if k not in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS")}
    ours = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env)
    assert ours.stdout.split()[-2:] == ["1", "1"]
    theirs = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                            env={**env, "OPENBLAS_NUM_THREADS": "2"})
    assert theirs.stdout.split()[-2] == "2"


_ENDING = """
import atexit, sys, threading
from hexarena import cli

class Probe:  # freed only if the interpreter is torn down
    def __del__(self):
        print("torn down", flush=True)

probe = Probe()
atexit.register(lambda: print("exit functions ran"))
if sys.argv[1] == "with a thread":  # still working when the command ends (until Python's exit stops the main one)
    threading.Thread(target=lambda: (threading.main_thread().join(), print("the thread ended"))).start()
if sys.argv[1] == "with a daemon thread":  # what it holds is released by the teardown (a server's connections)
    threading.Thread(target=__import__("time").sleep, args=(60,), daemon=True).start()
if sys.argv[1] == "with the referee's watchdog":  # it holds nothing: no teardown for it
    threading.Thread(target=__import__("time").sleep, args=(60,), daemon=True, name="hexarena-watchdog").start()
sys.argv = ["hexarena", "board", *sys.argv[2:]]
cli.command()
"""


@pytest.mark.parametrize(("how", "args", "status"), [
    ("plain", ["5x5"], 0), ("plain", ["0x9"], 2), ("with the referee's watchdog", ["5x5"], 0),
    ("with a thread", ["5x5"], 0), ("with a daemon thread", ["5x5"], 0)])
def test_a_command_ends_without_tearing_python_down_unless_another_thread_runs(how, args, status):
    """The ``hexarena`` command skips freeing every module's objects at exit (0.1 s of a league run), but its
    output is whole, its exit functions run and its status is kept. With another thread running (the referee's
    watchdog aside), Python's exit is taken: a thread still working is waited for, a daemon's objects freed."""
    ended = subprocess.run([sys.executable, "-c", _ENDING, how, *args], capture_output=True, text=True, check=False)
    assert ended.returncode == status, ended.stderr
    lines = ended.stdout.splitlines()
    if status == 0:
        board = subprocess.run([*HEXARENA, "board", *args], capture_output=True, text=True, check=True).stdout
        assert ended.stdout.startswith(board)
    else:
        assert ended.stderr == "hexarena: error: board size '0x9': rows must be 1-10, got 0\n"
    assert [line for line in lines if line in ("exit functions ran", "the thread ended", "torn down")] == (
        ["exit functions ran", "torn down"] if how == "with a daemon thread" else
        ["the thread ended", "exit functions ran", "torn down"] if how == "with a thread" else ["exit functions ran"])


def test_a_commands_writes_are_in_the_database_file_itself_when_it_ends(tmp_path: Path):
    """Ending without Python's teardown, the command still closes its workspace: the write-ahead log is
    checkpointed into hexarena.db and removed, so a copy of that file alone, made after the command, has it all."""
    home = tmp_path / "home"
    registered = subprocess.run([*HEXARENA, "bots", "--home", str(home)], capture_output=True, text=True, check=True)
    assert sorted(path.name for path in home.iterdir() if path.name.startswith("hexarena.db")) == ["hexarena.db"]
    shutil.copy(home / "hexarena.db", tmp_path / "copy.db")
    with sqlite3.connect(tmp_path / "copy.db") as copy:
        bots = copy.execute("SELECT COUNT(*) FROM bots").fetchone()[0]
    assert bots == registered.stderr.count("hexarena: reference bot ") - registered.stderr.count(" skipped: ") > 0


_ANOTHER_THREADS_WORKSPACE = """
import sys, threading
from hexarena import cli
from hexarena.leagues.workspace.home import Workspace

def write():  # a server's request or league thread: it opens the workspace, writes, and ends without closing it
    ws = Workspace(sys.argv[1])
    with ws.transaction() as db:
        db.execute("INSERT INTO registry_meta (key, value) VALUES ('written by', 'a thread')")
    kept.append(ws)

kept = []
thread = threading.Thread(target=write)
thread.start()
thread.join()
sys.argv = ["hexarena", "board", "2x2"]
cli.command()
"""


def test_a_connection_another_thread_left_open_keeps_pythons_exit_and_the_database_whole(tmp_path: Path):
    """A connection only its own thread may close, that thread gone: the command ends with Python's own exit,
    whose teardown closes it, so the write-ahead log is not left beside hexarena.db (a server stopped with Ctrl-C)."""
    home = tmp_path / "home"
    subprocess.run([sys.executable, "-c", _ANOTHER_THREADS_WORKSPACE, str(home)], capture_output=True, text=True,
                   check=True)
    assert sorted(path.name for path in home.iterdir() if path.name.startswith("hexarena.db")) == ["hexarena.db"]
    shutil.copy(home / "hexarena.db", tmp_path / "copy.db")
    with sqlite3.connect(tmp_path / "copy.db") as copy:
        assert copy.execute("SELECT value FROM registry_meta WHERE key = 'written by'").fetchall() == [("a thread",)]


@pytest.mark.slow
def test_the_guides_match_command_works_outside_the_repository(tmp_path: Path):
    """WRITING_A_BOT.md's first match, as a reader outside the repository types it (their bot: a copy of random)."""
    text = (ROOT / "protocol" / "WRITING_A_BOT.md").read_text()
    command = next(line for line in text.split("`") if line.startswith("hexarena match path/to/mybot "))
    shutil.copytree(RANDOM, tmp_path / "path" / "to" / "mybot")
    args = command.split()[2:] + ["--games", "1", "--home", str(tmp_path / "home")]
    run = subprocess.run([*HEXARENA, "match", *[a.replace("4x4", "1x2") for a in args]], capture_output=True,
                         text=True, cwd=tmp_path, timeout=120, check=False)
    assert run.returncode == 0, run.stderr


@pytest.mark.slow
def test_doctor_on_an_empty_hexarena_home_names_the_variable(tmp_path: Path):
    empty = tmp_path / "new"
    empty.mkdir()
    run = subprocess.run([*HEXARENA, "doctor"], capture_output=True, text=True, timeout=60, check=False,
                         env={**os.environ, "HEXARENA_HOME": str(empty)})
    assert run.returncode == 2 and run.stderr == (
        f"hexarena: error: {empty / 'hexarena.db'}: no workspace database there (HEXARENA_HOME={empty} names a "
        "folder without one: set it to the workspace, or give --home)\n")


@pytest.mark.slow
def test_submit_says_pass_and_fail_as_check_does(tmp_path: Path):
    mine = tmp_path / "mine"
    shutil.copytree(RANDOM, mine)
    (mine / "bot.toml").write_text('name = "mine"\ncommand = ["python3", "bot.py"]\n')
    run = subprocess.run([*HEXARENA, "submit", str(mine), "--home", str(tmp_path / "home")], capture_output=True,
                         text=True, timeout=300, check=False)
    assert run.returncode == 0, run.stderr
    assert " PASS " in run.stdout and " ok " not in run.stdout, run.stdout


@pytest.mark.slow
def test_balanced_openings_say_their_time_up_front_show_progress_and_fall_back_to_playouts(tmp_path: Path):
    # 20 candidates, none solved in 0.3 s: at least 6 s, past the first progress line's 5 s (PROGRESS_EVERY)
    run = subprocess.run([*HEXARENA, "openings", "4x4", "--count", "2", "--balanced", "--candidates", "10",
                          "--budget", "0.3"], capture_output=True, text=True, timeout=300, check=False)
    assert run.returncode == 0, run.stderr  # before: "no start position solved", exit 2, after minutes of silence
    said = run.stderr.splitlines()
    assert said[0].startswith("hexarena: solving 20 candidate positions of 4x4 hex, up to 0.3 s each: at most 6 s")
    assert any(re.fullmatch(r"hexarena: \d+/20 candidates tried, \d+ solved \(\d+ s\)", line) for line in said)
    assert said[-1].startswith("hexarena: 0 of 2 start positions solved within --budget 0.3 s; the other 2 balanced "
                               "by chain-rule playouts instead")
    rows = run.stdout.splitlines()
    assert len(rows) == 2 and all(re.fullmatch(r"[\d,]+  # value ~[+-]\d+\.\d \(estimated by playouts\)", r) for r in rows)
