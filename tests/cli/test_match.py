"""``hexarena match`` as a user runs it: real bots, real files, one-line errors with exit status 2."""

from __future__ import annotations

import os
import signal
import subprocess
import time

import pytest
from helpers import BOTS, HEXARENA, ROOT, TEST_BOTS

from hexarena.cli import main
from hexarena.commands.match import rotations
from hexarena.protocol.render import render
from hexarena.referee.record import GameRecord

GREEDY, RANDOM = str(BOTS / "greedy"), str(BOTS / "random")


def run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([*HEXARENA, *args], check=False, capture_output=True, text=True, cwd=ROOT, timeout=120)


@pytest.mark.slow
def test_a_match_prints_each_game_and_a_summary_and_writes_records(tmp_path):
    out = tmp_path / "games.jsonl"
    done = run("match", GREEDY, RANDOM, "--size", "3x3", "--games", "4", "--seed", "1", "--time", "1s",
               "--out", str(out))
    assert done.returncode == 0, done.stderr
    records = [GameRecord.model_validate_json(line) for line in out.read_text().splitlines()]
    assert [record.seats for record in records] == [["greedy", "random"], ["random", "greedy"]] * 2
    assert [record.seed for record in records] == [1, 2, 3, 4]
    lines = done.stdout.splitlines()
    assert lines[0] == "match: greedy vs random on 3x3 hex, time 1s"
    assert [line.split(":")[0] for line in lines[1:5]] == ["game 1", "game 2", "game 3", "game 4"]
    assert lines[5].split() == ["bot", "games", "wins", "draws", "losses", "faults", "cells"]
    greedy_row, random_row = lines[6].split(), lines[7].split()
    greedy_wins = sum(r.result.placements[r.seats.index("greedy")] == 1 for r in records)
    assert greedy_row[:3] == ["greedy", "4", str(greedy_wins)] and random_row[:2] == ["random", "4"]
    assert int(greedy_row[6]) + int(random_row[6]) == 4 * 9  # every cell of every game taken


@pytest.mark.slow
def test_json_prints_only_records(tmp_path):
    done = run("match", GREEDY, RANDOM, "--size", "2x2", "--geometry", "square", "--misere", "--border",
               "--games", "2", "--json")
    assert done.returncode == 0, done.stderr
    records = [GameRecord.model_validate_json(line) for line in done.stdout.splitlines()]
    assert len(records) == 2
    assert records[0].config.label == "2x2 square misère border"
    assert records[0].replay().outcome().scores == tuple(records[0].result.scores)


def test_show_draws_the_final_board(capsys, tmp_path):
    with pytest.raises(SystemExit) as exit:
        main(["match", GREEDY, GREEDY, "--size", "1x2", "--games", "1", "--show", "--seed", "3",
              "--out", str(tmp_path / "games.jsonl")])
    assert exit.value.code == 0
    out = capsys.readouterr().out
    assert "A = greedy   B = greedy#2" in out
    record = GameRecord.model_validate_json((tmp_path / "games.jsonl").read_text())
    assert render(record.config.board(), record.replay()) in out  # the final position, cells lettered by owner


def test_three_bots_each_play_each_seat_once():
    assert rotations(["a", "b", "c"], 3) == [["a", "b", "c"], ["b", "c", "a"], ["c", "a", "b"]]


@pytest.mark.parametrize("args, message", [
    ([GREEDY], "a match needs 2-4 bots, got 1"),
    ([GREEDY, "/no/such/bot"], "/no/such/bot: not a bot folder"),
    ([GREEDY, RANDOM, "--time", "fast"], "time 'fast' is not a duration"),
    ([GREEDY, RANDOM, "--size", "0x3"], "rows must be 1-10"),
    ([GREEDY, RANDOM, "--geometry", "tri"], "'tri' is not one of: hex, square"),
    ([GREEDY, RANDOM, "--games", "0"], "--games"),
    ([GREEDY, RANDOM, "--remote-wait", "5x"], "time '5x' is not a duration"),
    ([GREEDY, RANDOM, "--out", "/proc/no/such/file"], "cannot write /proc/no/such/file"),
    ([GREEDY, RANDOM, "--logs", "/proc/no/such/dir"], "cannot write /proc/no"),
])
def test_bad_arguments_are_one_line_errors(capsys, args, message):
    with pytest.raises(SystemExit) as exit:
        main(["match", *args])
    assert exit.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith("hexarena: error: ") and message in err and err.count("\n") == 1


def test_a_broken_manifest_is_a_one_line_error(tmp_path):
    (tmp_path / "bot.toml").write_text('name = "Bad Name"\ncommand = ["python3", "bot.py"]\n')
    done = run("match", GREEDY, str(tmp_path))
    assert done.returncode == 2
    assert done.stderr.startswith("hexarena: error: ") and "'name'" in done.stderr
    assert done.stderr.count("\n") == 1 and "Traceback" not in done.stderr


