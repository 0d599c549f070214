"""``hexarena league run FILE | table NAME | status NAME | export NAME --out FILE`` and ``hexarena demo``: round-robin
leagues."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

from hexarena.commands import fail, interrupts_end_with
from hexarena import leagues
from hexarena.commands.bots import HomeOption, open_workspace
from hexarena.cores import PinCoresOption, pin_cores_ignored
from hexarena.unconfined import NoSandboxOption, choose
from hexarena.protocol.errors import ConfigError

DEMO = Path(leagues.__file__).resolve().parent / "demo.toml"
TABLES = ("all", "standings", "crosstable", "ratings")

league_app = typer.Typer(help="Round-robin leagues: run a league file, print its tables, show its progress, export "
                              "its records.",
                         no_args_is_help=True)


def choice(allowed: tuple[str, ...]):
    def check(value: str) -> str:
        if value not in allowed:
            raise typer.BadParameter(f"{value!r} is not one of: {', '.join(allowed)}")
        return value
    return check


ConcurrencyOption = Annotated[int | None, typer.Option(min=1, max=256, help="games at once (default: the league file's, "
                                                                  "else one per core)")]
FormatOption = Annotated[str, typer.Option("--format", callback=choice(("auto", "text", "rich", "md", "csv", "json")),
                                           help="auto (rich tables on a terminal, plain text in a pipe), text, rich, "
                                                "md, csv or json")]


def terminal_format(fmt: str) -> str:
    """``auto``: boxed tables with readable headings on a terminal, plain aligned text for pipes and files."""
    return ("rich" if sys.stdout.isatty() else "text") if fmt == "auto" else fmt
ByOption = Annotated[str | None, typer.Option("--by", callback=lambda v: v and choice(("configuration",))(v),
                                              help="'configuration': one table per board configuration")]


def run(
    file: Annotated[Path, typer.Argument(help="a league file, e.g. leagues/demo.toml")],
    concurrency: ConcurrencyOption = None,
    home: HomeOption = None,
    scheduler: Annotated[str | None, typer.Option(help="play on the Dask cluster of this scheduler, e.g. "
                                                       "tcp://HOST:8786 (docs/cluster.md)")] = None,
    no_sandbox: NoSandboxOption = False,
    replace: Annotated[bool, typer.Option("--replace", help="the league's name is stored with another definition "
                                          "(bots, boards, games, time control...): replace it (its games stay stored)")] = False,
    dry_run: Annotated[bool, typer.Option("--dry-run", help="print the games a run would play, by configuration and "
                                          "by bot, and how long they may take; play and store nothing")] = False,
    pin_cores: PinCoresOption = False,
) -> None:
    """Play every game of the league that is not stored yet (a rerun resumes), then print its table."""
    from hexarena.leagues.schedule.config import load_league

    league = load_league(file)
    if dry_run:
        return show_dry_run(league, str(file), concurrency, home, replace)
    sandboxed = choose(no_sandbox or not league.sandbox, "--no-sandbox" if no_sandbox else f"sandbox = false in {file}")
    # closed here, not at exit: the stamp it leaves spares the next command the whole file's check (Workspace.close)
    play_and_show(league, str(file), concurrency, home, scheduler, replace, sandboxed, pin_cores).close()


def show_dry_run(league, source: str, concurrency: int | None, home: Path | None, replace: bool) -> None:
    """What ``league run`` would play (the runner's own resume logic) and an estimate of its time."""
    from hexarena.leagues.results import store
    from hexarena.leagues.running.estimate import estimate
    from hexarena.leagues.running.fairness import games_at_once
    from hexarena.leagues.running.runner import pending

    ws = open_workspace(home)
    to_play = pending(ws, league, source, replace, verify=False)
    show_left(to_play, league.name, dry_run=True)
    mean_ms, measured = store.time_per_move(ws, league.name)
    print(estimate(to_play.todo, league.time_control, games_at_once(league, concurrency), mean_ms,
                   measured).describe())


def show_left(to_play, name: str, dry_run: bool = False) -> None:
    """``league NAME: P of T games played (S%), L left`` and, if any are left, the tables of what is left."""
    from hexarena.leagues.results.tables import render

    total, left = len(to_play.games), len(to_play.todo)
    share = 100 * (total - left) / total if total else 100
    print(f"league {name}: {total - left} of {total} games played ({share:.0f}%), {left} left"
          + (" (--dry-run: nothing played, nothing stored)" if dry_run else ""))
    if left:
        by_configuration, by_bot = to_play.left()
        print(render([(("left by configuration",), by_configuration), (("left by bot",), by_bot)],
                     terminal_format("auto")))


def demo(
    concurrency: ConcurrencyOption = None,
    home: HomeOption = None,
    out: Annotated[Path | None, typer.Option(help="where to publish the results site [default: HOME/site/demo]")] = None,
    no_sandbox: NoSandboxOption = False,
) -> None:
    """Run the demo league of the reference bots (leagues/demo.toml) to the end, print its table, publish its site."""
    from hexarena.leagues.schedule.config import load_league
    from hexarena.leagues.workspace.files import check_out_folder
    from hexarena.leagues.site.publish import publish
    from hexarena.referee import sandbox

    league = load_league(DEMO)
    sandboxed = choose(no_sandbox or demo_without_sandbox(home),
           "--no-sandbox" if no_sandbox else "no sandbox on this machine (no bubblewrap, no user namespaces), and the "
           "demo plays only hexarena's own reference bots; install bubblewrap (apt-get install bubblewrap) to "
           "sandbox them")
    if out is not None and out.exists() and not out.is_dir():  # before any game is played
        raise ConfigError(f"--out {out}: is a file; the site needs a folder (a new one is made where none exists)")
    if out is not None:
        check_out_folder(out)  # a place no folder can be made in, too
    if sandboxed and sandbox.path() is not None:  # the Quick start says which path this machine took
        print(f"hexarena: bots run in a sandbox: {sandbox.describe()}", file=sys.stderr)
    # hexarena's own file: a new release's wins
    with play_and_show(league, str(DEMO), concurrency, home, replace=True, sandboxed=sandboxed) as ws:
        index = publish(ws, league.name, out if out is not None else ws.site_dir / league.name)
    print(f"results site: {index} (open it in a browser; the folder can go to any static host)", file=sys.stderr)


def demo_without_sandbox(home: Path | None) -> bool:
    """Whether the demo may run unconfined: this machine cannot make a sandbox by either path (no bubblewrap, no
    user namespaces: ``referee/sandbox.py``), and every bot it would play is
    one of hexarena's own reference bots (code the organiser installed with hexarena, registered by it). Any
    other active bot, and the usual refusal stands (``--no-sandbox`` to override)."""
    from hexarena.leagues.registry.catalog import list_bots
    from hexarena.leagues.registry.reference import REFERENCE_AUTHOR, reference_names
    from hexarena.referee import sandbox

    if sandbox.path() is not None:  # bubblewrap, or the kernel's namespaces without it
        return False
    with open_workspace(home, sandboxed=False) as ws:  # the seeding builds the reference bots (cbot: make)
        active = [info for info in list_bots(ws) if info.retired is None]
    return all(info.author == REFERENCE_AUTHOR and info.name in reference_names() for info in active)


def play_and_show(league, source: str, concurrency: int | None, home: Path | None, scheduler: str | None = None,
                  replace: bool = False, sandboxed: bool = True, pin_cores: bool = False):
    """Run the league to the end (its bots sandboxed unless ``sandboxed`` is False), print its tables; returns
    the workspace. ``pin_cores``: each local worker and its bots on a core of their own (``RefereeProcessPool``)."""
    from hexarena.leagues.running.fairness import games_at_once, unfair_warning

    local = not (scheduler or league.executor == "dask")  # a cluster's workers have cores of their own
    at_once = games_at_once(league, concurrency)
    workers = None
    if local and at_once > 1:
        from hexarena.referee.pool import Workers

        # first, forked before this process runs a thread or opens the workspace: ready before it is
        workers = Workers(at_once, fork=True)
    elif pin_cores:
        pin_cores_ignored("plays on a cluster" if not local else "plays one game at a time")
    try:
        from hexarena.leagues.errors import RERUN
        from hexarena.leagues.running.runner import league_settings, run_league
        from hexarena.referee.errors import WorkerLost

        ws = open_workspace(home, sandboxed)
        unfair = unfair_warning(at_once) if local else None
        if unfair:
            print(f"hexarena: warning: {unfair}", file=sys.stderr)
        with interrupts_end_with(f"league {league.name} interrupted; {RERUN}"):  # its bots stopped
            summary = run_league(ws, league, concurrency=concurrency, progress=True, source=source,
                                 scheduler=scheduler, replace=replace,
                                 settings=league_settings(ws, league, sandboxed=sandboxed), workers=workers,
                                 pin_cores=pin_cores)
    except WorkerLost as exc:  # killed (the OOM killer): its game is lost, the stored ones are not
        fail(f"{exc}; {RERUN}", 1)
    finally:
        if workers is not None:  # started here, closed here only: those no pool took (a failure before the run,
            # a league with little left, a cluster's league)
            workers.close()
    print(f"league {summary.league}: {summary.already + summary.played} of {summary.total} games played "
          f"({summary.played} now); workspace {ws.home}", file=sys.stderr)
    print(league_tables(ws, league.name, "all", None, terminal_format("auto")))
    return ws


def table(
    name: Annotated[str, typer.Argument(help="the league's name (or its file)")],
    by: ByOption = None,
    fmt: FormatOption = "auto",
    which: Annotated[str, typer.Option("--table", callback=choice(TABLES), help=", ".join(TABLES))] = "all",
    home: HomeOption = None,
    at: Annotated[str | None, typer.Option("--at", help="the ratings as they stood at this time (ISO 8601, e.g. "
                                           "2026-12-02T10:30; UTC unless it says otherwise): the league's snapshot "
                                           "of then")] = None,
) -> None:
    """Standings, crosstable and ratings (95% intervals) of a league's games so far. With --format csv, one table
    a command (the standings, unless --table), loadable as one file; with --by, a column says the configuration."""
    ws = open_workspace(home)
    fmt = terminal_format(fmt)
    if at is not None:
        from hexarena.league_views import parse_moment, table_at

        print(table_at(ws, league_name(name), parse_moment(at), fmt))
        return
    if fmt == "csv" and which == "all":
        which = "standings"
        print("hexarena: csv is one table a command: the standings (--table crosstable or --table ratings for "
              "the others)", file=sys.stderr)
    print(league_tables(ws, league_name(name), which, by, fmt))


def status(
    name: Annotated[str, typer.Argument(help="the league's name (or its file, before its first run too)")],
    home: HomeOption = None,
) -> None:
    """How much of the league is played, and what a run would play: by configuration and by bot (new bots and
    new versions included)."""
    from hexarena.leagues.results import definitions
    from hexarena.leagues.schedule.config import load_league
    from hexarena.leagues.running.runner import pending

    ws = open_workspace(home)
    if name.endswith(".toml"):
        league = load_league(name)
        to_play = pending(ws, league, name, replace=True, verify=False)
        if to_play.definition.differences:
            print(f"note: {to_play.definition.refusal()}; counted here: this file's games")
    else:
        league = definitions.league_config(ws, name)
        to_play = pending(ws, league, f"league {name}", verify=False)
    show_left(to_play, league.name)
    if to_play.adaptive is not None:
        from hexarena.league_views import show_adaptive

        show_adaptive(to_play.adaptive, terminal_format("auto"))


def export(
    name: Annotated[str, typer.Argument(help="the league's name (or its file)")],
    out: Annotated[Path, typer.Option("--out", help="the file to write: one game record a line", show_default=False)],
    home: HomeOption = None,
) -> None:
    """Every stored game record of a league, one JSON object a line, in schedule order: the games.jsonl that sites
    of earlier releases carried, made when you ask for it (a site holds each record once, in its chunks). As on
    the site, fault details name no folder of this machine."""
    from hexarena.leagues.results import definitions, store
    from hexarena.leagues.results.report import stripped
    from hexarena.leagues.workspace.files import check_out_file, new_file
    from hexarena.leagues.workspace.home import Workspace

    name = league_name(name)
    written = 0
    with interrupts_end_with(f"league export interrupted; {out} is as it was"), Workspace(home) as ws:
        definitions.league_config(ws, name)  # an unknown league: its one-line error, before the file (or its
        check_out_file(out)                  # folder) is made
        with new_file(out) as tmp, ws.reading(), open(tmp, "w", encoding="utf-8") as handle:
            for text, _ in stripped(store.stored_games(ws, name)):
                handle.write(text + "\n")
                written += 1
    print(f"wrote {written} game records to {out}")


def league_name(text: str) -> str:
    """A league name, or the name inside a league file when ``text`` is one."""
    if text.endswith(".toml"):
        from hexarena.leagues.schedule.config import load_league

        return load_league(text).name
    return text


def league_tables(ws, name: str, which: str, by: str | None, fmt: str) -> str:
    from hexarena.leagues.results import definitions, store
    from hexarena.leagues.results.ratings import ratings
    from hexarena.leagues.results.tables import crosstable, ranked, render

    league = definitions.league_config(ws, name)
    tally = store.tally(ws, name)
    if not len(tally.games):
        raise ConfigError(f"league {name!r} has no finished games yet (run it with 'hexarena league run FILE')")
    parts = [((), tally)] if by is None else [((label,), part) for label, part in tally.by_configuration()]
    sections = []
    for group, part in parts:
        table = ranked(part.sums, league.flag_threshold)
        if which in ("all", "standings"):
            sections.append(((*group, "standings"), table))
        if which in ("all", "crosstable"):
            sections.append(((*group, "crosstable"), crosstable(part.games, table["bot"].tolist()).reset_index()))
        if which in ("all", "ratings"):
            sections.append(((*group, "ratings"), ratings(part.games)))
    if fmt == "csv" and by is not None:  # one table: each configuration's rows, named in a first column
        import pandas as pd

        sections = [((which,), pd.concat([frame.assign(configuration=path[0])[["configuration", *frame.columns]]
                                          for path, frame in sections], ignore_index=True))]
    return render(sections, fmt)


def register(app: typer.Typer) -> None:
    league_app.command("run")(run)
    league_app.command("table")(table)
    league_app.command("status")(status)
    league_app.command("export")(export)
    app.add_typer(league_app, name="league")
    app.command("demo")(demo)
