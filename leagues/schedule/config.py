"""League files: TOML in ``leagues/``, validated by pydantic.

    name = "demo"                       # a safe identifier; names the league in the store and tables
    participants = ["all"]              # "all" (every active bot), or names: "greedy", "greedy@1a2b", a folder
    players = 2                         # per table: 2, 3 or 4
    games_per_pairing = 2               # per pairing (table), board configuration and start position: every
                                        #   seat order in turn (leagues/schedule/seating.py), so a multiple of 2 (2 players),
                                        #   6 (3: every order) or 4 (4: the balanced 4 of the 24 orders; a multiple
                                        #   of 24 plays all 24). Default: 2, 6, 24 (4 with a sample)
    sample = 0                          # 3–4 players: play this many tables per configuration, drawn so that
                                        #   every bot meets every other about equally often (0: every table)
    gauntlet = "mybot"                  # optional: only the tables with this participant (name or name@hash)
    time_control = "200ms"              # per move, or "10s+100ms" (bank + increment); see referee/clock.py
    fault_policy = "forfeit"            # "forfeit" (the offender loses) or "substitute" (a random line is drawn)
    flag_threshold = 0.1                # flag a bot in the tables when more than this share of its games had a fault
    sandbox = false                     # run the bots unconfined (default true: referee/sandbox.py; warned every run)
    replay_host_stalls = true           # play a game again when a timeout in it was the host's (docs/security.md)
    concurrency = 2                     # games at once (default: one per core); --concurrency overrides
    executor = "dask"                   # optional: play on a Dask cluster (docs/cluster.md); default "local"
    scheduler = "tcp://HOST:8786"       #   its scheduler; --scheduler overrides (and implies executor = "dask")
    seed = 1                            # league seed: per-game seeds derive from it
    pairing = "adaptive"                # "round-robin" (default: every pair plays) or "adaptive" (2 players: the
                                        #   tables that tell the most about the standings, leagues/results/adaptive.py;
                                        #   docs/leagues.md says when to choose which)
    budget = 100                        # adaptive: at most this many games per bot version (default: none)
    league_budget = 5000                # adaptive: at most this many games in the league (default: none)

    [[boards]]                          # one or more board configurations
    size = "3x3"                        # ROWSxCOLS, 1–10 each
    geometry = "hex"                    # "hex" or "square"
    misere = false
    border = false                      # pre-draw the lines that belong to one cell only
    openings = 8                        # optional: 8 random start positions (leagues/schedule/openings.py, from the seed),
                                        #   or "book.txt" (one comma-separated line list per row, beside the file);
                                        #   each is played in every seat order

Every error is one line that names the file, the line (or field) and what is allowed.
"""

from __future__ import annotations

import hashlib
import json
import re
import tomllib
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, ValidationInfo, field_validator

from hexarena.leagues.schedule.openings import MAX_RANDOM, check_opening, random_openings, read_openings
from hexarena.leagues.schedule.seating import CYCLE, seat_orders

from hexarena.protocol.errors import ConfigError
from hexarena.protocol.validation import Style, describe_validation_error, plain_text
from hexarena.referee.clock import TimeControl, TimeControlField
from hexarena.referee.game import FaultPolicy
from hexarena.referee.record import BoardConfig

ALL = "all"
SEED_LIMIT = 2**63 - 1  # seeds (league, match) are 64-bit signed integers: what SQLite and every bot can hold
MAX_TABLES = 100_000  # tables per board: a 3–4 player league with more must ask for a sample
# the first problem as ``file:line: field: what is wrong (what is allowed)``
STYLE = Style(unknown="unknown key {field!r} (allowed: {allowed})", missing="{field} is missing",
              invalid="{field}: {msg}{got}", toml_path=True)


ANALYSIS_BUDGET = 0.02  # seconds per game: small, so that the demo league's site still builds in seconds


