"""``hexarena sprt NEW OLD``: is NEW better than OLD? Seat-swapped pairs until a sequential test decides.

Each pair is one start position played twice on one referee (one thread), NEW first then OLD
first; ``--concurrency`` pairs are played at once, and the test (``leagues/results/sprt.py``) is updated
after each whole batch, so the stopping point does not depend on which game finished first.
"""

from __future__ import annotations

import contextlib
import json
import secrets
from pathlib import Path
from typing import Annotated

import typer

from hexarena.commands import fail, interrupted_status, stopped_by_sigterm
from hexarena.commands.board import geometry_option
from hexarena.cores import PinCoresOption, pin_cores_ignored
from hexarena.unconfined import NoSandboxOption, choose
from hexarena.protocol.errors import ConfigError


def play_pair(referee, pair: tuple) -> tuple:
    """One pair on one referee: ``(number, [(specs, config, kwargs), ...])`` → ``(number, records)``."""
    number, games = pair
    return number, [referee.play(specs, config, **kwargs) for specs, config, kwargs in games]


def sprt(
    new: Annotated[str, typer.Argument(help="the bot under test: a folder, NAME or NAME@HASH", show_default=False)],
    old: Annotated[str, typer.Argument(help="the bot to beat", show_default=False)],
    elo0: Annotated[float, typer.Option(help="H0: the Elo difference is elo0")] = 0.0,
    elo1: Annotated[float, typer.Option(help="H1: the Elo difference is elo1")] = 5.0,
    alpha: Annotated[float, typer.Option(help="false positive rate, in (0, 0.5)")] = 0.05,
    beta: Annotated[float, typer.Option(help="false negative rate, in (0, 0.5)")] = 0.05,
    model: Annotated[str, typer.Option(help="normalized (elo0/elo1 in nElo, as fastchess) or logistic")] = "normalized",
    size: Annotated[str, typer.Option(help="ROWSxCOLS, each 1-10")] = "4x4",
    geometry: Annotated[str, typer.Option(help="hex or square", callback=geometry_option)] = "hex",
    misere: Annotated[bool, typer.Option("--misere", help="fewest cells wins")] = False,
    border: Annotated[bool, typer.Option("--border", help="pre-draw the border lines")] = False,
    time: Annotated[str, typer.Option(help="per move (300ms) or bank+increment (10s+100ms)")] = "1s",
    concurrency: Annotated[int, typer.Option(help="pairs played at once (one referee each)", min=1, max=256)] = 1,
    pin_cores: PinCoresOption = False,
    max_pairs: Annotated[int, typer.Option(help="stop, inconclusive, after this many pairs", min=1,
                                           max=1_000_000)] = 2000,
    openings: Annotated[str, typer.Option(help="random (a new start position per pair), N (N random ones in "
                                               "turn), 0 (the empty board) or FILE (one line list per row)")] = "random",
    seed: Annotated[int | None, typer.Option(help="seed of the start positions and of pair i's games (seed+i) "
                                                  "[default: random, printed]", show_default=False,
                                             min=-2**63 + 1, max=2**63 - 10_000_001)] = None,
    out: Annotated[Path | None, typer.Option(help="write one JSON record per game to this file")] = None,
    logs: Annotated[Path | None, typer.Option(help="directory for the bots' per-game output logs")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="print the final state as one JSON object, nothing else")] = False,
    home: Annotated[Path | None, typer.Option(help="workspace of registered bots", show_default=False)] = None,
    no_sandbox: NoSandboxOption = False,
) -> None:
    """Sequential probability ratio test of NEW against OLD, on seat-swapped pairs (fastchess conventions)."""
    from hexarena.commands.match import _distinct_names, open_outputs, resolve_bot
    from hexarena.leagues.results import sprt as stats
    from hexarena.leagues.schedule.openings import start_positions
    from hexarena.leagues.workspace.files import check_out_file
    from hexarena.protocol.board import parse_size
    from hexarena.referee.clock import TimeControl
    from hexarena.referee.pool import Workers, referee_pool
    from hexarena.referee.record import BoardConfig
    from hexarena.referee.settings import RefereeSettings

    hypotheses = stats.Hypotheses(elo0, elo1, alpha, beta, model)
    sandboxed = choose(no_sandbox)
    rows, cols = parse_size(size)
    config = BoardConfig(size=f"{rows}x{cols}", geometry=geometry, misere=misere, border=border)
    control = TimeControl.parse(time)
    if seed is None:
        seed = secrets.randbelow(2**31)
    positions = start_positions(openings, config, max_pairs, seed)
    at_once = min(concurrency, max_pairs)
    # forked before this process runs a thread or opens a workspace (a registered bot's name opens one), as
    # ``league run``'s: none imports the referee; closed here, those the pool did not take
    if pin_cores and at_once == 1:
        pin_cores_ignored("plays one pair at a time")
    with Workers(at_once, fork=True) if at_once > 1 else contextlib.nullcontext() as workers:
        specs = _distinct_names([resolve_bot(new, home, sandboxed), resolve_bot(old, home, sandboxed)])
        if any(spec.remote for spec in specs):
            raise ConfigError("sprt plays local bots only (remote:NAME is for match)")
        first, second = specs
        if out is not None:
            check_out_file(out)  # /dev/full, /proc/version, a folder: refused before any game is played
        sink = open_outputs(out, logs)
        say = (lambda text: None) if as_json else (lambda text: print(text, flush=True))
        say(f"sprt: {first.name} vs {second.name} on {config.label}, time {control}, seed {seed}, "
            f"{'random start positions' if openings == 'random' else f'{len(positions)} start position(s)'}; "
            f"H0 {elo0:g} H1 {elo1:g} {model}, alpha {alpha:g} beta {beta:g}, "
            f"bounds ({hypotheses.lower:.2f}, {hypotheses.upper:.2f})")
        counts, draws, games = [0] * 5, [0], [0]

        def arrived(number: int, records: list) -> None:
            scores = [stats.game_score(record, record.seats.index(first.name)) for record in records]
            counts[stats.pair_index(*scores)] += 1
            draws[0] += sum(score == 0.5 for score in scores)
            games[0] += len(records)
            for record in records:
                if sink is not None:
                    sink.write(record.model_dump_json() + "\n")
                    sink.flush()

        def pair(number: int) -> tuple:
            opening = positions[number % len(positions)]
            game = {"seed": seed + number, "prelude": opening}
            return number, [([first, second], config, {**game, "game_id": f"pair{number + 1}a"}),
                            ([second, first], config, {**game, "game_id": f"pair{number + 1}b"})]

        def state() -> dict:
            return stats.report(counts, hypotheses, draws[0], games[0])

        settings = RefereeSettings(time_control=control, sandboxed=sandboxed, log_dir=logs)
        pool = referee_pool(settings, at_once, name="pair", workers=workers, pin=pin_cores)
        played = 0
        result = state()
        try:
            with stopped_by_sigterm():  # SIGTERM reports what was played as Ctrl-C does
                while played < max_pairs and result["verdict"] is None:
                    batch = [pair(n) for n in range(played, min(played + concurrency, max_pairs))]
                    for number, records in pool.map(play_pair, batch):
                        arrived(number, records)
                    played += len(batch)
                    result = state()
                    say(f"pairs {played}: {counts_line(result)}")
        except KeyboardInterrupt as stop:
            pool.close(wait=False)
            finish(state(), "interrupted", as_json)
            fail("interrupted", interrupted_status(stop))
        except BaseException:  # a failure of ours (a full disk, a bug): every referee stops its bots before we report
            pool.close()
            raise
        finally:
            if sink is not None:
                sink.close()
        pool.close()
        finish(result, result["verdict"] or f"inconclusive at --max-pairs {max_pairs}", as_json)


def counts_line(result: dict) -> str:
    """The progress line after a batch: pentanomial, Elo, LLR."""
    penta = " ".join(str(n) for n in result["pentanomial"].values())
    from hexarena.leagues.results.sprt import elo_text

    return (f"Ptnml [{penta}], Elo {elo_text(result)}, "
            f"LLR {result['llr']:.2f} ({result['lower']:.2f}, {result['upper']:.2f})")


def finish(result: dict, outcome: str, as_json: bool) -> None:
    from hexarena.leagues.results.sprt import describe

    result = {**result, "outcome": outcome}
    if as_json:
        print(json.dumps(result), flush=True)
    else:
        print(describe(result))
        print(f"SPRT: {outcome}", flush=True)


def register(app: typer.Typer) -> None:
    app.command()(sprt)
