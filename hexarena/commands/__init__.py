"""The CLI's commands, a module each (``hexarena/cli.py`` registers them), the one way they end in an error, and
how a long one stops at Ctrl-C or SIGTERM."""

from __future__ import annotations

import contextlib
import signal
import sys
from collections.abc import Iterator
from typing import NoReturn


def fail(message: str, status: int = 2) -> NoReturn:
    """``hexarena: error: MESSAGE``, one line on stderr, and exit with ``status`` (SystemExit). A command that words
    its own interrupt (what it kept) ends here too: typer would answer a KeyboardInterrupt with a status and no word,
    and the CLI's "interrupted" would be a second line."""
    print(f"hexarena: error: {message}", file=sys.stderr)
    raise SystemExit(status)


class Terminated(KeyboardInterrupt):
    """SIGTERM, raised where Ctrl-C's KeyboardInterrupt would be (``stopped_by_sigterm``): whatever a command keeps
    at a Ctrl-C it keeps at a SIGTERM, and only its exit status differs (``interrupted_status``)."""


@contextlib.contextmanager
def stopped_by_sigterm() -> Iterator[None]:
    """In the block, SIGTERM stops the command as Ctrl-C does (``Terminated``), where its default would end the
    process on the spot, with no finished game or checkpoint kept and no word said."""
    def terminated(signum: int, frame: object) -> None:
        raise Terminated()

    previous = signal.signal(signal.SIGTERM, terminated)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def interrupted_status(stop: KeyboardInterrupt) -> int:
    """The exit status of a command stopped by ``stop``: 143 for SIGTERM (128 + 15, as a shell reports a process a
    signal ended), 130 for Ctrl-C. A command that lets the interrupt go gets 130 from typer whichever it was: one
    stopped by ``stopped_by_sigterm`` words its own end (``fail``) with this status."""
    return 143 if isinstance(stop, Terminated) else 130


@contextlib.contextmanager
def interrupts_end_with(message: str) -> Iterator[None]:
    """Ctrl-C or SIGTERM in the block (what it was doing undone by its own ``finally``s and ``with``s) ends the
    command with ``message`` (``fail``) and the interrupt's status."""
    try:
        with stopped_by_sigterm():
            yield
    except KeyboardInterrupt as stop:
        fail(message, interrupted_status(stop))
