"""Board geometry: the dots, lines and cells every side of the protocol agrees on.

This module is the bottom floor of hexarena: it imports nothing of ours.
The canonical numbering (documented in ``protocol/BOARD.md``):

* **Dots** carry integer coordinates ``(x, y)`` with ``y`` growing downwards and
  are numbered in reading order: by ``y``, then by ``x``.
* **Lines** join two neighbouring dots ``(a, b)`` with ``a < b`` and are numbered
  in the order of ``(a, b)``.
* **Cells** are numbered row by row, left to right. A cell lists its lines
  clockwise, starting with the line that leaves its top dot (hexagon) or its
  top side (square).

Hexagons are pointy-top; row ``r`` is shifted half a hexagon to the right when
``r`` is odd (bricks in a wall). Hexagon ``(r, c)`` has its centre at
``(2c + 1 + r % 2, 3r + 2)`` and its corners at ``(±1, ±1)`` and ``(0, ±2)``
from the centre: to draw regular hexagons, scale x by √3 relative to y.
Square box ``(r, c)`` has its corners at ``(c, r)`` … ``(c + 1, r + 1)``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache, cached_property

from hexarena.protocol.errors import BoardError

GEOMETRIES = ("hex", "square")
MIN_SIDE, MAX_SIDE = 1, 10
PRESETS = ("2x2", "2x3", "3x3", "3x4", "4x4", "4x5", "5x5", "6x6")

_SIZE = re.compile(r"^\s*([0-9]+)\s*[xX×]\s*([0-9]+)\s*$")


@dataclass(frozen=True)
class Board:
    """The geometry of one board: dots, lines (dot pairs) and cells (line lists)."""

    geometry: str
    rows: int
    cols: int
    dots: tuple[tuple[int, int], ...]
    lines: tuple[tuple[int, int], ...]
    cells: tuple[tuple[int, ...], ...]

    @property
    def size(self) -> str:
        return f"{self.rows}x{self.cols}"

    @property
    def border(self) -> tuple[int, ...]:
        """Lines that belong to one cell only: the outside of the board."""
        count = [0] * len(self.lines)
        for cell in self.cells:
            for line in cell:
                count[line] += 1
        return tuple(line for line, n in enumerate(count) if n == 1)

    def line_cells(self) -> tuple[tuple[int, ...], ...]:
        """For each line, the cells (one or two) it is a side of."""
        owners: list[list[int]] = [[] for _ in self.lines]
        for cell, sides in enumerate(self.cells):
            for line in sides:
                owners[line].append(cell)
        return tuple(tuple(cells) for cells in owners)

    def to_json(self, border: bool = False) -> dict:
        """The wire form: ``{"dots", "lines", "cells"}`` plus ``"predrawn"`` with a border."""
        data = {
            "dots": [list(d) for d in self.dots],
            "lines": [list(line) for line in self.lines],
            "cells": [list(c) for c in self.cells],
        }
        if border:
            data["predrawn"] = list(self.border)
        return data

    def drawing(self, border: bool = False) -> dict:
        """The board as the replay viewer draws it: ``{"geometry"}`` then ``to_json(border)`` (a published site's
        data/boards.js, the server's live games)."""
        return {"geometry": self.geometry, **self.to_json(border=border)}

    @cached_property
    def json_text(self) -> str:
        """``to_json()`` as compact JSON text, made once per board: every GAME message carries it."""
        return json.dumps(self.to_json(), separators=(",", ":"))

    def __repr__(self) -> str:
        return f"make_board({self.size!r}, {self.geometry!r})"


def parse_size(text: str) -> tuple[int, int]:
    """``"4x5"`` → ``(4, 5)``: rows × columns, each 1–10."""
    match = _SIZE.match(text)
    if not match:
        raise BoardError(f"board size {text!r} is not ROWSxCOLS (e.g. 4x4; rows and columns {MIN_SIDE}-{MAX_SIDE})")
    rows, cols = int(match[1]), int(match[2])
    for name, value in (("rows", rows), ("columns", cols)):
        if not MIN_SIDE <= value <= MAX_SIDE:
            raise BoardError(f"board size {text!r}: {name} must be {MIN_SIDE}-{MAX_SIDE}, got {value}")
    return rows, cols


def make_board(size: str | tuple[int, int], geometry: str = "hex") -> Board:
    """The board of a size (``"4x4"`` or ``(4, 4)``) and geometry (``hex`` or ``square``)."""
    rows, cols = parse_size(size) if isinstance(size, str) else size
    if geometry not in GEOMETRIES:
        raise BoardError(f"geometry {geometry!r} is not one of: {', '.join(GEOMETRIES)}")
    if not (MIN_SIDE <= rows <= MAX_SIDE and MIN_SIDE <= cols <= MAX_SIDE):
        raise BoardError(f"board size {rows}x{cols}: rows and columns must be {MIN_SIDE}-{MAX_SIDE}")
    return _build(geometry, rows, cols)


def boards_with_few_free_lines(max_free: int) -> Iterator[tuple[Board, bool]]:
    """Every ``(board, border)`` — both geometries, sizes 1-10 × 1-10 — with 1 to ``max_free`` free lines."""
    for geometry in GEOMETRIES:
        for rows in range(MIN_SIDE, MAX_SIDE + 1):
            for cols in range(MIN_SIDE, MAX_SIDE + 1):
                board = _build(geometry, rows, cols)
                for border in (False, True):
                    if 0 < len(board.lines) - (len(board.border) if border else 0) <= max_free:
                        yield board, border


def _hex_corners(r: int, c: int) -> list[tuple[int, int]]:
    x, y = 2 * c + 1 + r % 2, 3 * r + 2
    return [(x, y - 2), (x + 1, y - 1), (x + 1, y + 1), (x, y + 2), (x - 1, y + 1), (x - 1, y - 1)]


def _square_corners(r: int, c: int) -> list[tuple[int, int]]:
    return [(c, r), (c + 1, r), (c + 1, r + 1), (c, r + 1)]


@cache
def _build(geometry: str, rows: int, cols: int) -> Board:
    corners = _hex_corners if geometry == "hex" else _square_corners
    polygons = [corners(r, c) for r in range(rows) for c in range(cols)]
    points = sorted({p for poly in polygons for p in poly}, key=lambda p: (p[1], p[0]))
    dot_id = {p: i for i, p in enumerate(points)}
    sides = [
        [tuple(sorted((dot_id[poly[i]], dot_id[poly[(i + 1) % len(poly)]]))) for i in range(len(poly))]
        for poly in polygons
    ]
    lines = sorted({side for cell in sides for side in cell})
    line_id = {line: i for i, line in enumerate(lines)}
    return Board(
        geometry=geometry,
        rows=rows,
        cols=cols,
        dots=tuple(points),
        lines=tuple(lines),
        cells=tuple(tuple(line_id[s] for s in cell) for cell in sides),
    )
