"""The same league on the local executor and on a Dask cluster of the same cores, in one run.

    python3 benchmarks/cluster.py                    # 4 bots, 3x3 and 4x4 hexagons, 12 games a pairing
    python3 benchmarks/cluster.py --games 20 --cores 2 --rounds 3

Local: ``run_league`` at concurrency = cores (threads, one Referee each). Cluster: ``dask scheduler``
and two ``dask worker`` processes on 127.0.0.1 (cores/2 threads and seats each), the league played
through ``DaskExecutor``. Each round plays the league afresh in a new workspace on both, alternating;
games/s side by side, their ratio per round, and the per-task overhead two ways:

    round trip   a no-op task with resources={"seat": 2}, submitted and awaited one at a time
    in league    (cluster wall × task slots − Σ worker seconds in tasks) / tasks: what a task slot spends
                 not playing (setup: packing and fetching the bots; scheduling, transfer, storing, the idle tail)

Both sides play ``cores`` games at once: locally ``cores`` threads; on the cluster each worker has
cores/2 threads and seat=cores (a 2-player task takes 2 seats), so cores/2 tasks run on each.
"""

from __future__ import annotations

import argparse
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LOOPBACK = "127.0.0.1"


def league_text(games: int) -> str:
    return (f'name = "bench"\nparticipants = ["greedy", "random", "greedy2", "random2"]\ntime_control = "5s"\n'
            f'games_per_pairing = {games}\nseed = 1\n\n[[boards]]\nsize = "3x3"\n\n[[boards]]\nsize = "4x4"\n')


def workspace(home: Path):
    from hexarena.leagues.registry.submit import ensure_reference_bots, submit
    from hexarena.leagues.workspace.home import Workspace

    ws = Workspace(home)
    ensure_reference_bots(ws, bots_dir=home / "none")
    for name in ("greedy", "random", "greedy2", "random2"):
        folder = home.parent / f"src-{home.name}" / name
        shutil.copytree(ROOT / "bots" / name.rstrip("2"), folder, ignore=shutil.ignore_patterns("__pycache__"))
        manifest = folder / "bot.toml"
        manifest.write_text(manifest.read_text().replace(f'name = "{name.rstrip("2")}"', f'name = "{name}"'))
        submit(ws, folder, check=False)
    return ws


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind((LOOPBACK, 0))
        return probe.getsockname()[1]


def noop() -> None:
    return None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=12, help="games per pairing and board (even)")
    parser.add_argument("--cores", type=int, default=2, help="seats in all (local concurrency; 2 workers share them)")
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()

    import distributed

    from hexarena.leagues.schedule.config import parse_league
    from hexarena.leagues.running.executors.dask_driver import DaskExecutor
    from hexarena.leagues.running.runner import league_settings, run_league

    league = parse_league(league_text(args.games))
    scratch = Path(tempfile.mkdtemp(prefix="hexarena-bench-cluster-"))
    os.environ["HEXARENA_BOT_CACHE"] = str(scratch / "cache")
    port = free_port()
    address = f"tcp://{LOOPBACK}:{port}"
    per_worker = max(1, args.cores // 2)
    spawned = []
    try:
        spawned.append(subprocess.Popen(["dask", "scheduler", "--host", LOOPBACK, "--port", str(port),
                                         "--no-dashboard"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
        for _ in range(2):
            spawned.append(subprocess.Popen(
                ["dask", "worker", address, "--host", LOOPBACK, "--nthreads", str(per_worker), "--resources",
                 f"seat={2 * per_worker}", "--no-nanny", "--no-dashboard"],
                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
        with distributed.Client(address, timeout=30) as client:
            client.wait_for_workers(2, timeout=60)
            trips = []
            for _ in range(50):
                started = time.perf_counter()
                client.submit(noop, resources={"seat": 2}, pure=False).result()
                trips.append(time.perf_counter() - started)
        rows = []
        for number in range(args.rounds):
            ws = workspace(scratch / f"local-{number}")
            started = time.perf_counter()
            local = run_league(ws, league, concurrency=args.cores, progress=False)
            local_wall = time.perf_counter() - started
            ws.close()
            ws = workspace(scratch / f"cluster-{number}")
            executor = DaskExecutor(address, replace(league_settings(ws, league), log_dir=ws.logs_dir / "bench"))
            started = time.perf_counter()
            remote = run_league(ws, league, progress=False, executor=executor)
            cluster_wall = time.perf_counter() - started
            executor.close()
            ws.close()
            assert local.played == remote.played == local.total, (local, remote)
            slots = 2 * per_worker  # seat-cycle tasks at once on the cluster: as many as local games at once
            overhead = (cluster_wall * slots - executor.busy) / executor.tasks
            rows.append((local.played / local_wall, remote.played / cluster_wall, overhead))
            print(f"round {number + 1}: {local.played} games, {executor.tasks} tasks: local {rows[-1][0]:.1f} games/s, "
                  f"cluster {rows[-1][1]:.1f} games/s, ratio cluster/local {rows[-1][1] / rows[-1][0]:.2f}, "
                  f"overhead in league {1000 * overhead:.1f} ms/task")
    finally:
        for process in reversed(spawned):
            if process.poll() is None:
                process.kill()
            process.wait(timeout=10)
        shutil.rmtree(scratch, ignore_errors=True)
    median = statistics.median
    print(f"median of {args.rounds}: local {median(r[0] for r in rows):.1f} games/s, cluster "
          f"{median(r[1] for r in rows):.1f} games/s, ratio {median(r[1] / r[0] for r in rows):.2f}; "
          f"per-task overhead: round trip of a no-op task {1000 * median(trips):.1f} ms, "
          f"in league {1000 * median(r[2] for r in rows):.1f} ms ({os.cpu_count()} cores here, {args.cores} used)",
          file=sys.stdout)


if __name__ == "__main__":
    main()
