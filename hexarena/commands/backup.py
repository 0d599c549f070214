"""``hexarena backup DEST``: a whole backup of the workspace, taken while leagues run.

``DEST`` a folder (new or an earlier backup's): ``DEST/hexarena.db``, a consistent copy of the database, and
``DEST/registry/``, every bot snapshot (immutable and named by its hash: only those not copied already are).
``DEST`` a file (``*.db``, or an existing file): the database alone, as before.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Annotated

import typer

from hexarena.commands.bots import HomeOption
from hexarena.protocol.errors import ConfigError


def backup(
    dest: Annotated[Path, typer.Argument(help="a folder for a whole backup (the database and the bot snapshots), "
                                              "or a .db file for the database alone (replaced whole)")],
    home: HomeOption = None,
) -> None:
    """Back up the workspace: the database (SQLite's online backup: safe during a league run) and the bot
    snapshots; see docs/operations.md."""
    from hexarena.leagues.workspace.home import Workspace

    whole = not (dest.suffix == ".db" or dest.is_file())
    with Workspace(home) as ws:
        ws.backup(dest / "hexarena.db" if whole else dest)
        games = ws.db.execute("SELECT COUNT(*) FROM games").fetchone()[0]
        copied = copy_registry(ws.registry_dir, dest / "registry") if whole else None
    if copied is None:
        print(f"backed up {ws.database} ({games} games) to {dest}; the bot snapshots are the folder {ws.registry_dir} "
              "(give a folder instead of a .db file for a whole backup)")
        return
    print(f"backed up {ws.database} ({games} games) to {dest / 'hexarena.db'} and the bot snapshots to "
          f"{dest / 'registry'} ({copied} new of {sum(1 for _ in snapshots(ws.registry_dir))})")


def snapshots(registry: Path):
    return (folder for folder in sorted(registry.iterdir()) if folder.is_dir() and not folder.name.startswith("."))


def copy_registry(registry: Path, dest: Path) -> int:
    """Copy each snapshot of ``registry`` that ``dest`` lacks (a snapshot never changes: one there is whole, as it
    is copied beside its name first, then renamed); returns how many were copied."""
    copied = 0
    try:
        dest.mkdir(parents=True, exist_ok=True)
        for folder in snapshots(registry) if registry.is_dir() else ():
            if (dest / folder.name).exists():
                continue
            partial = dest / f".{folder.name}.partial"
            shutil.rmtree(partial, ignore_errors=True)
            shutil.copytree(folder, partial, symlinks=True)
            partial.rename(dest / folder.name)
            copied += 1
    except OSError as exc:
        raise ConfigError(f"backup {dest}: cannot copy the bot snapshots: {exc.strerror or exc}") from None
    return copied


def register(app: typer.Typer) -> None:
    app.command()(backup)
