"""Live results (issue 19 item 6): the game loop's observer hook, the event hub, and a real server.

The server is ``hexarena serve`` as a real process on a loopback port, playing a slow league (a bot that
sleeps before each move, 3x3 boards: a game lasts a few seconds). A raw SSE client reads ``/api/events``;
headless Chromium watches the served standings page change in place and a game in progress move by move.
``-s`` prints the measured update latency.
"""

from __future__ import annotations

import asyncio
import contextlib
import http.client
import json
import logging
import os
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from helpers import HEXARENA, console_errors, wait_for
from hypothesis import given, settings
from hypothesis import strategies as st

from hexarena.referee.clock import TimeControl
from hexarena.referee.record import BoardConfig
from hexarena.referee.referee import Referee
from hexarena.referee.seats.inprocess import InProcessSpec
from hexarena.server.events import EventHub
from hexarena.server.site import LiveSite

SLOW_BOT = '''import time
from hexarena.protocol.client import run_bot


def choose(game, state):
    time.sleep(0.12)  # a slow thinker: a spectator can watch its games move by move
    return game.rng.choice(state.legal_moves())


if __name__ == "__main__":
    run_bot(choose)
'''
LEAGUE = '''name = "live"
participants = ["slowpoke", "random"]
players = 2
games_per_pairing = 16  # about a minute of games on an idle machine: the tests that watch one in progress come late
time_control = "2s,startup=20s"
concurrency = 1
seed = 5

[[boards]]
size = "3x3"
'''


# ---- the hook: the game loop tells an observer, and a broken observer never decides a game --------------

class Recorder:
    def __init__(self, fail: bool = False) -> None:
        self.calls: list[tuple] = []
        self.fail = fail

    def started(self, game_id, seats, config):
        self.calls.append(("started", game_id, list(seats), config.label))
        if self.fail:
            raise RuntimeError("observer bug")

    def moved(self, game_id, ply, seat, line, ms):
        self.calls.append(("moved", game_id, ply, seat, line))
        if self.fail:
            raise RuntimeError("observer bug")

    def ended(self, record):
        self.calls.append(("ended", record.id, record.result.scores))


def first_line(game, state) -> int:
    return state.legal_moves()[0]


def play_observed(observer) -> object:
    with Referee(time_control=TimeControl.parse("1s,startup=5s")) as referee:
        specs = [InProcessSpec("a", first_line), InProcessSpec("b", first_line)]
        return referee.play(specs, BoardConfig(size="2x2"), game_id="obs1", seed=3, observer=observer)


def test_the_game_loop_tells_its_observer_of_the_start_every_move_and_the_end():
    observer = Recorder()
    record = play_observed(observer)
    assert observer.calls[0] == ("started", "obs1", ["a", "b"], record.config.label)
    assert observer.calls[1:-1] == [("moved", "obs1", ply, m.seat, m.line) for ply, m in enumerate(record.moves)]
    assert observer.calls[-1] == ("ended", "obs1", record.result.scores)
    assert record.result.termination == "completed"


def test_an_observer_that_raises_is_logged_once_and_the_game_is_the_same(caplog):
    quiet = play_observed(None)
    with caplog.at_level(logging.ERROR, logger="hexarena.referee.game"):
        broken = play_observed(Recorder(fail=True))
    assert [m.line for m in broken.moves] == [m.line for m in quiet.moves]
    assert broken.result == quiet.result
    failures = [r for r in caplog.records if "observer failed" in r.getMessage()]
    assert len(failures) == 1 and "obs1" in failures[0].getMessage()


class StoreFails(Recorder):
    def stored(self, record):
        self.calls.append(("stored", record.id))
        raise RuntimeError("observer bug on stored")


