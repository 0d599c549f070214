"""Protocol v1 codec: every message of ``protocol/PROTOCOL.md`` as a small value with a text form.

    parse("MOVE 12 17")             # Move(id=12, line=17)
    Move(12, 17).to_text()          # "MOVE 12 17"

``parse`` turns any string (or bytes) into a message or raises ``ProtocolError``
with a one-line reason citing the spec section; it raises nothing else.
Messages are frozen dataclasses: ``parse(m.to_text()) == m`` for every message; ``m.wire`` is
the text as UTF-8 bytes, made once however many seats the message is sent to.

The referee's per-move path has three shortcuts, each equal to the general form: ``drawn`` (one
``Drawn`` per distinct announcement, encoded once), ``Turn.encode`` (TURN's bytes without the value)
and ``move_fields`` (a plain MOVE's numbers without ``parse``).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import lru_cache

from hexarena.protocol.board import GEOMETRIES, Board, parse_size
from hexarena.protocol.errors import BoardError
from hexarena.protocol.errors import ProtocolError

VERSION = "v1"
MAX_BYTES = 1 << 20  # §1.2
EXTENSIONS = ("info",)  # what this referee takes beyond v1's messages, announced in GAME (§4.1, §4.8)
INFO_BYTES = 256  # §4.8: the most UTF-8 bytes of one INFO's text
INFO_PER_MOVE = 16  # §4.8: the most INFO kept per TURN; more are dropped (and counted in the log)
_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029]")  # §4.8: what an INFO's text may not hold (C0, DEL, C1, breaks)
# The termination vocabulary (§4.6, §7): the codec and the game record (referee/record.py) both derive from it.
FAULTS = (
    "no_connection",  # the bot did not connect and say hello in time
    "crashed",  # the bot process exited or died
    "timeout",  # no reply before the move's deadline
    "illegal_line",  # a line out of range or already drawn
    "malformed_message",  # a message that breaks the protocol grammar
    "wrong_request",  # a reply that echoes another request id
)
TERMINATIONS = ("completed",) + FAULTS  # completed: every line drawn (or one seat left after forfeits)

_TOKEN = re.compile(r"[A-Za-z0-9_-]{1,128}")  # §3.1
_WORD = re.compile(r"\S{1,200}")
_REASON = re.compile(r"[a-z_]{1,40}")


def _number(text: str, what: str, section: str) -> int:
    # §1.3: 1-9 ASCII digits (int() alone would also take "+1", "1_0", "١"); no regex: two per MOVE
    if not (0 < len(text) < 10 and text.isascii() and text.isdigit()):
        raise ProtocolError(f"{what} must be a decimal number of 1-9 digits, got {text[:40]!r} (§{section})")
    return int(text)


def _fields(words: list[str], usage: str, section: str, *names: str) -> tuple[int, ...]:
    """A message of exactly ``names`` numbers after its keyword (TURN, MOVE)."""
    _arity(words, len(names) + 1, len(names) + 1, usage, section)
    return tuple(_number(word, name, section) for word, name in zip(words[1:], names))


def _numbers(text: str, what: str, section: str) -> tuple[int, ...]:
    """``"3,17,4"`` → ``(3, 17, 4)``; ``"-"`` → ``()`` (§1.3)."""
    if text == "-":
        return ()
    return tuple(_number(part, what, section) for part in text.split(","))


def _compact(data: dict) -> str:
    return json.dumps(data, separators=(",", ":"), ensure_ascii=False)


def _list_text(values: tuple[int, ...] | list[int]) -> str:
    return ",".join(map(str, values)) if values else "-"


def _arity(words: list[str], low: int, high: int, usage: str, section: str) -> None:
    if not low <= len(words) <= high:
        raise ProtocolError(f"{words[0]} needs the form '{usage}', got {len(words) - 1} argument(s) (§{section})")


class _Encoded:
    """``message.wire``: encoded on first use, then a plain attribute of the instance (in its ``__dict__``, not
    a field: equality, hashing and repr do not see it; no lock either, unlike functools.cached_property in 3.11)."""

    def __get__(self, message: _Wire | None, kind: type | None = None):
        if message is None:
            return self
        wire = message.__dict__["wire"] = message.to_text().encode()
        return wire


class _Wire:
    """The encoded text of a message, cached on the (frozen) value: an announcement is encoded once."""

    __slots__ = ()
    wire = _Encoded()


@dataclass(frozen=True)
class Hello(_Wire):
    """§3.1, bot → referee."""

    version: str
    token: str
    name: str = ""

    def to_text(self) -> str:
        return f"HELLO {self.version} {self.token}" + (f" {self.name}" if self.name else "")

    @classmethod
    def from_words(cls, words: list[str]) -> Hello:
        _arity(words, 3, 4, "HELLO <version> <token> [<name>]", "3.1")
        if not _WORD.fullmatch(words[1]):
            raise ProtocolError("HELLO: version too long (§3.1)")
        if not _TOKEN.fullmatch(words[2]):
            raise ProtocolError("HELLO: token must be 1-128 letters, digits, '_' or '-' (§3.1)")
        name = words[3] if len(words) == 4 else ""
        if name and not _WORD.fullmatch(name):
            raise ProtocolError("HELLO: name longer than 200 characters (§3.1)")
        return cls(words[1], words[2], name)


@dataclass(frozen=True)
class Welcome(_Wire):
    """§3.2, referee → bot."""

    version: str = VERSION

    def to_text(self) -> str:
        return f"WELCOME {self.version}"

    @classmethod
    def from_words(cls, words: list[str]) -> Welcome:
        _arity(words, 2, 2, "WELCOME <version>", "3.2")
        if not _WORD.fullmatch(words[1]):
            raise ProtocolError("WELCOME: version too long (§3.2)")
        return cls(words[1])


@dataclass(frozen=True)
class TimeSpec:
    """The ``time`` object of GAME (§4.1, §5): milliseconds; ``move_ms`` or ``bank_ms`` is None."""

    move_ms: int | None
    bank_ms: int | None
    increment_ms: int = 0
    margin_ms: int = 0

    def to_json(self) -> dict:
        return {"move_ms": self.move_ms, "bank_ms": self.bank_ms, "increment_ms": self.increment_ms,
                "margin_ms": self.margin_ms}


@dataclass(frozen=True)
class Game(_Wire):
    """§4.1, referee → bot: the whole game. ``board`` carries dots, lines and cells."""

    game: str
    seat: int
    players: int
    names: tuple[str, ...]
    board: Board
    misere: bool
    border: bool
    predrawn: tuple[int, ...]
    time: TimeSpec
    seed: int
    protocol: str = VERSION
    extensions: tuple[str, ...] = ()  # §4.1: "info" when the referee reads INFO (§4.8); absent when none

    def to_json(self) -> dict:
        return {**self._head(), **self.board.to_json(), **self._tail()}

    def _head(self) -> dict:
        """The keys before the board's dots, lines and cells (§4.1's order is the wire's)."""
        return {"protocol": self.protocol, "game": self.game, "seat": self.seat, "players": self.players,
                "names": list(self.names), "geometry": self.board.geometry, "size": self.board.size,
                "misere": self.misere, "border": self.border}

    def _tail(self) -> dict:
        tail = {"predrawn": list(self.predrawn), "time": self.time.to_json(), "seed": self.seed}
        return {**tail, "extensions": list(self.extensions)} if self.extensions else tail

    def to_text(self) -> str:
        # json.dumps(self.to_json()), with the board's part encoded once per board rather than per seat and game
        head, tail = _compact(self._head()), _compact(self._tail())
        return f"GAME {head[:-1]},{self.board.json_text[1:-1]},{tail[1:]}"

    @classmethod
    def from_payload(cls, payload: str) -> Game:
        try:
            data = json.loads(payload)
        except (ValueError, RecursionError) as exc:
            raise ProtocolError(f"GAME: payload is not JSON: {str(exc)[:80]} (§4.1)") from None
        return _game_from_json(data)


