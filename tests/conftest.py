"""Shared fixtures: bot specs for the reference and broken test bots, and referees that always close."""

from __future__ import annotations

import subprocess
import time
from pathlib import Path

import pytest
from hypothesis import settings

from hexarena.referee.clock import TimeControl
from hexarena.referee.seats.process import BotSpec
from hexarena.referee.referee import Referee

# `pytest --hypothesis-profile=long`: the fuzz campaign (tests/test_fuzz.py) and every property test, 20x longer
settings.register_profile("long", max_examples=2000)

ROOT = Path(__file__).resolve().parent.parent
BOTS = ROOT / "bots"
TEST_BOTS = Path(__file__).resolve().parent / "bots"
SHARED = ("bots", "bots_broken", "hostile")
FAST = TimeControl.parse("1s,startup=10s")  # generous: CI machines are shared and noisy


def bot(name: str) -> BotSpec:
    """A reference bot (``bots/NAME``) or a broken test bot (``tests/bots/NAME``)."""
    folder = BOTS / name if (BOTS / name).is_dir() else TEST_BOTS / name
    return BotSpec(name, folder)


def processes_with(variable: str, value: str, command: str = "") -> list[int]:
    """Pids of the live processes whose environment has ``variable=value`` (a test's marker, forwarded to its bots:
    in the sandbox a bot's own pids are its pid namespace's, meaningless outside) and whose command line has
    ``command``."""
    found = []
    for proc in Path("/proc").iterdir():
        try:
            if proc.name.isdigit() and f"{variable}={value}".encode() in (proc / "environ").read_bytes().split(b"\0") \
                    and command.encode() in (proc / "cmdline").read_bytes() \
                    and (proc / "stat").read_bytes().rsplit(b")", 1)[1].split()[0] != b"Z":
                found.append(int(proc.name))
        except (OSError, IndexError):
            pass
    return found


def wait_until(condition, seconds: float) -> None:
    deadline = time.monotonic() + seconds
    while not condition() and time.monotonic() < deadline:
        time.sleep(0.05)


def wait_for(condition, seconds: float, what: str, every: float = 0.05):
    """``condition()``'s first true value within ``seconds``; AssertionError naming ``what`` if none comes."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        value = condition()
        if value:
            return value
        time.sleep(every)
    raise AssertionError(f"not within {seconds} s: {what}")


def survivors_of_a_killed(process: subprocess.Popen, variable: str, value: str) -> list[int]:
    """SIGKILL ``process`` (no cleanup code of it runs); the marked processes still alive 5 s later."""
    process.kill()
    process.wait()
    wait_until(lambda: not processes_with(variable, value), 5)
    return processes_with(variable, value)


@pytest.fixture(autouse=True)
def forward_test_bot_variables(monkeypatch):
    """Bots inherit only an allowlist of the referee's environment: forward the test bots' own knobs."""
    monkeypatch.setenv("HEXARENA_PASS_ENV", "BROKEN_MARKER,BROKEN_PIDS,LEAGUE_TEST")
    # the test bots run a script of their parent folder (``../broken.py``): share those folders with the sandbox
    monkeypatch.setenv("HEXARENA_SANDBOX_SHARE", ":".join(str(TEST_BOTS.parent / name) for name in SHARED))


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
