"""Each game's bot logs on the published site, opened from the replay at the move in view (``leagues/site/logs.py``,
``log.html``): the referee marks every TURN in the seat's log, ``publish`` copies the logs (escaped when shown,
none where the league says ``publish_logs = false``), and the replay's links open each seat's log at its move.

A real league of real bot processes: ``talker`` prints ``request R: <b>thinking</b> in GAME`` (markup, to be shown
as text) on every TURN; random prints nothing, which leaves it no log (TURN marks alone make none)."""

from __future__ import annotations

import json
import re
import subprocess

import pytest
from helpers import (
    HEXARENA,
    chunk_games,
    console_errors,
    league_file,
    make_workspace,
    needs_browser,
    site_records,
    talker_bot,
)

from hexarena.leagues.registry.reference import REFERENCE_AUTHOR
from hexarena.leagues.registry.submit import submit
from hexarena.leagues.site.logs import move_lines


def run(home, *command: str) -> None:
    done = subprocess.run([*HEXARENA, *command, "--home", str(home)], capture_output=True, text=True, timeout=600,
                          check=False)
    assert done.returncode == 0, done.stderr


@pytest.fixture(scope="module")
def league(tmp_path_factory):
    """talker and random on 2x2 hex, each pair twice, played and published: (site, home, records by id)."""
    root = tmp_path_factory.mktemp("logs")
    home = root / "home"
    folder = talker_bot(root / "talker")
    with make_workspace(home) as ws:
        assert submit(ws, folder, check=False, author=REFERENCE_AUTHOR).accepted
    path = league_file(root / "tiny.toml", "tiny", ["talker", "random"], boards=("2x2",), seed=5)
    path.write_text("analysis_budget = 0\n" + path.read_text())
    run(home, "league", "run", str(path))
    run(home, "publish", "tiny", "--out", str(root / "site"))
    games = site_records(root / "site")
    return root / "site", home, {record.id: record for record in games}, path


def site_logs(site, stem: str) -> dict:
    text = (site / "logs" / f"{stem}.js").read_text()
    assert text.startswith("window.HEXARENA_LOGS = ") and text.endswith(";\n")
    return json.loads(text[len("window.HEXARENA_LOGS = "):-2])


@pytest.mark.slow
def test_every_turn_is_marked_in_the_seats_log_and_publish_copies_each_games_logs(league):
    site, home, records, _ = league
    assert len(records) == 2
    games = chunk_games(site)
    for record in records.values():
        logs = site_logs(site, record.id)  # these ids are their own file stems
        talker = record.seats.index("talker")
        assert logs["game"] == record.id and sorted(logs["seats"]) == [str(talker)]  # random wrote nothing: no log
        assert games[record.id]["logs"] == [talker]
        assert not list((home / "logs" / "tiny").glob(f"{record.id}.seat{1 - talker}.*"))
        for seat, entry in logs["seats"].items():
            text, own = entry["text"], [k + 1 for k, move in enumerate(record.moves) if move.seat == int(seat)]
            assert entry["bot"] == record.seats[int(seat)]
            marks = move_lines(text)
            assert sorted(marks) == own  # one mark per TURN of the seat, naming the record's move number
            lines = text.splitlines()
            requests = [int(re.fullmatch(r"--- hexarena: move \d+, TURN (\d+)", lines[marks[k] - 1])[1]) for k in own]
            assert requests == list(range(requests[0], requests[0] + len(own)))  # the seat's TURNs, one by one
            # what the bot wrote for a TURN follows that TURN's mark
            assert [lines[marks[k]] for k in own] == [f"request {r}: <b>thinking</b> in {record.id}" for r in requests]


