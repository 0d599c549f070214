"""``hexarena match``: play games between 2–4 bots, seats rotating, and summarise the results."""

from __future__ import annotations

import contextlib
import dataclasses
import re
import sys
from pathlib import Path
from typing import Annotated

import typer

from hexarena.commands import fail, interrupted_status, stopped_by_sigterm
from hexarena.commands.board import geometry_option
from hexarena.unconfined import NoSandboxOption, choose
from hexarena.leagues.workspace.files import check_out_file, new_file
from hexarena.protocol.errors import ConfigError


def resolve_bot(text: str, home: Path | None = None, sandboxed: bool = True):
    """A BOT argument → the ``BotSpec`` to run: ``remote:NAME`` (read here: only a match has remote seats),
    else what ``hexarena.leagues.registry.resolve.resolve`` reads (a folder, a registered ``name`` or ``name@hashprefix``
    from the workspace at ``home``; a new one seeds the reference bots, built sandboxed unless ``sandboxed`` is False).
    """
    from hexarena.leagues.registry.resolve import resolve
    from hexarena.referee.seats.process import BotSpec
    from hexarena.referee.manifest import NAME_PATTERN

    if text.startswith("remote:"):  # a bot started by hand elsewhere joins over tcp (referee/seats/remote.py)
        name = text.removeprefix("remote:")
        if not re.fullmatch(NAME_PATTERN, name):
            raise ConfigError(f"{text!r}: a remote seat is remote:NAME, NAME of a-z, 0-9, '-' and '_' (1-40)")
        return BotSpec(name, None, remote=True)
    from hexarena.commands.bots import open_workspace

    bot = resolve(lambda: open_workspace(home, sandboxed), text)  # ConfigError with a one-line message
    if bot.version_hash is None and "/" not in text:
        say_which(text, home, sandboxed)
    return BotSpec(bot.shown, bot.folder, version=bot.version)


def say_which(text: str, home: Path | None, sandboxed: bool = True) -> None:
    """A folder ``text`` whose name a registered bot of an existing workspace shares: one line saying which runs."""
    from hexarena.commands.bots import open_workspace
    from hexarena.leagues.registry.snapshot import SHORT_HASH
    from hexarena.leagues.registry.catalog import get_bot
    from hexarena.leagues.workspace.home import default_home

    if not ((home if home is not None else default_home()) / "hexarena.db").is_file():
        return  # no workspace: nothing registered to confuse the folder with
    with open_workspace(home, sandboxed) as ws:
        try:
            registered = get_bot(ws, text)
        except ConfigError:
            return
    print(f"{text}: the folder ./{text} (not the registered {text}@{registered.latest[:SHORT_HASH]})", file=sys.stderr)


def rotations(bots: list, games: int) -> list[list]:
    """Seat order of each game: game i seats the bots in seat order i (``hexarena.leagues.schedule.seating``: the seats
    swapped with 2 bots; every permutation with 3 and 4, 4 bots playing the balanced 4 of the 24
    orders unless the games are a multiple of 24), so each bot plays each seat, and after each other, in turn."""
    from hexarena.leagues.schedule.seating import seat_orders, seated

    orders = seat_orders(len(bots), games)
    return [seated(bots, orders[i % len(orders)]) for i in range(games)]


