"""The solver against plain exhaustive search, and against published Dots and Boxes values."""

from __future__ import annotations

import json
import random
import subprocess
import sys
import time
from functools import cache
from pathlib import Path

import pytest
from helpers import can_build_c_extensions, every_position, exhaustive, needs_c_search

from hexarena.bots.brains.solver import Solver, compiled, solve, symmetries
from hexarena.bots.errors import SolverTimeout
from hexarena.protocol.board import boards_with_few_free_lines, make_board
from hexarena.protocol.rules import Options, Rules, State

ROOT = Path(__file__).resolve().parents[2]


@cache
def exhaustive_for(geometry: str, size: str, misere: bool, border: bool):
    """``exhaustive`` of a board, kept for the tests that enumerate the same board."""
    return exhaustive(Rules(make_board(size, geometry), Options(2, misere, border)))


def small_boards(max_free: int = 16):
    """Every board (sizes 1-10 × 1-10, with or without border) with 1 to ``max_free`` free lines."""
    for board, border in boards_with_few_free_lines(max_free):
        name = f"{board.geometry}-{board.size}{'-border' if border else ''}"
        yield pytest.param(board.geometry, board.rows, board.cols, border, id=name)


@pytest.mark.parametrize("misere", [False, True], ids=["normal", "misere"])
@pytest.mark.parametrize(("geometry", "rows", "cols", "border"), list(small_boards()))
def test_solver_equals_exhaustive_search(geometry, rows, cols, border, misere):
    rules = Rules(make_board((rows, cols), geometry), Options(2, misere, border))
    value, move_value = exhaustive(rules)
    start = rules.start()
    sign = -1 if misere else 1
    solution = solve(start)
    assert solution.value == sign * value(start.drawn)
    # best moves are exactly those that keep the value: none loses to any reply
    expected = value(start.drawn)
    assert solution.best == tuple(line for line in start.legal_moves() if move_value(start.drawn, line) == expected)


@pytest.mark.parametrize(
    ("geometry", "size", "border", "misere"),
    [
        ("hex", "1x3", False, False),
        ("hex", "3x1", False, True),
        ("square", "2x2", False, False),
        ("square", "2x2", False, True),
        ("hex", "3x3", True, False),
        ("square", "2x6", True, False),
    ],
)
def test_solver_equals_exhaustive_search_in_mid_game(geometry, size, border, misere):
    """Random positions, cells already taken: the value adds the scores to the future."""
    rules = Rules(make_board(size, geometry), Options(2, misere, border))
    value, _ = exhaustive(rules)
    sign = -1 if misere else 1
    solver = Solver(rules)
    rng = random.Random(8)
    for _ in range(40):
        state = rules.start()
        for _ in range(rng.randrange(len(state.legal_moves()))):
            state = state.apply(rng.choice(state.legal_moves())).state
        future = sign * value(state.drawn)
        solution = solver.solve(state)
        assert solution.future == future
        mover_margin = future if state.to_move == 0 else -future
        assert solution.value == state.scores[0] - state.scores[1] + mover_margin


ENUMERATED = [
    ("hex", "1x3", False),
    ("square", "2x2", False),
    ("hex", "3x3", True),
    ("hex", "2x4", True),
    ("square", "3x3", True),
    ("square", "2x6", True),
]


def chain_moves_hold(rules: Rules, value, move_value) -> int:
    """Check that ``Solver.chain_moves`` holds a best move wherever it answers in every position of ``rules``;
    how many positions it answered in."""
    solver = Solver(rules)
    applied = 0
    for drawn in every_position(rules):
        moves = solver.chain_moves(drawn)
        if moves is not None:
            applied += 1
            assert value(drawn) == max(move_value(drawn, line) for line in moves)
    return applied


@pytest.mark.parametrize(("geometry", "size", "border"), ENUMERATED)
def test_free_captures_are_optimal_in_every_position(geometry, size, border):
    """Proof by enumeration of the free-capture rule: taking those cells never costs."""
    rules = Rules(make_board(size, geometry), Options(2, False, border))
    value, _ = exhaustive_for(geometry, size, False, border)
    solver = Solver(rules)
    applied = 0
    for drawn in every_position(rules):
        after, gain = solver.take_free(drawn)
        if after != drawn:
            applied += 1
            assert value(drawn) == gain + value(after)
    assert applied > 1000


