"""The sandbox against hostile bots (tests/hostile/): real processes, each attack's exact outcome.

Each bot writes one line ``hostile ATTACK: …`` on stderr when it starts, which lands in its first
game's log; the tests read it there, and check the game, the other bot, the processes left, and
the files the bot aimed at.
"""

from __future__ import annotations

import contextlib
import hashlib
import logging
import os
import resource
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
from helpers import BOTS, HEXARENA, HOSTILE, processes_with, sandbox_unavailable, survivors_of_a_killed, wait_until

from hexarena.leagues.registry.catalog import bot_history
from hexarena.leagues.registry.resolve import resolve
from hexarena.leagues.registry.submit import ensure_reference_bots, submit
from hexarena.leagues.workspace.home import Workspace
from hexarena.protocol.errors import ConfigError
from hexarena.referee import sandbox
from hexarena.referee.clock import TimeControl
from hexarena.referee.errors import SandboxMissing
from hexarena.referee.launch import Limits
from hexarena.referee.record import BoardConfig
from hexarena.referee.seats.process import BotSpec

RANDOM = BotSpec("random", BOTS / "random")



@pytest.fixture
def any_sandbox():
    if sandbox.path() is None:
        pytest.skip("no sandbox can be made on this machine")


def hostile(attack: str) -> BotSpec:
    return BotSpec(attack, HOSTILE / attack)


def said(log_dir: Path, game: str, seat: int, name: str) -> str:
    """What the hostile bot reported about its attack."""
    log = (log_dir / f"{game}.seat{seat}.{name}.log").read_text()
    return next(line for line in log.splitlines() if line.startswith("hostile ")).split(": ", 1)[1]


def tree(folder: Path) -> dict[str, str]:
    """Every file under folder and the hash of its bytes: byte-identical means equal."""
    return {str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(folder.rglob("*")) if p.is_file()}


def daemons(marker: str) -> list[int]:
    """The hostile daemons once double-forked: not a session leader (the processes on the way there are, for a
    moment, with the same command line)."""
    found = []
    for pid in processes_with("BROKEN_PIDS", marker, "time.sleep(300)"):
        with contextlib.suppress(OSError):  # gone since
            if int(Path(f"/proc/{pid}/stat").read_bytes().rsplit(b")", 1)[1].split()[3]) != pid:
                found.append(pid)
    return found


@pytest.fixture
def marked(monkeypatch, tmp_path):
    """A marker forwarded to the bots: every process they start carries it, so the test can find survivors."""
    marker = str(tmp_path / "marker")
    monkeypatch.setenv("BROKEN_PIDS", marker)
    return marker


def test_the_opponents_token_and_the_referees_environment_are_out_of_reach(make_referee, tmp_path, monkeypatch,
                                                                           sandbox_path):
    monkeypatch.setenv("HOSTILE_SECRET", "cloud-key")
    referee = make_referee()
    record = referee.play([hostile("steal"), RANDOM], BoardConfig(size="2x2"), game_id="steal", seed=1)
    assert (record.result.termination, record.seats) == ("completed", ["steal", "random"])
    # its own pid namespace: the sandbox's pid 1, the prlimit-exec'd bot and its threads' process only
    assert said(tmp_path / "logs", "steal", 0, "steal") == "0 foreign tokens; referee secret not visible; 2 processes visible"


def test_the_workspace_the_registry_other_bots_and_root_are_out_of_reach(make_referee, tmp_path, monkeypatch,
                                                                         sandbox_path):
    ws = Workspace(tmp_path / "home")
    ensure_reference_bots(ws)
    greedy = resolve(ws, "greedy")
    folder = tmp_path / "files"  # a registered hostile bot: ../../hexarena.db from its snapshot is the workspace's
    folder.mkdir()
    shutil.copy(HOSTILE / "hostile.py", folder / "hostile.py")
    (folder / "bot.toml").write_text('name = "files"\ncommand = ["python3", "hostile.py", "files"]\n')
    files = submit(ws, folder, check=False, author="mallory")
    ws.db.commit()
    before = (tree(ws.registry_dir), (ws.home / "hexarena.db").read_bytes())
    monkeypatch.setenv("HOSTILE_HOME", str(ws.home))
    monkeypatch.setenv("HOSTILE_OTHER", str(greedy.folder))
    monkeypatch.setenv("HEXARENA_PASS_ENV", os.environ["HEXARENA_PASS_ENV"] + ",HOSTILE_HOME,HOSTILE_OTHER")
    referee = make_referee()
    record = referee.play([BotSpec("files", files.folder), BotSpec("greedy", greedy.folder)], BoardConfig(size="2x2"),
                          game_id="files", seed=1)
    referee.close()
    assert record.result.termination == "completed"
    # the workspace lies under /tmp here: the folders leading to the snapshot's mount point exist in the sandbox's
    # private /tmp, so the bot "writes the database" there, a file of its own tmpfs that dies with it
    assert said(tmp_path / "logs", "files", 0, "files") == (
        "relative db ALLOWED; db ALLOWED; other bot denied (No such file or directory); own folder denied (Read-only "
        "file system); root denied (No such file or directory); registry lists 1 entries")
    assert (tree(ws.registry_dir), (ws.home / "hexarena.db").read_bytes()) == before
    assert resolve(ws, "greedy").folder == greedy.folder  # still verifies


