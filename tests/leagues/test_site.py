"""The published results site, opened in a real headless browser (Debian's chromium, driven by Selenium),
plus the standings files, `hexarena publish` and `hexarena replay`.

The records are games played in-process by the rules engine with random moves (a few of them ended by
a fault), so the tests need no bot processes; the CLI tests store them in a real workspace first.
"""

from __future__ import annotations

import contextlib
import csv
import hashlib
import json
import os
import random
import re
import shutil
import subprocess
import sys
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest
from helpers import (
    GREEDY,
    RANDOM,
    ROOT,
    chunk_games,
    console_errors,
    fixture_home,
    league_file,
    needs_browser,
    replay_url,
    site_records,
)

from hexarena.leagues.results import definitions, store
from hexarena.leagues.results.report import compute, game_files
from hexarena.leagues.results.wording import summary
from hexarena.leagues.schedule.config import parse_league
from hexarena.leagues.schedule.games import ScheduledGame
from hexarena.leagues.site import publish
from hexarena.leagues.site.publish import bot_pages, standings_markdown, write_site
from hexarena.leagues.workspace.home import Workspace
from hexarena.protocol.errors import BotFault
from hexarena.referee.clock import TimeControl
from hexarena.referee.record import BoardConfig, GameRecord, HostStall
from hexarena.referee.referee import Referee
from hexarena.referee.seats.inprocess import InProcessSpec

GOLDEN = Path(__file__).parents[1] / "golden" / "standings.md"

BOTS = ["greedy@1a2b3c4d5e", "random@99aa00bb11", "chain@cafe0123ab", 'odd<b>"&\'name']
CONFIGS = [BoardConfig(size="3x3"), BoardConfig(size="2x3", geometry="square"),
           BoardConfig(size="2x2", misere=True, border=True)]
START = datetime(2026, 11, 1, 12, 0, tzinfo=UTC)


# ---- records made by playing random games in-process ------------------------------------------------

def fixture_referee() -> Referee:
    """The referee of the fixture games: their in-process seats need no processes. Their faults are the ones
    ``play`` makes: a clock that a loaded machine could run out (a random choice stalled past 200 ms in a CI run
    beside a 15 GiB solve) would end a game the fixture counts on."""
    return Referee(time_control=TimeControl.parse("60s,startup=60s"))


def play(referee: Referee, config: BoardConfig, seats: list[str], rng: random.Random, number: int,
         fault: tuple[int, int, str] | None = None) -> GameRecord:
    """A random game in the referee's game loop (in-process seats); ``fault = (seat, after this many moves,
    reason)`` faults that seat then. Think times are drawn from ``rng``, dates fixed: the records are reproducible."""
    think_ms: list[float] = []

    def choose(game, state) -> int:
        nonlocal fault
        if fault and fault[0] == game.seat and len(think_ms) >= fault[1]:
            reason, fault = fault[2], None
            raise BotFault(reason, f"{reason} at move {len(think_ms)}")
        line = rng.choice(state.legal_moves())
        think_ms.append(round(rng.lognormvariate(1.5, 1), 2))
        return line

    specs = [InProcessSpec(name, choose) for name in seats]
    record = referee.play(specs, config, game_id=f"g{number:05d}", seed=number)
    when = START + timedelta(minutes=number)
    moves = [move.model_copy(update={"ms": ms}) for move, ms in zip(record.moves, think_ms, strict=True)]
    return record.model_copy(update={"started": when, "finished": when + timedelta(seconds=2), "moves": moves})


def small_league(seed: int = 7) -> list[GameRecord]:
    """Every pair of BOTS twice on every configuration, a few games ended by faults, and two 3-player games."""
    rng = random.Random(seed)
    records = []
    with fixture_referee() as referee:
        for config in CONFIGS:
            for i, a in enumerate(BOTS):
                for b in BOTS[i + 1:]:
                    for seats in ([a, b], [b, a]):
                        n = len(records)
                        fault = (1, 4, ("timeout", "crashed", "illegal_line")[n % 3]) if n % 11 == 5 else None
                        records.append(play(referee, config, seats, rng, n, fault))
        three = BoardConfig(size="2x2", players=3)
        records.append(play(referee, three, BOTS[:3], rng, len(records)))
        records.append(play(referee, three, BOTS[1:], rng, len(records), fault=(2, 3, "timeout")))
    return records


def big_league(games: int, seed: int = 3) -> list[GameRecord]:
    rng = random.Random(seed)
    configs = [BoardConfig(size="1x2"), BoardConfig(size="1x2", geometry="square")]
    with fixture_referee() as referee:
        return [play(referee, configs[n % 2], rng.sample(BOTS[:3], 2), rng, n,
                     (0, 1, "timeout") if n % 50 == 7 else None) for n in range(games)]


@pytest.fixture(scope="module")
def records() -> list[GameRecord]:
    return small_league()


@pytest.fixture(scope="module")
def site(records, tmp_path_factory) -> Path:
    """The published site of the small league, with one bot log beside a fault."""
    logs = tmp_path_factory.mktemp("logs")
    faulty = next(r for r in records if r.result.forfeits)
    offender = faulty.result.offender
    (logs / f"{faulty.id}.seat{offender}.bot.log").write_text("thinking...\nTraceback: ZeroDivisionError in search\n")
    out = tmp_path_factory.mktemp("site")
    write_site(out, compute("demo", records, logs_dir=logs))
    return out


# ---- the browser (the fixture is in conftest.py) ---------------------------------------------------------

def text(driver, element_id: str) -> str:
    return driver.find_element("id", element_id).text


def click(driver, element_id: str) -> None:
    driver.find_element("id", element_id).click()


def shown_scores(driver) -> list[int]:
    return [int(e.text) for e in driver.find_elements("css selector", "#scores li .score")]


def drawn_lines(driver) -> int:
    return len(driver.find_elements("css selector", "#board line.drawn"))


def click_move(driver, number: int) -> None:
    """Click a row of the move list, scrolled to the middle of the list as a user would see it."""
    row = driver.find_element("css selector", f"#moves tr[data-move='{number}']")
    driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", row)
    row.click()


@pytest.mark.slow
@needs_browser
def test_every_page_loads_without_console_errors_and_every_link_resolves(browser, site, records):
    root = site.resolve()
    queue, seen, replays = [(root / "index.html").as_uri()], set(), set()
    while queue:
        url = queue.pop()
        if url in seen:
            continue
        seen.add(url)
        browser.get(url)
        assert console_errors(browser) == [], url
        if "/replay.html" in url:
            assert browser.find_element("id", "viewer").is_displayed(), url
            replays.add(urlsplit(url).query)
        assets = browser.execute_script("return Array.from(document.querySelectorAll('[src], link[href]'),"
                                        " e => e.src || e.href)")
        for asset in assets:  # scripts, styles, the current game's data: all inside the site, no network
            assert urlsplit(asset).scheme in ("file", "data"), f"{url} loads {asset}"
        for link in browser.execute_script("return Array.from(document.querySelectorAll('a[href]'), a => a.href)"):
            parts = urlsplit(link)
            assert parts.scheme == "file", f"{url} links off the site: {link}"
            target = Path(unquote(parts.path))
            assert target.is_file() and root in target.parents, f"{url}: broken link {link}"
            if target.suffix == ".html":
                queue.append(link)
    files = game_files(records)
    assert replays >= {f"game={files[r.id]}" for r in records}  # the games list links every game
    pages = {Path(urlsplit(u).path).name for u in seen}
    assert {"index.html", "games.html", "replay.html"} <= pages
    assert len([p for p in pages if p.startswith("bot-")]) == len(BOTS)


