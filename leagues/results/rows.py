"""A league's results as rows: one per seat of every game, and the same folded per bot (the ``Tally``).

    seat_rows(record)       one dict per seat of a game, the columns of ``SEAT_COLUMNS``
    normalise(frame)        a frame of such rows as every reader takes it: categorical bot and configuration,
                            ordered by game and seat
    Tally                   the rows folded: sums per configuration and bot, games by seats and placings
    by_configuration(frame) the rows of each configuration, in label order

Pure data, no storage and no presentation: ``hexarena.leagues.results.store`` writes these rows (the results
table, the totals and shapes it folds from them) and reads them back as frames and tallies;
``hexarena.leagues.results.tables`` computes and shows standings from them. Each seat's row is

    game, configuration, players, seat, bot,
    score (cells taken), against (cells taken by the others at the table), placement (1 = first),
    points, win, draw, loss (0/1), moves (own moves, not substituted), think_ms (their total),
    faults (this seat's own faults in the game), fault_<reason> for every reason in hexarena.referee.record.FAULTS,
    fault_host_stall (its timeouts the host caused, ``hexarena.referee.stalls``: counted here, not as its
    timeouts nor in ``faults``)

Points by placing: at a table of k players a seat earns, against each of the k−1 others, 1 if it placed
ahead, ½ if level, 0 if behind, and the sum is divided by k−1. With 2 players that is win 1, draw ½,
loss 0; with 3–4 players, first alone = 1, last alone = 0. ``win`` means first place alone, ``draw``
first place shared, ``loss`` anything else (``hexarena.protocol.rules.Outcome.result_for``).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING

from hexarena.protocol.rules import Outcome
from hexarena.referee.record import FAULTS, GameRecord

if TYPE_CHECKING:  # imported where used: a league run stores its first games before it needs pandas
    import pandas as pd

HOST_STALL = "fault_host_stall"  # a timeout with ``host_stall``: the host's fault, not the bot's
FAULT_COLUMNS = [f"fault_{reason}" for reason in FAULTS]
SEAT_COLUMNS = ["game", "configuration", "players", "seat", "bot", "score", "against", "placement", "points",
                "win", "draw", "loss", "moves", "think_ms", "faults", *FAULT_COLUMNS, HOST_STALL]
# what adds up per bot: the store's totals table keeps these sums, the standings are computed from them
SUM_COLUMNS = ["win", "draw", "loss", "points", "score", "against", "moves", "think_ms", "faults", *FAULT_COLUMNS,
               HOST_STALL]


def seat_rows(record: GameRecord) -> list[dict]:
    """One dict per seat of a game, with the columns of ``SEAT_COLUMNS``."""
    placements, scores = record.result.placements, record.result.scores
    outcome = Outcome(tuple(scores), tuple(placements))
    players = len(record.seats)
    total = sum(scores)
    rows = []
    for seat, bot in enumerate(record.seats):
        mine = placements[seat]
        ahead = sum(p > mine for p in placements)
        level = sum(p == mine for p in placements) - 1
        result = outcome.result_for(seat)
        timed = [m.ms for m in record.moves if m.seat == seat and not m.substituted]
        faults = {column: 0 for column in FAULT_COLUMNS}
        stalls = 0
        for fault in record.result.forfeits:
            if fault.seat == seat and fault.host_stall is not None:
                stalls += 1
            elif fault.seat == seat:
                faults[f"fault_{fault.reason}"] += 1
        rows.append({
            "game": record.id, "configuration": record.config.label, "players": players, "seat": seat, "bot": bot,
            "score": scores[seat], "against": total - scores[seat], "placement": mine,
            "points": (ahead + level / 2) / (players - 1),
            "win": int(result == "win"), "draw": int(result == "draw"), "loss": int(result == "loss"),
            "moves": len(timed), "think_ms": float(sum(timed)), "faults": sum(faults.values()), **faults,
            HOST_STALL: stalls,
        })
    return rows


def normalise(frame: pd.DataFrame) -> pd.DataFrame:
    """Categorical bot and configuration columns (fast grouping), rows ordered by game and seat."""
    frame = frame.astype({"bot": "category", "configuration": "category"})
    return frame.sort_values(["game", "seat"], kind="stable", ignore_index=True)


def by_configuration(frame: pd.DataFrame) -> Iterator[tuple[str, pd.DataFrame]]:
    """``(configuration label, its rows)`` for each configuration that has games, in label order."""
    for label in sorted(frame["configuration"].astype(str).unique()):
        yield label, frame[frame["configuration"] == label]


@dataclass(frozen=True)
class Tally:
    """A league's results folded for the tables: ``sums`` one row per configuration and bot (configuration, bot,
    games, faulty: games with a fault of the bot's seat, and the sum of every column of ``SUM_COLUMNS``; what
    ``hexarena.leagues.results.tables.ranked`` takes), and ``games`` a normalised frame of the columns game,
    configuration, players, seat, bot, placement and weight, one game per distinct configuration, seats and
    placings standing for ``weight`` games (for ``head_to_head``, ``crosstable`` and
    ``hexarena.leagues.results.ratings``). ``hexarena.leagues.results.tables.tally`` folds a frame of seat rows;
    ``hexarena.leagues.results.store.tally`` folds the stored results in SQL."""

    sums: pd.DataFrame
    games: pd.DataFrame

    def by_configuration(self) -> Iterator[tuple[str, Tally]]:
        """``(configuration label, its tally)`` for each configuration that has games, in label order."""
        for label, games in by_configuration(self.games):
            yield label, Tally(self.sums[self.sums["configuration"].astype(str) == label], games)