def test_double_forked_setsid_daemons_die_with_the_bot(make_referee, tmp_path, marked, sandbox_path):
    referee = make_referee()
    record = referee.play([hostile("daemons"), RANDOM], BoardConfig(size="2x2"), game_id="daemons", seed=1)
    assert record.result.termination == "completed"
    assert said(tmp_path / "logs", "daemons", 0, "daemons") == "2 daemons started"
    wait_until(lambda: len(daemons(marked)) == 2, 10)  # the bot waited for their first fork only
    assert len(daemons(marked)) == 2  # running during the match
    referee.close()  # BYE, SIGTERM (the daemons ignore it), SIGKILL
    assert processes_with("BROKEN_PIDS", marked) == []


def test_daemons_of_a_bot_stopped_for_a_fault_die_by_the_end_of_the_game(make_referee, tmp_path, marked, sandbox_path):
    referee = make_referee(time_control=TimeControl.parse("300ms,startup=10s"))
    record = referee.play([hostile("daemons"), RANDOM], BoardConfig(size="2x2"), game_id="fault-d", seed=1)
    assert (record.result.termination, record.result.offender) == ("timeout", 0)
    assert processes_with("BROKEN_PIDS", marked, "hostile.py") == []
    assert processes_with("BROKEN_PIDS", marked, "time.sleep(300)") == []


@pytest.mark.slow
def test_daemons_die_with_a_referee_that_was_killed(tmp_path, marked, sandbox_path):
    env = {**os.environ, "HEXARENA_HOME": str(tmp_path / "home")}
    match = subprocess.Popen([*HEXARENA, "match", str(HOSTILE / "daemons"), str(RANDOM.folder), "--size", "6x6",
                              "--games", "500", "--time", "1s"], env=env, stdout=subprocess.DEVNULL,
                             stderr=subprocess.DEVNULL)
    seen = []  # the count of the last look, right before the kill
    wait_until(lambda: seen.append(len(daemons(marked))) or seen[-1] == 2, 30)
    assert seen[-1] == 2 and match.poll() is None
    assert survivors_of_a_killed(match, "BROKEN_PIDS", marked) == []


def test_memory_is_limited_per_process_and_for_the_bot_as_a_whole(make_referee, tmp_path, monkeypatch, sandbox_path,
                                                                   whole_bot):
    """RLIMIT_AS refuses one process over memory_mb; the cgroup (or the watchdog) stops two under it that together
    exceed it."""
    monkeypatch.setenv("HOSTILE_MB", "256")
    monkeypatch.setenv("HEXARENA_PASS_ENV", os.environ["HEXARENA_PASS_ENV"] + ",HOSTILE_MB")
    referee = make_referee(limits=Limits(memory_mb=256, processes=8))
    record = referee.play([hostile("memory"), RANDOM], BoardConfig(size="2x2"), game_id="memory", seed=1)
    assert (record.result.termination, record.result.offender) == ("crashed", 0)
    assert "memory limit: the bot's processes together " in record.result.forfeits[0].detail  # before its HELLO
    assert "its limit of 256 MiB (the whole bot" in record.result.forfeits[0].detail
    assert said(tmp_path / "logs", "memory", 0, "memory") == "one child over the limit refused"