@pytest.mark.slow
@needs_browser
def test_viewer_controls_change_the_board_and_the_move_counter(browser, site, records):
    record = next(r for r in records if r.config == CONFIGS[0] and r.result.termination == "completed")
    total = len(record.moves)
    browser.get(replay_url(site, record, game_files(records)))
    assert text(browser, "counter") == f"Move 0 / {total}"
    assert drawn_lines(browser) == 0 and shown_scores(browser) == [0, 0]
    for _ in range(3):
        click(browser, "forward")
    assert text(browser, "counter") == f"Move 3 / {total}" and drawn_lines(browser) == 3
    click(browser, "back")
    assert text(browser, "counter") == f"Move 2 / {total}" and drawn_lines(browser) == 2
    click(browser, "last")
    assert text(browser, "counter") == f"Move {total} / {total}"
    assert drawn_lines(browser) == len(record.config.board().lines)
    assert shown_scores(browser) == record.result.scores
    assert len(browser.find_elements("css selector", "#board polygon[class*=owner]")) == sum(record.result.scores)
    click(browser, "first")
    assert text(browser, "counter") == f"Move 0 / {total}" and drawn_lines(browser) == 0

    jump = browser.find_element("id", "jump-to")
    jump.clear()
    jump.send_keys("17\n")
    assert text(browser, "counter") == f"Move 17 / {total}" and drawn_lines(browser) == 17
    click_move(browser, 9)
    assert text(browser, "counter") == f"Move 9 / {total}"
    browser.execute_script("const s = document.getElementById('scrub'); s.value = 30;"
                           "s.dispatchEvent(new Event('input'));")
    assert text(browser, "counter") == f"Move 30 / {total}" and drawn_lines(browser) == 30
    owned_by_move_30 = sum(len(m.closed) for m in record.moves[:30])
    assert sum(shown_scores(browser)) == owned_by_move_30

    click_move(browser, 5)
    browser.find_element("css selector", "#speed option[value='120']").click()
    click(browser, "play")
    deadline = time.monotonic() + 5
    while text(browser, "counter") == f"Move 5 / {total}" and time.monotonic() < deadline:
        time.sleep(0.02)
    click(browser, "play")  # pause
    paused = text(browser, "counter")
    assert 5 < int(paused.split()[1]) < total
    time.sleep(0.3)
    assert text(browser, "counter") == paused
    assert console_errors(browser) == []


@pytest.mark.slow
@needs_browser
def test_final_position_of_every_game_shows_the_recorded_scores(browser, site, records):
    files = game_files(records)
    for record in records:
        browser.get(replay_url(site, record, files, move=len(record.moves)))
        assert text(browser, "counter") == f"Move {len(record.moves)} / {len(record.moves)}", record.id
        assert shown_scores(browser) == record.result.scores, record.id
        assert text(browser, "result") == summary(record)
        if record.result.termination != "completed":
            assert record.result.termination in text(browser, "termination")
            assert browser.find_elements("css selector", "#moves tr.fault")
    assert console_errors(browser) == []


@pytest.mark.slow
@needs_browser
def test_border_is_drawn_before_the_first_move(browser, site, records):
    record = next(r for r in records if r.config.border)
    browser.get(replay_url(site, record, game_files(records)))
    border = len(record.config.board().border)
    assert drawn_lines(browser) == border
    assert len(browser.find_elements("css selector", "#board line.predrawn")) == border
    click(browser, "forward")
    assert drawn_lines(browser) == border + 1


@pytest.mark.slow
@needs_browser
def test_untrusted_bot_names_are_text_not_markup(browser, site):
    browser.get((site / "index.html").as_uri())
    assert 'odd<b>"&\'name' in text(browser, "standings")
    assert browser.find_elements("css selector", "#standings b") and not browser.find_elements(
        "xpath", "//*[@id='standings']//a/b")


@pytest.mark.slow
@needs_browser
def test_bot_page_shows_faults_with_log_excerpt_and_think_times(browser, site, records):
    faulty = next(r for r in records if r.result.forfeits)
    bot = faulty.seats[faulty.result.offender]
    page = next(p for p in site.glob("bot-*.html") if bot.split("@")[0] in p.name)
    browser.get(page.as_uri())
    faults = text(browser, "faults")
    assert faulty.id in faults and faulty.result.termination in faults
    assert "ZeroDivisionError in search" in faults
    assert browser.find_elements("css selector", "svg.chart rect")  # the think-time histogram
    opponents = [row.text.split()[0] for row in browser.find_elements("css selector", "#opponents tbody tr")]
    assert sorted(opponents) == sorted(b for b in BOTS if b != bot)
    # beside the excerpt, the whole log at the faulting move (this one has no TURN marks: from its top)
    browser.find_element("css selector", "#faults a.whole-log").click()
    assert [li.text for li in browser.find_elements("css selector", "#lines li")] == [
        "thinking...", "Traceback: ZeroDivisionError in search"]
    assert console_errors(browser) == []


@pytest.mark.slow
@needs_browser
def test_games_list_filters_and_paginates_thousands_of_games(browser, tmp_path):
    records = big_league(2000)
    started = time.perf_counter()
    write_site(tmp_path, compute("big", records))
    written = time.perf_counter() - started
    assert written < 20, f"publishing 2000 games took {written:.1f} s"

    started = time.perf_counter()
    browser.get((tmp_path / "games.html").as_uri())
    loaded = time.perf_counter() - started
    assert loaded < 3, f"the games list took {loaded:.1f} s to load"
    rows = lambda: browser.find_elements("css selector", "#rows tr")
    assert len(rows()) == 50 and text(browser, "page") == "page 1 of 40"
    assert text(browser, "count") == "2000 of 2000 games"
    click(browser, "next")
    assert text(browser, "page") == "page 2 of 40" and "page=2" in browser.current_url

    def choose(select_id: str, value: str) -> None:
        browser.find_element("css selector", f"#{select_id} option[value='{value}']").click()

    bot = BOTS[1]
    choose("bot", str(sorted(BOTS[:3]).index(bot)))
    with_bot = [r for r in records if bot in r.seats]
    assert text(browser, "count") == f"{len(with_bot)} of 2000 games" and text(browser, "page").startswith("page 1 ")
    opponent = BOTS[2]
    choose("opponent", str(sorted(BOTS[:3]).index(opponent)))
    met = [r for r in with_bot if opponent in r.seats and r.seats.index(opponent) != r.seats.index(bot)]
    assert 0 < len(met) < len(with_bot)
    assert text(browser, "count") == f"{len(met)} of 2000 games" and "against=" in browser.current_url
    choose("opponent", "-1")
    choose("result", "win")
    wins = [r for r in with_bot if r.result.placements[r.seats.index(bot)] == 1
            and r.result.placements.count(1) == 1]
    assert text(browser, "count") == f"{len(wins)} of 2000 games"
    choose("result", "fault")
    faults = [r for r in with_bot if r.result.termination != "completed"]
    assert text(browser, "count") == f"{len(faults)} of 2000 games" and len(rows()) == len(faults)
    choose("config", "1")  # "1x2 square" sorts after "1x2 hex"
    assert text(browser, "count") == f"{sum(r.config.geometry == 'square' for r in faults)} of 2000 games"
    browser.get((tmp_path / "games.html").as_uri() + "#config=1x2%20hex")  # a link from the index
    assert text(browser, "count") == "1000 of 2000 games"
    assert console_errors(browser) == []


# ---- the files beside the site -----------------------------------------------------------------------

def test_standings_markdown_matches_the_golden_file(records):
    text = standings_markdown(compute("demo", records))
    if os.environ.get("HEXARENA_UPDATE_GOLDEN"):
        GOLDEN.write_text(text, encoding="utf-8")
        pytest.skip("golden file rewritten")
    assert text == GOLDEN.read_text(encoding="utf-8")


def test_standings_csv_json_and_every_record_once_in_the_chunks(site, records):
    with open(site / "standings.csv", newline="") as handle:
        rows = list(csv.DictReader(handle))
    assert sorted(row["bot"] for row in rows) == sorted(BOTS)
    assert [int(row["rank"]) for row in rows] == sorted(int(row["rank"]) for row in rows)
    assert sum(int(row["games"]) for row in rows) == sum(len(r.seats) for r in records)
    data = json.loads((site / "standings.json").read_text())
    assert data["league"] == "demo" and data["facts"]["games"] == len(records)
    assert [s["bot"] for s in data["standings"]] == [row["bot"] for row in rows]
    assert all(s["elo_low"] < s["elo"] < s["elo_high"] for s in data["standings"])
    assert site_records(site) == sorted(records, key=lambda r: r.id)  # each record once: a line of its chunk
    assert not (site / "games.jsonl").exists()
    assert (site / "standings.md").read_text() == GOLDEN.read_text(encoding="utf-8")


