"""The runner's warning before a league plays more games at once than the machine has cores."""

import subprocess
import sys

import pytest

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
