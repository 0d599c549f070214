"""``hexarena publish NAME --out DIR``: a league's static results site and standings files."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from hexarena.commands import interrupts_end_with
from hexarena.commands.bots import HomeOption


def publish(
    name: Annotated[str, typer.Argument(help="the league's name (or its file)")],
    out: Annotated[Path | None, typer.Option("--out", help="folder to write the site into (created if missing; "
                                                           "default HOME/site/NAME)")] = None,
    home: HomeOption = None,
) -> None:
    """Write a league's results site (open OUT/index.html, or host OUT anywhere) and its standings files.

    Publishing again into the same folder replaces the site: pages it no longer has are removed (only
    the files a publish wrote there, listed in OUT/.hexarena-site.json; your own files stay)."""
    from hexarena.commands.league import league_name
    from hexarena.leagues.site.publish import publish as write_site
    from hexarena.leagues.workspace.home import Workspace

    name = league_name(name)
    # SIGTERM as Ctrl-C: the analysis process stopped and the half-written site removed, not left behind
    with interrupts_end_with("publish interrupted; publish again to write the whole site"), Workspace(home) as ws:
        if out is None:
            out = ws.site_dir / name
        index = write_site(ws, name, out)
    print(f"wrote {index}")
    print(f"      {', '.join(str(out / f) for f in ('standings.md', 'standings.csv', 'standings.json'))}")


def register(app: typer.Typer) -> None:
    app.command()(publish)