# ---- the commands ------------------------------------------------------------------------------------

def hexarena(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", "from hexarena.cli import main; main()", *args],
                          capture_output=True, text=True, check=False, timeout=60)


@pytest.fixture(scope="module")
def workspace(records, tmp_path_factory) -> Path:
    """A workspace that holds the small league as if `hexarena league run` had played it."""
    return stored_league(tmp_path_factory.mktemp("home"), records)


def stored_league(home: Path, records: list[GameRecord], fields: str = "") -> Path:
    """``home`` holding ``records`` as the league demo (its file's ``fields`` added) had played them."""
    league = parse_league(f'name = "demo"\nplayers = 2\n{fields}[[boards]]\nsize = "3x3"\n')
    games = [ScheduledGame(r.id, r.config, tuple(r.seats), r.seed or 0, n)
             for n, r in enumerate(records)]
    with Workspace(home) as ws:
        definitions.save_schedule(ws, league, games)
        for record in records:
            store.save_game(ws, "demo", record)
    return home


@pytest.mark.slow
def test_publish_command_writes_the_site_and_the_files(workspace, tmp_path, records):
    out = tmp_path / "out"
    done = hexarena("publish", "demo", "--out", str(out), "--home", str(workspace))
    assert done.returncode == 0, done.stderr
    for name in ("index.html", "games.html", "replay.html", "standings.md", "standings.csv", "standings.json",
                 "data/games.js", "static/replay.js", "static/site.css"):
        assert (out / name).is_file(), name
    assert [p.name for p in (out / "games").iterdir()] == ["chunk-0.js"]  # up to GAMES_PER_CHUNK games a chunk
    assert len(site_records(out)) == len(records)
    record = next(r for r in records if r.result.termination == "completed")  # the site's copy, for the terminal
    for where in (out, out / "games" / "chunk-0.js"):  # the site's folder, or the one chunk that holds the game
        done = hexarena("replay", record.id, "--file", str(where), "--delay", "0")
        assert done.returncode == 0, done.stderr
        assert done.stdout.strip().splitlines()[-1] == f"result: {summary(record)} · completed"


def test_league_export_writes_every_stored_record_a_line_in_schedule_order(workspace, tmp_path, records):
    """The games.jsonl a site no longer carries, made on demand from the store."""
    out = tmp_path / "games.jsonl"
    done = hexarena("league", "export", "demo", "--out", str(out), "--home", str(workspace))
    assert done.returncode == 0, done.stderr
    assert done.stdout == f"wrote {len(records)} game records to {out}\n"
    assert [GameRecord.model_validate_json(line) for line in out.read_text().splitlines()] == records
    for args, message in ((["nosuch", "--out", str(out)], "no league named 'nosuch'"),
                          (["nosuch", "--out", str(tmp_path / "new" / "x.jsonl")], "no league named 'nosuch'"),
                          (["demo", "--out", str(tmp_path)], "is a folder"),
                          (["demo", "--out", str(out / "x.jsonl")], f"{out} is not a folder")):  # cannot be made
        refused = hexarena("league", "export", *args, "--home", str(workspace))
        assert refused.returncode == 2 and refused.stdout == "" and refused.stderr.count("\n") == 1
        assert message in refused.stderr
    assert len(out.read_text().splitlines()) == len(records)  # a refused export leaves the file as it was
    assert not (tmp_path / "new").exists()  # nor makes the folder of one it never writes


@pytest.mark.slow
@pytest.mark.parametrize("signum", ["SIGTERM", "SIGKILL"])
def test_a_publish_stopped_by_sigterm_stops_its_analysis_and_leaves_no_half_site(records, workspace, tmp_path,
                                                                                  signum):
    """SIGTERM (a service manager's stop, ``kill``) while the games are analysed: as at Ctrl-C, the analysis process
    is stopped, its folder and the half-written site are removed, and one line says so (exit 143). SIGTERM's default
    would leave the analysis running on for minutes, and its folder behind. SIGKILL leaves the folder (nothing of
    publish runs), for the next publish to remove, but the analysis process ends with publish all the same."""
    import signal

    from helpers import wait_for

    from hexarena.leagues.results.analyses import CHILD

    home = stored_league(tmp_path / "home", records, "analysis_budget = 5\n")  # a 3x3 game's analysis takes it all
    temp = tmp_path / "temp"
    temp.mkdir()
    out = tmp_path / "out"
    run = subprocess.Popen([sys.executable, "-m", "hexarena", "publish", "demo", "--out", str(out),
                            "--home", str(home)], cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                           env={**os.environ, "TMPDIR": str(temp)})
    try:
        analysing = wait_for(lambda: next((pid for pid in children_of(run.pid) if CHILD.encode() in
                                           Path(f"/proc/{pid}/cmdline").read_bytes()), None),
                             60, "the analysis process")
        run.send_signal(getattr(signal, signum))
        out_text, err = run.communicate(timeout=60)
    finally:
        run.kill()
        run.wait()
    wait_for(lambda: not Path(f"/proc/{analysing}").exists(), 10, "the analysis process to end")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["home", "temp"]  # no site, nor half of one
    if signum == "SIGKILL":  # its folder is left, for the next publish to remove
        assert run.returncode == -signal.SIGKILL
        assert [p.name.split("-")[2] for p in temp.iterdir()] == [str(run.pid)]
        again = subprocess.run([sys.executable, "-m", "hexarena", "publish", "demo", "--out", str(out), "--home",
                                str(workspace)], cwd=ROOT, capture_output=True, text=True, check=False,
                               env={**os.environ, "TMPDIR": str(temp)}, timeout=120)  # any publish, a quick one
        assert again.returncode == 0, again.stderr
        assert list(temp.iterdir()) == [] and (out / "index.html").is_file()
        return
    assert run.returncode == 143 and out_text == "", err
    assert err == "hexarena: error: publish interrupted; publish again to write the whole site\n"
    assert list(temp.iterdir()) == []


def children_of(pid: int) -> list[int]:
    """The live children of process ``pid``."""
    with contextlib.suppress(OSError):
        return [int(child) for child in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]
    return []


def test_a_league_export_stopped_by_sigterm_leaves_the_file_as_it_was(workspace, tmp_path, monkeypatch, capsys):
    """A real SIGTERM to this process after the export's third record: the earlier file stays whole, the new one's
    temporary sibling is removed, and one line says so (exit 143). SIGTERM's default would leave the sibling."""
    import signal

    from hexarena.cli import main

    out = tmp_path / "games.jsonl"
    out.write_text("the earlier export\n")
    real = store.stored_games

    def stopped_after_three(ws, name):
        for number, row in enumerate(real(ws, name)):
            if number == 3:
                os.kill(os.getpid(), signal.SIGTERM)
            yield row

    def not_the_commands(signum, frame):  # without a handler of the command's, not pytest's end
        raise AssertionError("the SIGTERM reached the test's own handler: the export installed none")

    monkeypatch.setattr(store, "stored_games", stopped_after_three)
    previous = signal.signal(signal.SIGTERM, not_the_commands)
    try:
        with pytest.raises(SystemExit) as stopped:
            main(["league", "export", "demo", "--out", str(out), "--home", str(workspace)])
        assert signal.getsignal(signal.SIGTERM) is not_the_commands  # the command's handler is gone with it
    finally:
        signal.signal(signal.SIGTERM, previous)
    assert stopped.value.code == 143
    assert capsys.readouterr().err == f"hexarena: error: league export interrupted; {out} is as it was\n"
    assert out.read_text() == "the earlier export\n" and list(tmp_path.iterdir()) == [out]


