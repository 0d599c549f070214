"""The solver's retrograde pass (bots/brains/retrograde.py) against the search, plain search and the CLI."""

from __future__ import annotations

import json
import random
import signal
import subprocess
import sys
import time

import pytest
from helpers import Terminal, exhaustive

from hexarena.bots.brains import proof, retrograde
from hexarena.bots.brains.solver import Solver
from hexarena.protocol.board import make_board
from hexarena.protocol.rules import Options, Rules

pytestmark = pytest.mark.skipif(not retrograde.available(), reason="the C extensions are not built")

CLI = [sys.executable, "-m", "hexarena", "solve"]


def random_position(rules: Rules, rng: random.Random, lines: int):
    state = rules.start()
    for _ in range(lines):
        if state.is_over():
            break
        state = state.apply(rng.choice(state.legal_moves())).state
    return state


@pytest.mark.parametrize("misere", [False, True], ids=["normal", "misere"])
@pytest.mark.parametrize(("geometry", "size", "border"), [
    ("hex", "2x3", False), ("hex", "3x2", True), ("hex", "1x4", False), ("square", "3x3", False),
    ("square", "2x4", True), ("hex", "3x3", False)])
def test_the_pass_gives_the_search_s_value_and_best_lines(geometry, size, border, misere):
    """From the start and from positions part-played (cells taken, the mover to move again or not), on boards with
    border lines (counted per cell, not told apart) and without."""
    rules = Rules(make_board(size, geometry), Options(2, misere, border))
    rng = random.Random(f"{geometry}{size}{border}{misere}")
    solver = Solver(rules)
    first = 20 if (geometry, size, border) == ("hex", "3x3", False) else 0  # 38 lines: a few free ones only
    for trial in range(6):
        state = random_position(rules, rng, max(first, 0 if trial == 0 else rng.randrange(len(rules.start().legal_moves()))))
        if state.is_over():
            continue
        by_search, by_pass = solver.solve(state), retrograde.solve(state)
        assert (by_pass.value, by_pass.future, by_pass.best) == (by_search.value, by_search.future, by_search.best)
        assert by_pass.nodes == retrograde.Plan.of(state).positions


@pytest.mark.parametrize("misere", [False, True], ids=["normal", "misere"])
def test_the_pass_gives_plain_search_s_value_in_every_first_position(misere):
    """Hexagons 1x3 (16 lines, 14 of them border lines): after each first line, the pass's value is plain search's
    (``helpers.exhaustive``), and the proof's plain pass over every subset of the free lines agrees at the start."""
    rules = Rules(make_board("1x3"), Options(2, misere, False))
    value, _ = exhaustive(rules)
    sign = -1 if misere else 1
    for line in range(len(rules.board.lines)):
        after = rules.start().apply(line).state  # the same mover again where the line took a cell
        assert retrograde.solve(after).future == value(1 << line) * sign
    start = int.from_bytes(proof.plain_values(rules)[:1], "little", signed=True)
    assert retrograde.solve(rules.start()).future == start * sign


def test_the_positions_are_the_internal_subsets_times_each_cell_s_border_counts_and_a_ring_of_them_is_kept():
    Plan = retrograde.Plan
    hexagons = Plan.of(Rules(make_board("3x3"), Options()).start())  # 16 internal lines, 22 border lines on 8 cells
    assert (len(hexagons.internal), sum(len(border) for _, border in hexagons.cells)) == (16, 22)
    assert hexagons.positions == 1_887_436_800
    assert hexagons.bytes == 5_761 << 16  # the ring: the last cell's radix (2 * 3 * 3 * 4 * 4 * 4 * 5) + 1 blocks
    bordered = Rules(make_board("4x4"), Options(2, True, True))  # its 33 free lines are all internal
    assert Plan.of(bordered.start()).positions == 2**33
    assert Plan.of(bordered.replay(bordered.start().legal_moves()[:2])).positions == 2**31


def test_a_finished_game_is_its_score():
    rules = Rules(make_board("1x2"), Options(2, True, False))
    state = rules.replay(list(range(len(rules.board.lines))))
    solution = retrograde.solve(state)
    assert (solution.value, solution.best) == (state.scores[0] - state.scores[1], ())


def test_what_watch_raises_stops_the_pass():
    """``watch`` is called every ``WATCH_EVERY`` positions with the count done (set to 2**20 here), and what it
    raises ends the pass there."""
    rules = Rules(make_board("3x3", "square"), Options(2, True, False))  # 5.3 M positions
    seen = []

    class Enough(Exception):
        pass

    def watch(done: int) -> None:
        seen.append(done)
        if len(seen) == 2:
            raise Enough

    old, retrograde.WATCH_EVERY = retrograde.WATCH_EVERY, 1 << 20
    try:
        with pytest.raises(Enough):
            retrograde.solve(rules.start(), watch)
    finally:
        retrograde.WATCH_EVERY = old
    assert seen == [1 << 20, 2 << 20]