def test_a_league_tells_its_observer_of_each_stored_record_and_plays_on_when_it_fails(tmp_path, caplog):
    from hexarena.leagues.registry.submit import ensure_reference_bots
    from hexarena.leagues.results import store
    from hexarena.leagues.running.runner import run_league
    from hexarena.leagues.schedule.config import parse_league
    from hexarena.leagues.workspace.home import Workspace

    league = parse_league('name = "seen"\nparticipants = ["random", "greedy"]\ngames_per_pairing = 2\n'
                          'time_control = "2s,startup=20s"\n\n[[boards]]\nsize = "2x2"\n')
    observer = StoreFails()
    with Workspace(tmp_path / "home") as ws, caplog.at_level(logging.ERROR, logger="hexarena.leagues.runner"):
        ensure_reference_bots(ws)
        summary = run_league(ws, league, concurrency=1, progress=False, observer=observer)
        stored = {record.id: record for record in store.records(ws, "seen")}
    assert summary.played == 2 and len(stored) == 2
    assert [c[1] for c in observer.calls if c[0] == "stored"] == [c[1] for c in observer.calls if c[0] == "ended"]
    assert {c[1]: c[2] for c in observer.calls if c[0] == "ended"} == {i: r.result.scores for i, r in stored.items()}
    for game, record in stored.items():  # every move of every game, in order
        assert [c[2] for c in observer.calls if c[0] == "moved" and c[1] == game] == list(range(len(record.moves)))
    assert sorted(r.getMessage().split()[2].rstrip(":") for r in caplog.records) == sorted(stored)


# ---- the hub: bounded memory whatever the clients do ----------------------------------------------------

def test_a_subscriber_that_falls_behind_is_dropped_and_keepalives_fill_quiet_streams():
    async def scenario():
        hub = EventHub(queue_size=5, keepalive=0.05)
        reader, lagging, elsewhere = hub.stream(), hub.stream(), hub.stream(league="y")
        assert (await anext(reader)).startswith("retry: ")
        assert (await anext(lagging)).startswith("retry: ")  # subscribed, then never read while events come
        assert (await anext(elsewhere)).startswith("retry: ")  # follows another league: hears none of these
        assert await anext(reader) == ": keep-alive\n\n"

        async def read_all() -> list[str]:
            return [frame async for frame in reader if "event:" in frame]

        reading = asyncio.create_task(read_all())

        def send() -> None:
            for n in range(20):
                hub.publish("standings", {"league": "x", "n": n})
                time.sleep(0.005)

        await asyncio.to_thread(send)
        await asyncio.sleep(0.1)
        assert [frame async for frame in lagging] == []  # 5 events behind: its queue emptied and its stream ended
        assert len(hub._subscribers) == 2
        hub.publish("standings", {"league": "y"})
        assert '"league":"y"' in await anext(elsewhere)  # the first it hears: none of league x's 20
        hub.close()
        frames = await reading
        heard = [json.loads(frame.split("data: ")[1]) for frame in frames]  # every league's
        assert heard == [{"league": "x", "n": n} for n in range(20)] + [{"league": "y"}]
        assert [frame async for frame in elsewhere] == []  # closed too
        assert not hub._subscribers

    asyncio.run(scenario())


def test_a_move_wakes_the_event_loop_once_for_all_its_streams():
    async def scenario():
        hub = EventHub()
        loop = asyncio.get_running_loop()
        wakeups = []
        real = loop.call_soon_threadsafe
        loop.call_soon_threadsafe = lambda *args: (wakeups.append(args[0]), real(*args))[1]
        streams = [hub.stream() for _ in range(100)]
        for stream in streams:
            assert (await anext(stream)).startswith("retry: ")

        def send() -> None:
            for ply in range(10):
                hub.publish("move", {"league": "x", "game": "g", "ply": ply})

        await asyncio.to_thread(send)
        for stream in streams:  # every stream hears every move, in order
            frames = [await anext(stream) for _ in range(10)]
            assert [json.loads(f.split("data: ")[1])["ply"] for f in frames] == list(range(10))
        offers = [w for w in wakeups if getattr(w, "__name__", "") in ("offer", "_offer_all")]  # not to_thread's own
        assert len(offers) == 10  # one per move, not one per stream and move (1,000)
        hub.close()
        for stream in streams:
            assert [frame async for frame in stream] == []

    asyncio.run(scenario())


