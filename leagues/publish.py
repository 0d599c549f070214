"""Publishing a league: a static results site with a replay viewer, plus Markdown, CSV and JSON.

    publish(ws, "demo", "site/")          reads the league's records from the store and writes:

    site/index.html        standings with ratings (95% intervals), rating chart, crosstable heat map,
                           tables per board configuration, when the league ran and what it covered
    site/bot-<name>.html   one page per bot: results per opponent and configuration, faults with
                           log excerpts, think-time histogram, versions
    site/games.html        every game, filtered and paginated in the browser (data/games.js)
    site/replay.html       the replay viewer; ``replay.html?game=<file>`` loads games/<file>.js only
    site/static/           the stylesheet and the two scripts (nothing is loaded from the network)
    site/standings.md, standings.csv, standings.json, games.jsonl (every record, one JSON a line)
    site/.hexarena-site.json  the files written: the next publish removes those it no longer writes
                           (and nothing else: a user's own files in the folder stay)

The site needs no server: data files are scripts that assign a global, because browsers refuse
``fetch`` on ``file://``. Everything a bot named is escaped (bots are untrusted).
"""

from __future__ import annotations

import json
import os
import re
import shutil
from collections import defaultdict
from dataclasses import dataclass, field
from datetime import UTC, datetime
from glob import escape as glob_escape
from pathlib import Path

import pandas as pd
from jinja2 import Environment, FileSystemLoader, select_autoescape

from leagues import tables
from leagues.output import check_out_folder
from leagues.site import charts
from leagues.wording import markdown_table, summary
from leagues.workspace import Workspace
from protocol.errors import ConfigError, OutOfSpace, is_out_of_space
from referee.record import GameRecord

SITE = Path(__file__).parent / "site"
STATIC = ("site.css", "games.js", "replay.js")
LOG_EXCERPT = 1500  # characters of a bot's log shown beside a fault
MANIFEST = ".hexarena-site.json"  # the files a publish wrote: the next one removes those it does not write


@dataclass
class League:
    """What the site shows: the records and the tables computed from them."""

    name: str
    records: list[GameRecord]
    standings: pd.DataFrame  # tables.standings joined with ratings.ratings (elo, elo_low, elo_high, los)
    head_to_head: pd.DataFrame  # tables.head_to_head
    configs: list[tuple[str, pd.DataFrame]]  # (configuration label, its standings)
    description: str = ""
    logs_dir: Path | None = None
    versions: dict[str, list[dict]] = field(default_factory=dict)  # bot name → registered versions, oldest first
    generated: datetime = field(default_factory=lambda: datetime.now(UTC))


def publish(ws: Workspace, league: str, out_dir: str | Path) -> Path:
    """Write the site and the standings files of ``league`` into ``out_dir``; returns the index page."""
    site = league_view(ws, league)
    out = Path(out_dir).resolve()
    check_out_folder(out)
    try:  # written whole beside the folder, then moved in: never half a site (and a user's files stay)
        return write_site(out, site)
    except OSError as exc:
        if is_out_of_space(exc):
            raise OutOfSpace(out) from None
        raise


def league_view(ws: Workspace, league: str) -> League:
    """What the site of ``league`` shows, from the store (the server's read API shows the same);
    ConfigError for an unknown league or one without finished games."""
    from leagues import store

    config = store.league_config(ws, league)
    records = store.records(ws, league)
    if not records:
        raise ConfigError(f"league {league!r} has no finished games yet (run it with 'hexarena league run')")
    covered = (f"{config.fault_policy} on faults · {config.games} games per pairing and configuration"
               f" · participants: {', '.join(map(participant_label, config.participants))}")
    description = " · ".join(filter(None, [config.description, covered]))
    site = compute(league, records, config.flag_threshold, description, logs_dir=ws.logs_dir / league)
    site.versions = registered_versions(ws, {seat.partition("@")[0] for r in records for seat in r.seats})
    return site


def participant_label(text: str) -> str:
    """A participant as the site shows it: a bot given as a folder by its name, never the folder's path."""
    if "/" not in text and not Path(text).is_dir():
        return text
    from referee.manifest import load_manifest

    try:
        return load_manifest(Path(text)).name
    except ConfigError:  # a folder that is no bot (any more): its last part
        return Path(text).name or text


ABSOLUTE_DIRS = re.compile(r"(?<![\w.~:/\\-])/(?:[^\s/'\"`<>()\[\]{}:;,|=]+/)+")