@pytest.mark.slow
def test_a_fault_shows_in_the_game_line_and_the_summary(capsys, monkeypatch):
    monkeypatch.delenv("BROKEN_MARKER", raising=False)  # this test bot then never connects
    with pytest.raises(SystemExit) as exit:
        main(["match", str(TEST_BOTS / "no_connection"), RANDOM, "--size", "1x1", "--games", "2",
              "--time", "300ms,startup=3s"])  # random's HELLO took 0.19 s under load: 1 s was only 5x that
    assert exit.value.code == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[1] == "game 1: broken-no-connection 0, random 0: random wins (no_connection by broken-no-connection)"
    # a bot that never played: why, with the command that was run (a newcomer's first question)
    assert lines[2].startswith("  broken-no-connection: no_connection: no HELLO within the startup allowance of 3 s "
                               "[ran python3 ../broken.py no_connection in ")
    assert lines[3] == "game 2: random 0, broken-no-connection 0: random wins (no_connection by broken-no-connection)"
    assert lines[6].split() == ["broken-no-connection", "2", "0", "0", "2", "2", "0"]


def test_a_match_stopped_before_its_first_game_ends_leaves_an_earlier_out_file_as_it_was(tmp_path):
    """SIGTERM while the first game waits for a bot that never connects: no game finished, so the --out file of an
    earlier match is kept, not replaced by an empty one, and one line says so (exit 143)."""
    out = tmp_path / "games.jsonl"
    out.write_text("an earlier match's records\n")
    env = {key: value for key, value in os.environ.items() if key != "BROKEN_MARKER"}  # then it never connects
    match = subprocess.Popen([*HEXARENA, "match", str(TEST_BOTS / "no_connection"), RANDOM, "--size", "2x2",
                              "--time", "1s,startup=30s", "--out", str(out)], stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True, cwd=ROOT, env=env)
    try:
        assert match.stdout.readline().startswith("match: broken-no-connection vs random")
        time.sleep(0.5)  # its bots starting, the first game not begun
        match.send_signal(signal.SIGTERM)
        _, err = match.communicate(timeout=60)
    finally:
        match.kill()
        match.wait()
    assert match.returncode == 143, err
    assert err.splitlines()[-1] == f"hexarena: error: match interrupted after 0 finished games; {out} is as it was"
    assert out.read_text() == "an earlier match's records\n" and list(tmp_path.iterdir()) == [out]


@pytest.mark.slow
@pytest.mark.parametrize(("signum", "status"), [(signal.SIGINT, 130), (signal.SIGTERM, 143)], ids=["SIGINT", "SIGTERM"])
def test_ctrl_c_keeps_the_finished_games_in_the_out_file_and_the_tally_and_says_so_in_one_line(tmp_path, signum,
                                                                                                status):
    """A long match stopped by Ctrl-C (or SIGTERM, as a service manager or ``kill`` stops it): the game in play is
    dropped; the finished ones are in --out (whole records) and in the tally printed, and one line says how many
    (exit 130, or 143 for SIGTERM). SIGTERM's default would end the process with no file and no word."""
    out = tmp_path / "games.jsonl"
    match = subprocess.Popen([*HEXARENA, "match", GREEDY, RANDOM, "--size", "3x3", "--games", "1000", "--seed", "1",
                              "--time", "1s", "--out", str(out)], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             text=True, cwd=ROOT)
    try:
        lines = [match.stdout.readline() for _ in range(4)]  # the header, then three games: their lines are flushed
        assert lines[0].startswith("match: greedy vs random") and lines[3].startswith("game 3: "), lines
        match.send_signal(signum)
        rest, err = match.communicate(timeout=60)
    finally:
        match.kill()
        match.wait()
    records = [GameRecord.model_validate_json(line) for line in out.read_text().splitlines()]
    played = len(records)
    assert match.returncode == status and 3 <= played < 1000
    assert [record.id for record in records] == [f"game{number}" for number in range(1, played + 1)]
    said = f"hexarena: error: match interrupted after {played} finished games; their records are in {out}"
    assert [line for line in err.splitlines() if "error" in line] == [said] and "Traceback" not in err, err
    shown = (''.join(lines) + rest).splitlines()
    assert [line.split(":")[0] for line in shown[1:played + 1]] == [f"game {n}" for n in range(1, played + 1)]
    assert shown[played + 1].split()[:2] == ["bot", "games"]
    assert {tuple(line.split()[:2]) for line in shown[played + 2:played + 4]} == {("greedy", str(played)),
                                                                                   ("random", str(played))}
    assert shown[-1].startswith("greedy - random: ") and not list(tmp_path.glob(".*"))  # no temporary file left
