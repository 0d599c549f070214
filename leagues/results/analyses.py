"""Stored analyses (the workspace's ``analyses`` table, schema 7): a game is analysed once and the result kept.

    analysis_of(ws, record, budget)    the stored analysis, or one made now (and stored)
    stored_analysis(ws, game_id)       the stored one, or None
    Analysing(ws, league, budget)      a league's stored analyses, up to PER_PUBLISH of its games without one
                                       analysed first, in a process of its own while the caller reads the league
                                       (publish): .analyses(), then .save(ws)
    league_analyses(ws, league, budget) the same made in this process, and stored

A stored analysis is never recomputed, except one that solved only part of its positions when it is asked for
with a larger budget than it had. Only finished, stored games are analysed (the row references ``games``).
"""

from __future__ import annotations

import json
import logging
import os
import sqlite3
import subprocess
import sys
import tempfile
from collections.abc import Iterable, Iterator
from datetime import UTC, datetime
from pathlib import Path

from pydantic import ValidationError

from hexarena.bots.brains.solver import Solver
from hexarena.leagues.results.analysis import Analysis, analyse
from hexarena.leagues.workspace.files import remove_stale_temp
from hexarena.leagues.workspace.home import Workspace
from hexarena.protocol.errors import OutOfSpace
from hexarena.referee.exiting import die_with_parent
from hexarena.referee.record import BoardConfig, GameRecord

CHILD = "hexarena.leagues.results.analyses"  # the module ``Analysing`` runs as a process of its own
TEMP_PREFIX = "hexarena-analyses-"  # TMPDIR/hexarena-analyses-<pid>-<random>: what it is given and answers
log = logging.getLogger(CHILD)  # its failure: the CLI prints it as a ``hexarena: warning:`` line


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
    return save_analyses(ws, [analysis], budget)


def save_analyses(ws: Workspace, analyses: list[Analysis], budget: float) -> bool:
    """Store ``analyses`` in one transaction (one commit, one flush to the disk: a publish's 500 commits were
    12 s of waiting); False where the write failed, as ``save_analysis``."""
    if not analyses:
        return True
    created = datetime.now(UTC).isoformat()
    try:
        with ws.transaction() as db:
            db.executemany("INSERT OR REPLACE INTO analyses (game, budget, complete, analysis, created)"
                           " VALUES (?, ?, ?, ?, ?)", [(analysis.game, budget, int(analysis.complete),
                                                        json.dumps(analysis.to_json()), created)
                                                       for analysis in analyses])
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


def analysed(records: Iterable[GameRecord], budget: float) -> Iterator[Analysis]:
    """The analyses of ``records`` (2-player games), ``budget`` seconds each, one at a time, none stored."""
    solvers: dict[BoardConfig, Solver] = {}  # one table per configuration, carried from game to game
    for record in records:
        if record.config not in solvers:
            solvers[record.config] = Solver(record.config.rules())
        yield analyse(record, budget, solvers[record.config])


SAVED_TOGETHER = 100  # analyses stored per transaction by ``Analysing.save``
COSTLIEST = 10  # moves listed per bot (its page's "your costliest moves")


PER_PUBLISH = 500  # games analysed by one publish at most (10 s at the default budget); the next publish goes on


def league_analyses(ws: Workspace, league: str, budget: float, most: int = PER_PUBLISH) -> dict[str, dict]:
    """``Analysing``'s answer made in this process and stored at once (for a caller with nothing to do meanwhile)."""
    analysing = Analysing(ws, league, budget, most, apart=False)
    found = analysing.analyses()
    analysing.save(ws)
    return found