def test_games_in_progress_are_bounded_and_forgotten_when_they_end():
    hub = EventHub(max_live=3)
    observer = hub.observer("league")
    config = BoardConfig(size="2x2")
    for n in range(5):
        observer.started(f"g{n}", ["a", "b"], config)
    assert [g["game"] for g in hub.live_games()] == ["g2", "g3", "g4"]
    observer.moved("g4", 0, 0, 7, 1.5)
    assert hub.live_game("g4")["moves"] == [{"ply": 0, "seat": 0, "line": 7, "ms": 1.5}]
    record = play_observed(observer)  # started (g2 forgotten: 3 at most), then ended
    assert [g["game"] for g in hub.live_games()] == ["g3", "g4"]  # in progress: the ended game is not listed
    observer.stored(record)  # no served site: the standings include it at once, and so it is forgotten
    assert hub.live_game(record.id) is None


def test_an_ended_game_is_kept_with_its_end_until_its_leagues_site_is_published_with_it():
    """A spectator who opens replay.html?live=ID after the end and before the site has the record is answered
    the game's moves and its end (the final position), not a 404 that sends them to a record not published yet."""
    hub = EventHub()
    site = []
    hub.on_stored = lambda league, record: site.append(record.id)  # what the served site does: publish later
    observer = hub.observer("league")
    record = play_observed(observer)
    ended = hub.live_game(record.id)
    assert ended["end"] == {"scores": record.result.scores, "placements": record.result.placements,
                            "termination": "completed", "offender": None}
    assert [(m["seat"], m["line"]) for m in ended["moves"]] == [(m.seat, m.line) for m in record.moves]
    assert hub.stored_games("league") == [] and hub.live_games() == []  # ended, not stored yet
    observer.stored(record)
    assert site == [record.id] and hub.stored_games("league") == [record.id] and hub.stored_games("other") == []
    assert hub.live_game(record.id)["end"] is not None  # stored, the site not published yet
    hub.forget(hub.stored_games("league"))  # the site was published with it
    assert hub.live_game(record.id) is None


@pytest.fixture(scope="module")
def small_site(tmp_path_factory) -> tuple[LiveSite, Path]:
    """A served site of one league "x" with a page, a stylesheet, the manifest, and a file beside the site."""
    home = tmp_path_factory.mktemp("paths")
    folder = home / "site" / "x"
    (folder / "static").mkdir(parents=True)
    (folder / "index.html").write_text("<html><head></head></html>")
    (folder / "static" / "a.css").write_text("a")
    (folder / ".hexarena-site.json").write_text("{}")
    (home / "site" / "secret.txt").write_text("not the site's")
    return LiveSite(home, ["x"], EventHub()), folder


@settings(max_examples=150, deadline=None)
@given(path=st.lists(st.sampled_from(["..", ".", "/", "\\", "site", "x", "static", "a.css", "index.html", "secret.txt",
                                      ".hexarena-site.json", "%2e", "\x00", "~", "a" * 300]), max_size=8).map("".join)
       | st.text(max_size=40))
def test_a_served_path_is_a_file_of_the_site_or_404(small_site, path):
    from fastapi import HTTPException

    site, folder = small_site
    try:
        response = site._file("x", path)
    except HTTPException as exc:
        assert exc.status_code == 404
        return
    served = getattr(response, "path", None)
    if served is not None:  # a file response: inside the site folder, never a hidden file
        assert folder.resolve() in Path(served).resolve().parents and not Path(served).name.startswith(".")
    else:
        assert b"live.js" in response.body


# ---- a real server ------------------------------------------------------------------------------------

def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def get(port: int, path: str) -> tuple[int, bytes]:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        connection.request("GET", path)
        response = connection.getresponse()
        return response.status, response.read()
    finally:
        connection.close()


def get_json(port: int, path: str):
    status, body = get(port, path)
    assert status == 200, (path, status, body[:300])
    return json.loads(body)


