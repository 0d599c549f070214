"""The house's shape (README's Layout): every import statement of ours, inside functions and under
``TYPE_CHECKING`` too, stays on its own floor or goes down, and no files import each other in a circle.

    hexarena.protocol  →  hexarena.bots, hexarena.referee  →  hexarena.leagues  →  hexarena (CLI, server)

Inside ``leagues/`` the wings depend one way too:

    workspace, schedule  →  registry  →  results  →  running, site
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
LOWER = ("protocol", "bots", "referee", "leagues")  # repository folders that install as hexarena.<folder>
# what each floor may import (besides the standard library and third-party packages)
ALLOWED = {
    "protocol": {"protocol"},
    "bots": {"protocol", "bots"},
    "referee": {"protocol", "referee"},
    "leagues": {"protocol", "bots", "referee", "leagues"},
    "hexarena": {"protocol", "bots", "referee", "leagues", "hexarena"},
}
# what each wing of leagues/ may import of leagues/ (its own wing is always allowed)
WINGS = {
    "workspace": set(),
    "schedule": set(),
    "registry": {"workspace"},
    "results": {"workspace", "schedule", "registry"},
    "running": {"workspace", "schedule", "registry", "results"},
    "site": {"workspace", "results"},
}


def module_name(path: Path) -> str:
    """``leagues/results/store.py`` → ``hexarena.leagues.results.store``; ``hexarena/cli.py`` → ``hexarena.cli``."""
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts if parts[0] == "hexarena" else ["hexarena", *parts])


def module_file(name: str) -> Path | None:
    """The file of one of our modules (a compiled one: its C source), or None when ``name`` is no module."""
    parts = name.split(".")[1:]
    if not parts:
        return ROOT / "hexarena" / "__init__.py"
    base = ROOT.joinpath(*parts) if parts[0] in LOWER else ROOT.joinpath("hexarena", *parts)
    for candidate in (base / "__init__.py", base.with_suffix(".py"), base.with_suffix(".c")):
        if candidate.is_file():
            return candidate
    return None


def imports_of(path: Path) -> list[tuple[int, str]]:
    """(line, module) of every import of one of our modules in ``path``; ``from X import name`` counts as an import of
    ``X.name`` where that is a module, else of ``X``."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            for alias in node.names:
                sub = f"{node.module}.{alias.name}"
                found.append((node.lineno, sub if module_file(sub) else node.module))
        elif isinstance(node, ast.ImportFrom):
            raise AssertionError(f"{path}:{node.lineno}: a relative import; ours are absolute (hexarena.…)")
    return [(line, name) for line, name in found if name.split(".")[0] in ("hexarena", *LOWER)]


def floor_of(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 and parts[1] in LOWER else "hexarena"


def wing_of(module: str) -> str | None:
    parts = module.split(".")
    return parts[2] if len(parts) > 2 and parts[1] == "leagues" and parts[2] in WINGS else None


def our_files() -> list[Path]:
    return sorted(path for folder in ("hexarena", *LOWER) for path in (ROOT / folder).rglob("*.py"))


def graph() -> dict[str, set[str]]:
    """Module → the modules of ours it imports (the package ``hexarena`` itself, which every import runs, left out)."""
    edges = {}
    for path in our_files():
        me = module_name(path)
        edges[me] = {name for _, name in imports_of(path) if name not in (me, "hexarena")}
    return edges


def circles(edges: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan's algorithm, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found = []
    for root in sorted(edges):
        if root in index:
            continue
        work = [(root, iter(sorted(edges.get(root, ()))))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in edges:
                    continue
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(edges[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


@pytest.mark.parametrize("floor", sorted(ALLOWED))
def test_no_import_runs_against_the_floors(floor):
    files = [path for path in our_files() if floor_of(module_name(path)) == floor]
    assert files, f"no Python files on floor {floor}"
    wrong = [f"{path.relative_to(ROOT)}:{line} imports {name}"
             for path in files for line, name in imports_of(path) if floor_of(name) not in ALLOWED[floor]]
    assert wrong == []


def test_imports_name_the_one_package():
    wrong = [f"{path.relative_to(ROOT)}:{line} imports {name}"
             for path in our_files() for line, name in imports_of(path) if not name.startswith("hexarena")]
    assert wrong == []  # `protocol.codec` would be a second top-level name; ours is `hexarena.protocol.codec`


def test_the_wings_of_leagues_depend_one_way():
    wrong = []
    for path in our_files():
        wing = wing_of(module_name(path))
        if wing is None:
            continue
        wrong += [f"{path.relative_to(ROOT)}:{line} imports {name}" for line, name in imports_of(path)
                  if wing_of(name) not in (None, wing, *WINGS[wing])]
    assert wrong == []
    assert {path.name for path in (ROOT / "leagues").iterdir() if path.suffix == ".py"} == {"__init__.py", "errors.py"}


def test_each_floor_has_one_errors_module_and_defines_its_exceptions_there():
    for floor in LOWER:
        assert (ROOT / floor / "errors.py").is_file(), floor
    wrong = []
    for path in our_files():
        if path.name == "errors.py" or path.parts[-3:-1] == ("referee", "legacy"):
            continue
        if path.relative_to(ROOT) == Path("referee/namespaces.py"):  # a program of its own (python -I -S): no imports
            continue
        for node in ast.parse(path.read_text(encoding="utf-8")).body:
            bases = [ast.unparse(base) for base in getattr(node, "bases", [])]
            private = node.name.startswith("_") if isinstance(node, ast.ClassDef) else True  # one module's own signal
            if not private and any(b.endswith(("Error", "Fault", "Exception")) for b in bases):
                wrong.append(f"{path.relative_to(ROOT)}:{node.lineno} class {node.name}({', '.join(bases)})")
    assert wrong == []


def test_no_files_import_each_other_in_a_circle():
    assert circles(graph()) == []


def test_every_import_of_ours_names_a_module_that_exists():
    wrong = [f"{path.relative_to(ROOT)}:{line} imports {name}"
             for path in our_files() for line, name in imports_of(path) if module_file(name) is None]
    assert wrong == []


def test_the_checker_sees_imports_inside_functions_and_circles(tmp_path):
    sample = tmp_path / "sample.py"
    sample.write_text("import os\n\ndef f():\n    from hexarena.leagues import store\n    import referee.hub as hub\n")
    assert imports_of(sample) == [(4, "hexarena.leagues"), (5, "referee.hub")]
    assert circles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert circles({"a": {"b"}, "b": set()}) == []
