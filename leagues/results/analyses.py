"""Stored analyses (the workspace's ``analyses`` table, schema 7): a game is analysed once and the result kept.

    analysis_of(ws, record, budget)    the stored analysis, or one made now (and stored)
    stored_analysis(ws, game_id)       the stored one, or None
    analyse_pending(ws, records, ...)  analyse the games of a list that have none yet (publish, the server)

A stored analysis is never recomputed, except one that solved only part of its positions when it is asked for
with a larger budget than it had. Only finished, stored games are analysed (the row references ``games``).
"""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Iterable
from datetime import UTC, datetime

from hexarena.bots.brains.solver import Solver
from hexarena.leagues.results.analysis import Analysis, analyse
from hexarena.leagues.workspace.home import Workspace
from hexarena.protocol.errors import ConfigError, OutOfSpace
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


def save_analysis(ws: Workspace, analysis: Analysis, budget: float) -> bool:
    """Store ``analysis``; False where the write failed (a full disk, a read-only or busy database): an analysis
    is a cache of the solver's, so whoever asked goes on without it stored, never fails for it."""
    try:
        with ws.transaction() as db:
            db.execute("INSERT OR REPLACE INTO analyses (game, budget, complete, analysis, created)"
                       " VALUES (?, ?, ?, ?, ?)", (analysis.game, budget, int(analysis.complete),
                                                   json.dumps(analysis.to_json()), datetime.now(UTC).isoformat()))
    except (OutOfSpace, sqlite3.OperationalError):
        return False
    return True


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
        if not save_analysis(ws, analyse(record, budget, solvers[record.config]), budget):
            break  # nothing more can be stored now: the rest waits for the next publish
        count += 1
    return count


COSTLIEST = 10  # moves listed per bot (its page's "your costliest moves")


def league_analyses(ws: Workspace, league: str, budget: float) -> dict[str, dict]:
    """Every stored analysis of the league's current schedule by game id (its ``--json`` form), after analysing
    (within ``budget`` seconds each) the finished 2-player games that have none; ``budget`` 0: none analysed now."""
    from hexarena.leagues.results.store import game_data

    if budget > 0:
        pending = [row[0] for row in ws.db.execute(
            "SELECT s.game FROM league_games s JOIN games g ON g.id = s.game LEFT JOIN analyses a ON a.game = s.game"
            " WHERE s.league = ? AND a.game IS NULL ORDER BY s.position", (league,))]
        analyse_pending(ws, _records(_readable(game_data, ws, game) for game in pending), budget)
    found = {}
    for game, text in ws.db.execute("SELECT a.game, a.analysis FROM league_games s JOIN analyses a ON a.game = s.game"
                                    " WHERE s.league = ?", (league,)):
        try:
            found[game] = json.loads(text)
        except ValueError:
            continue
    return found


def _readable(game_data, ws: Workspace, game: str) -> dict | None:
    """A stored record's JSON, or None for a garbled one (the store's warning and ``hexarena doctor`` name it)."""
    try:
        return game_data(ws, game)
    except ConfigError:
        return None


def _records(datas: Iterable[dict | None]) -> Iterable[GameRecord]:
    """The readable records among stored JSON objects (a garbled one is the store's warning, not ours)."""
    from pydantic import ValidationError

    for data in datas:
        try:
            yield GameRecord.model_validate(data)
        except (ValidationError, TypeError):
            continue


def costliest_moves(ws: Workspace, analyses: dict[str, dict]) -> dict[str, list[dict]]:
    """Each bot's costliest moves over ``analyses`` (losing moves first, then by cost): ``{"game", "move" (its
    index), "line", "cost", "losing"}``, at most ``COSTLIEST`` a bot."""
    found: dict[str, list[dict]] = {}
    for game, analysis in analyses.items():
        costly = {i: c for i, c in enumerate(analysis.get("costs", [])) if c}
        if not costly:
            continue
        rows = ws.db.execute("SELECT m.number, m.line, r.bot FROM moves m JOIN results r ON r.game = m.game"
                             " AND r.seat = m.seat WHERE m.game = ?", (game,))
        for number, line, bot in rows:
            if number in costly:
                found.setdefault(bot, []).append({"game": game, "move": number, "line": line, "cost": costly[number],
                                                  "losing": number == analysis.get("losing_move")})
    for bot, moves in found.items():
        moves.sort(key=lambda m: (not m["losing"], -m["cost"], m["game"], m["move"]))
        del moves[COSTLIEST:]
    return found
