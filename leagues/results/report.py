"""A league's results as people see them: the view the server's read API and the published site both show.

    league = league_view(ws, "demo")       the view of a stored league: standings with ratings, head to head,
                                           per configuration, the games as a stream, faults, think times
    with league_snapshot(ws, "demo") as league:   the same, its games streamed from the same snapshot
    league = compute("demo", records)      the same view of a list of records (no store)
    standings_payload(league)              standings.json, and the API's GET /api/leagues/NAME/standings

Nothing of the organiser's machine is shown: absolute folders are stripped from every text a bot or the
referee wrote (``strip_paths``: fault details, log excerpts, build logs), and a participant given as a folder
is shown by its bot's name. Each game has a file stem (``files``: its id made safe and distinct for file
names), the key the site and its replay links use. Writing the site from this view is
``hexarena.leagues.site.publish``'s; this module writes nothing.
"""

from __future__ import annotations

import json
import re
from collections import defaultdict
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

import pandas as pd

from hexarena.leagues.results import tables
from hexarena.leagues.results.history import history_payload
from hexarena.leagues.workspace.home import Workspace
from hexarena.protocol.errors import ConfigError
from hexarena.referee.record import BoardConfig, GameRecord

THINK_GAMES = 2000  # a bot's think-time histogram from a store: its last this many games
# the folders of an absolute path in a text (strip_paths): not after a word, a dot, '~', ':' or another '/'
ABSOLUTE_DIRS = re.compile(r"(?<![\w.~:/\\-])/(?:[^\s/'\"`<>()\[\]{}:;,|=]+/)+")
UNSAFE = re.compile(r"[^A-Za-z0-9_.\n-]")  # safe_stem's, but for the newlines that join the names in unique_stems
Games = Callable[[], Iterator[tuple[str, dict]]]  # (record JSON, the same parsed, "moves": their count) per game


@dataclass
class LeagueReport:
    """What the site and the read API show: the tables, and the games as a stream (``games()``, read once while
    the site is written) with what the bot pages need of them."""

    name: str
    count: int  # games
    games: Games  # without absolute paths (``strip_paths``)
    files: dict[str, str]  # game id → its file stem (``game_files``)
    standings: pd.DataFrame  # tables.standings joined with ratings.ratings (elo, elo_low, elo_high, los)
    head_to_head: pd.DataFrame  # tables.head_to_head
    configs: list[tuple[str, pd.DataFrame]]  # (configuration label, its standings)
    faulty: list[GameRecord]  # the games with a fault, without absolute paths (from a store: without their moves)
    think: dict[str, list[float]]  # bot → think times of its own timed moves (its last THINK_GAMES games from a store)
    timed: dict[str, tuple[int, float]]  # bot → (own timed moves, their total ms) over every game
    think_games: int | None = None  # THINK_GAMES when ``think`` may cover only that many games per bot
    cpu: dict[str, list[float]] = field(default_factory=dict)  # bot → CPU ms of the moves of ``think`` that have it
    description: str = ""
    logs_dir: Path | None = None
    versions: dict[str, list[dict]] = field(default_factory=dict)  # bot name → registered versions, oldest first
    generated: datetime = field(default_factory=lambda: datetime.now(UTC))
    facts: dict = field(default_factory=dict)  # ``facts``: found while the games are written
    history: dict = field(default_factory=dict)  # ratings over time (``hexarena.leagues.results.history``)
    analyses: dict = field(default_factory=dict)  # game id → its solver analysis (``results.analyses.league_analyses``)
    costliest: dict = field(default_factory=dict)  # bot → its costliest moves (``results.analyses.costliest_moves``)

    @property
    def last_file(self) -> str:
        """The file stem of the league's last game in schedule order (the menu's replay link)."""
        return self.files[next(reversed(self.files))]


@contextmanager
def league_snapshot(ws: Workspace, league: str) -> Iterator[LeagueReport]:
    """``league_view`` in one read transaction that lasts the block: its tables and its games, streamed later
    while a site is written, are of the same stored games, whatever the league's runner stores meanwhile."""
    from hexarena.leagues.results import store

    store.ensure_tallied(ws, league)  # a write: before the snapshot
    with ws.reading():
        yield league_view(ws, league)


def league_view(ws: Workspace, league: str) -> LeagueReport:
    """What the site of ``league`` shows, from the store (the server's read API shows the same);
    ConfigError for an unknown league or one without finished games. Its tables are read in one snapshot;
    its ``games()`` are read when called: a caller that streams them uses ``league_snapshot``."""
    from hexarena.leagues.results import store

    store.ensure_tallied(ws, league)  # a write: before the snapshot (in a league_snapshot, done already)
    with ws.reading():
        return _stored_view(ws, league)