class Analysing:
    """Every stored analysis of the league's current schedule by game id (its ``--json`` form), after analysing
    (within ``budget`` seconds each) the finished 2-player games that have none, the schedule's last first and at
    most ``most`` of them (a big league's games are analysed over several publishes, not a million at once);
    ``budget`` 0: none analysed now. Those games' records are read at once, in the query that finds them (a league
    of 3-4 players reads none).

    ``apart`` (publish): they are analysed in a process of their own (``python -m
    hexarena.leagues.results.analyses``) while the caller goes on (a publish reads the league meanwhile); where that
    process fails, here instead, after one warning (logger ``hexarena.leagues.results.analyses``) naming it and
    quoting the last line of its stderr (kept in a file, never on the caller's terminal). ``analyses()`` waits for
    them and answers; ``save()`` stores them (in transactions of ``SAVED_TOGETHER``: call it outside any read the
    caller holds; a store that refuses the write, a full disk or a read-only or busy database, leaves them unsaved:
    they were shown all the same)."""

    def __init__(self, ws: Workspace, league: str, budget: float, most: int = PER_PUBLISH, *,
                 apart: bool = True) -> None:
        self.budget, self.made = budget, None
        self.texts = _pending(ws, league, budget, most)  # whole, before the first analysis is stored
        self.stored = _stored(ws, league)
        self.folder = self.process = None
        self.failed = ""  # why that process could not start
        if apart:
            remove_stale_temp(TEMP_PREFIX)  # a SIGKILLed publish's
        if self.texts and apart:
            self.folder = tempfile.TemporaryDirectory(prefix=f"{TEMP_PREFIX}{os.getpid()}-")
            given = Path(self.folder.name, "records.json")
            given.write_text(json.dumps({"budget": budget, "records": self.texts}), encoding="utf-8")
            try:  # -P: the hexarena this process runs, never a hexarena/ folder in the current one
                with open(given.with_name("stderr.txt"), "wb") as errors:
                    self.process = subprocess.Popen([sys.executable, "-P", "-m", CHILD, str(given),
                                                     str(given.with_name("analyses.jsonl")), str(os.getpid())],
                                                    stdin=subprocess.DEVNULL, stdout=errors, stderr=errors)
            except OSError as exc:
                self.failed = f"it did not start: {exc.strerror or exc}"

    def analyses(self) -> dict[str, dict]:
        if self.made is None:
            self.made = self._wait() if self.texts else []
        found = {analysis.game: analysis.to_json() for analysis in self.made}
        for game, analysis in self.stored.items():
            found.setdefault(game, analysis)
        return found

    def _wait(self) -> list[Analysis]:
        """That process's analyses; where it failed, those it finished and the others made here (all made here where
        there was no such process)."""
        failed, kept = self.failed, []
        if self.process is not None:
            folder = Path(self.folder.name)
            try:
                status = self.process.wait()
                kept = _answered(folder / "analyses.jsonl")
                if status != 0:
                    failed = f"exit status {status}" if status > 0 else f"killed by signal {-status}"
                    if said := _last_line(folder / "stderr.txt"):
                        failed += f": {said}"
            finally:
                self.folder.cleanup()
        records = list(_records(self.texts))
        made = {analysis.game: analysis for analysis in kept}
        rest = [record for record in records if record.id not in made]
        if self.process is not None and rest and not failed:
            failed = f"its answer lacks {len(rest)} of them"
        if failed:
            log.warning("the analysis process (python -m %s) failed (%s); %s are analysed in this process instead",
                        CHILD, failed, f"the {len(rest)} of its {len(records)} games it had not analysed" if made else
                        f"its {len(records)} games")
        made.update((analysis.game, analysis) for analysis in analysed(rest, self.budget))
        return [made[record.id] for record in records]  # the schedule's last first

    def close(self) -> None:
        """Stop that process if it still runs (the caller failed before it asked for the analyses)."""
        if self.made is None and self.process is not None and self.process.poll() is None:
            self.process.kill()
            self.process.wait()
        if self.folder is not None:
            self.folder.cleanup()

    def save(self, ws: Workspace) -> None:
        for start in range(0, len(self.made or []), SAVED_TOGETHER):
            if not save_analyses(ws, self.made[start:start + SAVED_TOGETHER], self.budget):
                return  # refused (a full disk, a read-only or busy database): shown all the same, unsaved


def _pending(ws: Workspace, league: str, budget: float, most: int) -> list[str]:
    """The records of the league's finished 2-player games without an analysis, the schedule's last first, at most
    ``most`` (none where ``budget`` is 0)."""
    if budget <= 0 or most <= 0:
        return []
    return [text for (text,) in ws.db.execute(
        "SELECT g.record FROM league_games s JOIN games g ON g.id = s.game"
        " JOIN results r ON r.game = s.game AND r.seat = 0 AND r.players = 2"
        " LEFT JOIN analyses a ON a.game = s.game WHERE s.league = ? AND a.game IS NULL"
        " ORDER BY s.position DESC LIMIT ?", (league, most))]


