"""The floor: a minimal protocol-v1 referee, and hexarena measured against it in the same run.

    python3 benchmarks/floor.py                       # 300 games random vs random, 4x4 hexagons, 5 rounds
    python3 benchmarks/floor.py --games 100 --rounds 3 --size 3x3
    python3 benchmarks/floor.py --minimal-only        # just the minimal referee's games/s
    python3 benchmarks/floor.py --baseline-ref none   # today's code only (default: also a0255e8's)
    python3 benchmarks/floor.py --leagues-only --concurrency 4 --baseline-ref 21ebc33   # 4 games at once
    python3 benchmarks/floor.py --leagues-only --pin-cores --baseline-ref HEAD   # both pinned (a0255e8: unpinned)
    python3 benchmarks/floor.py --leagues-only --pin-cores --pin-floors   # the floors pinned too: like against like
    python3 benchmarks/floor.py --leagues-only --pin-cores --pin-floors --new-ref HEAD --baseline-ref 6756c50
    python3 benchmarks/floor.py --leagues-only --pin-cores --pin-floors --baseline-ref none --bare-runner
    python3 benchmarks/floor.py --leagues-only --pin-cores --pin-floors --baseline-ref none --stack-cost

The minimal referee is written from protocol/PROTOCOL.md, not from the referee's code. It does
only what a correct referee must: start the bots (each in its own session), check each HELLO's
one-time token and answer WELCOME, send GAME, then TURN/MOVE with the reply's id and line checked
on a bitmask against the board's cells, DRAWN to every seat, END, and BYE after the last game. No
records, no logs, no clocks beyond a deadline per move, no fault policy beyond "stop".

The driver alternates, round by round: the minimal referee, ``hexarena match`` (whole process),
two minimal referees side by side, ``hexarena league run`` at concurrency 2 (SQLite included), and
prints each round's wall times and ratios, then the medians. The CPU each run takes (``cpu`` in the lines) is
counted in a cgroup of its own where the machine lets one be made (``CpuGroup``: a league's sandboxed bots
included), else from its reaped children. ``match`` and ``league run`` run twice a
round: today's code and the ``--baseline-ref`` commit's (``benchmarks/baseline.py``), taking turns
going first. ``--bare-runner`` adds today's league with a runner that stores and prints nothing
(``bare_runner.py``): the part of the ratio that the referees and bots make on their own. The ratio is the figure:
absolute times on these shared machines are not.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import secrets
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import baseline
import zmq

from hexarena.protocol.board import make_board
from hexarena.referee.cgroups import _own_paths as own_cgroups

ROOT = Path(__file__).resolve().parent.parent
RANDOM_BOT = ROOT / "bots" / "random"


def minimal_referee(games: int, size: str, seed: int = 1) -> float:
    """Play ``games`` games of random vs random; the wall seconds from the first launch to the last exit."""
    board = make_board(size, "hex")
    masks = [sum(1 << line for line in cell) for cell in board.cells]
    touching = [[c for c, cell in enumerate(board.cells) if line in cell] for line in range(len(board.lines))]
    full = (1 << len(board.lines)) - 1
    began = time.perf_counter()
    folder = tempfile.mkdtemp(prefix="floor-")
    context = zmq.Context()
    router = context.socket(zmq.ROUTER)
    router.linger = 0
    endpoint = f"ipc://{folder}/floor.sock"
    router.bind(endpoint)
    tokens, routes, bots = {}, [], []
    for seat in range(2):
        token = secrets.token_hex(16)
        tokens[token] = seat
        env = {"PATH": os.environ.get("PATH", ""), "HOME": os.environ.get("HOME", "/tmp"),
               "HEXARENA_ENDPOINT": endpoint, "HEXARENA_TOKEN": token, "HEXARENA_PROTOCOL": "v1",
               "HEXARENA_NAME": f"random{seat}"}
        bots.append(subprocess.Popen([sys.executable, "bot.py"], cwd=RANDOM_BOT, env=env, stdin=subprocess.DEVNULL,
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True))
    routes = [None, None]
    while None in routes:  # §3: HELLO with a one-time token, answered by WELCOME
        route, data = router.recv_multipart()
        words = data.decode().split()
        if len(words) >= 3 and words[0] == "HELLO" and words[1] == "v1" and words[2] in tokens:
            seat = tokens.pop(words[2])
            routes[seat] = route
            router.send_multipart([route, b"WELCOME v1"])
    poller = zmq.Poller()
    poller.register(router, zmq.POLLIN)
    request = 0
    for number in range(games):
        names = ["random0", "random1"] if number % 2 == 0 else ["random1", "random0"]
        order = [0, 1] if number % 2 == 0 else [1, 0]  # seat → bot
        for seat, bot in enumerate(order):
            game = {"protocol": "v1", "game": f"g{number}", "seat": seat, "players": 2, "names": names,
                    "geometry": "hex", "size": size, "misere": False, "border": False,
                    "dots": [list(d) for d in board.dots], "lines": [list(l) for l in board.lines],
                    "cells": [list(c) for c in board.cells], "predrawn": [],
                    "time": {"move_ms": 1000, "bank_ms": None, "increment_ms": 0, "margin_ms": 50},
                    "seed": seed + number}
            router.send_multipart([routes[bot], ("GAME " + json.dumps(game, separators=(",", ":"))).encode()])
        drawn, scores, to_move = 0, [0, 0], 0
        while drawn != full:
            request += 1
            bot = order[to_move]
            router.send_multipart([routes[bot], f"TURN {request} 1000 1000".encode()])
            if not poller.poll(1050):
                raise SystemExit(f"floor: seat {to_move} timed out")
            route, data = router.recv_multipart()
            words = data.decode().split()
            line = int(words[2])
            if route != routes[bot] or words[0] != "MOVE" or int(words[1]) != request or drawn >> line & 1:
                raise SystemExit(f"floor: bad reply {data!r}")
            drawn |= 1 << line
            closed = [c for c in touching[line] if drawn & masks[c] == masks[c]]
            scores[to_move] += len(closed)
            text = f"DRAWN {to_move} {line} {','.join(map(str, closed)) or '-'}".encode()
            for route in routes:
                router.send_multipart([route, text])
            if not closed:
                to_move = 1 - to_move
        places = [1, 1] if scores[0] == scores[1] else ([1, 2] if scores[0] > scores[1] else [2, 1])
        end = f"END completed {scores[0]},{scores[1]} {places[0]},{places[1]} -".encode()
        for route in routes:
            router.send_multipart([route, end])
    for route in routes:
        router.send_multipart([route, b"BYE"])
    for process in bots:
        process.wait(timeout=10)
    router.close()
    context.term()
    shutil.rmtree(folder, ignore_errors=True)
    return time.perf_counter() - began


def children_cpu() -> float:
    """CPU seconds of every finished child process and its reaped descendants: on a shared machine the CPU a run
    takes moves less than its wall time. Sandboxed bots are not counted (their sandbox is killed, not reaped
    down the tree): ``CpuGroup`` counts them where it can."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


