"""``--no-sandbox`` (match, sprt, check, league run, demo, submit) and a league file's ``sandbox = false``.

Every command that starts bots calls ``sandboxed = choose(no_sandbox)`` before it starts one and hands
the answer on: into its ``RefereeSettings`` (``referee/settings.py``), or as ``sandboxed=`` to the registry's
submit and seeding. The choice is the command's, made afresh each time (no process-wide switch), and
warned about on stderr every time it is off.
"""

from __future__ import annotations

import sys
from typing import Annotated

import typer

NoSandboxOption = Annotated[bool, typer.Option(
    "--no-sandbox", help="run bots unconfined, with your rights (files, network, processes): only bots you trust")]

WARNING = ("hexarena: warning: the sandbox is off ({why}): bots run unconfined, with your user's rights over "
           "files, network and processes; use this only for bots you trust")


def choose(no_sandbox: bool, why: str = "--no-sandbox") -> bool:
    """Whether bots are sandboxed: not if ``no_sandbox`` (warned here); the refusal where no sandbox can be made
    comes at a bot's first launch."""
    if no_sandbox:
        print(WARNING.format(why=why), file=sys.stderr, flush=True)
    return not no_sandbox
