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
Texts = Callable[[], Iterator[tuple[str, bytes]]]  # (game id, record JSON, UTF-8) per game: ``read_games`` reads them
# a record as hexarena stores it (``GameRecord.model_dump_json``), read without parsing it (``read_games``):
# {"id":…,"config":{…},"seats":[…],"time_control":…,"seed":…,"started":…,"finished":…,"moves":[…],"result":{…}…}
# where config to time control (versions too, if any) is what games of a kind share (``Kind``), as is the result
# of a game without a fault, which ends with ``NO_FORFEITS``
NO_FORFEITS = b',"forfeits":[]}'
SHARED = frozenset(("config", "seats", "versions", "time_control"))  # what the shared text may hold
KINDS = 100_000  # kinds of game remembered by ``read_games`` (a bound: a league with more reads some twice)


@dataclass
class LeagueReport:
    """What the site and the read API show: the tables, and the games as a stream (``games()``, read once while
    the site is written) with what the bot pages need of them."""

    name: str
    count: int  # games
    texts: Texts  # the games' records, read once while the site is written (``read_games``)
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
    analyses: dict = field(default_factory=dict)  # game id → its solver analysis (``results.analyses.Analysing``)
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
                  texts=lambda: store.stored_texts(ws, league),
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
    """Stored games (``store.stored_games``) without absolute paths, each record's JSON one line
    (``stripped_game``)."""
    for text, data in games:
        yield stripped_game(text, data)


def stripped_game(text: str, data: dict) -> tuple[str, dict]:
    """A stored game without absolute paths, its record's JSON one line: a game with a fault whose detail names a
    folder is read as a GameRecord and its details stripped, a record stored with line breaks (written by another
    tool: hexarena writes one line) is made one line (the site's chunks and ``league export`` are JSON lines);
    the others are passed on as they are."""
    if "\n" in text or "\r" in text:
        text = json.dumps(json.loads(text), separators=(",", ":"), ensure_ascii=False)
    forfeits = data["result"].get("forfeits")
    if forfeits and any(ABSOLUTE_DIRS.search(str(f.get("detail") or "")) for f in forfeits if isinstance(f, dict)):
        record = without_paths(GameRecord.model_validate_json(text))
        text = record.model_dump_json()
        data = {**data, "result": record.result.model_dump(mode="json")}
    return text, data


class Kind:
    """What games of one kind share, read once for them all (``read_games``): the configuration (validated) and
    its label, the seats, the time control and the result (as the record holds them: JSON values); ``shown`` is a
    reader's own (the site's: what it writes the same for each game of the kind)."""

    __slots__ = ("config", "counted", "faulty", "label", "result", "seats", "shown", "time_control")

    def __init__(self, board: tuple[BoardConfig, str], seats: list[str], time_control: object, result: dict) -> None:
        self.config, self.label = board
        self.seats, self.time_control, self.result = seats, time_control, result
        self.faulty = result["termination"] != "completed"
        self.counted, self.shown = False, None