def test_a_connection_flood_is_bounded_by_the_bots_limits_and_the_referee_plays_on(make_referee, tmp_path,
                                                                                   sandbox_path):
    referee = make_referee()
    record = referee.play([hostile("flood"), RANDOM], BoardConfig(size="2x2"), game_id="flood", seed=1)
    assert record.result.termination == "completed"
    opened = int(said(tmp_path / "logs", "flood", 0, "flood").split()[0])
    # 64 descriptors a process (its interpreter holds a few) and 32 processes at most: far below the referee's
    assert 8 * 50 <= opened <= 8 * 64 < resource.getrlimit(resource.RLIMIT_NOFILE)[0]
    again = referee.play([RANDOM, BotSpec("greedy", BOTS / "greedy")], BoardConfig(size="2x2"), game_id="after", seed=2)
    assert again.result.termination == "completed"


def test_a_bot_cannot_deny_its_socket_to_the_bots_started_after_it(make_referee, tmp_path, sandbox_path):
    """issue 31 item 1: after its WELCOME the bot chmods and unlinks the socket it was given; the bots the same
    referee starts afterwards (other games, other seats) still connect and play."""
    referee = make_referee()
    first = referee.play([hostile("deny"), RANDOM], BoardConfig(size="2x2"), game_id="deny", seed=1)
    assert (first.result.termination, first.result.offender) == ("completed", None)
    assert said(tmp_path / "logs", "deny", 0, "deny") == ("chmod denied (Read-only file system); "
                                                          "unlink denied (Device or resource busy)")
    others = [BotSpec("greedy", BOTS / "greedy"), BotSpec("random2", BOTS / "random")]  # new processes, new sockets
    after = referee.play(others, BoardConfig(size="2x2"), game_id="after", seed=2)
    assert (after.result.termination, after.seats) == ("completed", ["greedy", "random2"])
    # and the hostile bot's own seat still plays its next game: nothing it did reached the referee's socket
    again = referee.play([hostile("deny"), others[0]], BoardConfig(size="2x2"), game_id="again", seed=3)
    assert again.result.termination == "completed"


@pytest.mark.slow
def test_a_bot_cannot_tell_its_conformance_check_from_a_real_game(tmp_path, sandbox_path):
    """issue 31 item 1: a bot that behaves where it believes it is checked (a ``.staging-`` folder, a writable one)
    and plays illegal lines elsewhere is checked at its snapshot's own path, frozen: it cheats there, and fails."""
    ws = Workspace(tmp_path / "home")
    folder = tmp_path / "twofaced"
    folder.mkdir()
    shutil.copy(HOSTILE / "hostile.py", folder / "hostile.py")
    (folder / "bot.toml").write_text('name = "twofaced"\ncommand = ["python3", "hostile.py", "twofaced"]\n')
    result = submit(ws, folder, author="mallory")
    assert result.status == "rejected"
    assert "legal after an extra move: illegal_line" in result.reason, result.reason
    # nothing registered, nothing left: neither the staging copy nor the snapshot folder it was checked in
    assert ws.db.execute("SELECT COUNT(*) FROM bot_versions").fetchone()[0] == 0
    assert sorted(p.name for p in ws.registry_dir.iterdir()) == []


@pytest.mark.parametrize("attack", ["tcp", "tcp_transport"])  # the second is itself on the tcp transport (its relay)
def test_no_network_but_the_referees_socket(make_referee, tmp_path, monkeypatch, sandbox_path, attack):
    listener = socket.create_server(("127.0.0.1", 0))
    listener.settimeout(0.2)
    monkeypatch.setenv("HOSTILE_PORT", str(listener.getsockname()[1]))
    monkeypatch.setenv("HEXARENA_PASS_ENV", os.environ["HEXARENA_PASS_ENV"] + ",HOSTILE_PORT")
    record = make_referee().play([hostile(attack), RANDOM], BoardConfig(size="2x2"), game_id="tcp", seed=1)
    assert record.result.termination == "completed"
    # its own network namespace: its loopback is its own, with nobody listening
    assert said(tmp_path / "logs", "tcp", 0, attack) == "loopback denied (Connection refused)"
    with pytest.raises(TimeoutError):
        listener.accept()
    listener.close()


