"""Protocol v1: codec round trips and fuzzing, the spec's example and a golden transcript of a real game."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest
from helpers import bot
from hypothesis import given
from hypothesis import strategies as st

from hexarena.protocol import codec
from hexarena.protocol.board import make_board
from hexarena.protocol.client import rules_for, run_bot
from hexarena.protocol.errors import ProtocolError
from hexarena.referee.clock import TimeControl
from hexarena.referee.record import FAULTS, BoardConfig
from hexarena.referee.referee import Referee

GOLDEN = Path(__file__).parents[1] / "golden"
SPEC = Path(__file__).resolve().parents[2] / "protocol" / "PROTOCOL.md"

numbers = st.integers(0, 999_999_999)
number_lists = st.lists(numbers, max_size=6).map(tuple)


@st.composite
def ends(draw) -> codec.End:
    seats = draw(st.integers(2, 4))
    seat_list = st.lists(numbers, min_size=seats, max_size=seats).map(tuple)
    return codec.End(draw(st.sampled_from(codec.TERMINATIONS)), draw(seat_list), draw(seat_list),
                     draw(st.none() | st.integers(0, seats - 1)))


@st.composite
def games(draw) -> codec.Game:
    board = make_board(draw(st.sampled_from(["1x1", "2x3", "3x3"])), draw(st.sampled_from(["hex", "square"])))
    players = draw(st.integers(2, 4))
    border = draw(st.booleans())
    banked = draw(st.booleans())
    time = codec.TimeSpec(None if banked else draw(numbers), draw(numbers) if banked else None, draw(numbers),
                          draw(numbers))
    return codec.Game(
        game=draw(st.text(max_size=12)), seat=draw(st.integers(0, players - 1)), players=players,
        names=tuple(draw(st.lists(st.text(max_size=8), min_size=players, max_size=players))), board=board,
        misere=draw(st.booleans()), border=border, predrawn=board.border if border else (), time=time,
        seed=draw(st.integers(0, 2**62)),
    )


messages = st.one_of(
    st.builds(codec.Hello, st.just("v1"), st.from_regex(r"[A-Za-z0-9_-]{1,128}", fullmatch=True),
              st.from_regex(r"[a-z0-9@#_-]{0,20}", fullmatch=True)),
    st.builds(codec.Welcome, st.just("v1")),
    st.builds(codec.Drawn, numbers, numbers, number_lists),
    st.builds(codec.Forfeit, numbers, st.sampled_from(codec.FAULTS)),
    st.builds(codec.Turn, numbers, numbers, numbers),
    st.builds(codec.Move, numbers, numbers),
    ends(),
    st.builds(codec.Bye, st.from_regex(r"([a-z]+( [a-z]+)*)?", fullmatch=True)),
    games(),
)


@given(messages)
def test_every_message_round_trips(message):
    text = message.to_text()
    assert codec.parse(text) == message
    assert codec.parse(text.encode() + b"\n") == message
    assert message.wire == text.encode() and message.wire is message.wire  # encoded once, for every seat
    assert message == codec.parse(message.wire) and repr(message) == repr(codec.parse(text))  # not a field


@given(st.text(max_size=12) | st.from_regex(r"[0-9]{0,11}", fullmatch=True))
def test_a_number_is_one_to_nine_ascii_digits(word):
    """§1.3, as the grammar says it (the codec checks it without a regex, twice per MOVE)."""
    if re.fullmatch(r"[0-9]{1,9}", word, flags=re.ASCII):
        assert codec.parse(f"MOVE {word} 1") == codec.Move(int(word), 1)
    elif word and " " not in word and word.strip() == word and "\n" not in word and "\r" not in word:
        with pytest.raises(ProtocolError, match="decimal number of 1-9 digits"):
            codec.parse(f"MOVE {word} 1")


moves_as_sent = st.one_of(
    st.builds(lambda m: m.wire, st.builds(codec.Move, numbers, numbers)),
    st.from_regex(rb"MOVE {1,2}[0-9+_ ]{0,11} [0-9]{0,11}( |\n|\r\n| [0-9]{1,3})?", fullmatch=True),
    st.sampled_from(["MOVE ١ 2", "MOVE 1 ²", "MOVE 0x1 2", "MOVE\t1 2", "move 1 2", "HELLO v1 tok"]).map(str.encode),
    st.binary(max_size=24),
)


@given(moves_as_sent)
def test_a_plain_move_is_read_without_the_parser_exactly_as_the_parser_reads_it(data):
    """The referee's shortcut for MOVE (``move_fields``) agrees with ``parse``; anything else goes to ``parse``."""
    fields = codec.move_fields(data)
    try:
        message = codec.parse(data)
    except ProtocolError:
        message = None
    if fields is not None:
        assert message == codec.Move(*fields)
    if isinstance(message, codec.Move) and data == message.wire:  # what bots send: never the slow way
        assert fields == (message.id, message.line)


