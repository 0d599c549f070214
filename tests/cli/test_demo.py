"""The README's main job, end to end: `hexarena demo` in a fresh workspace, then again."""

import re
import subprocess

import pytest
from helpers import HEXARENA, site_records


@pytest.mark.slow
def test_demo_league_runs_prints_its_table_and_publishes_the_site(tmp_path):
    home = tmp_path / "home"
    first = subprocess.run([*HEXARENA, "demo", "--home", str(home)], capture_output=True, text=True, check=False, timeout=300)
    assert first.returncode == 0, first.stderr
    from hexarena.referee import sandbox

    assert f"hexarena: bots run in a sandbox: {sandbox.describe()}\n" in first.stderr  # which path this machine took
    played = re.search(r"league demo: (\d+) of (\d+) games played \((\d+) now\)", first.stderr)
    assert played and played[1] == played[2] == played[3] and int(played[1]) > 0
    standings = first.stdout.split("crosstable")[0]
    rows = [line.split() for line in standings.splitlines() if line.strip()[:1].isdigit()]
    assert {"random", "greedy", "chains", "mcts", "perfect"} <= {row[1] for row in rows}
    assert rows[-1][1] == "random"  # the reference bots are all stronger than random moves
    site = home / "site" / "demo"  # publish's default too: HOME/site/NAME
    assert (site / "index.html").is_file() and (site / "standings.md").is_file()
    assert len(site_records(site)) == int(played[1])

    again = subprocess.run([*HEXARENA, "demo", "--home", str(home)], capture_output=True, text=True, check=False, timeout=300)
    assert again.returncode == 0
    assert f"league demo: {played[1]} of {played[1]} games played (0 now)" in again.stderr  # nothing replayed
