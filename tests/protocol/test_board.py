"""Board geometry: counts, canonical numbering, and the `hexarena board` command."""

import json
import subprocess

import pytest
from helpers import HEXARENA

from hexarena.protocol.board import GEOMETRIES, PRESETS, make_board, parse_size
from hexarena.protocol.errors import BoardError

SIZES = [(r, c) for r in range(1, 11) for c in range(1, 11)]


def expected_counts(geometry: str, r: int, c: int) -> tuple[int, int, int]:
    if geometry == "hex":
        return 2 * (r + 1) * (c + 1) - 2, 3 * r * c + 2 * r + 2 * c - 1, r * c
    return (r + 1) * (c + 1), r * (c + 1) + c * (r + 1), r * c


@pytest.mark.parametrize("geometry", GEOMETRIES)
def test_counts_for_every_size(geometry):
    for r, c in SIZES:
        board = make_board((r, c), geometry)
        assert (len(board.dots), len(board.lines), len(board.cells)) == expected_counts(geometry, r, c)
        sides = 6 if geometry == "hex" else 4
        assert len(board.border) == 2 * len(board.lines) - sides * len(board.cells)


def test_check_figures_from_the_rules():
    b44, b66 = make_board("4x4"), make_board("6x6")
    assert (len(b44.dots), len(b44.lines), len(b44.cells), len(b44.border)) == (48, 63, 16, 30)
    assert (len(b66.dots), len(b66.lines), len(b66.cells)) == (96, 131, 36)
    assert len(make_board("4x4", "square").lines) == 40


@pytest.mark.parametrize("geometry", GEOMETRIES)
@pytest.mark.parametrize("size", PRESETS + ("1x1", "1x5", "5x1", "10x10", "3x2"))
def test_canonical_numbering(geometry, size):
    board = make_board(size, geometry)
    assert list(board.dots) == sorted(board.dots, key=lambda d: (d[1], d[0]))
    assert list(board.lines) == sorted(board.lines) and all(a < b for a, b in board.lines)
    assert len(set(board.lines)) == len(board.lines)
    for a, b in board.lines:  # neighbouring dots only
        (x1, y1), (x2, y2) = board.dots[a], board.dots[b]
        step = (abs(x2 - x1), abs(y2 - y1))
        assert step in ({(1, 1), (0, 2)} if geometry == "hex" else {(1, 0), (0, 1)})
    sides = 6 if geometry == "hex" else 4
    for cell in board.cells:
        assert len(set(cell)) == sides
        # consecutive lines share a dot: the cell is a closed walk in clockwise order
        for i in range(sides):
            assert set(board.lines[cell[i]]) & set(board.lines[cell[(i + 1) % sides]])
        top = min((board.dots[d] for d in board.lines[cell[0]]), key=lambda p: p[1])
        assert top[1] == min(board.dots[d][1] for line in cell for d in board.lines[line])
    assert all(1 <= len(cells) <= 2 for cells in board.line_cells())


def test_hex_rows_are_shifted_like_bricks():
    board = make_board("2x2")
    centres = []
    for cell in board.cells:
        xs = [board.dots[d][0] for line in cell for d in board.lines[line]]
        centres.append((min(xs) + max(xs)) / 2)
    assert centres == [1, 3, 2, 4]  # row 1 starts half a hexagon (one unit) to the right


@pytest.mark.parametrize("text", ["0x4", "11x2", "4x", "x4", "four", "4x4x4", ""])
def test_bad_sizes(text):
    with pytest.raises(BoardError, match="1-10"):
        parse_size(text)


def run(*args):
    return subprocess.run([*HEXARENA, *args], capture_output=True, text=True, check=False, timeout=60)


def test_board_command_draws_every_line_number():
    out = run("board", "4x4")
    assert out.returncode == 0
    assert "48 dots, 63 lines, 16 cells" in out.stdout
    numbers = {int(tok) for tok in out.stdout.split("\n", 200)[0:-2] for tok in tok.split() if tok.isdigit()}
    assert set(range(63)) <= numbers


def test_board_command_json_matches_the_library():
    out = run("board", "3x4", "--json", "--border")
    data = json.loads(out.stdout)
    board = make_board("3x4")
    assert data["dots"] == [list(d) for d in board.dots]
    assert data["lines"] == [list(line) for line in board.lines]
    assert data["cells"] == [list(c) for c in board.cells]
    assert data["predrawn"] == list(board.border)
    square = json.loads(run("board", "2x2", "--geometry", "square", "--json").stdout)
    assert (len(square["dots"]), len(square["lines"]), len(square["cells"])) == (9, 12, 4)
    assert "predrawn" not in square


def test_board_command_draws_a_position():
    out = run("board", "1x1", "--geometry", "square", "--moves", "0,1,2,3")
    assert out.returncode == 0 and "B" in out.stdout  # the second player closes the box and "|" in out.stdout and "-----" in out.stdout


@pytest.mark.parametrize(
    "args, message",
    [
        (["0x4"], "rows must be 1-10"),
        (["11x2"], "rows must be 1-10"),
        (["4x"], "not ROWSxCOLS"),
        (["4x4", "--geometry", "triangle"], "'triangle' is not one of: hex, square"),
        (["2x2", "--moves", "1,99"], "line 99 is out of range"),
        (["2x2", "--moves", "1,1"], "line 1 is already drawn"),
        (["2x2", "--moves", "a"], "comma-separated list of line numbers"),
        (["2x2", "--moves", "1 2"], "comma-separated list of line numbers"),  # not line 12
        (["2x2", "--moves", "1,,2"], "comma-separated list of line numbers"),
        (["٢x٢"], "not ROWSxCOLS"),  # ASCII digits only, as the protocol
    ],
)
def test_board_command_bad_input(args, message):
    out = run("board", *args)
    assert out.returncode == 2
    assert out.stdout == ""
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1 and message in lines[0] and "Traceback" not in out.stderr
