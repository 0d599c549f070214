"""Publishing a league: a static results site with a replay viewer, plus Markdown, CSV and JSON.

This module writes the site and nothing else: what it shows is the league's ``LeagueReport``
(``hexarena.leagues.results.report``, the view the server's read API shows too), written as pages and files.

    publish(ws, "demo", "site/")          reads the league's records from the store and writes:

    site/index.html        standings with ratings (95% intervals), rating chart, crosstable heat map,
                           tables per board configuration, when the league ran and what it covered
    site/bot-<name>.html   one page per bot: results per opponent and configuration, faults with
                           log excerpts, think-time histogram, versions
    site/games.html        every game, filtered and paginated in the browser: data/games.js (bots,
                           configurations, counts) and the list in parts of ``LIST_PART`` rows, newest
                           first (data/games-<k>.js); a page of the unfiltered list loads one part
    site/log.html          a bot's log of one game, ``log.html?game=<file>&seat=N&move=K`` opened at move K
                           (the replay links each seat's log at the move in view); the logs are
                           logs/<file>.js, one per game (``logs.write_game_logs``; none where the league's
                           ``publish_logs`` is false)
    site/replay.html       the replay viewer; ``replay.html?game=<file>`` loads the one chunk that holds
                           the game: games/chunk-<k>.js, k = crc32(file) mod the number of chunks (one
                           chunk per ``GAMES_PER_CHUNK`` games, so a million games are 1,000 files, and a
                           link needs no index); the board geometry per configuration is data/boards.js
    site/games/            the chunks: the site's one copy of each record, one a line (``Chunks``;
                           ``read_site`` reads them back, ``grep -h '^{' games/chunk-*.js`` too)
    site/static/           the stylesheet and the scripts (nothing is loaded from the network); the pages name
                           each with its content's hash, ``static/replay.js?v=<hash>`` (``content_version``):
                           a browser's cached copy of an older site's script is never run on this one's data
    site/standings.md, standings.csv, standings.json
    site/.hexarena-site.json  the files written: the next publish removes those it no longer writes
                           (and nothing else: a user's own files in the folder stay)

The site needs no server: data files are scripts that assign a global, because browsers refuse
``fetch`` (and HTTP ranges) on ``file://``; a chunk holds its records as the lines of a raw template string,
so loading one parses only that game's line. Everything a bot named is escaped (bots are untrusted).

Each record is written once, as the store holds it: no ``games.jsonl`` beside the site (before, it was a second
copy of every record in one file, 2.4 GB for a million games; a site published then loses it at its next
publish, as any file the new site does not write). The chunks are bounded files that are JSON lines too.

A big store's site is written in one pass over its records (``LeagueReport.texts``: the store's
``stored_texts``, read by ``report.read_games`` without parsing them), with the tables from the store's tally;
nothing holds every record at once. The records go to the chunks as the store holds them (bytes, never decoded),
written on a thread of their own (``BlockWriter``); the games a publish analyses are analysed in a process of
their own while the league's tables are read (``results.analyses.Analysing``).
"""

from __future__ import annotations

import gc
import hashlib
import json
import os
import queue
import shutil
import threading
import zlib
from collections import defaultdict
from collections.abc import Iterator
from pathlib import Path

import pandas as pd
from jinja2 import Environment, FileSystemLoader, select_autoescape

from hexarena.leagues.results import definitions
from hexarena.leagues.results.analyses import Analysing, costliest_moves
from hexarena.leagues.results.report import (
    Facts,
    Kind,
    LeagueReport,
    league_snapshot,
    read_games,
    standings_payload,
    strip_paths,
    unique_stems,
)
from hexarena.leagues.results.tables import csv_text
from hexarena.leagues.results.wording import markdown_table, result_summary
from hexarena.leagues.site import charts
from hexarena.leagues.site.logs import log_names, seat_log, write_game_logs
from hexarena.leagues.workspace.files import check_out_folder, remove_stale
from hexarena.leagues.workspace.home import Workspace
from hexarena.protocol.errors import ConfigError, OutOfSpace, is_out_of_space
from hexarena.referee.record import BoardConfig, GameRecord