def _stored_view(ws: Workspace, league: str) -> LeagueReport:
    from hexarena.leagues.results import definitions, store

    config = definitions.league_config(ws, league)
    tally = store.tally(ws, league)
    if not len(tally.games):
        raise ConfigError(f"league {league!r} has no finished games yet (run it with 'hexarena league run')")
    covered = (f"{config.fault_policy} on faults · {config.games} games per pairing and configuration"
               f" · participants: {', '.join(map(participant_label, config.participants))}")
    description = " · ".join(filter(None, [config.description, covered]))
    bots = sorted(tally.sums["bot"].astype(str).unique())
    ids = store.game_ids(ws, league)
    sums = tally.sums.groupby(tally.sums["bot"].astype(str))[["moves", "think_ms"]].sum()
    faulty = [without_paths(r) for r in store.faulty_records(ws, league, moves=False)]  # the bot pages: faults only
    logs_dir = ws.logs_dir / league if config.publish_logs else None  # publish_logs = false: no log is shown
    site = tabled(league, tally, config.flag_threshold, description=description, logs_dir=logs_dir,
                  count=int(tally.games.loc[tally.games["seat"] == 0, "weight"].sum()),
                  games=lambda: stripped(store.stored_games(ws, league)),
                  files=dict(zip(ids, unique_stems(ids))),
                  faulty=faulty,
                  think={bot: store.think_times(ws, league, bot, THINK_GAMES) for bot in bots},
                  cpu={bot: store.cpu_times(ws, league, bot, THINK_GAMES) for bot in bots},
                  timed={bot: (int(row.moves), float(row.think_ms)) for bot, row in sums.iterrows()},
                  think_games=THINK_GAMES)
    site.versions = registered_versions(ws, {bot.partition("@")[0] for bot in bots})
    site.history = history_payload(ws, league)
    return site


def participant_label(text: str) -> str:
    """A participant as the site shows it: a bot given as a folder by its name, never the folder's path."""
    if "/" not in text and not Path(text).is_dir():
        return text
    from hexarena.referee.manifest import load_manifest

    try:
        return load_manifest(Path(text)).name
    except ConfigError:  # a folder that is no bot (any more): its last part
        return Path(text).name or text


def strip_paths(text: str) -> str:
    """``text`` without the folders of absolute paths (the organiser's machine): ``/home/o/bots/x/bot.py``
    becomes ``bot.py``, ``in /srv/league/bots/x;`` becomes ``in x;``. URLs and relative paths stay."""
    return ABSOLUTE_DIRS.sub("", text)


def stripped(games: Iterator[tuple[str, dict]]) -> Iterator[tuple[str, dict]]:
    """Stored games without absolute paths, each record's JSON one line: a game with a fault whose detail names a
    folder is read as a GameRecord and its details stripped, a record stored with line breaks (written by another
    tool: hexarena writes one line) is made one line (the site's chunks and ``league export`` are JSON lines);
    the others are passed on as they are."""
    for text, data in games:
        if "\n" in text or "\r" in text:
            text = json.dumps(json.loads(text), separators=(",", ":"), ensure_ascii=False)
        forfeits = data["result"].get("forfeits")
        if forfeits and any(ABSOLUTE_DIRS.search(str(f.get("detail") or "")) for f in forfeits if isinstance(f, dict)):
            record = without_paths(GameRecord.model_validate_json(text))
            text = record.model_dump_json()
            data = {**data, "result": record.result.model_dump(mode="json")}
        yield text, data


def without_paths(record: GameRecord) -> GameRecord:
    if not any(ABSOLUTE_DIRS.search(f.detail) for f in record.result.forfeits):
        return record
    forfeits = [f.model_copy(update={"detail": strip_paths(f.detail)}) for f in record.result.forfeits]
    return record.model_copy(update={"result": record.result.model_copy(update={"forfeits": forfeits})})


def registered_versions(ws: Workspace, names: set[str]) -> dict[str, list[dict]]:
    """What the registry knows of each bot's versions (bots played from a folder are not registered). Each
    version's author is the bot's owner, the account that submitted it: the manifest's ``author`` is what the
    bot says of itself, and anyone can write any name there."""
    from hexarena.leagues.registry.catalog import bot_history, bot_row

    versions = {}
    for name in sorted(names):
        try:
            history = bot_history(ws, name)
        except ConfigError:
            continue
        owner = bot_row(ws, name)["author"]
        versions[name] = [{"hash": v.hash, "submitted": v.submitted[:16].replace("T", " "),
                           "language": v.manifest.language, "author": owner} for v in history]
    return versions


def compute(name: str, records: list[GameRecord], flag_threshold: float = 0.1, description: str = "",
            logs_dir: Path | None = None) -> LeagueReport:
    """Standings and ratings of a list of records (``logs_dir``: where the referee wrote the bots' logs)."""
    records = [without_paths(record) for record in records]  # the site shows no paths of this machine
    think: dict[str, list[float]] = defaultdict(list)
    cpu: dict[str, list[float]] = defaultdict(list)
    for record in records:
        for move in record.moves:
            if not move.substituted:
                think[record.seats[move.seat]].append(move.ms)
                if move.cpu_ms is not None:
                    cpu[record.seats[move.seat]].append(move.cpu_ms)
    return tabled(name, tables.tally(tables.seat_frame(records)), flag_threshold, description=description,
                  logs_dir=logs_dir, count=len(records), files=game_files(records),
                  games=lambda: ((r.model_dump_json(), {**r.model_dump(mode="json"), "moves": len(r.moves)})
                                 for r in records),
                  faulty=[r for r in records if r.result.forfeits], think=dict(think), cpu=dict(cpu),
                  timed={bot: (len(times), sum(times)) for bot, times in think.items()})


