"""What tests of several folders share: paths, the test bots, the command line, processes, leagues, the 957ae21
workspace, the browser's helpers. Fixtures are in the ``conftest.py`` files; this is a plain module
(``from helpers import ...``: pyproject's pytest ``pythonpath`` puts ``tests/`` on the path). It imports little
at its top (worker processes import test modules too); the rest inside the helpers that need it."""

from __future__ import annotations

import contextlib
import io
import json
import os
import re
import secrets
import shutil
import signal
import socket
import sqlite3
import subprocess
import sys
import time
import urllib.error
import urllib.request
import zipfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Self

import pytest

from hexarena.bots.brains.solver import compiled
from hexarena.referee.clock import TimeControl
from hexarena.referee.seats.process import BotSpec

TESTS = Path(__file__).resolve().parent
ROOT = TESTS.parent
BOTS = ROOT / "bots"
TEST_BOTS = TESTS / "bots"
HOSTILE = TESTS / "hostile"  # one bot per attack (hostile/hostile.py)
BROKEN = TESTS / "bots_broken"  # one bot per mistake of protocol/WRITING_A_BOT.md
SHARED = ("bots", "bots_broken", "hostile")  # test bot folders under tests/, shared with the bots' sandbox
FAST = TimeControl.parse("1s,startup=10s")  # generous: CI machines are shared and noisy

# ``hexarena`` run by the interpreter running the tests: never a name looked up on PATH (an unactivated virtualenv)
HEXARENA = [sys.executable, "-m", "hexarena"]


has_libzmq_headers = shutil.which("cc") is not None and shutil.which("make") is not None and any(
    Path(folder, "zmq.h").exists() for folder in ("/usr/include", "/usr/local/include"))
needs_c = pytest.mark.skipif(not has_libzmq_headers,
                             reason="the C bot needs a compiler, make and libzmq's headers (Debian: gcc make libzmq3-dev)")
needs_node = pytest.mark.skipif(shutil.which("node") is None, reason="the Node bot needs node (Debian: nodejs)")
# pip builds the C search (bots/brains/_solvecore.c, an optional extension) where it finds a C compiler and Python's
# headers; without them every search runs in pure Python, and what only the C search does is skipped
needs_c_search = pytest.mark.skipif(not compiled(), reason="the C search is not built: pip builds it where a C "
                                    "compiler and Python's headers are found (Debian: gcc python3-dev)")


def can_build_c_extensions() -> bool:
    """Whether this machine's C compiler (Python's own ``CC``) builds a file that includes ``Python.h``: where it
    does, pip builds the C search, and its absence is a failure, not a machine without a compiler."""
    import sysconfig
    import tempfile

    compiler = (sysconfig.get_config_var("CC") or "cc").split()
    if shutil.which(compiler[0]) is None:
        return False
    with tempfile.TemporaryDirectory() as folder:
        source = Path(folder, "probe.c")
        source.write_text("#include <Python.h>\n#include <stdlib.h>\nint probe(void) { return EXIT_SUCCESS; }\n")
        done = subprocess.run([*compiler, "-c", str(source), "-o", str(Path(folder, "probe.o")),
                               f"-I{sysconfig.get_paths()['include']}"], capture_output=True, check=False)
    return done.returncode == 0


def sandbox_unavailable(path: str) -> str | None:
    """Why sandbox path ``path`` ("bwrap" or "unshare") cannot be taken here (None: it can)."""
    from hexarena.referee import sandbox

    if path == "bwrap":
        return None if sandbox.bwrap() is not None else "needs bubblewrap (apt-get install bubblewrap)"
    problem = sandbox.user_namespaces()
    return None if problem is None else f"user namespaces do not work here: {problem}"


def bot(name: str) -> BotSpec:
    """A reference bot (``bots/NAME``) or a broken test bot (``tests/bots/NAME``)."""
    folder = BOTS / name if (BOTS / name).is_dir() else TEST_BOTS / name
    return BotSpec(name, folder)


# ---- processes -------------------------------------------------------------------------------------