def read_games(texts: Iterator[tuple[str, bytes]], league: str) -> Iterator[tuple[str, bytes, Kind, int, str, str]]:
    """``(game id, record JSON, its Kind, moves, started, finished)`` of stored games (``(game id, record JSON)``
    in UTF-8, ``store.stored_texts``); started and finished as the record has them ("" for none, finished as
    started when it has none), the JSON without absolute paths and one line (``stripped_game``).

    A game without a fault, as hexarena stores it (``_times``), is read without parsing its JSON: what it shares
    with the games of its kind is the same text in each, parsed once for them all (``KINDS`` kinds remembered),
    its moves are counted (one ``{"seat":`` each: a move's first field, never in a JSON string, where a quote
    is escaped; a bare ``{`` may be in a bot's INFO notes), its times sliced out. Any other record (a
    fault, another writer's) is read whole but for its moves (``store.read_stored``; a garbled one is left out
    with its warning)."""
    from hexarena.leagues.results import store

    kinds: dict[tuple[bytes, bytes], Kind | None] = {}
    boards: dict[tuple, tuple[BoardConfig, str]] = {}
    for game, text in texts:
        name = game.encode()
        shared = 18 + len(name)  # after {"id":"<id>","config":
        if (text.startswith(b'{"id":"') and text.startswith(name, 7) and text.startswith(b'","config":', 7 + len(name))
                and b"\n" not in text and b"\r" not in text):
            seed = text.find(b',"seed":', shared)
            moves = text.find(b',"moves":[', seed)
            end = text.rfind(b',"result":', moves)
            plain = text.find(NO_FORFEITS, end)
            when = _times(text[seed:moves]) if 0 < seed < moves < end < plain else None
            if when is not None and (plain + 16 == len(text) and text.endswith(b"}") or _object_end(text, plain + 15)):
                key = (text[shared:seed], text[end + 10:plain])
                kind = kinds.get(key, False)
                if kind is False:
                    if len(kinds) >= KINDS:
                        kinds.clear()
                    kind = kinds[key] = _shared(key, boards)
                if kind is not None:
                    yield game, text, kind, text.count(b'{"seat":', moves, end), *when
                    continue
        line = text.decode("utf-8", "replace")
        data = store.read_stored(game, line, league)
        if data is None:
            continue
        line, data = stripped_game(line, data)
        started = data.get("started") or ""
        yield (game, line.encode(), Kind(board_of(boards, data), data["seats"], data.get("time_control"),
                                         data["result"]), data["moves"], started, data.get("finished") or started)


def _times(text: bytes) -> tuple[str, str] | None:
    """Started and finished ("" if none; finished as started then) from a record's ``,"seed":N,"started":"…",
    "finished":"…"`` as hexarena writes it, split at its quotes (a regular expression takes twice as long); None if
    it is not that (the record is then read whole)."""
    parts = text.split(b'"')
    if (len(parts) != 11 or parts[1] != b"seed" or parts[3] != b"started" or parts[7] != b"finished"
            or not parts[2][1:-1].isdigit() or parts[4] != b":" or parts[6] != b"," or parts[8] != b":"
            or parts[10] or b"\\" in text):
        return None
    started = parts[5].decode()
    return started, parts[9].decode() or started


def _object_end(text: bytes, at: int) -> bool:
    """Whether ``text[at:]`` ends a JSON object well: ``}``, or more members and then ``}`` (a record's fields
    after its result: ``"opening"``, ``"lag_ms"``...)."""
    try:
        return isinstance(json.loads(b'{"":0' + text[at:]), dict)
    except ValueError:
        return False


def _shared(key: tuple[bytes, bytes], boards: dict[tuple, tuple[BoardConfig, str]]) -> Kind | None:
    """The Kind of ``read_games``'s key (the text games share, their result but for its empty forfeits); None if
    that text is not what it looks (the game is then read whole)."""
    try:
        shared, result = json.loads(b'{"config":' + key[0] + b"}"), json.loads(key[1] + NO_FORFEITS)
        if (not isinstance(shared, dict) or not shared.keys() <= SHARED or not isinstance(shared["config"], dict)
                or not isinstance(shared.get("seats"), list) or not isinstance(result, dict)
                or not result.keys() >= {"scores", "placements"}):
            return None
        result.setdefault("termination", "completed")
        return Kind(board_of(boards, shared), shared["seats"], shared.get("time_control"), result)
    except ValueError:
        return None


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
                  texts=lambda: ((r.id, r.model_dump_json().encode()) for r in records),
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
    seen = Facts()
    for _, _, kind, moves, started, finished in read_games(league.texts(), league.name):
        seen.add(kind, moves, started, finished)
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

    def add(self, kind: Kind, moves: int, started: str, finished: str) -> None:
        """A game (``read_games``): its kind, moves, start and end ("" if not known)."""
        self.games += 1
        self.moves += moves
        self.faults += kind.faulty
        if not kind.counted:  # what games of a kind share, counted for the first of them
            kind.counted = True
            self.bots.update(kind.seats)
            self.configs.add(kind.label)
            self.players.add(len(kind.seats))
            if kind.time_control:
                self.time_controls.add(kind.time_control.split(",")[0])  # as str(TimeControl): without startup, margin
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