def strip_paths(text: str) -> str:
    """``text`` without the folders of absolute paths (the organiser's machine): ``/home/o/bots/x/bot.py``
    becomes ``bot.py``, ``in /srv/league/bots/x;`` becomes ``in x;``. URLs and relative paths stay."""
    return ABSOLUTE_DIRS.sub("", text)


def without_paths(record: GameRecord) -> GameRecord:
    if not any(ABSOLUTE_DIRS.search(f.detail) for f in record.result.forfeits):
        return record
    forfeits = [f.model_copy(update={"detail": strip_paths(f.detail)}) for f in record.result.forfeits]
    return record.model_copy(update={"result": record.result.model_copy(update={"forfeits": forfeits})})


def registered_versions(ws: Workspace, names: set[str]) -> dict[str, list[dict]]:
    """What the registry knows of each bot's versions (bots played from a folder are not registered)."""
    from leagues import registry

    versions = {}
    for name in sorted(names):
        try:
            history = registry.bot_history(ws, name)
        except ConfigError:
            continue
        versions[name] = [{"hash": v.hash, "submitted": v.submitted[:16].replace("T", " "),
                           "language": v.manifest.language, "author": v.manifest.author} for v in history]
    return versions


def compute(name: str, records: list[GameRecord], flag_threshold: float = 0.1, description: str = "",
            logs_dir: Path | None = None) -> League:
    """Standings and ratings of a list of records (``logs_dir``: where the referee wrote the bots' logs)."""
    from leagues.ratings import ratings

    records = [without_paths(record) for record in records]  # the site shows no paths of this machine
    frame = tables.seat_frame(records)
    rated = ratings(frame)[["bot", "elo", "elo_low", "elo_high", "gap", "gap_low", "gap_high", "los"]]
    standings = tables.standings(frame, flag_threshold).merge(rated, on="bot", how="left")
    configs = [(label, tables.standings(part, flag_threshold)) for label, part in tables.by_configuration(frame)]
    return League(name, records, standings, tables.head_to_head(frame), configs, description, logs_dir)


def write_site(out_dir: str | Path, league: League) -> Path:
    """Write every page, data file and export of ``league`` into ``out_dir`` (created if missing).

    The site is written whole into a hidden sibling folder first, then its files are moved in (renames: a
    failed write leaves the old site as it was). Files of an earlier site that this one does not write are
    removed, but only those listed in that site's manifest (``.hexarena-site.json``): a user's own files
    in the folder are never touched."""
    out = Path(out_dir).resolve()
    if out.exists() and not out.is_dir():
        raise ConfigError(f"--out {out}: exists and is not a folder; give a folder")
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise ConfigError(f"--out {out}: cannot create the folder: {exc.strerror}") from None
    staging = out.parent / f".{out.name}.hexarena-{os.getpid()}"
    shutil.rmtree(staging, ignore_errors=True)
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


def _write_pages(out: Path, league: League) -> None:
    for folder in (out, out / "static", out / "data", out / "games"):
        folder.mkdir(parents=True, exist_ok=True)
    for name in STATIC:
        shutil.copyfile(SITE / name, out / "static" / name)
    files = game_files(league.records)
    pages = bot_pages(league.standings["bot"].tolist())
    env = Environment(loader=FileSystemLoader(SITE), autoescape=select_autoescape(["html"]),
                      trim_blocks=True, lstrip_blocks=True)
    env.globals.update(league=league, pages=pages, files=files)
    env.filters["num"] = _format_number

    def page(template: str, target: str, **context) -> None:
        (out / target).write_text(env.get_template(template).render(here=target, **context), encoding="utf-8")

    page("index.html", "index.html", **index_context(league))
    seats = defaultdict(list)  # bot → [(record, seat)]
    for record in league.records:
        for seat, bot in enumerate(record.seats):
            seats[bot].append((record, seat))
    for bot in league.standings["bot"]:
        page("bot.html", pages[bot], **bot_context(league, bot, seats[bot]))
    page("games.html", "games.html")
    page("replay.html", "replay.html")
    write_game_data(out, league.records, files)
    write_exports(out, league)


# ---- names of files -------------------------------------------------------------------------------

def _safe(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]", "_", text).lstrip(".") or "_"


def _unique(names: list[str]) -> list[str]:
    """Safe file names, made distinct case-insensitively (two ids may only differ in case or in unsafe chars)."""
    seen: set[str] = set()
    result = []
    for name in names:
        base, candidate, n = _safe(name), _safe(name), 1
        while candidate.lower() in seen:
            n += 1
            candidate = f"{base}-{n}"
        seen.add(candidate.lower())
        result.append(candidate)
    return result