@pytest.mark.parametrize(("geometry", "size", "border"), ENUMERATED)
def test_chain_moves_contain_a_best_move_in_every_position(geometry, size, border):
    """Proof by enumeration of the chain rules (normal play): take a chain, or double-deal at its last two cells."""
    rules = Rules(make_board(size, geometry), Options(2, False, border))
    assert chain_moves_hold(rules, *exhaustive_for(geometry, size, False, border)) > 50


def test_the_normal_play_rules_fail_in_misere():
    """Why misère has no capture or chain rule: free captures and taking long chains lose value in positions of
    hexagons 2x4 with border, double-dealing in 20 of square 2x3."""
    rules = Rules(make_board("2x4", "hex"), Options(2, True, True))
    value, move_value = exhaustive_for("hex", "2x4", True, True)
    normal = Solver(Rules(make_board("2x4", "hex"), Options(2, False, True)))
    wrong_free = wrong_chain = 0
    for drawn in every_position(rules):
        after, gain = normal.take_free(drawn)
        wrong_free += after != drawn and value(drawn) != -gain + value(after)
        moves = normal.chain_moves(drawn)
        wrong_chain += moves is not None and len(moves) == 1 and value(drawn) != move_value(drawn, moves[0])
    assert wrong_free > 1000 and wrong_chain > 100
    rules = Rules(make_board("2x3", "square"), Options(2, True))
    value, move_value = exhaustive_for("square", "2x3", True, False)
    normal = Solver(Rules(make_board("2x3", "square")))
    wrong_pair = 0
    for drawn in every_position(rules):
        moves = normal.chain_moves(drawn)
        if moves is not None and len(moves) == 2:
            wrong_pair += value(drawn) != max(move_value(drawn, line) for line in moves)
    assert wrong_pair == 20


def test_double_dealing_with_no_safe_line_left_fails_in_misere_on_hexagons_3x4_with_border():
    """The misère rule the solver had until the proof over 27 free lines found it wrong: the only cell on offer
    starts a chain of two and every other line offers a cell, yet a sacrifice that offers another chain of two
    (line 38) is worth more than taking or double-dealing (lines 9, 10)."""
    rules = Rules(make_board("3x4", "hex"), Options(2, True, True))
    drawn = 561968786829823
    free = [line for line in range(len(rules.board.lines)) if not drawn >> line & 1]
    normal = Solver(Rules(make_board("3x4", "hex"), Options(2, False, True)))
    assert len(free) == 14 and normal.chain_moves(drawn) == (9, 10)
    no_safe_line = all(
        any((rest := mask & ~(drawn | 1 << line)) and not rest & (rest - 1) for _, mask in rules.touches[line])
        for line in free
        if line not in (9, 10)
    )
    assert no_safe_line
    value, move_value = exhaustive(rules)
    assert (move_value(drawn, 9), move_value(drawn, 10), move_value(drawn, 38), value(drawn)) == (-2, -2, 0, 0)


def odd_loop_on_offer(rules: Rules, drawn: int) -> int:
    """Three hexagons around one dot whose only free lines are the three between them, one of those drawn."""
    owners = rules.board.line_cells()
    for dot in range(len(rules.board.dots)):
        lines = [i for i, (a, b) in enumerate(rules.board.lines) if dot in (a, b)]
        cells = {cell for line in lines for cell in owners[line]}
        if len(lines) != 3 or len(cells) != 3 or any(len(owners[line]) != 2 for line in lines):
            continue
        loop = sum(1 << line for line in lines)
        free_outside = any(rules.cell_masks[cell] & ~drawn & ~loop for cell in cells)
        if not free_outside and (drawn & loop).bit_count() == 1:
            return loop
    return 0