@dataclass(frozen=True)
class Drawn(_Wire):
    """§4.2, referee → every bot: ``seat`` drew ``line`` and closed ``closed``."""

    seat: int
    line: int
    closed: tuple[int, ...] = ()

    def to_text(self) -> str:
        return f"DRAWN {self.seat} {self.line} {_list_text(self.closed)}"

    @classmethod
    def from_words(cls, words: list[str]) -> Drawn:
        _arity(words, 4, 4, "DRAWN <seat> <line> <closed>", "4.2")
        return cls(_number(words[1], "seat", "4.2"), _number(words[2], "line", "4.2"),
                   _numbers(words[3], "closed cell", "4.2"))


@lru_cache(maxsize=1 << 14)  # a few boards' worth of (seat, line, closed): a referee sends one per line drawn
def drawn(seat: int, line: int, closed: tuple[int, ...] = ()) -> Drawn:
    """``Drawn(seat, line, closed)``, the same value (and its wire bytes) each time the same move is announced."""
    return Drawn(seat, line, closed)


@dataclass(frozen=True)
class Forfeit(_Wire):
    """§4.3, referee → bots still in the game: ``seat`` is out for ``reason``."""

    seat: int
    reason: str

    def to_text(self) -> str:
        return f"FORFEIT {self.seat} {self.reason}"

    @classmethod
    def from_words(cls, words: list[str]) -> Forfeit:
        _arity(words, 3, 3, "FORFEIT <seat> <reason>", "4.3")
        if words[2] not in FAULTS:
            raise ProtocolError(f"FORFEIT: reason must be one of {', '.join(FAULTS)}, got {words[2][:40]!r} (§4.3)")
        return cls(_number(words[1], "seat", "4.3"), words[2])


