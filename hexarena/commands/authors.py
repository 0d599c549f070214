"""``hexarena authors add NAME [--admin] | list | revoke NAME``: who may upload bots to ``hexarena serve``."""

from __future__ import annotations

import sys
from typing import Annotated

import typer

from hexarena.commands.bots import HomeOption, format_table, open_workspace, when
from hexarena.leagues.registry import authors

authors_app = typer.Typer(help="Authors of the server (hexarena serve): add one (prints a token), list, revoke.",
                          no_args_is_help=True)


@authors_app.command("add")
def add(
    name: Annotated[str, typer.Argument(help="the author's name: lower-case letters, digits, '-', '_'; "
                                             "the bot names they upload are theirs")],
    admin: Annotated[bool, typer.Option("--admin", help="the organiser: may also start league runs "
                                                        "(POST /api/leagues/NAME/run)")] = False,
    home: HomeOption = None,
) -> None:
    """Add an author and print their token, once: hexarena keeps only its SHA-256. Give it to the author."""
    with open_workspace(home) as ws:
        token = authors.add(ws, name, admin=admin)
    print(token)
    print(f"hexarena: author {name}{' (admin)' if admin else ''} added; the line above is their token, shown "
          "this once (hexarena keeps only its hash): they send it as 'Authorization: Bearer TOKEN', or as "
          "HEXARENA_TOKEN to 'hexarena submit --server'", file=sys.stderr)


@authors_app.command("list")
def list_authors(home: HomeOption = None) -> None:
    """Every author: admin or not, when added, revoked or active (tokens are never shown again)."""
    with open_workspace(home) as ws:
        found = authors.list_authors(ws)
    if not found:
        print("no authors yet; add one with 'hexarena authors add NAME'")
        return
    print(format_table(["NAME", "ROLE", "ADDED", "STATUS"],
                       [[a.name, "admin" if a.admin else "author", when(a.created),
                         f"revoked {when(a.revoked)}" if a.revoked else "active"] for a in found]))


@authors_app.command("revoke")
def revoke(name: Annotated[str, typer.Argument(help="an author's name")], home: HomeOption = None) -> None:
    """Revoke an author's token at once; their bots and games stay (and their names stay theirs)."""
    with open_workspace(home) as ws:
        changed = authors.revoke(ws, name)
    print(f"revoked {name}'s token: it is refused from now on" if changed else f"{name}'s token was already revoked")


def register(app: typer.Typer) -> None:
    app.add_typer(authors_app, name="authors")
