"""An older commit's code, runnable beside today's: for benchmarks that measure old and new in one run.

    python = baseline_python("a0255e8")     # a Python that imports that commit's protocol, referee, hexarena
    subprocess.run([str(python), "-m", "hexarena", "match", ...])

The commit's tree is extracted (``git archive``, no worktree registered in the repository) into
``~/.cache/hexarena-benchmarks/<commit>/src`` beside a small venv whose only ``.pth`` puts that
tree first and this interpreter's site-packages (the dependencies) after it. A tree whose ``pyproject.toml``
maps folders into the package (``"hexarena.protocol" = "protocol"``) is laid out as installed, those folders
moved inside ``hexarena/``: the sandbox binds only the ``hexarena`` folder for a bot, where a source tree's
floors (its siblings) are not found. Its bots, started with
that venv's interpreter, import the old ``protocol`` too, inside the sandbox as well (the sandbox
binds the packages the referee imported; ``environment`` shares this venv's ``pyzmq.libs`` with the
bots, which the sandbox finds only under the referee's own prefix). ``check`` proves which code a Python runs. Run it outside the repository: ``python -m`` puts the
working folder first on the path, and in the repository that is today's code.
"""

from __future__ import annotations

import compileall
import hashlib
import os
import subprocess
import sys
import sysconfig
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LAYOUT = "installed"  # in the cache folder's name: trees extracted before installed_layout are not reused
DEFAULT_REF = "a0255e8"  # main when issue 18 was taken up
CACHE = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "hexarena-benchmarks"


def baseline_python(ref: str) -> Path:
    """The interpreter of the venv that runs commit ``ref``'s code; made on first use."""
    found = subprocess.run(["git", "rev-parse", "--verify", "--quiet", f"{ref}^{{commit}}"], cwd=ROOT, check=False,
                           capture_output=True, text=True)
    if found.returncode != 0:
        raise SystemExit(f"benchmarks: {ref!r} is not a commit of {ROOT} (give a hash, tag or branch)")
    commit = found.stdout.strip()
    # one venv per commit and interpreter: its .pth points at the site-packages of the Python that made it
    packages = dependencies()
    home = CACHE / f"{commit[:12]}-{hashlib.sha256(chr(10).join(packages).encode()).hexdigest()[:8]}-{LAYOUT}"
    src, venv = home / "src", home / "venv"
    python = venv / "bin" / "python"
    if not python.exists():
        src.mkdir(parents=True, exist_ok=True)
        archive = subprocess.run(["git", "archive", "--format=tar", commit], cwd=ROOT, check=True,
                                 capture_output=True).stdout
        subprocess.run(["tar", "-x", "-C", str(src)], input=archive, check=True)
        installed_layout(src)
        subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
        site = subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                              check=True, capture_output=True, text=True).stdout.strip()
        # a plain path line: this venv's own .pth files (the editable install of today's code) are not read
        Path(site, "hexarena-baseline.pth").write_text("\n".join([str(src), *packages]) + "\n")
    check(python, src)
    compiled(src)
    return python


def dependencies() -> list[str]:
    """Where this interpreter's packages are: its site-packages, and its base's where it is a venv made with
    ``--system-site-packages`` (the dependencies are there, not in the venv's own)."""
    own = sysconfig.get_paths()["purelib"]
    base = sysconfig.get_paths(vars={"base": sys.base_prefix, "platbase": sys.base_exec_prefix})["purelib"]
    system = sys.prefix != sys.base_prefix and "include-system-site-packages = true" in (
        Path(sys.prefix, "pyvenv.cfg").read_text() if Path(sys.prefix, "pyvenv.cfg").is_file() else "")
    return [own, base] if system and base != own else [own]


def installed_layout(src: Path) -> None:
    """Move the folders ``pyproject.toml`` maps into a package (``[tool.setuptools.package-dir]``) to where an
    install puts them: ``protocol/`` → ``hexarena/protocol/``."""
    pyproject = src / "pyproject.toml"
    if not pyproject.is_file():
        return
    mapped = tomllib.loads(pyproject.read_text()).get("tool", {}).get("setuptools", {}).get("package-dir", {})
    for package, folder in mapped.items():
        if package and folder and (src / folder).is_dir():
            (src / folder).rename(src.joinpath(*package.split(".")))


def random_bot(python: Path | str) -> Path:
    """The random bot of the code ``python`` runs (a baseline's own tree, else this checkout's): a bot imports the
    client library of the code under test, whose name may differ between the two."""
    src = Path(python).parent.parent.parent / "src"
    tree = src if Path(python).parent.parent.name == "venv" and src.is_dir() else ROOT
    return next(bots for bots in (tree / "hexarena" / "bots", tree / "bots") if bots.is_dir()) / "random"


def this_tree() -> dict[str, str]:
    """The environment that runs today's code from this checkout (not whatever tree the editable install names)."""
    path = os.environ.get("PYTHONPATH")
    return {**os.environ, "PYTHONPATH": str(ROOT) + (os.pathsep + path if path else "")}


def compiled(tree: Path) -> None:
    """Byte-compile a source tree's packages, as ``pip install`` does: with PYTHONDONTWRITEBYTECODE set (as on
    these machines) an editable or extracted tree is otherwise compiled again by every process that imports it."""
    for package in ("protocol", "referee", "leagues", "hexarena", "bots"):
        if (tree / package).is_dir():
            compileall.compile_dir(tree / package, quiet=1)


def environment() -> dict[str, str]:
    """The environment to run the baseline's Python with: ours, plus the shared library folder zmq needs."""
    libs = Path(sysconfig.get_paths()["purelib"]) / "pyzmq.libs"
    shared = [part for part in os.environ.get("HEXARENA_SANDBOX_SHARE", "").split(":") if part]
    return {**os.environ, "HEXARENA_SANDBOX_SHARE": ":".join(shared + [str(libs)] * libs.is_dir())}


def check(python: Path, src: Path) -> None:
    """Fail unless ``python`` imports protocol, referee, leagues and hexarena from ``src`` (as ``hexarena.protocol``
    and so on since the one import name; a tree from before it as top-level ``protocol``)."""
    program = ("import importlib, hexarena\nfor name in ('protocol', 'referee', 'leagues'):\n"
               "    try:\n        module = importlib.import_module('hexarena.' + name)\n"
               "    except ImportError:\n        module = importlib.import_module(name)\n    print(module.__file__)\n"
               "print(hexarena.__file__)")
    found = subprocess.run([str(python), "-c", program],
                           check=True, capture_output=True, text=True, cwd="/").stdout.split()
    wrong = [path for path in found if not Path(path).is_relative_to(src)]
    if wrong or len(found) != 4:
        raise SystemExit(f"baseline: {python} imports {wrong or found}, not the code in {src}")