@dataclass(frozen=True)
class Turn(_Wire):
    """§4.4, referee → the bot on turn: request ``id``, clock left and this move's limit."""

    id: int
    left_ms: int
    limit_ms: int

    def to_text(self) -> str:
        return self.encode(self.id, self.left_ms, self.limit_ms).decode()

    @staticmethod
    def encode(id: int, left_ms: int, limit_ms: int) -> bytes:
        """The wire bytes of ``Turn(id, left_ms, limit_ms)``, without making the value (one per move)."""
        return b"TURN %d %d %d" % (id, left_ms, limit_ms)

    @classmethod
    def from_words(cls, words: list[str]) -> Turn:
        return cls(*_fields(words, "TURN <id> <left_ms> <limit_ms>", "4.4", "id", "left_ms", "limit_ms"))


@dataclass(frozen=True)
class Move(_Wire):
    """§4.5, bot → referee: the answer to TURN ``id``."""

    id: int
    line: int

    def to_text(self) -> str:
        return f"MOVE {self.id} {self.line}"

    @classmethod
    def from_words(cls, words: list[str]) -> Move:
        return cls(*_fields(words, "MOVE <id> <line>", "4.5", "id", "line"))


@dataclass(frozen=True)
class Info(_Wire):
    """§4.8, bot → referee, before its MOVE: a note on request ``id`` (one line of at most 256 bytes of UTF-8,
    no control characters) that the record keeps with the move. Never a fault: a bad one is ignored and logged."""

    id: int
    text: str

    def to_text(self) -> str:
        return f"INFO {self.id} {self.text}"

    @classmethod
    def from_text(cls, rest: str) -> Info:
        """``rest``: what follows ``INFO `` (the id, one space, the text to the end of the message)."""
        number, space, text = rest.partition(" ")
        id = _number(number, "INFO's id", "4.8")
        if not space or not text:
            raise ProtocolError("INFO needs the form 'INFO <id> <text>' with a text (§4.8)")
        if len(text.encode()) > INFO_BYTES:
            raise ProtocolError(f"INFO's text is {len(text.encode())} bytes, more than {INFO_BYTES} (§4.8)")
        if _CONTROL.search(text):
            raise ProtocolError("INFO's text has a control character or line break (§4.8)")
        return cls(id, text)


