"""What new users tripped over (issue 14), each with the command that showed it."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from typer.testing import CliRunner

from hexarena.cli import app

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
    result = CliRunner().invoke(app, ["--home", str(tmp_path / "ws"), "bots"])
    assert result.exit_code == 0, result.output
    assert (tmp_path / "ws" / "hexarena.db").is_file()
    assert "HEXARENA_HOME" not in os.environ


# ---- a failing handshake says why (item 2) --------------------------------------------------------

ROOT = Path(__file__).resolve().parent.parent


def test_a_bot_that_dies_before_hello_is_reported_with_its_command_and_stderr(tmp_path: Path):
    from referee.check import HANDSHAKE, check_bot

    report = check_bot(ROOT / "tests" / "bots" / "crash_at_start", log_dir=tmp_path / "logs")
    reason = report.item(HANDSHAKE).reason
    assert reason.startswith("crashed: before saying HELLO: exited with status 1: weights.bin: no such file")
    assert "[ran python3 -c import sys;" in reason and "stderr: loading weights.bin | weights.bin: no such file" in reason
    run = subprocess.run([*HEXARENA, "match", str(ROOT / "tests" / "bots" / "crash_at_start"), str(ROOT / "bots" / "random"),
                          "--size", "1x2", "--games", "1"], capture_output=True, text=True, timeout=120, check=False)
    assert run.returncode == 0, run.stderr
    assert "crash-at-start: crashed: before saying HELLO" in run.stdout and "loading weights.bin" in run.stdout


def test_a_bot_that_crashes_before_its_first_move_fails_the_time_item_and_check_keeps_logs(tmp_path: Path):
    from referee.check import TIME_LIMIT, check_bot

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

    from referee.clock import TimeControl
    from referee.local import BotSpec
    from referee.record import BoardConfig
    from referee.referee import Referee

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
    from leagues import registry
    from leagues.workspace import Workspace
    from referee import sandbox

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
        registry.submit(ws, mine, check=False, author="alice")
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


def test_remote_retry_waits_again_before_every_game():
    from referee.clock import TimeControl
    from referee.local import BotSpec
    from referee.record import BoardConfig
    from referee.referee import Referee

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

    from protocol.errors import ConfigError
    from referee.manifest import load_manifest

    for value, problem in (("99999999999999999999", "less than or equal to 2147483648"),
                           ("true", "a valid integer"), ("1.0", "a valid integer"), ("0", "greater than 0")):
        (tmp_path / "bot.toml").write_text(f'name = "lim"\ncommand = ["./lim"]\n[limits]\nmemory_mb = {value}\n')
        with pytest.raises(ConfigError, match=problem):
            load_manifest(tmp_path)
    (tmp_path / "bot.toml").write_text('name = "lim"\ncommand = ["./lim"]\n[limits]\nmemory_mb = 64\n')
    assert load_manifest(tmp_path).limits == {"memory_mb": 64}