SITE = Path(__file__).parent  # the templates, scripts and stylesheet beside this module
STATIC = ("site.css", "games.js", "replay.js", "insight.js", "log.js")
LOG_EXCERPT = 1500  # characters of a bot's log shown beside a fault
MANIFEST = ".hexarena-site.json"  # the files a publish wrote: the next one removes those it does not write
GAMES_PER_CHUNK = 1000  # games per file of games/: the viewer loads one such file (1-3 MB) for one game
LIST_PART = 10_000  # rows of the games list per data/games-<k>.js (a multiple of the page's 50)
MARKDOWN_COLUMNS = [  # (column, header, format)
    ("rank", "#", "{:d}"), ("bot", "Bot", "{}"), ("games", "Games", "{:d}"), ("wins", "W", "{:d}"),
    ("draws", "D", "{:d}"), ("losses", "L", "{:d}"), ("points", "Points", "{:g}"),
    ("score_pct", "Score %", "{:.1f}"), ("cells_diff", "Cells ±", "{:+d}"), ("elo", "Elo", "{:.0f}"),
]


def publish(ws: Workspace, league: str, out_dir: str | Path) -> Path:
    """Write the site and the standings files of ``league`` into ``out_dir``; returns the index page."""
    check_out_folder(Path(out_dir))
    out = Path(out_dir).resolve()  # before the league is read: a bad --out fails at once, not after a big store's tally
    # the games without an analysis are analysed in a process of their own while this one reads the league's tables
    # (a few seconds each, on two cores), then stored once the site is written (a write: outside the snapshot)
    analysing = Analysing(ws, league, definitions.league_config(ws, league).analysis_budget)
    collecting = gc.isenabled()
    gc.disable()  # a million ids, rows and strings, none of them in a cycle: the collector's passes over them, 5 %
    try:  # written whole beside the folder, then moved in: never half a site (and a user's files stay)
        with league_snapshot(ws, league) as site:  # the tables and the games of one snapshot
            site.analyses = analysing.analyses()
            site.costliest = costliest_moves(ws, site.analyses)
            index = write_site(out, site)
    except OSError as exc:
        if is_out_of_space(exc):
            raise OutOfSpace(out) from None
        raise
    finally:
        analysing.close()
        if collecting:
            gc.enable()
    analysing.save(ws)
    return index


def write_site(out_dir: str | Path, league: LeagueReport) -> Path:
    """Write every page, data file and export of ``league`` into ``out_dir`` (created if missing).

    The site is written whole into a hidden sibling folder first, then its files are moved in (renames: a
    failed write leaves the old site as it was). Files of an earlier site that this one does not write are
    removed, but only those listed in that site's manifest (``.hexarena-site.json``): a user's own files
    in the folder are never touched."""
    check_out_folder(Path(out_dir))
    out = Path(out_dir).resolve()
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise ConfigError(f"--out {out}: cannot create the folder: {exc.strerror}") from None
    staging = out.parent / f".{out.name}.hexarena-{os.getpid()}"
    shutil.rmtree(staging, ignore_errors=True)
    remove_stale(out.parent, f".{out.name}.hexarena-")  # a killed publish's
    try:
        _write_pages(staging, league)
        written = sorted(p.relative_to(staging).as_posix() for p in staging.rglob("*") if p.is_file())
        before = site_manifest(out)
        for name in written:
            target = out / name
            target.parent.mkdir(parents=True, exist_ok=True)
            os.replace(staging / name, target)
        _remove_stale(out, before - set(written))
        (out / MANIFEST).write_text(json.dumps({"written_by": "hexarena publish", "files": written}, indent=1)
                                    + "\n", encoding="utf-8")
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return out / "index.html"


def site_manifest(out: Path) -> set[str]:
    """The files an earlier publish wrote into ``out`` (none if it left no readable manifest)."""
    try:
        listed = json.loads((out / MANIFEST).read_text(encoding="utf-8")).get("files", [])
    except (OSError, ValueError, AttributeError):
        return set()
    return {name for name in listed if isinstance(name, str) and _inside(name)}


def _inside(name: str) -> bool:
    """A relative path that stays inside the site folder (a manifest is a file on disk: trust nothing)."""
    parts = Path(name).parts
    return bool(parts) and not Path(name).is_absolute() and ".." not in parts and "\\" not in name