class EventReader(threading.Thread):
    """A raw SSE client: every event as (arrival time, kind, data)."""

    def __init__(self, port: int) -> None:
        super().__init__(daemon=True)
        self.port = port
        self.events: list[tuple[float, str, dict]] = []
        self.comments = 0
        self.status = None
        self.connection: http.client.HTTPConnection | None = None

    def run(self) -> None:
        connection = self.connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=120)
        try:
            connection.request("GET", "/api/events", headers={"Accept": "text/event-stream"})
            response = connection.getresponse()
            self.status = (response.status, response.getheader("Content-Type"))
            kind, data = None, []
            for raw in response:
                line = raw.decode().rstrip("\n")
                if line.startswith(":"):
                    self.comments += 1
                elif line.startswith("event: "):
                    kind = line[7:]
                elif line.startswith("data: "):
                    data.append(line[6:])
                elif not line and kind:
                    self.events.append((time.time(), kind, json.loads("\n".join(data))))
                    kind, data = None, []
        except OSError:
            pass  # the server stopped
        finally:
            connection.close()

    def close(self) -> None:
        """Hang up, as a spectator closing the page: else the server's stop waits its 5 s grace for this stream."""
        sock = self.connection.sock if self.connection is not None else None
        if sock is not None:
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)
        if self.is_alive():
            self.join(10)

    def after(self, first: tuple[str, str], kind: str) -> list[dict]:
        """The events of ``kind`` that came after the ``(kind, game)`` event ``first``."""
        seen = list(self.events)
        at = next((i for i, (_, k, d) in enumerate(seen) if (k, d.get("game")) == first), len(seen))
        return [d for _, k, d in seen[at + 1:] if k == kind]

    def of(self, kind: str, game: str | None = None) -> list[dict]:
        return [d for _, k, d in list(self.events) if k == kind and (game is None or d.get("game") == game)]




def register(home: Path, bot: Path) -> None:
    """The reference bots and ``bot`` registered in ``home`` as ``hexarena submit`` would, less its check: the
    check plays a dozen games of the slow bot (about 10 s), and what these tests watch is the server."""
    from hexarena.leagues.registry.submit import ensure_reference_bots, submit
    from hexarena.leagues.workspace.home import Workspace

    with Workspace(home) as ws:
        ensure_reference_bots(ws)
        assert submit(ws, bot, check=False).accepted


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    """``hexarena serve`` playing the slow league; an SSE client connected before the first game."""
    root = tmp_path_factory.mktemp("live")
    home, bot = root / "home", root / "slowpoke"
    bot.mkdir()
    (bot / "bot.py").write_text(SLOW_BOT)
    (bot / "bot.toml").write_text('name = "slowpoke"\ncommand = ["python3", "bot.py"]\nlanguage = "python"\n'
                                  'author = "tests"\n')
    register(home, bot)
    (root / "live.toml").write_text(LEAGUE)
    port = free_port()
    with open(root / "server.log", "w") as log:
        process = subprocess.Popen([*HEXARENA, "serve", "--league", str(root / "live.toml"), "--port", str(port),
                                    "--home", str(home)], stdout=log, stderr=subprocess.STDOUT,
                                   env={**os.environ, "PYTHONUNBUFFERED": "1"})
        reader = EventReader(port)
        try:
            def up():
                try:
                    return get(port, "/api/leagues")[0] == 200
                except OSError:
                    return False

            wait_for(up, 60, "the server answers")
            reader.start()
            wait_for(lambda: reader.status, 10, "the event stream opens")
            yield {"port": port, "home": home, "events": reader, "process": process}
        finally:
            reader.close()
            process.terminate()
            try:
                process.wait(20)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        print((root / "server.log").read_text()[-3000:], file=sys.stderr)


