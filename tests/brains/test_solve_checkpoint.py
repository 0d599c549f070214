"""``hexarena solve`` as a user runs it: the table's default size, the progress line, resumable checkpoints."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from helpers import Terminal, needs_c_search

from hexarena.bots.brains import table_memory
from hexarena.bots.brains.checkpoint import MAGIC
from hexarena.bots.brains.solver import START_ENTRIES, Solver, table_bytes, table_entries_for
from hexarena.protocol.board import make_board

ROOT = Path(__file__).resolve().parents[2]
CLI = [sys.executable, "-m", "hexarena", "solve"]


def run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([*CLI, *args], capture_output=True, text=True, timeout=600, cwd=ROOT, check=False)


def header_of(path: Path) -> dict:
    with open(path, "rb") as source:
        assert source.read(len(MAGIC)) == MAGIC
        return json.loads(source.readline())


def test_the_default_table_is_a_quarter_of_the_available_memory_within_bounds():
    assert table_memory.default_mib(8_000) == 2_000
    assert table_memory.default_mib(200_000) == table_memory.CAP_MIB == 16_384
    assert table_memory.default_mib(40) == 16
    assert table_memory.default_mib(80_000, free_lines=10) == 16  # 2**11 entries: no more than it can fill
    assert table_memory.default_mib(200_000, free_lines=25) == 1_536  # 2**26 entries of 24 bytes


@needs_c_search
def test_json_says_how_the_table_was_sized():
    default = json.loads(run("2x2", "--json").stdout)
    assert default["table_sizing"].startswith("1/4 of MemAvailable") and default["table_entries"] >= 16
    given = json.loads(run("2x2", "--json", "--memory", "20").stdout)
    lines = len(make_board("2x2").lines)  # 19: the narrow table, 64-byte buckets of five 12-byte entries
    assert (given["table_sizing"], given["table_max_entries"]) == ("--memory", 20 * 2**20 // 64 * 5)
    assert table_entries_for(20, lines) == 20 * 2**20 // 64 * 5 and table_entries_for(20) == 20 * 2**20 // 24 // 4 * 4
    assert given["table_entries"] == START_ENTRIES // 5 * 5  # the first size (whole buckets); it grows as it fills
    assert given["value"] == default["value"] == -2


@needs_c_search
def test_a_finished_checkpoint_answers_at_once_and_counts_its_runs(tmp_path: Path):
    path = tmp_path / "2x3.ckpt"
    first = json.loads(run("2x3", "--memory", "16", "--checkpoint", str(path), "--json").stdout)
    header = header_of(path)
    assert (header["format"], header["runs"], header["nodes"]) == (1, 1, first["nodes"])
    assert header["position"] == {"geometry": "hex", "size": "2x3", "misere": False, "border": False, "drawn": "0",
                                  "scores": [0, 0], "to_move": 0}
    again = json.loads(run("2x3", "--memory", "16", "--checkpoint", str(path), "--json").stdout)
    assert (again["value"], again["best"], again["nodes"], again["runs"]) == (-2, first["best"], first["nodes"], 2)
    assert again["table_sizing"] == "the checkpoint's"


def damage(path: Path, how: str) -> None:
    data = bytearray(path.read_bytes())
    if how == "truncated":
        del data[-1000:]
    elif how == "table":
        start = data.index(b"\n", len(MAGIC)) + 1
        data[start + 5000] ^= 0x5A
        data[start + 300_000] ^= 0x01
    elif how == "format":
        data = data.replace(b'"format":1', b'"format":9', 1)
    elif how == "layout":
        data = bytearray(re.sub(rb'"layout":[0-9]+', b'"layout":7', bytes(data), count=1))
    elif how == "header":
        data[len(MAGIC) + 3] = ord("}")
    elif how == "field kind":
        data = data.replace(b'"runs":1', b'"runs":"1"', 1)
    elif how == "table size":
        data = bytearray(re.sub(rb'"max_entries":[0-9]+', b'"max_entries":8', bytes(data), count=1))
    elif how == "part of a bucket":  # the same table bytes (1048575 -> 1048576 entries, buckets of 5)
        data = data.replace(b'"entries":1048575', b'"entries":1048576', 1)
    elif how == "not a checkpoint":
        data = bytearray(b"hello\n" * 100)
    path.write_bytes(bytes(data))


@needs_c_search
@pytest.mark.parametrize(("how", "message"), [
    ("other position", "it is of another position (hex 2x2, drawn 0), not hex 2x2 misere, drawn 0"),
    ("truncated", "(truncated or damaged)"),
    ("table", "its table is damaged (CRC-32 mismatch)"),
    ("format", "written in checkpoint format 9; this solver reads format 1 only"),
    ("layout", "its table has layout 7 of 12-byte entries"),
    ("header", "its header is damaged"),
    ("field kind", "its header is damaged (runs of the wrong kind)"),
    ("table size", "its header is damaged (a table of 1048575 entries growing to 8; the solver's is 16 to 2**36)"),
    ("part of a bucket", "its header is damaged (a table of 1048576 entries growing to 1310720, not whole buckets of 5)"),
    ("not a checkpoint", "not a solver checkpoint"),
])
@pytest.mark.slow
def test_a_checkpoint_that_cannot_be_resumed_is_refused_in_one_line_and_kept(tmp_path: Path, how: str, message: str):
    path = tmp_path / "solve.ckpt"
    assert run("2x2", "--memory", "16", "--checkpoint", str(path)).returncode == 0
    if how != "other position":
        damage(path, how)
    before = path.read_bytes()
    args = ["2x2", "--memory", "16", "--checkpoint", str(path)] + (["--misere"] if how == "other position" else [])
    done = run(*args)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.count("\n") == 1 and "Traceback" not in done.stderr
    assert done.stderr.startswith(f"hexarena: error: --checkpoint {path}: ") and message in done.stderr, done.stderr
    assert done.stderr.rstrip().endswith("give another file, or --restart to overwrite it")
    assert path.read_bytes() == before
    restarted = run(*args, "--restart", "--json")
    assert restarted.returncode == 0 and json.loads(restarted.stdout)["runs"] == 1
    assert header_of(path)["position"]["misere"] is (how == "other position")


@needs_c_search
def test_a_checkpoint_of_the_older_wide_table_is_refused_for_a_board_of_up_to_64_lines(tmp_path: Path):
    """Before the narrow table, every board's checkpoint had layout 2 (24-byte entries): such a file of hexagons
    2x2 (19 lines, now layout 3) is whole and of the right position, and is refused in one line, not misread."""
    path = tmp_path / "old.ckpt"
    assert run("2x2", "--memory", "16", "--checkpoint", str(path)).returncode == 0
    header = header_of(path)
    assert (header["layout"], header["entry_bytes"]) == (3, 12)
    header.update(layout=2, entry_bytes=24, entries=2**20 - 4, max_entries=2**20 - 4)  # whole buckets of 4
    path.write_bytes(MAGIC + json.dumps(header).encode() + b"\n" + bytes(header["entries"] * 24))
    before = path.read_bytes()
    done = run("2x2", "--checkpoint", str(path))
    assert done.returncode == 2 and done.stderr.count("\n") == 1 and "Traceback" not in done.stderr
    assert "its table has layout 2; this solver's for this board is layout 3 (written by an older solver" in done.stderr
    assert path.read_bytes() == before


@needs_c_search
@pytest.mark.parametrize("misere", [True, False], ids=["misere", "normal"])
def test_a_checkpoint_written_before_the_misere_rule_was_dropped_is_refused_in_misere_only(tmp_path: Path, misere):
    """A file without ``misere_rules`` was written by a solver with misère's double-dealing rule, which the proof
    over 27 free lines found wrong: in misère its table's bounds are unproven and it is refused in one line; a
    normal-play file of then is as sound as now and goes on."""
    path = tmp_path / "old.ckpt"
    options = ["--misere"] if misere else []
    first = json.loads(run("2x2", *options, "--memory", "16", "--checkpoint", str(path), "--json").stdout)
    data = path.read_bytes()
    header = header_of(path)
    assert header.pop("misere_rules") == 2
    line = data[len(MAGIC) :].split(b"\n", 1)[0]
    path.write_bytes(data.replace(line, json.dumps(header, separators=(",", ":")).encode(), 1))
    before = path.read_bytes()
    done = run("2x2", *options, "--memory", "16", "--checkpoint", str(path), "--json")
    if misere:
        assert done.returncode == 2 and done.stderr.count("\n") == 1 and "Traceback" not in done.stderr
        assert "its table was searched with misère's double-dealing rule" in done.stderr and "--restart" in done.stderr
        assert path.read_bytes() == before
    else:
        again = json.loads(done.stdout)
        assert (again["value"], again["runs"]) == (first["value"], 2)


@needs_c_search
def test_the_search_says_which_move_it_is_on_in_its_first_four_plies():
    """``Core.path``, which the progress line shows: hexagons 3x2 misère searched with the full window, asked at
    every chance (every 262,144 nodes). The top's move only goes forward, the moves under it change (each of fewer
    than the ply above), and a search that ends has searched the top's last move (a full window cuts nowhere at
    the top)."""
    from hexarena.protocol.rules import Options, Rules

    rules = Rules(make_board("3x2"), Options(2, True, False))
    core = Solver(rules).core
    assert core.path == []
    seen = []
    core.set_tick(lambda: seen.append(core.path), 0.0)
    cells = len(rules.board.cells)
    core.search(0, 0, -cells, cells, cells)
    core.set_tick(None, 0)
    lines = len(rules.board.lines)
    assert len(seen) >= 2 and len(set(map(tuple, seen))) == len(seen)
    for path in seen:
        (move, moves), *under = path
        assert 1 <= move <= moves <= lines and len(under) <= 3
        assert all(1 <= reply <= replies <= lines - ply for ply, (reply, replies) in enumerate(under, 1))
    assert [path[0] for path in seen] == sorted(path[0] for path in seen)
    assert max(len(path) for path in seen) == 4
    (move, moves), *_ = core.path
    assert move == moves == seen[0][0][1]


@needs_c_search
def test_a_checkpoint_in_a_folder_that_cannot_be_written_is_refused_before_solving(tmp_path: Path):
    done = run("2x2", "--checkpoint", str(tmp_path / "missing" / "x.ckpt"))
    assert done.returncode == 2 and "not a writable folder" in done.stderr and "Traceback" not in done.stderr
    folder = run("2x2", "--checkpoint", str(tmp_path))
    assert folder.returncode == 2 and "is not a regular file" in folder.stderr


@pytest.mark.slow
@needs_c_search
@pytest.mark.parametrize(("sig", "status"), [(signal.SIGTERM, 143), (signal.SIGINT, 130)], ids=["SIGTERM", "SIGINT"])
def test_a_solve_stopped_by_a_signal_writes_its_checkpoint_and_a_rerun_finishes_it(tmp_path: Path, sig, status):
    """Hexagons 2x4 (35 free lines, 7 CPU s in a 64 MiB table), at a terminal: stopped once its first progress line
    shows (at 2 s), then run to the end (after SIGTERM only: the rerun reads the same checkpoint whichever signal
    wrote it). Off a terminal the first line comes at 5 s, which a fast machine could solve 2x4 within."""
    path = tmp_path / "2x4.ckpt"
    args = ["2x4", "--memory", "64", "--checkpoint", str(path), "--checkpoint-every", "5"]
    with Terminal([*CLI, *args], cwd=ROOT) as terminal:
        terminal.wait_for(" nodes/s, table ")
        terminal.process.send_signal(sig)
        returncode, out, lines = terminal.finish()
    assert returncode == status and out == ""
    progress, last = lines[0], lines[-1]
    # "value in [low, high]" while the value is searched; "value V, best line L" once it is known (a fast machine)
    assert " nodes, " in progress and "% full, value " in progress
    if "value in [" in progress:  # and where the search is in the position's moves (of 35 lines)
        where = re.search(r"\], at move (\d+) of (\d+)(?:, reply (\d+) of (\d+))?, ", progress)
        assert where is not None, progress
        move, moves, reply, replies = (int(number or 1) for number in where.groups())
        assert 1 <= move <= moves <= 35 and 1 <= reply <= replies <= 34
    assert last.startswith(f"hexarena: error: interrupted; checkpoint written to {path} ("), lines
    assert all(" nodes/s, table " in line for line in lines[:-1]), lines  # the progress lines, then that one
    header = header_of(path)
    assert header["runs"] == 1 and header["nodes"] > 0 and header["filled"] > 0
    root = header["root"]  # stopped while the value was searched, or (a fast machine) while the best lines were
    assert root["low"] < root["high"] or root["low"] == root["high"] == -2
    assert (", at move " in last) == (root["low"] < root["high"]) != (", checking line " in last), last
    if sig != signal.SIGTERM:
        return
    done = run(*args, "--json")
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert (result["value"], result["best"], result["runs"]) == (-2, list(range(35)), 2)
    assert result["nodes"] > header["nodes"]
    assert header_of(path)["root"]["low"] == header_of(path)["root"]["high"] == -2


def summary(done: subprocess.CompletedProcess) -> dict:
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    return {name: result[name] for name in ("value", "best", "nodes", "runs", "table_max_entries", "table_entries",
                                             "table_sizing", "table_filled")}


@needs_c_search
@pytest.mark.parametrize(("size", "moves"), [("2x3", ""), ("4x5", ",".join(map(str, range(62))))],
                         ids=["narrow 2x3", "wide 4x5 after 62 lines"])
def test_a_checkpoint_goes_on_in_a_table_of_another_size_with_its_entries(tmp_path: Path, size: str, moves: str):
    """A table grown to its most (hexagons 2x3 misère: 412,216 entries, a quarter of 16 MiB's) is rehashed into
    the table --memory asks for, bigger or smaller, every entry kept: the solve answers from it at once."""
    path = tmp_path / "solve.ckpt"
    args = [size, "--misere", "--moves", moves, "--checkpoint", str(path), "--json"]
    first = summary(run(*args, "--memory", "16"))
    assert first["table_entries"] == first["table_max_entries"] == table_entries_for(16, len(make_board(size).lines))
    for runs, mib in enumerate((64, 16, 64), start=2):
        again = summary(run(*args, "--memory", str(mib)))
        entries = table_entries_for(mib, len(make_board(size).lines))
        assert again == {**first, "runs": runs, "table_max_entries": entries, "table_entries": entries,
                         "table_sizing": "--memory, the checkpoint's table rehashed"}
        header = header_of(path)
        assert (header["entries"], header["max_entries"], header["filled"]) == (entries, entries, first["table_filled"])
    assert summary(run(*args))["table_sizing"] == "the checkpoint's"  # no --memory: the checkpoint's size


@needs_c_search
def test_a_table_short_of_its_most_is_read_as_it_is_and_grows_to_the_new_memory(tmp_path: Path):
    path = tmp_path / "solve.ckpt"
    first = summary(run("2x3", "--memory", "16", "--checkpoint", str(path), "--json"))
    assert first["table_entries"] < first["table_max_entries"]  # 71,912 entries: it never grew
    again = summary(run("2x3", "--memory", "64", "--checkpoint", str(path), "--json"))
    assert again == {**first, "runs": 2, "table_max_entries": table_entries_for(64, 27), "table_sizing": "--memory"}


@needs_c_search
def test_a_solve_stopped_in_a_full_table_goes_on_in_a_bigger_one(tmp_path: Path):
    """Python's view: hexagons 2x3 misère in a table of 2,000 entries, stopped after 0.1 s, resumed from its
    checkpoint in a table of 64 MiB (entries rehashed), ends with the value and best lines of a solve in one go."""
    from hexarena.bots.brains import checkpoint
    from hexarena.bots.errors import SolverTimeout
    from hexarena.protocol.rules import Options, Rules

    rules = Rules(make_board("2x3"), Options(2, True, False))
    state = rules.start()
    small = Solver(rules, table_entries=2000, start_entries=2000)
    try:
        small.solve(state, deadline=time.monotonic() + 0.1)
    except SolverTimeout:
        pass  # the usual case; a machine fast enough to finish leaves a finished root search
    assert small.core.filled > 0 and small.root is not None
    path = tmp_path / "small.ckpt"
    checkpoint.write(path, small, state, small.core.nodes, 0.1, 1)
    big = Solver(rules, table_entries=table_entries_for(64, 27), start_entries=table_entries_for(64, 27))
    resumed = checkpoint.read(path, big, state)
    assert big.core.filled == small.core.filled and resumed.root == small.root
    assert resumed.nodes == small.core.nodes and resumed.runs == 1
    whole = Solver(rules).solve(state)
    goes_on = big.solve(state, resume=resumed.root)
    assert (goes_on.value, goes_on.best) == (whole.value, whole.best) == (-2, whole.best)


@needs_c_search
@pytest.mark.parametrize("how", ["table", "memory"])
def test_a_checkpoint_that_cannot_go_on_in_a_bigger_table_is_refused_in_one_line_and_kept(tmp_path: Path, how: str):
    """A damaged table found while its entries are rehashed, or --memory more than the machine has: one line,
    no traceback, and the file as it was."""
    path = tmp_path / "solve.ckpt"
    assert run("2x3", "--misere", "--memory", "16", "--checkpoint", str(path)).returncode == 0
    if how == "table":
        damage(path, "table")
    before = path.read_bytes()
    done = run("2x3", "--misere", "--memory", "64" if how == "table" else "65536", "--checkpoint", str(path))
    assert done.returncode != 0 and done.stdout == "" and "Traceback" not in done.stderr
    assert done.stderr.count("\n") == 1
    assert ("its table is damaged (CRC-32 mismatch)" if how == "table" else "cannot allocate --memory 65536") \
        in done.stderr, done.stderr
    assert path.read_bytes() == before


@needs_c_search
def test_the_progress_line_says_which_line_the_best_lines_pass_is_checking():
    """Hexagons 3x2 misère, its meter read at every chance: while the value is searched it says where in the
    position's moves; once the value is known, the best lines found so far and the line being checked, the
    lines checked in order, each found line best."""
    from hexarena.commands.solve import _Meter
    from hexarena.protocol.rules import Options, Rules

    rules = Rules(make_board("3x2"), Options(2, True, False))
    solver = Solver(rules)
    state = rules.start()
    meter = _Meter(solver, state, show=False, terminal=False, before_nodes=0)
    seen = []
    solution = solver.solve(state, watch=lambda: seen.append(meter.where()), watch_every=0.0)
    assert solver.checking is None and meter.where() == ""
    searching = [where for where in seen if where.startswith(", at move ")]
    checking = [re.fullmatch(r", best lines so far ([\d, ]+|none), checking line (\d+) \((\d+) of (\d+)\)"
                             r"(?:, reply (\d+) of (\d+)(?:, then \d+ of \d+(?:, \d+ of \d+)*)?)?", where)
                for where in seen[len(searching):]]
    assert searching and checking and all(checking), seen
    lines = state.legal_moves()
    order = []
    for match in checking:
        found, line, index, total = match.group(1), *map(int, match.groups()[1:4])
        assert total == len(lines) and lines[index - 1] == line
        before = [] if found == "none" else [int(best) for best in found.split(", ")]
        assert before == [best for best in solution.best if best < line]
        order.append(index)
    assert order == sorted(order)


def peak_mib(*args: str) -> tuple[dict, float]:
    """``hexarena solve ARGS --json``'s answer and its process's peak memory (resident set) in MiB."""
    solve = subprocess.Popen([*CLI, *args, "--json"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                             cwd=ROOT)
    with solve.stdout, solve.stderr:
        out, err = solve.stdout.read(), solve.stderr.read()  # a line at most on stderr: no pipe fills while waiting
    _, status, usage = os.wait4(solve.pid, 0)  # not Popen.wait: its usage is this child's alone
    solve.returncode = os.waitstatus_to_exitcode(status)
    assert solve.returncode == 0, err
    return json.loads(out), usage.ru_maxrss / 1024


@pytest.mark.slow
@needs_c_search
def test_a_growing_table_never_holds_its_old_and_new_self_at_once():
    """The table grows in place: a solve's memory never passes its table's final size (plus the interpreter), where
    a copy into a new table took half as much again at each growth (1.5 times --memory at the last one: a 15 GiB
    solve on a 24 GiB machine was killed). Hexagons 3x3 after five lines fills 4.6 M entries in 6 CPU s: its table
    doubles from 2**20 entries to 2**25 (410 MiB). The interpreter is measured by a solve of a tiny table: its
    peak (imports, compiling) is more than it keeps, which makes the bound looser, not tighter."""
    _, interpreter = peak_mib("2x2", "--memory", "16")
    answer, peak = peak_mib("3x3", "--moves", "12,30,5,22,1", "--memory", "512")
    assert answer["value"] == -3 and answer["table_entries"] > 2**25 - 64
    table = table_bytes(answer["table_entries"], len(make_board("3x3").lines)) / 2**20
    assert peak - interpreter < table * 1.1, (peak, interpreter, table)