@pytest.mark.slow
@pytest.mark.parametrize("misere", [False, True], ids=["normal", "misere"])
def test_an_opened_odd_loop_is_taken_in_normal_play_and_searched_in_misere(misere):
    """A loop of three hexagons (pairwise adjacent around one dot) opened by one line: normal play takes it (no line
    of it declines: ``chain_moves`` forces its first cell, the free captures take the other two), at its value;
    misère forces nothing there, and its two lines are worth the same. Every such position of hexagons 3x3 with border, against plain search (``Solver.triple``
    finds it; bots/brains/proof.py proves the C rule on every board of up to 27 free lines)."""
    rules = Rules(make_board("3x3", "hex"), Options(2, misere, True))
    value, move_value = exhaustive_for("hex", "3x3", misere, True)
    solver = Solver(rules)
    found = 0
    for drawn in every_position(rules):
        loop = odd_loop_on_offer(rules, drawn)
        if loop:
            found += 1
            first, second = [line for line in range(len(rules.board.lines)) if (loop & ~drawn) >> line & 1]
            assert solver.triple(drawn, first) == second or solver.triple(drawn, second) == first
            assert move_value(drawn, first) == move_value(drawn, second)
            if not misere:  # a line is forced (the loop's, or another chain's met first), and it keeps the value
                forced = solver.chain_moves(drawn)
                assert forced is not None and value(drawn) == max(move_value(drawn, line) for line in forced)
    assert found > 200
    assert solver.free_captures is not misere  # misère's search takes nothing at once and forces no line


@pytest.mark.parametrize("in_c", [True, False], ids=["c", "python"])
@pytest.mark.parametrize("misere", [False, True], ids=["normal", "misere"])
@pytest.mark.parametrize(
    ("geometry", "size", "border"), [("hex", "1x3", False), pytest.param("hex", "3x3", True, marks=pytest.mark.slow)]
)
def test_transposition_cutoffs_keep_every_position_exact(geometry, size, border, misere, in_c):
    """Enhanced transposition cutoffs at every node (``etc_free=0``), one table kept over the whole board: the
    value of every position (every subset of the free lines) is plain search's, and the cutoffs did cut."""
    if in_c and not compiled():
        pytest.skip("the C search is not built (Debian package: gcc, python3-dev)")
    rules = Rules(make_board(size, geometry), Options(2, misere, border))
    value, _ = exhaustive_for(geometry, size, misere, border)
    sign = -1 if misere else 1
    with_cuts = Solver(rules, compiled=in_c, etc_free=0)
    without = Solver(rules, compiled=in_c, etc_free=99)
    positions = list(every_position(rules))
    if not in_c:  # the pure-Python search is 30 times slower: every 7th position
        positions = positions[::7]
    nodes = {True: 0, False: 0}
    for drawn in reversed(positions):  # the full board first: the table fills from the end of the game
        state = State(rules, drawn, (0, 0), 0, 0)
        for cuts, solver in ((True, with_cuts), (False, without)):
            solution = solver.solve(state, lines=False)
            assert solution.future == sign * value(drawn)
            nodes[cuts] += solution.nodes
    assert nodes[True] < nodes[False]


@pytest.mark.parametrize("misere", [False, True])
@pytest.mark.parametrize(("geometry", "size", "border"), ENUMERATED[:2])
def test_border_lines_of_a_cell_are_interchangeable(geometry, size, border, misere):
    rules = Rules(make_board(size, geometry), Options(2, misere, border))
    value, _ = exhaustive_for(geometry, size, misere, border)
    solver = Solver(rules)
    for drawn in every_position(rules):
        assert value(drawn) == value(solver.canonical(drawn))


@pytest.mark.parametrize("misere", [False, True])
def test_reductions_do_not_change_values(misere):
    rules = Rules(make_board("2x2", "hex"), Options(2, misere))
    plain = Solver(rules, use_symmetry=False, chain_rules=False).solve(rules.start())
    full = Solver(rules).solve(rules.start())
    assert (full.value, full.best) == (plain.value, plain.best)
    assert full.nodes < plain.nodes


def test_square_1x1_second_player_wins_1_0():
    rules = Rules(make_board("1x1", "square"))
    assert solve(rules.start()).value == -1


def test_square_2x2_first_player_wins_3_1():
    rules = Rules(make_board("2x2", "square"))
    assert solve(rules.start()).value == 2


def test_square_3x3_second_player_wins_6_3():
    """Barker & Korf (2012): 3×3 boxes is a second-player win by 3 (about 4 s here)."""
    rules = Rules(make_board("3x3", "square"))
    assert solve(rules.start()).value == -3