@given(numbers, numbers, numbers)
def test_turn_and_drawn_shortcuts_are_the_messages_themselves(id, left, limit):
    assert codec.Turn.encode(id, left, limit) == codec.Turn(id, left, limit).wire
    assert codec.drawn(1, id, (left, limit)) == codec.Drawn(1, id, (left, limit))
    assert codec.drawn(1, id, (left, limit)) is codec.drawn(1, id, (left, limit))  # made and encoded once


def test_a_game_message_is_its_json_whichever_board():
    """GAME's text keeps the board's part encoded once per board: it is still ``json.dumps`` of ``to_json``."""
    for size, geometry in (("1x1", "square"), ("4x4", "hex"), ("10x10", "hex"), ("3x4", "square")):
        board = make_board(size, geometry)
        game = codec.Game("g\u00e9 \"1\"", 2, 3, ("rändom", "b", "c"), board, True, True, board.border,
                          codec.TimeSpec(None, 10_000, 100, 50), 7)
        assert game.to_text() == "GAME " + json.dumps(game.to_json(), separators=(",", ":"), ensure_ascii=False)
        assert codec.parse(game.wire) == game


def assert_parses_or_protocol_error(data) -> None:
    try:
        message = codec.parse(data)
    except ProtocolError as exc:
        assert str(exc) and "\n" not in str(exc)
    else:
        assert codec.parse(message.to_text()) == message


@given(st.text())
def test_no_string_crashes_the_codec(text):
    assert_parses_or_protocol_error(text)


@given(st.binary())
def test_no_bytes_crash_the_codec(data):
    assert_parses_or_protocol_error(data)


@given(st.sampled_from(["HELLO", "WELCOME", "GAME", "DRAWN", "FORFEIT", "TURN", "MOVE", "END", "BYE"]),
       st.lists(st.one_of(st.text(max_size=6), numbers.map(str), st.just("-"), st.just("1,2")), max_size=6))
def test_no_arguments_crash_the_codec(command, words):
    assert_parses_or_protocol_error(" ".join([command, *words]))


json_values = st.recursive(st.none() | st.booleans() | st.integers(-5, 10**12) | st.text(max_size=5),
                           lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=4), inner,
                                                                                     max_size=3), max_leaves=10)


@given(games(), st.dictionaries(st.sampled_from(["protocol", "game", "seat", "players", "names", "geometry", "size",
                                                 "misere", "border", "dots", "lines", "cells", "predrawn", "time",
                                                 "seed"]), json_values, min_size=1, max_size=3))
def test_no_game_payload_crashes_the_codec(game, changes):
    payload = {**game.to_json(), **changes}
    assert_parses_or_protocol_error("GAME " + json.dumps(payload))


@pytest.mark.parametrize("text, reason", [
    ("", "unknown command"),
    ("move 1 2", "unknown command"),
    ("MOVE 1", "MOVE <id> <line>"),
    ("MOVE 1 +2", "decimal number"),
    ("MOVE 1 1_0", "decimal number"),
    ("MOVE 1 ١", "decimal number"),
    ("MOVE 1 1234567890", "decimal number"),
    ("DRAWN 0 3 4,,5", "decimal number"),
    ("FORFEIT 1 bored", "reason must be one of"),
    ("END completed 1,2 1 -", "one entry per seat"),
    ("HELLO v1 bad/token", "token"),
    ("GAME [1]", "JSON object"),
    ("GAME " + "[" * 100_000, "not JSON"),
    (b"MOVE 1 \xff", "UTF-8"),
    ("MOVE 1 2 " + "x" * (1 << 20), "1 MiB"),
])
def test_protocol_errors_say_what_is_wrong(text, reason):
    with pytest.raises(ProtocolError, match=re.escape(reason)):
        codec.parse(text)


