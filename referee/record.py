"""Game records: one JSON object per game (pydantic), the unit every later floor stores and publishes.

A record names the board and options, the seats (bot names), every move with the
referee-measured think time, and the result with its termination reason and offender.
"""

from __future__ import annotations

from datetime import datetime
from functools import cache
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, PlainSerializer, PlainValidator, TypeAdapter, field_validator

from hexarena.protocol import codec
from hexarena.protocol.board import Board, make_board, parse_size
from hexarena.protocol.rules import Options, Rules
from hexarena.referee.clock import TimeControl, read_time_control

Termination = Literal[codec.TERMINATIONS]  # the protocol's list (§4.6, §7): one vocabulary for the wire and the record
FAULTS: tuple[str, ...] = codec.FAULTS


def _read_recorded_time_control(value: object) -> TimeControl | None:
    """An older record's short form (``"300ms"``: startup and margin were the defaults then) reads as well."""
    return None if value is None or value == "" else read_time_control(value)


RecordedTimeControl = Annotated[
    TimeControl | None,
    PlainValidator(_read_recorded_time_control),
    PlainSerializer(lambda control: control.canonical() if control is not None else "", return_type=str),
]


class BoardConfig(BaseModel):
    """What is played: board size and geometry, and the table setup."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    size: str = "4x4"
    geometry: Literal["hex", "square"] = "hex"
    players: int = Field(2, ge=2, le=4)
    misere: bool = False
    border: bool = False

    @field_validator("size")
    @classmethod
    def _size_in_range(cls, value: str) -> str:
        rows, cols = parse_size(value)
        return f"{rows}x{cols}"

    @property
    def label(self) -> str:
        """Short name for tables, e.g. ``4x4 hex misère border 3p``."""
        parts = [self.size, self.geometry]
        parts += ["misère"] * self.misere + ["border"] * self.border
        parts += [f"{self.players}p"] * (self.players != 2)
        return " ".join(parts)

    def board(self) -> Board:
        return make_board(self.size, self.geometry)

    def rules(self) -> Rules:
        return _rules(self)

    def game_message(self, game_id: str, seat: int, names: tuple[str, ...], time: codec.TimeSpec,
                     seed: int) -> codec.Game:
        """The GAME message (§4.1) that opens a game of this configuration for ``seat``."""
        board = self.rules().board
        predrawn = tuple(board.border) if self.border else ()
        return codec.Game(game_id, seat, self.players, names, board, self.misere, self.border, predrawn, time, seed,
                          extensions=codec.EXTENSIONS)


@cache
def _rules(config: BoardConfig) -> Rules:
    """The engine of a configuration, made once per process (it is read-only): a game starts without precomputing."""
    return Rules(config.board(), Options(config.players, config.misere, config.border))


class MoveRecord(BaseModel):
    seat: int
    line: int
    closed: list[int] = []
    ms: float = 0.0  # think time measured by the referee (request sent → reply received)
    # CPU time (user + system) of the bot's whole process tree for this move; None: not measured (older records,
    # bots in the referee's process or on other machines)
    cpu_ms: float | None = Field(default=None, exclude_if=lambda value: value is None)
    substituted: bool = False  # drawn by the referee for a faulting bot (league fault policy "substitute")
    # the bot's own notes on this move (INFO, PROTOCOL.md §4.8): untrusted text; left out of the JSON when none
    info: list[str] = Field(default_factory=list, exclude_if=lambda notes: not notes)


_MOVES = TypeAdapter(list[MoveRecord])


def move_records(rows: list[dict]) -> list[MoveRecord]:
    """A game's moves from their fields, validated at once: the game loop keeps plain dicts while it plays."""
    return _MOVES.validate_python(rows)


class HostStall(BaseModel):
    """A timeout the host caused (docs/security.md, "Timeouts the host caused"): the figures of the rule."""

    cpu_ms: float  # the bot's CPU time in the move: well under the limit
    lag_ms: float  # how late the referee's own process ran in the move: large
    limit_ms: int


class Forfeit(BaseModel):
    seat: int
    reason: Literal[codec.FAULTS]
    detail: str = ""
    move: int  # number of moves played when the fault happened
    substituted: bool = False  # fault policy "substitute": the seat stayed in the game, the referee drew for it
    # a timeout while the host stalled (``referee/stalls.py``); None: none, or not measured (older records)
    host_stall: HostStall | None = Field(default=None, exclude_if=lambda value: value is None)


class Result(BaseModel):
    scores: list[int]
    placements: list[int]  # 1 = first; equal scores share a place; forfeited seats last
    termination: Termination = "completed"
    offender: int | None = None  # the seat whose fault decided the termination, or None
    forfeits: list[Forfeit] = []  # every fault, in order (3–4 players play on after one)


class GameRecord(BaseModel):
    id: str
    config: BoardConfig
    seats: list[str]  # bot name (or name@version) per seat
    # each seat's exact version, name@hash (``leagues.registry.SHORT_HASH`` digits); empty in older records
    versions: list[str] = Field(default_factory=list, exclude_if=lambda versions: not versions)
    time_control: RecordedTimeControl = None  # the whole control: per move or bank + increment, startup, margin
    seed: int | None = None
    started: datetime | None = None
    finished: datetime | None = None
    moves: list[MoveRecord] = []
    result: Result
    # the start position: lines drawn before the first TURN, not moves (left out of the JSON when empty)
    opening: list[int] = Field(default_factory=list, exclude_if=lambda lines: not lines)
    # the referee's scheduling lag during the game: the most its watchdog thread woke late (the host's share of a
    # slow move, referee/watchdog.py); None: not measured (older records, no bot process of the referee's)
    lag_ms: float | None = Field(default=None, exclude_if=lambda value: value is None)
    # how often the game was played again after a host stall (league option replay_host_stalls): this is the last
    host_stall_replays: int = Field(default=0, exclude_if=lambda count: not count)

    def __reduce__(self):
        # pickled as the JSON the store writes (a worker's record to the league's runner), the same record since the
        # JSON holds every field not at its default: a 4x4 game's takes 50 us to write and 90 us to read here,
        # against 120 us each for the default pickling, which copies each move's model state
        return GameRecord.model_validate_json, (self.model_dump_json(),)

    def replay(self):
        """The final state of the rules engine after the start position and the recorded moves (forfeits
        applied in order).

        Faults under the substitute policy put nobody out: the referee's substituted moves are replayed instead.
        """
        state = self.config.rules().replay(self.opening)
        forfeits = sorted((f for f in self.result.forfeits if not f.substituted), key=lambda f: f.move)
        for number, move in enumerate(self.moves):
            while forfeits and forfeits[0].move == number:
                state = state.forfeit(forfeits.pop(0).seat)
            state = state.apply(move.line).state
        for fault in forfeits:
            state = state.forfeit(fault.seat)
        return state
