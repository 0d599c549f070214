"""``hexarena solve``: the exact value of a two-player position and every best move."""

from __future__ import annotations

import json
import sys
import time
from typing import Annotated

import typer

from hexarena.commands.board import geometry_option, position


def solve(
    size: Annotated[str, typer.Argument(help="ROWSxCOLS, each 1-10, e.g. 2x3")],
    geometry: Annotated[str, typer.Option(help="hex or square", callback=geometry_option)] = "hex",
    misere: Annotated[bool, typer.Option("--misere", help="fewest cells wins")] = False,
    border: Annotated[bool, typer.Option("--border", help="pre-draw the lines that belong to one cell only")] = False,
    players: Annotated[int, typer.Option(help="the solver handles 2 players only")] = 2,
    moves: Annotated[str, typer.Option(help="solve the position after these lines, e.g. 3,17,4")] = "",
    as_json: Annotated[bool, typer.Option("--json", help='print {"value", "best", "nodes", "seconds"}')] = False,
    timeout: Annotated[float, typer.Option(help="give up after this many seconds (0: never)", min=0,
                                          max=86_400)] = 0,
    memory: Annotated[int, typer.Option(help="MiB for the C search's transposition table (16-65536)",
                                        min=16, max=65536)] = 96,
) -> None:
    """Solve a position: the first player's final margin under perfect play, and every best line.

    The value is seat 0's cells minus seat 1's at the end of the game, cells already
    taken included. Under --misere seat 0 wants it as low as possible.
    """
    from hexarena.bots.brains.solver import Solver, table_bits_for
    from hexarena.bots.errors import SolverTimeout
    from hexarena.protocol.board import make_board
    from hexarena.protocol.errors import BoardError
    from hexarena.protocol.rules import Options, Rules

    if players != 2:
        raise typer.BadParameter(f"the solver handles 2 players only, got {players}", param_hint="--players")
    try:
        board = make_board(size, geometry)
    except BoardError as exc:
        raise typer.BadParameter(str(exc), param_hint="SIZE") from None
    rules = Rules(board, Options(2, misere, border))
    state = position(rules, moves)
    try:
        solver = Solver(rules, table_bits=table_bits_for(memory))
        solution = solver.solve(state, deadline=time.monotonic() + timeout if timeout else None)
    except SolverTimeout:
        print(f"hexarena: error: not solved within {timeout:g} s", file=sys.stderr)
        raise typer.Exit(1) from None
    except MemoryError:
        print(f"hexarena: error: cannot allocate --memory {memory} MiB on this machine; give less "
              "(16-65536, default 96)", file=sys.stderr)
        raise typer.Exit(1) from None
    if as_json:
        print(json.dumps({"value": solution.value, "best": list(solution.best), "nodes": solution.nodes,
                          "seconds": round(solution.seconds, 3), "future": solution.future,
                          "to_move": state.to_move, "scores": list(state.scores)}))
        return
    free = state.free_count()
    print(f"{board.size} {geometry}{' misère' if misere else ''}{' border' if border else ''}: "
          f"{free} free lines, scores {state.scores[0]}-{state.scores[1]}, seat {state.to_move} to move")
    print(f"value (seat 0's final margin): {solution.value:+d}")
    print(f"best lines: {', '.join(map(str, solution.best)) or '(game over)'}")
    search = "C" if solver.core is not None else "pure-Python"
    print(f"{solution.nodes} nodes in {solution.seconds:.2f} s ({search} search)")


def register(app: typer.Typer) -> None:
    app.command()(solve)
