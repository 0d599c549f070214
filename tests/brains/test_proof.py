"""The proof of the solver's reductions (bots/brains/proof.py): its plain search, and every rule in every position."""

from __future__ import annotations

import subprocess
import sys

import pytest
from helpers import ROOT, every_position, exhaustive

from hexarena.bots.brains.proof import available, plain_values, prove
from hexarena.bots.brains.solver import Solver
from hexarena.protocol.board import boards_with_few_free_lines, make_board
from hexarena.protocol.rules import Options, Rules

pytestmark = pytest.mark.skipif(not available(), reason="the C modules are not built (gcc, python3-dev)")

RULES = ("free captures", "chain rule", "border lines", "symmetries", "pieces of three", "search")


@pytest.mark.parametrize("misere", [False, True], ids=["normal", "misere"])
@pytest.mark.parametrize(("geometry", "size", "border"), [("hex", "1x3", False), ("square", "2x2", False)])
def test_the_retrograde_values_are_the_memoised_search_s(geometry, size, border, misere):
    """The plain search the proof trusts (bots/brains/_retrograde.c) against the tests' memoised negamax, in every
    position of two boards."""
    rules = Rules(make_board(size, geometry), Options(2, misere, border))
    value, _ = exhaustive(rules)
    values = plain_values(rules)
    assert len(values) == 2 ** (len(rules.board.lines) - (len(rules.board.border) if border else 0))
    for index, drawn in enumerate(every_position(rules)):
        assert int.from_bytes(values[index : index + 1], signed=True) == value(drawn)


@pytest.mark.parametrize("misere", [False, True], ids=["normal", "misere"])
def test_every_reduction_holds_in_every_position_of_every_board_of_up_to_18_free_lines(misere):
    """Every board (both geometries, 1-10 x 1-10, with and without border) of up to 18 free lines: each rule of the C
    search, and the whole search with transposition cutoffs at every node, against plain search in every position
    (benchmarks/prove_reductions.py goes on to 27; docs/solved.md has its figures)."""
    applied = dict.fromkeys(RULES, 0)
    boards = 0
    for board, border in boards_with_few_free_lines(18):
        report = prove(Rules(board, Options(2, misere, border)), search=True)
        boards += 1
        for rule, verdict in report.rules.items():
            assert verdict.wrong == 0, f"{rule} wrong on {board.geometry} {board.size} border={border}"
            applied[rule] += verdict.applied
        assert report.rules["search"].applied == report.positions
    assert boards == 73
    assert applied["free captures"] == applied["chain rule"] == 0 if misere else min(applied.values()) > 10_000
    assert applied["border lines"] > 10_000 and applied["pieces of three"] > 10_000


@pytest.mark.slow
@pytest.mark.parametrize("misere", [False, True], ids=["normal", "misere"])
def test_every_reduction_holds_in_every_position_of_hexagons_3x4_with_border(misere):
    """23 free lines (8.4 M positions), each rule (the whole search only up to 18 free lines: it takes 2-5 times
    longer): where misère's old double-dealing rule failed."""
    report = prove(Rules(make_board("3x4", "hex"), Options(2, misere, True)))
    assert report.value == -2 and report.positions == 2**23
    assert all(verdict.wrong == 0 for verdict in report.rules.values())
    assert report.rules["pieces of three"].applied > 700_000


def test_a_wrong_rule_is_found_with_the_position_it_fails_in():
    """Normal play's rules checked against misère's values: the proof names the rules that fail and a position where
    each does, and plain memoised search agrees that the claim fails there."""
    normal = Rules(make_board("2x4", "hex"), Options(2, False, True))
    misere = Rules(make_board("2x4", "hex"), Options(2, True, True))
    core = Solver(normal, etc_free=0).core
    rows = {
        rule: (applied, wrong, example)
        for rule, applied, wrong, example in core.prove(plain_values(misere), misere.predrawn, 0, False)
    }
    assert rows["free captures"][1] > 100 and rows["chain rule"][1] > 10
    assert rows["border lines"] == (0, 0, None) and rows["symmetries"][1] == 0
    value, _ = exhaustive(misere)
    example = rows["free captures"][2]
    after, gain = Solver(normal).take_free(example)
    assert value(example) != gain + value(after)  # what normal play's free captures claim, false in misère


def test_a_board_past_the_proof_s_reach_is_refused_in_one_line():
    with pytest.raises(ValueError, match="31 free lines: the proof enumerates boards of up to 30"):
        plain_values(Rules(make_board("1x6", "hex")))


def prove_script(max_free: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(ROOT / "benchmarks" / "prove_reductions.py"), "--max-free", max_free],
                          check=False, capture_output=True, text=True, timeout=120)


def test_the_proof_script_prints_its_rows_and_exits_0():
    done = prove_script("12")
    assert done.returncode == 0, done.stderr
    assert "| hex 1x2 | no | 11 | misère | 2,048 | -2 |" in done.stdout
    assert "(0 wrong), search" in done.stdout and "wrong)" not in done.stdout.replace("(0 wrong)", "")
    refused = prove_script("31")
    assert refused.returncode != 0 and "allowed 1-30" in refused.stderr and "Traceback" not in refused.stderr
