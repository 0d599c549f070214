"""The bots' logs of each game, as the site and the server show them, and where each move is in them.

    seat_log(logs_dir, game_id, seat)       the referee's log of one seat of one game, or None
    log_names(logs_dir)                     the file names in the logs folder, sorted (listed once while it stays)
    log_text(path)                          its text as anyone may read it: at most ``PUBLISHED_BYTES``, no paths
    write_game_logs(out, logs_dir, game_id, stem, seats)    site/logs/<stem>.js: the game's logs; the seats written
    move_lines(text)                        move number → the line (from 1) of its mark in a seat's log

The referee writes ``<game>.seat<N>.<bot>.log`` into the league's logs folder (``referee/game.py``): what the
bot wrote while that game was its current one, with the referee's own lines (``--- hexarena: …``). Before each
TURN it marks the move asked for (``--- hexarena: move K, TURN R``, ``referee.launch.MOVE_MARK``), so a move's
place in the log needs nothing from the bot; logs written before the mark existed have none, and are opened at
their top. A log is the bot's untrusted text: the site sets it as text only (``log.js``), and the server
serves it as ``text/plain``.

Whether a league's logs are shown at all is its file's ``publish_logs`` (default true; false: no log, no
excerpt beside a fault, on the site or from the server).
"""

from __future__ import annotations

import bisect
import itertools
import json
import os
import re
from pathlib import Path

from hexarena.leagues.results.report import strip_paths

PUBLISHED_BYTES = 256 * 1024  # of each log, on the site and from the server (the referee's own cap is the league's)
MARK = re.compile(r"^--- hexarena: move (\d+), TURN (\d+)$", re.MULTILINE)  # referee.launch.MOVE_MARK's lines
_LOG_NAMES: dict[Path, tuple[int, list[str]]] = {}  # a logs folder → (its mtime, its sorted file names)


def seat_log(logs_dir: Path | None, game_id: str, seat: int) -> Path | None:
    """The log of ``seat`` in game ``game_id`` as the referee names it, ``<game>.seat<N>.<bot>.log`` (the game's
    last attempt: a replaced one is ``<game>.stalled<n>.seat…``), or None."""
    if logs_dir is None:
        return None
    names = log_names(logs_dir)
    prefix = f"{game_id.replace('/', '_')}.seat{seat}."
    found = itertools.takewhile(lambda name: name.startswith(prefix), names[bisect.bisect_left(names, prefix):])
    for name in found:
        if name.endswith(".log") and len(name) >= len(prefix) + 4 and "/" not in name:
            return logs_dir / name
    return None


def log_names(logs_dir: Path) -> list[str]:
    """The file names in ``logs_dir``, sorted; listed once while the folder stays as it is (a big league's site
    asks for thousands of logs)."""
    try:
        stamp = logs_dir.stat().st_mtime_ns
    except OSError:
        return []
    if _LOG_NAMES.get(logs_dir, (None,))[0] != stamp:  # the folder changed (a league played on): list it again
        try:
            _LOG_NAMES[logs_dir] = stamp, sorted(os.listdir(logs_dir))
        except OSError:
            return []
    return _LOG_NAMES[logs_dir][1]


def log_text(path: Path, limit: int = PUBLISHED_BYTES) -> str | None:
    """The log at ``path`` as anyone may read it: its first ``limit`` bytes (then a referee line saying how many
    more there are), undecodable bytes replaced, the organiser's folders stripped (``strip_paths``); None if it
    cannot be read."""
    try:
        with open(path, "rb") as handle:
            data = handle.read(limit + 1)
            size = os.fstat(handle.fileno()).st_size
    except OSError:
        return None
    text = data[:limit].decode("utf-8", "replace")
    if size > limit:
        start = "" if text.endswith("\n") else "\n"
        text += f"{start}--- hexarena: {size - limit} more bytes not published\n"
    return strip_paths(text)


def write_game_logs(out: Path, logs_dir: Path | None, game_id: str, stem: str, seats: list[str]) -> list[int]:
    """``out/logs/<stem>.js`` (``window.HEXARENA_LOGS = {"game", "seats": {"<seat>": {"bot", "text"}}}``) with
    the game's readable logs; the seats it holds (none: no file)."""
    found = {}
    for seat, bot in enumerate(seats):
        path = seat_log(logs_dir, game_id, seat)
        text = None if path is None else log_text(path)
        if text is not None:
            found[str(seat)] = {"bot": bot, "text": text}
    if found:
        data = json.dumps({"game": game_id, "seats": found}, separators=(",", ":"))  # ASCII: no U+2028 in a script
        (out / "logs" / f"{stem}.js").write_text(f"window.HEXARENA_LOGS = {data};\n", encoding="utf-8")
    return [int(seat) for seat in found]


def move_lines(text: str) -> dict[int, int]:
    """Move number → the line (from 1) of its mark in a seat's log (``MARK``); log.js finds them the same way."""
    found, line, at = {}, 1, 0
    for match in MARK.finditer(text):
        line += text.count("\n", at, match.start())
        at = match.start()
        found[int(match.group(1))] = line
    return found
