"""``hexarena doctor [--salvage NEWHOME]``: report what is wrong with a workspace's database; salvage its games."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from hexarena.commands.bots import HomeOption


def doctor(
    home: HomeOption = None,
    salvage: Annotated[Path | None, typer.Option(help="copy every intact league and game into this new workspace",
                                                 show_default=False)] = None,
) -> None:
    """Say which sandbox bots run in here; check the workspace database (pages, schema, every league definition and
    game record); exit 1 if damaged.
    With --salvage, copy what is intact into a new workspace (exit 0 once copied)."""
    from hexarena.leagues.results import doctor as examine
    from hexarena.leagues.results.wording import plural
    from hexarena.leagues.workspace.home import default_home
    from hexarena.protocol.errors import ConfigError
    from hexarena.referee import sandbox

    home = home if home is not None else default_home()
    try:
        print(f"sandbox: {sandbox.describe()}")
    except ConfigError as exc:  # a bad HEXARENA_SANDBOX: said, and the database is still checked
        print(f"sandbox: {exc}")
    from hexarena.referee import watchdog

    print(watchdog.describe())
    if salvage is not None:
        report, copied = examine.salvage(home, salvage)
    else:
        report, copied = examine.examine(home), None
    for line in report.lines:
        print(f"{report.database}: {line}")
    print(f"{report.database}: {plural(len(report.leagues), 'league')} and {plural(len(report.games), 'game')} intact, "
          f"{plural(report.garbled, 'row')} garbled or unreadable" + ("" if report.lines else "; nothing wrong found"))
    if copied is not None:
        print(f"salvaged {plural(copied, 'game')} of {plural(len(report.leagues), 'league')} into {salvage} (bots: the reference bots; "
              "submit your own again)")
    if not report.sound and copied is None:
        raise typer.Exit(1)


def register(app: typer.Typer) -> None:
    app.command()(doctor)
