"""``hexarena check BOT``: the conformance checklist a bot author runs before submitting."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from protocol.errors import ConfigError


def check(
    bot: Annotated[Path, typer.Argument(help="the bot's folder (with its bot.toml)", show_default=False)],
    time: Annotated[str, typer.Option(help="per move (300ms) or bank+increment (10s+100ms)")] = "1s",
) -> None:
    """Check that a bot speaks protocol v1 correctly: prints PASS/FAIL per item; exit 0 only if all pass."""
    from referee.check import check_bot
    from referee.clock import TimeControl

    if not bot.is_dir():
        raise ConfigError(f"{bot}: not a bot folder (no such directory)")
    report = check_bot(bot, time_control=TimeControl.parse(time))
    print(report.to_text())
    raise typer.Exit(0 if report.passed else 1)


def register(app: typer.Typer) -> None:
    app.command()(check)
