"""referee/build.py: a bot folder's build runs once per folder and process, whoever asks, and a hung one is stopped."""

from __future__ import annotations

import os
import threading
import time
from pathlib import Path

import pytest
from helpers import processes_with

from hexarena.protocol.errors import BotFault
from hexarena.referee.build import build
from hexarena.referee.errors import BuildFailed
from hexarena.referee.manifest import Manifest


def counting_bot(folder: Path, script: str = "echo built >> builds.txt; echo compiling") -> Manifest:
    """A bot folder whose build appends a line to builds.txt: the file counts the builds."""
    folder.mkdir()
    (folder / "build.sh").write_text(script + "\n")
    return Manifest(name="counted", command=["true"], build=["sh", "build.sh"])


def builds(folder: Path) -> int:
    path = folder / "builds.txt"
    return len(path.read_text().splitlines()) if path.exists() else 0


def test_two_threads_share_one_build_and_both_get_its_log(tmp_path):
    folder = tmp_path / "bot"
    manifest = counting_bot(folder, "sleep 0.3; echo built >> builds.txt; echo compiling")
    logs: list[str] = []
    threads = [threading.Thread(target=lambda: logs.append(build(folder, manifest))) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert logs == ["compiling\n", "compiling\n"]
    assert builds(folder) == 1
    # the same folder by another spelling of its path is the same build
    assert build(tmp_path / "." / "bot", manifest) == "compiling\n" and builds(folder) == 1


def test_a_failure_is_remembered_with_its_log(tmp_path):
    folder = tmp_path / "bot"
    manifest = counting_bot(folder, "echo built >> builds.txt; echo 'bot.c:1: error: expected declaration'; exit 2")
    for _ in range(2):
        with pytest.raises(BuildFailed) as failed:
            build(folder, manifest)
        assert isinstance(failed.value, BotFault) and failed.value.reason == "no_connection"
        assert failed.value.detail == "build 'sh build.sh' failed with exit status 2: bot.c:1: error: expected declaration"
        assert failed.value.log == "bot.c:1: error: expected declaration\n"
    assert builds(folder) == 1


def test_a_command_that_cannot_start_is_a_failure(tmp_path):
    manifest = Manifest(name="nothing", command=["true"], build=["./no-such-build-script"])
    with pytest.raises(BuildFailed, match=r"build command './no-such-build-script' cannot start: No such file"):
        build(tmp_path, manifest)


def test_no_build_command_is_nothing_to_do(tmp_path):
    assert build(tmp_path, Manifest(name="plain", command=["true"])) == ""


def test_a_hung_build_is_stopped_with_everything_it_started(tmp_path, monkeypatch):
    folder = tmp_path / "bot"
    monkeypatch.setenv("LEAGUE_TEST", str(folder))  # forwarded to the build: marks its processes
    # the background sleep keeps the output open (a daemon-ish child): only killing the group ends it
    manifest = counting_bot(folder, "echo started; sleep 30 & echo $! > child.pid; sleep 30")
    begun = time.monotonic()
    with pytest.raises(BuildFailed) as failed:
        build(folder, manifest, timeout=0.5)
    assert time.monotonic() - begun < 10
    assert failed.value.detail == "build 'sh build.sh' did not finish within 0.5 s"
    assert failed.value.log == "started\n"
    assert (folder / "child.pid").read_text().strip()  # the child did start
    for _ in range(100):  # killed; the init process reaps it
        if not processes_with("LEAGUE_TEST", str(folder)):
            break
        time.sleep(0.05)
    else:
        for pid in processes_with("LEAGUE_TEST", str(folder)):
            os.kill(pid, 9)
        pytest.fail("the build's background child outlived the timeout")


@pytest.mark.slow
def test_a_build_printing_without_end_costs_only_its_tail(tmp_path):
    """issue 31 item 3: a build printing 256 MiB (in the sandbox, a real process); the referee keeps its last
    4,000 characters and never holds the output whole (before: all of it, then cut)."""
    import tracemalloc

    folder = tmp_path / "bot"
    manifest = counting_bot(folder, "head -c 268435456 /dev/zero | tr '\\0' x; echo; echo the last line")
    tracemalloc.start()
    try:
        log = build(folder, manifest, timeout=120)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert log.endswith("x\nthe last line\n") and len(log) == 4000
    assert peak < 8 * 2**20, peak  # a few 64 KiB reads and the tail, not 256 MiB


@pytest.mark.slow
def test_a_build_that_prints_while_its_time_runs_out_is_stopped_at_the_bound(tmp_path):
    folder = tmp_path / "bot"
    manifest = counting_bot(folder, "while true; do echo still building; sleep 0.1; done")
    began = time.monotonic()
    with pytest.raises(BuildFailed) as failed:
        build(folder, manifest, timeout=1.5)
    assert "did not finish within 1.5 s" in str(failed.value) and "still building" in failed.value.log
    assert time.monotonic() - began < 30