class LeagueBoard(BoardConfig):
    """A board of a league file: a configuration, and its start positions (none, N random ones, or a file's)."""

    openings: int | str | list[list[int]] = Field(0, exclude_if=lambda value: not value)

    @field_validator("openings")
    @classmethod
    def _count(cls, value: int | str | list[list[int]]) -> int | str | list[list[int]]:
        if isinstance(value, int) and not 0 <= value <= MAX_RANDOM:
            raise ValueError(f"must be 0-{MAX_RANDOM} random start positions, or a file name, got {value}")
        if isinstance(value, list) and not value:  # as a file with no rows is refused: a board of no games
            raise ValueError("no start positions listed (leave openings out for the empty board)")
        return value

    @property
    def config(self) -> BoardConfig:
        """The configuration alone (what a game record names)."""
        return BoardConfig(**self.model_dump(exclude={"openings"}))


class LeagueConfig(BaseModel):
    """One league file. ``configs`` gives the board configurations with the league's player count."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str
    description: str = ""
    participants: list[str] = Field(default=[ALL], min_length=1)
    players: int = Field(2, ge=2, le=4)
    boards: list[LeagueBoard] = Field(min_length=1)
    games_per_pairing: int | None = Field(None, ge=1, le=1000)
    sample: int = Field(0, ge=0, le=MAX_TABLES)
    time_control: TimeControlField = TimeControl.parse("200ms")
    fault_policy: FaultPolicy = "forfeit"
    flag_threshold: float = Field(0.1, ge=0.0, le=1.0)
    concurrency: int | None = Field(None, ge=1, le=256)
    executor: Literal["local", "dask"] = Field("local", exclude_if=lambda value: value == "local")
    scheduler: str | None = Field(None, exclude_if=lambda value: value is None)
    seed: int = Field(0, ge=-SEED_LIMIT, le=SEED_LIMIT)
    gauntlet: str = Field("", exclude_if=lambda value: not value)
    sandbox: bool = Field(True, exclude_if=lambda value: value)  # False: bots unconfined (docs/security.md)
    pairing: Literal["round-robin", "adaptive"] = Field("round-robin", exclude_if=lambda value: value == "round-robin")
    budget: int | None = Field(None, ge=1, le=10**9, exclude_if=lambda value: value is None)
    league_budget: int | None = Field(None, ge=1, le=10**12, exclude_if=lambda value: value is None)
    # a game a host stall ended (a timeout the host caused: docs/security.md) is played again instead of scored
    replay_host_stalls: bool = Field(False, exclude_if=lambda value: not value)
    # seconds the solver may spend on each finished 2-player game when the site is published (0: no analysis)
    analysis_budget: float = Field(ANALYSIS_BUDGET, ge=0, le=600, allow_inf_nan=False, exclude_if=lambda value: value == ANALYSIS_BUDGET)
    # the bots' logs on the league's site and from the server (each game's, linked from the replay at each move, and
    # the excerpts beside faults); false: none leaves the workspace (a bot's output is its author's)
    publish_logs: bool = Field(True, exclude_if=lambda value: value)

    @field_validator("name")
    @classmethod
    def _safe_name(cls, value: str) -> str:
        if not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,59}", value):
            raise ValueError(f"{value!r} is not a league name (1-60 letters, digits, '_', '.' or '-', "
                             "starting with a letter or digit)")
        return value

    @field_validator("description")
    @classmethod
    def _plain_description(cls, value: str) -> str:
        return plain_text(value, lines=True)

    @field_validator("participants")
    @classmethod
    def _participants(cls, value: list[str]) -> list[str]:
        for text in value:
            plain_text(text)
        if ALL in value and len(value) > 1:
            raise ValueError(f'"{ALL}" stands alone (every active bot); list names instead, or only "{ALL}"')
        refuse_repeats(value, "listed twice")
        return value

    @field_validator("boards", mode="before")
    @classmethod
    def _no_players_in_boards(cls, value: object) -> object:
        if isinstance(value, list) and any(isinstance(b, dict) and "players" in b for b in value):
            raise ValueError("set players once, at the top of the league file, not per board")
        return value

    @field_validator("boards")
    @classmethod
    def _distinct_boards(cls, value: list[LeagueBoard]) -> list[LeagueBoard]:
        refuse_repeats([b.label for b in value], "configuration listed twice")
        return value

    @field_validator("games_per_pairing")
    @classmethod
    def _every_rotation(cls, value: int | None, info: ValidationInfo) -> int | None:
        players = info.data.get("players", 2)
        if value is not None and value % CYCLE[players]:
            raise ValueError(f"must be a multiple of {CYCLE[players]} with {players} players so that every seat "
                             f"order is played equally often, got {value}")
        return value

    @field_validator("sample")
    @classmethod
    def _sample_needs_tables(cls, value: int, info: ValidationInfo) -> int:
        if value and info.data.get("players", 2) == 2:
            raise ValueError("is for 3-4 player leagues; with 2 players every pair plays")
        return value

    @field_validator("pairing")
    @classmethod
    def _adaptive_two_players(cls, value: str, info: ValidationInfo) -> str:
        players = info.data.get("players", 2)
        if value == "adaptive" and players != 2:
            raise ValueError(f'"adaptive" is for 2-player leagues, this one has players = {players} '
                             '(3-4 players: pairing = "round-robin", with sample = N for large fields)')
        if value == "adaptive" and info.data.get("gauntlet"):
            raise ValueError('"adaptive" chooses every table itself; a gauntlet plays every table of one bot '
                             '(leave out one of them)')
        return value

    @field_validator("budget", "league_budget")
    @classmethod
    def _budget_needs_adaptive(cls, value: int | None, info: ValidationInfo) -> int | None:
        if value is not None and info.data.get("pairing", "round-robin") != "adaptive":
            raise ValueError('is for pairing = "adaptive" (a round robin plays every game of its schedule)')
        if value == 1:
            raise ValueError("at least 2: an adaptive league plays its tables as seat-swapped pairs of games")
        return value

    @property
    def games(self) -> int:
        """Games per pairing (table), configuration and start position: a whole number of seat-order cycles."""
        return self.games_per_pairing or len(seat_orders(self.players, None, bool(self.sample)))

    @property
    def seat_orders(self) -> tuple[tuple[int, ...], ...]:
        """The seat orders each table plays in turn (``hexarena.leagues.schedule.seating``)."""
        return seat_orders(self.players, self.games, bool(self.sample))

    @property
    def configs(self) -> list[BoardConfig]:
        return [b.config.model_copy(update={"players": self.players}) for b in self.boards]

    def start_positions(self, index: int) -> list[tuple[int, ...]]:
        """Board ``index``'s start positions: ``[()]`` (the empty board) unless it names openings."""
        openings, config = self.boards[index].openings, self.configs[index]
        if isinstance(openings, int):
            if not openings:
                return [()]
            # each once: a tiny board has fewer positions than asked, and random_openings repeats them (one id twice)
            return list(dict.fromkeys(random_openings(config, openings, f"{self.name}:{self.seed}")))
        return [tuple(lines) for lines in openings]