@pytest.mark.slow
def test_an_sse_client_sees_a_game_start_its_moves_and_its_end_with_the_stored_scores(server):
    events, port = server["events"], server["port"]
    assert events.status == (200, "text/event-stream; charset=utf-8")
    started = wait_for(lambda: events.of("game_started"), 60, "a game starts")[0]
    game = started["game"]
    assert started["league"] == "live" and sorted(started["seats"]) == ["random", "slowpoke"]
    assert started["config"]["size"] == "3x3"
    in_progress = wait_for(lambda: len(events.of("move", game)) >= 3 and get_json(port, "/api/live/games?league=live"),
                           30, "the game is in progress with moves")
    assert [g["game"] for g in in_progress] == [game]
    ended = wait_for(lambda: events.of("game_ended", game), 60, "the game ends")[0]
    wait_for(lambda: events.after(("game_ended", game), "standings"), 30, "the stored game's standings announced")
    record = get_json(port, f"/api/games/{game}")
    assert ended == {"league": "live", "game": game, "scores": record["result"]["scores"],
                     "placements": record["result"]["placements"], "termination": record["result"]["termination"],
                     "offender": record["result"]["offender"]}
    moves = events.of("move", game)
    assert [(m["ply"], m["seat"], m["line"]) for m in moves] == [
        (ply, m["seat"], m["line"]) for ply, m in enumerate(record["moves"])]
    assert status_of(port, f"/api/live/games/{game}") == 404  # forgotten once over
    assert record["seats"] == started["seats"]


def status_of(port: int, path: str) -> int:
    return get(port, path)[0]


@pytest.mark.slow
def test_the_served_site_has_the_live_script_and_the_published_site_on_disk_has_none(server):
    port, home = server["port"], server["home"]
    wait_for(lambda: (home / "site" / "live" / "index.html").is_file(), 60, "the site is published")
    status, page = get(port, "/leagues/live/index.html")
    assert status == 200 and b'<script src="../../live.js"></script>' in page
    assert b"live.js" not in (home / "site" / "live" / "index.html").read_bytes()
    assert get(port, "/live.js")[0] == 200
    assert get(port, "/")[0] == 200 and b'href="leagues/live/"' in get(port, "/")[1]
    assert b'href="site.css"' in get(port, "/")[1] and get(port, "/site.css")[0] == 200  # the results site's look
    assert b'<a class="served-by" href="../../"' in page  # and the way back to it
    assert b"served-by" not in (home / "site" / "live" / "index.html").read_bytes()
    for path in ("/leagues/other/index.html", "/leagues/live/.hexarena-site.json", "/leagues/live/%2e%2e/%2e%2e/hexarena.db",
                 "/leagues/live/..%2F..%2Fhexarena.db", "/leagues/live/nothing.html"):
        assert status_of(port, path) == 404, path


def standings_row(driver, bot: str):
    for row in driver.find_elements("css selector", "#standings tbody tr"):
        if row.find_element("css selector", "td.bot a").text == bot:
            return row
    return None


def games_of(driver, bot: str) -> int | None:
    row = standings_row(driver, bot)
    return None if row is None else int(row.find_elements("css selector", "td")[2].get_attribute("textContent"))


@pytest.mark.slow
def test_the_standings_page_changes_in_place_when_a_game_ends(server, browser):
    port, events = server["port"], server["events"]
    browser.get(f"http://127.0.0.1:{port}/leagues/live/index.html")
    wait_for(lambda: games_of(browser, "slowpoke"), 60, "the standings show a game (the first page reloads once)")
    wait_for(lambda: browser.execute_script("return window.HEXARENA_LIVE && document.readyState === 'complete'"),
             10, "live.js runs")
    before = games_of(browser, "slowpoke")
    # the rows stay the same elements (their contents move as ranks change): each is marked, and keeps its mark
    browser.execute_script("window.__mark = 'no reload'; document.querySelectorAll('#standings tbody tr')"
                           ".forEach((row) => { row.__mark = 'same row'; });")
    after = wait_for(lambda: (n := games_of(browser, "slowpoke")) != before and n, 60, "the played count changes")
    assert after > before
    assert browser.execute_script("return window.__mark") == "no reload"
    marks = browser.execute_script("return Array.from(document.querySelectorAll('#standings tbody tr'), (r) => r.__mark)")
    assert marks and set(marks) == {"same row"}
    standings = get_json(port, "/api/leagues/live/standings")["standings"]
    assert after == next(row["games"] for row in standings if row["bot"] == "slowpoke")
    # the latency of this change: from the end of the game that caused it (its record's finish time, the last
    # game_ended before the change) and from the SSE client's receipt of the standings event, to the browser's DOM
    updated = browser.execute_script("return window.HEXARENA_LIVE.updated") / 1000
    ends = [(t, d["game"]) for t, kind, d in list(events.events) if kind == "game_ended" and t < updated]
    announced = [t for t, kind, _ in list(events.events) if kind == "standings" and t < updated]
    finished = _epoch(get_json(port, f"/api/games/{ends[-1][1]}")["finished"])
    print(f"\nlive standings page: game end -> row changed in the browser {1000 * (updated - finished):.0f} ms; "
          f"game_ended at an SSE client after {1000 * (ends[-1][0] - finished):.0f} ms; standings event at an SSE "
          f"client -> DOM change {1000 * (updated - announced[-1]):.0f} ms")
    assert console_errors(browser) == []


