"""Each bot in a cgroup of its own (referee/cgroups.py): which backend is in force and said so, the fallback to the
watchdog where no cgroup can be made (a real read-only cgroup mount, not a mock), and no cgroup left behind."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import BOTS, HEXARENA, HOSTILE, wait_for

from hexarena.referee import cgroups
from hexarena.referee.launch import BotProcess, Limits
from hexarena.referee.watchdog import Watchdog

MOUNTS = ("memory", "pids", "cpuacct", "unified")  # made read-only in a mount namespace of the test's own


def backend() -> cgroups.Backend:
    found = cgroups.backend()
    if found is None:
        pytest.skip(f"no cgroup backend here: {cgroups.unavailable()}")
    return found


def read_only_cgroups(command: list[str]) -> list[str]:
    """``command`` run in a private mount namespace where this machine's cgroup mounts are read-only: the real
    kernel refuses every cgroup the referee would make (EROFS), as on a machine that gives it none."""
    if os.geteuid() != 0 or shutil.which("unshare") is None:
        pytest.skip("needs root and util-linux unshare to mount the cgroup hierarchies read-only")
    remounts = "".join(f"mount -o remount,bind,ro {cgroups.ROOT}/{m} && " for m in MOUNTS
                       if os.path.ismount(f"{cgroups.ROOT}/{m}"))
    return ["unshare", "--mount", "--propagation", "private", "sh", "-c", f'{remounts}exec "$@"', "sh", *command]


def test_doctor_says_the_cgroup_backend_in_one_line(tmp_path):
    found = backend()
    done = subprocess.run([*HEXARENA, "doctor", "--home", str(tmp_path)], capture_output=True, text=True, check=False)
    lines = [line for line in done.stdout.splitlines() if line.startswith("whole-bot memory: ")]
    assert lines == [f"whole-bot memory: {found.describe()}"]
    assert lines[0].startswith(f"whole-bot memory: {found.version} (kernel)")


@pytest.mark.slow
def test_without_writable_cgroups_the_watchdog_bounds_the_bot_and_doctor_says_why(tmp_path):
    backend()  # the machine has cgroups: the test takes them away
    done = subprocess.run(read_only_cgroups([*HEXARENA, "doctor", "--home", str(tmp_path)]), capture_output=True,
                          text=True, check=False)
    line = next(line for line in done.stdout.splitlines() if line.startswith("whole-bot memory: "))
    assert line.startswith("whole-bot memory: watchdog (every 20 ms; no cgroup: ") and "Read-only file system" in line
    # a game there: the bot's memory as a whole is the watchdog's (two children under the limit, over it together)
    script = ("import sys\nfrom pathlib import Path\nfrom hexarena.referee.referee import Referee\n"
              "from hexarena.referee.launch import Limits\nfrom hexarena.referee.record import BoardConfig\n"
              "from hexarena.referee.seats.process import BotSpec\nfrom hexarena.referee import cgroups\n"
              "assert cgroups.backend() is None\n"
              "referee = Referee(limits=Limits(memory_mb=256, processes=8), log_dir=Path(sys.argv[1]))\n"
              "record = referee.play([BotSpec('memory', Path(sys.argv[2])), BotSpec('random', Path(sys.argv[3]))],"
              " BoardConfig(size='2x2'), game_id='m', seed=1)\nreferee.close()\n"
              "print(record.result.termination, record.result.forfeits[0].detail)\n")
    env = {**os.environ, "HOSTILE_MB": "256", "HEXARENA_PASS_ENV": "HOSTILE_MB",
           "HEXARENA_SANDBOX_SHARE": str(HOSTILE)}
    played = subprocess.run(read_only_cgroups([sys.executable, "-c", script, str(tmp_path / "logs"),
                                               str(HOSTILE / "memory"), str(BOTS / "random")]),
                            capture_output=True, text=True, env=env, check=False, timeout=120)
    assert played.stdout.startswith("crashed before saying HELLO: memory limit: the bot's processes together held "), \
        played.stdout + played.stderr
    assert "over its limit of 256 MiB (the whole bot)" in played.stdout


def test_a_plain_folder_is_no_cgroup_root(tmp_path, monkeypatch):
    """A root without the kernel's hierarchies (even with folders named like them): no backend, and why."""
    own = cgroups._own_paths()
    if "memory" in own:
        (tmp_path / ("memory" + own["memory"])).mkdir(parents=True)
    why = cgroups.find(str(tmp_path))
    assert isinstance(why, str), why
    # the folder named like our own cgroup is there but is a plain folder; without a v1 memory line, none is there
    assert ("is not a cgroup" if "memory" in own else "no ") in why, why
    monkeypatch.setenv(cgroups.ROOT_ENV, str(tmp_path))
    assert cgroups.backend() is None and cgroups.unavailable() == why