def test_spaces_and_a_trailing_newline_are_tolerated():
    assert codec.parse("MOVE  12   17\r\n") == codec.Move(12, 17)
    assert codec.parse("DRAWN 1 20 4,5\n") == codec.Drawn(1, 20, (4, 5))


def test_codec_and_record_agree_on_the_faults():
    assert codec.FAULTS == FAULTS


def test_client_refuses_a_game_whose_predrawn_lines_are_not_the_border():
    board = make_board("2x2")
    game = codec.Game("g", 0, 2, ("a", "b"), board, False, True, (0,), codec.TimeSpec(300, None), 1)
    with pytest.raises(ProtocolError, match="predrawn"):
        rules_for(game)


def test_a_bot_started_by_hand_says_how_bots_are_started():
    with pytest.raises(SystemExit, match="HEXARENA_ENDPOINT and HEXARENA_TOKEN not set"):
        run_bot(lambda game, state: 0, env={})


def hide_token(line: str) -> str:
    return re.sub(r"^> HELLO v1 \S+", "> HELLO v1 <token>", line)


def conversations(config: BoardConfig, seed: int) -> dict[str, list[str]]:
    """Play one game of greedy (seat 0) against random (seat 1); each bot's messages, tokens hidden."""
    lines: dict[str, list[str]] = {}

    def hook(direction, owner, data: bytes) -> None:
        line = ("> " if direction == "in" else "< ") + data.decode()
        lines.setdefault(owner.label, []).append(hide_token(line))

    with Referee(time_control=TimeControl.parse("300ms"), hook=hook) as referee:
        record = referee.play([bot("greedy"), bot("random")], config, game_id="g1", seed=seed)
    assert record.result.termination == "completed"
    return lines


def test_golden_transcript_of_a_seeded_game():
    """The full exchange of one seeded game; HEXARENA_UPDATE_GOLDEN=1 rewrites the file after a deliberate change."""
    lines = conversations(BoardConfig(size="2x2", geometry="hex", border=True), seed=11)
    text = "".join(f"# {label}\n" + "\n".join(lines[label]) + "\n" for label in ("greedy", "random"))
    golden = GOLDEN / "greedy-random-2x2-hex-border-seed11.txt"
    if os.environ.get("HEXARENA_UPDATE_GOLDEN"):
        golden.write_text(text)
        pytest.skip("golden file rewritten")
    assert text == golden.read_text()


def test_the_spec_example_is_a_real_conversation():
    blocks = re.findall(r"Seat \d:\n\n((?:    .*\n)+)", SPEC.read_text().split("## 9.")[1])
    documented = [[line[4:] for line in block.splitlines()] for block in blocks]
    for block in documented:
        for line in block:
            codec.parse(line[2:])
    documented = [[hide_token(line) for line in block] for block in documented]
    lines = conversations(BoardConfig(size="1x1", geometry="square"), seed=7)
    assert documented == [lines["greedy"], lines["random"]]


@pytest.mark.parametrize("time", [{"move_ms": None, "bank_ms": None}, {"move_ms": 300, "bank_ms": 10_000}])
def test_a_game_needs_exactly_one_clock(time):
    board = make_board("1x1")
    game = codec.Game("g", 0, 2, ("a", "b"), board, False, False, (), codec.TimeSpec(300, None), 1)
    data = json.loads(game.to_text().split(" ", 1)[1])
    data["time"] |= time
    with pytest.raises(ProtocolError, match=re.escape("exactly one of move_ms and bank_ms")):
        codec.parse("GAME " + json.dumps(data))