def _remove_stale(out: Path, stale: set[str]) -> None:
    """Remove what an earlier site wrote and this one did not, then the folders that left empty."""
    folders = set()
    for name in sorted(stale):
        path = out / name
        if path.is_symlink() or path.is_file():
            path.unlink(missing_ok=True)
            folders.update(p for p in path.parents if out in p.parents)
    for folder in sorted(folders, key=lambda p: len(p.parts), reverse=True):
        try:
            folder.rmdir()  # only if empty: a user's file in it keeps it
        except OSError:
            pass


def _write_pages(out: Path, league: LeagueReport) -> None:
    for folder in (out, out / "static", out / "data", out / "games", out / "logs"):
        folder.mkdir(parents=True, exist_ok=True)
    static = {}  # each file's reference, which changes with its content: a browser never runs a cached old script
    for name in STATIC:  # with new data files (an old replay.js on new data threw a TypeError until reloaded)
        content = (SITE / name).read_bytes()
        (out / "static" / name).write_bytes(content)
        static[name] = f"static/{name}?v={content_version(content)}"
    league.facts = write_game_data(out, league)  # first: the one pass over the games finds the facts
    pages = bot_pages(league.standings["bot"].tolist())
    env = Environment(loader=FileSystemLoader(SITE), autoescape=select_autoescape(["html"]),
                      trim_blocks=True, lstrip_blocks=True)
    env.globals.update(league=league, pages=pages, files=league.files, static=static)
    env.filters["num"] = format_number

    def page(template: str, target: str, **context) -> None:
        (out / target).write_text(env.get_template(template).render(here=target, **context), encoding="utf-8")

    page("index.html", "index.html", **index_context(league))
    for bot in league.standings["bot"]:
        page("bot.html", pages[bot], **bot_context(league, bot))
    page("games.html", "games.html")
    page("replay.html", "replay.html")
    page("log.html", "log.html")
    if league.history.get("snapshots"):
        from hexarena.leagues.site.history import history_context

        page("history.html", "history.html", **history_context(league.history))
    write_exports(out, league)


# ---- names of files and numbers -------------------------------------------------------------------

def bot_pages(bots: list[str]) -> dict[str, str]:
    """Bot → its page, e.g. ``greedy@1a2b3c4d5e`` → ``bot-greedy_1a2b3c4d5e.html``."""
    return {bot: f"bot-{stem}.html" for bot, stem in zip(bots, unique_stems(bots))}


def content_version(content: bytes) -> str:
    """A file's version as its pages reference it (``static/replay.js?v=<this>``): the first 10 hex digits of its
    SHA-256, so the same file gives the same site, byte for byte, and a changed one a new reference."""
    return hashlib.sha256(content).hexdigest()[:10]


def format_number(value: object, digits: int | None = None) -> str:
    """Table cells: NaN as empty, floats to ``digits`` places (default: as short as exact, else 1 place)."""
    if value is None or (isinstance(value, float) and pd.isna(value)):
        return ""
    if not isinstance(value, float):
        return str(value)
    if digits is None:
        return f"{value:g}" if value.is_integer() or (2 * value).is_integer() else f"{value:.1f}"
    return f"{value:.{digits}f}"


# ---- the index ------------------------------------------------------------------------------------

def index_context(league: LeagueReport) -> dict:
    standings = league.standings
    rated = standings.dropna(subset=["elo"]).sort_values("elo", ascending=False)
    chart_rows = [(r.bot, r.elo, r.elo_low, r.elo_high) for r in rated.itertuples()]
    order = standings["bot"].tolist()
    long = league.head_to_head.set_index(["bot", "opponent"])
    cross = [[_pair(long, bot, other) if bot != other else None for other in order] for bot in order]
    return {
        "facts": league.facts,
        "standings": standings,
        "fault_columns": [c for c in standings.columns if c.startswith("fault_")],
        "rating_chart": charts.rating_chart(chart_rows),
        "rating_chart_narrow": charts.rating_chart(chart_rows, width=360, label_w=112, ticks=4),  # a phone's
        "rated": rated,
        "order": order,
        "cross": cross,
        "configs": league.configs,
        "heat": charts.heat,
    }