def _epoch(text: str) -> float:
    from datetime import datetime

    return datetime.fromisoformat(text).timestamp()


@pytest.mark.slow
def test_the_games_page_lists_games_in_progress_and_a_spectator_sees_moves_appear(server, browser):
    port, events = server["port"], server["events"]
    browser.get(f"http://127.0.0.1:{port}/leagues/live/games.html")

    def listed() -> list[str] | None:  # the list is redrawn as games start and end: read it in one go
        return browser.execute_script(
            "const row = document.querySelector('#live-rows tr');"
            "return row && Number(row.querySelector('.live-moves').textContent) <= 8 &&"  # with moves left to see
            "  [row.dataset.game, row.querySelector('a').href];")

    # a game that ends while the page is open joins the list of finished games in place (its list part refetched)
    browser.execute_script("window.__mark = 'games page'")
    first_game = wait_for(listed, 60, "a game in progress listed")[0]
    wait_for(lambda: events.of("game_ended", first_game), 60, "that game ends")
    wait_for(lambda: browser.execute_script(
        "return [...document.querySelectorAll('#rows a')].some((a) => a.href.includes(arguments[0]))", first_game),
        30, "the finished game listed without a reload")
    assert browser.execute_script("return window.__mark") == "games page"

    game, watch = wait_for(lambda: (found := listed()) and found[0] != first_game and found, 60,
                           "the next game in progress listed near its start")
    assert watch.endswith(f"/leagues/live/replay.html?live={game}")
    browser.get(watch)
    wait_for(lambda: browser.find_element("id", "viewer").is_displayed(), 20, "the spectator's viewer opens")

    def shown() -> int:
        counter = browser.find_element("id", "counter").text  # "Move k / n"
        return int(counter.split("/")[1]) if "/" in counter else -1

    browser.execute_script("window.__mark = 'spectating'")
    first = shown()
    assert not events.of("game_ended", game), "the game ended before the viewer opened: the test's bot is too fast"
    wait_for(lambda: shown() > first, 20, "a move appears")
    ended = wait_for(lambda: events.of("game_ended", game), 60, "the game ends")[0]
    wait_for(lambda: browser.execute_script("return window.HEXARENA_LIVE.ended"), 10, "the viewer shows the end")
    assert browser.execute_script("return window.__mark") == "spectating"  # followed without a reload
    link = wait_for(lambda: browser.find_elements("id", "record-link"), 30, "a link to the stored record")
    record = get_json(port, f"/api/games/{game}")
    assert shown() == len(record["moves"])
    assert [int(e.text) for e in browser.find_elements("css selector", "#scores li .score")] == record["result"]["scores"]
    assert browser.find_element("id", "final-scores").text == "final scores " + "–".join(map(str, ended["scores"]))
    link[0].click()
    wait_for(lambda: "final scores" in browser.find_element("id", "final-scores").text and
             browser.find_element("id", "viewer").is_displayed(), 20, "the finished game's replay")
    assert console_errors(browser) == []


