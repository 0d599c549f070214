"""The CLI's commands, a module each (``hexarena/cli.py`` registers them), and the one way they end in an error."""

from __future__ import annotations

import sys
from typing import NoReturn


def fail(message: str, status: int = 2) -> NoReturn:
    """``hexarena: error: MESSAGE``, one line on stderr, and exit with ``status`` (SystemExit). A command that words
    its own interrupt (what it kept) ends here too: typer would answer a KeyboardInterrupt with a status and no word,
    and the CLI's "interrupted" would be a second line."""
    print(f"hexarena: error: {message}", file=sys.stderr)
    raise SystemExit(status)
