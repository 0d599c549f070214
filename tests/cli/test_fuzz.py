"""The fuzz campaign (issue 15, item 5): league files, manifests and command lines from hypothesis strategies.

Every case must end in exit status 0, 1 or 2 (or a ConfigError for the parsers), with no traceback.
CI runs hypothesis' default of 100 examples a test; ``--hypothesis-profile=long`` (registered in conftest)
or ``python3 benchmarks/fuzz.py`` runs thousands. With ``HEXARENA_FUZZ_REPORT=FILE`` the tests add what
they tried to FILE (JSON: cases and exit statuses per campaign), which benchmarks/fuzz.py prints.

Command lines run in-process through ``hexarena.cli.main`` (its error mapping is what is tested; typer's
CliRunner would bypass it), on a workspace where no bot resolves, so no case plays a game: matches and
leagues fail at the bot, after every earlier argument has been read. The issue's cases are regression tests
at the end, a few of them as real subprocesses.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from hexarena.cli import main
from hexarena.leagues.schedule.config import parse_league
from hexarena.protocol.errors import ConfigError
from hexarena.referee.manifest import load_manifest

FUZZ = settings(deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
TRIED: dict[str, Counter] = {}


def tried(campaign: str, outcome: object) -> None:
    TRIED.setdefault(campaign, Counter())[str(outcome)] += 1


@pytest.fixture(scope="module", autouse=True)
def report():
    yield
    path = os.environ.get("HEXARENA_FUZZ_REPORT")
    if path:
        old = json.loads(Path(path).read_text()) if Path(path).is_file() else {}
        for campaign, outcomes in TRIED.items():
            merged = Counter(old.get(campaign, {})) + outcomes
            old[campaign] = dict(merged)
        Path(path).write_text(json.dumps(old, indent=1, sort_keys=True))


# ---------------------------------------------------------------- values, from plausible to hostile

digits = st.text("0123456789", min_size=1, max_size=25)
durations = st.one_of(
    st.builds(lambda n, unit: f"{n}{unit}", digits, st.sampled_from(["ms", "s", "m", "h", "", "us"])),
    st.builds(lambda a, b: f"{a}+{b}", digits.map(lambda d: d + "s"), digits.map(lambda d: d + "ms")),
    st.sampled_from(["300ms", "10s+100ms", "2s+50ms/move", "1s,startup=5s,margin=50ms", "0s", "-1s", "inf s",
                     "9999999999999999999999s", "1e400s", "nan", "+", "1s+", "+1s", "1s,startup=", "60m", "61m"]),
    st.text(max_size=12),
)
hostile_text = st.one_of(st.text(max_size=30), st.sampled_from(["a\0b", "x\x1b[31m", "tab\there", "new\nline",
                                                               "\x7f", "", " ", "é", "a" * 200]))
integers = st.one_of(st.integers(-10, 300), st.integers(), st.sampled_from([2**63, -(2**63) - 1, 2**64, 10**30]))
sizes = st.one_of(st.builds(lambda r, c: f"{r}x{c}", st.integers(-2, 12), st.integers(-2, 12)),
                  st.sampled_from(["2x2", "3x3", "10x10", "4x4x4", "x", "99999999999999999999x1"]), st.text(max_size=8))
scalars = st.one_of(integers, st.floats(allow_nan=True), st.booleans(), hostile_text, durations)


def toml_value(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return {"nan": "nan", "inf": "inf", "-inf": "-inf"}.get(str(value), repr(value))
    if isinstance(value, list):
        return "[" + ", ".join(toml_value(v) for v in value) + "]"
    return json.dumps(value) if isinstance(value, str) else str(value)


def toml_text(top: dict, tables: dict[str, list[dict]]) -> str:
    lines = [f"{key} = {toml_value(value)}" for key, value in top.items()]
    for name, rows in tables.items():
        for row in rows:
            lines += ["", f"[[{name}]]", *(f"{key} = {toml_value(value)}" for key, value in row.items())]
    return "\n".join(lines) + "\n"


def mostly(good, bad):
    """Three draws in four from ``good``: most cases get past the first field and test the later ones."""
    return st.one_of(good, good, good, bad)


board = st.fixed_dictionaries({"size": mostly(st.sampled_from(["1x1", "2x2", "2x3", "10x10"]), sizes)}, optional={
    "geometry": mostly(st.sampled_from(["hex", "square"]), hostile_text), "misere": mostly(st.booleans(), scalars),
    "border": st.booleans(), "openings": mostly(st.integers(0, 3), st.sampled_from(["file", "x", -1, 2**70]))})
league = st.fixed_dictionaries({"name": mostly(st.sampled_from(["fuzz", "a.b-c_1"]), hostile_text)}, optional={
    "description": mostly(st.sampled_from(["", "a league", "tabs\tand\nlines"]), hostile_text),
    "participants": mostly(st.just(["all"]), st.lists(st.one_of(st.sampled_from(["all", "greedy", "nobot"]),
                                                                hostile_text), max_size=4)),
    "players": mostly(st.integers(2, 4), integers), "games_per_pairing": mostly(st.sampled_from([2, 4, 24]), integers),
    "sample": mostly(st.just(0), integers), "time_control": mostly(st.sampled_from(["300ms", "10s+100ms"]), durations),
    "fault_policy": mostly(st.sampled_from(["forfeit", "substitute"]), hostile_text),
    "flag_threshold": mostly(st.floats(0, 1), st.one_of(st.floats(allow_nan=True), integers)),
    "concurrency": mostly(st.integers(1, 256), integers), "seed": mostly(st.integers(0, 2**40), integers)})
extra = mostly(st.just({}), st.fixed_dictionaries({"unknown": scalars}))
league_files = mostly(
    st.builds(lambda top, more, boards: toml_text({**top, **more}, {"boards": boards}), league, extra,
              st.lists(board, min_size=1, max_size=3)),
    st.text(max_size=200))


@pytest.mark.slow
@FUZZ
@given(text=league_files)
def test_league_files_are_read_or_refused_in_one_line(text: str) -> None:
    try:
        parse_league(text, "fuzz.toml")
        tried("league files", "valid")
    except ConfigError as exc:
        assert "\n" not in str(exc).strip() or "not valid TOML" in str(exc)
        tried("league files", "ConfigError")


manifest = st.fixed_dictionaries({"name": mostly(st.sampled_from(["fuzzbot", "a-b_1"]), st.one_of(
    st.sampled_from(["Fuzz", "a" * 41]), hostile_text)), "command": mostly(st.just(["python3", "bot.py"]), st.one_of(
        st.lists(hostile_text, max_size=3), hostile_text))}, optional={
    "build": mostly(st.just(["make", "-s"]), st.lists(hostile_text, max_size=2)),
    "transport": mostly(st.sampled_from(["zmq", "stdio"]), hostile_text),
    "language": mostly(st.just("python"), hostile_text), "author": mostly(st.just("alice"), hostile_text),
    "description": mostly(st.just("a bot\nof two lines"), hostile_text)})
limits = st.dictionaries(st.sampled_from(["memory_mb", "cpu_seconds", "processes", "nope"]),
                         mostly(st.integers(1, 4096), integers), max_size=2)
manifests = mostly(st.builds(lambda top, more, lim: toml_text({**top, **more}, {}) + (
    "\n[limits]\n" + "\n".join(f"{k} = {v}" for k, v in lim.items()) + "\n" if lim else ""), manifest, extra, limits),
    st.text(max_size=120))


@pytest.mark.slow
@FUZZ
@given(text=manifests)
def test_manifests_are_read_or_refused_in_one_line(text: str, tmp_path: Path) -> None:
    folder = tmp_path / "bot"
    folder.mkdir(exist_ok=True)
    (folder / "bot.toml").write_text(text, encoding="utf-8", errors="surrogatepass")
    try:
        found = load_manifest(folder)
        assert all("\0" not in word for word in found.command)
        tried("manifests", "valid")
    except ConfigError as exc:
        assert str(exc).strip()
        tried("manifests", "ConfigError")
    except UnicodeEncodeError:
        tried("manifests", "unwritable text")


# ---------------------------------------------------------------- command lines

@pytest.fixture(scope="module")
def empty_home(tmp_path_factory) -> Path:
    """A workspace whose reference bots are marked seeded but none is registered: no bot name resolves."""
    from hexarena.leagues.registry.submit import ensure_reference_bots
    from hexarena.leagues.workspace.home import Workspace

    home = tmp_path_factory.mktemp("fuzz") / "home"
    with Workspace(home) as ws:
        ensure_reference_bots(ws, bots_dir=home / "none")
    return home


def run_cli(args: list[str], home: Path) -> tuple[int, str]:
    """``hexarena ARGS`` in-process on ``home``: its exit status and everything it wrote."""
    out, err = io.StringIO(), io.StringIO()
    before = os.environ.get("HEXARENA_HOME")
    os.environ["HEXARENA_HOME"] = str(home)
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err), pytest.raises(SystemExit) as done:
            main(args)
    finally:
        if before is None:
            os.environ.pop("HEXARENA_HOME", None)
        else:
            os.environ["HEXARENA_HOME"] = before
    code = done.value.code
    return (code if isinstance(code, int) else 0 if code is None else 1), out.getvalue() + err.getvalue()


nobots = st.lists(st.sampled_from(["nobot", "nobot@1234", "/nonexistent/bot", "remote:", "remote:x y", "Greedy",
                                   "a\0b", ""]), min_size=0, max_size=5)
option_values = st.one_of(durations, integers.map(str), sizes, hostile_text, st.sampled_from(
    ["/dev/full", "/proc/version", "/", "/tmp", "-", "--", "nan", "inf", "-1", "1e9", "retrograde", "search"]))
COMMANDS = {
    "match": ["--size", "--geometry", "--games", "--time", "--seed", "--out", "--logs", "--remote-wait", "--openings",
              "--misere", "--border", "--json", "--show"],
    "sprt": ["--size", "--time", "--seed", "--out", "--max-pairs", "--concurrency", "--openings", "--elo0", "--alpha"],
    "board": ["--geometry", "--moves", "--json", "--border"],
    "solve": ["--geometry", "--moves", "--timeout", "--memory", "--players", "--misere", "--json", "--checkpoint",
              "--restart", "--progress", "--method"],
    "league table": ["--by", "--format", "--table"],
    "league status": [],
    "league export": ["--out"],
    "league run": ["--concurrency"],
    "replay": ["--delay", "--file", "--step"],
    "publish": ["--out"],
    "bots show": [],
    "doctor": ["--salvage"],
}
FLAGS = {"--misere", "--border", "--json", "--show", "--step", "--restart", "--progress"}


@st.composite
def command_lines(draw) -> list[str]:
    command = draw(st.sampled_from(sorted(COMMANDS)))
    args = command.split()
    if command in ("match", "sprt"):
        args += draw(nobots)
    elif command in ("board", "solve"):
        args.append(draw(st.one_of(st.sampled_from(["1x1", "1x2", "2x2"]), sizes)))
    elif command != "doctor":
        args.append(draw(st.one_of(st.sampled_from(["nolea", "fuzz.toml", "/dev/null", "/"]), hostile_text)))
    for option in draw(st.lists(st.sampled_from(COMMANDS[command] + ["--nope"]), max_size=4)):
        args.append(option)
        if option not in FLAGS:
            args.append(draw(option_values))
    if command == "solve" and "--timeout" not in args:  # most drawn boards take minutes: what ends them is tested
        args += ["--timeout", "1"]
    return [arg.replace("\0", "") if draw(st.booleans()) else arg for arg in args]


@pytest.mark.slow
@FUZZ
@given(args=command_lines())
@example(args=["publish", "a\0b"])  # found by this test: the default folder holds the name (was a ValueError)
def test_command_lines_exit_0_1_or_2_without_a_traceback(args: list[str], empty_home: Path, tmp_path: Path) -> None:
    with contextlib.chdir(tmp_path):  # a relative --out or --file lands in the test's folder
        status, output = run_cli(args, empty_home)
    tried("command lines", status)
    assert status in (0, 1, 2), (args, status, output)
    assert "Traceback" not in output, (args, output)


# ---------------------------------------------------------------- the issue's cases

@pytest.fixture
def home(tmp_path: Path) -> Path:
    from helpers import make_workspace

    make_workspace(tmp_path / "home").close()
    return tmp_path / "home"


@pytest.mark.parametrize("text", [
    'time_control = "9999999999999999999999s"',
    'time_control = "61m"',
    'time_control = "1441m+1s"',
    'time_control = "1s,margin=2m"',
    "seed = 9223372036854775808",
    'description = "a\\u0000b"',
    'description = "\\u001b[2J"',
    'participants = ["gr\\u0000eedy"]',
    "concurrency = 257",
    "games_per_pairing = 1001",
])
def test_each_league_field_has_a_range(text: str) -> None:
    source = f'name = "x"\n{text}\n\n[[boards]]\nsize = "2x2"\n'
    with pytest.raises(ConfigError) as refused:
        parse_league(source, "x.toml")
    assert str(refused.value).startswith("x.toml:") and "\n" not in str(refused.value)
    tried("issue cases", "ConfigError")


@pytest.mark.parametrize("field", ['command = ["python3\\u0000", "bot.py"]', 'command = ["python3", "b\\u001bot"]',
                                   'command = ["python3"]\nauthor = "x\\u0007"', 'command = ["python3"]\nbuild = ["ma\\u0000ke"]'])
def test_manifest_text_fields_refuse_control_characters(field: str, tmp_path: Path) -> None:
    (tmp_path / "bot.toml").write_text(f'name = "nul"\n{field}\n')
    with pytest.raises(ConfigError, match="holds the control character"):
        load_manifest(tmp_path)


# the commands and options of issues 25-31 (analyse, rerun, league table --at, openings, backup to a folder)
ISSUES_25_31 = [
    (["analyse", "nosuchgame"], "game 'nosuchgame' is not in the workspace"),
    (["analyse", "nosuchgame", "--budget", "-1"], "Invalid value for '--budget': Input should be greater than"),
    (["rerun", "nosuchgame", "--bot", "bad"], "--bot 'bad': give NAME=FOLDER or NAME=name@hash"),
    (["league", "table", "x", "--at", "garbage"], "'garbage' is not a time (give ISO 8601"),
    (["league", "table", "x", "--at", "2026-12-02"], "league 'x' has no ratings snapshot by 2026-12-02T23:59:59+00:00 "
                                                     "(it has none yet: each run of it stores one)"),
    (["league", "table", "x", "--table", "nope", "--format", "csv"], "'nope' is not one of: all, standings"),
    (["openings", "2x2", "--count", "0"], "Invalid value for '--count': Input should be greater than"),
    (["openings", "2x2", "--balanced", "--budget", "-1"], "Invalid value for '--budget'"),
    (["backup", "/etc/passwd/copy"], "backup /etc/passwd/copy/hexarena.db: /etc/passwd is not a folder"),
]


@pytest.mark.parametrize(("args", "message"), [
    (["match", "greedy", "random", "--time", "9999999999999999999999s"], "is too long (a duration is at most 1440m"),
    (["match", "greedy", "random", "--time", "61m"], "move 3660s is over the limit of 60m"),
    (["match", "greedy", "random", "--remote-wait", "99999999m"], "is too long"),
    (["match", "greedy", "random", "--out", "/dev/full"], "--out /dev/full: not a regular file"),
    (["match", "greedy", "random", "--out", "/proc/version"], "--out: cannot write /proc/version"),
    (["match", "greedy", "random", "--out", "/"], "--out /: is a folder"),
    (["match", "greedy", "random", "--out", "/etc/passwd/games.jsonl"], "/etc/passwd is not a folder"),
    (["backup", "/etc/passwd/copy.db"], "backup /etc/passwd/copy.db: /etc/passwd is not a folder"),
    (["match", "greedy", "random", "--seed", str(2**63)], "--seed"),
    (["match", "greedy", "random", "--games", "100001"], "--games"),
    (["sprt", "greedy", "random", "--out", "/dev/full"], "--out /dev/full: not a regular file"),
    (["sprt", "greedy", "random", "--seed", str(2**63)], "--seed"),
    (["league", "run", "x.toml", "--concurrency", "257"], "--concurrency"),
    (["solve", "2x2", "--timeout", "1e9"], "--timeout"),
    (["solve", "2x2", "--memory", "65537"], "--memory"),
    (["submit", ".", "--max-size", "1e9"], "--max-size"),
    *ISSUES_25_31,
])
def test_the_issues_command_lines_are_one_line_errors(args: list[str], message: str, home: Path,
                                                      tmp_path: Path) -> None:
    with contextlib.chdir(tmp_path):
        status, output = run_cli(args, home)
    tried("issue cases", status)
    assert status == 2 and message in output and "Traceback" not in output, output
    assert output.count("hexarena: error:") == 1
    assert not list(tmp_path.glob(".*tmp*")) and not (tmp_path / "logs").exists()


@pytest.mark.slow
@pytest.mark.parametrize(("args", "message"), ISSUES_25_31)
def test_the_new_commands_bad_values_as_subprocesses(args: list[str], message: str, home: Path, tmp_path: Path) -> None:
    done = subprocess.run([sys.executable, "-m", "hexarena", *args, "--home", str(home)] if args[0] != "openings"
                          else [sys.executable, "-m", "hexarena", *args], capture_output=True, text=True,
                          check=False, timeout=120, cwd=tmp_path)
    assert done.returncode == 2 and done.stdout == "", done.stderr
    assert done.stderr.startswith("hexarena: error: ") and done.stderr.count("\n") == 1 and message in done.stderr


def test_solve_with_more_memory_than_the_machine_is_one_line() -> None:
    done = subprocess.run([sys.executable, "-m", "hexarena", "solve", "1x2", "--memory", "65536"],
                          capture_output=True, text=True, check=False, timeout=120, env={**os.environ, "HEXARENA_HOME": "/nonexistent"})
    tried("issue cases", done.returncode)
    assert done.returncode in (0, 1) and "Traceback" not in done.stderr
    if done.returncode:
        assert done.stderr.startswith("hexarena: error: cannot allocate --memory 65536 MiB on this machine: ")
        assert done.stderr.count("\n") == 1 and " MiB are available; give 16-" in done.stderr


@pytest.mark.parametrize("out", ["/dev/full", "/proc/version"])
def test_match_out_special_files_as_subprocesses(out: str, home: Path) -> None:
    done = subprocess.run([sys.executable, "-m", "hexarena", "match", "greedy", "random", "--out", out, "--home",
                           str(home)], capture_output=True, text=True, check=False, timeout=300)
    tried("issue cases", done.returncode)
    assert done.returncode == 2 and done.stdout == "" and "Traceback" not in done.stderr
    [error] = [line for line in done.stderr.splitlines() if line.startswith("hexarena: error:")]
    assert error.startswith("hexarena: error: --out") and out in error


def test_a_league_file_with_a_huge_time_control_as_a_subprocess(tmp_path: Path) -> None:
    (tmp_path / "x.toml").write_text('name = "x"\ntime_control = "9999999999999999999999s"\n[[boards]]\nsize = "2x2"\n')
    done = subprocess.run([sys.executable, "-m", "hexarena", "league", "run", str(tmp_path / "x.toml"), "--home",
                           str(tmp_path / "home")], capture_output=True, text=True, check=False, timeout=120)
    tried("issue cases", done.returncode)
    assert done.returncode == 2 and "Traceback" not in done.stderr
    [error] = [line for line in done.stderr.splitlines() if line.startswith("hexarena: error:")]
    assert error.startswith(f"hexarena: error: {tmp_path / 'x.toml'}:2: time_control") and "is too long" in error