class CpuGroup:
    """A cgroup of this process's own that counts the CPU time of whatever runs in it and below it: a league's
    bots too, whose cgroups the referee makes under its own (``referee/cgroups.py``), and whose time the
    ``RUSAGE_CHILDREN`` count of ``children_cpu`` never sees. cgroup v1's cpuacct, else cgroup2's cpu.stat;
    ``CpuGroup.make()`` is None where neither can be made (then ``children_cpu`` is the count)."""

    def __init__(self, folder: Path, v1: bool) -> None:
        self.folder, self.v1 = folder, v1

    @classmethod
    def make(cls, tag: str) -> CpuGroup | None:
        own = own_cgroups()
        for root, controller, v1 in (("/sys/fs/cgroup/cpuacct", "cpuacct", True), ("/sys/fs/cgroup", "", False)):
            if controller not in own or not Path(root, "cgroup.procs").exists():
                continue
            folder = Path(root + own[controller], f"floor-{os.getpid()}-{tag}")
            try:
                folder.mkdir(exist_ok=True)
            except OSError:
                continue
            group = cls(folder, v1)
            if group.seconds() is not None:
                return group
            folder.rmdir()
        return None

    def wrap(self, command: list[str]) -> list[str]:
        """``command``, run from a shell that first moves itself into this group."""
        return ["/bin/sh", "-c", 'echo $$ > "$0" && exec "$@"', str(self.folder / "cgroup.procs"), *command]

    def seconds(self) -> float | None:
        try:
            if self.v1:
                return int((self.folder / "cpuacct.usage").read_text()) / 1e9
            stat = dict(line.split() for line in (self.folder / "cpu.stat").read_text().splitlines())
            return int(stat["usage_usec"]) / 1e6
        except (OSError, ValueError, KeyError):
            return None

    def remove(self) -> None:
        for _ in range(200):  # the last processes may take a moment to leave
            try:
                self.folder.rmdir()
                return
            except FileNotFoundError:
                return
            except OSError:
                time.sleep(0.01)