def test_what_a_killed_export_or_publish_left_is_removed_by_the_next_one_and_a_running_ones_stays(workspace,
                                                                                                   tmp_path):
    """A SIGKILLed ``league export`` leaves its temporary sibling (``.games.jsonl.tmp-PID``), a SIGKILLed publish its
    staging folder (``.site.hexarena-PID``): the next export or publish into the same place removes those whose
    process no longer runs, and leaves a running one's (and a user's files) alone."""
    dead = subprocess.Popen(["true"])
    dead.wait()
    alive = subprocess.Popen(["sleep", "60"])
    try:
        left = {name: tmp_path / name for name in (f".games.jsonl.tmp-{dead.pid}", f".site.hexarena-{dead.pid}",
                                                   f".games.jsonl.tmp-{alive.pid}", f".site.hexarena-{alive.pid}",
                                                   ".games.jsonl.tmp-notes", "mine.txt")}
        for name, path in left.items():
            if "site" in name:
                path.mkdir()
                (path / "index.html").write_text("half a site")
            else:
                path.write_text("half a file")
        for command in (["league", "export", "demo", "--out", str(tmp_path / "games.jsonl")],
                        ["publish", "demo", "--out", str(tmp_path / "site")]):
            done = hexarena(*command, "--home", str(workspace))
            assert done.returncode == 0, done.stderr
        assert sorted(p.name for p in tmp_path.iterdir()) == sorted(
            [".games.jsonl.tmp-notes", f".games.jsonl.tmp-{alive.pid}", f".site.hexarena-{alive.pid}", "games.jsonl",
             "mine.txt", "site"])
    finally:
        alive.kill()
        alive.wait()


@pytest.mark.parametrize("league, out, message", [
    ("nosuch", "x", "no league named 'nosuch'"),
    ("demo", "a-file", "exists and is not a folder"),
])
def test_publish_command_bad_input_is_one_line_and_exit_2(workspace, tmp_path, league, out, message):
    (tmp_path / "a-file").write_text("not a folder")
    done = hexarena("publish", league, "--out", str(tmp_path / out), "--home", str(workspace))
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.startswith("hexarena: error: ") and done.stderr.count("\n") == 1
    assert message in done.stderr


def test_replay_command_steps_through_a_stored_game(workspace, records):
    record = next(r for r in records if r.result.termination == "completed")
    done = hexarena("replay", record.id, "--home", str(workspace), "--delay", "0")
    assert done.returncode == 0, done.stderr
    assert done.stdout.count("move ") == len(record.moves)
    final = done.stdout.strip().splitlines()
    assert final[-1] == f"result: {summary(record)} · completed"
    assert final[-2] == "   ".join(f"{'AB'[s]} {name}: {score}"
                                   for s, (name, score) in enumerate(zip(record.seats, record.result.scores)))


