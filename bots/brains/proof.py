"""Proof by enumeration of the solver's reductions: each one against plain search in every position of a board.

    report = prove(Rules(make_board("2x3", "hex"), Options(2, True)))
    report.rules["chain rule"]   # Verdict(applied=..., wrong=0, example=None)

Plain search is ``bots/brains/_retrograde.c``: the value of every subset of the free lines (2**k positions, one
byte each: 128 MiB for 27 free lines) by one pass from the full board down, with no reduction, table or symmetry and
no code shared with the solver. Each reduction is then evaluated by the solver's own C functions (``Core.prove`` in
``_solvecore.c``, which the search calls) in every position and compared with those values:

* **free captures** (normal play): a position is worth the cells ``take_free`` takes plus the value of the position it leaves;
* **chain rule** (normal play; misère has none): the lines ``chain_moves`` keeps hold a best line;
* **border lines**: a cell's free border lines are worth the same (only the lowest is searched);
* **symmetries**: every image of a position under the board's symmetries has its value (the table's key);
* **pieces of three** (an opened loop of three hexagons, or a chain of three opened at both ends; ``triple``): in
  both rule sets its two lines are worth the same, and in normal play taking all three is worth the position's value
  (the chain rule, which forces its first cell, is checked as well; misère does not use it);
* **search** (``search=True``): the whole search, every reduction and enhanced transposition cutoffs at every node
  included, in one table from the full board down: the null windows just below and just above each position's value
  fail low and high as they must.

``benchmarks/prove_reductions.py`` runs it over every board of up to 27 free lines (docs/solved.md has the figures).
"""

from __future__ import annotations

from dataclasses import dataclass

from hexarena.bots.brains.solver import Solver, compiled
from hexarena.protocol.rules import Rules

try:
    from hexarena.bots.brains import _retrograde
except ImportError:  # pragma: no cover - only where pip found no compiler
    _retrograde = None

MAX_FREE = 30  # the retrograde values take 2**free bytes


@dataclass(frozen=True)
class Verdict:
    """How one reduction fared: positions it applied in, in how many it was wrong, and the first of those."""

    applied: int
    wrong: int
    example: int | None


@dataclass(frozen=True)
class Report:
    """Every position of one board and rule set: how many, the value of the start, and each reduction's verdict."""

    positions: int
    value: int
    rules: dict[str, Verdict]


def available() -> bool:
    """Whether both C modules are built (the proof needs them)."""
    return _retrograde is not None and compiled()


def plain_values(rules: Rules) -> bytearray:
    """Plain search's value (the mover's future margin, negated in misère) of every subset of the free lines, the
    i-th free line (in line order) as bit i."""
    free = [line for line in range(len(rules.board.lines)) if not rules.predrawn >> line & 1]
    if len(free) > MAX_FREE:
        raise ValueError(f"{len(free)} free lines: the proof enumerates boards of up to {MAX_FREE}")
    index = {line: i for i, line in enumerate(free)}
    cells = [[index[line] for line in cell if line in index] for cell in rules.board.cells]
    return _retrograde.values(len(free), cells, rules.options.misere)


def prove(rules: Rules, search: bool = False, table_entries: int = 2**22) -> Report:
    """Check every reduction of the solver of ``rules`` in every position (see the module docstring)."""
    values = plain_values(rules)
    solver = Solver(rules, table_entries=table_entries, etc_free=0)
    if solver.core is None:
        raise ValueError("the proof needs the C search (bots/brains/_solvecore.c), which is not built")
    predrawn = rules.predrawn
    rows = solver.core.prove(values, predrawn & 0xFFFF_FFFF_FFFF_FFFF, predrawn >> 64, search)
    verdicts = {name: Verdict(applied, wrong, example) for name, applied, wrong, example in rows}
    value = int.from_bytes(values[:1], signed=True)
    return Report(len(values), -value if rules.options.misere else value, verdicts)
