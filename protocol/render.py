"""Text rendering of a board or a position for the terminal.

Undrawn lines show their number (so a human can pick one), drawn lines show a
stroke, owned cells show their seat's letter (A–D). Pure: returns a string.
"""

from __future__ import annotations

from hexarena.protocol.board import Board
from hexarena.protocol.rules import State

SEAT_LETTERS = "ABCD"


def render(board: Board, state: State | None = None, numbers: bool = True) -> str:
    """Draw ``board`` (and the position ``state`` if given) as text."""
    sx, sy = (4, 2) if board.geometry == "hex" else (6, 2)
    width = max(x for x, _ in board.dots) * sx + 3
    height = max(y for _, y in board.dots) * sy + 1
    grid = [[" "] * width for _ in range(height)]

    def put(x: int, y: int, text: str) -> None:
        for i, ch in enumerate(text):
            if 0 <= x + i < width:
                grid[y][x + i] = ch

    drawn = state.drawn if state is not None else 0
    for line, (a, b) in enumerate(board.lines):
        (x1, y1), (x2, y2) = sorted((board.dots[a], board.dots[b]))
        cx, cy = (x1 + x2) * sx // 2, (y1 + y2) * sy // 2
        if drawn >> line & 1:
            if y1 == y2:  # horizontal (squares)
                put(x1 * sx + 1, cy, "-" * (sx - 1))
            elif x1 == x2:  # vertical
                for y in range(y1 * sy + 1, y2 * sy):
                    put(cx, y, "|")
            else:
                put(cx - 1, cy, "/" * 3 if y2 < y1 else "\\" * 3)
        elif numbers:
            label = str(line)
            put(cx - (len(label) - 1) // 2 - (len(label) == 3), cy, label)
    for x, y in board.dots:
        put(x * sx, y * sy, "+")
    if state is not None:
        for cell, owner in enumerate(state.owners):
            if owner >= 0:
                xs = [board.dots[d][0] for line in board.cells[cell] for d in board.lines[line]]
                ys = [board.dots[d][1] for line in board.cells[cell] for d in board.lines[line]]
                put((min(xs) + max(xs)) * sx // 2, (min(ys) + max(ys)) * sy // 2, SEAT_LETTERS[owner])
    return "\n".join("".join(row).rstrip() for row in grid)
