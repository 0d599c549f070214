"""One bot's memory and CPU as a whole (referee/watchdog.py, referee/usage.py): every process of its sandbox
counted together, the limit named in the fault, the sandbox gone at once; CPU time per move in the record."""

from __future__ import annotations

import re
import time
from pathlib import Path

import pytest
from helpers import BOTS, processes_with, wait_until

from hexarena.referee.clock import TimeControl
from hexarena.referee.launch import Limits
from hexarena.referee.record import BoardConfig
from hexarena.referee.seats.process import BotSpec

HOSTILE = Path(__file__).resolve().parents[1] / "hostile"
RANDOM = BotSpec("random", BOTS / "random")
ROOMY = TimeControl.parse("20s,startup=20s")  # the memory fault must come first, however loaded the machine


@pytest.mark.slow
def test_eight_children_of_1_gib_each_end_with_the_memory_fault_under_a_2_gib_whole_bot_limit(
        make_referee, monkeypatch, tmp_path, sandbox_path):
    marker = str(tmp_path / "marker")
    monkeypatch.setenv("BROKEN_PIDS", marker)
    monkeypatch.setenv("HOSTILE_MB", "1024")
    monkeypatch.setenv("HEXARENA_PASS_ENV", "BROKEN_PIDS,HOSTILE_MB")
    referee = make_referee(limits=Limits(memory_mb=2048), time_control=ROOMY)
    started = time.monotonic()
    record = referee.play([BotSpec("memory_tree", HOSTILE / "memory_tree"), RANDOM], BoardConfig(size="2x2"),
                          game_id="memory", seed=1)
    assert (record.result.termination, record.result.offender) == ("crashed", 0)
    detail = record.result.forfeits[0].detail
    assert detail.startswith("memory limit: the bot's processes together held ")
    assert detail.endswith("over its limit of 2048 MiB (the whole bot)")
    held = int(re.search(r"held (\d+) MiB", detail).group(1))
    overshoot = held - 2048
    print(f"\n[{sandbox_path}] killed at {held} MiB: {overshoot} MiB past the 2048 MiB limit, "
          f"{time.monotonic() - started:.1f} s into the game")
    assert 0 <= overshoot < 1024  # less than one child's share: stopped at the first look past the limit
    assert "hostile memory_tree:" not in (tmp_path / "logs" / "memory.seat0.memory_tree.log").read_text()
    # every child dies with the sandbox (a second on an idle machine; a loaded one takes longer to free 2 GiB)
    def left() -> list[int]:  # the bot and its children (the opponent carries the marker too, and plays on)
        return processes_with("BROKEN_PIDS", marker, "memory_tree") + processes_with("BROKEN_PIDS", marker, "2**20")

    wait_until(lambda: left() == [], 10)
    assert left() == []


def test_cpu_time_per_move_is_recorded_beside_the_think_time(make_referee, sandbox_path):
    record = make_referee().play([bot_spec("greedy"), RANDOM], BoardConfig(size="2x2"), game_id="cpu", seed=2)
    assert record.result.termination == "completed"
    assert all(move.cpu_ms is not None and 0 <= move.cpu_ms for move in record.moves)
    assert all(move.cpu_ms <= move.ms + 50 for move in record.moves)  # one thread thinks: no more CPU than wall
    assert record.lag_ms is not None and record.lag_ms >= 0


def bot_spec(name: str) -> BotSpec:
    return BotSpec(name, BOTS / name)
