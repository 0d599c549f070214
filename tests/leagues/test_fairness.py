"""The runner's warning before a league plays more games at once than the machine has cores; games at once held to
cores of their own (``--pin-cores``: league run, serve)."""

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import HEXARENA, ROOT, make_workspace, start_server, stop_server, stored_ids, wait_for

from hexarena.leagues.running.fairness import unfair_warning


def test_no_warning_while_every_game_has_a_core():
    assert unfair_warning(1, cores=2) is None
    assert unfair_warning(2, cores=2) is None


def test_more_games_than_cores_is_one_line_with_the_measured_figure():
    line = unfair_warning(8, cores=2)
    assert line is not None and "\n" not in line
    assert line.startswith("8 games at once on 2 cores") and "--concurrency 2" in line
    assert "5.3 % of the moves of bots busy for 60 % of 200 ms timed out at 2 games per core" in line
    assert "5.3 % of the moves" in unfair_warning(5, cores=2) and "5.3 % of the moves" in unfair_warning(3, cores=2)


def test_a_heavier_load_never_quotes_a_smaller_figure_than_a_lighter_one():
    quoted = [float(unfair_warning(n, cores=2).split("machine: ")[1].split(" %")[0]) for n in range(3, 65)]
    assert quoted == sorted(quoted)


@pytest.mark.slow
def test_league_run_warns_before_it_starts(tmp_path):
    bot = tmp_path / "quick"
    bot.mkdir()
    (bot / "bot.toml").write_text('name = "quick"\ncommand = ["python3", "bot.py"]\nlanguage = "python"\n')
    (bot / "bot.py").write_text("import sys\nsys.exit(3)\n")  # never plays: the warning comes first anyway
    other = tmp_path / "other"
    other.mkdir()
    (other / "bot.toml").write_text('name = "other"\ncommand = ["python3", "bot.py"]\nlanguage = "python"\n')
    (other / "bot.py").write_text("import sys\nsys.exit(3)\n")
    league = tmp_path / "l.toml"
    league.write_text(f'name = "l"\nparticipants = ["{bot}", "{other}"]\ngames_per_pairing = 2\ntime_control = "200ms"\n'
                      'sandbox = false\n[[boards]]\nsize = "2x2"\n')
    run = subprocess.run([sys.executable, "-m", "hexarena", "league", "run", str(league), "--concurrency", "64",
                          "--home", str(tmp_path / "home"), "--no-sandbox"], capture_output=True, text=True,
                         timeout=120, cwd=tmp_path)
    warnings = [line for line in run.stderr.splitlines() if "games at once" in line]
    assert len(warnings) == 1 and warnings[0].startswith("hexarena: warning: 64 games at once on ")


def core_bot(folder: Path, name: str) -> Path:
    """bots/random as ``name``, saying on stderr (its first game's log) the cores it may run on."""
    shutil.copytree(ROOT / "bots" / "random", folder)
    (folder / "bot.toml").write_text((folder / "bot.toml").read_text().replace('name = "random"', f'name = "{name}"'))
    script = folder / "bot.py"
    script.write_text("import os, sys\nprint('cores', *sorted(os.sched_getaffinity(0)), file=sys.stderr, flush=True)\n"
                      + script.read_text())
    return folder


def core_league(folder: Path) -> Path:
    """Four games of two core bots at concurrency 2 (two workers, each with both bots)."""
    bots = [str(core_bot(folder / name, name)) for name in ("corebot", "corebot2")]
    league = folder / "pinned.toml"
    league.write_text(f'name = "pinned"\nparticipants = {json.dumps(bots)}\ngames_per_pairing = 4\n'
                      'time_control = "1s"\nconcurrency = 2\nanalysis_budget = 0\n[[boards]]\nsize = "2x2"\n')
    return league


def cores_said(home: Path) -> list[list[str]]:
    """What the core bots said in their logs: the cores each may run on (each bot says it once, as it starts)."""
    return sorted(line.split()[1:] for log in (home / "logs").rglob("*.log") for line in log.read_text().splitlines()
                  if line.startswith("cores "))


CORES = sorted(os.sched_getaffinity(0))
PAIRS_PINNED = [[str(CORES[0])]] * 2 + [[str(CORES[1 % len(CORES)])]] * 2  # worker i and its two bots on core i


@pytest.mark.slow
@pytest.mark.skipif(len(CORES) < 2, reason="needs two cores to pin two games to")
def test_pin_cores_holds_each_games_referee_and_bots_to_a_core_of_their_own(tmp_path):
    league = core_league(tmp_path)
    said = {}
    for flags in (["--pin-cores"], []):
        home = tmp_path / f"home-{len(flags)}"
        make_workspace(home).close()
        run = subprocess.run([*HEXARENA, "league", "run", str(league), "--home", str(home), *flags],
                             capture_output=True, text=True, timeout=120, check=False)
        assert run.returncode == 0, run.stderr
        said[bool(flags)] = cores_said(home)
    # two workers, each with its two bots: pinned, each pair on a core of its own; else every bot on every core
    assert said[True] == PAIRS_PINNED
    assert said[False] == [[str(core) for core in CORES]] * 4


@pytest.mark.slow
@pytest.mark.skipif(len(CORES) < 2, reason="needs two cores to pin two games to")
def test_serve_pin_cores_holds_each_served_game_and_its_bots_to_a_core_of_their_own(tmp_path):
    league = core_league(tmp_path)
    home = tmp_path / "home"
    make_workspace(home).close()
    server = start_server(home, "--league", str(league), "--pin-cores")
    try:
        wait_for(lambda: len(stored_ids(home)) == 4, 120, "the served league's 4 games")
    finally:
        stop_server(server)
    assert cores_said(home) == PAIRS_PINNED  # the league's run: as league run --pin-cores's


def test_pin_cores_on_a_run_of_one_game_at_a_time_is_one_warning_line_and_the_run_goes_on(tmp_path):
    league = core_league(tmp_path)
    home = tmp_path / "home"
    make_workspace(home).close()
    run = subprocess.run([*HEXARENA, "league", "run", str(league), "--home", str(home), "--concurrency", "1",
                          "--no-sandbox", "--pin-cores"], capture_output=True, text=True, timeout=120, check=False)
    assert run.returncode == 0, run.stderr
    assert [line for line in run.stderr.splitlines() if "--pin-cores" in line] == [
        "hexarena: warning: --pin-cores ignored: it holds games played at once to cores, and this run plays one game "
        "at a time"]
    assert "league pinned: 4 of 4 games played" in run.stderr
