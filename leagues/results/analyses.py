"""Stored analyses (the workspace's ``analyses`` table, schema 6): a game is analysed once and the result kept.

    analysis_of(ws, record, budget)    the stored analysis, or one made now (and stored)
    stored_analysis(ws, game_id)       the stored one, or None
    analyse_pending(ws, records, ...)  analyse the games of a list that have none yet (publish, the server)

A stored analysis is never recomputed, except one that solved only part of its positions when it is asked for
with a larger budget than it had. Only finished, stored games are analysed (the row references ``games``).
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterable
from datetime import UTC, datetime

from hexarena.bots.brains.solver import Solver
from hexarena.leagues.results.analysis import Analysis, analyse
from hexarena.leagues.workspace.home import Workspace
from hexarena.referee.record import BoardConfig, GameRecord


def stored_analysis(ws: Workspace, game_id: str) -> tuple[Analysis, float] | None:
    """The stored analysis of a game and the budget it had, or None (none yet, or an unreadable row)."""
    row = ws.db.execute("SELECT analysis, budget FROM analyses WHERE game = ?", (game_id,)).fetchone()
    if row is None:
        return None
    try:
        return Analysis.from_json(json.loads(row[0])), row[1]
    except (ValueError, KeyError, TypeError):
        return None


def save_analysis(ws: Workspace, analysis: Analysis, budget: float) -> None:
    with ws.transaction() as db:
        db.execute("INSERT OR REPLACE INTO analyses (game, budget, complete, analysis, created) VALUES (?, ?, ?, ?, ?)",
                   (analysis.game, budget, int(analysis.complete), json.dumps(analysis.to_json()),
                    datetime.now(UTC).isoformat()))


def analysis_of(ws: Workspace, record: GameRecord, budget: float) -> Analysis:
    """The stored analysis of ``record`` (a stored game), made and stored now if there is none (or only a partial
    one made with a smaller budget)."""
    found = stored_analysis(ws, record.id)
    if found is not None and (found[0].complete or found[1] >= budget):
        return found[0]
    analysis = analyse(record, budget)
    save_analysis(ws, analysis, budget)
    return analysis


def analysed_ids(ws: Workspace) -> set[str]:
    return {row[0] for row in ws.db.execute("SELECT game FROM analyses")}


def analyse_pending(ws: Workspace, records: Iterable[GameRecord], budget: float, total: float | None = None) -> int:
    """Analyse (and store) the two-player games of ``records`` that have no stored analysis, ``budget`` seconds
    each, until ``total`` seconds have passed (None: no limit); how many were analysed."""
    started = time.monotonic()
    done = analysed_ids(ws)
    solvers: dict[BoardConfig, Solver] = {}  # one table per configuration, carried from game to game
    count = 0
    for record in records:
        if total is not None and time.monotonic() - started >= total:
            break
        if record.id in done or record.config.players != 2:
            continue
        if record.config not in solvers:
            solvers[record.config] = Solver(record.config.rules())
        save_analysis(ws, analyse(record, budget, solvers[record.config]), budget)
        count += 1
    return count
