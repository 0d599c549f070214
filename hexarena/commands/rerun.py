"""``hexarena rerun GAME_ID``: play a stored game again, exactly, and say whether it went the same way
(``hexarena.leagues.running.rerun``). Exit 0: identical; 1: the first move that differs, with both lines and the
position before it."""

from __future__ import annotations

from typing import Annotated

import typer

from hexarena.commands.bots import HomeOption
from hexarena.unconfined import NoSandboxOption, choose


def rerun(
    game_id: Annotated[str, typer.Argument(help="the stored game's id (or a unique prefix of it)")],
    home: HomeOption = None,
    bot: Annotated[list[str] | None, typer.Option(
        "--bot", help="NAME=FOLDER or NAME=name@hash: play NAME's seat with this version instead",
        show_default=False)] = None,
    no_sandbox: NoSandboxOption = False,
) -> None:
    """Rerun a stored game with the same bot versions, seats, seed, start position and time control."""
    from hexarena.commands.replay import read_store
    from hexarena.leagues.running.rerun import first_difference, rerun_plan
    from hexarena.leagues.running.rerun import rerun as play_again
    from hexarena.leagues.workspace.home import Workspace
    from hexarena.protocol.errors import ConfigError

    replace = {}
    for text in bot or []:
        name, equals, version = text.partition("=")
        if not equals or not name or not version:
            raise ConfigError(f"--bot {text!r}: give NAME=FOLDER or NAME=name@hash")
        replace[name] = version
    sandboxed = choose(no_sandbox)
    record = read_store(home, game_id)
    with Workspace(home) as ws:
        plan = rerun_plan(ws, record, replace)
    again = play_again(plan, sandboxed)
    difference = first_difference(record, again)
    if difference is None:
        print(f"identical: {record.id}, {len(record.moves)} moves and the result ({record.result.termination}, "
              f"{'-'.join(map(str, record.result.scores))}) the same")
        return
    for line in describe(record, again, difference):
        print(line)
    raise typer.Exit(1)


def describe(record, again, difference) -> list[str]:
    from hexarena.protocol.render import render

    def move_text(move) -> str:
        return "no move (the game had ended)" if move is None else f"seat {move.seat} ({record.seats[move.seat]}) " \
                                                                   f"line {move.line}"

    index = difference.index
    if difference.stored is None and difference.again is None:
        return [(f"differs: every move the same, but the result: stored {record.result.termination} "
                f"{'-'.join(map(str, record.result.scores))}, rerun {again.result.termination} "
                f"{'-'.join(map(str, again.result.scores))}")]
    before = record.model_copy(update={"moves": record.moves[:index], "result": record.result}).replay()
    return [f"differs at move {index + 1}: stored {move_text(difference.stored)}, rerun {move_text(difference.again)}",
            f"the position before it (lines drawn: {', '.join(str(m.line) for m in record.moves[:index]) or 'none'}):",
            render(record.config.board(), before)]


def register(app: typer.Typer) -> None:
    app.command()(rerun)

