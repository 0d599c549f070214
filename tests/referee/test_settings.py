"""How a referee is made (referee/settings.py): one frozen value, the sandbox choice one of its fields;
one Limits (referee/limits.py); one observer helper (referee/observers.py)."""

from __future__ import annotations

import dataclasses
import logging
import os
import pickle
import resource
from pathlib import Path

import pytest
from helpers import FAST, ROOT, league_text, make_workspace

from hexarena.leagues.running.executors.dask_worker import WireJob
from hexarena.leagues.running.jobs import Job
from hexarena.leagues.running.runner import league_settings, run_league
from hexarena.leagues.schedule.config import parse_league
from hexarena.protocol.errors import ConfigError
from hexarena.referee import sandbox
from hexarena.referee.limits import NAMES, Limits
from hexarena.referee.manifest import Manifest
from hexarena.referee.observers import tell
from hexarena.referee.record import BoardConfig
from hexarena.referee.referee import Referee
from hexarena.referee.seats.process import BotSpec
from hexarena.referee.settings import RefereeSettings


def test_settings_are_frozen_picklable_and_hashable():
    settings = RefereeSettings(time_control=FAST, fault_policy="substitute", limits=Limits(memory_mb=512),
                               sandboxed=False, log_dir="logs")
    assert settings.log_dir == Path("logs")
    with pytest.raises(dataclasses.FrozenInstanceError):
        settings.sandboxed = True
    again = pickle.loads(pickle.dumps(settings))
    assert again == settings and hash(again) == hash(settings)
    assert {settings: 1}[again] == 1  # a Dask worker keeps one warm referee per distinct value
    assert RefereeSettings().sandboxed is True  # safe by default


def test_a_referee_is_made_from_one_value_and_its_fields_are_shorthand():
    with Referee(RefereeSettings(time_control=FAST, sandboxed=False)) as made, \
            Referee(time_control=FAST, sandboxed=False) as shorthand:
        assert made.settings == shorthand.settings
        assert made.time_control == FAST and made.fault_policy == "forfeit"
    with pytest.raises(ConfigError, match="fault policy 'nonsense' is not one of"):
        Referee(fault_policy="nonsense")


def test_a_league_file_gives_its_settings(tmp_path):
    ws = make_workspace(tmp_path / "home")
    try:
        league = parse_league(league_text("open", fault_policy="substitute", sandbox=False))
        settings = league_settings(ws, league)
        assert (settings.time_control, settings.fault_policy, settings.sandboxed) == (
            league.time_control, "substitute", False)
        assert settings.log_dir == ws.logs_dir / "open"
        assert league_settings(ws, league, sandboxed=True).sandboxed  # the server's, whatever the file says
    finally:
        ws.close()


def test_one_limits_owns_the_names_the_rlimits_and_the_prlimit_arguments():
    assert NAMES == ("memory_mb", "cpu_seconds", "processes", "open_files", "file_mb", "tmp_mb")
    assert Manifest(name="a", command=["x"], limits=dict.fromkeys(NAMES, 1)).limits == dict.fromkeys(NAMES, 1)
    with pytest.raises(ValueError):
        Manifest(name="a", command=["x"], limits={"log_bytes": 1})  # the referee's own, not a bot's
    lowered = Limits().within({"memory_mb": 100, "cpu_seconds": 5, "open_files": 1000})
    assert (lowered.memory_mb, lowered.cpu_seconds, lowered.open_files) == (100, 5, 64)  # never raised
    assert lowered.prlimit_args() == ["prlimit", "--core=0", f"--as={100 * 2**20}", "--nproc=32", "--nofile=64",
                                      "--cpu=5", f"--fsize={256 * 2**20}"]
    kinds = dict(lowered.rlimits(confined=False))
    assert resource.RLIMIT_NPROC not in kinds and kinds[resource.RLIMIT_AS] == 100 * 2**20
    assert kinds[resource.RLIMIT_CORE] == 0
    assert dict(lowered.rlimits())[resource.RLIMIT_NPROC] == 32
    assert Limits.none().prlimit_args() == ["prlimit", "--core=0"] and Limits().tmp_bytes == 64 * 2**20


