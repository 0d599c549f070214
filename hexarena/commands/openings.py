"""``hexarena openings SIZE --count N [--balanced]``: write start positions, one comma-separated line list per row."""

from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import Annotated

import typer

from hexarena.commands.board import geometry_option


def openings(
    size: Annotated[str, typer.Argument(help="ROWSxCOLS, each 1-10")],
    count: Annotated[int, typer.Option(help="start positions to write", min=1, max=10_000)] = 16,
    geometry: Annotated[str, typer.Option(help="hex or square", callback=geometry_option)] = "hex",
    misere: Annotated[bool, typer.Option("--misere", help="fewest cells wins (for --balanced)")] = False,
    border: Annotated[bool, typer.Option("--border", help="pre-draw the border lines")] = False,
    seed: Annotated[int, typer.Option(help="seed of the random positions")] = 0,
    balanced: Annotated[bool, typer.Option("--balanced", help="solve candidates and keep those whose value is "
                                                              "closest to even")] = False,
    candidates: Annotated[int, typer.Option(help="with --balanced: random positions tried per one kept", min=1,
                                            max=100)] = 4,
    budget: Annotated[float, typer.Option(help="with --balanced: seconds the solver may spend per position", min=0.01,
                                          max=3600)] = 2.0,
    out: Annotated[Path | None, typer.Option(help="write to this file instead of stdout")] = None,
) -> None:
    """Random start positions of a few safe lines (no capture, no cell given its last-but-one side).

    With --balanced, each candidate is solved (2 players, within --budget seconds; unsolved ones are
    dropped) and the COUNT whose value, the final margin of the player to move first after the start
    position, is closest to 0 are kept; each row then ends with a comment giving that value.
    """
    from hexarena.leagues.schedule.openings import format_openings, random_openings
    from hexarena.protocol.board import parse_size
    from hexarena.protocol.errors import ConfigError
    from hexarena.referee.record import BoardConfig

    rows, cols = parse_size(size)
    config = BoardConfig(size=f"{rows}x{cols}", geometry=geometry, misere=misere, border=border)
    if not balanced:
        text = format_openings(random_openings(config, count, seed))
    else:
        kept = sorted(solved_values(config, random_openings(config, count * candidates, seed), budget),
                      key=lambda item: (abs(item[1]), item[2]))[:count]
        if not kept:
            raise ConfigError(f"no start position solved within --budget {budget:g} s on {config.label}; "
                              "give more time or a smaller board")
        text = "".join(f"{','.join(map(str, lines))}  # value {value:+d}\n" for lines, value, _ in kept)
        if len(kept) < count:
            print(f"hexarena: {len(kept)} of {count} start positions solved within the budget", file=sys.stderr)
    if out is None:
        sys.stdout.write(text)
        return
    from hexarena.leagues.workspace.files import check_out_file, new_file

    check_out_file(out)  # a folder, a device, a place no file can be made: one line
    with new_file(out) as tmp:  # written beside and moved in: never half a book
        tmp.write_text(text, encoding="utf-8")


def solved_values(config, positions: list, budget: float) -> list[tuple[tuple[int, ...], int, int]]:
    """(lines, value for the seat to move, index) of each position the solver settles within ``budget``."""
    from hexarena.bots.brains.solver import Solver
    from hexarena.bots.errors import SolverTimeout

    rules = config.rules()
    solver = Solver(rules)
    values = []
    for index, lines in enumerate(positions):
        state = rules.replay(lines)
        try:
            solution = solver.solve(state, deadline=time.monotonic() + budget)
        except SolverTimeout:
            continue
        values.append((lines, solution.value if state.to_move == 0 else -solution.value, index))
    return values


def register(app: typer.Typer) -> None:
    app.command()(openings)
