"""The server's calibration view and ratings history (hexarena/server/api_history.py) over a real adaptive
league played by ``hexarena serve``."""

from __future__ import annotations

import json
import os
import re
import signal
import socket
import subprocess
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from helpers import HEXARENA, league_text, make_workspace, wait_for


def get(url: str) -> tuple[int, str]:
    try:
        with urllib.request.urlopen(url, timeout=60) as response:
            return response.status, response.read().decode()
    except urllib.error.HTTPError as answer:
        return answer.code, answer.read().decode()


def serve(home: Path, league: Path) -> tuple[subprocess.Popen, str]:
    """``hexarena serve`` on a free loopback port, once it answers."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    with open(home.parent / "serve.log", "wb") as log:
        process = subprocess.Popen([*HEXARENA, "serve", "--home", str(home), "--port", str(port), "--league",
                                    str(league)], stdout=subprocess.DEVNULL, stderr=log, start_new_session=True)
    url = f"http://127.0.0.1:{port}"

    def answers():
        assert process.poll() is None, (home.parent / "serve.log").read_text()
        try:
            return get(url + "/api/queue")[0] == 200
        except OSError:
            return False

    wait_for(answers, 60, "the server")
    return process, url


@pytest.mark.slow
def test_an_adaptive_league_served_shows_each_version_calibrating_and_its_history(tmp_path, browser):
    home = tmp_path / "home"
    make_workspace(home).close()
    league = tmp_path / "field.toml"
    league.write_text(league_text("field", boards=[("2x2", "hex")], concurrency=2, pairing="adaptive",
                                  league_budget=8))
    process, url = serve(home, league)
    try:
        def calibrated():
            status, text = get(url + "/api/leagues/field/calibration")
            data = json.loads(text)
            return data if status == 200 and sum(b["games"] for b in data["bots"]) == 16 else None

        data = wait_for(calibrated, 300, "the league's 8 games and their snapshot")
        assert {b["bot"] for b in data["bots"]} == {"greedy", "greedy2", "random", "random2"}
        for bot in data["bots"]:
            # a few games: far from ±50 Elo
            assert bot["calibrating"] and bot["plus_minus"] > 50
            assert bot["text"] == f"calibrating: ±{bot['plus_minus']:.0f} Elo after {bot['games']} games"
            assert re.fullmatch(r"(greedy|random)2?@[0-9a-f]{6,64}", bot["version"])
        status, text = get(url + "/api/leagues/field/history")
        history = json.loads(text)
        assert status == 200 and len(history["snapshots"]) >= 2  # one per batch: the ratings moved over time
        assert [s["batch"] for s in history["snapshots"]] == list(range(1, len(history["snapshots"]) + 1))
        games = [sum(r["games"] for r in s["ratings"]) for s in history["snapshots"]]
        assert games == sorted(games) and games[-1] == 16
        assert get(url + "/api/leagues/nosuch/calibration")[0] == 404
        assert get(url + "/leagues/nosuch/calibration")[0] == 404

        browser.get(url + "/leagues/field/calibration")
        wait_for(lambda: "calibrating: ±" in browser.find_element("id", "bots").text, 30, "the live page's rows")
        rows = browser.find_element("id", "bots").text.splitlines()
        assert len(rows) == 4 and all("Elo after" in row for row in rows)
    finally:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait()