def _stored(ws: Workspace, league: str) -> dict[str, dict]:
    """The stored analyses of the league's current schedule by game id (an unreadable one left out)."""
    found = {}
    for game, text in ws.db.execute("SELECT a.game, a.analysis FROM league_games s JOIN analyses a ON a.game = s.game"
                                    " WHERE s.league = ?", (league,)):
        try:
            found[game] = json.loads(text)
        except ValueError:
            continue
    return found


def _answered(path: Path) -> list[Analysis]:
    """The analyses in an answer of ``main``'s, one a line: each whole line's (a process that died mid-line left a
    part of one, or nothing at all)."""
    try:
        lines = path.read_text(encoding="utf-8", errors="replace").split("\n")[:-1]
    except OSError:
        return []
    found = []
    for line in lines:
        try:
            found.append(Analysis.from_json(json.loads(line)))
        except (ValueError, KeyError, TypeError):
            continue
    return found


def _last_line(path: Path) -> str:
    """The last line of a process's output kept in ``path`` (at most 200 characters; "" if none)."""
    try:
        lines = path.read_bytes()[-4096:].decode("utf-8", errors="replace").strip().splitlines()
    except OSError:
        return ""
    return lines[-1].strip()[:200] if lines else ""


def _records(texts: Iterable[str]) -> Iterable[GameRecord]:
    """The readable records among stored JSON texts (a garbled one is the store's warning and ``hexarena
    doctor``'s, not ours)."""
    for text in texts:
        try:
            yield GameRecord.model_validate_json(text)
        except (ValidationError, TypeError):
            continue


def costliest_moves(ws: Workspace, analyses: dict[str, dict]) -> dict[str, list[dict]]:
    """Each bot's costliest moves over ``analyses`` (losing moves first, then by cost): ``{"game", "move" (its
    index), "line", "cost", "losing"}``, at most ``COSTLIEST`` a bot."""
    costly = [(game, i, c) for game, analysis in analyses.items() for i, c in enumerate(analysis.get("costs", [])) if c]
    found: dict[str, list[dict]] = {}
    if not costly:
        return found
    where = {(game, number): (line, bot) for game, number, line, bot in ws.db.execute(  # one query, not one a game
        "SELECT m.game, m.number, m.line, r.bot FROM json_each(?) j JOIN moves m ON m.game = json_extract(j.value, '$[0]')"
        " AND m.number = json_extract(j.value, '$[1]') JOIN results r ON r.game = m.game AND r.seat = m.seat",
        (json.dumps([[game, number] for game, number, _ in costly]),))}
    for game, number, cost in costly:
        if (game, number) in where:
            line, bot = where[game, number]
            found.setdefault(bot, []).append({"game": game, "move": number, "line": line, "cost": cost,
                                              "losing": number == analyses[game].get("losing_move")})
    for bot, moves in found.items():
        moves.sort(key=lambda m: (not m["losing"], -m["cost"], m["game"], m["move"]))
        del moves[COSTLIEST:]
    return found


def main(argv: list[str]) -> None:
    """``python -m hexarena.leagues.results.analyses GIVEN ANSWER PARENT``: the analyses of the records in GIVEN
    (JSON: ``{"budget", "records"}``, written by ``Analysing``) written to ANSWER one a line as each is made (where
    this process dies, its caller keeps those and makes only the others); it ends with process PARENT, its caller."""
    die_with_parent(int(argv[2]))  # a publish SIGKILLed: nobody is left to read what this makes
    given = json.loads(Path(argv[0]).read_text(encoding="utf-8"))
    with Path(argv[1]).open("w", encoding="utf-8") as answer:
        for analysis in analysed(_records(given["records"]), float(given["budget"])):
            answer.write(json.dumps(analysis.to_json()) + "\n")
            answer.flush()


if __name__ == "__main__":
    main(sys.argv[1:])
