"""One import name: the distribution installs the single top-level package ``hexarena``.

The repository keeps ``protocol/ bots/ referee/ leagues/`` at its top; ``pyproject.toml`` maps them into
``hexarena`` and lists every package, so a folder left off the list would be missing from the wheel."""

from __future__ import annotations

import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
LOWER = ("protocol", "bots", "referee", "leagues")


def package_folders() -> set[str]:
    """Every folder of ours with an ``__init__.py``, by the package name it installs as."""
    names = set()
    for top in ("hexarena", *LOWER):
        for init in (ROOT / top).rglob("__init__.py"):
            parts = init.parent.relative_to(ROOT).parts
            if parts[:2] == ("referee", "legacy"):  # package data: put on old Python bots' path, never imported by us
                continue
            names.add(".".join(parts if top == "hexarena" else ("hexarena", *parts)))
    return names


def test_pyproject_lists_every_package_and_maps_the_lower_floors_into_hexarena():
    tool = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    assert set(tool["packages"]) == package_folders()
    assert tool["package-dir"] == {f"hexarena.{name}": name for name in LOWER}
    assert {name.split(".")[0] for name in tool["packages"]} == {"hexarena"}


@pytest.mark.slow
def test_the_wheel_holds_one_top_level_package_with_the_reference_bots_and_league_files(tmp_path):
    built = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(tmp_path), str(ROOT)],
                           capture_output=True, text=True, timeout=600)
    assert built.returncode == 0, built.stderr[-2000:]
    (wheel,) = tmp_path.glob("hexarena-*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    assert {name.split("/")[0] for name in names if not name.split("/")[0].endswith(".dist-info")} == {"hexarena"}
    for needed in ("hexarena/protocol/client.py", "hexarena/referee/seats/base.py", "hexarena/bots/random/bot.toml",
                   "hexarena/bots/cbot/.gitignore", "hexarena/leagues/demo.toml", "hexarena/leagues/site/replay.js",
                   "hexarena/leagues/workspace/schema.py", "hexarena/server/app.py",
                   "hexarena/referee/legacy/protocol/__init__.py"):
        assert needed in names
    top_level = [name for name in names if name.endswith(".dist-info/top_level.txt")]
    if top_level:
        assert zipfile.ZipFile(wheel).read(top_level[0]).decode().split() == ["hexarena"]
