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