def run(*args: str, timeout: float = 120) -> subprocess.CompletedProcess:
    return subprocess.run([*CLI, *args], capture_output=True, text=True, timeout=timeout, check=False)


@pytest.mark.slow
def test_misere_is_solved_by_the_pass_and_normal_play_by_the_search():
    by_pass = json.loads(run("2x3", "--misere", "--json").stdout)
    by_search = json.loads(run("2x3", "--misere", "--method", "search", "--json").stdout)
    assert (by_pass["method"], by_search["method"]) == ("retrograde", "search")
    assert (by_pass["value"], by_pass["best"]) == (by_search["value"], by_search["best"]) == (-2, by_pass["best"])
    assert by_pass["nodes"] == by_pass["table_entries"] == 1_843_200  # its positions
    normal = json.loads(run("2x3", "--json").stdout)
    forced = json.loads(run("2x3", "--method", "retrograde", "--json").stdout)
    assert (normal["method"], forced["method"]) == ("search", "retrograde")
    assert (normal["value"], normal["best"]) == (forced["value"], forced["best"])
    text = run("3x3", "--geometry", "square", "--misere").stdout.splitlines()
    assert text[1:3] == ["value (seat 0's final margin): +1",
                         "best lines: 0, 1, 2, 4, 6, 8, 9, 10, 12, 13, 15, 16, 20, 21, 22, 23"]
    assert text[-1] == "5308416 positions in " + text[-1].split(" positions in ")[1] and text[-1].endswith("(retrograde)")


@pytest.mark.parametrize(("args", "status", "message"), [
    (["2x2", "--method", "bogus"], 2, "'bogus' is not one of auto, search, retrograde"),
    (["2x2", "--misere", "--method", "retrograde", "--checkpoint", "{tmp}/c.ckpt"], 2,
     "a retrograde pass is not resumable: --checkpoint needs --method search or auto"),
    (["3x3", "--misere", "--method", "retrograde", "--memory", "16"], 1,
     ("--method retrograde needs 361 MiB (one byte a position, of the last blocks of its 1,887,436,800), more than "
      "16 MiB (--memory); give --memory 361 or more, or --method search")),
    (["3x4", "--misere", "--method", "retrograde"], 1,
     "--method retrograde takes at most 2**40 positions, this one has 2,174,327,193,600; give --method search"),
])
def test_a_pass_that_cannot_be_made_is_one_line(args, status, message, tmp_path):
    done = run(*[arg.replace("{tmp}", str(tmp_path)) for arg in args])
    assert (done.returncode, done.stdout) == (status, "")
    assert done.stderr.count("\n") == 1 and message in done.stderr and "Traceback" not in done.stderr
    assert not (tmp_path / "c.ckpt").exists()


def test_a_misere_solve_with_a_checkpoint_is_the_resumable_search(tmp_path):
    done = json.loads(run("2x3", "--misere", "--checkpoint", str(tmp_path / "c.ckpt"), "--json").stdout)
    assert done["method"] == "search" and (tmp_path / "c.ckpt").exists()


@pytest.mark.slow
def test_a_pass_shows_its_progress_and_gives_up_at_its_timeout():
    """Squares 3x4, misère: 679 M positions, a minute or more: stopped at 7 s, after a progress line (one every 5 s
    off a terminal)."""
    began = time.monotonic()
    done = run("3x4", "--geometry", "square", "--misere", "--timeout", "7", "--progress")
    assert time.monotonic() - began < 60
    assert done.returncode == 1 and done.stdout == ""
    lines = done.stderr.splitlines()
    assert lines[-1] == "hexarena: error: not solved within 7 s"
    assert lines[:-1] and all(" of 679.48 M positions (" in line and "positions/s" in line for line in lines[:-1])


@pytest.mark.slow
@pytest.mark.parametrize(("signum", "status"), [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_a_pass_stops_at_ctrl_c_or_sigterm_in_one_line(signum, status):
    """At a terminal (a progress line by default, rewritten every second from 2 s): stopped once it shows."""
    with Terminal([*CLI, "3x4", "--geometry", "square", "--misere"]) as terminal:
        terminal.wait_for(" positions/s")  # its first progress line: the pass is under way
        terminal.process.send_signal(signum)
        returncode, out, lines = terminal.finish(60)
    assert (returncode, out, lines[-1]) == (status, "", "hexarena: error: interrupted")
    assert lines[:-1] and all(" of 679.48 M positions (" in line for line in lines[:-1]), lines
