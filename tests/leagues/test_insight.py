"""The solver's analysis and the bots' notes on the published site: ``publish`` analyses every finished game
once (the workspace's analyses table), the replay viewer draws the value bar, marks the losing move and shows
the notes as text (they are untrusted), and a bot's page links its costliest moves to the replay at that move."""

from __future__ import annotations

import json
import re
import sqlite3
import subprocess

import pytest
from helpers import HEXARENA, bot, chunk_games, console_errors, league_file, make_workspace, needs_browser

from hexarena.leagues.results.report import compute
from hexarena.leagues.site.publish import write_site
from hexarena.referee.record import BoardConfig

NOTES = ['<img src=x onerror="window.pwned=1">', "eval +3 pv 4 7"]


@pytest.fixture(scope="module")
def published(tmp_path_factory):
    """A league of greedy and random on 2x2 and 2x3 hex, played, one record given notes, published."""
    root = tmp_path_factory.mktemp("insight")
    home = root / "home"
    make_workspace(home).close()
    league = league_file(root / "tiny.toml", "tiny", ["greedy", "random"], boards=("2x2", "2x3"), seed=3)
    league.write_text("analysis_budget = 10\n" + league.read_text())  # above the default: every position solved
    for command in (["league", "run", str(league)], ["publish", "tiny", "--out", str(root / "site")]):
        if command[0] == "publish":
            with sqlite3.connect(home / "hexarena.db") as db:
                game, text = db.execute("SELECT id, record FROM games ORDER BY id LIMIT 1").fetchone()
                record = json.loads(text)
                record["moves"][0]["info"] = NOTES
                db.execute("UPDATE games SET record = ? WHERE id = ?", (json.dumps(record), game))
        done = subprocess.run([*HEXARENA, *command, "--home", str(home)], capture_output=True, text=True,
                              timeout=600, check=False)
        assert done.returncode == 0, done.stderr
    with sqlite3.connect(home / "hexarena.db") as db:
        analyses = {g: json.loads(a) for g, a in db.execute("SELECT game, analysis FROM analyses")}
        ids = [row[0] for row in db.execute("SELECT id FROM games")]
    return root / "site", home, analyses, ids, game


@pytest.mark.slow
def test_publish_analyses_every_game_once_and_ships_the_analysis_with_its_record(published):
    site, home, analyses, ids, _ = published
    assert sorted(analyses) == sorted(ids) and len(ids) == 4
    assert all(a["solved_positions"] == len(a["values"]) for a in analyses.values())  # small boards: all solved
    games = chunk_games(site)
    assert sorted(entry["record"]["id"] for entry in games.values()) == sorted(ids)
    for entry in games.values():
        assert entry["analysis"] == analyses[entry["record"]["id"]]
    # a second publish analyses nothing again: the stored rows stay as they were
    done = subprocess.run([*HEXARENA, "publish", "tiny", "--out", str(site), "--home", str(home)],
                          capture_output=True, text=True, timeout=600, check=False)
    assert done.returncode == 0
    with sqlite3.connect(home / "hexarena.db") as db:
        assert {g: json.loads(a) for g, a in db.execute("SELECT game, analysis FROM analyses")} == analyses


@pytest.mark.slow
@needs_browser
def test_the_viewer_draws_the_values_marks_the_losing_move_and_shows_notes_as_text(browser, published):
    site, _, analyses, _, noted = published
    lost = next(g for g, a in analyses.items() if a["losing_move"] is not None)
    analysis = analyses[lost]
    move = analysis["losing_move"] + 1
    browser.get((site / "replay.html").as_uri() + f"?game={lost}&move={move}")  # hex ids: their own file stems
    assert console_errors(browser) == []
    bars = browser.find_elements("css selector", "#value-bar rect.bar")
    assert len(bars) == len(analysis["values"])
    row = browser.find_element("css selector", f"#moves tr[data-move='{move}']")
    assert "losing" in row.get_attribute("class")
    assert "the losing move" in browser.find_element("id", "missed").text
    value = analysis["values"][move]
    assert f"(value {value:+d})" in browser.find_element("id", "value-now").text or value == 0
    # the notes of the first move: shown as the text they are, never as markup
    browser.get((site / "replay.html").as_uri() + f"?game={noted}&move=1")
    assert [li.text for li in browser.find_elements("css selector", "#notes li")] == NOTES
    assert browser.find_elements("css selector", "#insight img") == []
    assert browser.execute_script("return window.pwned === undefined")
    # the bot pages link each costly move to the replay at that move
    links = [href for path in site.glob("bot-*.html")
             for href in re.findall(r'id="costliest".*?href="([^"]+)"', path.read_text(), re.DOTALL)]
    assert links and all("&amp;move=" in link for link in links)


@pytest.mark.slow
@needs_browser
def test_a_real_bots_notes_reach_its_record_its_replay_and_hexarena_replay(browser, make_referee, tmp_path):
    """The notes bot (tests/bots/notes.py) in a real game: its INFO texts are in the record, the published
    viewer shows each move's as text, and ``hexarena replay`` on the site's folder prints them."""
    record = make_referee().play([bot("notes"), bot("random")], BoardConfig(size="2x2"), game_id="noted-1", seed=5)
    said = [(k + 1, move.info) for k, move in enumerate(record.moves) if move.info]
    assert said and said[0] == (1, ["é" * 100, "move 1 id 1"])  # its first move's notes, the bad ones left out
    site = tmp_path / "site"
    write_site(site, compute("noted", [record]))
    for move, notes in said[:3]:
        browser.get((site / "replay.html").as_uri() + f"?game=noted-1&move={move}")
        assert [li.text for li in browser.find_elements("css selector", "#notes li")] == notes
    assert console_errors(browser) == []
    done = subprocess.run([*HEXARENA, "replay", "noted-1", "--file", str(site), "--delay", "0"],
                          capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 0, done.stderr
    assert f"A notes notes: {'é' * 100}\n" in done.stdout and "A notes notes: move 1 id 1\n" in done.stdout
    assert done.stdout.count("A notes notes: ") == sum(len(notes) for _, notes in said)
