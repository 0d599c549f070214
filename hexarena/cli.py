"""The ``hexarena`` command line: a thin typer layer over the library.

Each concern registers its commands from its own module in ``hexarena/commands/``
(a ``register(app)`` function; every module there is picked up, in name order).
Command modules import heavy libraries inside their functions, so ``hexarena --help`` stays fast.
Every user error (``ConfigError``) ends as one line on stderr and exit status 2; a full disk as one line
naming the path and its free space, exit status 1. What the library warns the user of through its loggers
(``SAID``: a garbled stored record left out, say) is one ``hexarena: warning:`` line on stderr.
"""

from __future__ import annotations

import importlib
import logging
import os
import pkgutil
import sqlite3
import sys
from pathlib import Path
from typing import Annotated, NoReturn

import typer
from typer._click import exceptions as click_errors  # typer ships its own click

import hexarena.commands
from hexarena.commands import fail
from hexarena.leagues.errors import ExecutorLost, WorkspaceBusy
from hexarena.leagues.workspace.home import default_home
from hexarena.protocol.errors import ConfigError, OutOfSpace, RulesError, is_out_of_space
from hexarena.referee.errors import WorkerLost
from hexarena.referee.exiting import exit_now

app = typer.Typer(
    name="hexarena",
    help="Referee, leagues and results for Dots and Hexagons bots written in any language.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    add_completion=False,
)



@app.callback()
def _root(
    ctx: typer.Context,
    home: Annotated[Path | None, typer.Option(
        "--home", help="workspace folder for every command (default: $HEXARENA_HOME, else ./hexarena-home); "
                       "a command's own --home wins", show_default=False)] = None,
) -> None:
    """Referee, leagues and results for Dots and Hexagons bots written in any language."""
    if home is not None:  # `hexarena --home DIR league run …`: the commands read it as $HEXARENA_HOME
        before = os.environ.get("HEXARENA_HOME")
        os.environ["HEXARENA_HOME"] = str(home)
        ctx.call_on_close(lambda: _restore("HEXARENA_HOME", before))


def _restore(name: str, value: str | None) -> None:
    if value is None:
        os.environ.pop(name, None)
    else:
        os.environ[name] = value


# commands a module registers besides the one named like it (``hexarena/commands/NAME.py`` registers NAME)
ALSO_REGISTERS = {"submit": "bots", "demo": "league"}


def command_modules() -> list[str]:
    return sorted(info.name for info in pkgutil.iter_modules(hexarena.commands.__path__))


def module_of(argv: list[str]) -> str | None:
    """The command module ``argv`` runs, or None (help, no command, an unknown word: every module is loaded).

    Loading only that module keeps a command's startup to what it needs: ``hexarena match`` does not pay
    for the server's, sprt's or the publisher's imports (a short match is measured against a minimal referee)."""
    words = iter(argv)
    for word in words:
        if word == "--home":
            next(words, None)
        elif not word.startswith("-"):
            module = ALSO_REGISTERS.get(word, word)
            return module if module in command_modules() else None
        elif not word.startswith("--home="):
            return None  # --help and the like: the whole app
    return None


_registered: set[str] = set()


def register(argv: list[str] | None = None) -> typer.Typer:
    """Register the commands ``argv`` runs (every command without ``argv``) on ``app``, once each; ``app``."""
    only = module_of(argv) if argv is not None else None
    for name in [only] if only else command_modules():
        if name not in _registered:
            _registered.add(name)
            importlib.import_module(f"hexarena.commands.{name}").register(app)
    return app


# loggers whose warnings are for the user: each is printed as a line of its own (``Said``)
SAID = ("hexarena.leagues.results.store", "hexarena.leagues.results.analyses")


class Said(logging.Handler):
    """A logged warning as the CLI says it: ``hexarena: warning: MESSAGE`` on the stderr of the moment."""

    def __init__(self) -> None:
        super().__init__(logging.WARNING)

    def emit(self, record: logging.LogRecord) -> None:
        print(f"hexarena: warning: {record.getMessage()}", file=sys.stderr)


def say_warnings() -> None:
    """Print the warnings of the ``SAID`` loggers (once per process, however often ``main`` runs)."""
    for name in SAID:
        logger = logging.getLogger(name)
        if not any(isinstance(handler, Said) for handler in logger.handlers):
            logger.addHandler(Said())
            logger.setLevel(logging.WARNING)


def one_blas_thread() -> None:
    """numpy's BLAS on one thread unless the organiser says otherwise (``OPENBLAS_NUM_THREADS``). At import
    OpenBLAS starts a thread per core, which takes CPU from the games a league plays meanwhile (0.08 s a run
    here); on a loaded machine more threads make the ratings' dense solves slower, not faster (1,000 bots: about
    10 s with two, 1 s with one, ``benchmarks/field.py``)."""
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")


def command() -> NoReturn:
    """The ``hexarena`` command (and ``python -m hexarena``): ``main`` on the command line's arguments, ended by
    ``exit_now``. A caller in Python calls ``main``, which ends with SystemExit."""
    try:
        main()
    except SystemExit as done:
        exit_now(done.code)


def main(argv: list[str] | None = None) -> NoReturn:
    """The command ``argv`` (else the command line's arguments) asks for, ended by SystemExit: usage errors and
    ConfigErrors are one line on stderr, exit 2; a lost cluster or referee worker, a database another process keeps
    locked, a full disk (``OutOfSpace``, or an OSError/SQLite error of one) and MemoryError are one line, exit 1."""
    argv = sys.argv[1:] if argv is None else argv
    one_blas_thread()
    say_warnings()
    register(argv)
    try:
        status = app(args=argv, standalone_mode=False)
    except click_errors.NoArgsIsHelpError as exc:
        print(exc.ctx.get_help() if exc.ctx else "", file=sys.stderr)
        sys.exit(2)
    except click_errors.UsageError as exc:
        hint = f" (see '{exc.ctx.command_path} --help')" if exc.ctx else ""
        fail(exc.format_message() + hint)
    except (typer.Abort, KeyboardInterrupt):
        fail("interrupted", 130)
    except click_errors.ClickException as exc:
        fail(exc.format_message())
    except (ConfigError, RulesError) as exc:
        fail(str(exc))
    except (ExecutorLost, WorkerLost, WorkspaceBusy) as exc:  # not the input's fault: what plays the games is gone
        fail(str(exc), 1)  # (a cluster, a killed worker), or another process keeps the database locked
    except OutOfSpace as exc:
        fail(str(exc), 1)
    except (OSError, sqlite3.Error) as exc:  # a full disk the command did not name a path for: the workspace's
        if not is_out_of_space(exc):
            raise
        fail(str(OutOfSpace(getattr(exc, "filename", None) or default_home())), 1)
    except MemoryError:
        fail("out of memory: ask for less (a smaller --memory, board or --concurrency)", 1)
    if status == 130:  # typer turns Ctrl-C into this status without a word
        fail("interrupted", 130)
    sys.exit(status if isinstance(status, int) else 0)


if __name__ == "__main__":
    command()
