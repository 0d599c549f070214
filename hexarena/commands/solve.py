"""``hexarena solve``: the exact value of a two-player position and every best move.

The C search's table takes ``bots/brains/table_memory.py``'s share of the machine by default (a quarter of
MemAvailable, 16 MiB-16 GiB; ``--memory`` overrides). ``--checkpoint FILE`` writes the table and where the
solve stands every ``--checkpoint-every`` seconds, on SIGINT/SIGTERM, at a timeout and at the end; the same
command run again goes on from it (format: ``bots/brains/checkpoint.py``), in a table of the checkpoint's size,
or of ``--memory``'s where it is given (a full table's entries are rehashed into the new one).

``--method``: ``search`` (the C search above), ``retrograde`` (every position's value in one pass, one byte each,
``bots/brains/retrograde.py``: no table to fill and no move order, so misère costs what normal play does; three
quarters of MemAvailable by default, ``--memory`` overrides; not resumable), or ``auto`` (the default): retrograde
in misère where its positions fit and no ``--checkpoint`` is given, else the search.
"""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path
from typing import Annotated

import typer

from hexarena.commands import fail, interrupted_status, stopped_by_sigterm
from hexarena.commands.board import geometry_option, position

METHODS = ("auto", "search", "retrograde")


def solve(
    size: Annotated[str, typer.Argument(help="ROWSxCOLS, each 1-10, e.g. 2x3")],
    geometry: Annotated[str, typer.Option(help="hex or square", callback=geometry_option)] = "hex",
    misere: Annotated[bool, typer.Option("--misere", help="fewest cells wins")] = False,
    border: Annotated[bool, typer.Option("--border", help="pre-draw the lines that belong to one cell only")] = False,
    players: Annotated[int, typer.Option(help="the solver handles 2 players only")] = 2,
    moves: Annotated[str, typer.Option(help="solve the position after these lines, e.g. 3,17,4")] = "",
    as_json: Annotated[bool, typer.Option("--json", help='print {"value", "best", "nodes", "seconds", ...}')] = False,
    timeout: Annotated[float, typer.Option(help="give up after this many seconds (0: never)", min=0,
                                          max=86_400)] = 0,
    memory: Annotated[int | None, typer.Option(
        help="MiB for the C search's transposition table (16-65536; default: a quarter of the available memory, "
             "at most 16384)", min=16, max=65536, show_default=False)] = None,
    progress: Annotated[bool | None, typer.Option(
        "--progress/--no-progress", help="a progress line on stderr (default: on a terminal only)",
        show_default=False)] = None,
    checkpoint: Annotated[Path | None, typer.Option(
        help="keep the table and search state in FILE (written at intervals, on SIGINT/SIGTERM and at the end); "
             "run again with the same FILE to go on (with --memory: in a table of that size)", metavar="FILE")] = None,
    checkpoint_every: Annotated[float, typer.Option(help="seconds between checkpoints", min=5,
                                                    max=86_400)] = 600,
    restart: Annotated[bool, typer.Option("--restart", help="overwrite --checkpoint FILE instead of going on")] = False,
    method: Annotated[str, typer.Option(
        help="search, retrograde (every position once, one byte each: misère's fastest where they fit in memory; "
             "not resumable) or auto (retrograde in misère where it fits and no --checkpoint is given)")] = "auto",
) -> None:
    """Solve a position: the first player's final margin under perfect play, and every best line.

    The value is seat 0's cells minus seat 1's at the end of the game, cells already
    taken included. Under --misere seat 0 wants it as low as possible.
    """
    from hexarena.bots.brains import checkpoint as checkpoints
    from hexarena.bots.brains import table_memory
    from hexarena.bots.brains.solver import START_ENTRIES, Solver, compiled, table_bytes, table_entries_for
    from hexarena.bots.errors import CheckpointRefused, SolverTimeout
    from hexarena.protocol.board import make_board
    from hexarena.protocol.errors import BoardError
    from hexarena.protocol.rules import Options, Rules

    if players != 2:
        raise typer.BadParameter(f"the solver handles 2 players only, got {players}", param_hint="--players")
    if method not in METHODS:
        raise typer.BadParameter(f"{method!r} is not one of {', '.join(METHODS)}", param_hint="--method")
    try:
        board = make_board(size, geometry)
    except BoardError as exc:
        raise typer.BadParameter(str(exc), param_hint="SIZE") from None
    rules = Rules(board, Options(2, misere, border))
    state = position(rules, moves)
    in_c = compiled() and len(board.lines) <= 128 and len(board.cells) <= 64
    if checkpoint is not None and not in_c:
        raise typer.BadParameter("a checkpoint needs the C search (boards of up to 128 lines, and a C compiler "
                                 "when hexarena was installed)", param_hint="--checkpoint")
    resuming = checkpoint is not None and checkpoint.exists() and not restart
    if checkpoint is not None and checkpoint.exists() and not checkpoint.is_file():
        raise typer.BadParameter(f"{checkpoint} is not a regular file", param_hint="--checkpoint")
    if checkpoint is not None and not (checkpoint.parent.is_dir() and os.access(checkpoint.parent, os.W_OK)):
        raise typer.BadParameter(f"{checkpoint}: cannot write in {checkpoint.parent} (not a writable folder)",
                                 param_hint="--checkpoint")
    available = table_memory.available_mib()
    if memory is not None and available is not None and memory > available:
        fail(f"cannot allocate --memory {memory} MiB on this machine: {available} MiB are available; give "
             f"16-{available} (default {table_memory.RULE}, here {table_memory.default_mib(available)})", 1)
    plan = _retrograde_plan(method, state, memory, available, checkpoint)
    if plan is not None:
        _solve_by_retrograde(state, plan, timeout, memory, progress, as_json)
        return
    if resuming:
        try:
            header, _ = checkpoints.read_header(checkpoint)
        except CheckpointRefused as exc:
            fail(str(exc), 2)
        entries, start = header["max_entries"], header["entries"]
        sizing = "the checkpoint's"
        if memory is not None and table_entries_for(memory, len(board.lines)) != entries:
            # another size: a table that has not reached its most yet (under a quarter full) is read as it is and
            # grows to the new most; a full one is rehashed into a table of the new size
            entries = table_entries_for(memory, len(board.lines))
            sizing = "--memory"
            if not start < header["max_entries"] or start > entries:
                start, sizing = entries, "--memory, the checkpoint's table rehashed"
        mib = -(-table_bytes(entries, len(board.lines)) // 2**20)
    else:
        mib = memory if memory is not None else table_memory.default_mib(available, state.free_count())
        entries = table_entries_for(mib, len(board.lines))
        start = START_ENTRIES
        sizing = "--memory" if memory is not None else table_memory.RULE
    try:
        solver = Solver(rules, table_entries=entries, start_entries=start)
        resumed = checkpoints.read(checkpoint, solver, state) if resuming else None
    except MemoryError:
        fail(f"cannot allocate a {mib} MiB table on this machine; give less with --memory (16-65536, default "
             f"{table_memory.RULE})", 1)
    except CheckpointRefused as exc:
        fail(str(exc), 2)
    runs = resumed.runs + 1 if resumed else 1
    before_nodes, before_seconds = (resumed.nodes, resumed.seconds) if resumed else (0, 0.0)
    show = sys.stderr.isatty() if progress is None else progress
    meter = _Meter(solver, state, show, sys.stderr.isatty(), before_nodes)
    cpu_start = time.process_time()
    last_checkpoint = time.monotonic()

    def save() -> None:
        try:
            checkpoints.write(checkpoint, solver, state, before_nodes + solver.core.nodes,
                              before_seconds + time.process_time() - cpu_start, runs)
        except OSError as exc:
            fail(f"cannot write --checkpoint {checkpoint}: {exc.strerror or exc}", 1)

    def tick() -> None:
        nonlocal last_checkpoint
        meter.tick()
        if checkpoint is not None and time.monotonic() - last_checkpoint >= checkpoint_every:
            save()
            last_checkpoint = time.monotonic()

    with stopped_by_sigterm():
        try:
            solution = solver.solve(state, deadline=time.monotonic() + timeout if timeout else None,
                                    resume=resumed.root if resumed else None,
                                    watch=tick if (show or checkpoint is not None) else None)
        except SolverTimeout:
            meter.done()
            if checkpoint is not None:
                save()
                fail(f"not solved within {timeout:g} s; checkpoint written to {checkpoint}, run again to go on", 1)
            fail(f"not solved within {timeout:g} s", 1)
        except OSError as exc:  # a checkpoint written at an interval could not be
            meter.done()
            fail(f"cannot write --checkpoint {checkpoint}: {exc.strerror or exc}", 1)
        except KeyboardInterrupt as stop:
            meter.done()
            status = interrupted_status(stop)
            if checkpoint is None:
                fail("interrupted", status)
            save()
            fail(f"interrupted; checkpoint written to {checkpoint} ({before_nodes + solver.core.nodes:,} nodes so "
                 f"far, {meter.bound()}{meter.where()}): run the same command to go on", status)
    meter.done()
    if checkpoint is not None:
        save()
    nodes = before_nodes + solution.nodes
    cpu = before_seconds + time.process_time() - cpu_start
    table = {"table_mib": round(table_bytes(entries, len(board.lines)) / 2**20, 1), "table_max_entries": entries,
             "table_entries": solver.core.entries if solver.core is not None else len(solver.table),
             "table_sizing": sizing, "table_filled": solver.core.filled if solver.core is not None else len(solver.table)}
    if as_json:
        _print_json(solution, state, "search", nodes, cpu, runs, table)
        return
    _print_solution(solution, state)
    search = "C" if solver.core is not None else "pure-Python"
    over = f" over {runs} runs" if runs > 1 else ""
    if solver.core is not None:
        print(f"table: {table['table_filled']:,} entries in use, grown to {table['table_entries']:,} of "
              f"{entries:,} ({table['table_mib']:,.0f} MiB, {sizing})")
    print(f"{nodes} nodes in {solution.seconds:.2f} s{over} ({search} search)")


def _retrograde_plan(method: str, state, memory: int | None, available: int | None, checkpoint: Path | None):
    """The retrograde pass to make (``bots/brains/retrograde.py``'s ``Plan``), or None for the search: ``auto`` makes
    it in misère where it fits in ``--memory`` (else three quarters of MemAvailable) and no checkpoint is asked
    for; ``retrograde`` makes it or says in one line why it cannot."""
    from hexarena.bots.brains import retrograde, table_memory

    if method == "search" or (method == "auto" and (not state.rules.options.misere or checkpoint is not None)):
        return None
    if method == "retrograde" and checkpoint is not None:
        raise typer.BadParameter("a retrograde pass is not resumable: --checkpoint needs --method search or auto",
                                 param_hint="--method")
    if not retrograde.available():
        if method == "auto":
            return None
        fail("--method retrograde needs hexarena's C extensions (a C compiler when it was installed)", 1)
    plan = retrograde.Plan.of(state)
    if plan.positions > retrograde.MAX_POSITIONS:
        if method == "auto":
            return None
        fail(f"--method retrograde takes at most 2**40 positions, this one has {plan.positions:,}; give --method "
              "search", 1)
    budget = memory if memory is not None else table_memory.retrograde_mib(available)
    need = -(-plan.bytes // 2**20)
    if need <= budget:
        return plan
    if method == "retrograde":
        rule = "--memory" if memory is not None else f"the default, {table_memory.RETROGRADE_RULE}"
        fail(f"--method retrograde needs {need:,} MiB (one byte a position, of the last blocks of its "
             f"{plan.positions:,}), more than {budget:,} MiB ({rule}); give --memory {need} or more, or --method "
              "search", 1)
    return None


def _solve_by_retrograde(state, plan, timeout: float, memory: int | None, progress: bool | None,
                         as_json: bool) -> None:
    """``hexarena solve`` by one retrograde pass: the value, the best lines and the positions counted."""
    from hexarena.bots.brains import retrograde, table_memory
    from hexarena.bots.errors import SolverTimeout

    deadline = time.monotonic() + timeout if timeout else None
    show = sys.stderr.isatty() if progress is None else progress
    meter = _Progress(show, sys.stderr.isatty())
    total = plan.positions

    def watch(done: int) -> None:
        if deadline is not None and time.monotonic() > deadline:
            raise SolverTimeout(f"retrograde pass past its deadline after {done} positions")
        meter.show_at(lambda rate, elapsed: f"{_si(done)} of {_si(total)} positions ({100 * done / total:.0f}%), "
                                            f"{_si(rate(done))} positions/s, {elapsed}")

    cpu_start = time.process_time()
    with stopped_by_sigterm():
        try:
            solution = retrograde.solve(state, watch)
        except SolverTimeout:
            meter.done()
            fail(f"not solved within {timeout:g} s", 1)
        except MemoryError:
            meter.done()
            fail(f"cannot allocate {-(-plan.bytes // 2**20):,} MiB for the retrograde pass on this machine; give "
                  "--method search", 1)
        except KeyboardInterrupt as stop:
            meter.done()
            fail("interrupted", interrupted_status(stop))
    meter.done()
    cpu = time.process_time() - cpu_start
    sizing = "--memory" if memory is not None else table_memory.RETROGRADE_RULE
    mib = round(plan.bytes / 2**20, 1)
    if as_json:
        _print_json(solution, state, "retrograde", total, cpu, 1,
                    {"table_mib": mib, "table_max_entries": total, "table_entries": total, "table_sizing": sizing,
                     "table_filled": total})
        return
    _print_solution(solution, state)
    print(f"retrograde: every position once, one byte each, the last blocks kept ({mib:,.0f} MiB, within {sizing})")
    print(f"{total} positions in {solution.seconds:.2f} s (retrograde)")


def _print_json(solution, state, method: str, nodes: int, cpu: float, runs: int, table: dict) -> None:
    print(json.dumps({"value": solution.value, "best": list(solution.best), "nodes": nodes,
                      "seconds": round(solution.seconds, 3), "cpu_seconds": round(cpu, 3), "runs": runs,
                      "future": solution.future, "to_move": state.to_move, "scores": list(state.scores),
                      "method": method, **table}))


def _print_solution(solution, state) -> None:
    rules = state.rules
    board, options = rules.board, rules.options
    print(f"{board.size} {board.geometry}{' misère' if options.misere else ''}{' border' if options.border else ''}: "
          f"{state.free_count()} free lines, scores {state.scores[0]}-{state.scores[1]}, seat {state.to_move} to move")
    print(f"value (seat 0's final margin): {solution.value:+d}")
    print(f"best lines: {', '.join(map(str, solution.best)) or '(game over)'}")


class _Progress:
    """A progress line on stderr, rewritten in place on a terminal (every second), a line every 5 s otherwise,
    from 2 s on; ``show_at(make)`` prints ``make(rate, elapsed)`` when one is due."""

    def __init__(self, show: bool, terminal: bool) -> None:
        self.show, self.terminal = show, terminal
        self.started = self.last = time.monotonic()
        self.last_count = 0
        self.printed = False
        self.every = 1.0 if terminal else 5.0

    def show_at(self, make) -> None:
        now = time.monotonic()
        if not self.show or now - self.started < 2 or now - self.last < self.every:
            return

        def rate(count: int) -> float:
            per_second = (count - self.last_count) / max(now - self.last, 1e-9)
            self.last_count = count
            return per_second

        elapsed = int(now - self.started)
        line = make(rate, f"{elapsed // 3600}:{elapsed // 60 % 60:02d}:{elapsed % 60:02d}")
        self.last = now
        self.printed = True  # first: a Ctrl-C that lands while the line is written still has ``done`` clear it
        sys.stderr.write(f"\r\x1b[K{line}" if self.terminal else line + "\n")
        sys.stderr.flush()

    def done(self) -> None:
        if self.printed and self.terminal:
            sys.stderr.write("\r\x1b[K")
            sys.stderr.flush()


class _Meter(_Progress):
    """The search's progress line: nodes, nodes/s, table fill, the bound so far, where the search is in the
    position's moves while the value is unknown (``where``), the best line once the table holds one, elapsed."""

    def __init__(self, solver, state, show: bool, terminal: bool, before_nodes: int) -> None:
        super().__init__(show, terminal)
        self.solver, self.state = solver, state
        self.before = before_nodes

    def bound(self) -> str:
        """Seat 0's final margin as far as the search has proven it."""
        root = self.solver.root
        if root is None:
            return "value unknown yet"
        sign = -1 if self.solver.misere else 1
        taken = self.state.scores[0] - self.state.scores[1]
        mover = 1 if self.state.to_move == 0 else -1
        ends = sorted(taken + mover * sign * bound for bound in (root.low, root.high))
        return f"value {ends[0]:+d}" if ends[0] == ends[1] else f"value in [{ends[0]:+d}, {ends[1]:+d}]"

    def where(self) -> str:
        """While the value is searched: the move of the position the search is on (of the moves it searches
        there, after its reductions), the reply under it, and the moves under that (``Core.path``'s plies): ", at
        move 3 of 40, reply 12 of 39, then 5 of 38, 1 of 37". While the best lines are: those found so far, the
        line being checked, and the same under it: ", best lines so far 4, 9, checking line 12 (6 of 40), reply 3
        of 39, then 2 of 38"."""
        root, core, checking = self.solver.root, self.solver.core, self.solver.checking
        if root is None or core is None:
            return ""
        path = core.path
        if root.low == root.high:
            if checking is None:
                return ""
            found = ", ".join(map(str, checking.found)) or "none"
            return (f", best lines so far {found}, checking line {checking.line} ({checking.index} of "
                    f"{checking.total})" + _replies(path))
        if not path:
            return ""
        (move, moves), *under = path
        return f", at move {move} of {moves}" + _replies(under)

    def tick(self) -> None:
        def line(rate, elapsed: str) -> str:
            core = self.solver.core
            best = self.solver.best_so_far(self.state) if self.solver.checking is None else None
            return (f"{_si(self.before + core.nodes)} nodes, {_si(rate(core.nodes))} nodes/s, table "
                    f"{100 * core.filled / core.max_entries:.0f}% full, {self.bound()}{self.where()}"
                    f"{f', best line {best}' if best is not None else ''}, {elapsed}")

        self.show_at(line)


def _replies(path: list[tuple[int, int]]) -> str:
    """", reply 12 of 39, then 5 of 38, 1 of 37": the reply searched now, and the moves under it."""
    if not path:
        return ""
    (reply, replies), *deeper = path
    return f", reply {reply} of {replies}" + "".join(
        f"{', then' if ply == 0 else ','} {move} of {moves}" for ply, (move, moves) in enumerate(deeper))


def _si(count: float) -> str:
    for unit, scale in (("G", 1e9), ("M", 1e6), ("k", 1e3)):
        if count >= scale:
            return f"{count / scale:.2f} {unit}"
    return f"{count:.0f}"


def register(app: typer.Typer) -> None:
    app.command()(solve)
