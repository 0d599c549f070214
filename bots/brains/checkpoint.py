"""Solver checkpoints: the C search's table and where the solve stands, in one file, to go on later.

Format, version 1 (``FORMAT``), all in one file::

    HEXARENA-SOLVER-CHECKPOINT\\n          magic line
    {"format": 1, ...}\\n                  header: one line of JSON (below)
    <the table's bytes>                   the table exactly as the C search holds it in memory

The header's fields: ``format``; ``layout`` (what the table's bytes mean: entry layout, buckets, hash) and
``entry_bytes``: ``_solvecore.LAYOUT`` (2) on boards of 65-128 lines, buckets of four 24-byte entries (entries × 24
bytes), ``_solvecore.NARROW_LAYOUT`` (3) on boards of up to 64 lines, 64-byte buckets of five 12-byte entries
(entries / 5 × 64 bytes; the solver wrote layout 2 for every board before, and refuses those files for these boards); ``position`` (geometry, size, misère, border, the drawn lines as a
hexadecimal mask, scores and the mover: a checkpoint of another position is refused); ``entries``, ``max_entries``
and ``filled`` (the table's entries now, the most it grows to, and those in use); ``root`` (``solver.RootSearch``: MTD(f)'s window ``low``/``high``, its
``guess``, and ``keeps``, each root child searched so far as ``[hex position, keeps the value]``); ``nodes``
and ``seconds`` (CPU seconds) spent over all runs so far, ``runs``; ``table_crc32`` (zlib CRC-32 of the table
bytes: ``_crc`` below); ``misere_rules`` (``MISERE_RULES``, 2: the misère search without the double-dealing rule it
had before, which was found wrong in some positions; a misère file without this field is refused, its bounds being
unproven; a normal-play file without it is read as it is). Anything that does not match (magic, JSON, format, layout, position, size, CRC) refuses the file in one
line (``CheckpointRefused``); nothing is ever written over a file that was refused.

Each entry's last byte is its rank, the priority by which a full bucket gives up an entry: 1 + log2 of the nodes
searched to prove it (``store`` in ``_solvecore.c``). Files written before that (the free lines + 1 there: 1 to
the board's lines + 1, up to 129 on layout 2) are read as they are, under the same layout number: a rank decides
only which entry a full bucket drops, and every entry is a proven bound whatever its rank. The scales differ,
though: a new entry's rank rarely passes 40 (2**40 nodes), so an old entry of more free lines than that is never
given up for a new one.

A checkpoint goes on in a table of another size when the rerun gives ``--memory`` other than the one it was
written with (``hexarena solve``): a table that has not grown to its most yet (it doubles at a quarter full) is read
as it is and grows to the new most; one that has (it may be nearly full) is read a block at a time and each entry
put into a table of the new size at its own bucket there (the bucket depends on the table's size: ``slot_of`` in
``_solvecore.c``), none over an entry of as large a subtree, so a bigger table keeps every entry and a smaller one
those of the largest subtrees. The file's table is never held in memory beside the new one, and its CRC-32 is
checked as it is read (a mismatch empties the table and refuses the file, as above). The next checkpoint is
written with the new size.

Blocks of the table that are all zero (never used) are left as holes of a sparse file, so a checkpoint of a
small solve with a large table takes little disk. A file is written whole beside its name (``FILE.partial``), flushed to disk and then renamed, so a solve killed
while writing leaves the previous checkpoint intact. Every stored entry is a proven bound, so a table written
in the middle of a null-window search is as sound as one written between searches: a resumed solve repeats
that search, mostly from the table.
"""

from __future__ import annotations

import json
import os
import zlib
from dataclasses import dataclass
from pathlib import Path

from hexarena.bots.brains.solver import NARROW_LINES, RootSearch, Solver, _bucket, table_bytes
from hexarena.bots.errors import CheckpointRefused
from hexarena.protocol.rules import State

MAGIC = b"HEXARENA-SOLVER-CHECKPOINT\n"
FORMAT = 1
# the misère search's reductions: 2 since its double-dealing rule was dropped (wrong in positions of hexagons 3x4
# and 4x3 with border, bots/brains/proof.py). A misère file without it (written before) holds bounds that rule may have
# made wrong, and is refused; normal play's rules were all proven, so its files are read as they are
MISERE_RULES = 2
_BLOCK = 1 << 20
_ZERO = bytes(_BLOCK)
# every header field and what it must hold (booleans refused as ints); the C table's bounds (_solvecore.Core)
_FIELDS = {"layout": int, "entry_bytes": int, "position": dict, "entries": int, "max_entries": int, "root": dict,
           "nodes": int, "seconds": (int, float), "runs": int, "table_crc32": int}