def measured(tag: str, run) -> tuple[float, float]:
    """(wall seconds, CPU seconds) of ``run(wrap)``, which starts its processes with ``wrap(command)``: counted in
    a ``CpuGroup`` of their own (bots included), else by ``children_cpu``."""
    group = CpuGroup.make(tag)
    before = children_cpu()
    began = time.perf_counter()
    run(group.wrap if group is not None else list)
    wall = time.perf_counter() - began
    if group is None:
        return wall, children_cpu() - before
    cpu = group.seconds()
    group.remove()
    return wall, cpu


def timed(command: list[str], wrap=list, **kwargs) -> float:
    """Wall seconds of a command; run it in a folder without our packages (``-m`` puts the working folder first).
    ``wrap``: what starts it (a ``CpuGroup``'s, to count its CPU)."""
    began = time.perf_counter()
    subprocess.run(wrap(command), check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, **kwargs)
    return time.perf_counter() - began


def two_minimal_referees(games: int, size: str, side_by_side: int = 2, wrap=list, pin: bool = False) -> float:
    """Two floors side by side (as two processes), each half the games: the league's floor at concurrency 2
    (``side_by_side``: as many floors, each its share of the games, for a league at that concurrency; ``wrap``:
    what starts each, as ``timed``'s; ``pin``: floor ``i`` and its bots on core ``i``, as ``league run --pin-cores``
    holds its workers)."""
    began = time.perf_counter()
    script = f"import sys; sys.path.insert(0, {str(ROOT / 'benchmarks')!r}); import floor; " \
             f"floor.minimal_referee({games // side_by_side}, {size!r})"
    cores = sorted(os.sched_getaffinity(0))
    runs = [subprocess.Popen(wrap([sys.executable, "-c", script]),
                             preexec_fn=(lambda core=cores[i % len(cores)]: os.sched_setaffinity(0, {core})) if pin else None)
            for i in range(side_by_side)]
    for run in runs:
        if run.wait() != 0:
            raise SystemExit("floor: a minimal referee failed")
    return time.perf_counter() - began


