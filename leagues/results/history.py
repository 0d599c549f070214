"""A league's ratings over time, as the server's API and the site show them (from the store's snapshots).

    history_payload(ws, name)        every snapshot: when, and each version's Elo, 95% interval and games
    calibration_payload(ws, name)    the latest snapshot: each version calibrating or calibrated, ``±X Elo after N``

A version is *calibrating* while its 95% interval is wider than ±``CALIBRATED`` Elo. A bot's versions are told
apart by ``version`` (name@hash): the site marks where a new one starts.
"""

from __future__ import annotations

from hexarena.leagues.results import store
from hexarena.leagues.workspace.home import Workspace

CALIBRATED = 50.0  # Elo: a 95% interval within ± this is a calibrated rating


def history_payload(ws: Workspace, name: str) -> dict:
    """``{"league", "snapshots": [{"batch", "taken", "ratings": [{"bot", "version", "elo", "elo_low", "elo_high",
    "games"}]}]}``, oldest first, each snapshot's ratings best first."""
    frame = store.snapshots(ws, name)
    snapshots = []
    for (batch, taken), part in frame.groupby(["batch", "taken"], sort=True):
        ratings = part.drop(columns=["batch", "taken"]).round({"elo": 1, "elo_low": 1, "elo_high": 1})
        snapshots.append({"batch": int(batch), "taken": taken, "ratings": ratings.to_dict(orient="records")})
    return {"league": name, "snapshots": snapshots}


def calibration_payload(ws: Workspace, name: str) -> dict:
    """``{"league", "batch", "taken", "bots": [{"bot", "version", "elo", "plus_minus", "games", "calibrating",
    "text"}]}`` from the latest snapshot (``bots`` empty before the first)."""
    frame = store.snapshots(ws, name)
    if not len(frame):
        return {"league": name, "batch": 0, "taken": "", "bots": []}
    last = frame[frame["batch"] == frame["batch"].max()]
    bots = []
    for row in last.itertuples():
        half = (row.elo_high - row.elo_low) / 2
        calibrating = half > CALIBRATED
        word = "calibrating" if calibrating else "calibrated"
        bots.append({"bot": row.bot, "version": row.version, "elo": round(row.elo, 1), "plus_minus": round(half, 1),
                     "games": int(row.games), "calibrating": calibrating,
                     "text": f"{word}: ±{half:.0f} Elo after {int(row.games)} games"})
    return {"league": name, "batch": int(last["batch"].iloc[0]), "taken": last["taken"].iloc[0], "bots": bots}
