"""What ``hexarena league`` prints beyond the tables: an adaptive league's next tables (``league status``), and
the ratings as they stood at a time (``league table --at``, from the league's snapshots, schema 6)."""

from __future__ import annotations

import sys
from datetime import UTC, datetime

import pandas as pd
import typer

from hexarena.leagues.running.adaptive import AdaptiveLeague
from hexarena.leagues.running.runner import STOPS
from hexarena.protocol.errors import ConfigError


def show_adaptive(adaptive: AdaptiveLeague, fmt: str) -> None:
    """The next batch (each table's reason, expected information and the pair's 95% gap interval), the bots still
    calibrating (their ±, in Elo), or the stop rule that holds."""
    from hexarena.leagues.results.tables import render

    batch = adaptive.batch
    sections = []
    if batch.tables:
        rows = [(t.a, t.b, t.reason, round(t.information, 3), round(t.gap), round(t.low), round(t.high))
                for t in batch.tables]
        sections.append((("next tables (adaptive pairing: expected information; the pair's Elo gap, 95%)",),
                         pd.DataFrame(rows, columns=["bot", "opponent", "reason", "information", "gap", "gap_low",
                                                     "gap_high"])))
    field = adaptive.field
    if field is not None:
        calibrating = [(name, *adaptive.calibration(name)) for name in field.names
                       if adaptive.calibration(name)[2] < adaptive.pairing.spread * adaptive.pairing.games]
        if calibrating:
            sections.append((("calibrating",), pd.DataFrame(
                [(name, round(elo), f"±{half:.0f}", games) for name, elo, half, games in calibrating],
                columns=["bot", "elo", "interval", "games"])))
    if sections:
        print(render(sections, fmt))
    elif batch.stop:
        print(f"adaptive pairing: stopped: {STOPS.get(batch.stop, batch.stop)}")
    else:
        print("adaptive pairing: the missing games of the meetings so far come first")


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
        since = f"its first is of {first['taken'].iloc[0]}" if len(first) else "it has none yet: each run of it stores one"
        raise ConfigError(f"league {name!r} has no ratings snapshot by {moment.isoformat()} ({since})")
    batch, taken = int(frame["batch"].iloc[0]), frame["taken"].iloc[0]
    shown = frame.drop(columns=["batch", "taken"])
    shown.insert(0, "rank", range(1, len(shown) + 1))
    caption = f"ratings as they stood at {moment.isoformat()} (snapshot {batch}, taken {taken}; 95% interval)"
    if fmt == "csv":  # one loadable table on stdout: which snapshot it is goes beside it
        print(f"hexarena: {caption}", file=sys.stderr)
    return render([((caption,), shown)], fmt)
