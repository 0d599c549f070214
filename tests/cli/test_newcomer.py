"""What new users tripped over (issue 14), each with the command that showed it."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from contextlib import closing
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st
from test_publish import browser, console_errors, needs_browser, replay_url  # noqa: F401 - browser: a fixture
from typer.testing import CliRunner

from hexarena.cli import register
from hexarena.leagues.registry.submit import submit

HEXARENA = [sys.executable, "-m", "hexarena"]


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

ROOT = Path(__file__).resolve().parent.parent


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


def test_a_bot_that_crashes_before_its_first_move_fails_the_time_item_and_check_keeps_logs(tmp_path: Path):
    from hexarena.referee.check import TIME_LIMIT, check_bot

    report = check_bot(ROOT / "tests" / "bots_broken" / "die", log_dir=tmp_path / "logs")
    assert not report.item(TIME_LIMIT).passed
    assert report.item(TIME_LIMIT).reason.startswith("no reply to judge against the limit of")
    assert sorted(tmp_path.glob("logs/check*.die.log")), "check --logs keeps each crafted game's log"


# ---- terminal tables (item 14) --------------------------------------------------------------------

def fixture_home(tmp_path: Path) -> Path:
    import shutil

    home = tmp_path / "home"
    shutil.copytree(ROOT / "tests" / "fixtures" / "workspace-957ae21", home)
    return home


def in_a_terminal(args: list[str]) -> str:
    """Run hexarena with its stdout on a pseudo-terminal; what it printed."""
    import pty

    main, follower = pty.openpty()
    process = subprocess.Popen([*HEXARENA, *args], stdout=follower, stderr=subprocess.DEVNULL,
                               env={**os.environ, "COLUMNS": "160"})
    os.close(follower)
    chunks = []
    while True:
        try:
            chunk = os.read(main, 65536)
        except OSError:  # EIO: the child closed the terminal
            break
        if not chunk:
            break
        chunks.append(chunk)
    process.wait(timeout=60)
    os.close(main)
    return b"".join(chunks).decode(errors="replace")


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


# ---- remote seats (item 4) ------------------------------------------------------------------------

def test_a_remote_seat_that_never_joined_is_not_waited_for_again_and_its_own_wait_is_honoured():
    import time

    from hexarena.referee.clock import TimeControl
    from hexarena.referee.seats.process import BotSpec
    from hexarena.referee.record import BoardConfig
    from hexarena.referee.referee import Referee

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


# ---- the Quick start on a machine without bubblewrap -----------------------------------------------

def test_the_demo_runs_its_reference_bots_where_no_sandbox_can_be_made_but_nothing_else(tmp_path: Path, monkeypatch):
    import shutil

    from hexarena.commands.league import demo_without_sandbox
    from hexarena.leagues.registry.submit import submit
    from hexarena.leagues.workspace.home import Workspace
    from hexarena.referee import sandbox

    monkeypatch.setattr(sandbox, "bwrap", lambda: None)  # a fresh machine: python3 and pip, no bubblewrap
    monkeypatch.setattr(sandbox, "_enabled", True)  # restored after the test, whatever fails: later tests sandbox
    monkeypatch.delenv(sandbox.CHOICE, raising=False)
    home = tmp_path / "home"
    if sandbox.user_namespaces() is None:  # the kernel's namespaces sandbox the demo without bubblewrap
        assert demo_without_sandbox(home) is False and sandbox.enabled() and sandbox.path() == "unshare"
    monkeypatch.setattr(sandbox, "user_namespaces", lambda: "unshare the user namespace: Operation not permitted")
    assert demo_without_sandbox(home) is True and not sandbox.enabled()  # neither path: unconfined, warned
    mine = tmp_path / "mine"
    shutil.copytree(ROOT / "bots" / "random", mine)
    (mine / "bot.toml").write_text((mine / "bot.toml").read_text().replace('name = "random"', 'name = "mine"'))
    with Workspace(home) as ws:
        submit(ws, mine, check=False, author="alice")
    assert demo_without_sandbox(home) is False and sandbox.enabled()  # an author's bot: the refusal stands
    with __import__("pytest").raises(sandbox.SandboxMissing):
        sandbox.require()


# ---- progress without a terminal (item 7) ----------------------------------------------------------

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
    assert lines[-1].startswith("quiet: 4/4 games, ") and "games/s" in lines[-1] and "leader " in lines[-1]


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


def test_remote_retry_waits_again_before_every_game():
    from hexarena.referee.clock import TimeControl
    from hexarena.referee.seats.process import BotSpec
    from hexarena.referee.record import BoardConfig
    from hexarena.referee.referee import Referee

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


def test_check_logs_on_the_command_line_keeps_the_logs_and_refuses_a_place_for_none(tmp_path: Path, capsys):
    logs = tmp_path / "kept" / "logs"
    run = subprocess.run([*HEXARENA, "check", str(ROOT / "tests" / "bots_broken" / "die"), "--logs", str(logs)],
                         capture_output=True, text=True, timeout=120, check=False)
    assert run.returncode == 1 and "FAIL  time limit" in run.stdout
    assert sorted(logs.glob("check*.die.log"))
    assert "--logs /proc/no/such: cannot create the folder" in fails(
        ["check", str(ROOT / "bots" / "random"), "--logs", "/proc/no/such"], capsys)


def test_a_manifests_limits_are_whole_numbers_in_range(tmp_path: Path):
    import pytest

    from hexarena.protocol.errors import ConfigError
    from hexarena.referee.manifest import load_manifest

    for value, problem in (("99999999999999999999", "less than or equal to 2147483648"),
                           ("true", "a valid integer"), ("1.0", "a valid integer"), ("0", "greater than 0")):
        (tmp_path / "bot.toml").write_text(f'name = "lim"\ncommand = ["./lim"]\n[limits]\nmemory_mb = {value}\n')
        with pytest.raises(ConfigError, match=problem):
            load_manifest(tmp_path)
    (tmp_path / "bot.toml").write_text('name = "lim"\ncommand = ["./lim"]\n[limits]\nmemory_mb = 64\n')
    assert load_manifest(tmp_path).limits == {"memory_mb": 64}


# ---- league identity (item 5) and what a run will play (item 6) -----------------------------------

RANDOM, GREEDY, CHAINS = (str(ROOT / "bots" / name) for name in ("random", "greedy", "chains"))


def league_file(path: Path, name: str, bots: list[str], boards=("1x2",), time_control="1s", seed=0) -> Path:
    path.write_text(f'name = "{name}"\nparticipants = {json.dumps(bots)}\ngames_per_pairing = 2\n'
                    f'time_control = "{time_control}"\nconcurrency = 1\nseed = {seed}\n'
                    + "".join(f'[[boards]]\nsize = "{size}"\n' for size in boards))
    return path


def stored(home: Path, sql: str) -> list[tuple]:
    import sqlite3

    with closing(sqlite3.connect(home / "hexarena.db")) as db:
        return db.execute(sql).fetchall()


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


def test_replace_keeps_every_game_and_the_tables_show_the_new_definitions_schedule(tmp_path: Path):
    import pytest

    from hexarena.leagues.results import store
    from hexarena.leagues.schedule.config import load_league
    from hexarena.leagues.results.doctor import salvage
    from hexarena.leagues.running.runner import pending, run_league
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
        assert (len(pending(ws, slower).todo), store.definition(ws, slower).edition) == (0, 1)


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


@settings(max_examples=60, deadline=None)
@given(st.lists(st.sampled_from(["a", "b", "c", "d"]), min_size=2, max_size=4, unique=True),
       st.lists(st.sampled_from(["a", "b", "c", "d"]), min_size=2, max_size=4, unique=True),
       st.sampled_from([2, 4]), st.sampled_from([2, 4]), st.sampled_from(["1s", "300ms", "10s+1s"]))
def test_a_definition_differs_exactly_where_the_files_do(bots_a, bots_b, games_a, games_b, control):
    from hexarena.leagues.schedule.config import differences, parse_league

    def league(bots, games, control="1s"):
        return parse_league(f'name = "x"\nparticipants = {json.dumps(bots)}\ngames_per_pairing = {games}\n'
                            f'time_control = "{control}"\n[[boards]]\nsize = "2x2"\n')

    found = differences(league(bots_a, games_a), league(bots_b, games_b, control))
    expected = [f"bots {', '.join(bots_a)}; this file has {', '.join(bots_b)}"] * (bots_a != bots_b)
    expected += [f"games per pairing {games_a}; this file has {games_b}"] * (games_a != games_b)
    expected += [f"time control 1s; this file has {control}"] * (control != "1s")
    assert found == expected


# ---- versions are visible (item 9) ------------------------------------------------------------------

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


@needs_browser
def test_league_records_games_jsonl_and_the_replay_page_name_each_seats_version(tmp_path: Path, browser):  # noqa: F811
    from hexarena.leagues.results import store
    from hexarena.leagues.schedule.config import load_league
    from hexarena.leagues.results.report import game_files
    from hexarena.leagues.site.publish import publish
    from hexarena.leagues.registry.snapshot import source_hash
    from hexarena.leagues.running.runner import run_league
    from hexarena.leagues.workspace.home import Workspace
    from hexarena.referee.record import GameRecord

    with Workspace(tmp_path / "new") as ws:
        run_league(ws, load_league(league_file(tmp_path / "v.toml", "versions", [RANDOM, GREEDY])), progress=False)
        records = store.records(ws, "versions")
        publish(ws, "versions", tmp_path / "site")
    versions = {name: f"{name}@{source_hash(ROOT / 'bots' / name)[:10]}" for name in ("random", "greedy")}
    assert [r.versions for r in records] == [[versions[s] for s in r.seats] for r in records] and len(records) == 2
    exported = [GameRecord.model_validate_json(line) for line in (tmp_path / "site" / "games.jsonl").read_text().splitlines()]
    assert [r.versions for r in exported] == [r.versions for r in records]
    browser.get(replay_url(tmp_path / "site", records[0], game_files(records)))
    shown = [e.text for e in browser.find_elements("css selector", "#scores li")]
    assert [line.split("\n")[0] for line in shown] == [
        f"{'AB'[seat]} · {name} {versions[name][len(name):]}" for seat, name in enumerate(records[0].seats)]
    assert console_errors(browser) == []

    old = fixture_home(tmp_path)  # records of an older release: no versions; they load and render as before
    with Workspace(old) as ws:
        old_records = store.records(ws, "tiny")
        publish(ws, "tiny", tmp_path / "old-site")
    assert old_records and all(r.versions == [] for r in old_records)
    browser.get(replay_url(tmp_path / "old-site", old_records[0], game_files(old_records)))
    shown = [e.text.split("\n")[0] for e in browser.find_elements("css selector", "#scores li")]
    assert shown == [f"{'AB'[seat]} · {name}" for seat, name in enumerate(old_records[0].seats)]
    assert console_errors(browser) == []


# ---- reference bots hash the same however hexarena was installed (item 12) ----------------------------

def installed_bots(dest: Path) -> Path:
    """The reference bots as ``pip install .`` lays them out: the files the package data globs of pyproject.toml
    take (setuptools reads them with glob, which skips hidden files unless a pattern names them)."""
    import glob
    import tomllib

    globs = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["package-data"]["bots"]
    for pattern in globs:
        for rel in glob.glob(pattern, root_dir=ROOT / "bots", recursive=True):
            if (ROOT / "bots" / rel).is_file():
                (dest / rel).parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(ROOT / "bots" / rel, dest / rel)
    return dest


def with_leftovers(bots: Path) -> Path:
    """Build outputs, caches and editor files, as they lie in a working copy that has been used."""
    import py_compile

    subprocess.run(["make", "-s"], cwd=bots / "cbot", check=True, capture_output=True, timeout=120)
    py_compile.compile(str(bots / "greedy" / "bot.py"), cfile=str(bots / "greedy" / "__pycache__" / "bot.cpython-311.pyc"))
    (bots / "random" / "bot.py~").write_text("an editor's backup")
    (bots / "random" / ".bot.py.swp").write_bytes(b"\0swap")
    return bots


def test_reference_bots_hash_the_same_from_the_repository_and_as_installed(tmp_path: Path):
    from hexarena.leagues.registry.snapshot import source_hash

    installed = with_leftovers(installed_bots(tmp_path / "site-packages" / "bots"))
    worn = with_leftovers(Path(shutil.copytree(ROOT / "bots", tmp_path / "repo" / "bots")))
    assert (installed / "cbot" / "cbot").is_file() and (installed / "cbot" / ".gitignore").is_file()
    names = sorted(p.parent.name for p in (ROOT / "bots").glob("*/bot.toml"))
    assert len(names) == 7
    expected = {name: source_hash(ROOT / "bots" / name) for name in names}
    assert {name: source_hash(installed / name) for name in names} == expected
    assert {name: source_hash(worn / name) for name in names} == expected


def test_a_snapshot_never_includes_what_its_own_build_produced(tmp_path: Path):
    from hexarena.leagues.registry.snapshot import source_hash, tree_hash
    from hexarena.leagues.workspace.home import Workspace
    from hexarena.referee.build import build
    from hexarena.referee.manifest import load_manifest

    bot = tmp_path / "maker"
    shutil.copytree(RANDOM, bot)
    (bot / "bot.toml").write_text('name = "maker"\ncommand = ["python3", "bot.py"]\n'
                                  'build = ["sh", "-c", "test ! -e out/model.bin && mkdir -p out && echo built > out/model.bin"]\n')
    (bot / ".gitignore").write_text("# build outputs\nout/\n")
    before = source_hash(bot)
    build(bot, load_manifest(bot))  # the author builds in place
    assert (bot / "out" / "model.bin").read_text() == "built\n"
    assert source_hash(bot) == before != tree_hash(bot)
    with Workspace(tmp_path / "home") as ws:
        result = submit(ws, bot, check=False)
    assert result.status == "registered", result.reason  # its build ran in a copy without the author's out/
    assert result.version_hash == before
    assert (result.folder / "out" / "model.bin").read_text() == "built\n"  # made by the snapshot's own build


@settings(max_examples=150, deadline=None)
@given(st.lists(st.from_regex(r"[a-z0-9_.]{1,6}", fullmatch=True).filter(lambda n: n not in (".", "..")),
                min_size=1, max_size=3, unique=True),
       st.text(alphabet="ab*?[]!/\\#. \n-z", max_size=30))
def test_a_gitignore_lists_what_it_names_and_never_fails(parts, noise):
    from hexarena.leagues.registry.gitignore import matcher

    rel = "/".join(parts)
    name = parts[-1]
    assert matcher(name)(rel, False)  # a name alone matches at any depth
    assert matcher(f"/{rel}")(rel, False) and (len(parts) == 1 or not matcher(f"/{name}")(rel, False))
    assert not matcher(f"{name}\n!{name}")(rel, False)  # the last rule decides
    assert not matcher(f"{name}/")(rel, False) and matcher(f"{name}/")(rel, True)  # a folder only
    assert matcher(f"{parts[0]}/")(rel, False) == (len(parts) > 1)  # under a listed folder
    assert matcher("**/" + name)(rel, False) and not matcher(f"# {name}")(rel, False)
    matcher(noise)(rel, False)  # any text: a matcher, never an exception


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