def test_replay_command_reads_a_games_file_and_steps_on_enter(tmp_path, records):
    record = next(r for r in records if r.result.forfeits)
    path = tmp_path / "games.jsonl"
    path.write_text("".join(r.model_dump_json() + "\n" for r in records))
    done = subprocess.run([sys.executable, "-c", "from hexarena.cli import main; main()", "replay", record.id,
                           "--file", str(path), "--step"], input="\n\nq\n", capture_output=True, text=True,
                          check=False, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.count("[Enter] next move") == 3  # the third answer was q: the rest plays through
    assert f"forfeits: {record.result.forfeits[0].reason}" in done.stdout
    older = hexarena("replay", record.id, "--file", str(tmp_path), "--delay", "0")  # a site of an earlier release
    assert older.returncode == 0 and f"forfeits: {record.result.forfeits[0].reason}" in older.stdout, older.stderr


@pytest.mark.parametrize("args, message", [
    (["replay", "nosuch", "--file", "{games}"], "game 'nosuch' is not in"),
    (["replay", "g00000", "--file", "{missing}"], "cannot read"),
    (["replay", "g00000", "--file", "{garbage}"], "not a JSON game record"),
    (["replay", "g00000", "--step", "--delay", "1", "--file", "{games}"], "not both"),
    (["replay", "g00000", "--delay", "-1", "--file", "{games}"], "--delay"),
    (["replay", "g00000", "--file", "{seatless}"], "seats do not match"),
    (["replay", "g00000", "--file", "{illegal}"], "its moves do not replay"),
    (["replay", "g00000", "--file", "{folder}"], "a folder but no published site"),
])
def test_replay_command_bad_input_is_one_line_and_exit_2(tmp_path, records, args, message):
    paths = {"games": tmp_path / "games.jsonl", "missing": tmp_path / "missing.jsonl",
             "garbage": tmp_path / "garbage.jsonl", "seatless": tmp_path / "seatless.jsonl",
             "illegal": tmp_path / "illegal.jsonl", "folder": tmp_path / "folder"}
    paths["folder"].mkdir()
    paths["games"].write_text(records[0].model_dump_json() + "\n")
    game = records[0]
    paths["seatless"].write_text(game.model_copy(update={"seats": game.seats[:1]}).model_dump_json() + "\n")
    twice = [*game.moves[:2], game.moves[1]]  # a line drawn twice
    paths["illegal"].write_text(game.model_copy(update={"moves": twice}).model_dump_json() + "\n")
    paths["garbage"].write_text("{not json\n")
    done = hexarena(*[a.format(**paths) for a in args])
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.startswith("hexarena: error: ") and done.stderr.count("\n") == 1
    assert message in done.stderr


# ---- publishing again, paths, phones (issue 14 items 11 and 13) --------------------------------------

def test_publishing_again_removes_only_the_files_the_last_publish_wrote(records, tmp_path):
    out = tmp_path / "site"
    write_site(out, compute("demo", records))
    manifest = json.loads((out / ".hexarena-site.json").read_text())
    assert "index.html" in manifest["files"] and [f for f in manifest["files"] if f.startswith("games/")] == ["games/chunk-0.js"]
    odd = next(p.name for p in out.glob("bot-odd*.html"))
    odd_game = game_files(records)[next(r.id for r in records if BOTS[3] in r.seats)]
    mine = {"notes.txt": "my notes", "games/mine.js": "// mine", "static/custom.css": "b {}", "extra/x.html": "x"}
    for name, content in mine.items():
        (out / name).parent.mkdir(exist_ok=True)
        (out / name).write_text(content)
    (tmp_path / "victim.txt").write_text("outside the site")
    listed = json.loads((out / ".hexarena-site.json").read_text())
    listed["files"] += ["../victim.txt", str(tmp_path / "victim.txt"), "notes.txt/../../victim.txt"]
    (out / ".hexarena-site.json").write_text(json.dumps(listed))  # a tampered manifest reaches nothing outside

    kept = [r for r in records if BOTS[3] not in r.seats]  # a bot and its games leave the league
    write_site(out, compute("demo", kept))
    assert not (out / odd).exists() and (out / "index.html").is_file()
    assert set(chunk_games(out)) == set(game_files(kept).values()) and odd_game not in chunk_games(out)
    assert {name: (out / name).read_text() for name in mine} == mine  # the user's own files stay
    assert (tmp_path / "victim.txt").read_text() == "outside the site"
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []  # no staging folder left
    assert "notes.txt" not in json.loads((out / ".hexarena-site.json").read_text())["files"]


def test_a_site_published_with_a_games_jsonl_loses_it_at_its_next_publish_and_keeps_the_users_files(records,
                                                                                                   tmp_path):
    """Sites of earlier releases had every record twice: in games.jsonl and in the chunks. The next publish
    writes each record once (the chunks) and removes the old copy, as it removes any file it wrote and no
    longer writes; a games.jsonl the user put there (not in the manifest) stays."""
    out = tmp_path / "site"
    write_site(out, compute("demo", records))
    listed = json.loads((out / ".hexarena-site.json").read_text())
    (out / "games.jsonl").write_text("".join(r.model_dump_json() + "\n" for r in records))  # as the old release did
    (out / ".hexarena-site.json").write_text(json.dumps({**listed, "files": [*listed["files"], "games.jsonl"]}))
    write_site(out, compute("demo", records))
    assert not (out / "games.jsonl").exists() and site_records(out) == sorted(records, key=lambda r: r.id)
    (out / "games.jsonl").write_text("mine\n")
    write_site(out, compute("demo", records))
    assert (out / "games.jsonl").read_text() == "mine\n"
    done = hexarena("replay", records[0].id, "--file", str(out), "--delay", "0")  # the site's records, not the user's
    assert done.returncode == 0, done.stderr


def test_a_stored_record_written_over_several_lines_is_one_line_of_its_chunk_and_of_an_export(records, tmp_path):
    """A record the store holds as JSON with line breaks (written by another tool: hexarena writes one line) is
    still one line of its chunk, so it reads back and the games after it keep their lines; and one line of
    ``league export``'s JSON lines."""
    import sqlite3

    home = tmp_path / "home"
    league = parse_league('name = "demo"\nplayers = 2\n[[boards]]\nsize = "3x3"\n')
    with Workspace(home) as ws:
        definitions.save_schedule(ws, league, [ScheduledGame(r.id, r.config, tuple(r.seats), r.seed or 0, n)
                                               for n, r in enumerate(records)])
        for record in records:
            store.save_game(ws, "demo", record)
    with sqlite3.connect(home / "hexarena.db") as db:
        db.execute("UPDATE games SET record = ? WHERE id = ?",
                   (json.dumps(json.loads(records[0].model_dump_json()), indent=2).replace("\n", "\r\n"), records[0].id))
    with Workspace(home) as ws:
        publish.publish(ws, "demo", tmp_path / "out")
    assert site_records(tmp_path / "out") == sorted(records, key=lambda r: r.id)
    done = hexarena("league", "export", "demo", "--out", str(tmp_path / "games.jsonl"), "--home", str(home))
    assert done.returncode == 0, done.stderr
    assert [GameRecord.model_validate_json(line) for line in (tmp_path / "games.jsonl").read_text().splitlines()] == records


def test_publish_takes_a_league_file_and_defaults_to_home_site_name(workspace, tmp_path, records):
    league_file = tmp_path / "demo.toml"
    league_file.write_text('name = "demo"\nplayers = 2\n[[boards]]\nsize = "3x3"\n')
    done = hexarena("publish", str(league_file), "--home", str(workspace))
    assert done.returncode == 0, done.stderr
    site = workspace / "site" / "demo"
    assert str(site / "index.html") in done.stdout
    assert len(site_records(site)) == len(records)


def test_the_site_shows_no_absolute_paths_of_the_organisers_machine(records, tmp_path):
    machine = tmp_path / "organiser" / "leagues"
    folder = machine / "bots" / "pathbot"
    league = parse_league(f'name = "paths"\nparticipants = ["{folder}", "random"]\n[[boards]]\nsize = "3x3"\n')
    faulty = next(r for r in records if r.result.forfeits)
    fault = faulty.result.forfeits[0].model_copy(update={
        "detail": f"before saying HELLO: exited: {machine}/venv/bin/python3: can't open '{folder}/bot.py' "
                  f"[ran python3 bot.py in {folder}]"})
    faulty = faulty.model_copy(update={"result": faulty.result.model_copy(update={"forfeits": [fault]})})
    home = tmp_path / "home"
    with Workspace(home) as ws:
        definitions.save_schedule(ws, league, [ScheduledGame(faulty.id, faulty.config, tuple(faulty.seats), 0, 0)])
        store.save_game(ws, "paths", faulty)
        logs = ws.logs_dir / "paths"
        logs.mkdir(parents=True, exist_ok=True)
        (logs / f"{faulty.id}.seat{fault.seat}.bot.log").write_text(
            f'Traceback:\n  File "{folder}/search.py", line 3\nZeroDivisionError\n')
        from hexarena.leagues.site.publish import publish

        publish(ws, "paths", tmp_path / "out")
    texts = {p.relative_to(tmp_path / "out").as_posix(): p.read_text(encoding="utf-8")
             for p in (tmp_path / "out").rglob("*") if p.is_file() and p.suffix != ".css"}
    leaks = {name for name, text in texts.items() if str(tmp_path) in text or str(Path.home()) + "/" in text}
    assert leaks == set()
    assert "participants: pathbot, random" in texts["index.html"]
    page = next(text for name, text in texts.items() if "ZeroDivisionError" in text)
    assert 'File &#34;search.py&#34;' in page or 'File &quot;search.py&quot;' in page
    assert "can&#39;t open &#39;bot.py&#39;" in page and "in pathbot]" in page  # a folder shows its name


@pytest.fixture(scope="module")
def faulty_records() -> list[GameRecord]:
    """A league where "sloth" never moves: 5 timeouts and a crash."""
    rng = random.Random(5)
    records = []
    with fixture_referee() as referee:
        for n in range(8):
            seats = [BOTS[n % 2], "sloth"] if n < 6 else [BOTS[0], BOTS[1]]
            reason = "crashed" if n == 5 else "timeout"
            records.append(play(referee, CONFIGS[0], seats, rng, n, fault=(1, 0, reason) if n < 6 else None))
    return records


@pytest.fixture(scope="module")
def faulty_site(faulty_records, tmp_path_factory) -> Path:
    """The site of ``faulty_records``, with a log beside the second timeout."""
    records = faulty_records
    logs = tmp_path_factory.mktemp("logs")
    (logs / f"{records[1].id}.seat1.sloth.log").write_text("waiting for the oracle...\n")
    out = tmp_path_factory.mktemp("faulty")
    write_site(out, compute("faulty", records, logs_dir=logs))
    return out


def test_bot_page_groups_faults_by_kind_and_always_gives_the_mean_think_time(faulty_site):
    import re

    sloth = (faulty_site / "bot-sloth.html").read_text()
    assert "5 × timeout" in sloth and "1 × crashed" in sloth
    assert sloth.count('<pre class="log">') == 1 and "waiting for the oracle" in sloth  # the first excerpt only
    assert "the other 4 timeout games" in sloth and len(set(re.findall(r"replay.html\?game=(g0000[0-5])", sloth))) == 6
    assert "games.html#bot=sloth&amp;result=fault" in sloth
    for page in faulty_site.glob("bot-*.html"):
        said = re.search(r"moves timed by the referee[^<]*", page.read_text())[0]
        assert re.search(r"mean \d+(\.\d+)? ms\.$", said) or said.endswith("no move of its own, so there is no mean."), said
    assert "0 moves timed" in sloth and "no mean" in sloth


def test_the_bot_page_shows_timeouts_the_host_caused_as_host_stalls_not_as_the_bots_timeouts(faulty_records,
                                                                                          tmp_path):
    stall = HostStall(cpu_ms=3.0, lag_ms=900.0, limit_ms=1000.0)
    records = [r.model_copy(update={"result": r.result.model_copy(update={"forfeits": [
        f.model_copy(update={"host_stall": stall}) for f in r.result.forfeits]})}) if n < 2 else r
        for n, r in enumerate(faulty_records)]
    write_site(tmp_path, compute("stalls", records))
    sloth = (tmp_path / "bot-sloth.html").read_text()
    assert "3 × timeout" in sloth and "2 × host stall" in sloth and "1 × crashed" in sloth


def right_edges(driver, selectors: list[str]) -> dict[str, float | None]:
    """The largest right edge of the shown elements of each selector (None: none shown)."""
    return driver.execute_script(
        "return Object.fromEntries(arguments[0].map(s => [s, Array.from(document.querySelectorAll(s))"
        ".filter(e => e.getClientRects().length).reduce((m, e) => Math.max(m ?? 0, e.getBoundingClientRect().right),"
        " null)]))", selectors)


@pytest.mark.slow
@needs_browser
@pytest.mark.parametrize("width", [400, 1280])
def test_the_site_on_a_phone_and_on_a_desktop(browser, site, faulty_site, records, width):
    browser.set_window_size(width, 900)
    try:
        viewport = lambda: browser.execute_script("return [document.documentElement.clientWidth, window.innerHeight]")

        def fits_width(url: str) -> None:
            browser.get(url)
            page_width = browser.execute_script("return document.documentElement.scrollWidth")
            assert page_width <= viewport()[0], f"{url} scrolls sideways at {width} px"

        fits_width((site / "index.html").as_uri())
        cells = [f"#standings tbody td:nth-child({n})" for n in (1, 2, 8, 10)]  # rank, bot, score %, Elo
        edges = right_edges(browser, cells)
        assert all(edge is not None and edge <= viewport()[0] for edge in edges.values()), edges
        shown = len(browser.find_elements("css selector", "#standings thead th"))
        columns = [th for th in browser.find_elements("css selector", "#standings thead th") if th.is_displayed()]
        assert len(columns) == shown if width > 640 else 5 <= len(columns) < shown
        label = next(t for t in browser.find_elements("css selector", "svg.chart text") if t.is_displayed()
                     and t.text.startswith("random@"))  # a bot's label in the rating chart shown
        assert label.size["height"] >= 10, f"rating chart labels {label.size['height']} px high"
        assert label.rect["x"] >= 0

        fits_width((site / "games.html").as_uri())
        edges = right_edges(browser, ["#rows td:nth-child(3)", "#rows td:last-child a"])  # score, replay link
        assert all(edge is not None and edge <= viewport()[0] for edge in edges.values()), edges

        files = game_files(records)
        longest = max(records, key=lambda r: len(r.moves))
        fits_width(replay_url(site, longest, files))
        moves = browser.find_element("css selector", ".moves")
        box = browser.execute_script("const r = arguments[0].getBoundingClientRect(); return [r.right, r.bottom,"
                                     " arguments[0].scrollWidth, arguments[0].clientWidth]", moves)
        assert box[0] <= viewport()[0] and box[2] <= box[3], f"the move table is clipped sideways: {box}"
        if width > 900:  # beside the board, the whole list fits the window and scrolls inside
            assert box[1] <= viewport()[1], f"the move list ends below the window: {box}"

        fits_width((faulty_site / "bot-sloth.html").as_uri())
    finally:
        browser.set_window_size(1280, 900)


# ---- big sites: games in chunks, the list in parts (issue 18 item 3) ----------------------------------

def wait_text(driver, element_id: str, expected: str, seconds: float = 10) -> None:
    """Wait until an element says ``expected`` (parts of the list and chunks load by script tags)."""
    deadline = time.monotonic() + seconds
    while text(driver, element_id) != expected and time.monotonic() < deadline:
        time.sleep(0.02)
    assert text(driver, element_id) == expected


@pytest.mark.slow
@needs_browser
def test_games_in_many_chunks_and_the_list_in_parts_load_from_file_urls(browser, tmp_path, monkeypatch):

    records = big_league(120)

    monkeypatch.setattr(publish, "GAMES_PER_CHUNK", 7)
    monkeypatch.setattr(publish, "LIST_PART", 50)
    write_site(tmp_path, compute("demo", records))
    chunks = -(-len(records) // 7)
    assert sorted(p.name for p in (tmp_path / "games").iterdir()) == sorted(f"chunk-{k}.js" for k in range(chunks))
    assert sorted(p.name for p in (tmp_path / "data").glob("games-*.js")) == ["games-0.js", "games-1.js", "games-2.js"]
    files = game_files(records)
    for record in records[::5]:  # each from its own chunk: replay.js finds it by the crc32 of its file stem
        browser.get(replay_url(tmp_path, record, files, move=len(record.moves)))
        wait_text(browser, "counter", f"Move {len(record.moves)} / {len(record.moves)}")
        assert shown_scores(browser) == record.result.scores and text(browser, "result") == summary(record)
    browser.get((tmp_path / "replay.html").as_uri() + "?game=nosuch")
    wait_text(browser, "error", "No such game in this site: nosuch")

    browser.get((tmp_path / "games.html").as_uri())
    assert text(browser, "count") == f"{len(records)} of {len(records)} games" and text(browser, "page") == "page 1 of 3"
    browser.get((tmp_path / "games.html").as_uri() + "#page=3")  # page 3 is in the third part: loaded now
    wait_text(browser, "page", "page 3 of 3")
    newest_first = sorted(records, key=lambda r: (r.started, r.id), reverse=True)
    assert len(browser.find_elements("css selector", "#rows tr")) == len(records) - 100
    links = [a.get_attribute("href") for a in browser.find_elements("css selector", "#rows td.replay a")]
    assert [link.rsplit("=", 1)[1] for link in links] == [files[r.id] for r in newest_first[100:]]
    browser.get((tmp_path / "games.html").as_uri() + "#result=fault")  # a filter reads every part
    faults = [r for r in records if r.result.termination != "completed"]
    wait_text(browser, "count", f"{len(faults)} of {len(records)} games")
    assert console_errors(browser) == []


@pytest.mark.slow
@needs_browser
def test_a_record_with_backticks_dollar_braces_and_line_separators_in_its_texts_is_one_line_of_its_chunk(
        browser, records, tmp_path, monkeypatch):
    """A chunk holds its records as the lines of a raw template string (``publish.Chunks``): what a bot wrote
    (here its notes on a move, ``INFO``) that would end the template or run code in it is written as JSON
    escapes, so the viewer shows it as it was sent, the site's records read back equal to the stored ones,
    and a block boundary (here every few games) changes nothing."""
    nasty = ["`${window.pwned = 1}`", "back\\slash ` tick $ {x} ${", "line\u2028sep\u2029ara\ntor é 日本 </script>"]
    games = []
    for n, record in enumerate(records[:30]):
        moves = [record.moves[0].model_copy(update={"info": nasty}), *record.moves[1:]] if n % 3 == 0 else record.moves
        games.append(record.model_copy(update={"moves": moves}))
    monkeypatch.setattr(publish, "GAMES_PER_CHUNK", 10)
    monkeypatch.setattr(publish.Chunks, "FLUSH", 2000)  # several blocks a chunk
    write_site(tmp_path, compute("demo", games))
    chunks = [p.read_text(encoding="utf-8") for p in (tmp_path / "games").glob("chunk-*.js")]
    assert len(chunks) == 3 and max(c.count(publish.Chunks.START) for c in chunks) > 1
    assert site_records(tmp_path) == sorted(games, key=lambda r: r.id)
    files = game_files(games)
    for record in games[:9:3]:
        browser.get(replay_url(tmp_path, record, files, move=1))
        wait_text(browser, "counter", f"Move 1 / {len(record.moves)}")
        assert [li.get_attribute("textContent") for li in browser.find_elements("css selector", "#notes li")] == nasty
    assert browser.execute_script("return window.pwned === undefined") and console_errors(browser) == []


def test_publishing_over_an_older_site_removes_its_per_game_files(records, tmp_path):
    out = tmp_path / "site"
    (out / "games").mkdir(parents=True)
    old = [f"games/{stem}.js" for stem in game_files(records).values()]
    for name in old:
        (out / name).write_text("window.HEXARENA_GAME = {};\n")
    (out / "games" / "mine.js").write_text("// mine")
    (out / ".hexarena-site.json").write_text(json.dumps({"written_by": "hexarena publish", "files": old}))
    write_site(out, compute("demo", records))
    assert sorted(p.name for p in (out / "games").iterdir()) == ["chunk-0.js", "mine.js"]
    assert len(list(out.rglob("*"))) < 30  # pages, data, static files: not one file per game


def test_the_pages_name_each_script_by_its_contents_hash_and_the_same_league_is_the_same_site(records, tmp_path,
                                                                                              monkeypatch):
    """A browser that cached an older site's replay.js must not run it on this site's data (it threw a TypeError
    until reloaded): the pages reference ``static/replay.js?v=<its hash>``, which changes with the script's content
    alone. The same league and scripts published twice are the same site, byte for byte."""
    league = compute("demo", records)
    first, again, changed = tmp_path / "first", tmp_path / "again", tmp_path / "changed"
    write_site(first, league)
    write_site(again, league)
    files = sorted(p.relative_to(first).as_posix() for p in first.rglob("*") if p.is_file())
    assert files == sorted(p.relative_to(again).as_posix() for p in again.rglob("*") if p.is_file())
    assert [f for f in files if (first / f).read_bytes() != (again / f).read_bytes()] == []

    def references(site: Path) -> dict[str, set[str]]:
        """Each static file's references in the pages, as ``?v=`` versions (one, where all pages agree)."""
        pages = "".join(p.read_text(encoding="utf-8") for p in site.glob("*.html"))
        found: dict[str, set[str]] = {}
        for name, version in re.findall(r'"static/([\w.]+)(?:\?v=([0-9a-f]+))?"', pages):
            found.setdefault(name, set()).add(version)
        return found

    def hashed(site: Path, name: str) -> str:
        return hashlib.sha256((site / "static" / name).read_bytes()).hexdigest()[:10]

    assert references(first) == {name: {hashed(first, name)} for name in publish.STATIC}
    templates = tmp_path / "templates"
    shutil.copytree(publish.SITE, templates, ignore=shutil.ignore_patterns("__pycache__"))
    with (templates / "replay.js").open("a", encoding="utf-8") as script:
        script.write("// a newer viewer\n")
    monkeypatch.setattr(publish, "SITE", templates)
    write_site(changed, league)
    now = references(changed)
    assert now["replay.js"] == {hashed(changed, "replay.js")} != references(first)["replay.js"]
    assert {k: v for k, v in now.items() if k != "replay.js"} == {
        k: v for k, v in references(first).items() if k != "replay.js"}  # the others' references stay


# ---- versions on the replay page (issue 14, item 9) -----------------------------------------------

@pytest.mark.slow
@needs_browser
def test_league_records_the_sites_copy_and_the_replay_page_name_each_seats_version(tmp_path: Path, browser):
    from hexarena.leagues.registry.snapshot import source_hash
    from hexarena.leagues.results import store
    from hexarena.leagues.results.report import game_files
    from hexarena.leagues.running.runner import run_league
    from hexarena.leagues.schedule.config import load_league
    from hexarena.leagues.site.publish import publish
    from hexarena.leagues.workspace.home import Workspace

    with Workspace(tmp_path / "new") as ws:
        run_league(ws, load_league(league_file(tmp_path / "v.toml", "versions", [RANDOM, GREEDY])), progress=False)
        records = store.records(ws, "versions")
        publish(ws, "versions", tmp_path / "site")
    versions = {name: f"{name}@{source_hash(ROOT / 'bots' / name)[:10]}" for name in ("random", "greedy")}
    assert [r.versions for r in records] == [[versions[s] for s in r.seats] for r in records] and len(records) == 2
    exported = site_records(tmp_path / "site")
    assert [r.versions for r in exported] == [r.versions for r in sorted(records, key=lambda r: r.id)]
    browser.get(replay_url(tmp_path / "site", records[0], game_files(records)))
    shown = [e.text for e in browser.find_elements("css selector", "#scores li")]
    assert [line.split("\n")[0] for line in shown] == [
        f"{'AB'[seat]} · {name} {versions[name][len(name):]}" for seat, name in enumerate(records[0].seats)]
    assert console_errors(browser) == []

    old = fixture_home(tmp_path)  # records of an older release: no versions; they load and render as before
    with Workspace(old) as ws:
        old_records = store.records(ws, "tiny")
        publish(ws, "tiny", tmp_path / "old-site")
    assert old_records and all(r.versions == [] for r in old_records)
    browser.get(replay_url(tmp_path / "old-site", old_records[0], game_files(old_records)))
    shown = [e.text.split("\n")[0] for e in browser.find_elements("css selector", "#scores li")]
    assert shown == [f"{'AB'[seat]} · {name}" for seat, name in enumerate(old_records[0].seats)]
    assert console_errors(browser) == []


def test_a_game_stored_while_the_site_is_published_is_in_the_next_publish_only(records, tmp_path, monkeypatch):
    """A publish reads one snapshot: a game the league's runner stores between its reading of the tables and of
    the games (here: from another connection, just before the pages are written) is neither half in this site
    (a KeyError in the server's log, before) nor lost from the next."""
    home = tmp_path / "home"
    league = parse_league('name = "demo"\nplayers = 2\n[[boards]]\nsize = "3x3"\n')
    with Workspace(home) as ws:
        definitions.save_schedule(ws, league, [ScheduledGame(r.id, r.config, tuple(r.seats), r.seed or 0, n)
                                               for n, r in enumerate(records)])
        for record in records[:-1]:
            store.save_game(ws, "demo", record)
    writing = publish.write_site

    def store_one_then_write(out, league_report):
        with Workspace(home) as runner:  # the runner's own connection, as in the server
            store.save_game(runner, "demo", records[-1])
        return writing(out, league_report)

    monkeypatch.setattr(publish, "write_site", store_one_then_write)
    with Workspace(home) as ws:
        publish.publish(ws, "demo", tmp_path / "out")
    standings = json.loads((tmp_path / "out" / "standings.json").read_text())
    assert standings["facts"]["games"] == len(records) - 1
    assert len(site_records(tmp_path / "out")) == len(records) - 1
    monkeypatch.setattr(publish, "write_site", writing)
    with Workspace(home) as ws:
        publish.publish(ws, "demo", tmp_path / "out")
    assert len(site_records(tmp_path / "out")) == len(records)


def test_the_site_shows_the_account_that_submitted_a_bot_not_its_manifests_author(tmp_path):
    import shutil

    from hexarena.leagues.registry.submit import submit
    from hexarena.leagues.results.report import registered_versions

    folder = tmp_path / "claims"
    shutil.copytree(RANDOM, folder)
    (folder / "bot.toml").write_text('name = "claims"\ncommand = ["python3", "bot.py"]\nauthor = "nc"\n')
    with Workspace(tmp_path / "home") as ws:
        assert submit(ws, folder, check=False, author="alice").accepted
        assert [v["author"] for v in registered_versions(ws, {"claims"})["claims"]] == ["alice"]


def test_publish_into_proc_is_refused_in_one_line_before_anything_is_written(workspace):
    before = set(os.listdir("/"))
    done = hexarena("publish", "demo", "--out", "/proc", "--home", str(workspace))
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == ("hexarena: error: --out /proc: a file system of its own (a mount point, or a special folder "
                           "like /proc); the files are made beside it first: give a folder inside it\n")
    assert set(os.listdir("/")) == before  # no staging folder left beside it


@pytest.mark.slow
def test_csv_tables_are_one_loadable_table_without_float_noise_or_python_words(workspace, site):
    import io

    import pandas as pd

    done = hexarena("league", "table", "demo", "--format", "csv", "--home", str(workspace))
    assert done.returncode == 0, done.stderr
    assert "one table a command: the standings" in done.stderr and "#" not in done.stdout
    standings = pd.read_csv(io.StringIO(done.stdout))
    assert sorted(standings["bot"]) == sorted(BOTS)
    by = hexarena("league", "table", "demo", "--format", "csv", "--table", "ratings", "--by", "configuration",
                  "--home", str(workspace))
    assert by.returncode == 0, by.stderr
    ratings = pd.read_csv(io.StringIO(by.stdout))
    assert ratings.columns[0] == "configuration" and "bot" in ratings and ratings["configuration"].nunique() > 1
    text = (site / "standings.csv").read_text()
    assert "False" not in text and "True" not in text and not re.search(r"\de-\d", text)
    assert set(pd.read_csv(site / "standings.csv", dtype=str)["flagged"]) <= {"true", "false"}


@pytest.mark.slow
@needs_browser
def test_the_bot_page_at_400_px_scrolls_no_table_off_the_page_and_its_chart_labels_are_readable(browser, site):
    browser.set_window_size(400, 900)
    try:
        browser.get((site / bot_pages(sorted(BOTS))["greedy@1a2b3c4d5e"]).as_uri())
        width = browser.execute_script("return [document.documentElement.scrollWidth,"
                                       " document.documentElement.clientWidth]")
        assert width[0] <= width[1], f"the bot page scrolls sideways at 400 px: {width}"
        for table in ("opponents", "configurations"):  # a table wider than its card scrolls inside the card
            right = browser.execute_script(
                "return arguments[0].closest('.card').getBoundingClientRect().right", browser.find_element("id", table))
            assert right <= width[1]
        labels = [t for t in browser.find_elements("css selector", "svg.chart text") if t.is_displayed()]
        assert any(t.text.endswith(" ms") for t in labels)
        sizes = [browser.execute_script(
            "const svg = arguments[0].ownerSVGElement; return parseFloat(getComputedStyle(arguments[0]).fontSize)"
            " * svg.getBoundingClientRect().width / svg.viewBox.baseVal.width", t) for t in labels]
        assert min(sizes) >= 11, f"histogram labels {min(sizes):.1f} px"
    finally:
        browser.set_window_size(1280, 900)


@pytest.mark.slow
@needs_browser
def test_the_replays_move_list_shows_think_and_cpu_time_and_a_dash_where_cpu_was_not_measured(browser, records,
                                                                                            tmp_path):
    old = next(r for r in records if r.result.termination == "completed" and len(r.seats) == 2)
    new = old.model_copy(update={"id": "g-cpu", "moves": [m.model_copy(update={"cpu_ms": 2.5 + i})
                                                          for i, m in enumerate(old.moves)]})
    write_site(tmp_path, compute("cpu", [old, new]))
    files = game_files([old, new])
    browser.get(replay_url(tmp_path, new, files))
    cells = [td.text for td in browser.find_elements("css selector", "#moves td.cpu")]
    assert cells[:2] == ["2.5 ms", "3.5 ms"] and len(cells) == len(new.moves)
    think = browser.find_elements("css selector", "#moves td.think")[0].text
    assert think == (f"{old.moves[0].ms:.1f} ms" if old.moves[0].ms < 10 else f"{old.moves[0].ms:.0f} ms")
    browser.get(replay_url(tmp_path, old, files))
    assert {td.text for td in browser.find_elements("css selector", "#moves td.cpu")} == {"—"}


def test_the_bot_page_shows_think_and_cpu_time_side_by_side_and_a_dash_for_old_records(records, tmp_path):
    old = [r for r in records if len(r.seats) == 2][:6]
    new = [r.model_copy(update={"id": r.id + "-cpu", "moves": [m.model_copy(update={"cpu_ms": 4.0})
                                                                for m in r.moves]}) for r in old]
    write_site(tmp_path / "new", compute("cpu", old + new))
    write_site(tmp_path / "old", compute("cpu", old))
    bot = old[0].seats[0]
    page = bot_pages(sorted({s for r in old for s in r.seats}))[bot]
    table = re.search(r'<table id="think-cpu".*?</table>', (tmp_path / "new" / page).read_text(), re.DOTALL).group(0)
    rows = re.findall(r"<tr><td>(\w+)</td><td class=\"num\">([^<]+)</td><td class=\"num\">([^<]+)</td></tr>", table)
    assert [(name, cpu) for name, _, cpu in rows] == [("mean", "4.0 ms"), ("median", "4.0 ms"), ("p95", "4.0 ms")]
    old_table = re.search(r'<table id="think-cpu".*?</table>', (tmp_path / "old" / page).read_text(), re.DOTALL).group(0)
    assert old_table.count("<td class=\"num\">—</td>") == 3 and "ms</td>" in old_table


def test_a_stored_leagues_cpu_times_are_read_from_its_records_and_old_records_have_none(records, tmp_path):
    old = [r for r in records if len(r.seats) == 2][:4]
    new = [r.model_copy(update={"id": r.id + "-cpu", "moves": [m.model_copy(update={"cpu_ms": 1.5 + m.seat})
                                                                for m in r.moves]}) for r in old[:2]]
    league = parse_league('name = "demo"\nplayers = 2\n[[boards]]\nsize = "3x3"\n')
    with Workspace(tmp_path / "home") as ws:
        definitions.save_schedule(ws, league, [ScheduledGame(r.id, r.config, tuple(r.seats), r.seed or 0, n)
                                               for n, r in enumerate(old + new)])
        for record in old + new:
            store.save_game(ws, "demo", record)
        bot = new[0].seats[0]
        expected = sorted(m.cpu_ms for r in new for m in r.moves if r.seats[m.seat] == bot and not m.substituted)
        assert expected and sorted(store.cpu_times(ws, "demo", bot, 100)) == expected
        only_old = next(b for r in old[2:] for b in r.seats if b not in {s for n in new for s in n.seats})
        assert store.cpu_times(ws, "demo", only_old, 100) == []


def test_the_records_read_without_parsing_them_read_as_parsed_whole_and_odd_ones_are_parsed(records, caplog):
    """``report.read_games`` reads a record as hexarena stores it without parsing its JSON (what games of a kind
    share is parsed once); whatever it reads must be what parsing the record whole gives (``store.read_stored``),
    and a record in any other form (fields after the result, no start time, line breaks, a fault, another id,
    a name with quotes) is read whole; a garbled one is left out with a warning."""
    from hexarena.leagues.results.report import read_games, stripped_game

    plain = next(r for r in records if not r.result.forfeits)
    twin = plain.model_copy(update={"id": plain.id + "-twin"})
    texts = [(r.id, r.model_dump_json()) for r in records] + [
        (twin.id, twin.model_dump_json()),
        (plain.id + "-lag", plain.model_copy(update={"id": plain.id + "-lag", "lag_ms": 2.5}).model_dump_json()),
        (plain.id + "-nostart", plain.model_copy(update={"id": plain.id + "-nostart", "started": None}).model_dump_json()),
        ("another-id", plain.model_dump_json()),
        (plain.id + "-lines", json.dumps(json.loads(plain.model_copy(update={"id": plain.id + "-lines"}).model_dump_json()),
                                         indent=1)),
        (plain.id + "-quotes", plain.model_copy(update={"id": plain.id + "-quotes", "seats": ['a","seed":1,"b', "c\\"]})
         .model_dump_json()),
        (plain.id + "-info", plain.model_copy(update={"id": plain.id + "-info", "moves": [  # a bot's notes: any text
            m.model_copy(update={"info": ['{"seat":0} {{', "}"]}) for m in plain.moves]}).model_dump_json()),
    ]
    garbled = (plain.id + "-cut", plain.model_copy(update={"id": plain.id + "-cut"}).model_dump_json()[:-1])
    read = list(read_games(iter([(game, text.encode()) for game, text in [*texts, garbled]]), "demo"))
    assert "garbled" in caplog.text and garbled[0] in caplog.text
    assert [game for game, *_ in read] == [game for game, _ in texts]
    for (game, text), (_, line, kind, moves, started, finished) in zip(texts, read):
        data = store.read_stored(game, text, "demo")
        whole, data = stripped_game(text, data)
        assert line.decode() == whole and b"\n" not in line
        assert (kind.config.model_dump(mode="json"), kind.label, kind.seats, kind.time_control, kind.result) == (
            data["config"], BoardConfig.model_validate(data["config"]).label, data["seats"], data.get("time_control"),
            data["result"])
        assert (moves, started, finished) == (data["moves"], data.get("started") or "",
                                              data.get("finished") or data.get("started") or "")
    kinds = {game: kind for game, _, kind, *_ in read}
    assert kinds[plain.id] is kinds[twin.id] is kinds[plain.id + "-lag"]  # one kind, parsed once


def test_a_chunk_block_that_cannot_be_written_fails_the_stream_and_its_thread_ends(tmp_path):
    """``publish.BlockWriter`` writes the chunks on a thread of its own: an error writing a block is raised in the
    caller (by the next ``write`` or by ``close``), the blocks after it are not written, and the thread ends."""
    writer = publish.BlockWriter()
    writer.write(tmp_path / "a.js", b"one\n", append=False)
    writer.write(tmp_path / "no-such-folder" / "b.js", b"two\n", append=False)
    with contextlib.suppress(FileNotFoundError):  # raised here already if the thread got to that block first
        writer.write(tmp_path / "c.js", b"three\n", append=False)
    with pytest.raises(FileNotFoundError):
        writer.close()
    assert not writer.thread.is_alive()
    assert (tmp_path / "a.js").read_bytes() == b"one\n" and not (tmp_path / "c.js").exists()
    with pytest.raises(FileNotFoundError):  # and any later write says so
        writer.write(tmp_path / "d.js", b"four\n", append=False)
