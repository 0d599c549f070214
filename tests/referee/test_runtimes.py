"""The runtime matrix: a bot per language (tests/bots/runtimes/, and the shipped Node.js one) is built, checked
(every item of ``hexarena check``) and plays a game, in the sandbox, on both paths (bubblewrap and the kernel's
namespaces). A runtime that is not installed is skipped with the Debian package that brings it."""

from __future__ import annotations

import shutil
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from helpers import BOTS, TEST_BOTS

from hexarena.referee import sandbox
from hexarena.referee.check import ITEMS, check_bot
from hexarena.referee.limits import Limits
from hexarena.referee.record import BoardConfig
from hexarena.referee.seats.process import BotSpec

RUNTIMES = TEST_BOTS / "runtimes"


@dataclass(frozen=True)
class Runtime:
    language: str
    folder: Path
    needs: tuple[str, ...]  # programs on PATH, or files, the bot's build and run use
    package: str  # what brings them on Debian
    limits: Limits = field(default_factory=Limits)  # the organiser's limits it needs (a manifest can only lower them)
    slow: bool = False  # its build alone takes seconds: its game is a slow test too (its check always is)

    def missing(self) -> str | None:
        # a program where the sandbox finds it: a rustc only in ~/.cargo/bin (rustup) is not installed for a bot
        absent = [need for need in self.needs if not (Path(need).exists() if "/" in need else sandbox.program(need))]
        return f"{', '.join(absent)} not installed (apt-get install {self.package})" if absent else None


MATRIX = [
    Runtime("java", RUNTIMES / "java", ("javac", "java", "/usr/share/java/jeromq.jar"),
            "openjdk-17-jdk-headless libjeromq-java"),
    Runtime("go", RUNTIMES / "go", ("go",), "golang-go"),
    Runtime("rust", RUNTIMES / "rust", ("rustc",), "rustc"),
    Runtime("c++", RUNTIMES / "cpp", ("g++",), "g++"),
    Runtime("ruby", RUNTIMES / "ruby", ("ruby",), "ruby"),
    Runtime("lua", RUNTIMES / "lua", ("lua5.4",), "lua5.4"),
    Runtime("php", RUNTIMES / "php", ("php",), "php-cli"),
    Runtime("csharp", RUNTIMES / "csharp", ("mcs", "mono"), "mono-mcs mono-runtime"),
    Runtime("ocaml", RUNTIMES / "ocaml", ("ocamlopt",), "ocaml-nox"),
    Runtime("common-lisp", RUNTIMES / "lisp", ("sbcl",), "sbcl"),
    # R will not start with fewer than 167 open files (60 % of the limit must hold its 100 DLLs); the default is 64
    Runtime("r", RUNTIMES / "r", ("Rscript",), "r-base-core", Limits(open_files=256)),
    Runtime("haskell", RUNTIMES / "haskell", ("ghc",), "ghc", slow=True),  # 3-4 s a game with its build
    Runtime("kotlin", RUNTIMES / "kotlin", ("kotlinc", "java"), "kotlin openjdk-17-jdk-headless", slow=True),  # 11-15 s
    Runtime("javascript", BOTS / "nodebot", ("node",), "nodejs"),
    Runtime("python+numpy", RUNTIMES / "python-numpy", (), "python3-numpy"),
]


@pytest.fixture(params=[pytest.param(runtime, marks=[pytest.mark.slow] * runtime.slow, id=runtime.language)
                        for runtime in MATRIX])
def runtime(request, tmp_path) -> tuple[Path, Limits]:
    """A fresh copy of the runtime's bot folder (its build writes there) and the limits it needs, or a skip naming
    the package."""
    runtime: Runtime = request.param
    if (why := runtime.missing()) is not None:
        pytest.skip(why)
    if runtime.language == "python+numpy":
        pytest.importorskip("numpy", reason="numpy not installed (pip install numpy, or apt-get install python3-numpy)")
    folder = tmp_path / runtime.folder.name
    shutil.copytree(runtime.folder, folder)
    return folder, runtime.limits


@pytest.mark.slow
def test_each_runtime_builds_and_passes_every_check_in_the_sandbox(runtime, sandbox_path, tmp_path):
    folder, limits = runtime
    report = check_bot(folder, log_dir=tmp_path / "check-logs", limits=limits)  # 1 s per move, as leagues play
    assert [item.name for item in report.items] == list(ITEMS)
    assert report.passed, [item for item in report.items if not item.passed]


@pytest.mark.slow
def test_each_runtime_plays_a_whole_game_in_the_sandbox(runtime, sandbox_path, make_referee):
    folder, limits = runtime
    referee = make_referee(limits=limits)
    record = referee.play([BotSpec(folder.name, folder), BotSpec("random", BOTS / "random")],
                          BoardConfig(size="2x2", border=True), game_id="runtime", seed=3)
    assert (record.result.termination, record.result.offender) == ("completed", None)
    assert sum(record.result.scores) == 4  # every cell of the 2x2 board was closed, by one seat or the other
    assert any(move.seat == 0 for move in record.moves)  # the runtime's bot drew lines itself
