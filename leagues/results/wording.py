"""How results are worded, in one place: the line per game, the per-bot W/D/L table, Markdown tables.

    game_line(record)           "greedy 8, random 1: greedy wins", plus how a fault decided it (hexarena match)
    summary(record)             "greedy wins 8–1", "draw 4–4", "1st a 5, 2nd b 3, 3rd c 1" (the site, hexarena replay)
    result_for(record, seat)    "win", "draw" or "loss" (the rule: ``hexarena.protocol.rules.Outcome.result_for``)
    tally_table(names, records) one row per bot: games, wins, draws, losses, faults, cells (hexarena match)
    markdown_table(...)         a GitHub Markdown table, every cell escaped (league table --format md, standings.md)

A game record's seats name bots as ``name`` or ``name@version``; ``summary`` shows the names only.
"""

from __future__ import annotations

import re
from collections.abc import Container, Iterable

from hexarena.protocol.rules import Outcome
from hexarena.referee.record import GameRecord


def escaped(text: str) -> str:
    """Untrusted text (a bot's note, an archive's file name) for one line: every control character escaped
    (``\\n``, ``\\x1b``), the rest as it is."""
    return "".join(c if c.isprintable() else c.encode("unicode_escape").decode("ascii") for c in text)


def result_for(record: GameRecord, seat: int) -> str:
    """``win`` (first place alone), ``draw`` (first place shared) or ``loss``, for one seat of a game."""
    return Outcome(tuple(record.result.scores), tuple(record.result.placements)).result_for(seat)


def winners(record: GameRecord, names: list[str]) -> list[str]:
    """The names (one per seat) in first place: one is a win, more a draw between them."""
    return [name for seat, name in enumerate(names) if result_for(record, seat) != "loss"]


def game_line(record: GameRecord) -> str:
    """``greedy 8, random 1: greedy wins`` plus the termination and offender when a fault decided it."""
    result = record.result
    scores = ", ".join(f"{name} {score}" for name, score in zip(record.seats, result.scores))
    firsts = winners(record, record.seats)
    verdict = f"{firsts[0]} wins" if len(firsts) == 1 else "draw between " + ", ".join(firsts)
    text = f"{scores}: {verdict}"
    if result.termination != "completed":
        text += f" ({result.termination} by {record.seats[result.offender]})"
    for fault in result.forfeits:
        if result.termination == "completed" or fault.seat != result.offender:
            text += f" [{record.seats[fault.seat]}: {fault.reason}]"
    return text


def summary(record: GameRecord) -> str:
    """One line: ``alpha wins 9–7``, ``draw 8–8``, or the placings of a 3–4 player game, plus the fault."""
    result = record.result
    return result_summary(record.seats, result.scores, result.placements, result.termination, result.offender)


def result_summary(seats: list[str], scores: list[int], placements: list[int], termination: str,
                   offender: int | None) -> str:
    """``summary`` from a record's fields (the site reads them from the stored JSON, not from a GameRecord)."""
    names = [seat.partition("@")[0] for seat in seats]
    if len(names) == 2:
        firsts = [name for name, place in zip(names, placements) if place == min(placements)]  # win or draw
        score = "–".join(map(str, scores))
        text = f"{firsts[0]} wins {score}" if len(firsts) == 1 else f"draw {score}"
    else:
        order = sorted(range(len(names)), key=lambda s: (placements[s], s))
        text = ", ".join(f"{_ordinal(placements[s])} {names[s]} {scores[s]}" for s in order)
    if termination != "completed" and offender is not None:
        text += f" ({names[offender]}: {termination.replace('_', ' ')})"
    return text


def _ordinal(n: int) -> str:
    return {1: "1st", 2: "2nd", 3: "3rd"}.get(n, f"{n}th")


def tally_table(names: list[str], records: Iterable[GameRecord]) -> str:
    """One row per bot, in the order given: games, wins, draws, losses, faults and cells taken."""
    rows = {name: {"games": 0, "win": 0, "draw": 0, "loss": 0, "faults": 0, "cells": 0} for name in names}
    for record in records:
        for seat, name in enumerate(record.seats):
            row = rows[name]
            row["games"] += 1
            row[result_for(record, seat)] += 1
            row["cells"] += record.result.scores[seat]
            row["faults"] += sum(1 for fault in record.result.forfeits if fault.seat == seat)
    width = max(len(name) for name in rows) + 2
    lines = [f"{'bot':<{width}}{'games':>6}{'wins':>6}{'draws':>6}{'losses':>7}{'faults':>7}{'cells':>7}"]
    for name, row in rows.items():
        lines.append(f"{name:<{width}}{row['games']:>6}{row['win']:>6}{row['draw']:>6}{row['loss']:>7}"
                     f"{row['faults']:>7}{row['cells']:>7}")
    return "\n".join(lines)


def markdown_table(headers: list[str], rows: Iterable[Iterable[str]], right: Container[int] = ()) -> str:
    """A GitHub-flavoured Markdown table; the columns numbered in ``right`` are right-aligned.

    Every cell is escaped: bot names are untrusted, so no markup and no broken rows.
    """
    lines = ["| " + " | ".join(headers) + " |",
             "|" + "|".join("---:" if i in right else "---" for i in range(len(headers))) + "|"]
    lines += ["| " + " | ".join(_escape(cell) for cell in row) + " |" for row in rows]
    return "\n".join(lines)


def _escape(text: str) -> str:
    """``text`` with Markdown's and HTML's special characters escaped."""
    return re.sub(r"([\\|<>`*\[\]])", r"\\\1", text)


def plural(count: int, noun: str) -> str:
    """``1 worker``, ``2 workers``, ``0 leagues``: a count with its noun, as people write it."""
    return f"{count} {noun}" if count == 1 else f"{count} {noun}s"