# What a league plays: a stored league whose file had other values here is another league (league run --replace).
# Left out: what only changes how it is run or shown (description, concurrency, executor, scheduler, sandbox,
# flag_threshold, replay_host_stalls).
DEFINITION = ("participants", "players", "boards", "games", "sample", "gauntlet", "time_control", "fault_policy",
              "seed", "pairing")
TERMS = ("time_control", "fault_policy", "seed")  # how each game is played, which its id does not hash


def differences(stored: LeagueConfig, new: LeagueConfig) -> list[str]:
    """What ``new`` changes in the ``stored`` definition, one phrase each: ``bots a, b, c; this file has a, b, d``."""
    found = []
    for key in DEFINITION:
        was, now = (_shown(key, getattr(league, key), league) for league in (stored, new))
        if was != now:
            found.append(f"{_WORDS.get(key, key.replace('_', ' '))} {was}; this file has {now}")
    return found


def terms_differ(stored: LeagueConfig, new: LeagueConfig) -> bool:
    return any(_shown(key, getattr(stored, key), stored) != _shown(key, getattr(new, key), new) for key in TERMS)


_WORDS = {"participants": "bots", "games": "games per pairing", "gauntlet": "gauntlet"}


def _shown(key: str, value: object, league: LeagueConfig) -> str:
    if key == "participants":
        return ", ".join(value)
    if key == "boards":
        return ", ".join(config.label + _openings(board.openings) for board, config in zip(value, league.configs))
    if key == "gauntlet":
        return value or "none"
    return str(value)