def two_matches(python: str, games: int, size: str, folder: Path, env: dict | None) -> float:
    """Two ``hexarena match`` processes side by side, each half the games: one referee per process (no shared
    GIL), what a league at concurrency 2 would cost with a referee process per core instead of threads."""
    began = time.perf_counter()
    command = [python, "-m", "hexarena", "match", str(RANDOM_BOT), str(RANDOM_BOT), "--size", size,
               "--games", str(games // 2), "--time", "1s", "--seed", "1"]
    runs = [subprocess.Popen(command, env=env, cwd=folder, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            for _ in range(2)]
    if any(run.wait() != 0 for run in runs):
        raise SystemExit("floor: a match failed")
    return time.perf_counter() - began


def league_file(folder: Path, games: int, size: str, bot: Path, code: str, concurrency: int = 2) -> Path:
    """The league of ``bot`` and a copy of it named random2 (a league needs two participants)."""
    second = folder / f"random2-{code}"
    shutil.copytree(bot, second)
    (second / "bot.toml").write_text((bot / "bot.toml").read_text().replace('name = "random"', 'name = "random2"'))
    path = folder / f"floor-{code}.toml"
    path.write_text(f'name = "floor"\nparticipants = ["{bot}", "{second}"]\n'
                    f'games_per_pairing = {games}\ntime_control = "1s"\nconcurrency = {concurrency}\n'
                    f'[[boards]]\nsize = "{size}"\n')
    return path


def pins(python: str, env: dict | None) -> bool:
    """Whether this code's ``league run`` has ``--pin-cores`` (older baselines do not)."""
    shown = subprocess.run([python, "-m", "hexarena", "league", "run", "--help"], env=env, capture_output=True,
                           text=True, cwd=tempfile.gettempdir(), check=False)
    return "--pin-cores" in shown.stdout


def seeded_home(python: str, home: Path, env: dict | None = None) -> None:
    subprocess.run([python, "-m", "hexarena", "bots", "--home", str(home)], check=True, env=env,  # not timed
                   cwd=home.parent, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=300)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--size", default="4x4")
    parser.add_argument("--minimal-only", action="store_true")
    parser.add_argument("--baseline-ref", default=baseline.DEFAULT_REF,
                        help="also run this commit's hexarena in every round ('none': only today's)")
    parser.add_argument("--new-ref", default=None,
                        help="run 'new' from this commit, extracted as the baseline is, not from this checkout: "
                             "old and new then import alike (an editable install's import hook costs a little: "
                             "identical code at 1.77x against 1.74x, 8 rounds; the same tree against itself at "
                             "1.70x and 1.75x: differences under 3 %% are noise here)")
    parser.add_argument("--two-matches", action="store_true",
                        help="also time two of today's matches side by side (a referee process per core)")
    parser.add_argument("--concurrency", type=int, default=2,
                        help="the league's games at once, against as many minimal referees side by side")
    parser.add_argument("--leagues-only", action="store_true", help="leave out the matches (and the lone floor)")
    parser.add_argument("--pin-cores", action="store_true",
                        help="league run with --pin-cores (the baseline's too, where it has the option)")
    parser.add_argument("--pin-floors", action="store_true",
                        help="floor i and its bots on core i (with --pin-cores: pinned against pinned)")
    parser.add_argument("--stack-cost", action="store_true",
                        help="also the CPU a process takes to import the libraries a league run is built on (typer, "
                             "pydantic, pandas) beyond the floor's (zmq), against the two floors' CPU: what no "
                             "league run on them can take below")
    parser.add_argument("--bare-runner", action="store_true",
                        help="also run new's league with a runner that stores nothing and prints no table "
                             "(bare_runner.py): what the referees and bots cost without the runner's own work")
    args = parser.parse_args()
    if args.minimal_only:
        seconds = minimal_referee(args.games, args.size)
        print(f"minimal referee: {args.games} games in {seconds:.2f} s ({args.games / seconds:.0f} games/s)")
        return
    baseline.compiled(ROOT)  # both trees byte-compiled, as installed code is (the floor's imports are too)
    codes = {"new": (sys.executable, baseline.this_tree())}  # this checkout, wherever the install points
    if args.new_ref:  # laid out and byte-compiled as the baseline is: an editable install's imports cost more
        codes["new"] = (str(baseline.baseline_python(args.new_ref)), baseline.environment())
    if args.baseline_ref != "none":
        codes["old"] = (str(baseline.baseline_python(args.baseline_ref)), baseline.environment())
        new = f"{args.new_ref} ({codes['new'][0]})" if args.new_ref else f"this worktree ({ROOT})"
        print(f"old: {args.baseline_ref} ({codes['old'][0]}); new: {new}", flush=True)
    runs = dict(codes)  # the leagues of a round: each code's, and new's with a bare runner
    if args.bare_runner:
        runs["bare"] = codes["new"]
    probe = CpuGroup.make("probe")
    print("CPU counted " + (f"in a cgroup of each run's own ({probe.folder.parent}): bots in the sandbox included"
                            if probe is not None else "from reaped children: sandboxed bots' CPU NOT included"),
          flush=True)
    if probe is not None:
        probe.remove()
    pinned = {code for code, (python, env) in runs.items() if args.pin_cores and pins(python, env)}
    if args.pin_cores:
        print(f"--pin-cores: {', '.join(sorted(pinned))} pinned" + ("" if pinned == set(runs) else
              "; the baseline has no --pin-cores and runs unpinned"), flush=True)
    rows = []
    for number in range(1, args.rounds + 1):
        order = list(runs) if number % 2 else list(runs)[::-1]  # old and new take turns going first
        row = {}
        with tempfile.TemporaryDirectory(prefix="floor-") as tmp:
            tmp = Path(tmp)
            for code, (python, env) in runs.items():
                seeded_home(python, tmp / f"home-{code}", env)
            leagues = {code: league_file(tmp, args.games, args.size, baseline.random_bot(python), code,
                                         args.concurrency) for code, (python, _) in runs.items()}
            if not args.leagues_only:  # the lone floor is the matches' yardstick only
                row["floor"] = minimal_referee(args.games, args.size)
            for code in [] if args.leagues_only else [code for code in order if code in codes]:
                python, env = codes[code]
                bot = str(baseline.random_bot(python))
                row[f"match {code}"] = timed([python, "-m", "hexarena", "match", bot, bot,
                                              "--size", args.size, "--games", str(args.games), "--time", "1s",
                                              "--seed", "1"], env=env, cwd=tmp)
            row["two floors"], row["cpu two floors"] = measured(
                "floors", lambda wrap: two_minimal_referees(args.games, args.size, args.concurrency, wrap, args.pin_floors))
            if args.two_matches:
                row["two matches"] = two_matches(sys.executable, args.games, args.size, tmp, None)
            for code in order:
                python, env = runs[code]
                program = [str(ROOT / "benchmarks" / "bare_runner.py")] if code == "bare" else ["-m", "hexarena"]
                command = [python, *program, "league", "run", str(leagues[code]),
                           "--home", str(tmp / f"home-{code}")] + (["--pin-cores"] if code in pinned else [])
                row[f"league {code}"], row[f"cpu league {code}"] = measured(
                    code, lambda wrap, command=command, env=env, tmp=tmp: timed(command, wrap, env=env, cwd=tmp))
        rows.append(row)
        ratios = [] if args.leagues_only else [
            f"match {c} {row[f'match {c}']:.2f} s ({row[f'match {c}'] / row['floor']:.2f}x)" for c in codes]
        ratios += [f"league {c} {row[f'league {c}']:.2f} s ({row[f'league {c}'] / row['two floors']:.2f}x, "
                   f"CPU {row[f'cpu league {c}'] / row['cpu two floors']:.2f}x)" for c in runs]
        if args.two_matches:
            ratios.append(f"two matches new {row['two matches']:.2f} s ({row['two matches'] / row['two floors']:.2f}x)")
        floor = "" if args.leagues_only else f"floor {row['floor']:.2f} s, "
        print(f"round {number}: {floor}{args.concurrency} floors side by side {row['two floors']:.2f} s; "
              + "; ".join(ratios), flush=True)
    print(f"median over {args.rounds} rounds of {args.games} games on {args.size}, league concurrency "
          f"{args.concurrency} against {args.concurrency} floors side by side:")
    kinds = (("league", "two floors"),) if args.leagues_only else (("match", "floor"), ("league", "two floors"))
    for code in runs:
        for kind, floor in kinds:
            if kind == "match" and code not in codes:
                continue
            ratios = [row[f"{kind} {code}"] / row[floor] for row in rows]
            print(f"  {kind} run {code:>3} / {floor}: {statistics.median(ratios):.2f}x "
                  f"(rounds {min(ratios):.2f}-{max(ratios):.2f})")
    for code in runs:
        ratios = [row[f"cpu league {code}"] / row["cpu two floors"] for row in rows]
        print(f"  league run {code:>3} CPU / two floors' CPU: {statistics.median(ratios):.2f}x "
              f"(rounds {min(ratios):.2f}-{max(ratios):.2f})")
    if args.two_matches:
        ratios = [row["two matches"] / row["two floors"] for row in rows]
        print(f"  two matches new / two floors: {statistics.median(ratios):.2f}x (rounds {min(ratios):.2f}-{max(ratios):.2f})")
    if args.stack_cost:
        floors = statistics.median(row["cpu two floors"] for row in rows)
        floor_imports, stack = import_cpu("zmq"), import_cpu("zmq, typer, pydantic, pandas")
        print(f"  importing typer, pydantic and pandas beside zmq: {stack:.3f} CPU s against {floor_imports:.3f} (the "
              f"floor's zmq), {(stack - floor_imports) / floors:.2f}x of the two floors' {floors:.2f} CPU s: a league "
              f"run built on them is at {1 + (stack - floor_imports) / floors:.2f}x before it plays a game")


def import_cpu(modules: str, times: int = 9) -> float:
    """The median CPU seconds of a fresh interpreter importing ``modules`` (one BLAS thread, as ``hexarena`` runs)."""
    spent = []
    for _ in range(times):
        before = children_cpu()
        subprocess.run([sys.executable, "-c", f"import {modules}"], check=True, cwd=tempfile.gettempdir(),
                       env={**os.environ, "OPENBLAS_NUM_THREADS": "1"})
        spent.append(children_cpu() - before)
    return statistics.median(spent)


if __name__ == "__main__":
    main()