@dataclass(frozen=True)
class End(_Wire):
    """§4.6, referee → bots: the game is over."""

    termination: str
    scores: tuple[int, ...]
    placements: tuple[int, ...]
    offender: int | None = None

    def to_text(self) -> str:
        offender = "-" if self.offender is None else str(self.offender)
        return f"END {self.termination} {_list_text(self.scores)} {_list_text(self.placements)} {offender}"

    @classmethod
    def from_words(cls, words: list[str]) -> End:
        _arity(words, 5, 5, "END <termination> <scores> <placements> <offender>", "4.6")
        if words[1] not in TERMINATIONS:
            raise ProtocolError(f"END: termination must be one of {', '.join(TERMINATIONS)} (§4.6)")
        scores = _numbers(words[2], "score", "4.6")
        placements = _numbers(words[3], "placement", "4.6")
        if len(scores) != len(placements):
            raise ProtocolError("END: scores and placements must have one entry per seat (§4.6)")
        offender = None if words[4] == "-" else _number(words[4], "offender", "4.6")
        return cls(words[1], scores, placements, offender)


@dataclass(frozen=True)
class Bye(_Wire):
    """§4.7, referee → bot: no more games."""

    reason: str = ""

    def to_text(self) -> str:
        return f"BYE {self.reason}" if self.reason else "BYE"


Message = Hello | Welcome | Game | Drawn | Forfeit | Turn | Move | Info | End | Bye
BOT_MESSAGES = (Hello, Move, Info)  # §1.4, §4.8
_BY_WORDS = {"HELLO": Hello, "WELCOME": Welcome, "DRAWN": Drawn, "FORFEIT": Forfeit, "TURN": Turn, "MOVE": Move,
             "END": End}


def parse(data: str | bytes) -> Message:
    """One ZeroMQ message → a message value, or ``ProtocolError`` saying why not (§1)."""
    if isinstance(data, (bytes, bytearray, memoryview)):
        if len(data) > MAX_BYTES:
            raise ProtocolError(f"message of {len(data)} bytes is larger than 1 MiB (§1.2)")
        try:
            data = bytes(data).decode("utf-8")
        except UnicodeDecodeError:
            raise ProtocolError("message is not valid UTF-8 (§1.2)") from None
    elif not isinstance(data, str):
        raise ProtocolError(f"message must be text, got {type(data).__name__} (§1.2)")
    elif len(data) > MAX_BYTES:
        raise ProtocolError("message is larger than 1 MiB (§1.2)")
    if data.startswith("INFO "):  # its text runs to the end of the message: a trailing newline is in it
        return Info.from_text(data[5:])
    text = data.removesuffix("\n").removesuffix("\r")
    command, _, rest = text.partition(" ")
    if command == "GAME":
        return Game.from_payload(rest)
    if command == "BYE":
        return Bye(rest.strip())
    kind = _BY_WORDS.get(command)
    if kind is None:
        shown = command[:20] + ("…" if len(command) > 20 else "")
        raise ProtocolError(f"unknown command {shown!r}: expected one of HELLO, WELCOME, GAME, DRAWN, FORFEIT, "
                            "TURN, MOVE, END, BYE (§1.4)")
    return kind.from_words([command] + [word for word in rest.split(" ") if word])


def move_fields(data: bytes) -> tuple[int, int] | None:
    """``(id, line)`` of a MOVE written as bots write it: ``MOVE <id> <line>``, one space apart, nothing else.

    None for anything else, well-formed or not (extra spaces, a newline, another command, a fault):
    ``parse`` then says what it is. Where this returns numbers, ``parse`` returns ``Move`` with the same ones.
    """
    words = data.split(b" ", 3)  # a fourth part: not a plain MOVE
    if len(words) == 3 and words[0] == b"MOVE":
        id, line = words[1], words[2]
        # bytes.isdigit() is ASCII digits only, and False for b"": §1.3's 1-9 digits
        if len(id) < 10 and len(line) < 10 and id.isdigit() and line.isdigit():
            return int(id), int(line)
    return None