@pytest.mark.parametrize(
    ("geometry", "size", "count"),
    [
        ("square", "3x3", 8),
        ("square", "2x3", 4),
        ("hex", "2x3", 2),
        ("hex", "3x2", 2),
        ("hex", "1x3", 2),
        ("hex", "3x3", 2),
    ],
)
def test_symmetries_are_automorphisms(geometry, size, count):
    rules = Rules(make_board(size, geometry))
    owners = rules.board.line_cells()
    perms = symmetries(rules)
    assert len(perms) == count
    assert perms[0] == tuple(range(len(rules.board.lines)))
    for perm in perms:
        assert sorted(perm) == list(range(len(perm)))
        for line, cells in enumerate(owners):
            assert len(owners[perm[line]]) == len(cells)


def test_deadline_stops_the_search():
    """Hexagons 3x3 takes about a minute: a deadline 50 ms away stops it, whichever search runs (square 3x3, in
    60 ms since stop 41, could finish first on an idle machine)."""
    rules = Rules(make_board("3x3"))
    started = time.monotonic()
    with pytest.raises(SolverTimeout):
        solve(rules.start(), deadline=started + 0.05)
    assert time.monotonic() - started < 5


def test_the_c_search_is_built():
    """pip builds bots/brains/_solvecore.c where a compiler is found (CI has one): fail if it was skipped on a machine
    that can build it; skip, naming the packages, on one that cannot (a fresh machine with only python3 and pip)."""
    if not can_build_c_extensions():
        pytest.skip("no C compiler with Python's headers here to build the C search (Debian: gcc python3-dev)")
    assert compiled(), "hexarena.bots.brains._solvecore is missing: pip could not build bots/brains/_solvecore.c"


@pytest.mark.parametrize(
    ("geometry", "size", "border", "misere"),
    [
        ("hex", "2x2", False, False),
        ("hex", "2x2", False, True),
        ("hex", "1x4", False, True),
        ("square", "2x2", False, False),
        ("square", "3x2", True, False),
        ("hex", "3x3", True, True),
        ("hex", "3x3", True, False),
    ],
)
@needs_c_search
@pytest.mark.parametrize("etc_free", [0, 18])
def test_c_and_python_searches_agree(geometry, size, border, misere, etc_free):
    """Same value, same best lines and, with nothing evicted from the C table, the same nodes, in random positions
    (with transposition cutoffs at every node, and where 18 lines are free as by default). Hexagons 3x3 with border
    in normal play has capturable cells in most positions: the C search's shortcuts (take_free looking only at the
    cells that may be capturable, a child starting from what its parent's cutoffs worked out) must not change a
    node; without the move's own cells among the suspects, 46 of its 96 positions disagree."""
    rules = Rules(make_board(size, geometry), Options(2, misere, border))
    in_c, in_python = Solver(rules, etc_free=etc_free), Solver(rules, compiled=False, etc_free=etc_free)
    assert in_c.core is not None and in_python.core is None
    rng = random.Random(5)
    for _ in range(6):
        state = rules.start()
        while not state.is_over():
            a, b = in_c.solve(state), in_python.solve(state)
            assert (a.value, a.future, a.best, a.nodes) == (b.value, b.future, b.best, b.nodes)
            state = state.apply(rng.choice(state.legal_moves())).state


def test_c_search_keeps_a_cpu_deadline():
    rules = Rules(make_board("3x3"))
    started = time.process_time()
    with pytest.raises(SolverTimeout):
        Solver(rules).solve(rules.start(), deadline=started + 0.05, clock=time.process_time)
    assert time.process_time() - started < 0.3


@pytest.mark.slow
@needs_c_search
def test_the_watch_is_called_while_the_best_lines_are_searched_too():
    """Hexagons 2x4 after three lines (about 12 CPU s, more than half of it after the value is known): the
    progress line and interval checkpoints of ``hexarena solve`` hang on the watch, so it runs to the end."""
    rules = Rules(make_board("2x4"))
    solver = Solver(rules, table_entries=2**20)
    seen = []
    solution = solver.solve(rules.replay([0, 5, 12]), watch=lambda: seen.append(solver.root.low == solver.root.high))
    assert solution.value == -2 and len(solution.best) == 32
    assert False in seen and True in seen  # called before the value was known, and while the best lines were