def processes_with(variable: str, value: str, command: str = "") -> list[int]:
    """Pids of the live processes whose environment has ``variable=value`` (a test's marker, forwarded to its bots:
    in the sandbox a bot's own pids are its pid namespace's, meaningless outside) and whose command line has
    ``command``."""
    found = []
    for proc in Path("/proc").iterdir():
        try:
            if proc.name.isdigit() and f"{variable}={value}".encode() in (proc / "environ").read_bytes().split(b"\0") \
                    and command.encode() in (proc / "cmdline").read_bytes() \
                    and (proc / "stat").read_bytes().rsplit(b")", 1)[1].split()[0] != b"Z":
                found.append(int(proc.name))
        except (OSError, IndexError):
            pass
    return found


def bot_cgroups() -> list[str]:
    """The bots' cgroups this test process made that are still there (referee/cgroups.py), in every hierarchy."""
    from hexarena.referee import cgroups

    found = cgroups.backend()
    if found is None:
        return []
    prefix = f"{cgroups.PREFIX}{os.getpid()}-"
    return sorted(f"{parent}/{name}" for parent in found.parents.values() for name in os.listdir(parent)
                  if name.startswith(prefix))


def wait_until(condition, seconds: float) -> None:
    deadline = time.monotonic() + seconds
    while not condition() and time.monotonic() < deadline:
        time.sleep(0.05)