def match(
    bots: Annotated[list[str], typer.Argument(help="2-4 bot folders (each with a bot.toml), registered bots (NAME or NAME@HASH), or remote:NAME for a bot "
                                              "started by hand that joins over tcp", show_default=False)],
    size: Annotated[str, typer.Option(help="ROWSxCOLS, each 1-10")] = "4x4",
    geometry: Annotated[str, typer.Option(help="hex or square", callback=geometry_option)] = "hex",
    misere: Annotated[bool, typer.Option("--misere", help="fewest cells wins")] = False,
    border: Annotated[bool, typer.Option("--border", help="pre-draw the border lines")] = False,
    games: Annotated[int | None, typer.Option(help="games to play (per start position) [default: one per seat order: "
                                                   "2, 6 or 24]", min=1, max=100_000)] = None,
    openings: Annotated[str, typer.Option(help="start positions, each played in every seat order: N random ones "
                                               "(from --seed) or FILE (one comma-separated line list per row)")] = "0",
    time: Annotated[str, typer.Option(help="per move (300ms) or bank+increment (10s+100ms)")] = "1s",
    seed: Annotated[int | None, typer.Option(help="seed of game 1 (game i gets seed+i-1)", min=-2**63 + 1,
                                             max=2**63 - 100_001)] = None,
    out: Annotated[Path | None, typer.Option(help="write one JSON record per game to this file")] = None,
    logs: Annotated[Path | None, typer.Option(help="directory for the bots' per-game output logs (none for a "
                                                    "game in which the bot wrote nothing)")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="print one JSON record per game on stdout, nothing else")] = False,
    show: Annotated[bool, typer.Option("--show", help="draw the final board of each game")] = False,
    listen: Annotated[str, typer.Option(help="tcp endpoint for remote:NAME seats (CURVE-encrypted)")] = "tcp://127.0.0.1:0",
    remote_wait: Annotated[str, typer.Option(help="how long a remote:NAME seat may take to join")] = "5m",
    remote_retry: Annotated[bool, typer.Option("--remote-retry", help="wait --remote-wait again before each game "
                                               "for a remote seat that did not join (default: once)")] = False,
    home: Annotated[Path | None, typer.Option(help="workspace of registered bots (default: $HEXARENA_HOME, "
                                                   "else ./hexarena-home)", show_default=False)] = None,
    no_sandbox: NoSandboxOption = False,
) -> None:
    """Play a match between bots in every seat order in turn (the seats swapped with 2; all orders with 3-4), from each start position."""
    sandboxed = choose(no_sandbox)
    from hexarena.leagues.schedule.openings import start_positions
    from hexarena.leagues.schedule.seating import seat_orders
    from hexarena.leagues.results.wording import game_line, plural, tally_table
    from hexarena.protocol.board import parse_size
    from hexarena.referee.clock import TimeControl, parse_duration
    from hexarena.referee.record import BoardConfig
    from hexarena.referee.referee import Referee
    from hexarena.referee.settings import RefereeSettings

    if not 2 <= len(bots) <= 4:
        raise ConfigError(f"a match needs 2-4 bots, got {len(bots)}")
    rows, cols = parse_size(size)
    config = BoardConfig(size=f"{rows}x{cols}", geometry=geometry, players=len(bots), misere=misere, border=border)
    control = TimeControl.parse(time)
    wait = parse_duration(remote_wait)
    specs = _distinct_names([resolve_bot(text, home, sandboxed) for text in bots])
    # a person starts a remote bot by hand: its seat's own startup allowance, longer or shorter than the bots'
    specs = [dataclasses.replace(spec, startup=wait) if spec.remote else spec for spec in specs]
    records, interrupted = [], None  # interrupted: the KeyboardInterrupt (or SIGTERM's) that stopped the match
    exporting = contextlib.ExitStack()  # --out is written to a sibling and moved into place at the end
    if out is not None:
        check_out_file(out)  # /dev/full, /proc/version, a folder: refused before any game is played
    sink = open_outputs(exporting.enter_context(new_file(out)) if out is not None else None, logs)
    say = (lambda text: None) if as_json else print
    with stopped_by_sigterm():  # SIGTERM keeps the finished games as Ctrl-C does (from the header on)
        say(f"match: {' vs '.join(spec.name for spec in specs)} on {config.label}, time {control}")
        try:
            settings = RefereeSettings(time_control=control, sandboxed=sandboxed, log_dir=logs, listen=listen,
                                       remote_retry=remote_retry)
            with Referee(settings, announce=lambda credentials: print(credentials.instructions(), file=sys.stderr,
                                                                      flush=True)) as referee:
                orders = rotations(specs, games or len(seat_orders(len(specs))))
                plan = [(seats, opening) for opening in start_positions(openings, config, 0, seed) for seats in orders]
                for number, (seats, opening) in enumerate(plan, start=1):
                    game_seed = None if seed is None else seed + number - 1
                    record = referee.play(seats, config, game_id=f"game{number}", seed=game_seed, prelude=opening)
                    line = record.model_dump_json()
                    if sink is not None:
                        sink.write(line + "\n")
                        sink.flush()
                    records.append(record)  # after its line: a Ctrl-C between the two leaves the record in --out
                    if as_json:
                        print(line, flush=True)
                    say(f"game {number}: {game_line(record)}")
                    for fault in record.result.forfeits:  # a bot that never played: say why, in the author's words
                        if fault.reason in ("no_connection", "crashed") and fault.move == 0:
                            say(f"  {record.seats[fault.seat]}: {fault.reason}: {fault.detail}")
                    if show:
                        from hexarena.protocol.render import render

                        say(render(config.board(), record.replay()))
                        say("   ".join(f"{letter} = {name}" for letter, name in zip("ABCD", record.seats)))
            if sink is not None:
                sink.close()
        except KeyboardInterrupt as stop:  # the game in play dropped; the finished ones kept, in --out and the tally
            interrupted = stop
            try:
                if sink is not None:
                    sink.close()
            except OSError as exc:  # the rest could not be flushed (a full disk): no --out file, as below
                exporting.__exit__(type(exc), exc, exc.__traceback__)
                raise
            if not records:  # nothing to keep: an earlier --out file stays as it was
                exporting.__exit__(type(stop), stop, stop.__traceback__)
        except BaseException as exc:
            if sink is not None:
                with contextlib.suppress(OSError):  # flushing the rest fails too on a full disk
                    sink.close()
            exporting.__exit__(type(exc), exc, exc.__traceback__)  # no --out file; OutOfSpace naming it if full
            raise
    exporting.close()
    if records or interrupted is None:
        say(tally_table([spec.name for spec in specs], records))
        if len(specs) == 2:
            say(difference_line(specs[0].name, specs[1].name, records))
    if interrupted is not None:
        kept = "" if out is None else f"; their records are in {out}" if records else f"; {out} is as it was"
        fail(f"match interrupted after {plural(len(records), 'finished game')}{kept}", interrupted_status(interrupted))