class Broken:
    def moved(self, *args):
        raise RuntimeError("observer bug")


class Fine:
    def moved(self, *args):
        pass


def test_an_observers_failure_is_logged_and_never_raised(caplog):
    logger = logging.getLogger("hexarena.test.observers")
    with caplog.at_level(logging.ERROR, logger="hexarena.test.observers"):
        assert tell(Broken(), "moved", "g1", 0, what="game g1", then="the game plays on", logger=logger) is True
        assert tell(Broken(), "moved", "g1", 1, logger=logger, quiet=True) is True  # logged once already
        assert tell(object(), "started") is True  # no such method: the same
        assert tell(Fine(), "moved", "g1", 2, logger=logger) is False
    lines = [r.getMessage() for r in caplog.records if r.name == "hexarena.test.observers"]
    assert lines == ["game g1: the observer failed on 'moved' (the game plays on)"]


def test_a_wire_job_keeps_each_seats_exact_version():
    job = Job("g1", BoardConfig(size="2x2"), (BotSpec("a", Path("/x/a"), version="a@1234567890"),
                                              BotSpec("b", Path("/x/b"))), seed=3, opening=(1,))
    wire = WireJob.of(job, {Path("/x/a"): "hash-a", Path("/x/b"): "hash-b"})
    assert "/x/" not in repr(wire)  # no paths of the driver's machine travel
    back = wire.job({"hash-a": Path("/w/a"), "hash-b": Path("/w/b")})
    assert [(s.name, s.folder, s.version) for s in back.seats] == [("a", Path("/w/a"), "a@1234567890"),
                                                                   ("b", Path("/w/b"), "")]
    assert (back.id, back.config, back.seed, back.opening) == (job.id, job.config, job.seed, job.opening)


MARKING_BOT = '''import os, sys
from hexarena.protocol.client import run_bot

try:  # outside its folder: only an unconfined bot can write there
    with open(os.path.join(os.environ["LEAGUE_TEST"], f"ran-{os.getpid()}"), "w") as marker:
        marker.write(str(os.getuid()))
except OSError:
    pass
run_bot(lambda game, state: game.rng.choice(state.legal_moves()))
'''


def marks_of_a_league_run(tmp_path: Path, monkeypatch, name: str, sandbox_line: bool) -> list[Path]:
    marks = tmp_path / f"marks-{name}"
    marks.mkdir()
    monkeypatch.setenv("LEAGUE_TEST", str(marks))  # forwarded to the bots (conftest's HEXARENA_PASS_ENV)
    bot = tmp_path / f"marking-{name}"
    bot.mkdir()
    (bot / "bot.toml").write_text(f'name = "marking-{name}"\ncommand = ["python3", "bot.py"]\n')
    (bot / "bot.py").write_text(MARKING_BOT)
    fields = {"sandbox": False} if sandbox_line else {}
    league = parse_league(league_text(name, participants=("random", str(bot)), boards=(("1x2", "hex"),), **fields))
    ws = make_workspace(tmp_path / f"home-{name}")
    try:
        summary = run_league(ws, league, concurrency=2, progress=False)  # two worker processes
    finally:
        ws.close()
    assert summary.played == summary.total == 2
    return sorted(marks.iterdir())


@pytest.mark.slow
def test_a_league_with_sandbox_false_plays_unconfined_in_worker_processes(tmp_path, monkeypatch):
    marks = marks_of_a_league_run(tmp_path, monkeypatch, "open", sandbox_line=True)
    assert marks and {mark.read_text() for mark in marks} == {str(os.getuid())}  # no global flipped anywhere
    if sandbox.path() is None:
        pytest.skip("no sandbox on this machine: the sandboxed half needs bubblewrap (Debian: bubblewrap) or user namespaces")
    assert marks_of_a_league_run(tmp_path, monkeypatch, "closed", sandbox_line=False) == []  # the default: confined


def test_the_check_runs_the_reference_bot_unconfined_when_asked():
    from hexarena.referee.check import CHECK_SETTINGS, check_bot

    report = check_bot(ROOT / "bots" / "random", dataclasses.replace(CHECK_SETTINGS, sandboxed=False))
    assert report.passed, report.to_text()
