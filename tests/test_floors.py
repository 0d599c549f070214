"""The floors depend one way, bottom up (README's Layout): every import statement of ours, inside
functions too, stays on its own floor or goes down.

    protocol  →  bots, referee  →  leagues  →  hexarena
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
# what each floor may import (besides the standard library and third-party packages)
ALLOWED = {
    "protocol": {"protocol"},
    "bots": {"protocol", "bots"},
    "referee": {"protocol", "referee"},
    "leagues": {"protocol", "referee", "leagues"},
    "hexarena": {"protocol", "bots", "referee", "leagues", "hexarena"},
}


def imported_floors(path: Path) -> list[tuple[int, str]]:
    """(line, top-level package) of every absolute import of one of our floors in ``path``."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names = [node.module]
        else:
            continue
        found += [(node.lineno, name.split(".")[0]) for name in names if name.split(".")[0] in ALLOWED]
    return found


@pytest.mark.parametrize("floor", sorted(ALLOWED))
def test_no_import_runs_against_the_floors(floor):
    files = sorted((ROOT / floor).rglob("*.py"))
    assert files, f"no Python files under {floor}/"
    wrong = [f"{path.relative_to(ROOT)}:{line} imports {package}"
             for path in files for line, package in imported_floors(path) if package not in ALLOWED[floor]]
    assert wrong == []


def test_the_checker_sees_imports_inside_functions(tmp_path):
    sample = tmp_path / "sample.py"
    sample.write_text("import os\n\ndef f():\n    from leagues import store\n    import referee.hub as hub\n")
    assert imported_floors(sample) == [(4, "leagues"), (5, "referee")]