@pytest.mark.slow
@needs_browser
def test_the_replay_opens_each_seats_log_at_the_move_in_view(browser, league):
    site, _, records, _ = league
    record = next(iter(records.values()))
    talker = record.seats.index("talker")
    other = 1 - talker
    # a talker move with a move of the other seat before it
    move = next(k + 1 for k, m in enumerate(record.moves) if m.seat == talker and k > 0
                and any(o.seat == other for o in record.moves[:k]))
    browser.get((site / "replay.html").as_uri() + f"?game={record.id}&move={move}")
    links = {int(a.get_attribute("data-seat")): a for a in browser.find_elements("css selector", "#logs a")}
    assert sorted(links) == [talker]  # random wrote nothing: no log, no link
    assert links[talker].get_attribute("href").endswith(f"log.html?game={record.id}&seat={talker}&move={move}")
    browser.find_element("tag name", "body").send_keys("\ue014")  # → : one move on, the links follow
    assert links[talker].get_attribute("href").endswith(f"&seat={talker}&move={move + 1}")
    browser.find_element("tag name", "body").send_keys("\ue012")  # ← : back to the move
    links[talker].click()
    assert browser.current_url.split("/")[-1].startswith("log.html?")
    assert console_errors(browser) == []
    mark = browser.find_element("css selector", "#lines li.mark")
    request = int(re.fullmatch(rf"--- hexarena: move {move}, TURN (\d+)", mark.text)[1])
    number = int(mark.get_attribute("id")[1:])
    assert move_lines(site_logs(site, record.id)["seats"][str(talker)]["text"])[move] == number
    after = browser.find_element("id", f"L{number + 1}")
    assert after.text == f"request {request}: <b>thinking</b> in {record.id}"  # the bot's markup, as text
    assert browser.find_elements("css selector", "#lines b") == [] and "move" in after.get_attribute("class")
    # the marked line is in view: the log's card is scrolled to it
    assert browser.execute_script("const box = arguments[0].closest('.log-card').getBoundingClientRect(),"
                                  " line = arguments[0].getBoundingClientRect();"
                                  " return line.top >= box.top - 1 && line.bottom <= box.bottom + 1;", mark)
    # the talker's log at a move of the other seat: its last TURN before it
    theirs = next(k + 1 for k, m in enumerate(record.moves) if m.seat == other and any(
        o.seat == talker for o in record.moves[:k]))
    browser.get((site / "log.html").as_uri() + f"?game={record.id}&seat={talker}&move={theirs}")
    before = max(k + 1 for k, m in enumerate(record.moves[:theirs]) if m.seat == talker)
    assert browser.find_element("css selector", "#lines li.mark").text.startswith(f"--- hexarena: move {before}, ")
    assert "last TURN before it" in browser.find_element("id", "where").text
    # no such game, no such seat: one line, no error in the console
    for query, said in ((f"game={record.id}&seat=3", "No log of seat D"), (f"game={record.id}&seat={other}", "No log of seat"),
                        ("game=nope&seat=0", "No log of game nope"),
                        ("game=../x&seat=0", "No such game")):
        browser.get((site / "log.html").as_uri() + "?" + query)
        assert said in browser.find_element("id", "error").text
    assert [e for e in console_errors(browser) if "nope.js" not in e] == []  # only the missing file's failed load
    # a log written before the referee marked each TURN: shown from its top, and a bot's markup stays text
    (site / "logs" / "old-1.js").write_text('window.HEXARENA_LOGS = {"game": "old-1", "seats": {"0": {"bot": "x", '
                                            '"text": "thinking\\n<img src=x onerror=\\"window.pwned=1\\">\\n"}}};\n')
    browser.get((site / "log.html").as_uri() + "?game=old-1&seat=0&move=3")
    assert [li.text for li in browser.find_elements("css selector", "#lines li")] == [
        "thinking", '<img src=x onerror="window.pwned=1">']
    assert "no move marks" in browser.find_element("id", "where").text
    assert browser.find_elements("css selector", "#lines img, #lines li.mark") == []
    assert browser.execute_script("return window.pwned === undefined")


@pytest.mark.slow
def test_a_league_that_keeps_its_logs_private_publishes_none(league, tmp_path):
    site, home, _, path = league
    private = tmp_path / "private.toml"
    private.write_text("publish_logs = false\n" + path.read_text())
    run(home, "league", "run", str(private))  # every game played: the file's new option is stored
    run(home, "publish", "tiny", "--out", str(tmp_path / "site"))
    assert not list((tmp_path / "site").glob("logs/*")) and list((site / "logs").glob("*.js"))
    assert chunk_games(tmp_path / "site") and not any("logs" in entry for entry in chunk_games(tmp_path / "site").values())
    run(home, "league", "run", str(path))  # the module's other tests see the league as it was