def test_a_build_writes_only_its_folder_and_leaves_no_daemon(tmp_path, monkeypatch, marked, sandbox_path):
    ws = Workspace(tmp_path / "home")
    folder = tmp_path / "src" / "build_escape"
    shutil.copytree(HOSTILE / "build_escape", folder)
    monkeypatch.setenv("HOSTILE_HOME", str(ws.home))
    monkeypatch.setenv("HEXARENA_PASS_ENV", os.environ["HEXARENA_PASS_ENV"] + ",HOSTILE_HOME")
    begun = time.monotonic()
    result = submit(ws, folder, check=False, author="mallory")
    assert time.monotonic() - begun < 5
    assert result.accepted and (result.folder / "built.txt").read_text() == "built\n"
    # every write "succeeded" (the workspace lies under /tmp: the folders around the staging copy's mount point
    # are the sandbox's private /tmp) and none reached the real files
    assert result.build_log == "tmp: private\n"
    assert not (tmp_path / "src" / "escaped.txt").exists() and not (ws.home / "escaped.txt").exists()
    assert not Path("/tmp/hexarena-build-escaped.txt").exists()
    # the daemon dies with its build's sandbox: the kernel kills a pid namespace's processes when its first one
    # exits, a moment after the build returns (on a loaded machine, one was seen still running at once)
    wait_until(lambda: processes_with("BROKEN_PIDS", marked) == [], 5)
    assert processes_with("BROKEN_PIDS", marked) == []


def test_an_impostor_cannot_take_a_reference_bots_name(tmp_path, capsys, any_sandbox):
    from hexarena.cli import main

    ws = Workspace(tmp_path / "home")
    ensure_reference_bots(ws)
    greedy = resolve(ws, "greedy").version_hash
    with pytest.raises(SystemExit) as exit_:
        main(["submit", str(HOSTILE / "impostor"), "--home", str(ws.home), "--author", "mallory"])
    err = capsys.readouterr().err
    assert exit_.value.code == 2 and err.count("\n") == 1
    assert err == ("hexarena: error: bot name 'greedy' is taken by author 'hexarena' (you submit as 'mallory': "
                   "--author, by default your user name); choose another name\n")
    assert resolve(ws, "greedy").version_hash == greedy
    assert [v.hash for v in bot_history(ws, "greedy")] == [greedy]


def test_a_tampered_snapshot_is_refused_by_name(tmp_path, capsys, any_sandbox):
    from hexarena.cli import main

    ws = Workspace(tmp_path / "home")
    ensure_reference_bots(ws)
    snapshot = resolve(ws, "random").folder
    assert not (snapshot / "bot.py").stat().st_mode & 0o222 and not snapshot.stat().st_mode & 0o222  # read-only
    (snapshot / "bot.py").chmod(0o644)  # the organiser's own account could; no bot can (its sandbox)
    with open(snapshot / "bot.py", "a") as code:
        code.write("\nprint('tampered')\n")
    with pytest.raises(ConfigError, match=r"registry snapshot random@[0-9a-f]{10} .* was changed after it was "
                                          r"registered \(its content hash differs\); it will not run"):
        resolve(ws, "random")
    with pytest.raises(SystemExit) as exit_:
        main(["match", "random", "greedy", "--home", str(ws.home), "--size", "1x1"])
    err = capsys.readouterr().err
    assert exit_.value.code == 2 and err.count("\n") == 1 and "registry snapshot random@" in err


@pytest.mark.slow
def test_an_unauthenticated_flood_neither_stalls_the_game_nor_floods_the_log(make_referee, caplog, sandbox_path):
    referee = make_referee()
    records, slowest = [], 0.0
    with caplog.at_level(logging.WARNING, logger="hexarena.referee.transport"):
        end = time.monotonic() + 3.5  # the flood lasts 3 s from the bot's start
        while time.monotonic() < end:
            begun = time.monotonic()
            records.append(referee.play([hostile("junk"), RANDOM], BoardConfig(size="3x3"), game_id=f"junk{len(records)}",
                                        seed=len(records)))
            slowest = max(slowest, time.monotonic() - begun)
    assert {r.result.termination for r in records} == {"completed"} and len(records) > 5
    assert slowest < 1.0  # a game of random lines: the flood never held it up for long
    assert referee.transport.dropped_count > 1000
    warnings = [r for r in caplog.records if r.name == "hexarena.referee.transport"]
    assert 1 <= len(warnings) <= 2  # one line per 5 s at most


