"""GET /api/games/{id}/logs/{seat} of ``hexarena serve`` (a real process): a stored game's log of one seat as plain
text, 404 in one line for an unknown game, seat or log and for a league that keeps its logs private, never a file
named by the request."""

from __future__ import annotations

import subprocess
import urllib.error
import urllib.request

import pytest
from helpers import (
    HEXARENA,
    console_errors,
    league_file,
    make_workspace,
    needs_browser,
    per_game,
    start_server,
    stop_server,
    stored_ids,
    talker_bot,
    wait_for,
)


def get(server, path: str) -> tuple[int, str, str]:
    try:
        with urllib.request.urlopen(server.url + path, timeout=60) as answer:
            return answer.status, answer.headers.get("content-type", ""), answer.read().decode()
    except urllib.error.HTTPError as answer:
        return answer.code, answer.headers.get("content-type", ""), answer.read().decode()


def run(home, *command: str) -> None:
    done = subprocess.run([*HEXARENA, *command, "--home", str(home)], capture_output=True, text=True, timeout=600,
                          check=False)
    assert done.returncode == 0, done.stderr


@pytest.mark.slow
@needs_browser
def test_a_games_seat_log_is_served_as_text_and_everything_else_is_404(tmp_path, browser):
    home = tmp_path / "home"
    make_workspace(home).close()
    talker = str(talker_bot(tmp_path / "talker"))
    path = league_file(tmp_path / "tiny.toml", "tiny", ["greedy", talker], boards=("1x2",), seed=2)
    path.write_text("analysis_budget = 0\n" + path.read_text())
    run(home, "league", "run", str(path))
    game = min(stored_ids(home))
    seats = per_game(home, "tiny")[game][0]
    talks = [seat.split("@")[0] for seat in seats].index("talker")
    quiet, move = 1 - talks, talks + 1  # seat 0 draws move 1, seat 1 move 2 (no first move closes a cell)
    server = start_server(home, "--league", str(path))  # its games are played: it publishes its site, plays none
    try:
        status, kind, text = get(server, f"/api/games/{game}/logs/{talks}")
        assert (status, kind) == (200, "text/plain; charset=utf-8")
        assert f"--- hexarena: move {move}, TURN " in text and f"<b>thinking</b> in {game}" in text
        assert get(server, f"/api/games/{game[:6]}/logs/{talks}")[0] == 200  # a unique prefix, as /api/games/{id}
        # greedy wrote nothing in the game: its seat has no log (TURN marks alone make none)
        assert not list((home / "logs" / "tiny").glob(f"{game}.seat{quiet}.*"))
        for asked, said in ((f"/api/games/{game}/logs/{quiet}", f"game {game}: seat {quiet} has no log"),
                            (f"/api/games/{game}/logs/2", f"game {game} has seats 0-1, not 2"),
                            ("/api/games/nope-nope/logs/0", "no finished game has the id 'nope-nope'"),
                            ("/api/games/..%2F..%2Fhexarena.db/logs/0", None),
                            ("/api/games/%2E%2E/logs/0", None)):
            status, kind, text = get(server, asked)
            assert status == 404 and kind == "application/json", (asked, status, text)
            assert said is None or said in text
        assert get(server, f"/api/games/{game}/logs/x")[0] == 422
        # the served site's log page (the published one, with the live script): the talker's log at its first move
        wait_for(lambda: get(server, "/leagues/tiny/log.html")[0] == 200, 60, "the league's site")
        browser.get(server.url + f"/leagues/tiny/log.html?game={game}&seat={talks}&move={move}")
        assert browser.find_element("css selector", "#lines li.mark").text.startswith(
            f"--- hexarena: move {move}, TURN ")
        assert console_errors(browser) == []
        for log in (home / "logs" / "tiny").glob(f"{game}.seat{talks}.*.log"):
            log.unlink()
        assert get(server, f"/api/games/{game}/logs/{talks}")[:1] == (404,)
        assert f"game {game}: seat {talks} has no log" in get(server, f"/api/games/{game}/logs/{talks}")[2]
    finally:
        stop_server(server)
    private = tmp_path / "private.toml"  # the league stored with its logs private (a server not playing it)
    private.write_text("publish_logs = false\n" + path.read_text())
    run(home, "league", "run", str(private))
    server = start_server(home)
    try:
        status, _, text = get(server, f"/api/games/{game}/logs/{talks}")
        assert status == 404 and "does not publish its bots' logs (publish_logs = false)" in text
    finally:
        stop_server(server)


def test_a_garbled_stored_game_is_404_in_one_line_not_an_internal_error(tmp_path):
    from hexarena.leagues.workspace.home import Workspace

    home = tmp_path / "home"
    ws = Workspace(home)
    columns = [row[1] for row in ws.db.execute("PRAGMA table_info(games)")]
    for game, record in (("aaaa-list", "[1, 2]"), ("bbbb-seats", '{"id": "bbbb-seats", "seats": 5}')):
        values = {column: "x" for column in columns} | {"id": game, "record": record}
        ws.db.execute(f"INSERT INTO games ({', '.join(values)}) VALUES ({', '.join('?' * len(values))})",
                      list(values.values()))
    ws.db.commit()
    ws.close()
    server = start_server(home)
    try:
        for game in ("aaaa", "bbbb"):
            status, kind, text = get(server, f"/api/games/{game}/logs/0")
            assert (status, kind) == (404, "application/json"), text
            assert "its stored record is garbled" in text
    finally:
        stop_server(server)
