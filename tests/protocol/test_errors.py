"""The error tree drawn in ``protocol/errors.py`` against the exceptions every floor's ``errors.py`` defines."""

from __future__ import annotations

import ast
import re
from pathlib import Path

from hexarena.protocol import errors

ROOT = Path(__file__).resolve().parents[2]


def defined() -> dict[str, tuple[str, str]]:
    """Each exception class of a floor's ``errors.py``: its file and its (first) base."""
    classes = {}
    for path in sorted(ROOT.glob("*/errors.py")):
        for node in ast.parse(path.read_text()).body:
            if isinstance(node, ast.ClassDef):
                classes[node.name] = (path.relative_to(ROOT).as_posix(), node.bases[0].id)
    return classes


def drawn() -> dict[str, tuple[str | None, str | None]]:
    """Each name in the drawn tree: the file its line names (if any) and the entry it hangs from."""
    classes = defined()
    entries, above = {}, []  # above: (column, name) of the entries a deeper line can hang from
    for line in errors.__doc__.splitlines():
        match = re.search(r"\b([A-Z][A-Za-z]+)\b", line)
        if not match or match[1] not in classes:
            continue
        column = match.start(1)
        above = [(col, name) for col, name in above if col < column]
        where = re.search(r"\((\w+/errors\.py)\)\s*$", line)
        entries[match[1]] = (where[1] if where else None, above[-1][1] if above else None)
        above.append((column, match[1]))
    return entries


def test_the_tree_draws_every_floors_exceptions_where_they_live_and_under_their_base():
    tree = drawn()
    for name, (path, base) in defined().items():
        assert name in tree, f"{name} ({path}) is not drawn in the tree of protocol/errors.py"
        drawn_path, parent = tree[name]
        assert drawn_path in (None, path), f"{name} is drawn as in {drawn_path}, lives in {path}"
        assert parent == (None if base == "Exception" else base), f"{name} is drawn under {parent}, derives {base}"
    assert tree["CheckpointRefused"] == ("bots/errors.py", "ConfigError")
