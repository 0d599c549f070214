"""``--no-sandbox`` (match, sprt, check, league run, demo, submit) and a league file's ``sandbox = false``.

Every command that starts bots calls ``choose(no_sandbox)`` before it starts one: the choice
is the process's (``referee/sandbox.py``), made afresh by each command, and warned about on
stderr every time it is off.
"""

from __future__ import annotations

import sys
from typing import Annotated

import typer

from hexarena.referee import sandbox

NoSandboxOption = Annotated[bool, typer.Option(
    "--no-sandbox", help="run bots unconfined, with your rights (files, network, processes): only bots you trust")]

WARNING = ("hexarena: warning: the sandbox is off ({why}): bots run unconfined, with your user's rights over "
           "files, network and processes; use this only for bots you trust")


def choose(no_sandbox: bool, why: str = "--no-sandbox") -> None:
    """Sandbox bots unless ``no_sandbox``; the refusal where no sandbox can be made comes at a bot's first launch."""
    sandbox.configure(enabled=not no_sandbox)
    if no_sandbox:
        print(WARNING.format(why=why), file=sys.stderr, flush=True)
