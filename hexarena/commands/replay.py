"""``hexarena replay GAME_ID``: step through a recorded game in the terminal with the text renderer.

Owns the replay's display only: a stored game comes from ``hexarena.leagues.results.store.game_data`` (no SQL here),
a file's from ``--file``.
"""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Annotated

import typer

from hexarena.commands.bots import HomeOption
from hexarena.leagues.results.wording import escaped
from hexarena.protocol.errors import ConfigError, HexarenaError
from hexarena.protocol.render import SEAT_LETTERS, render
from hexarena.referee.record import GameRecord

CLEAR = "\x1b[H\x1b[J"


def replay(
    game_id: Annotated[str, typer.Argument(help="the game's id (as in the games list of a published league)")],
    home: HomeOption = None,
    file: Annotated[Path | None, typer.Option("--file", help="read the game from a games.jsonl file or a published "
                                                             "site's folder, not the store",
                                              show_default=False)] = None,
    delay: Annotated[float | None, typer.Option(help="seconds between moves [default: 0.5]", min=0,
                                                show_default=False)] = None,
    step: Annotated[bool, typer.Option("--step", help="wait for Enter after each move (q + Enter: to the end)")] = False,
) -> None:
    """Play a recorded game back move by move: the board, who drew which line, the scores, the result."""
    if step and delay is not None:
        raise typer.BadParameter("use --delay or --step, not both", param_hint="--step")
    record = read_file(file, game_id) if file is not None else read_store(home, game_id)
    clear = sys.stdout.isatty()
    waiting = step
    for text in frames(record):
        print((CLEAR if clear else "") + text, flush=True)
        if waiting:
            try:
                waiting = input("[Enter] next move, q to the end: ").strip().lower() != "q"
            except EOFError:
                waiting = False
        elif not step:
            time.sleep(0.5 if delay is None else delay)
    print(result_line(record))


def frames(record: GameRecord) -> Iterator[str]:
    """The text of every position: a header line, the board, the scores."""
    board = record.config.board()
    names = [f"{SEAT_LETTERS[s]} {name}" for s, name in enumerate(record.seats)]
    total = len(record.moves)
    for number in range(total + 1):
        # a copy cut after `number` moves replays to the position then (later forfeits only change who is on move)
        state = record.model_copy(update={"moves": record.moves[:number]}).replay()
        if number == 0:
            head = f"{record.id}: {' vs '.join(names)} on {record.config.label} · start"
            if record.opening:  # drawn before the first move, like a pre-drawn border
                head += f" position, pre-drawn: lines {', '.join(map(str, record.opening))}"
        else:
            move = record.moves[number - 1]
            closed = f", closes {len(move.closed)}" if move.closed else ""
            sub = " (drawn by the referee)" if move.substituted else ""
            head = f"move {number}/{total}: {names[move.seat]} draws line {move.line}{closed}{sub} · {move.ms:.1f} ms"
        faults = [f for f in record.result.forfeits if f.move == number]
        notes = [f"{names[move.seat]} notes: {escaped(text)}" for text in move.info] if number else []
        lines = [head, *notes, "", render(board, state), ""]
        lines += [f"{names[f.seat]} forfeits: {f.reason}{': ' + f.detail if f.detail else ''}" for f in faults]
        lines.append("   ".join(f"{name}: {score}" for name, score in zip(names, state.scores)))
        yield "\n".join(lines)


def result_line(record: GameRecord) -> str:
    from hexarena.leagues.results.wording import summary

    return f"result: {summary(record)} · {record.result.termination}"


def read_file(path: Path, game_id: str) -> GameRecord:
    """The record with ``game_id`` (or the one record whose id starts with it) in a JSON-lines file of records,
    or in a published site (``path`` its folder, or one of its games/chunk-*.js)."""
    found: list[tuple[dict, str]] = []  # records whose id starts with game_id
    try:
        for where, line in record_lines(path):
            if not line.strip():
                continue
            try:
                data = json.loads(line)
            except json.JSONDecodeError:
                raise ConfigError(f"{where}: not a JSON game record") from None
            if isinstance(data, dict) and data.get("id") == game_id:
                return validate(data, where)
            if isinstance(data, dict) and str(data.get("id", "")).startswith(game_id) and len(found) < 2:
                found.append((data, where))
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"--file {path}: cannot read: {getattr(exc, 'strerror', None) or exc}") from None
    if len(found) == 1 and game_id:
        return validate(*found[0])
    if len(found) > 1 and game_id:
        raise ConfigError(f"game id prefix {game_id!r} is ambiguous in {path} ({found[0][0]['id']}, "
                          f"{found[1][0]['id']}, …): give more of the id")
    raise ConfigError(f"game {game_id!r} is not in {path}")


def record_lines(path: Path) -> Iterator[tuple[str, str]]:
    """``(file:line, text)`` of each record line of a games.jsonl file (every line), of a site's chunk
    (``hexarena.leagues.site.publish.chunk_records``) or of a site folder (its chunks', or the games.jsonl that
    sites of earlier releases had)."""
    from hexarena.leagues.site.publish import chunk_files, chunk_records, site_manifest

    if path.is_dir():  # a site of an earlier release has its records in a games.jsonl (its chunks are not lines);
        # a games.jsonl that no publish wrote (a user's own, say an export) does not hide a site's chunks
        files = chunk_files(path)
        if (path / "games.jsonl").is_file() and (not files or "games.jsonl" in site_manifest(path)):
            files = [path / "games.jsonl"]
        if not files:
            raise ConfigError(f"--file {path}: a folder but no published site (no games/chunk-*.js in it)")
    else:
        files = [path]
    for file in files:
        if file.suffix == ".js":
            yield from ((f"{file}:{number}", text) for number, text in chunk_records(file))
            continue
        with open(file, encoding="utf-8") as handle:
            yield from ((f"{file}:{number}", line) for number, line in enumerate(handle, start=1))


def read_store(home: Path | None, game_id: str) -> GameRecord:
    """The stored record of a game of any league in the workspace."""
    from hexarena.leagues.results.store import game_data
    from hexarena.leagues.workspace.home import Workspace

    with Workspace(home) as ws:
        data = game_data(ws, game_id)
    if data is None:
        raise ConfigError(f"game {game_id!r} is not in the workspace {ws.home} (or give --file with a published site's"
                          " folder or a games.jsonl)")
    return validate(data, f"game {game_id}")


def validate(data: dict, where: str) -> GameRecord:
    from pydantic import ValidationError

    from hexarena.protocol.validation import Style, describe_validation_error

    try:
        record = GameRecord.model_validate(data)
    except ValidationError as exc:
        raise ConfigError(describe_validation_error(exc, where, Style("not a valid game record: {field}: {msg}"))) \
            from None
    players = record.config.players
    if len(record.seats) != players or any(not 0 <= move.seat < players for move in record.moves):
        raise ConfigError(f"{where}: not a valid game record: seats do not match the {players}-player board")
    try:
        record.replay()
    except (HexarenaError, IndexError) as exc:
        raise ConfigError(f"{where}: its moves do not replay: {exc}") from None
    return record


def register(app: typer.Typer) -> None:
    app.command()(replay)