def wait_for(condition, seconds: float, what: str | Callable[[], str], every: float = 0.05):
    """``condition()``'s first true value within ``seconds``; AssertionError naming ``what`` if none comes (a
    function: what it says then, e.g. the state that was waited on)."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        value = condition()
        if value:
            return value
        time.sleep(every)
    raise AssertionError(f"not within {seconds} s: {what() if callable(what) else what}")


def survivors_of_a_killed(process: subprocess.Popen, variable: str, value: str) -> list[int]:
    """SIGKILL ``process`` (no cleanup code of it runs); the marked processes still alive 5 s later."""
    process.kill()
    process.wait()
    wait_until(lambda: not processes_with(variable, value), 5)
    return processes_with(variable, value)


class Terminal:
    """``command`` run as at a user's terminal: its stderr (``on="stdout"``: its stdout) a pseudo-terminal, read as it
    comes, and the other stream a pipe. What a command shows only on a terminal (a progress line rewritten in place
    every second, rich tables) is then what the test reads. A context manager: the process is killed at its end.

        with Terminal([*CLI, "3x4"]) as terminal:
            terminal.wait_for(" nodes/s")              # the first progress line is on the screen
            status, out, lines = terminal.finish()     # each rewrite in place a line of its own
    """

    def __init__(self, command: list[str], on: str = "stderr", **popen) -> None:
        import pty

        self.main, follower = pty.openpty()
        streams = {"stdout": subprocess.PIPE, "stderr": subprocess.PIPE, on: follower}
        self.process = subprocess.Popen(command, stdin=subprocess.DEVNULL, **{**streams, **popen})
        os.close(follower)
        self.shown = b""

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc) -> None:
        self.process.kill()
        self.process.communicate()
        with contextlib.suppress(OSError):
            os.close(self.main)

    def _read(self, seconds: float) -> bool:
        """Whatever the terminal shows within ``seconds``; False once the command closed it."""
        import select

        if not select.select([self.main], [], [], max(seconds, 0))[0]:
            return True
        try:
            chunk = os.read(self.main, 65536)
        except OSError:  # EIO: every holder of the terminal closed it
            return False
        self.shown += chunk
        return bool(chunk)

    def wait_for(self, text: str, seconds: float = 60) -> None:
        """Read until the terminal has shown ``text``; AssertionError, with what it showed, if it does not in time."""
        deadline = time.monotonic() + seconds
        while text.encode() not in self.shown:
            if time.monotonic() > deadline or not self._read(deadline - time.monotonic()):
                raise AssertionError(f"{text!r} not shown within {seconds} s: {self.shown[-400:]!r}")

    def finish(self, seconds: float = 300) -> tuple[int, str, list[str]]:
        """Wait for the command's end: its exit status, its piped stream's text, and the terminal's lines (each
        rewrite in place, ``\\r`` then erase-line, a line of its own; empty ones left out)."""
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline and self._read(deadline - time.monotonic()):
            pass
        out, err = self.process.communicate(timeout=max(deadline - time.monotonic(), 1))
        piped = (out if out is not None else err or b"").decode(errors="replace")
        text = self.shown.decode(errors="replace").replace("\x1b[K", "")
        return self.process.returncode, piped, [line for line in re.split(r"\r\n|\r|\n", text) if line]


# ---- leagues of real bot processes -------------------------------------------------------------------

LEAGUE_BOTS = ("greedy", "greedy2", "random", "random2")
RANDOM, GREEDY, CHAINS = (str(BOTS / name) for name in ("random", "greedy", "chains"))  # the folders, as a user names them


class Recorder:
    """A GameObserver that keeps what it heard, in order: ``("started", game, seats, size)``,
    ``("moved", game, ply, seat, line)``, ``("ended", game)``."""

    def __init__(self) -> None:
        self.events: list[tuple] = []

    def started(self, game_id, seats, config) -> None:
        self.events.append(("started", game_id, seats, config.size))

    def moved(self, game_id, ply, seat, line, ms) -> None:
        self.events.append(("moved", game_id, ply, seat, line))

    def ended(self, record) -> None:
        self.events.append(("ended", record.id))


def league_text(name: str, participants=LEAGUE_BOTS, boards=(("2x2", "hex"),), **fields) -> str:
    lines = [f'name = "{name}"', f"participants = {json.dumps(list(participants))}", 'time_control = "5s"']
    lines += [f"{key} = {json.dumps(value)}" for key, value in fields.items()]
    for size, geometry in boards:
        lines += ["", "[[boards]]", f'size = "{size}"', f'geometry = "{geometry}"']
    return "\n".join(lines) + "\n"


TALKER = '''import sys
from hexarena.protocol.client import run_bot


def choose(game, state):
    print(f"request {game.clock.id}: <b>thinking</b> in {game.id}", file=sys.stderr, flush=True)
    return game.rng.choice(state.legal_moves())


run_bot(choose)
'''


def talker_bot(folder: Path) -> Path:
    """A random bot named talker that prints ``request R: <b>thinking</b> in GAME`` on stderr at each TURN (markup, to
    be shown as text): its logs have a line after each TURN mark, where greedy's and random's have none."""
    folder.mkdir()
    (folder / "bot.py").write_text(TALKER)
    (folder / "bot.toml").write_text('name = "talker"\ncommand = ["python3", "bot.py"]\nlanguage = "python"\n')
    return folder


def make_workspace(home: Path):
    """A workspace with four registered Python bots: the reference random and greedy, and renamed copies."""
    from hexarena.leagues.registry.reference import REFERENCE_AUTHOR
    from hexarena.leagues.registry.submit import ensure_reference_bots, submit
    from hexarena.leagues.workspace.home import Workspace

    ws = Workspace(home)
    ensure_reference_bots(ws, bots_dir=home / "no-reference-bots")  # mark seeded: register ours only
    for name in LEAGUE_BOTS:
        folder = home.parent / f"src-{home.name}" / name
        shutil.copytree(ROOT / "bots" / name.rstrip("2"), folder)
        manifest = folder / "bot.toml"
        manifest.write_text(manifest.read_text().replace(f'name = "{name.rstrip("2")}"', f'name = "{name}"'))
        assert submit(ws, folder, check=False, author=REFERENCE_AUTHOR).accepted  # their names
    return ws


def league_file(path: Path, name: str, bots: list[str], boards=("1x2",), time_control="1s", seed=0) -> Path:
    path.write_text(f'name = "{name}"\nparticipants = {json.dumps(bots)}\ngames_per_pairing = 2\n'
                    f'time_control = "{time_control}"\nconcurrency = 1\nseed = {seed}\n'
                    + "".join(f'[[boards]]\nsize = "{size}"\n' for size in boards))
    return path


def per_game(home: Path, league: str) -> dict[str, tuple]:
    from hexarena.leagues.results import store
    from hexarena.leagues.workspace.home import Workspace

    with Workspace(home) as ws:
        return {r.id: (tuple(r.seats), tuple(r.result.scores), tuple(r.result.placements), r.result.termination)
                for r in store.records(ws, league)}


def stored_ids(home: Path) -> list[str]:
    try:
        with sqlite3.connect(home / "hexarena.db", timeout=30) as db:
            return [row[0] for row in db.execute("SELECT id FROM games")]
    except sqlite3.OperationalError:  # no games table yet
        return []


# ---- the workspace of commit 957ae21 (tests/fixtures/workspace-957ae21) and the database's tables ----------

FIXTURE = TESTS / "fixtures" / "workspace-957ae21"
STORE_TABLES = {"leagues", "league_games", "games", "moves", "results"}
TALLY_TABLES = {"totals", "shapes", "tallied", "rating_snapshots"}  # schema 5 (store.tally), 6 (store.save_snapshot)
REGISTRY_TABLES = {"bots", "bot_versions", "registry_meta"}
AUTHOR_TABLES = {"authors"}  # schema 3 (leagues.authors)
ANALYSIS_TABLES = {"analyses"}  # schema 7 (leagues.results.analyses)

# What the code of commit 957ae21 printed for the fixture (`league table tiny`, `league table tiny --by
# configuration --table standings`, `bots list`), byte for byte.
OLD_TABLE = "\n".join([
    "standings",
    " rank    bot  games  wins  draws  losses  points  score_pct  cells_for  cells_against  cells_diff  faults  think_ms  flagged",
    "    1 greedy      4     3      1       0     3.5       87.5         16              4          12       0      0.16    False",
    "    2 random      4     0      1       3     0.5       12.5          4             16         -12       0      0.16    False",
    "",
    "crosstable",
    "   bot greedy random",
    "greedy         3.5/4",
    "random  0.5/4       ",
    "",
    "ratings (Elo: Bradley-Terry for 2 players, Plackett-Luce for 3-4; 95% interval; gap = Elo over the next bot, "
    "with its 95% interval; los = likelihood of superiority over the next bot, %)",
    " rank    bot  games  elo  elo_low  elo_high gap gap_low gap_high  los",
    "    1 greedy      4 1637     1430      1844 273    -141      687 90.2",
    "    2 random      4 1363     1156      1570                          ",
    "",
])
OLD_BY_CONFIGURATION = "\n".join([
    "standings — 2x2 hex",
    " rank    bot  games  wins  draws  losses  points  score_pct  cells_for  cells_against  cells_diff  faults  think_ms  flagged",
    "    1 greedy      2     1      1       0     1.5       75.0          6              2           4       0      0.26    False",
    "    2 random      2     0      1       1     0.5       25.0          2              6          -4       0      0.17    False",
    "",
    "standings — 2x3 hex",
    " rank    bot  games  wins  draws  losses  points  score_pct  cells_for  cells_against  cells_diff  faults  think_ms  flagged",
    "    1 greedy      2     2      0       0     2.0      100.0         10              2           8       0      0.09    False",
    "    2 random      2     0      0       2     0.0        0.0          2             10          -8       0      0.15    False",
    "",
])
OLD_BOTS = "\n".join([
    "NAME     VERSIONS  LATEST      SUBMITTED                AUTHOR    STATUS",
    "cbot     1         46bd4dc585  2026-12-01 10:08:13 UTC  hexarena  active",
    "chains   1         9828f5bfc9  2026-12-01 10:08:13 UTC  hexarena  active",
    "greedy   1         7269031468  2026-12-01 10:08:13 UTC  hexarena  active",
    "mcts     1         a2e703fd89  2026-12-01 10:08:13 UTC  hexarena  active",
    "nodebot  1         0d17942a35  2026-12-01 10:08:13 UTC  hexarena  active",
    "perfect  1         7ed29e123a  2026-12-01 10:08:13 UTC  hexarena  active",
    "random   1         2ecc31a4c7  2026-12-01 10:08:13 UTC  hexarena  active",
    "",
])


def fixture_home(tmp_path: Path) -> Path:
    """A copy of the whole 957ae21 workspace (its league files too) at ``tmp_path / "home"``."""
    home = tmp_path / "home"
    shutil.copytree(FIXTURE, home)
    return home


def cli(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    """``hexarena ARGS`` in this process: its exit status, stdout and stderr."""
    from hexarena.cli import main

    with pytest.raises(SystemExit) as exit_:
        main(list(args))
    out, err = capsys.readouterr()
    return exit_.value.code, out, err


def user_version(home: Path) -> int:
    with sqlite3.connect(home / "hexarena.db") as db:
        return db.execute("PRAGMA user_version").fetchone()[0]


def tables(home: Path) -> set[str]:
    with sqlite3.connect(home / "hexarena.db") as db:
        return {row[0] for row in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}


# ---- the browser (the ``browser`` fixture is in conftest.py) -------------------------------------------

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
CHROMEDRIVER = shutil.which("chromedriver")
needs_browser = pytest.mark.skipif(not (CHROMIUM and CHROMEDRIVER),
                                   reason="needs a browser (Debian: chromium chromium-driver)")


def console_errors(driver) -> list[str]:
    """Console errors, uncaught exceptions and failed loads since the last call."""
    return [entry["message"] for entry in driver.get_log("browser") if entry["level"] == "SEVERE"]


def replay_url(site: Path, record, files: dict[str, str], move: int | None = None) -> str:
    url = (site / "replay.html").as_uri() + f"?game={files[record.id]}"
    return url + (f"&move={move}" if move is not None else "")


def site_records(site: Path) -> list:
    """The GameRecords a published site holds (its chunks' record lines, ``publish.read_site``), by id."""
    from hexarena.leagues.site.publish import read_site
    from hexarena.referee.record import GameRecord

    return sorted((GameRecord.model_validate_json(text) for text in read_site(site)), key=lambda r: r.id)


def chunk_games(site: Path) -> dict[str, dict]:
    """Each game of a site's chunks by its file stem: what the viewer shows beside the record (``config_label``,
    ``summary``, ``analysis``, ``logs``) and the record, ``"record"``, parsed from its own line
    (``leagues/site/publish.py``'s ``Chunks``: blocks ``push([String.raw`<lines>`, [[stem, {line, ...}], ...]])``)."""
    from hexarena.leagues.site.publish import Chunks

    found = {}
    for path in (site / "games").glob("chunk-*.js"):
        for block in path.read_text(encoding="utf-8").split(Chunks.START)[1:]:
            at = block.rindex("\n`, [")
            lines = block[:at].split("\n")
            for stem, about in json.loads(block[at + 4:block.rindex("]);")]):
                found[stem] = {**about, "record": json.loads(lines[about["line"]])}
    return found


def lying_zip(real: int, declared: int, method: int = zipfile.ZIP_DEFLATED) -> bytes:
    """A zip whose entry ``big`` inflates to ``real`` zero bytes but declares ``declared`` (issue 31 item 2)."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", method) as archive:
        archive.writestr("bot.toml", b'name = "liar"\ncommand = ["python3", "bot.py"]\n')
        with archive.open("big", "w") as handle:
            for _ in range(real >> 20):
                handle.write(bytes(2**20))
        info = archive.getinfo("big")
    data = bytearray(buffer.getvalue())
    data[info.header_offset + 22:info.header_offset + 26] = declared.to_bytes(4, "little")  # the local header
    central = data.rindex(b"PK\x01\x02")  # the central directory entry of "big", the last one
    data[central + 24:central + 28] = declared.to_bytes(4, "little")  # its central directory entry
    assert zipfile.ZipFile(io.BytesIO(bytes(data))).getinfo("big").file_size == declared
    return bytes(data)


@contextlib.contextmanager
def mounted_tmpfs(mount: Path, size: str):
    """A tmpfs of ``size`` at the new folder ``mount`` (needs root); the test is skipped with the reason when it
    cannot be mounted. Always unmounted."""
    mount.mkdir()
    try:
        done = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(mount)],
                              capture_output=True, text=True, check=False, timeout=30)
    except OSError as exc:
        pytest.skip(f"cannot mount a tmpfs: {exc}")
    if done.returncode:
        pytest.skip(f"cannot mount a tmpfs (root needed): {done.stderr.strip()}")
    try:
        yield mount
    finally:
        subprocess.run(["umount", "-l", str(mount)], check=False, timeout=30)


def fill(mount: Path, leave: int) -> Path:
    """A file that takes all but ``leave`` bytes of the file system."""
    filler = mount / "filler"
    free = os.statvfs(mount).f_bavail * os.statvfs(mount).f_frsize
    with open(filler, "wb") as handle:
        handle.write(b"\0" * max(0, free - leave))
    return filler


# ---- hexarena serve as a real process (tests/server) ------------------------------------------------------

@dataclass
class Server:
    """A ``hexarena serve`` process (``start_server``) and JSON calls to it."""

    url: str
    home: Path
    process: subprocess.Popen
    tokens: dict[str, str]

    def call(self, method: str, path: str, *, token: str | None = None, body: bytes | None = None,
             headers: dict | None = None) -> tuple[int, dict | list]:
        request = urllib.request.Request(self.url + path, data=body, method=method, headers=dict(headers or {}))
        if token is not None:
            request.add_header("Authorization", f"Bearer {token}")
        try:
            with urllib.request.urlopen(request, timeout=120) as response:
                return response.status, json.loads(response.read())
        except urllib.error.HTTPError as answer:
            return answer.code, json.loads(answer.read())

    def upload(self, archive: bytes, author: str | None = "alice") -> tuple[int, dict]:
        boundary = secrets.token_hex(8)
        body = (f"--{boundary}\r\nContent-Disposition: form-data; name=\"file\"; filename=\"bot\"\r\n\r\n").encode() \
            + archive + f"\r\n--{boundary}--\r\n".encode()
        return self.call("POST", "/api/bots", token=self.tokens.get(author, author), body=body,
                         headers={"Content-Type": f"multipart/form-data; boundary={boundary}"})

    def get(self, path: str):
        return self.call("GET", path)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def start_server(home: Path, *args: str, env: dict[str, str] | None = None) -> Server:
    """``hexarena serve --home HOME ARGS`` on a free loopback port, once it answers (its stderr: serve-PORT.log)."""
    port = free_port()
    with open(home.parent / f"serve-{port}.log", "wb") as log:
        process = subprocess.Popen([*HEXARENA, "serve", "--home", str(home), "--port", str(port),
                                    *args], stdout=subprocess.DEVNULL, stderr=log, start_new_session=True,
                                   env={**os.environ, "LEAGUE_TEST": str(home), **(env or {})})  # LEAGUE_TEST marks its bots (processes_running_from)
    server = Server(f"http://127.0.0.1:{port}", home, process, {})
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise AssertionError(f"the server exited: {(home.parent / f'serve-{port}.log').read_text()}")
        try:
            if server.get("/api/queue")[0] == 200:
                return server
        except OSError:
            time.sleep(0.1)
    process.kill()
    raise AssertionError("the server did not answer within 60 s")


def stop_server(server: Server) -> None:
    if server.process.poll() is None:
        os.killpg(server.process.pid, signal.SIGKILL)
    server.process.wait()


def exhaustive(rules):
    """Plain memoised negamax over every line of ``rules`` (a ``Rules``): ``value(drawn)``, the mover's future
    margin (misère: negated), and ``move_value(drawn, line)``."""
    sign = -1 if rules.options.misere else 1
    full, touches = rules.full, rules.touches

    @cache
    def value(drawn: int) -> int:
        if drawn == full:
            return 0
        return max(move_value(drawn, line) for line in range(full.bit_length()) if not drawn >> line & 1)

    def move_value(drawn: int, line: int) -> int:
        after = drawn | 1 << line
        closed = sum(1 for _, mask in touches[line] if after & mask == mask)
        return closed * sign + value(after) if closed else -value(after)

    return value, move_value


def every_position(rules):
    """Every set of drawn lines (any subset of the free lines can occur)."""
    free = [line for line in range(len(rules.board.lines)) if not rules.predrawn >> line & 1]
    for subset in range(1 << len(free)):
        yield rules.predrawn | sum(1 << line for i, line in enumerate(free) if subset >> i & 1)


HOLD_THE_WRITE_LOCK = ("import sqlite3, sys, time; db = sqlite3.connect(sys.argv[1], isolation_level=None); "
                       "db.execute('BEGIN IMMEDIATE'); print('held', flush=True); time.sleep(120)")


@contextlib.contextmanager
def holding_the_write_lock(database: Path) -> Iterator[None]:
    """Another process (a sqlite3 shell left in a transaction, say) holding ``database``'s write lock meanwhile."""
    holder = subprocess.Popen([sys.executable, "-c", HOLD_THE_WRITE_LOCK, str(database)], stdout=subprocess.PIPE,
                              text=True)
    try:
        assert holder.stdout.readline() == "held\n"
        yield
    finally:
        holder.kill()
        holder.wait()
        holder.stdout.close()
