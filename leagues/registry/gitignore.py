"""A bot folder's own ``.gitignore``: the files its build makes, left out of its content hash and snapshot.

    outputs = read_gitignore(folder)     # a function of (relative POSIX path, is a folder) -> listed
    outputs("cbot", False)               # True for bots/cbot, whose .gitignore says "cbot"

The patterns are git's, for one file at the folder's top (nested ``.gitignore`` files are not read):
blank lines and ``#`` comments are skipped; ``!pattern`` lists a path again; a trailing ``/`` matches
folders only; a pattern with a ``/`` elsewhere is anchored at the folder, one without matches a name at
any depth; ``*`` and ``?`` stay within a name, ``**`` spans folders, ``[abc]`` is a class. A listed
folder lists everything under it (as in git, nothing under it can be listed again).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

Listed = Callable[[str, bool], bool]
MAX_BYTES = 1 << 20  # a .gitignore larger than this is not a list of build outputs: read as none


def read_gitignore(folder: Path) -> Listed:
    """The matcher of ``folder/.gitignore`` (nothing is listed without one, or with an unreadable one)."""
    try:
        path = folder / ".gitignore"
        text = path.read_text(encoding="utf-8", errors="replace") if path.stat().st_size <= MAX_BYTES else ""
    except OSError:
        text = ""
    return matcher(text)


def matcher(text: str) -> Listed:
    """The matcher of a ``.gitignore`` text (see the module docstring)."""
    rules = [rule for line in text.splitlines() if (rule := _rule(line)) is not None]

    def listed(rel: str, is_dir: bool) -> bool:
        parts = rel.split("/")
        for depth in range(1, len(parts)):  # a listed parent folder lists everything under it
            if _decide(rules, "/".join(parts[:depth]), True):
                return True
        return _decide(rules, rel, is_dir)

    return listed


def _decide(rules: list[tuple[re.Pattern, bool, bool]], rel: str, is_dir: bool) -> bool:
    listed = False
    for pattern, negated, folders_only in rules:  # the last matching rule decides, as in git
        if (is_dir or not folders_only) and pattern.fullmatch(rel):
            listed = not negated
    return listed


def _rule(line: str) -> tuple[re.Pattern, bool, bool] | None:
    line = line.rstrip("\n\r")
    if not line.strip() or line.startswith("#"):
        return None
    line = line.rstrip(" ") if not line.endswith("\\ ") else line
    negated = line.startswith("!")
    line = line[1:] if negated else line
    line = line.removeprefix("\\")  # "\#name", "\!name": a name that starts with # or !
    folders_only = line.endswith("/")
    line = line.rstrip("/")
    if not line:
        return None
    anchored = "/" in line
    body = _translate(line.lstrip("/"))
    try:
        return re.compile(body if anchored else f"(?:.*/)?{body}", re.DOTALL), negated, folders_only
    except re.error:  # e.g. a reversed range [z-a]: git matches nothing with it either
        return None


def _translate(pattern: str) -> str:
    out, i = [], 0
    while i < len(pattern):
        if pattern.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
        elif pattern.startswith("/**", i) and i + 3 == len(pattern):
            out.append("/.*")
            i += 3
        elif pattern.startswith("**", i):
            out.append(".*")
            i += 2
        elif pattern[i] == "*":
            out.append("[^/]*")
            i += 1
        elif pattern[i] == "?":
            out.append("[^/]")
            i += 1
        elif pattern[i] == "[" and (end := pattern.find("]", i + 2)) != -1:
            out.append(_char_class(pattern[i + 1:end]))
            i = end + 1
        else:
            out.append(re.escape(pattern[i]))
            i += 1
    return "".join(out)


def _char_class(inner: str) -> str:
    """``[...]`` of a pattern as a regex class: every character literal but a range's ``-`` and a leading ``!``/``^``."""
    negated = inner[0] in "!^"
    chars = inner[1:] if negated else inner
    out = []
    for k, char in enumerate(chars):
        is_range = char == "-" and 0 < k < len(chars) - 1 and "-" not in (chars[k - 1], chars[k + 1])
        out.append("-" if is_range else re.escape(char))
    return "[" + "^" * negated + "".join(out) + "]"