_MIN_ENTRIES, _MAX_ENTRIES = 16, 2**36


@dataclass
class Resumed:
    """What a checkpoint gives back: where the solve stood, and the totals of the runs before."""

    root: RootSearch
    nodes: int
    seconds: float
    runs: int


def position_of(state: State) -> dict:
    """The fields that name a position (a checkpoint of any other is refused)."""
    rules = state.rules
    return {"geometry": rules.board.geometry, "size": rules.board.size, "misere": rules.options.misere,
            "border": rules.options.border, "drawn": f"{state.drawn:x}", "scores": list(state.scores),
            "to_move": state.to_move}


def _blocks(view: memoryview):
    """(index, block, all zero) for each 1 MiB block of the table."""
    for index, start in enumerate(range(0, len(view), _BLOCK)):
        block = view[start:start + _BLOCK]
        yield index, block, block == _ZERO[:len(block)]


def _crc(view: memoryview) -> int:
    """CRC-32 over each block that is not all zero, preceded by its index (8 bytes, little-endian)."""
    crc = 0
    for index, block, zero in _blocks(view):
        if not zero:
            crc = zlib.crc32(block, zlib.crc32(index.to_bytes(8, "little"), crc))
    return crc


def write(path: Path, solver: Solver, state: State, nodes: int, seconds: float, runs: int) -> None:
    """Write ``solver``'s table and ``solver.root`` to ``path`` (whole, then renamed over the old file)."""
    core = solver.core
    view = core.table()
    root = solver.root
    header = {"format": FORMAT, "layout": core.layout, "entry_bytes": core.entry_bytes,
              "position": position_of(state), "entries": core.entries,
              "max_entries": core.max_entries, "filled": core.filled,
              "root": {"low": root.low, "high": root.high, "guess": root.guess,
                       "keeps": [[f"{key:x}", keeps] for key, keeps in root.keeps.items()]},
              "nodes": nodes, "seconds": round(seconds, 3), "runs": runs, "table_crc32": _crc(view),
              "misere_rules": MISERE_RULES}
    partial = path.with_name(path.name + ".partial")
    with open(partial, "wb") as out:
        out.write(MAGIC)
        out.write(json.dumps(header, separators=(",", ":")).encode() + b"\n")
        for _, block, zero in _blocks(view):
            if zero:
                out.seek(len(block), os.SEEK_CUR)
            else:
                out.write(block)
        out.truncate()
        out.flush()
        os.fsync(out.fileno())
    os.replace(partial, path)


def read_header(path: Path) -> tuple[dict, int]:
    """The header of the checkpoint at ``path`` and where its table starts; ``CheckpointRefused`` if damaged."""
    try:
        with open(path, "rb") as source:
            magic = source.read(len(MAGIC))
            line = source.readline(1 << 20)
    except OSError as exc:
        raise CheckpointRefused(f"--checkpoint {path}: cannot read it ({exc.strerror})") from None
    if magic != MAGIC:
        raise _refused(path, "not a solver checkpoint (no HEXARENA-SOLVER-CHECKPOINT line)")
    try:
        header = json.loads(line)
        version = header["format"]
    except (ValueError, KeyError, TypeError, IndexError):
        raise _refused(path, "its header is damaged or cut short") from None
    if version != FORMAT:
        raise _refused(path, f"written in checkpoint format {version!r}; this solver reads format {FORMAT} only")
    if not isinstance(header, dict) or not all(name in header for name in _FIELDS):
        raise _refused(path, "its header is damaged (fields missing)")
    wrong = [name for name, kinds in _FIELDS.items()
             if not isinstance(header[name], kinds) or isinstance(header[name], bool)]
    if wrong:
        raise _refused(path, f"its header is damaged ({', '.join(wrong)} of the wrong kind)")
    layout, entry_bytes, entries = header["layout"], header["entry_bytes"], header["entries"]
    if not _MIN_ENTRIES <= entries <= header["max_entries"] <= _MAX_ENTRIES:
        raise _refused(path, f"its header is damaged (a table of {entries} entries growing to "
                             f"{header['max_entries']}; the solver's is {_MIN_ENTRIES} to 2**36)")
    layouts = _layouts()
    if layouts.get(layout) != entry_bytes:
        known = " or ".join(f"layout {number} of {size}-byte entries" for number, size in layouts.items())
        raise _refused(path, f"its table has layout {layout} of {entry_bytes}-byte entries; this solver's is {known}")
    lines, per = _shape(layout)
    if entries % per or header["max_entries"] % per:
        raise _refused(path, f"its header is damaged (a table of {entries} entries growing to "
                             f"{header['max_entries']}, not whole buckets of {per})")
    start = len(MAGIC) + len(line)
    expected = start + table_bytes(entries, lines)
    size = path.stat().st_size
    if size != expected:
        raise _refused(path, f"{size:,} bytes, its header says {expected:,} (truncated or damaged)")
    return header, start


