"""``hexarena backup DEST``: a consistent copy of the workspace database, taken while leagues run."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from hexarena.commands.bots import HomeOption


def backup(
    dest: Annotated[Path, typer.Argument(help="the file to write the copy to (replaced whole)")],
    home: HomeOption = None,
) -> None:
    """Copy the workspace database (SQLite's online backup: safe during a league run); see docs/operations.md."""
    from hexarena.leagues.workspace.home import Workspace

    with Workspace(home) as ws:
        ws.backup(dest)
        games = ws.db.execute("SELECT COUNT(*) FROM games").fetchone()[0]
    print(f"backed up {ws.database} ({games} games) to {dest}; the bot snapshots are the folder {ws.registry_dir}")


def register(app: typer.Typer) -> None:
    app.command()(backup)