def looks(driver) -> dict:
    """What the eye sees of a page's style: the body's font and colours, the header's bar, a link's colour."""
    return driver.execute_script(
        "const css = (e, p) => e ? getComputedStyle(e)[p] : null, header = document.querySelector('header.top');"
        "return {font: css(document.body, 'fontFamily'), size: css(document.body, 'fontSize'),"
        "  ink: css(document.body, 'color'), background: css(document.body, 'backgroundColor'),"
        "  bar: css(header, 'backgroundColor'), brand: css(header && header.querySelector('.brand'), 'color'),"
        "  link: css(document.querySelector('main a'), 'color')}")


@pytest.mark.slow
def test_the_root_page_looks_like_the_results_site_and_each_league_page_links_back_to_it(server, browser):
    port, home = server["port"], server["home"]
    wait_for(lambda: (home / "site" / "live" / "standings.json").is_file(), 60, "the site is published")
    root = f"http://127.0.0.1:{port}/"
    browser.get(root + "leagues/live/index.html")
    league_look = looks(browser)
    browser.get(root)
    assert looks(browser) == league_look  # the same stylesheet: font, colours, the header bar, links
    assert browser.find_element("css selector", "header.top .brand").text == "⬡ hexarena"
    row = browser.find_element("css selector", "#leagues tbody tr")
    cells = [td.text for td in row.find_elements("css selector", "td")]
    facts = get_json(port, "/api/leagues/live/standings")
    assert cells[0] == "live" and int(cells[1]) > 0 and cells[2] == "2", cells  # its games, its bots
    assert cells[3] in {r["bot"] for r in facts["standings"]}  # its leader
    assert browser.find_element("link text", "API (/docs)").get_attribute("href") == root + "docs"
    browser.set_window_size(400, 900)
    try:
        assert browser.execute_script("return document.documentElement.scrollWidth <= "
                                      "document.documentElement.clientWidth"), "the root page scrolls sideways at 400 px"
    finally:
        browser.set_window_size(1280, 900)

    row.find_element("link text", "live").click()
    wait_for(lambda: browser.current_url == root + "leagues/live/" and browser.find_elements("id", "standings"), 20,
             "the league's standings")
    bot_page = browser.find_element("css selector", "#standings td.bot a").get_attribute("href")
    game = get_json(port, "/api/leagues/live/games")["games"][0]["id"]
    # every page of the site has the way back; eight pages in a row, as a visitor clicks about: a page left
    # closes its event stream (HTTP/1.1 allows a browser 6 connections to the server: with the streams of the
    # pages kept for "back" open, the 7th page never loaded)
    for page in 2 * [root + "leagues/live/games.html", bot_page, root + f"leagues/live/replay.html?game={game}",
                     root + "leagues/live/index.html"]:
        browser.get(page)
        back = browser.find_element("css selector", "header.top nav a")  # the header's first link
        assert back.text == "← All leagues" and back.get_attribute("href") == root, page
    back.click()
    wait_for(lambda: browser.current_url == root and browser.find_elements("id", "leagues"), 20, "back at the root")
    assert console_errors(browser) == []


@pytest.mark.slow
def test_the_api_docs_page_works_offline(server, browser):
    """/docs is Swagger UI with its scripts served by the server (fastapi-offline), none from a CDN: this machine
    has no internet, so the page renders the API's operations only if nothing is fetched from outside."""
    port = server["port"]
    status, page = get(port, "/docs")
    assert status == 200 and "cdn" not in page.decode().lower()
    assert get(port, "/docs/assets/swagger-ui-bundle.js")[0] == 200
    browser.get(f"http://127.0.0.1:{port}/docs")
    wait_for(lambda: browser.execute_script("return document.querySelectorAll('.opblock').length"), 30,
             "Swagger UI lists the operations")
    paths = browser.execute_script("return Array.from(document.querySelectorAll('.opblock-summary-path'), "
                                   "(e) => e.textContent.replace(/\\u200b/g, ''))")
    assert {"/api/bots", "/api/queue", "/api/leagues/{name}/standings"} <= set(paths)
    assert console_errors(browser) == []


