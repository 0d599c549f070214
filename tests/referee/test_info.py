"""A bot's notes on its moves (INFO, PROTOCOL.md §4.8): kept in the record, shown by ``hexarena replay``, never a
fault; the hostile ones ignored and logged. A real bot process (tests/bots/notes.py)."""

from __future__ import annotations

import json
import re
import subprocess

import pytest
from helpers import HEXARENA, bot
from hypothesis import given
from hypothesis import strategies as st

from hexarena.protocol import codec
from hexarena.protocol.errors import ProtocolError
from hexarena.referee.record import BoardConfig, GameRecord

NOTES, RANDOM = bot("notes"), bot("random")


def test_the_notes_of_a_real_bot_are_in_its_record_and_the_hostile_ones_only_in_its_log(make_referee, tmp_path):
    record = make_referee().play([NOTES, RANDOM], BoardConfig(size="2x2"), game_id="n1", seed=5)
    assert record.result.termination == "completed" and record.result.forfeits == []
    mine = [move for move in record.moves if move.seat == 0]
    assert mine[0].info == ["é" * 100, "move 1 id 1"]
    assert mine[1].info == [f"extra {n}" for n in range(16)]  # the first 16 of 20: its own last note dropped too
    assert [move.info for move in mine[2:]] == [[f"move {k} id {k}"] for k in range(3, len(mine) + 1)]
    assert all(move.info == [] for move in record.moves if move.seat == 1)
    log = (tmp_path / "logs" / "n1.seat0.notes.log").read_text()
    assert "INFO ignored: INFO's text is 300 bytes, more than 256 (§4.8)" in log
    assert "INFO for request 1001 ignored: the request is 1 (§4.8)" in log
    assert "INFO ignored: INFO's text has a control character or line break (§4.8)" in log
    assert "4 INFO for request 2 dropped: at most 16 per move (§4.8)" in log
    # a stream of bad INFO in one move (a bare INFO too) is no fault, and only its first 16 are logged one by one
    assert log.count("--- hexarena: INFO ignored: ") == 2 + 16  # the first move's two, the third's first 16
    assert "--- hexarena: 136 more INFO ignored during request 3, not logged one by one (§4.8)" in log
    # every TURN is marked in the seat's log before it leaves (launch.MOVE_MARK): the record's move number and the
    # request id, in order; what the bot printed for that TURN ("request R") follows its mark, before the next one
    marks = re.findall(r"^--- hexarena: move (\d+), TURN (\d+)$", log, re.MULTILINE)
    assert [int(move) for move, _ in marks] == [k + 1 for k, move in enumerate(record.moves) if move.seat == 0]
    assert [int(request) for _, request in marks] == list(range(1, len(mine) + 1))
    for move, request in marks:
        section = log.split(f"--- hexarena: move {move}, TURN {request}\n")[1].split("--- hexarena: move ")[0]
        assert f"\nrequest {request}\n" in "\n" + section, section
    assert "\nthinking\n--- hexarena: " in log  # the bot's unfinished line, ended before the referee's next line
    assert "\n\n" not in log  # a referee line starts a line of its own, with no blank line before it
    # the record's JSON keeps them; a move without notes has no "info" key (older records look the same)
    data = json.loads(record.model_dump_json())
    assert data["moves"][0]["info"] == mine[0].info and "info" not in data["moves"][1]
    assert GameRecord.model_validate(data) == record


def test_hexarena_replay_prints_the_notes_escaped(tmp_path):
    record = GameRecord.model_validate({
        "id": "r1", "config": {"size": "1x1", "geometry": "square"}, "seats": ["a", "b"],
        "moves": [{"seat": 0, "line": 0, "info": ["eval +1", "\x1b[2Jwiped"]}, {"seat": 1, "line": 1},
                  {"seat": 0, "line": 2}, {"seat": 1, "line": 3, "closed": [0]}],
        "result": {"scores": [0, 1], "placements": [2, 1]}})
    games = tmp_path / "games.jsonl"
    games.write_text(record.model_dump_json() + "\n")
    done = subprocess.run([*HEXARENA, "replay", "r1", "--file", str(games), "--delay", "0"], capture_output=True,
                          text=True, timeout=60, check=False)
    assert done.returncode == 0, done.stderr
    assert "A a notes: eval +1\n" in done.stdout and "A a notes: \\x1b[2Jwiped\n" in done.stdout
    assert "\x1b" not in done.stdout
    assert done.stdout.count("notes:") == 2


def test_the_game_message_announces_the_extension():
    message = BoardConfig(size="1x1", geometry="square").game_message("g", 0, ("a", "b"), codec.TimeSpec(300, None, 0, 50), 1)
    assert message.to_json()["extensions"] == ["info"]
    assert codec.parse(message.to_text()) == message


@pytest.mark.parametrize(("text", "why"), [
    ("INFO 3", "needs the form"), ("INFO 3 ", "needs the form"), ("INFO x hi", "decimal number"),
    ("INFO 3 " + "é" * 129, "258 bytes"), ("INFO 3 a\nb", "control character"), ("INFO 3 a\r", "control"),
    ("INFO 3 tab\there", "control"), ("INFO 3 a\u2028b", "line break"), ("INFO 3 hi\n", "control"),
])
def test_a_bad_info_is_a_protocol_error_naming_why(text, why):
    with pytest.raises(ProtocolError, match=why):
        codec.parse(text)


@given(st.integers(0, 999_999_999), st.text(min_size=1).filter(
    lambda t: len(t.encode()) <= 256 and all(c.isprintable() or c == " " for c in t) and "\u2028" not in t))
def test_info_round_trips(id, text):
    assert codec.parse(codec.Info(id, text).to_text()) == codec.Info(id, text)
    assert codec.parse(codec.Info(id, text).wire) == codec.Info(id, text)


@given(st.text(max_size=60), st.sampled_from([chr(c) for c in [*range(32), *range(127, 160), 0x2028, 0x2029]]),
       st.text(max_size=60))
def test_an_info_with_any_control_character_or_line_break_is_refused(before, control, after):
    with pytest.raises(ProtocolError):
        codec.Info.from_text(f"7 x{before}{control}{after}")


def test_each_games_log_holds_what_the_bot_wrote_from_its_game_to_the_next(tmp_path):
    """``hexarena match --games 6 --logs``: the notes bot prints ``game ID`` as each GAME arrives, then
    ``request N`` at each TURN; each game's log has its own id alone, for either seat, and the last game's exists."""
    logs = tmp_path / "logs"
    done = subprocess.run([*HEXARENA, "match", str(NOTES.folder), str(RANDOM.folder), "--games", "6", "--size", "1x2",
                           "--logs", str(logs), "--seed", "3"], capture_output=True, text=True, timeout=300,
                          check=False)
    assert done.returncode == 0, done.stderr
    files = sorted(logs.glob("*notes*.log"))
    assert len(files) == 6, [f.name for f in logs.iterdir()]
    for path in files:
        game_id = path.name.split(".seat")[0]
        said = [line for line in path.read_text().splitlines() if line.startswith("game ")]
        assert said == [f"game {game_id}"], (path.name, said)
        seat = int(path.name.split(".seat")[1][0])
        if seat == 0:  # its first TURN's request id follows its game line
            assert "\nrequest " in path.read_text()
