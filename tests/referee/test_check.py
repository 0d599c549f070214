"""`hexarena check` (referee/check.py): the shipped bots pass every item, each broken bot fails its own with its
reason, the checklist on the command line."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from helpers import BOTS, BROKEN, HEXARENA, ROOT, needs_c, needs_node

from hexarena.referee.check import BORDER, EXTRA_MOVE, FOUR, HANDSHAKE, ITEMS, MISERE, QUITS, SEVERAL, SQUARES, THREE, TIME_LIMIT, TRACKS, check_bot
from hexarena.referee.clock import TimeControl

QUICK = TimeControl.parse("300ms,startup=5s")  # roomy enough for a loaded CI machine


# ---- hexarena check -------------------------------------------------------------------------------

@pytest.mark.parametrize("folder", [
    pytest.param(BOTS / "cbot", marks=needs_c),
    pytest.param(BOTS / "nodebot", marks=needs_node),
    BOTS / "greedy",
])
def test_the_shipped_bots_pass_every_check(folder):
    report = check_bot(folder)  # 1 s per move, as leagues play: passing must not depend on the machine's load
    assert [item.name for item in report.items] == list(ITEMS)
    assert report.passed, [item for item in report.items if not item.passed]


@pytest.mark.parametrize("folder, failing, reason", [
    ("bad_build", set(ITEMS), "failed with exit status 1: bot.c:1: error: expected declaration"),
    ("old_version", {HANDSHAKE}, "malformed_message: HELLO names protocol 'v0', not v1 (§3.5)"),
    ("slow_start", {TIME_LIMIT}, "ms past the limit of 300 ms + 50 ms margin"),
    ("alternation", {EXTRA_MOVE}, "crashed: exited with status 1: TURN out of turn"),
    ("no_border", {BORDER}, "is already drawn"),
    ("no_misere", {MISERE}, "crashed: exited with status 1: misère is not supported"),
    ("two_players", {THREE, FOUR}, "crashed: exited with status 1: only two players are supported"),
    ("hex_only", {SQUARES}, "crashed: exited with status 1: only hexagons are supported"),
    ("stale", {TRACKS}, "is already drawn — the bot's view of the board is stale"),
    ("one_game", {SEVERAL}, "game 2: crashed: exited with status 0"),
    ("no_quit", {QUITS}, "still running 1 s after BYE (§8)"),
])
@pytest.mark.slow
def test_check_fails_each_broken_bot_on_the_right_item_with_its_reason(folder, failing, reason):
    report = check_bot(BROKEN / folder, time_control=QUICK)
    assert not report.passed
    failed = {item.name for item in report.items if not item.passed}
    assert failing <= failed, report.to_text()
    assert reason in report.item(min(failing, key=ITEMS.index)).reason
    if folder in ("slow_start", "no_border", "no_misere", "two_players", "hex_only", "one_game", "no_quit"):
        assert failed == failing, report.to_text()  # a single flaw fails its own item only


@pytest.mark.slow
def test_hexarena_check_prints_the_checklist_and_sets_the_exit_status():
    run = lambda folder: subprocess.run(
        [*HEXARENA, "check", str(folder), "--time", "300ms"],
        capture_output=True, text=True, cwd=ROOT, check=False, timeout=60)
    good, bad = run(BOTS / "greedy"), run(BROKEN / "one_game")
    assert good.returncode == 0, good.stdout + good.stderr
    assert good.stdout.count("PASS  ") == len(ITEMS) and "greedy: all checks passed" in good.stdout
    assert bad.returncode == 1
    assert "FAIL  several games on one connection  game 2: crashed: exited with status 0" in bad.stdout
    assert "one_game: 1 of 12 checks failed" in bad.stdout
    missing = run(BROKEN / "no_such_bot")
    assert missing.returncode == 2 and missing.stderr.startswith("hexarena: error: ")


@pytest.mark.slow
def test_a_bot_that_crashes_before_its_first_move_fails_the_time_item_and_check_keeps_logs(tmp_path: Path):
    from hexarena.referee.check import TIME_LIMIT, check_bot

    report = check_bot(ROOT / "tests" / "bots_broken" / "die", log_dir=tmp_path / "logs")
    assert not report.item(TIME_LIMIT).passed
    assert report.item(TIME_LIMIT).reason.startswith("no reply to judge against the limit of")
    assert sorted(tmp_path.glob("logs/check*.die.log")), "check --logs keeps each crafted game's log"
