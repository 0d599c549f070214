"""``hexarena check BOT``: the conformance checklist a bot author runs before submitting."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Annotated

import typer

from hexarena.unconfined import NoSandboxOption, choose
from hexarena.protocol.errors import ConfigError


def check(
    bot: Annotated[Path, typer.Argument(help="the bot's folder (with its bot.toml), or a registered NAME or NAME@HASH",
                                    show_default=False)],
    time: Annotated[str, typer.Option(help="per move (300ms) or bank+increment (10s+100ms)")] = "1s",
    home: Annotated[Path | None, typer.Option(help="workspace of registered bots, for BOT given as NAME or NAME@HASH",
                                              show_default=False)] = None,
    logs: Annotated[Path | None, typer.Option(help="keep the bot's output of each crafted game in this folder",
                                              show_default=False)] = None,
    no_sandbox: NoSandboxOption = False,
) -> None:
    """Check that a bot speaks protocol v1 correctly: prints PASS/FAIL per item; exit 0 only if all pass."""
    sandboxed = choose(no_sandbox)
    from hexarena.commands.bots import open_workspace
    from hexarena.leagues.registry.resolve import bot_folder
    from hexarena.referee.check import CHECK_SETTINGS, check_bot
    from hexarena.referee.clock import TimeControl

    bot = bot_folder(lambda: open_workspace(home, sandboxed), str(bot))  # a registered bot: its snapshot
    if not bot.is_dir():
        raise ConfigError(f"{bot}: not a bot folder (no such directory)")
    if logs is not None:
        try:
            logs.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise ConfigError(f"--logs {logs}: cannot create the folder: {exc.strerror}") from None
    settings = dataclasses.replace(CHECK_SETTINGS, time_control=TimeControl.parse(time), log_dir=logs,
                                   sandboxed=sandboxed)
    report = check_bot(bot, settings)
    print(report.to_text())
    raise typer.Exit(0 if report.passed else 1)


def register(app: typer.Typer) -> None:
    app.command()(check)