def game_files(records: list[GameRecord]) -> dict[str, str]:
    """Game id → file stem under ``games/`` (and the ``?game=`` of the viewer)."""
    return dict(zip((r.id for r in records), _unique([r.id for r in records])))


def bot_pages(bots: list[str]) -> dict[str, str]:
    """Bot → its page, e.g. ``greedy@1a2b3c4d5e`` → ``bot-greedy_1a2b3c4d5e.html``."""
    return {bot: f"bot-{stem}.html" for bot, stem in zip(bots, _unique(bots))}


# ---- the index ------------------------------------------------------------------------------------

def index_context(league: League) -> dict:
    records = league.records
    standings = league.standings
    rated = standings.dropna(subset=["elo"]).sort_values("elo", ascending=False)
    chart_rows = [(r.bot, r.elo, r.elo_low, r.elo_high) for r in rated.itertuples()]
    order = standings["bot"].tolist()
    long = league.head_to_head.set_index(["bot", "opponent"])
    cross = [[_pair(long, bot, other) if bot != other else None for other in order] for bot in order]
    return {
        "facts": facts(records),
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


def facts(records: list[GameRecord]) -> dict:
    """When the league ran and what it covered."""
    started = [r.started for r in records if r.started]
    finished = [r.finished or r.started for r in records if r.finished or r.started]
    return {
        "games": len(records),
        "bots": len({seat for r in records for seat in r.seats}),
        "moves": sum(len(r.moves) for r in records),
        "faults": sum(r.result.termination != "completed" for r in records),
        "first": _utc(min(started)) if started else "—",
        "last": _utc(max(finished)) if finished else "—",
        "configs": sorted({r.config.label for r in records}),
        "time_controls": sorted({str(r.time_control) for r in records if r.time_control}),
        "players": sorted({r.config.players for r in records}),
    }


def _utc(moment: datetime) -> str:
    return (moment.astimezone(UTC) if moment.tzinfo else moment).strftime("%Y-%m-%d %H:%M")


# ---- a bot's page ---------------------------------------------------------------------------------

def bot_context(league: League, bot: str, games: list[tuple[GameRecord, int]]) -> dict:
    """A bot's page; ``games`` are its (record, seat) pairs."""
    row = league.standings[league.standings["bot"] == bot].iloc[0].to_dict()
    opponents = league.head_to_head[league.head_to_head["bot"] == bot]
    per_config = [(label, table[table["bot"] == bot].iloc[0].to_dict())
                  for label, table in league.configs if (table["bot"] == bot).any()]
    think = [m.ms for r, seat in games for m in r.moves if m.seat == seat and not m.substituted]
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
        "moves": len(think),
        "mean_ms": _mean_ms(think),
        "heat": charts.heat,
    }


def bot_faults(league: League, games: list[tuple[GameRecord, int]]) -> list[dict]:
    """The bot's faults in the order of its games: ``{"record", "fault", "seat"}``."""
    return [{"record": record, "fault": fault, "seat": seat}
            for record, seat in games for fault in record.result.forfeits if fault.seat == seat]


def fault_kinds(league: League, faults: list[dict]) -> list[dict]:
    """The faults grouped by reason, the most frequent first: ``{"reason", "faults", "first", "log"}`` where
    ``first`` is the first fault of that kind with a log excerpt (else the first) and ``log`` its excerpt."""
    groups: dict[str, list[dict]] = defaultdict(list)
    for fault in faults:
        groups[fault["fault"].reason].append(fault)
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


def _mean_ms(values: list[float]) -> str | None:
    """The mean think time, as a number of ms that is never blank (None: no move was timed)."""
    if not values:
        return None
    mean = sum(values) / len(values)
    return f"{mean:.2f}" if mean < 1 else f"{mean:.1f}"


def log_excerpt(logs_dir: Path | None, game_id: str, seat: int) -> str:
    """The tail of a bot's log of one game, as the referee writes it: ``<game>.seat<N>.<bot>.log``."""
    if logs_dir is None:
        return ""
    for path in sorted(logs_dir.glob(f"{glob_escape(game_id.replace('/', '_'))}.seat{seat}.*.log")):
        try:
            with open(path, "rb") as handle:
                handle.seek(max(0, path.stat().st_size - 4 * LOG_EXCERPT))
                text = handle.read().decode("utf-8", "replace")
        except OSError:
            continue
        return strip_paths(text[-LOG_EXCERPT:])
    return ""


# ---- data files for the scripts -------------------------------------------------------------------

