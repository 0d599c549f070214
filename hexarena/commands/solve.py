"""``hexarena solve``: the exact value of a two-player position and every best move.

The C search's table takes ``bots/brains/table_memory.py``'s share of the machine by default (a quarter of
MemAvailable, 16 MiB-16 GiB; ``--memory`` overrides). ``--checkpoint FILE`` writes the table and where the
solve stands every ``--checkpoint-every`` seconds, on SIGINT/SIGTERM, at a timeout and at the end; the same
command run again goes on from it (format: ``bots/brains/checkpoint.py``), in a table of the checkpoint's size,
or of ``--memory``'s where it is given (a full table's entries are rehashed into the new one).
"""

from __future__ import annotations

import json
import os
import signal
import sys
import time
from pathlib import Path
from typing import Annotated

import typer

from hexarena.commands.board import geometry_option, position


class _Terminated(Exception):
    """SIGTERM arrived: stop the search (and checkpoint) like SIGINT does."""


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
    if resuming:
        try:
            header, _ = checkpoints.read_header(checkpoint)
        except CheckpointRefused as exc:
            _fail(str(exc), 2)
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
    if memory is not None and available is not None and memory > available:
        _fail(f"cannot allocate --memory {memory} MiB on this machine: {available} MiB are available; give "
              f"16-{available} (default {table_memory.RULE}, here {table_memory.default_mib(available)})", 1)
    try:
        solver = Solver(rules, table_entries=entries, start_entries=start)
        resumed = checkpoints.read(checkpoint, solver, state) if resuming else None
    except MemoryError:
        _fail(f"cannot allocate a {mib} MiB table on this machine; give less with --memory (16-65536, default "
              f"{table_memory.RULE})", 1)
    except CheckpointRefused as exc:
        _fail(str(exc), 2)
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
            _fail(f"cannot write --checkpoint {checkpoint}: {exc.strerror or exc}", 1)

    def tick() -> None:
        nonlocal last_checkpoint
        meter.tick()
        if checkpoint is not None and time.monotonic() - last_checkpoint >= checkpoint_every:
            save()
            last_checkpoint = time.monotonic()

    def terminated(signum, frame) -> None:
        raise _Terminated()

    previous = signal.signal(signal.SIGTERM, terminated)
    try:
        solution = solver.solve(state, deadline=time.monotonic() + timeout if timeout else None,
                                resume=resumed.root if resumed else None,
                                watch=tick if (show or checkpoint is not None) else None)
    except SolverTimeout:
        meter.done()
        if checkpoint is not None:
            save()
            _fail(f"not solved within {timeout:g} s; checkpoint written to {checkpoint}, run again to go on", 1)
        _fail(f"not solved within {timeout:g} s", 1)
    except OSError as exc:  # a checkpoint written at an interval could not be
        meter.done()
        _fail(f"cannot write --checkpoint {checkpoint}: {exc.strerror or exc}", 1)
    except (KeyboardInterrupt, _Terminated) as stop:
        meter.done()
        status = 143 if isinstance(stop, _Terminated) else 130
        if checkpoint is None:
            _fail("interrupted", status)
        save()
        _fail(f"interrupted; checkpoint written to {checkpoint} ({before_nodes + solver.core.nodes:,} nodes so "
              f"far, {meter.bound()}): run the same command to go on", status)
    finally:
        signal.signal(signal.SIGTERM, previous)
    meter.done()
    if checkpoint is not None:
        save()
    nodes = before_nodes + solution.nodes
    cpu = before_seconds + time.process_time() - cpu_start
    table = {"table_mib": round(table_bytes(entries, len(board.lines)) / 2**20, 1), "table_max_entries": entries,
             "table_entries": solver.core.entries if solver.core is not None else len(solver.table),
             "table_sizing": sizing, "table_filled": solver.core.filled if solver.core is not None else len(solver.table)}
    if as_json:
        print(json.dumps({"value": solution.value, "best": list(solution.best), "nodes": nodes,
                          "seconds": round(solution.seconds, 3), "cpu_seconds": round(cpu, 3), "runs": runs,
                          "future": solution.future, "to_move": state.to_move, "scores": list(state.scores),
                          **table}))
        return
    free = state.free_count()
    print(f"{board.size} {geometry}{' misère' if misere else ''}{' border' if border else ''}: "
          f"{free} free lines, scores {state.scores[0]}-{state.scores[1]}, seat {state.to_move} to move")
    print(f"value (seat 0's final margin): {solution.value:+d}")
    print(f"best lines: {', '.join(map(str, solution.best)) or '(game over)'}")
    search = "C" if solver.core is not None else "pure-Python"
    over = f" over {runs} runs" if runs > 1 else ""
    if solver.core is not None:
        print(f"table: {table['table_filled']:,} entries in use, grown to {table['table_entries']:,} of "
              f"{entries:,} ({table['table_mib']:,.0f} MiB, {sizing})")
    print(f"{nodes} nodes in {solution.seconds:.2f} s{over} ({search} search)")


def _fail(message: str, status: int) -> None:
    """One line on stderr and exit (SystemExit: typer would answer 130 with a second "interrupted" line)."""
    print(f"hexarena: error: {message}", file=sys.stderr)
    raise SystemExit(status)


class _Meter:
    """The progress line: nodes, nodes/s, table fill, the bound (and best line) so far, elapsed."""

    def __init__(self, solver, state, show: bool, terminal: bool, before_nodes: int) -> None:
        self.solver, self.state, self.show, self.terminal = solver, state, show, terminal
        self.started = self.last = time.monotonic()
        self.before = before_nodes
        self.last_nodes = 0
        self.printed = False
        self.every = 1.0 if terminal else 5.0

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

    def tick(self) -> None:
        now = time.monotonic()
        if not self.show or now - self.started < 2 or now - self.last < self.every:
            return
        core = self.solver.core
        nodes = core.nodes
        rate = (nodes - self.last_nodes) / max(now - self.last, 1e-9)
        self.last, self.last_nodes = now, nodes
        best = self.solver.best_so_far(self.state)
        elapsed = int(now - self.started)
        line = (f"{_si(self.before + nodes)} nodes, {_si(rate)} nodes/s, table {100 * core.filled / core.max_entries:.0f}% "
                f"full, {self.bound()}{f', best line {best}' if best is not None else ''}, "
                f"{elapsed // 3600}:{elapsed // 60 % 60:02d}:{elapsed % 60:02d}")
        if self.terminal:
            sys.stderr.write(f"\r\x1b[K{line}")
        else:
            sys.stderr.write(line + "\n")
        sys.stderr.flush()
        self.printed = True

    def done(self) -> None:
        if self.printed and self.terminal:
            sys.stderr.write("\r\x1b[K")
            sys.stderr.flush()


def _si(count: float) -> str:
    for unit, scale in (("G", 1e9), ("M", 1e6), ("k", 1e3)):
        if count >= scale:
            return f"{count / scale:.2f} {unit}"
    return f"{count:.0f}"


def register(app: typer.Typer) -> None:
    app.command()(solve)
