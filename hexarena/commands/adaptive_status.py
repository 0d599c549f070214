"""``league status`` of an adaptive league: why each next table was chosen, or why the league stops."""

from __future__ import annotations

import pandas as pd

from hexarena.leagues.running.adaptive import AdaptiveLeague
from hexarena.leagues.running.runner import STOPS


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
