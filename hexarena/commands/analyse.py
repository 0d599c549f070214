"""``hexarena analyse GAME_ID``: the solver's verdict on a stored game (``hexarena.leagues.results.analysis``).

Owns the wording only: the analysis is made (once, then read from the workspace) by
``hexarena.leagues.results.analyses.analysis_of``.
"""

from __future__ import annotations

import json
from typing import Annotated

import typer

from hexarena.commands.bots import HomeOption


def analyse(
    game_id: Annotated[str, typer.Argument(help="the game's id (or a unique prefix of it)")],
    home: HomeOption = None,
    as_json: Annotated[bool, typer.Option("--json", help='print {"game", "values", "costs", "losing_move", "best", '
                                                          '"solved_positions", "seconds"}')] = False,
    budget: Annotated[float, typer.Option(help="seconds the solver may spend on the whole game", min=0.01,
                                          max=86_400)] = 10.0,
) -> None:
    """Solve every position of a stored 2-player game: who was winning by how much, what each move cost, the
    losing move. Made once and kept in the workspace."""
    from hexarena.commands.replay import read_store
    from hexarena.leagues.results.analyses import analysis_of
    from hexarena.leagues.results.analysis import check_two_players
    from hexarena.leagues.workspace.home import Workspace

    record = read_store(home, game_id)
    check_two_players(record)
    with Workspace(home) as ws:
        analysis = analysis_of(ws, record, budget)
    if as_json:
        print(json.dumps(analysis.to_json()))
        return
    for line in describe(record, analysis):
        print(line)


def describe(record, analysis) -> list[str]:
    """The analysis in words: one line per move, then the verdict."""
    from hexarena.leagues.results.analysis import loser, lost_from_start

    def shown(value) -> str:
        return "?" if value is None else f"{value:+d}"

    total = len(analysis.values)
    misere = " (misère: seat 0 wants it low)" if record.config.misere else ""
    lines = [f"{record.id}: {' vs '.join(record.seats)} on {record.config.label} · values are seat 0's final margin "
             + f"under perfect play{misere}", f"start: {shown(analysis.values[0])}"]
    for index, move in enumerate(record.moves):
        cost = analysis.costs[index]
        mark = ""
        if index == analysis.losing_move:
            mark = "  <- losing move"
        elif cost:
            mark = f"  <- costs {cost}"
        best = f" (best: {', '.join(map(str, analysis.best[index]))})" if analysis.best[index] else ""
        lines.append(f"move {index + 1}: {record.seats[move.seat]} line {move.line} → "
                     f"{shown(analysis.values[index + 1])}{mark}{best}")
    seat = loser(record)
    if analysis.solved_positions < total:
        lines.append(f"solved {analysis.solved_positions} of {total} positions within the budget (the earliest "
                     "ones are '?': give a larger --budget)")
    if seat is None:
        lines.append("a draw: nobody lost")
    elif analysis.losing_move is not None:
        lines.append(f"{record.seats[seat]} lost at move {analysis.losing_move + 1} (line "
                     f"{record.moves[analysis.losing_move].line})")
    elif lost_from_start(record, analysis):
        lines.append(f"{record.seats[seat]} was lost from the start position")
    else:
        lines.append(f"{record.seats[seat]} lost, with no losing move among the solved positions "
                     f"({record.result.termination})")
    lines.append(f"{analysis.solved_positions} positions solved in {analysis.seconds:.2f} s")
    return lines


def register(app: typer.Typer) -> None:
    app.command()(analyse)