@pytest.mark.slow
def test_a_stdio_flood_without_newlines_is_bounded(make_referee, sandbox_path):
    def rss_mb() -> float:
        return int(Path("/proc/self/statm").read_text().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20

    before = rss_mb()
    referee = make_referee(fault_policy="substitute", time_control=TimeControl.parse("300ms,startup=10s"))
    record = referee.play([hostile("stdio_flood"), RANDOM], BoardConfig(size="2x2"), game_id="stdio", seed=1)
    referee.close()
    assert record.result.termination == "completed"  # substitute: random lines for the flooding seat
    assert {f.seat for f in record.result.forfeits} == {0} and record.result.forfeits[0].reason == "malformed_message"
    assert rss_mb() - before < 100


def test_no_sandbox_is_refused_with_how_to_install_it(monkeypatch, tmp_path):
    monkeypatch.setattr(sandbox, "bwrap", lambda: None)
    monkeypatch.setattr(sandbox, "user_namespaces", lambda: "unshare the user namespace: Operation not permitted")
    with pytest.raises(SandboxMissing) as refused:
        sandbox.wrap(["true"], tmp_path, {}, Limits())
    assert str(refused.value) == (
        "cannot sandbox bots: bubblewrap (bwrap) is not installed, and user namespaces do not work here: unshare the "
        "user namespace: Operation not permitted; install bubblewrap (apt-get install bubblewrap) or pass --no-sandbox "
        "to run bots unconfined")
    monkeypatch.setenv(sandbox.CHOICE, "bwrap")  # forced, and missing: no quiet fallback
    monkeypatch.setattr(sandbox, "user_namespaces", lambda: None)
    with pytest.raises(SandboxMissing, match=r"^cannot sandbox bots: HEXARENA_SANDBOX=bwrap, and bubblewrap "):
        sandbox.wrap(["true"], tmp_path, {}, Limits())


@pytest.mark.slow
def test_doctor_with_a_malformed_sandbox_choice_says_so_and_still_checks_the_database(tmp_path):
    env = {**os.environ, sandbox.CHOICE: "nope", "HEXARENA_HOME": str(tmp_path / "home")}
    subprocess.run([*HEXARENA, "bots"], env=env, capture_output=True, timeout=120, check=True)  # a workspace
    doctor = subprocess.run([*HEXARENA, "doctor"], env=env, capture_output=True, text=True, timeout=60, check=False)
    lines = doctor.stdout.splitlines()
    assert lines[0].startswith("sandbox: HEXARENA_SANDBOX='nope': not a sandbox path; allowed: bwrap, unshare")
    assert lines[-1].endswith("nothing wrong found") and doctor.returncode == 0, doctor.stdout + doctor.stderr


@pytest.mark.slow
def test_without_bubblewrap_the_kernels_namespaces_sandbox_the_bots(tmp_path):
    """A fresh machine: bwrap is not on PATH (only the virtualenv's folder is), so the other path is taken."""
    if sandbox.user_namespaces() is not None:
        pytest.skip(f"user namespaces do not work here: {sandbox.user_namespaces()}")
    env = {**os.environ, "PATH": os.path.dirname(sys.executable), "HEXARENA_HOME": str(tmp_path / "home"),
           "HEXARENA_PASS_ENV": "", "HOSTILE_SECRET": "cloud-key"}  # not forwarded
    env.pop(sandbox.CHOICE, None)
    hexarena = HEXARENA
    doctor = subprocess.run([*hexarena, "doctor"], env=env, capture_output=True, text=True, timeout=60, check=False)
    assert doctor.stdout.splitlines()[0] == "sandbox: kernel namespaces (referee/namespaces.py: no bubblewrap needed)"
    match = subprocess.run([*hexarena, "match", str(HOSTILE / "steal"), str(RANDOM.folder), "--size", "2x2", "--games",
                            "1", "--logs", str(tmp_path / "logs")], env=env, capture_output=True, text=True,
                           timeout=120, check=False)
    assert match.returncode == 0, match.stderr
    assert "warning" not in match.stderr  # sandboxed: no --no-sandbox warning
    log = next((tmp_path / "logs").glob("*.seat0.*.log")).read_text()
    assert "hostile steal: 0 foreign tokens; referee secret not visible; 2 processes visible" in log


def test_a_forced_path_must_be_one_of_the_two(tmp_path):
    done = subprocess.run([*HEXARENA, "match", str(RANDOM.folder), str(RANDOM.folder), "--size", "1x1"],
                          env={**os.environ, sandbox.CHOICE: "firejail", "HEXARENA_HOME": str(tmp_path / "home")},
                          capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 2
    assert done.stderr == ("hexarena: error: HEXARENA_SANDBOX='firejail': not a sandbox path; allowed: bwrap, unshare "
                           "(or unset: bubblewrap where it is installed, else the kernel's namespaces)\n")


def test_no_sandbox_on_the_command_line_warns_and_runs_unconfined(tmp_path, any_sandbox):
    done = subprocess.run([*HEXARENA, "match", str(RANDOM.folder), str(BOTS / "greedy"), "--size", "1x1", "--games",
                           "1", "--no-sandbox"], check=False, capture_output=True, text=True, timeout=60,
                          env={**os.environ, "HEXARENA_HOME": str(tmp_path / "home"), "PATH": os.environ["PATH"]})
    assert done.returncode == 0, done.stderr
    assert done.stderr.startswith("hexarena: warning: the sandbox is off (--no-sandbox): bots run unconfined")


def test_sigterm_reaches_the_bot_inside_its_sandbox(tmp_path, sandbox_path):
    """Polite then firm: the bot hears SIGTERM and may finish (its sandbox's outer process is not killed by it)."""
    from hexarena.referee.launch import BotProcess
    from hexarena.referee.manifest import Manifest

    script = 'trap "echo finishing >&2; exit 0" TERM; echo ready >&2; while :; do sleep 0.05; done'
    process = BotProcess.start(tmp_path, Manifest(name="polite", command=["sh", "-c", script]), {}, Limits())
    wait_until(lambda: process.drain() or b"ready" in process.stderr_tail, 10)
    process.signal_group(signal.SIGTERM)
    wait_until(process.exited, 5)
    process.drain()
    process.kill_all()
    process.close()
    assert process.returncode == 0 and process.stderr_tail.decode().endswith("finishing\n")


def test_limits_hold_from_the_bots_first_instruction(tmp_path, sandbox_path):
    """No race with the launch: what a bot's first command reads of its limits (and a child forked at once) is set."""
    from hexarena.referee.launch import BotProcess
    from hexarena.referee.manifest import Manifest

    script = "echo $(ulimit -v) $(ulimit -p) $(ulimit -n) $(ulimit -c) $(sh -c 'ulimit -v') >&2"  # dash: -p processes
    limits = Limits(memory_mb=300, processes=9, open_files=33)
    for _ in range(3):
        process = BotProcess.start(tmp_path, Manifest(name="limits", command=["sh", "-c", script]), {}, limits)
        wait_until(process.exited, 10)
        process.drain()
        process.kill_all()
        process.close()
        # processes: RLIMIT_NPROC, or the bot's cgroup's pids.max (whole bot: its refusal is seen and named there)
        nproc = 9 + (process.cgroup is not None and process.cgroup.counts_processes)  # pids.max refuses first
        assert process.stderr_tail.decode() == f"{300 * 1024} {nproc} 33 0 {300 * 1024}\n"


def test_a_sandbox_that_cannot_be_made_is_one_line_in_the_bots_log(tmp_path, monkeypatch):
    """The namespaces path: a folder to bind that is gone by the launch is the launcher's one line, exit 125."""
    if (why := sandbox_unavailable("unshare")) is not None:
        pytest.skip(why)
    monkeypatch.setenv(sandbox.CHOICE, "unshare")
    folder = tmp_path / "bot"
    folder.mkdir()
    command, env = sandbox.wrap(["true"], folder, {}, Limits())
    folder.rmdir()
    done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=30, check=False)
    assert (done.returncode, done.stderr) == (125, f"hexarena sandbox: cannot bind {folder}: no such file or folder\n")


@pytest.mark.slow
def test_what_usr_links_out_to_is_walked_once_and_a_forged_inherited_list_is_walked_again(monkeypatch):
    """linked_out's answer goes to the referee's workers by the environment; a list that names what the walk
    never binds (a folder outside LINKED_INTO, a file only root may read) is ignored, and /usr walked again."""
    monkeypatch.delenv(sandbox.LINKED_ENV, raising=False)
    monkeypatch.setattr(sandbox, "_linked", None)
    walked = sandbox.linked_out()
    assert os.environ[sandbox.LINKED_ENV].split("\n") == walked
    assert all(path.startswith(sandbox.LINKED_INTO) for path in walked)
    if Path("/usr/lib/jvm").is_dir():  # OpenJDK's conf/ leads into /etc/java-*: the reason for the walk
        assert any(path.startswith("/etc/java-") for path in walked)
    for forged in ("/root", "/etc/shadow", "/home"):
        monkeypatch.setenv(sandbox.LINKED_ENV, forged)
        monkeypatch.setattr(sandbox, "_linked", None)
        assert sandbox.linked_out() == walked


def test_the_usr_walk_is_remembered_until_a_folder_it_read_changes(tmp_path, monkeypatch):
    """The hops are remembered in the cache folder; a new link under the top, or a link re-pointed on the way out
    of it, is found by walking again (their folders' times changed). A folder changed just now is not trusted."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    (tmp_path / "cache").mkdir()  # now: made by the first write, it would change a folder on the hops' way
    top, outside = tmp_path / "usr" / "lib", tmp_path / "alternatives"
    top.mkdir(parents=True)
    outside.mkdir()
    (outside / "conf").symlink_to("/etc/hostname")
    (top / "conf").symlink_to(outside / "conf")  # two hops: outside/conf, then /etc/hostname
    walks = []
    monkeypatch.setattr(sandbox, "_symlinks", lambda *args, walk=sandbox._symlinks: walks.append(1) or walk(*args))
    hops = lambda: sandbox._hops_out(str(tmp_path / "usr"))
    assert hops() == {"/etc/hostname"} and len(walks) == 1
    assert hops() == {"/etc/hostname"} and len(walks) == 2  # folders modified just now: not remembered
    monkeypatch.setattr(sandbox, "RECENT_NS", 0)  # the test's own folders are set back a minute instead (not /tmp)
    for folder in (tmp_path / "usr", top, outside):
        os.utime(folder, (time.time() - 60, time.time() - 60))
    assert hops() == {"/etc/hostname"} and len(walks) == 3
    assert hops() == {"/etc/hostname"} and len(walks) == 3  # remembered
    (outside / "conf").unlink()
    (outside / "conf").symlink_to("/etc/passwd")
    assert hops() == {"/etc/passwd"} and len(walks) == 4
    os.utime(outside, (time.time() - 60, time.time() - 60))
    assert hops() == {"/etc/passwd"} and len(walks) == 5
    (top / "more").symlink_to("/etc/group")
    assert hops() == {"/etc/passwd", "/etc/group"} and len(walks) == 6
    cache = tmp_path / "cache" / "hexarena" / sandbox.REMEMBERED
    os.utime(top, (time.time() - 60, time.time() - 60))
    assert hops() == {"/etc/passwd", "/etc/group"} and len(walks) == 7 and cache.exists()
    cache.write_bytes(b"garbled")
    assert hops() == {"/etc/passwd", "/etc/group"} and len(walks) == 8



def test_the_suite_keeps_the_usr_walk_in_a_cache_folder_of_its_own(tmp_path_factory):
    """conftest's session folder, not the real home's ~/.cache: for this process and every command a test starts."""
    cache = os.environ.get("XDG_CACHE_HOME")
    assert cache is not None and Path(cache).is_relative_to(tmp_path_factory.getbasetemp())
    shown = subprocess.run([sys.executable, "-c", "import os; print(os.environ['XDG_CACHE_HOME'])"],
                           capture_output=True, text=True, check=True)
    assert shown.stdout.strip() == cache

def test_the_usr_walk_is_not_remembered_without_a_home_to_keep_it_in(tmp_path, monkeypatch):
    """No home folder to be found ("~" left as is) and no XDG_CACHE_HOME: walked, nothing written under the cwd."""
    monkeypatch.delenv("XDG_CACHE_HOME", raising=False)
    monkeypatch.setattr(sandbox.os.path, "expanduser", lambda path: path)
    monkeypatch.chdir(tmp_path)
    top = tmp_path / "usr" / "lib"
    top.mkdir(parents=True)
    (top / "conf").symlink_to("/etc/hostname")
    monkeypatch.setattr(sandbox, "RECENT_NS", -10**18)  # would be remembered, were there somewhere to
    assert sandbox._hops_out(str(tmp_path / "usr")) == {"/etc/hostname"}
    assert not (tmp_path / "~").exists()