def _pair(long: pd.DataFrame, bot: str, other: str) -> dict | None:
    if (bot, other) not in long.index:
        return None
    row = long.loc[(bot, other)]
    return {"points": row["points"], "games": int(row["games"]), "share": row["points"] / row["games"]}


# ---- a bot's page ---------------------------------------------------------------------------------

def bot_context(league: LeagueReport, bot: str) -> dict:
    """A bot's page."""
    row = league.standings[league.standings["bot"] == bot].iloc[0].to_dict()
    opponents = league.head_to_head[league.head_to_head["bot"] == bot]
    per_config = [(label, table[table["bot"] == bot].iloc[0].to_dict())
                  for label, table in league.configs if (table["bot"] == bot).any()]
    think = league.think.get(bot, [])
    moves, total_ms = league.timed.get(bot, (0, 0.0))
    games = [(record, seat) for record in league.faulty for seat, name in enumerate(record.seats) if name == bot]
    name, _, version = bot.partition("@")
    in_league = sorted({b for b in league.standings["bot"] if b.partition("@")[0] == name} - {bot})
    return {
        "bot": bot,
        "row": row,
        "version": version,
        "other_versions": in_league,
        "registered": league.versions.get(name, []),
        "opponents": opponents,
        "per_config": per_config,
        "faults": (faults := bot_faults(league, games)),
        "fault_kinds": fault_kinds(league, faults),
        "histogram": charts.histogram(think),
        "histogram_narrow": charts.histogram(think, width=360),
        "think_and_cpu": think_and_cpu(think, league.cpu.get(bot, [])),
        "cpu_moves": len(league.cpu.get(bot, [])),
        "histogram_games": league.think_games if league.think_games and row["games"] > league.think_games else None,
        "moves": moves,
        "mean_ms": _mean_ms(total_ms, moves),
        "heat": charts.heat,
        "costliest": [c for c in league.costliest.get(bot, []) if c["game"] in league.files],
    }


def bot_faults(league: LeagueReport, games: list[tuple[GameRecord, int]]) -> list[dict]:
    """The bot's faults in the order of its games: ``{"record", "fault", "seat"}``."""
    return [{"record": record, "fault": fault, "seat": seat}
            for record, seat in games for fault in record.result.forfeits if fault.seat == seat]


def fault_kinds(league: LeagueReport, faults: list[dict]) -> list[dict]:
    """The faults grouped by reason, the most frequent first: ``{"reason", "faults", "first", "log"}`` where
    ``first`` is the first fault of that kind with a log excerpt (else the first) and ``log`` its excerpt. A
    timeout the host caused is a kind of its own, "host stall", as the tables count it (``results.rows``)."""
    groups: dict[str, list[dict]] = defaultdict(list)
    for fault in faults:
        groups["host stall" if fault["fault"].host_stall is not None else fault["fault"].reason].append(fault)
    kinds = []
    for reason, group in sorted(groups.items(), key=lambda item: -len(item[1])):
        first, log = group[0], ""
        for fault in group:  # the first excerpt of a log that says something
            log = log_excerpt(league.logs_dir, fault["record"].id, fault["seat"])
            if log.strip():
                first = fault
                break
        kinds.append({"reason": reason, "faults": group, "first": first, "log": log,
                      "others": [f for f in group if f is not first]})
    return kinds


def think_and_cpu(think: list[float], cpu: list[float]) -> list[tuple[str, str, str]]:
    """``(figure, think time, CPU time)`` rows of the bot page: mean, median and p95 of each ("—" where no move
    has the figure: records from before ``cpu_ms``, or bots in the referee's own process)."""
    def figure(values: list[float], name: str) -> str:
        if not values:
            return "—"
        ordered = sorted(values)
        at = sum(ordered) / len(ordered) if name == "mean" else charts.quantile(ordered, 0.5 if name == "median" else 0.95)
        return charts.format_ms(at)
    return [(name, figure(think, name), figure(cpu, name)) for name in ("mean", "median", "p95")]


def _mean_ms(total: float, moves: int) -> str | None:
    """The mean think time, as a number of ms that is never blank (None: no move was timed)."""
    if not moves:
        return None
    mean = total / moves
    return f"{mean:.2f}" if mean < 1 else f"{mean:.1f}"


