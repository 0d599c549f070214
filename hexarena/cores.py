"""``--pin-cores``, as ``league run``, ``sprt`` and ``serve`` take it: games at once held to cores of their own
(``hexarena.referee.pool.RefereeProcessPool``)."""

from __future__ import annotations

import sys
from typing import Annotated

import typer

PinCoresOption = Annotated[bool, typer.Option(
    "--pin-cores", help="with games at once on this machine: each game's referee and its bots on a core of their own "
                        "(faster when the games fill the cores; a bot cannot use a second core then)")]


def pin_cores_ignored(why: str) -> None:
    """The one-line warning of a run ``--pin-cores`` cannot apply to (``why``: "plays one game at a time")."""
    print(f"hexarena: warning: --pin-cores ignored: it holds games played at once to cores, and this run {why}",
          file=sys.stderr)
