"""``hexarena board``: draw a board with its line numbers, or print its canonical JSON."""

from __future__ import annotations

import json
import re
from typing import Annotated

import typer

from hexarena.protocol.board import GEOMETRIES, make_board
from hexarena.protocol.render import render
from hexarena.protocol.rules import Options, Rules, State
from hexarena.protocol.errors import IllegalMove


def geometry_option(value: str) -> str:
    if value not in GEOMETRIES:
        raise typer.BadParameter(f"{value!r} is not one of: {', '.join(GEOMETRIES)}")
    return value


def board(
    size: Annotated[str, typer.Argument(help="ROWSxCOLS, each 1-10, e.g. 4x4")],
    geometry: Annotated[str, typer.Option(help="hex or square", callback=geometry_option)] = "hex",
    border: Annotated[bool, typer.Option("--border", help="pre-draw the lines that belong to one cell only")] = False,
    as_json: Annotated[bool, typer.Option("--json", help="print dots, lines and cells as JSON")] = False,
    moves: Annotated[str, typer.Option(help="draw these lines first, e.g. 3,17,4")] = "",
) -> None:
    """Draw a board with its line numbers (or a position after --moves)."""
    rules = Rules(make_board(size, geometry), Options(border=border))
    if as_json:
        print(json.dumps(rules.board.to_json(border=border)))
        return
    state = position(rules, moves)
    print(render(rules.board, state))
    print(f"{rules.board.size} {geometry}: {len(rules.board.dots)} dots, {len(rules.board.lines)} lines, "
          f"{len(rules.board.cells)} cells")


def position(rules: Rules, moves: str) -> State:
    """The position after ``--moves``; a line out of range or drawn twice is a one-line error."""
    try:
        return rules.replay(parse_lines(moves, "--moves"))
    except IllegalMove as exc:
        raise typer.BadParameter(str(exc), param_hint="--moves") from None


def parse_lines(text: str, option: str) -> list[int]:
    """``"3,17,4"`` → ``[3, 17, 4]`` (spaces around commas allowed); anything else is a one-line error."""
    if not text.strip():
        return []
    parts = [part.strip() for part in text.split(",")]
    if not all(re.fullmatch(r"[0-9]{1,9}", part) for part in parts):
        raise typer.BadParameter(f"{text!r} is not a comma-separated list of line numbers", param_hint=option)
    return [int(part) for part in parts]


def register(app: typer.Typer) -> None:
    app.command()(board)
