"""``league table NAME --at TIME``: a league's ratings as they stood then (its snapshots, schema 6)."""

from __future__ import annotations

from datetime import UTC, datetime

import typer

from hexarena.protocol.errors import ConfigError


def parse_moment(text: str) -> datetime:
    """``2026-12-02``, ``2026-12-02T10:30`` or with seconds and an offset; without an offset, UTC."""
    try:
        moment = datetime.fromisoformat(text)
    except ValueError:
        raise typer.BadParameter(f"{text!r} is not a time (give ISO 8601: 2026-12-02, 2026-12-02T10:30, "
                                 "2026-12-02T10:30:00+01:00; UTC unless it says otherwise)") from None
    if len(text) == 10:  # a day alone: as it stood at its end
        moment = moment.replace(hour=23, minute=59, second=59)
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


def table_at(ws, name: str, moment: datetime, fmt: str) -> str:
    """The ratings of the league's last snapshot taken by ``moment``; ConfigError when there is none."""
    from hexarena.leagues.results import store
    from hexarena.leagues.results.tables import render

    frame = store.snapshots(ws, name, at=moment)
    if not len(frame):
        first = store.snapshots(ws, name)
        since = f"its first is of {first['taken'].iloc[0]}" if len(first) else "it has none yet (runs store them)"
        raise ConfigError(f"league {name!r} has no ratings snapshot by {moment.isoformat()} ({since})")
    batch, taken = int(frame["batch"].iloc[0]), frame["taken"].iloc[0]
    shown = frame.drop(columns=["batch", "taken"])
    shown.insert(0, "rank", range(1, len(shown) + 1))
    return render([((f"ratings as they stood at {moment.isoformat()} (snapshot {batch}, taken {taken}; 95% interval)",),
                    shown)], fmt)
