"""A full disk (issue 15, item 2): one line naming the path and its free space, exit 1, nothing half-written,
the database intact, and a rerun after freeing space resumes. The workspace lives on a 6 MiB tmpfs."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from helpers import fill, league_text, make_workspace, mounted_tmpfs, stored_ids

SMALL = "6m"


@pytest.fixture
def tmpfs(tmp_path: Path) -> Iterator[Path]:
    """A 6 MiB tmpfs (room for the 120 games, their analyses and the site; needs root); skipped with the reason
    when it cannot be mounted. Always unmounted."""
    with mounted_tmpfs(tmp_path / "tmpfs", SMALL) as mount:
        yield mount


def hexarena(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "hexarena", *args], capture_output=True, text=True, check=False, timeout=300)


def one_line(done: subprocess.CompletedProcess, path: Path) -> None:
    assert done.returncode == 1, done.stderr
    assert "Traceback" not in done.stderr + done.stdout
    [line] = [text for text in done.stderr.splitlines() if text.startswith("hexarena: error:")]
    assert line.startswith(f"hexarena: error: out of space writing {path}") and " free there)" in line, line


@pytest.mark.slow
def test_a_league_run_on_a_full_disk_stops_in_one_line_and_resumes(tmpfs: Path, tmp_path: Path) -> None:
    home = tmpfs / "home"
    make_workspace(home).close()
    league_file = tmp_path / "full.toml"
    league_file.write_text(league_text("full", participants=("greedy", "random"), boards=[("3x3", "hex")],
                                       games_per_pairing=120, concurrency=2))
    filler = fill(tmpfs, 100_000)
    done = hexarena("league", "run", str(league_file), "--home", str(home))
    one_line(done, home / "hexarena.db")
    partial = stored_ids(home)
    assert len(partial) < 120
    with sqlite3.connect(home / "hexarena.db") as db:
        assert db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    filler.unlink()
    rerun = hexarena("league", "run", str(league_file), "--home", str(home))
    assert rerun.returncode == 0, rerun.stderr
    assert f"120 of 120 games played ({120 - len(partial)} now)" in rerun.stderr
    ids = stored_ids(home)
    assert len(ids) == len(set(ids)) == 120

    filler = fill(tmpfs, 20_000)  # publish: the site does not fit; no half site, the old one stays
    site = tmpfs / "site"
    site.mkdir()
    (site / "index.html").write_text("the previous site\n")
    done = hexarena("publish", "full", "--out", str(site), "--home", str(home))
    one_line(done, site)
    assert [p.name for p in tmpfs.iterdir() if p.name.startswith(".")] == []
    assert (site / "index.html").read_text() == "the previous site\n"

    done = hexarena("match", "greedy", "random", "--size", "2x2", "--games", "40", "--out", str(tmpfs / "g.jsonl"),
                    "--home", str(home))
    one_line(done, tmpfs / "g.jsonl")
    assert not (tmpfs / "g.jsonl").exists() and [p.name for p in tmpfs.iterdir() if p.name.startswith(".")] == []
    filler.unlink()
    assert hexarena("publish", "full", "--out", str(site), "--home", str(home)).returncode == 0
    assert "the previous site" not in (site / "index.html").read_text()


def test_submit_on_a_full_disk_registers_nothing(tmpfs: Path, tmp_path: Path) -> None:
    home = tmpfs / "home"
    make_workspace(home).close()
    big = tmp_path / "big"
    big.mkdir()
    (big / "bot.toml").write_text('name = "big"\ncommand = ["python3", "bot.py"]\nauthor = "a"\n')
    (big / "bot.py").write_text("print('x')\n")
    (big / "data.bin").write_bytes(os.urandom(2_000_000))
    filler = fill(tmpfs, 1_000_000)
    done = hexarena("submit", str(big), "--home", str(home))
    one_line(done, home / "registry")
    assert [p.name for p in (home / "registry").iterdir() if p.name.startswith(".staging")] == []
    filler.unlink()
    assert "big" not in hexarena("bots", "--home", str(home)).stdout