def test_boards_past_the_c_limits_use_the_python_search():
    rules = Rules(make_board("8x8"))
    assert len(rules.board.lines) > 128
    assert Solver(rules).core is None


def test_two_players_only():
    rules = Rules(make_board("1x1"), Options(players=3))
    with pytest.raises(ValueError, match="two players"):
        solve(rules.start())


def run_cli(*args: str) -> subprocess.CompletedProcess:
    code = "from hexarena.cli import main; main()"
    command = [sys.executable, "-c", code, "solve", *args]
    return subprocess.run(command, capture_output=True, text=True, timeout=60, cwd=ROOT, check=False)


def test_cli_prints_value_and_best_moves_as_json():
    result = run_cli("3x3", "--geometry", "square", "--border", "--moves", "12", "--json")
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    rules = Rules(make_board("3x3", "square"), Options(border=True))
    expected = solve(rules.replay([12]))
    assert (data["value"], data["best"]) == (expected.value, list(expected.best))
    assert data["nodes"] > 0 and data["seconds"] >= 0


def test_cli_gives_up_at_its_timeout_and_names_the_search():
    result = run_cli("3x3", "--timeout", "0.2", "--memory", "16")  # hexagons 3x3 takes minutes
    assert (result.returncode, result.stderr) == (1, "hexarena: error: not solved within 0.2 s\n")
    done = run_cli("2x2", "--memory", "16")
    assert done.returncode == 0 and done.stdout.splitlines()[-1].endswith(
        "(C search)" if compiled() else "(pure-Python search)"
    )


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["11x2"], "rows must be 1-10"),
        (["2x2", "--memory", "8"], "--memory"),
        (["2x2", "--players", "3"], "2 players only"),
        (["2x2", "--moves", "1,1"], "line 1 is already drawn"),
        (["2x2", "--moves", "19"], "line 19 is out of range (0-18)"),
        (["2x2", "--moves", "1;x"], "not a comma-separated list"),
    ],
)
def test_cli_bad_input_is_one_line_and_exit_2(args, message):
    result = run_cli(*args)
    assert result.returncode == 2
    assert message in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1
    assert "Traceback" not in result.stderr


@needs_c_search
@pytest.mark.parametrize("misere", [False, True], ids=["normal", "misere"])
@pytest.mark.parametrize(("size", "layout"), [("3x3", 3), ("4x5", 2)])
def test_the_narrow_and_the_wide_table_give_the_python_values(size, layout, misere):
    """Boards of up to 64 lines keep 12-byte entries (five to a 64-byte bucket), larger ones 24-byte entries: both
    tables, kept small enough that entries are replaced, give the pure-Python search's values and best lines in
    positions of hexagons 3x3 (38 lines) and 4x5 with border (77 lines) with 12 free lines."""
    rules = Rules(make_board(size), Options(2, misere, size == "4x5"))
    in_c, in_python = Solver(rules, table_entries=64), Solver(rules, compiled=False)
    assert (in_c.core.layout, in_c.core.entries) == (layout, 60 if layout == 3 else 64)
    rng = random.Random(3)
    for _ in range(4):
        state = rules.start()
        while state.free_count() > 12:
            state = state.apply(rng.choice(state.legal_moves())).state
        a, b = in_c.solve(state), in_python.solve(state)
        assert (a.value, a.best) == (b.value, b.best)


@needs_c_search
@pytest.mark.parametrize(("size", "border"), [("3x3", False), ("4x5", True)], ids=["narrow", "wide"])
def test_the_python_sizes_of_the_c_table_are_the_c_tables(size, border):
    """``table_entries_for`` and ``table_bytes`` (what ``hexarena solve`` and a checkpoint count by) agree with the
    C table's own buckets and bytes, on a board of each layout."""
    from hexarena.bots.brains.solver import table_bytes, table_entries_for

    rules = Rules(make_board(size), Options(2, False, border))
    lines = len(rules.board.lines)
    entries = table_entries_for(1, lines)
    core = Solver(rules, table_entries=entries, start_entries=entries).core
    assert core.entries == entries and len(core.table()) == table_bytes(entries, lines) <= 2**20