def write_game_data(out: Path, records: list[GameRecord], files: dict[str, str]) -> None:
    """``games/<file>.js`` per game (record + board geometry) and ``data/games.js`` (the list)."""
    boards: dict[str, dict] = {}
    bots = sorted({seat for r in records for seat in r.seats})
    configs = sorted({r.config.label for r in records})
    bot_index = {b: i for i, b in enumerate(bots)}
    config_index = {c: i for i, c in enumerate(configs)}
    rows = []
    for record in sorted(records, key=lambda r: (r.started.isoformat() if r.started else "", r.id), reverse=True):
        config = record.config
        if config.label not in boards:
            boards[config.label] = {"geometry": config.geometry, **config.board().to_json(border=config.border)}
        game = record.model_dump(mode="json")
        game.update(board=boards[config.label], config_label=config.label, summary=summary(record))
        _write_js(out / "games" / f"{files[record.id]}.js", "HEXARENA_GAME", game)
        started = record.started.isoformat() if record.started else ""
        rows.append([files[record.id], started, config_index[config.label], [bot_index[s] for s in record.seats],
                     record.result.scores, record.result.placements, record.result.termination,
                     len(record.moves), record.result.offender])
    _write_js(out / "data" / "games.js", "HEXARENA_INDEX", {"bots": bots, "configs": configs, "games": rows})


def _write_js(path: Path, name: str, value: object) -> None:
    path.write_text(f"window.{name} = {json.dumps(value, separators=(',', ':'), ensure_ascii=False)};\n",
                    encoding="utf-8")


# ---- standings.md / .csv / .json and games.jsonl ---------------------------------------------------

MARKDOWN_COLUMNS = [  # (column, header, format)
    ("rank", "#", "{:d}"), ("bot", "Bot", "{}"), ("games", "Games", "{:d}"), ("wins", "W", "{:d}"),
    ("draws", "D", "{:d}"), ("losses", "L", "{:d}"), ("points", "Points", "{:g}"),
    ("score_pct", "Score %", "{:.1f}"), ("cells_diff", "Cells ±", "{:+d}"), ("elo", "Elo", "{:.0f}"),
]


def standings_markdown(league: League) -> str:
    """The standings as a GitHub Markdown table, with the 95% interval and fault counts."""
    head = [h for _, h, _ in MARKDOWN_COLUMNS] + ["95% interval", "Faults"]
    rows = []
    for row in league.standings.to_dict("records"):
        cells = [_cell(fmt, row[column]) for column, _, fmt in MARKDOWN_COLUMNS]
        interval = "" if pd.isna(row["elo"]) else f"{row['elo_low']:.0f}–{row['elo_high']:.0f}"
        faults = f"{row['faults']:d}" + (" ⚑" if row["flagged"] else "")
        rows.append([*cells, interval, faults])
    table = markdown_table(head, rows, right={i for i, h in enumerate(head) if h != "Bot"})
    return "\n".join([f"# {league.name}: standings", "",
                      f"{len(league.records)} games · {', '.join(facts(league.records)['configs'])}", "", table]) + "\n"


def _cell(fmt: str, value: object) -> str:
    if value is None or (isinstance(value, float) and pd.isna(value)):
        return ""
    return fmt.format(int(value) if fmt.endswith("d}") else value)


def write_exports(out: Path, league: League) -> None:
    (out / "standings.md").write_text(standings_markdown(league), encoding="utf-8")
    league.standings.to_csv(out / "standings.csv", index=False, float_format="%.6g")
    (out / "standings.json").write_text(json.dumps(standings_payload(league), indent=1, ensure_ascii=False) + "\n",
                                        encoding="utf-8")
    with open(out / "games.jsonl", "w", encoding="utf-8") as handle:
        handle.writelines(record.model_dump_json() + "\n" for record in league.records)


def standings_payload(league: League) -> dict:
    """The content of ``standings.json`` (and of the server's ``GET /api/leagues/NAME/standings``)."""
    return {
        "league": league.name,
        "generated": league.generated.isoformat(timespec="seconds"),
        "facts": facts(league.records),
        "standings": json.loads(league.standings.to_json(orient="records", double_precision=6)),
    }


def _format_number(value: object, digits: int | None = None) -> str:
    """Table cells: NaN as empty, floats to ``digits`` places (default: as short as exact, else 1 place)."""
    if value is None or (isinstance(value, float) and pd.isna(value)):
        return ""
    if not isinstance(value, float):
        return str(value)
    if digits is None:
        return f"{value:g}" if value.is_integer() or (2 * value).is_integer() else f"{value:.1f}"
    return f"{value:.{digits}f}"