def _openings(openings: int | str | list[list[int]]) -> str:
    if isinstance(openings, int):
        return f" ({openings} random openings)" if openings else ""
    digest = hashlib.sha256(json.dumps(openings).encode()).hexdigest()[:6]  # the lines would not fit on one line
    return f" ({len(openings)} listed openings #{digest})"


def refuse_repeats(items: list[str], problem: str) -> None:
    repeated = sorted({item for item in items if items.count(item) > 1})
    if repeated:
        raise ValueError(f"{problem}: {', '.join(repeated)}")


def load_league(path: str | Path) -> LeagueConfig:
    """Read and validate a league file; ConfigError with one line naming the file, line and what is allowed."""
    path = Path(path)
    if path.is_dir():
        raise ConfigError(f"{path}: is a folder, not a league file (give a .toml file, e.g. leagues/demo.toml)")
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ConfigError(f"{path}: no such league file") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{path}: cannot read: {exc}") from None
    return parse_league(text, str(path))


def parse_league(text: str, source: str = "<league>") -> LeagueConfig:
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{source}: not valid TOML: {exc}") from None
    try:
        league = LeagueConfig.model_validate(data, strict=True)
    except ValidationError as exc:
        raise ConfigError(describe_validation_error(exc, source, STYLE, line_of=lambda loc: line_of(text, loc),
                                                    allowed=_allowed)) from None
    return _read_opening_files(league, text, source)


def _read_opening_files(league: LeagueConfig, text: str, source: str) -> LeagueConfig:
    """The league with each board's ``openings = "file"`` read (beside the league file), and every listed start
    position checked, as a file's rows are (an inline ``openings = [[3, 17]]`` too)."""
    boards = []
    for index, board in enumerate(league.boards):
        where = f"{source}:{line_of(text, ('boards', index, 'openings')) or ''}".rstrip(":")
        if isinstance(board.openings, list):
            rules = league.configs[index].rules()
            for row, lines in enumerate(board.openings):
                try:
                    check_opening(rules, lines)
                except ConfigError as exc:
                    raise ConfigError(f"{where}: boards[{index}].openings[{row}]: {exc}") from None
        if isinstance(board.openings, str):
            path = Path(source).parent / board.openings
            try:
                positions = read_openings(path, league.configs[index])
            except ConfigError as exc:
                raise ConfigError(f"{where}: boards[{index}].openings: {exc}") from None
            board = board.model_copy(update={"openings": [list(p) for p in positions]})
        if isinstance(board.openings, list):  # one start position twice: two games of one id
            first: dict[tuple[int, ...], int] = {}
            for row, lines in enumerate(board.openings):
                if (again := first.setdefault(tuple(sorted(lines)), row)) != row:
                    raise ConfigError(f"{where}: boards[{index}].openings: row {row + 1} is the start position of "
                                      f"row {again + 1} again (list each once)")
        boards.append(board)
    return league.model_copy(update={"boards": boards})


def _allowed(loc: tuple) -> list[str]:
    """The keys allowed where ``loc`` has an unknown one: the league's, or a board's (without players)."""
    model = LeagueConfig if len(loc) == 1 else LeagueBoard
    return [f for f in model.model_fields if not (model is LeagueBoard and f == "players")]


def line_of(text: str, loc: tuple) -> int | None:
    """The line number of the key at ``loc`` (e.g. ``("boards", 1, "size")``) in a TOML text, if it is there."""
    keys = [p for p in loc if isinstance(p, str)]
    if not keys:
        return None
    table, index = (keys[0], next((p for p in loc if isinstance(p, int)), 0)) if len(keys) > 1 else (None, 0)
    key = keys[-1]
    section, seen = None, -1
    for number, line in enumerate(text.splitlines(), start=1):
        header = re.match(r"^\s*\[\[?\s*([A-Za-z0-9_.-]+)\s*\]\]?", line)
        if header:
            section = header[1]
            seen += section == table
            continue
        if section == table and (table is None or seen == index) and re.match(rf"^\s*{re.escape(key)}\s*=", line):
            return number
    return None
