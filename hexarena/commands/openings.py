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

    With --balanced, each candidate is solved (2 players, within --budget seconds) and the COUNT whose value,
    the final margin of the player to move first after the start position, is closest to 0 are kept; each row
    then ends with a comment giving that value. The exact solver settles hex boards up to 2x3 in seconds; where
    too few candidates are solved (3x3 and up), the rest are balanced by chain-rule playouts, their value an
    estimate marked ``~``.
    """
    from hexarena.leagues.schedule.openings import format_openings, random_openings
    from hexarena.protocol.board import parse_size
    from hexarena.referee.record import BoardConfig

    rows, cols = parse_size(size)
    config = BoardConfig(size=f"{rows}x{cols}", geometry=geometry, misere=misere, border=border)
    if not balanced:
        text = format_openings(random_openings(config, count, seed))
    else:
        positions = random_openings(config, count * candidates, seed)
        say(f"solving {len(positions)} candidate positions of {config.label}, up to {budget:g} s each: at most "
            f"{duration(len(positions) * budget)} (the exact solver settles hex boards up to 2x3 in seconds; on larger "
            "ones, what it cannot settle is balanced by playouts)")
        solved = solved_values(config, positions, budget)
        kept = sorted(solved, key=lambda item: (abs(item[1]), item[2]))[:count]
        text = "".join(f"{','.join(map(str, lines))}  # value {value:+d}\n" for lines, value, _ in kept)
        if len(kept) < count:  # the rest balanced by a shallower look: chain-rule playouts, said so
            done = {index for _, _, index in solved}
            guessed = sorted(((lines, playout_value(config, lines), index) for index, lines in enumerate(positions)
                              if index not in done), key=lambda item: (abs(item[1]), item[2]))[:count - len(kept)]
            text += "".join(f"{','.join(map(str, lines))}  # value ~{value:+.1f} (estimated by playouts)\n"
                            for lines, value, _ in guessed)
            say(f"{len(kept)} of {count} start positions solved within --budget {budget:g} s; the other {len(guessed)} "
                "balanced by chain-rule playouts instead (a shallower look: their value is an estimate, marked ~)")
    if out is None:
        sys.stdout.write(text)
        return
    from hexarena.leagues.workspace.files import check_out_file, new_file

    check_out_file(out)  # a folder, a device, a place no file can be made: one line
    with new_file(out) as tmp:  # written beside and moved in: never half a book
        tmp.write_text(text, encoding="utf-8")


PROGRESS_EVERY = 5.0  # seconds between progress lines while candidates are solved


def say(line: str) -> None:
    print(f"hexarena: {line}", file=sys.stderr, flush=True)


def duration(seconds: float) -> str:
    return f"{seconds:.0f} s" if seconds < 120 else f"{seconds / 60:.0f} min"


def solved_values(config, positions: list, budget: float) -> list[tuple[tuple[int, ...], int, int]]:
    """(lines, value for the seat to move, index) of each position the solver settles within ``budget``; a progress
    line on stderr every ``PROGRESS_EVERY`` seconds."""
    from hexarena.bots.brains.solver import Solver
    from hexarena.bots.errors import SolverTimeout

    rules = config.rules()
    solver = Solver(rules)
    values = []
    began = said = time.monotonic()
    for index, lines in enumerate(positions):
        state = rules.replay(lines)
        try:
            solution = solver.solve(state, deadline=time.monotonic() + budget)
            values.append((lines, solution.value if state.to_move == 0 else -solution.value, index))
        except SolverTimeout:
            pass
        if time.monotonic() - said >= PROGRESS_EVERY and index + 1 < len(positions):
            said = time.monotonic()
            say(f"{index + 1}/{len(positions)} candidates tried, {len(values)} solved ({said - began:.0f} s)")
    return values


def playout_value(config, lines: tuple[int, ...], playouts: int = 8) -> float:
    """The mean final margin (seat 0's cells less seat 1's) of ``playouts`` games from ``lines`` between two
    chain-rule players (``bots/brains/chains.py``): the shallower look when the exact solver runs out of time."""
    import random

    from hexarena.bots.brains.chains import heuristic

    rules = config.rules()
    total = 0
    for seed in range(playouts):
        rng, state = random.Random(seed), rules.replay(lines)
        while not state.is_over():
            state = state.apply(heuristic(state, rng)).state
        total += state.scores[0] - state.scores[1]
    return total / playouts


def register(app: typer.Typer) -> None:
    app.command()(openings)