def read(path: Path, solver: Solver, state: State) -> Resumed:
    """Load the checkpoint at ``path`` into ``solver`` (built with the header's ``entries``) for ``state``.

    Raises ``CheckpointRefused`` (one line) for a damaged or truncated file or one of another position or format.
    """
    header, start = read_header(path)
    wanted = position_of(state)
    if header["position"] != wanted:
        raise _refused(path, f"it is of another position ({_describe(header['position'])}), not {_describe(wanted)}")
    if wanted["misere"] and header.get("misere_rules") != MISERE_RULES:
        raise _refused(path, "its table was searched with misère's double-dealing rule, since found wrong in some "
                             "positions, so its bounds are not proven (written by an older solver: --restart to solve "
                             "it again)")
    core = solver.core
    if header["layout"] != core.layout:
        raise _refused(path, f"its table has layout {header['layout']}; this solver's for this board is layout "
                             f"{core.layout} (written by an older solver: --restart to solve it again)")
    if core.entries == header["entries"]:
        view = core.table()
        with open(path, "rb") as source:
            source.seek(start)
            done = 0
            while done < len(view):
                got = source.readinto(view[done:done + _BLOCK])
                if not got:
                    break
                done += got
        whole = done == len(view) and _crc(view) == header["table_crc32"]
        if whole:
            core.recount()
    else:
        whole = _rehash(path, start, header, core)
    if not whole:
        core.clear()
        raise _refused(path, "its table is damaged (CRC-32 mismatch)")
    root = header["root"]
    try:
        keeps = {int(key, 16): bool(value) for key, value in root["keeps"]}
        resumed = RootSearch(int(root["low"]), int(root["high"]), int(root["guess"]), keeps)
    except (KeyError, TypeError, ValueError):
        raise _refused(path, "its header is damaged (the root search)") from None
    return Resumed(resumed, header["nodes"], float(header["seconds"]), header["runs"])


def _rehash(path: Path, start: int, header: dict, core) -> bool:
    """Put the entries of the checkpoint's table into ``core``'s table of another size, a block at a time (no
    second copy of the table in memory); whether the bytes read match the header's CRC-32."""
    lines, per = _shape(header["layout"])
    bucket, size = table_bytes(per, lines), table_bytes(header["entries"], lines)
    crc, index, done, carry = 0, 0, 0, b""
    with open(path, "rb") as source:
        source.seek(start)
        while done < size:
            block = source.read(min(_BLOCK, size - done))
            if not block:
                return False
            if block != _ZERO[:len(block)]:
                crc = zlib.crc32(block, zlib.crc32(index.to_bytes(8, "little"), crc))
            data = carry + block
            cut = len(data) - len(data) % bucket
            core.absorb(data[:cut])
            carry = data[cut:]
            index, done = index + 1, done + len(block)
    return not carry and crc == header["table_crc32"]


def _shape(layout: int) -> tuple[int, int]:
    """A board size (in lines) that has this table layout, and the entries in one of its buckets."""
    from hexarena.bots.brains import _solvecore

    lines = NARROW_LINES if layout == _solvecore.NARROW_LAYOUT else NARROW_LINES + 1
    return lines, _bucket(lines)[0]


def _layouts() -> dict[int, int]:
    """Each table layout this solver reads, and the bytes of its entries."""
    from hexarena.bots.brains import _solvecore

    return {_solvecore.LAYOUT: _solvecore.ENTRY_BYTES, _solvecore.NARROW_LAYOUT: _solvecore.NARROW_ENTRY_BYTES}


def _refused(path: Path, why: str) -> CheckpointRefused:
    """The one-line refusal of the checkpoint at ``path``: what is wrong, and what to do instead."""
    return CheckpointRefused(f"--checkpoint {path}: {why}; give another file, or --restart to overwrite it")


def _describe(position: dict) -> str:
    options = "".join(f" {name}" for name in ("misere", "border") if position.get(name))
    return f"{position.get('geometry')} {position.get('size')}{options}, drawn {position.get('drawn')}"
