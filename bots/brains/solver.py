"""Exact solver for two-player positions: the value under perfect play and every best move.

    solution = solve(rules.replay([3, 17]))
    solution.value   # seat 0's final margin: its cells minus seat 1's, cells already taken included
    solution.future  # the mover's margin over the cells still open (scores already taken left out)
    solution.best    # every line that achieves the value, sorted

Pure: no I/O, no clocks except the optional ``deadline`` (``time.monotonic`` seconds).
Under misère both players still play for the margin, with the signs swapped: the
value is the same cells-minus-cells margin, and seat 0 wants it as *low* as possible.

The search is negamax with alpha-beta (null windows, MTD(f)) over the drawn lines alone (the future does
not depend on who took which cell), with a transposition table of bounds, and these
reductions:

* **Interchangeable border lines.** Lines that belong to one cell only are the same
  move: only how many of a cell's border lines are drawn matters. Positions are kept
  canonical — a cell's drawn border lines are always its lowest-numbered ones — and
  only one border line per cell is tried.
* **Symmetries** of the board (mirrors and rotations), each verified to map dots to
  dots, lines to lines and cells to cells; the table key is the least image.
* **Move ordering:** the table's best line, captures, then safe lines (that make no
  cell capturable; lines between two cells first, then those that leave the fewest free
  sides: 2-5 times fewer nodes on hexagons 2x3 and 1x6 than in line order), then sacrifices. In misère
  the safe lines and the sacrifices are ordered first by their history (the free lines squared summed over
  the cutoffs each line made: 0.82-1.11x the nodes on six misère positions, 0.94x over all; in normal play
  it made 2.4x the nodes of hexagons 2x4 after three lines, so normal play keeps the static order).
* **Free captures** (normal play only): a capturable cell whose last line makes no
  other cell capturable is taken at once, without trying the alternatives
  (Berlekamp's "capture anything that costs nothing").
* **Chains on offer** (normal play only): take a chain of three or more cells that meets no other
  offered cell (no loop, not opened at both ends); take a **piece of three** on offer (``triple``: an
  opened loop of three hexagons, or a chain of three opened at both ends), whose every line captures,
  so it cannot be declined (its first cell; the free captures take the other two); when the only cells
  on offer are the last two of a chain, try only taking and double-dealing.
* **Misère keeps none of these.** The free-capture and long-chain rules fail there in thousands of
  positions; the double-dealing rule, kept in misère where no safe line was left elsewhere, fails in 2
  positions each of hexagons 3x4 and 4x3 with border (a sacrifice that offers another chain of two is
  better: found by ``bots/brains/proof.py``), and searching without it took as many nodes and less time.
* **Enhanced transposition cutoffs** (both rule sets): where at least ``ETC_FREE`` lines are free, each
  child is looked up in the table before any is searched; if a stored bound already proves one reaches beta,
  the node ends there. No game-theoretic claim, only the table's proven bounds (tested in every position of
  two boards against plain search).
* **Odd loops** (three hexagons around one dot, pairwise adjacent: a loop of three, which
  squares never have): once opened, normal play takes it (the piece of three above; in a loop of
  squares, or of more hexagons, declining all but four keeps control, which three cells cannot).
  Misère searches every line of it (its two lines are worth the same, proven, but skipping one saved
  no time).

The search runs in C (``bots/brains/_solvecore.c``, the same algorithm line for line, with a table of
bounds that grows from 2**20 entries to its given size instead of a dict; on boards of up to 64 lines its entries
take 12 bytes, five to a 64-byte bucket, on larger ones 24 bytes, four to a bucket) when pip could build it, on
boards of up to 128 lines; Python keeps MTD(f) and the root's best lines. ``Solver(rules, compiled=False)`` forces pure Python.

``bots/brains/proof.py`` checks each reduction of the C search against plain retrograde search in every
position of a board (a proof by enumeration on those boards, not in general); ``benchmarks/prove_reductions.py``
runs it on every board of up to 27 free lines (docs/solved.md). ``tests/brains/test_solver.py`` checks the Python
reductions the same way on small boards, and the whole solver on every board with up to 16 free lines.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field

from hexarena.bots.errors import SolverTimeout
from hexarena.protocol.rules import Rules, State

try:  # the C search, built by pip where a compiler is found (pyproject.toml's ext-modules)
    from hexarena.bots.brains import _solvecore
except ImportError:  # pragma: no cover - exercised only on machines without a compiler
    _solvecore = None

_CHUNK = 8
TABLE_ENTRIES = 2**22  # the C search's table by default: 4 Mi entries (96 MiB; 50 MiB on boards of up to 64 lines)


ENTRY_BYTES = 24  # one entry of the C table on boards of 65-128 lines (its "wide" layout: buckets of 4, 96 bytes)
NARROW_LINES = 64  # boards of up to this many lines: the narrow layout, 12-byte entries, 5 in a 64-byte bucket
# enhanced transposition cutoffs where at least this many lines are free: 2-40 % fewer nodes on hexagons 4x3/3x4
# border misère, 2x4 and 4x4 border (12: more nodes saved, more time spent probing); the CPU time was within a
# noisy machine's spread (docs/solved.md)
ETC_FREE = 18
HISTORY_CAP = (1 << 43) - 1  # history counts past this order as equal (the C search's key has 43 bits for it)
START_ENTRIES = 2**20  # the C table's first size (24 or 12.5 MiB); it doubles at a quarter full up to its most


def _bucket(lines: int) -> tuple[int, int]:
    """Entries and bytes of one bucket of the C table of a board of ``lines`` lines."""
    return (5, 64) if lines <= NARROW_LINES else (4, 4 * ENTRY_BYTES)


def table_entries_for(mebibytes: int, lines: int = 128) -> int:
    """How many entries of the C table of a board of ``lines`` lines fit in ``mebibytes`` (whole buckets: 4
    entries of 24 bytes, or 5 of 12 bytes in 64 where the board has at most 64 lines)."""
    entries, size = _bucket(lines)
    return max(4 * entries, mebibytes * 2**20 // size * entries)


def table_bytes(entries: int, lines: int = 128) -> int:
    """The bytes of a C table of ``entries`` entries for a board of ``lines`` lines."""
    per, size = _bucket(lines)
    return entries // per * size


def compiled() -> bool:
    """Whether the C search is installed (else every search runs in pure Python)."""
    return _solvecore is not None


@dataclass(frozen=True)
class Solution:
    """A solved position. ``value`` is seat 0's final margin; ``best`` the mover's best lines."""

    value: int
    future: int
    best: tuple[int, ...]
    nodes: int
    seconds: float


def solve(state: State, deadline: float | None = None) -> Solution:
    """Solve a two-player position exactly (raises ``SolverTimeout`` past ``deadline``)."""
    return Solver(state.rules).solve(state, deadline)


Clock = Callable[[], float]


@dataclass
class RootSearch:
    """Where a solve of one position stands: all a resumed solve needs besides the table.

    ``low``/``high`` bound the mover's objective (MTD(f)'s window; ``low == high`` once the value is known),
    ``guess`` is the next null window's guess, and ``keeps`` maps each root child searched so far (a canonical
    position after one line) to whether it keeps the value.
    """

    low: int
    high: int
    guess: int = 0
    keeps: dict[int, bool] = field(default_factory=dict)


@dataclass(frozen=True)
class BestLinesCheck:
    """Where the best-lines pass is (``Solver.checking``): the root's ``line`` being searched, the ``index``-th of
    ``total``, and the best lines ``found`` before it."""

    line: int
    index: int
    total: int
    found: tuple[int, ...]


def symmetries(rules: Rules) -> list[tuple[int, ...]]:
    """Line permutations (identity included) that map the board onto itself.

    A dot mirror/rotation is kept only if it maps every line to a line and every
    cell to a cell. Border lines of a cell are then sent, lowest first, to the border
    lines of the image cell, so canonical positions stay canonical.
    """
    board = rules.board
    dots = board.dots
    dot_id = {d: i for i, d in enumerate(dots)}
    line_id = {line: i for i, line in enumerate(board.lines)}
    cell_id = {frozenset(c): i for i, c in enumerate(board.cells)}
    owners = board.line_cells()
    border_of = [sorted(line for line in cell if len(owners[line]) == 1) for cell in board.cells]
    found = []
    transforms = [lambda x, y, sx=sx, sy=sy: (sx * x, sy * y) for sx in (1, -1) for sy in (1, -1)]
    transforms += [lambda x, y, sx=sx, sy=sy: (sx * y, sy * x) for sx in (1, -1) for sy in (1, -1)]
    for transform in transforms:
        moved = [transform(x, y) for x, y in dots]
        min_x, min_y = min(p[0] for p in moved), min(p[1] for p in moved)
        base_x, base_y = min(p[0] for p in dots), min(p[1] for p in dots)
        image = [dot_id.get((x - min_x + base_x, y - min_y + base_y)) for x, y in moved]
        if None in image:
            continue
        line_map = [line_id.get(tuple(sorted((image[a], image[b])))) for a, b in board.lines]
        if None in line_map:
            continue
        cell_map = [cell_id.get(frozenset(line_map[line] for line in cell)) for cell in board.cells]
        if None in cell_map:
            continue
        perm = list(line_map)
        for cell, lines in enumerate(border_of):
            for line, target in zip(lines, border_of[cell_map[cell]]):
                perm[line] = target
        assert all({cell_map[c] for c in owners[line]} == set(owners[perm[line]]) for line in range(len(perm)))
        if tuple(perm) not in found:
            found.append(tuple(perm))
    return found


class Solver:
    """Solver for one board and options; keeps its transposition table between calls."""

    def __init__(
        self,
        rules: Rules,
        use_symmetry: bool = True,
        chain_rules: bool = True,
        compiled: bool = True,
        table_entries: int = TABLE_ENTRIES,
        start_entries: int = START_ENTRIES,
        etc_free: int = ETC_FREE,
    ) -> None:
        """``compiled=False`` keeps the search in Python; ``table_entries`` (any number, rounded down to
        whole buckets of 4 entries, or 5 on boards of up to 64 lines; ``table_entries_for(mebibytes, lines)`` converts) is the most the C search's table takes: it starts at
        ``start_entries`` and doubles each time it is a quarter full. ``etc_free``: enhanced transposition
        cutoffs (a child the table already proves good enough ends the node) where that many lines are free."""
        board = rules.board
        self.rules = rules
        self.misere = rules.options.misere
        self.chain_rules = chain_rules  # normal play only: misère has none (see the module's docstring)
        self.free_captures = chain_rules and not self.misere
        self.etc_free = etc_free
        owners = board.line_cells()
        self.line_owners = tuple(tuple(cells) for cells in owners)
        self.cell_masks = rules.cell_masks
        self.touch = tuple(tuple(rules.cell_masks[c] for c in cells) for cells in owners)
        self.border_masks = tuple(sum(1 << line for line in cell if len(owners[line]) == 1) for cell in board.cells)
        self.internal = sum(1 << line for line, cells in enumerate(owners) if len(cells) == 2)
        self.full = rules.full
        perms = symmetries(rules) if use_symmetry else []
        self.symmetry_count = max(1, len(perms))
        # byte-wise lookup tables: image of a mask = OR of table[chunk][byte]
        n = len(board.lines)
        chunks = (n + _CHUNK - 1) // _CHUNK
        self.tables = []
        for perm in perms[1:]:
            tables = []
            for k in range(chunks):
                row = []
                for byte in range(1 << _CHUNK):
                    image = 0
                    for bit in range(_CHUNK):
                        line = k * _CHUNK + bit
                        if byte >> bit & 1 and line < n:
                            image |= 1 << perm[line]
                    row.append(image)
                tables.append(row)
            self.tables.append(tables)
        self.perms = perms or [tuple(range(n))]
        self.inverses = [tuple(sorted(range(n), key=perm.__getitem__)) for perm in self.perms]
        # key -> lower bound + 128, upper bound + 128 and best line in the key's frame, packed
        # in one int (8 bits each): a third of the memory of a tuple
        self.table: dict[int, int] = {}
        self.nodes = 0
        # per line: the sum of free lines squared at each beta cutoff it made (the history heuristic; in misère it
        # orders the safe lines and the sacrifices, most cutoffs first; kept between solves). Counted in misère only:
        # in normal play it made 2.4x the nodes of hexagons 2x4 after 3 lines, so it stays all zero there
        self.history = [0] * n
        self.root: RootSearch | None = None
        self.checking: BestLinesCheck | None = None
        self.core = None
        fits = len(board.lines) <= 128 and len(board.cells) <= 64 and len(self.perms) <= 8
        if compiled and _solvecore is not None and fits:
            self.core = _solvecore.Core(
                n,
                [sorted(cell) for cell in board.cells],
                self.perms,
                self.misere,
                self.chain_rules,
                table_entries,
                start_entries,
                etc_free,
            )

    def forget(self, limit: int = 0) -> None:
        """Empty the Python table once it holds more than ``limit`` entries (the C table has a fixed size)."""
        if len(self.table) > limit:
            self.table.clear()

    def canonical(self, drawn: int) -> int:
        """The same position with each cell's drawn border lines moved to its lowest ones."""
        out = drawn & self.internal
        for mask in self.border_masks:
            count = (drawn & mask).bit_count()
            while count:
                low = mask & -mask
                out |= low
                mask ^= low
                count -= 1
        return out

    def solve(
        self,
        state: State,
        deadline: float | None = None,
        clock: Clock = time.monotonic,
        resume: RootSearch | None = None,
        watch: Callable[[], None] | None = None,
        lines: bool = True,
        watch_every: float = 1.0,
    ) -> Solution:
        """The value of ``state`` and all its best lines (see the module docstring); ``lines=False``: the value
        alone (``best`` empty), which spares searching each line of the position.

        Raises ``SolverTimeout`` once ``clock()`` passes ``deadline`` (checked every 1024
        nodes); ``time.process_time`` makes it a CPU-time limit. ``self.root`` says where the
        solve stands at any moment; ``resume`` (a ``RootSearch`` of the same position, with the
        table it was written with) goes on from there. ``watch`` is called about every
        ``watch_every`` seconds during the C search (an exception it raises ends the solve).
        """
        if len(state.scores) != 2:
            raise ValueError("the solver handles two players only")
        started = time.monotonic()
        self.nodes = 0
        self.deadline = deadline
        self.clock = clock
        search = self._search
        if self.core is not None:
            if deadline is not None and clock not in (time.monotonic, time.process_time):
                raise ValueError("the C search keeps time by time.monotonic or time.process_time only")
            self.core.set_deadline(deadline, clock is time.process_time)
            self.core.nodes = 0
            self.core.set_tick(watch, watch_every)
            search = self._core_search
        drawn = state.drawn
        sign = -1 if self.misere else 1
        open_cells = sum(1 for mask in self.cell_masks if drawn & mask != mask)
        objective, best = 0, []
        self.root = resume if resume is not None else RootSearch(-open_cells, open_cells)
        self.checking = None
        try:  # watch keeps being called while the best lines are searched, too: that can take as long
            if drawn != self.full:
                objective = self._mtdf(self.canonical(drawn), open_cells, search)
                best = self._best_lines(state, objective, open_cells, search) if lines else []
        finally:
            if self.core is not None:
                self.core.set_tick(None, 0)
        future = objective * sign
        mover = state.to_move
        value = state.scores[0] - state.scores[1] + (future if mover == 0 else -future)
        if self.core is not None:
            self.nodes = self.core.nodes
        return Solution(value, future, tuple(best), self.nodes, time.monotonic() - started)

    def best_so_far(self, state: State) -> int | None:
        """The line the C table holds as best for ``state`` (from the last search through it), or None."""
        if self.core is None:
            return None
        canonical = self.canonical(state.drawn)
        entry = self.core.probe(canonical & 0xFFFF_FFFF_FFFF_FFFF, canonical >> 64)
        if entry is None:
            return None
        line = entry[2]
        if state.drawn >> line & 1 == 0:
            return line
        for mask in self.border_masks:  # a border line of the canonical frame: the cell's first free one
            free = mask & ~state.drawn
            if mask >> line & 1 and free:
                return (free & -free).bit_length() - 1
        return None

    def _core_search(self, drawn: int, alpha: int, beta: int, open_cells: int) -> int:
        """``_search`` in C."""
        value = self.core.search(drawn & 0xFFFF_FFFF_FFFF_FFFF, drawn >> 64, alpha, beta, open_cells)
        if value is None:
            self.nodes = self.core.nodes
            raise SolverTimeout(f"solver passed its deadline after {self.core.nodes} nodes")
        return value

    def _mtdf(self, drawn: int, open_cells: int, search: Callable[[int, int, int, int], int]) -> int:
        """The exact value by null-window searches (MTD(f)): fewer nodes than one wide window.

        Each search narrows ``self.root``'s window; starting from a saved window goes on where it stopped.
        """
        root = self.root
        while root.low < root.high:
            beta = root.guess + 1 if root.guess == root.low else root.guess
            beta = min(max(beta, root.low + 1), root.high)
            guess = search(drawn, beta - 1, beta, open_cells)
            if guess < beta:
                root.high = guess
            else:
                root.low = guess
            root.guess = guess
        return root.low

    def _best_lines(
        self, state: State, objective: int, open_cells: int, search: Callable[[int, int, int, int], int]
    ) -> list[int]:
        """The lines of ``state`` that keep the mover's ``objective``, each root child searched once (its answer
        kept in ``self.root.keeps``, so a resumed solve skips it)."""
        drawn, sign = state.drawn, -1 if self.misere else 1
        keeps = self.root.keeps  # canonical position after a line -> does it keep the value
        best = []
        lines = state.legal_moves()
        for index, line in enumerate(lines, 1):
            self.checking = BestLinesCheck(line, index, len(lines), tuple(best))
            after = drawn | 1 << line
            closed = sum(1 for mask in self.touch[line] if after & mask == mask)
            after = self.canonical(after)
            if after not in keeps:
                if closed:
                    won = closed * sign
                    value = won + search(after, objective - 1 - won, objective - won, open_cells - closed)
                else:
                    value = -search(after, -objective, 1 - objective, open_cells)
                keeps[after] = value >= objective
            if keeps[after]:
                best.append(line)
        self.checking = None
        return best

    def take_free(self, drawn: int) -> tuple[int, int]:
        """Draw every capturable cell's last line that makes no other cell capturable.

        Returns the lines drawn after those captures and the number of cells taken.
        """
        touch = self.touch
        gain = 0
        changed = True
        while changed:
            changed = False
            for mask in self.cell_masks:
                rest = mask & ~drawn
                if rest and not rest & (rest - 1):
                    after = drawn | rest
                    safe = True
                    closed = 0
                    for other in touch[rest.bit_length() - 1]:
                        left = other & ~after
                        if not left:
                            closed += 1
                        elif not left & (left - 1):
                            safe = False
                    if safe:
                        drawn = after
                        gain += closed
                        changed = True
        return drawn, gain

    def triple(self, drawn: int, line: int) -> int:
        """A piece of three cells on offer that each of its lines captures: ``line`` is the only free line of a cell
        X and a side of Y, whose other free line m is the only free line of a third cell Z. Returns m, else -1.

        Drawing either line takes one cell and leaves the other closing two: an opened loop of three hexagons (X and
        Z adjacent by a drawn line) or a chain of three opened at both ends. No line of it declines, so normal play
        takes it (``chain_moves``: leaving it, or its last two, hands the other player those cells and the same
        choice). In misère either line leaves the same game (proven, not used: it saved no time).
        """
        owners = self.line_owners
        if len(owners[line]) != 2:
            return -1
        masks = self.cell_masks
        for t in (0, 1):
            y, x = owners[line][t], owners[line][1 - t]
            rest = masks[y] & ~drawn
            left = rest & ~(1 << line)
            if not rest >> line & 1 or not left or left & (left - 1):
                continue
            m = left.bit_length() - 1
            if len(owners[m]) != 2:
                continue
            z = owners[m][1] if owners[m][0] == y else owners[m][0]
            if masks[z] & ~drawn == 1 << m and masks[x] & ~drawn == 1 << line:
                return m
        return -1

    def chain_moves(self, drawn: int) -> tuple[int, ...] | None:
        """The only lines worth trying when a chain is on offer (normal play), else None.

        Walk from a capturable line, taking cell after cell while each capture makes
        exactly one new cell capturable. If the walk takes three or more cells without
        meeting a cell that was already on offer (a loop, or the chain's other end),
        taking is right: ``(l,)``; so it is where ``l`` starts a piece of three (``triple``). If the only
        line on offer starts a chain of exactly two cells, try only taking and declining both
        (double-dealing): ``(l, l2)``.
        """
        offered: set[int] = set()
        for mask in self.cell_masks:
            rest = mask & ~drawn
            if rest and not rest & (rest - 1):
                offered.add(rest.bit_length() - 1)
        for line in sorted(offered):  # line order, as the C search
            walk = self._walk(drawn, line, offered)
            if walk is not None and len(walk) >= 3:
                return (line,)
            if walk is not None and len(walk) == 2 and len(offered) == 1:
                return (line, walk[1])
            if walk == []:  # a piece of three: the next node takes the other two (free captures)
                return (line,)
        return None

    def _walk(self, drawn: int, line: int, offered: set[int]) -> list[int] | None:
        """The lines that take a chain from ``line`` on, or None if it branches or meets ``offered``; [] if ``line``
        starts a piece of three (its second cell's last line closes a cell already on offer too)."""
        lines = [line]
        while True:
            drawn |= 1 << line
            new = []
            for mask in self.touch[line]:
                left = mask & ~drawn
                if left and not left & (left - 1):
                    new.append(left.bit_length() - 1)
            if not new:
                return lines
            if len(new) != 1:
                return None
            if new[0] in offered:  # at once: ``line`` starts a piece of three (``triple`` says so too)
                return [] if len(lines) == 1 else None
            line = new[0]
            lines.append(line)

    def _key(self, drawn: int) -> tuple[int, int]:
        """The least image of ``drawn`` under the symmetries, and which symmetry gave it."""
        key, which = drawn, 0
        for index, tables in enumerate(self.tables, 1):
            image = 0
            rest = drawn
            for row in tables:
                image |= row[rest & 0xFF]
                rest >>= _CHUNK
            if image < key:
                key, which = image, index
        return key, which

    def _etc_cut(self, moves: list[tuple[int, int, int]], beta: int, sign: int) -> tuple[int, int] | None:
        """Enhanced transposition cutoff: (value, line) of the first move the table already proves reaches
        ``beta`` (each child keyed as ``_search`` keys it, after its free captures in normal play), else None."""
        for line, after, closed in moves:
            gain = 0
            if self.free_captures:
                after, gain = self.take_free(after)
            entry = self.table.get(self._key(after)[0])
            if entry is None:
                continue
            low, high = (entry & 0xFF) - 128, (entry >> 8 & 0xFF) - 128
            value = closed * sign + gain + low if closed else -(gain + high)
            if value >= beta:
                return value, line
        return None

    def _search(self, drawn: int, alpha: int, beta: int, open_cells: int) -> int:
        """Negamax: the mover's best objective (cells won minus lost, negated in misère)."""
        self.nodes += 1
        if self.deadline is not None and self.nodes & 1023 == 0 and self.clock() > self.deadline:
            raise SolverTimeout(f"solver passed its deadline after {self.nodes} nodes")
        sign = -1 if self.misere else 1
        gain = 0
        if self.free_captures:
            drawn, gain = self.take_free(drawn)
            alpha -= gain
            beta -= gain
            open_cells -= gain
        if not open_cells:
            return gain
        # the future is worth at most the open cells, either way
        if alpha >= open_cells:
            return gain + open_cells
        if beta <= -open_cells:
            return gain - open_cells
        key, which = self._key(drawn)
        entry = self.table.get(key)
        hint = -1
        if entry is not None:
            low, high, hint = (entry & 0xFF) - 128, (entry >> 8 & 0xFF) - 128, entry >> 16
            if low >= beta or low == high:
                return gain + low
            if high <= alpha:
                return gain + high
            alpha = max(alpha, low)
            beta = min(beta, high)
            if hint >= 0:
                hint = self.inverses[which][hint]
        else:
            low, high = -open_cells, open_cells
        forced = self.chain_moves(drawn) if self.free_captures else None
        if forced is not None:
            candidates = sum(1 << line for line in forced)
        else:
            free = self.full & ~drawn
            candidates = free & self.internal
            for mask in self.border_masks:
                border = mask & free
                if border:
                    candidates |= border & -border
        first, captures, safe_moves, sacrifices = [], [], [], []
        touch = self.touch
        history = self.history
        while candidates:
            bit = candidates & -candidates
            candidates ^= bit
            line = bit.bit_length() - 1
            after = drawn | bit
            closed = spare = 0
            risky = False
            cells = touch[line]
            for mask in cells:
                left = mask & ~after
                if not left:
                    closed += 1
                elif not left & (left - 1):
                    risky = True
                spare += left.bit_count()
            move = (line, after, closed)
            if line == hint:
                first.append(move)
            elif closed:
                captures.append(move)
            elif risky:
                sacrifices.append((-min(history[line], HISTORY_CAP), move))
            else:
                # in misère the lines that made the most cutoffs first; then (measured) lines between two cells,
                # then those leaving fewer free sides
                safe_moves.append((-min(history[line], HISTORY_CAP), -len(cells), spare, move))
        safe_moves.sort()
        sacrifices.sort()
        search = self._search
        start_alpha = alpha
        best, best_line = -open_cells - 1, -1
        moves = first + captures + [move[-1] for move in safe_moves + sacrifices]
        free_count = (self.full & ~drawn).bit_count()
        if free_count >= self.etc_free:
            cut = self._etc_cut(moves, beta, sign)
            if cut is not None:
                best, best_line = cut
                moves = []
        for line, after, closed in moves:
            # a capture keeps the move; any other line hands it over
            if closed:
                won = closed * sign
                value = won + search(after, alpha - won, beta - won, open_cells - closed)
            else:
                value = -search(after, -beta, -alpha, open_cells)
            if value > best:
                best, best_line = value, line
                if value > alpha:
                    alpha = value
                    if alpha >= beta:
                        if self.misere:
                            history[line] += free_count * free_count
                        break
        if best <= start_alpha:
            high = min(high, best)
        elif best >= beta:
            low = max(low, best)
        else:
            low = high = best
        self.table[key] = low + 128 | (high + 128) << 8 | self.perms[which][best_line] << 16
        return gain + best
