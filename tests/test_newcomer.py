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