def tabled(name: str, tally: tables.Tally, flag_threshold: float, **fields) -> LeagueReport:
    """The LeagueReport of a tally (``hexarena.leagues.results.rows.Tally``): standings with ratings, head to head,
    per configuration."""
    from hexarena.leagues.results.ratings import ratings

    rated = ratings(tally.games)[["bot", "elo", "elo_low", "elo_high", "gap", "gap_low", "gap_high", "los"]]
    standings = tables.ranked(tally.sums, flag_threshold).merge(rated, on="bot", how="left")
    configs = [(label, tables.ranked(part.sums, flag_threshold)) for label, part in tally.by_configuration()]
    return LeagueReport(name=name, standings=standings, head_to_head=tables.head_to_head(tally.games), configs=configs,
                  **fields)


def standings_payload(league: LeagueReport) -> dict:
    """The content of ``standings.json`` (and of the server's ``GET /api/leagues/NAME/standings``)."""
    if not league.facts:  # not written as a site (the server's read API): one pass over the games finds them
        league.facts = gather_facts(league)
    return {
        "league": league.name,
        "generated": league.generated.isoformat(timespec="seconds"),
        "facts": league.facts,
        "standings": json.loads(league.standings.to_json(orient="records", double_precision=6)),
    }


def safe_stem(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]", "_", text).lstrip(".") or "_"


def unique_stems(names: list[str]) -> list[str]:
    """Safe file names, made distinct case-insensitively (two ids may only differ in case or in unsafe chars)."""
    joined = "\n".join(names)
    if names and joined.count("\n") == len(names) - 1:  # no newline in a name: one substitution for them all
        edges = f"\n{joined}\n"
        if UNSAFE.search(joined) is None and "\n." not in edges and "\n\n" not in edges:  # all safe already
            safe, lowered = list(names), joined.lower()
        else:
            safe = [name.lstrip(".") or "_" if name[:1] in (".", "") else name
                    for name in UNSAFE.sub("_", joined).split("\n")]
            lowered = "\n".join(safe).lower()
        if len(set(lowered.split("\n"))) == len(safe):  # none alike: nothing to number
            return safe
    seen: set[str] = set()
    result = []
    for name in names:
        base, candidate, n = safe_stem(name), safe_stem(name), 1
        while candidate.lower() in seen:
            n += 1
            candidate = f"{base}-{n}"
        seen.add(candidate.lower())
        result.append(candidate)
    return result


def game_files(records: list[GameRecord]) -> dict[str, str]:
    """Game id → file stem: the ``?game=`` of the viewer (and the key of the game in its chunk)."""
    return dict(zip((r.id for r in records), unique_stems([r.id for r in records])))


def gather_facts(league: LeagueReport) -> dict:
    """The facts (``Facts``) of a league's games without writing its site."""
    seen, configs = Facts(), {}
    for _, data in league.games():
        seen.add(data, board_of(configs, data)[1])
    return seen.facts()


def board_of(configs: dict[tuple, tuple[BoardConfig, str]], data: dict) -> tuple[BoardConfig, str]:
    """A record's config validated, and its label: each distinct one validated once, kept in ``configs``."""
    key = tuple(data["config"].items())
    if key not in configs:
        config = BoardConfig.model_validate(data["config"])
        configs[key] = config, config.label
    return configs[key]


class Facts:
    """When the league ran and what it covered, gathered game by game (``facts()``)."""

    def __init__(self) -> None:
        self.games = self.moves = self.faults = 0
        self.bots: set[str] = set()
        self.configs: set[str] = set()
        self.time_controls: set[str] = set()
        self.players: set[int] = set()
        self.first = self.last = ""

    def add(self, data: dict, label: str) -> None:
        self.games += 1
        self.moves += data["moves"]
        self.faults += data["result"]["termination"] != "completed"
        self.bots.update(data["seats"])
        self.configs.add(label)
        self.players.add(len(data["seats"]))
        if data.get("time_control"):
            self.time_controls.add(data["time_control"].split(",")[0])  # as str(TimeControl): without startup, margin
        started, finished = data.get("started") or "", data.get("finished") or data.get("started") or ""
        if started and (not self.first or started < self.first):
            self.first = started
        self.last = max(self.last, finished)

    def facts(self) -> dict:
        return {
            "games": self.games, "bots": len(self.bots), "moves": self.moves, "faults": self.faults,
            "first": utc_text(datetime.fromisoformat(self.first)) if self.first else "—",
            "last": utc_text(datetime.fromisoformat(self.last)) if self.last else "—",
            "configs": sorted(self.configs), "time_controls": sorted(self.time_controls),
            "players": sorted(self.players),
        }


def utc_text(moment: datetime) -> str:
    return (moment.astimezone(UTC) if moment.tzinfo else moment).strftime("%Y-%m-%d %H:%M")
