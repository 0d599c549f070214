"""League tables with pandas: standings and crosstables, pure functions over one frame of per-seat results.

This module owns the tables' computations and their presentation, and no storage: it reads no database.
Everything starts from a *seat frame*: one row per seat of every game, the rows and columns of
``hexarena.leagues.results.rows`` (``seat_frame(records)`` builds one from game records;
``hexarena.leagues.results.store.seat_frame`` reads one from the store's results table), or from a ``Tally``,
the same rows folded per bot (``tally(frame)``, or ``hexarena.leagues.results.store.tally``).

Standings rank by score % (points per game, so a bot that joined late is not behind for having played
less), then points, then cell difference. A bot is *flagged* when the share of its games with at least
one fault is above the league's threshold. Tables split by configuration with ``Tally.by_configuration``.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Iterable

import numpy as np
import pandas as pd

from hexarena.leagues.results.rows import (
    FAULT_COLUMNS,
    HOST_STALL,
    SEAT_COLUMNS,
    SUM_COLUMNS,
    Tally,
    normalise,
    seat_rows,
)
from hexarena.leagues.results.wording import markdown_table
from hexarena.referee.record import GameRecord


def seat_frame(records: Iterable[GameRecord]) -> pd.DataFrame:
    """The seat frame of some game records (``hexarena.leagues.results.rows``)."""
    rows = [row for record in records for row in seat_rows(record)]
    return normalise(pd.DataFrame(rows, columns=SEAT_COLUMNS))


def tally(frame: pd.DataFrame) -> Tally:
    """The tally of a seat frame (each game its own, weight 1)."""
    games = frame[["game", "configuration", "players", "seat", "bot", "placement"]].assign(weight=1)
    return Tally(bot_sums(frame), games)


def bot_sums(frame: pd.DataFrame) -> pd.DataFrame:
    """What the standings add up, one row per configuration and bot: configuration, bot, games, faulty
    (games with a fault of the bot's seat) and the sum of every column of ``SUM_COLUMNS``. The store
    computes the same table in SQL (``hexarena.leagues.results.store.tally``), without reading every seat."""
    keys = [frame["configuration"], frame["bot"]]
    sums = frame[SUM_COLUMNS].groupby(keys, observed=True).sum()
    sums.insert(0, "faulty", (frame["faults"] > 0).groupby(keys, observed=True).sum())
    sums.insert(0, "games", frame.groupby(keys, observed=True).size())
    return sums.reset_index()


def standings(frame: pd.DataFrame, flag_threshold: float = 0.1) -> pd.DataFrame:
    """One row per bot: rank, bot, games, wins, draws, losses, points, score %, cells for/against/diff,
    faults (the bot's own: total and one column per reason that occurred), host stalls (timeouts the host caused,
    if any: apart, not among its faults), mean think ms per move, flagged."""
    return ranked(bot_sums(frame), flag_threshold)


def ranked(sums: pd.DataFrame, flag_threshold: float = 0.1) -> pd.DataFrame:
    """``standings`` from the rows of ``bot_sums`` (of one configuration or several)."""
    sums = sums.groupby(sums["bot"].astype(str), sort=True)[["games", "faulty", *SUM_COLUMNS]].sum()
    table = pd.DataFrame({
        "games": sums["games"],
        "wins": sums["win"], "draws": sums["draw"], "losses": sums["loss"],
        "points": sums["points"],
    })
    table["score_pct"] = 100 * table["points"] / table["games"]
    table["cells_for"] = sums["score"]
    table["cells_against"] = sums["against"]
    table["cells_diff"] = sums["score"] - sums["against"]
    table["faults"] = sums["faults"]
    for column in (*FAULT_COLUMNS, HOST_STALL):
        if sums[column].any():
            table[column] = sums[column]
    table["think_ms"] = (sums["think_ms"] / sums["moves"].where(sums["moves"] > 0)).round(2)
    table["flagged"] = sums["faulty"] / table["games"] > flag_threshold
    table = table.sort_values(["score_pct", "points", "cells_diff"], ascending=False, kind="stable")
    keys = list(zip(table["score_pct"].round(9), table["points"].round(9)))  # sums of thirds: equal up to the order added
    table.insert(0, "rank", [1 + next(i for i, k in enumerate(keys) if k == key) for key in keys])
    return table.rename_axis("bot").reset_index()[["rank", "bot", *table.columns[1:]]]


def game_matrix(frame: pd.DataFrame, players: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Bot codes (into ``frame["bot"].cat.categories``) and placements of the games of ``players`` seats,
    as (games × seats) arrays, and how many games each row stands for (1, or a frame's ``weight`` column:
    ``hexarena.leagues.results.store.tally`` folds games alike in seats and placings into one). The frame must be ordered
    by game and seat (``normalise`` does that)."""
    part = frame[frame["players"] == players]
    counts = part["weight"].to_numpy()[::players] if "weight" in part else np.ones(len(part) // players)
    return (part["bot"].cat.codes.to_numpy(np.int64).reshape(-1, players),
            part["placement"].to_numpy().reshape(-1, players), counts.astype(float))


def head_to_head(frame: pd.DataFrame) -> pd.DataFrame:
    """Long form: bot, opponent, games (at the same table), points (the placing rule against that one
    opponent: 1 ahead, ½ level, 0 behind), score %."""
    names = np.asarray(frame["bot"].cat.categories, dtype=object)
    n = len(names)
    points = np.zeros(n * n)
    games = np.zeros(n * n, dtype=np.int64)
    for players in frame["players"].unique():
        codes, placements, counts = game_matrix(frame, int(players))
        for a, b in itertools.permutations(range(int(players)), 2):
            pair = codes[:, a] * n + codes[:, b]
            score = (placements[:, a] < placements[:, b]) + 0.5 * (placements[:, a] == placements[:, b])
            points += np.bincount(pair, weights=score * counts, minlength=n * n)
            games += np.bincount(pair, weights=counts, minlength=n * n).astype(np.int64)
    bot, opponent = np.divmod(np.arange(n * n), n)
    long = pd.DataFrame({"bot": names[bot], "opponent": names[opponent], "games": games, "points": points})
    long = long[long["games"] > 0].sort_values(["bot", "opponent"], ignore_index=True)
    long["score_pct"] = 100 * long["points"] / long["games"]
    return long


def crosstable(frame: pd.DataFrame, order: list[str] | None = None) -> pd.DataFrame:
    """Head-to-head scores as a square table of ``"points/games"`` (row bot against column bot).

    ``order`` lists the bots (default: by standings); pairs that never met are empty.
    """
    order = order if order is not None else standings(frame)["bot"].tolist()
    long = head_to_head(frame)
    cells = long.assign(cell=[f"{p:g}/{g}" for p, g in zip(long["points"], long["games"])])
    table = cells.pivot(index="bot", columns="opponent", values="cell") if len(cells) else pd.DataFrame()
    return table.reindex(index=order, columns=order).fillna("").rename_axis(index="bot", columns=None)


DECIMALS = {"points": 2, "score_pct": 1, "think_ms": 2, "elo": 0, "elo_low": 0, "elo_high": 0,
            "gap": 0, "gap_low": 0, "gap_high": 0, "los": 1}
TITLES = {"ratings": "ratings (Elo: Bradley-Terry for 2 players, Plackett-Luce for 3-4; 95% interval; "
                     "gap = Elo over the next bot, with its 95% interval; los = likelihood of superiority "
                     "over the next bot, %)"}


HEADINGS = {"rank": "Rank", "bot": "Bot", "games": "Games", "wins": "Wins", "draws": "Draws", "losses": "Losses",
            "points": "Points", "score_pct": "Score %", "cells_for": "Cells for", "cells_against": "Cells against",
            "cells_diff": "Cells diff", "faults": "Faults", "think_ms": "Think ms", "flagged": "Flagged",
            HOST_STALL: "Host stalls",
            "elo": "Elo", "elo_low": "Elo low", "elo_high": "Elo high", "gap": "Gap", "gap_low": "Gap low",
            "gap_high": "Gap high", "los": "LOS %"}


def heading(column: str) -> str:
    """A column's name for people (``score_pct`` → ``Score %``); other columns (bot names) as they are."""
    return HEADINGS.get(column, column)


def render(sections: list[tuple[tuple[str, ...], pd.DataFrame]], fmt: str = "text") -> str:
    """Tables named by a path, e.g. ``(("standings",), frame)`` or ``(("3x3 hex", "standings"), frame)``, as
    text (aligned columns, plain for pipes), rich (boxed tables with readable headings, for a terminal),
    md (GitHub tables), csv (``csv_text``; for one table: several CSV tables are no loadable file) or json (nested objects along the path, each
    table a list of rows)."""
    shown = [(path, rounded(table)) for path, table in sections]
    if fmt == "rich":
        return _rich(shown)
    if fmt == "json":
        tree: dict = {}
        for path, table in shown:
            node = tree
            for key in path[:-1]:
                node = node.setdefault(key, {})
            node[path[-1]] = json.loads(table.to_json(orient="records"))
        return json.dumps(tree, indent=1)
    parts = []
    for path, table in shown:
        title = " — ".join([TITLES.get(path[-1], path[-1]), *path[:-1]])
        if fmt == "csv":
            parts.append(csv_text(table))  # one table (``league table`` asks for one): no title line
        elif fmt == "md":
            parts.append(f"### {title}\n\n{markdown(table)}\n")
        else:
            text = blanked(table).to_string(index=False) if len(table) else "(nothing yet)"
            parts.append(f"{title}\n{text}\n")
    return "\n".join(parts).rstrip("\n")


def _rich(shown: list[tuple[tuple[str, ...], pd.DataFrame]]) -> str:
    import io
    import shutil

    from rich.console import Console
    from rich.table import Table

    out = io.StringIO()
    console = Console(file=out, force_terminal=True, width=shutil.get_terminal_size().columns)
    for path, table in shown:
        title = " — ".join([TITLES.get(path[-1], path[-1]), *path[:-1]])
        if not len(table):
            console.print(f"[bold]{title}[/bold]\n(nothing yet)\n")
            continue
        view = Table(title=title, title_justify="left", header_style="bold")
        for column in table.columns:
            numeric = pd.api.types.is_numeric_dtype(table[column])
            view.add_column(heading(str(column)), justify="right" if numeric else "left")
        for row in blanked(table).itertuples(index=False):
            view.add_row(*("" if pd.isna(value) else str(value) for value in row))
        console.print(view)
    return out.getvalue().rstrip("\n")


def blanked(table: pd.DataFrame) -> pd.DataFrame:
    """Missing figures as empty cells (to_string's na_rep does not reach Int64's <NA>)."""
    gaps = [c for c in table.columns if table[c].isna().any()]
    return table.assign(**{c: [("" if pd.isna(v) else str(v)) for v in table[c]] for c in gaps})


def rounded(table: pd.DataFrame) -> pd.DataFrame:
    """Figures as shown: ``DECIMALS`` places, whole numbers without a decimal point."""
    table = table.round({c: d for c, d in DECIMALS.items() if c in table.columns})
    return table.astype({c: "Int64" for c, d in DECIMALS.items() if d == 0 and c in table.columns})


def csv_text(table: pd.DataFrame) -> str:
    """A table as one CSV file pandas and spreadsheets load: floats to 6 decimals (an exact tie is 0, not a
    ``9.64e-15`` of rounding), flags as ``true``/``false`` (not Python's ``False``)."""
    table = table.copy()
    for column in table.columns:
        if pd.api.types.is_bool_dtype(table[column]):
            table[column] = table[column].map({True: "true", False: "false"})
        elif pd.api.types.is_float_dtype(table[column]):
            table[column] = table[column].round(6) + 0.0  # + 0.0: no "-0"
    return table.to_csv(index=False, float_format="%.6g")


def markdown(table: pd.DataFrame) -> str:
    """A GitHub-flavoured markdown table, cells escaped (``hexarena.leagues.results.wording``; pandas' own needs tabulate)."""
    return markdown_table([str(c) for c in table.columns],
                          [["" if pd.isna(v) else str(v) for v in row] for row in table.itertuples(index=False)])