def counter(driver) -> str:
    """The replay viewer's "Move k / n", or "" while it is not shown."""
    return driver.execute_script("const viewer = document.getElementById('viewer');"
                                 "return viewer && !viewer.hidden ? document.getElementById('counter').textContent : ''")


@pytest.mark.slow
def test_a_spectator_who_comes_just_after_the_end_sees_the_final_position(tmp_path, browser, monkeypatch):
    """replay.html?live=ID opened when the game has ended and the site does not have its record yet (its publish
    held back here), then again once the site has it: both times the final position and the final scores, never
    move 0 on an empty board. The server is uvicorn in this process, so that the test can hold the publish."""
    import uvicorn

    from hexarena.server import site as served_site
    from hexarena.server.app import create_app

    home, bot = tmp_path / "home", tmp_path / "slowpoke"
    bot.mkdir()
    (bot / "bot.py").write_text(SLOW_BOT)
    (bot / "bot.toml").write_text('name = "slowpoke"\ncommand = ["python3", "bot.py"]\nlanguage = "python"\n')
    register(home, bot)
    (tmp_path / "live.toml").write_text(LEAGUE)
    gate, publish = threading.Event(), served_site.publish
    gate.set()
    monkeypatch.setattr(served_site, "publish", lambda *args: gate.wait(60) and publish(*args))
    port = free_port()
    server = uvicorn.Server(uvicorn.Config(create_app(home, [tmp_path / "live.toml"]), host="127.0.0.1", port=port,
                                           log_level="warning", timeout_graceful_shutdown=5))  # as hexarena serve
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    events = EventReader(port)
    try:
        wait_for(lambda: server.started, 60, "the server answers")
        events.start()
        wait_for(lambda: events.status, 10, "the event stream opens")
        first = wait_for(lambda: events.of("game_ended"), 90, "the first game ends")[0]["game"]
        wait_for(lambda: events.after(("game_ended", first), "standings"), 30, "the site has the first game")
        gate.clear()  # from now on the site is not published: an ended game stays the server's

        game = wait_for(lambda: events.of("game_ended")[1:], 90, "the next game ends")[0]["game"]
        url = f"http://127.0.0.1:{port}/leagues/live/replay.html?live={game}"
        browser.get(url)
        record = wait_for(lambda: (found := get(port, f"/api/games/{game}"))[0] == 200 and json.loads(found[1]), 30,
                          "the record is stored")
        total, scores = len(record["moves"]), record["result"]["scores"]
        wait_for(lambda: counter(browser) == f"Move {total} / {total}", 20, "the final position")
        assert "live=" in browser.current_url and get_json(port, f"/api/live/games/{game}")["end"]["scores"] == scores
        assert [int(e.text) for e in browser.find_elements("css selector", "#scores li .score")] == scores
        assert len(browser.find_elements("css selector", "#board line.drawn")) == total  # every move's line
        assert browser.find_element("id", "final-scores").text == "final scores " + "–".join(map(str, scores))
        assert not browser.find_elements("id", "record-link")  # the site does not have the record yet

        gate.set()  # the site is published with the game: the spectator is offered the record
        link = wait_for(lambda: browser.find_elements("id", "record-link"), 30, "the record's link")
        assert link[0].get_attribute("href").endswith(f"replay.html?game={game}&move=end")
        assert status_of(port, f"/api/live/games/{game}") == 404  # forgotten once in the site
        browser.get(url)  # later: the record, at its final position
        wait_for(lambda: "game=" in browser.current_url and counter(browser) == f"Move {total} / {total}", 20,
                 "the record at its final position")
        assert [int(e.text) for e in browser.find_elements("css selector", "#scores li .score")] == scores
        # the one failed load: the spectator's question whether the game is still the server's (404: in the site)
        assert [e for e in console_errors(browser) if f"/api/live/games/{game} " not in e] == []
    finally:
        gate.set()
        browser.get("about:blank")  # the page's streams closed, and ours: the server stops without its 5 s grace
        events.close()
        server.should_exit = True
        thread.join(60)