def log_excerpt(logs_dir: Path | None, game_id: str, seat: int) -> str:
    """The tail of a bot's log of one game, as the referee writes it: ``<game>.seat<N>.<bot>.log``."""
    path = seat_log(logs_dir, game_id, seat)
    if path is None:
        return ""
    try:
        with open(path, "rb") as handle:
            handle.seek(max(0, path.stat().st_size - 4 * LOG_EXCERPT))
            text = handle.read().decode("utf-8", "replace")
    except OSError:
        return ""
    return strip_paths(text[-LOG_EXCERPT:])


# ---- data files for the scripts -------------------------------------------------------------------

def write_game_data(out: Path, league: LeagueReport) -> dict:
    """games/chunk-<k>.js (the records, by crc32 of their file stem), data/games.js and data/games-<k>.js
    (the list, newest first), data/boards.js (each configuration's geometry) and logs/<file>.js (each game's bot
    logs, ``logs.write_game_logs``), in one pass over the league's records (``report.read_games``); returns the
    facts of what it wrote (``facts``)."""
    bots = league.standings["bot"].tolist()
    bots.sort()
    bot_index = {b: i for i, b in enumerate(bots)}
    configs: dict[str, BoardConfig] = {}  # label → its configuration
    seen = Facts()
    rows = []
    chunks = Chunks(out / "games", max(1, -(-league.count // GAMES_PER_CHUNK)))
    logged_games = league.logs_dir is not None and bool(log_names(league.logs_dir))  # no log at all: none looked up
    files, analyses, add, count = league.files, league.analyses, chunks.add, seen.add
    collecting = gc.isenabled()
    gc.disable()  # a million rows and strings, none of them in a cycle: the collector's passes over them, 5 % saved
    try:
        for game, text, kind, moves, started, finished in read_games(league.texts(), league.name):
            count(kind, moves, started, finished)
            about, row_head, row_tail = kind.shown or _shown(kind, bot_index, configs)
            stem = files[game]
            if analyses and (analysis := analyses.get(game)):
                about += f',"analysis":{json.dumps(analysis, separators=(",", ":"))}'
            if logged_games and (logged := write_game_logs(out, league.logs_dir, game, stem, kind.seats)):
                about += f',"logs":{json.dumps(logged, separators=(",", ":"))}'  # the seats with a log
            add(stem, text, about)
            # the list's row but for its file stem, date and configuration, as JSON text: a few hundred bytes a
            # game less than the row as lists (a million games' rows are held until they are sorted)
            rows.append((started, game, kind.label, f"{row_head}{moves}{row_tail}"))
        chunks.close()
        labels = sorted(configs)
        config_index = {c: i for i, c in enumerate(labels)}
        boards = {label: c.board().drawing(border=c.border) for label, c in configs.items()}
        _write_js(out / "data" / "boards.js", "HEXARENA_BOARDS", boards)
        rows.sort(reverse=True)  # newest first: by start, then id (ids differ: the rest is never compared)
        parts = max(1, -(-len(rows) // LIST_PART))
        quoted = _js_string
        for k in range(parts):  # each row [stem, started, configuration (its index), bots, scores, ...]
            part = ",".join([f"[{quoted(files[game])},{quoted(started)},{config_index[label]},{rest}]"
                             for started, game, label, rest in rows[k * LIST_PART:(k + 1) * LIST_PART]])
            (out / "data" / f"games-{k}.js").write_text(
                f"(window.HEXARENA_PARTS = window.HEXARENA_PARTS || {{}})[{k}] = [{part}];\n", encoding="utf-8")
    finally:
        chunks.writer.stop()  # the thread ends even where the stream failed
        if collecting:
            gc.enable()
    _write_js(out / "data" / "games.js", "HEXARENA_INDEX", {"bots": bots, "configs": labels, "total": len(rows),
                                                             "part_rows": LIST_PART, "parts": parts,
                                                             "chunks": chunks.count})
    return seen.facts()


def _shown(kind: Kind, bot_index: dict[str, int], configs: dict[str, BoardConfig]) -> tuple[str, str, str]:
    """What a game's entry in its chunk says beside its record, ``"config_label":…,"summary":…``, and its row of
    the games list but for the moves, the JSON before and after them (``[0,1],[9,7],[1,2],"completed",`` and
    ``,null``): the same for every game of the kind (``Kind.shown``)."""
    result, seats = kind.result, kind.seats
    configs.setdefault(kind.label, kind.config)
    said = result_summary(seats, result["scores"], result["placements"], result["termination"], result.get("offender"))
    row = json.dumps([[bot_index[b] for b in seats], result["scores"], result["placements"], result["termination"],
                      0, result.get("offender")], separators=(",", ":"), ensure_ascii=False)[1:-1]
    head, _, tail = row.rpartition(",0,")
    kind.shown = (f'"config_label":{_js_string(kind.label)},"summary":{_js_string(said)}', head + ",", "," + tail)
    return kind.shown


_js_string = json.encoder.encode_basestring  # a str as a JSON (and JS) string literal, without json.dumps' overhead


class Chunks:
    """The files games/chunk-<k>.js, the site's only copy of each record: a game goes to chunk crc32(stem) mod
    ``count`` (replay.js computes the same). A chunk is written in blocks of a bounded size, each one statement::

        (window.HEXARENA_CHUNK = window.HEXARENA_CHUNK || []).push([String.raw`
        {"id":"g1",...the record as stored...}
        {"id":"g2",...}
        `, [["<stem of g1>",{"line":0,"config_label":…,"summary":…,"analysis":…,"logs":[…]}],…]]);

    Each record is one line of its own, as the store holds it (a JSON object, so a line that starts with ``{``;
    no other line of a chunk does): ``read_site`` (and ``grep -h '^{' games/chunk-*.js``) reads them back as JSON
    lines, and the viewer parses only the line of its game. In a raw template nothing of JSON is an escape: only
    a backtick and ``${`` would end or break it, which can only be in a JSON string, where they are written as
    the JSON escapes ``\\u0060`` and ``\\u0024{``."""

    FLUSH = 1 << 18  # bytes buffered per chunk before they are appended to its file as a block
    START = "(window.HEXARENA_CHUNK = window.HEXARENA_CHUNK || []).push([String.raw`\n"

    def __init__(self, folder: Path, count: int) -> None:
        self.folder, self.count = folder, count
        self.lines: list[list[bytes]] = [[] for _ in range(count)]  # a block's records
        self.games: list[list[str]] = [[] for _ in range(count)]  # a block's ``["<stem>",{…}]`` entries
        self.sizes = [0] * count
        self.started = [False] * count
        self.writer = BlockWriter()

    def add(self, stem: str, record: bytes, about: str) -> None:
        """One game: its file stem, its record's JSON in UTF-8 (one line: ``report.read_games`` makes a stored one
        so) and the JSON members the viewer shows beside it (``"config_label":…,"summary":…``, ``"analysis"``,
        ``"logs"``)."""
        k = zlib.crc32(stem.encode()) % self.count
        lines = self.lines[k]
        self.games[k].append(f'["{stem}",{{"line":{len(lines)},{about}}}]')  # a stem is [A-Za-z0-9_.-]: no escape
        lines.append(record)
        self.sizes[k] += len(record)
        if self.sizes[k] > self.FLUSH:
            self._flush(k)

    def _flush(self, k: int) -> None:
        if not self.lines[k]:
            return
        records = b"\n".join(self.lines[k])
        if b"`" in records or b"$" in records:  # looked for in a block's records at once (each a quick memchr)
            records = records.replace(b"`", b"\\u0060").replace(b"${", b"\\u0024{")
        block = b"".join((self.START.encode(), records, b"\n`, [", ",".join(self.games[k]).encode(), b"]]);\n"))
        self.writer.write(self.folder / f"chunk-{k}.js", block, append=self.started[k])
        self.started[k] = True
        self.lines[k], self.games[k], self.sizes[k] = [], [], 0

    def close(self) -> None:
        """Write what is left, and wait for every block to be written (an error writing one is raised here)."""
        try:
            for k in range(self.count):
                self._flush(k)
                if not self.started[k]:  # no game fell into it: an empty chunk all the same (the viewer loads it)
                    self.writer.write(self.folder / f"chunk-{k}.js",
                                      b"window.HEXARENA_CHUNK = window.HEXARENA_CHUNK || [];\n", append=False)
        finally:
            self.writer.close()


class BlockWriter:
    """Files written on a thread of their own: ``write`` hands a block over and returns (at most ``AHEAD`` blocks
    wait: a few MB), the thread writes them in order while the caller reads and builds the next (a write holds
    no lock of the interpreter: on two cores the chunks' 2.5 GB for a million games are written beside the
    work, not after it). ``close`` waits for the last; the first error writing is raised by the next ``write``
    or by ``close``."""

    AHEAD = 16

    def __init__(self) -> None:
        self.blocks: queue.Queue = queue.Queue(self.AHEAD)
        self.error: Exception | None = None
        self.thread = threading.Thread(target=self._run, name="hexarena-chunks", daemon=True)
        self.thread.start()

    def write(self, path: Path, block: bytes, *, append: bool) -> None:
        if self.error is not None:
            raise self.error
        self.blocks.put((path, block, append))

    def _run(self) -> None:
        while (item := self.blocks.get()) is not None:  # after an error, the blocks are taken and dropped
            path, block, append = item
            if self.error is None:
                try:
                    with open(path, "ab" if append else "wb") as handle:
                        handle.write(block)
                except Exception as exc:  # noqa: BLE001 - raised in the caller's thread (an OSError, in practice)
                    self.error = exc

    def close(self) -> None:
        self.stop()
        if self.error is not None:
            raise self.error

    def stop(self) -> None:
        """Wait for the blocks handed over, and end the thread (the caller failed: nothing is raised)."""
        if self.thread.is_alive():
            self.blocks.put(None)
            self.thread.join()


def chunk_files(site: str | Path) -> list[Path]:
    """A published site's chunks (games/chunk-*.js), in the order of their numbers."""
    return sorted(Path(site, "games").glob("chunk-*.js"), key=lambda p: (len(p.name), p.name))


def read_site(site: str | Path) -> Iterator[str]:
    """The records of a published site, one JSON text each (the lines of its chunks that start with ``{``,
    ``Chunks``), chunk by chunk: what a ``games.jsonl`` of the league holds, in another order."""
    for path in chunk_files(site):
        yield from (text for _, text in chunk_records(path))


def chunk_records(path: Path) -> Iterator[tuple[int, str]]:
    """``(line number, JSON text)`` of each record of one chunk: its lines that start with ``{`` (``Chunks``)."""
    with open(path, encoding="utf-8") as handle:
        yield from ((number, line.rstrip("\n")) for number, line in enumerate(handle, start=1) if line.startswith("{"))


def _write_js(path: Path, name: str, value: object) -> None:
    path.write_text(f"window.{name} = {json.dumps(value, separators=(',', ':'), ensure_ascii=False)};\n",
                    encoding="utf-8")


# ---- standings.md / .csv / .json ------------------------------------------------------------------------

def standings_markdown(league: LeagueReport) -> str:
    """The standings as a GitHub Markdown table, with the 95% interval and fault counts."""
    head = [h for _, h, _ in MARKDOWN_COLUMNS] + ["95% interval", "Faults"]
    rows = []
    for row in league.standings.to_dict("records"):
        cells = [_cell(fmt, row[column]) for column, _, fmt in MARKDOWN_COLUMNS]
        interval = "" if pd.isna(row["elo"]) else f"{row['elo_low']:.0f}–{row['elo_high']:.0f}"
        faults = f"{row['faults']:d}" + (" ⚑" if row["flagged"] else "")
        rows.append([*cells, interval, faults])
    table = markdown_table(head, rows, right={i for i, h in enumerate(head) if h != "Bot"})
    configs = ", ".join(label for label, _ in league.configs)
    return "\n".join([f"# {league.name}: standings", "", f"{league.count} games · {configs}", "", table]) + "\n"


def _cell(fmt: str, value: object) -> str:
    if value is None or (isinstance(value, float) and pd.isna(value)):
        return ""
    return fmt.format(int(value) if fmt.endswith("d}") else value)


def write_exports(out: Path, league: LeagueReport) -> None:
    (out / "standings.md").write_text(standings_markdown(league), encoding="utf-8")
    (out / "standings.csv").write_text(csv_text(league.standings), encoding="utf-8")
    (out / "standings.json").write_text(json.dumps(standings_payload(league), indent=1, ensure_ascii=False) + "\n",
                                        encoding="utf-8")