def _game_from_json(data: object) -> Game:
    """Validate GAME's JSON object (§4.1) field by field; every flaw is a ProtocolError."""
    if not isinstance(data, dict):
        raise ProtocolError("GAME: payload must be a JSON object (§4.1)")

    def field(key: str, kind: type | tuple, nullable: bool = False):
        value = data.get(key)
        if value is None and nullable and key in data:
            return None
        # bool is an int in Python; JSON true is never a number here
        if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
            raise ProtocolError(f"GAME: field {key!r} missing or not {getattr(kind, '__name__', kind)} (§4.1)")
        return value

    def ints(values: object, key: str, bound: int | None) -> tuple[int, ...]:
        if not isinstance(values, list) or not all(type(v) is int and v >= 0 for v in values):
            raise ProtocolError(f"GAME: {key!r} must be a list of non-negative integers (§4.1)")
        if bound is not None and any(v >= bound for v in values):
            raise ProtocolError(f"GAME: {key!r} refers to an entry out of range (§4.1)")
        return tuple(values)

    protocol = field("protocol", str)
    players = field("players", int)
    if players not in (2, 3, 4):
        raise ProtocolError("GAME: 'players' must be 2, 3 or 4 (§4.1)")
    seat = field("seat", int)
    if not 0 <= seat < players:
        raise ProtocolError("GAME: 'seat' must be 0 … players-1 (§4.1)")
    names = field("names", list)
    if len(names) != players or not all(isinstance(n, str) for n in names):
        raise ProtocolError("GAME: 'names' must list one string per seat (§4.1)")
    geometry = field("geometry", str)
    if geometry not in GEOMETRIES:
        raise ProtocolError(f"GAME: 'geometry' must be one of {', '.join(GEOMETRIES)} (§4.1)")
    try:
        rows, cols = parse_size(field("size", str))
    except BoardError as exc:
        raise ProtocolError(f"GAME: {exc} (§4.1)") from None
    dots = field("dots", list)
    if not all(isinstance(d, list) and len(d) == 2 and all(type(v) is int for v in d) for d in dots):
        raise ProtocolError("GAME: 'dots' must be a list of [x, y] integer pairs (§4.1)")
    lines = field("lines", list)
    if not all(isinstance(pair, list) and len(pair) == 2 for pair in lines):
        raise ProtocolError("GAME: 'lines' must be a list of [a, b] dot pairs (§4.1)")
    lines = [ints(pair, "lines", len(dots)) for pair in lines]
    cells = [ints(cell, "cells", len(lines)) for cell in field("cells", list)]
    time = field("time", dict)
    try:
        spec = TimeSpec(*(_optional_ms(time, key) for key in ("move_ms", "bank_ms", "increment_ms", "margin_ms")))
    except ProtocolError as exc:
        raise ProtocolError(f"GAME: {exc}") from None
    if (spec.move_ms is None) == (spec.bank_ms is None):
        raise ProtocolError("GAME: 'time' must give exactly one of move_ms and bank_ms (§5)")
    seed = field("seed", int)
    extensions = data.get("extensions", [])
    if not isinstance(extensions, list) or not all(isinstance(e, str) for e in extensions):
        raise ProtocolError("GAME: 'extensions' must be a list of strings (§4.1)")
    board = Board(geometry, rows, cols, tuple(tuple(d) for d in dots), tuple(lines), tuple(cells))
    return Game(
        game=field("game", str), seat=seat, players=players, names=tuple(names), board=board,
        misere=field("misere", bool), border=field("border", bool),
        predrawn=ints(field("predrawn", list), "predrawn", len(lines)), time=spec, seed=seed, protocol=protocol,
        extensions=tuple(extensions),
    )


def _optional_ms(time: dict, key: str) -> int | None:
    value = time.get(key)
    if value is None and key in ("move_ms", "bank_ms"):
        return None
    if type(value) is not int or value < 0:
        raise ProtocolError(f"time.{key} must be a non-negative integer (§4.1)")
    return value