def difference_line(first: str, second: str, records: list) -> str:
    """The Elo difference of ``first`` over ``second`` from the seat-swapped pairs (``hexarena.leagues.results.sprt``)."""
    from hexarena.leagues.results.sprt import elo_text, estimate, pentanomial

    counts, draws = pentanomial(records, first)
    if not sum(counts):
        return f"{first} - {second}: no seat-swapped pair, no Elo difference"
    e = estimate(counts, draws)
    return (f"{first} - {second}: Elo {elo_text(e)}{'' if e.one_sided else ' (95%)'}, LOS {e.los:.1f} %, "
            f"draw ratio {100 * e.draw_ratio:.1f} % ({e.pairs} pairs)")


def open_outputs(out: Path | None, logs: Path | None):
    """The ``--out`` file opened for writing (or None) and the ``--logs`` folder made; ConfigError if not."""
    try:
        sink = out.open("w", encoding="utf-8") if out is not None else None
        if logs is not None:
            logs.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise ConfigError(f"cannot write {exc.filename}: {exc.strerror}") from None
    return sink


def _distinct_names(specs: list) -> list:
    """The same bot twice plays as ``name`` and ``name#2``, so records and summaries tell them apart."""
    seen: dict[str, int] = {}
    distinct = []
    for spec in specs:
        seen[spec.name] = seen.get(spec.name, 0) + 1
        count = seen[spec.name]
        distinct.append(spec if count == 1 else dataclasses.replace(spec, name=f"{spec.name}#{count}"))
    return distinct


def register(app: typer.Typer) -> None:
    app.command()(match)