def test_a_killed_referees_cgroups_are_removed_by_the_next_one(tmp_path):
    found = backend()
    env = {**os.environ, "HEXARENA_HOME": str(tmp_path / "home")}
    match = subprocess.Popen([*HEXARENA, "match", str(BOTS / "random"), str(BOTS / "greedy"), "--size", "6x6",
                              "--games", "500", "--time", "1s"], env=env, stdout=subprocess.DEVNULL,
                             stderr=subprocess.DEVNULL)
    prefix = f"{cgroups.PREFIX}{match.pid}-"

    def its_cgroups() -> list[str]:
        return [f"{parent}/{name}" for parent in found.parents.values() for name in os.listdir(parent)
                if name.startswith(prefix)]

    def both() -> list[str] | None:  # two bots, a folder in each hierarchy
        now = its_cgroups()
        return now if len(now) == 2 * len(found.parents) else None

    made = wait_for(both, 60, "the match's bots in cgroups of their own")
    match.send_signal(signal.SIGKILL)
    match.wait()
    assert its_cgroups() != []  # nobody removed them
    # the next referee kills what still runs in them (a bot bwrap was still setting up can outlive its referee:
    # bwrap sets its init's parent-death signal after its fork) and removes them
    assert sorted(cgroups.sweep(found.parents.values())) == sorted(made)
    assert its_cgroups() == []


@pytest.mark.slow
def test_the_cgroup_v2_kind_counts_cpu_kills_every_process_and_is_removed():
    """What of cgroup v2 this machine can check without a delegated memory controller (its cgroup2 hierarchy has
    none): a process tree entered by the launch's shell, its CPU time read from cpu.stat, all of it killed with
    cgroup.kill, the cgroup removed."""
    unified = next((f for f in (cgroups.ROOT, f"{cgroups.ROOT}/unified") if os.path.exists(f"{f}/cgroup.controllers")),
                   None)
    own = cgroups._own_paths().get("")
    if unified is None or own is None or cgroups._probe(os.path.normpath(unified + own)) is not None:
        pytest.skip("no writable cgroup2 hierarchy here")
    folder = os.path.normpath(f"{unified}{own}/{cgroups.PREFIX}{os.getpid()}-v2test")
    os.mkdir(folder)
    group = cgroups.CgroupV2(folder)
    spin = "import os, time\nos.fork(); os.fork()\nend = time.process_time() + 0.3\nwhile time.process_time() < end: pass\ntime.sleep(60)\n"
    launched = subprocess.Popen(["/bin/sh", "-c", group.enter_script() + 'exec "$@"', "sh", sys.executable, "-c", spin])
    try:
        wait_for(lambda: len(group.members()) == 4 and group.cpu_ns() >= 4 * 0.3e9, 60, "4 processes spinning 0.3 s")
        assert group.exceeded() is None  # no memory.events nor pids.events here: nothing past a limit
        assert group.kill() and group.members() == []
    finally:
        launched.wait(10)
        assert group.remove() and not os.path.exists(folder)
    assert launched.returncode == -signal.SIGKILL



def test_the_watchdog_kills_a_bot_past_its_limit_once_a_look_and_waits_for_nothing(tmp_path):
    """A bot past its cgroup's memory limit whose cgroup still lists a process after the SIGKILLs (one that cannot
    leave: a zombie, in a cgroup folder written by hand): each look of the watchdog kills once and returns, the next
    look kills again until the bot is reaped. Waiting for the cgroup to empty (up to 1 s) on the watchdog's thread
    held up the other bots' looks and counted as the host's lag."""
    zombie = os.posix_spawn("/bin/true", ["true"], os.environ)
    state = lambda: Path(f"/proc/{zombie}/stat").read_text().rsplit(")", 1)[1].split()[0]
    wait_for(lambda: state() == "Z", 10, "the spawned process a zombie")
    folder = tmp_path / "memory"
    folder.mkdir()
    (folder / "cgroup.procs").write_text(f"{zombie}\n")
    (folder / "memory.oom_control").write_text("oom_kill_disable 0\nunder_oom 0\noom_kill 1\n")
    group = cgroups.CgroupV1(str(folder), None, None)
    bot = subprocess.Popen(["sleep", "60"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)
    process = BotProcess(bot, Limits(memory_mb=64), sandboxed=False, cgroup=group)
    try:
        Watchdog.shared().unwatch(process)  # looked at by this test only
        passes = []
        members = group.members
        group.members = lambda: passes.append(1) or members()
        watchdog = Watchdog()
        watchdog.look(process)
        assert process.limit_hit is not None and process.limit_hit.startswith("memory limit")
        assert len(passes) == 1
        watchdog.look(process)  # not reaped yet: killed again, once
        assert len(passes) == 2
        assert bot.wait(10) == -signal.SIGKILL
        watchdog.look(process)  # reaped: its pid may be another's now, nothing is killed
        assert len(passes) == 2
    finally:
        bot.kill()
        os.waitpid(zombie, 0)
        for file in folder.iterdir():  # an empty folder, which the close removes as it would a cgroup
            file.unlink()
        process.close()
    assert not folder.exists()

def test_a_cgroup2_lookalike_without_subtree_control_is_a_reason_not_a_traceback(tmp_path):
    """A root whose cgroup.controllers names the memory controller but whose referee's folder has no
    cgroup.subtree_control (not the kernel's): find says why, as one line."""
    own = cgroups._own_paths().get("")
    if own is None:
        pytest.skip("no cgroup2 line in /proc/self/cgroup")
    parent = Path(os.path.normpath(f"{tmp_path}{own}"))
    parent.mkdir(parents=True, exist_ok=True)
    for folder in {tmp_path, parent}:
        (folder / "cgroup.controllers").write_text("memory pids\n")
    why = cgroups.find(str(tmp_path))
    assert isinstance(why, str) and "cannot read" in why and "cgroup.subtree_control" in why, why
