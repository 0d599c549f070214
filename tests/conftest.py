"""Shared fixtures: bot specs for the reference and broken test bots, and referees that always close."""

from __future__ import annotations

from pathlib import Path

import pytest

from referee.clock import TimeControl
from referee.local import BotSpec
from referee.referee import Referee

ROOT = Path(__file__).resolve().parent.parent
BOTS = ROOT / "bots"
TEST_BOTS = Path(__file__).resolve().parent / "bots"
FAST = TimeControl.parse("1s,startup=10s")  # generous: CI machines are shared and noisy


def bot(name: str) -> BotSpec:
    """A reference bot (``bots/NAME``) or a broken test bot (``tests/bots/NAME``)."""
    folder = BOTS / name if (BOTS / name).is_dir() else TEST_BOTS / name
    return BotSpec(name, folder)


@pytest.fixture(autouse=True)
def forward_test_bot_variables(monkeypatch):
    """Bots inherit only an allowlist of the referee's environment: forward the test bots' own knobs."""
    monkeypatch.setenv("HEXARENA_PASS_ENV", "BROKEN_MARKER,BROKEN_PIDS,LEAGUE_TEST")


@pytest.fixture
def make_referee(tmp_path):
    """``make_referee(**kwargs)`` → a Referee logging under tmp_path, with tiny time limits; closed after the test."""
    referees = []

    def make(**kwargs) -> Referee:
        kwargs.setdefault("log_dir", tmp_path / "logs")
        kwargs.setdefault("time_control", FAST)
        kwargs.setdefault("stop_grace", 0.5)
        referee = Referee(**kwargs)
        referees.append(referee)
        return referee

    yield make
    for referee in referees:
        referee.close()
