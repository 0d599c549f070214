"""The referee's cost per move against a raw pyzmq ROUTER/DEALER ping-pong, measured in the same run.

    python3 benchmarks/referee_overhead.py [--games 200] [--pings 5000] [--rounds 3] [--baseline-ref a0255e8]

1. Raw: this script as a child process echoes over ipc with a DEALER; the parent is a ROUTER
   waiting with a poller timeout (as the referee does). Result: µs per round trip.
2. Referee: random vs random on 4x4 hexagons, bots kept running across games, 1 s per move.
   Results: the TURN → MOVE time the referee records (one round trip plus the bot's parsing and
   choice), the wall time per move with everything (DRAWN to both bots, rules, records, the
   start and end of each game) and the referee's own CPU per move (its process: the game loop's thread and
   libzmq's I/O thread, which does the socket writes and reads; the first is shown as "main"); games per second.
The ratios compare (2) with (1) from the same run; on a loaded machine the means carry its tail.
(2) runs in child processes, today's code and the ``--baseline-ref`` commit's (``benchmarks/baseline.py``)
taking turns, so old and new are measured in one run. Where the referee can put bots in cgroups
(``referee/cgroups.py``), today's code runs twice a round: with them ("new") and with the watchdog
instead ("watchdog": the cgroup root pointed at a folder that is not one).
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import baseline
import zmq


ROOT = Path(__file__).resolve().parent.parent


def echo(endpoint: str) -> None:
    """The child of the raw measurement: answer every message with itself until "stop"."""
    socket = zmq.Context.instance().socket(zmq.DEALER)
    socket.connect(endpoint)
    socket.send(b"ready")
    while (message := socket.recv()) != b"stop":
        socket.send(message)
    socket.close(linger=1000)


def raw_round_trip(pings: int) -> list[float]:
    """Seconds per round trip, one sample per ping."""
    with tempfile.TemporaryDirectory() as folder:
        endpoint = f"ipc://{folder}/raw.sock"
        router = zmq.Context.instance().socket(zmq.ROUTER)
        router.bind(endpoint)
        child = subprocess.Popen([sys.executable, __file__, "--echo", endpoint])
        poller = zmq.Poller()
        poller.register(router, zmq.POLLIN)
        peer, _ = router.recv_multipart()
        samples = []
        for number in range(pings):
            message = b"TURN %d 1000 1000" % number
            start = time.perf_counter()
            router.send_multipart((peer, message))
            poller.poll(1000)
            router.recv_multipart(zmq.NOBLOCK)
            samples.append(time.perf_counter() - start)
        router.send_multipart((peer, b"stop"))
        child.wait(10)
        router.close(linger=0)
    return samples


def referee_games(games: int) -> tuple[float, float, float, list[float]]:
    """(wall seconds, referee CPU seconds, of which its main thread's, think seconds per move) for ``games``
    random-vs-random 4x4 games."""
    try:  # the code under test: hexarena.* since the one import name; the baseline's may be older
        from hexarena import bots
        from hexarena.referee.clock import TimeControl
        from hexarena.referee.record import BoardConfig
        from hexarena.referee.referee import Referee
        from hexarena.referee.seats.process import BotSpec
    except ImportError:
        import bots
        from referee.clock import TimeControl
        from referee.local import BotSpec
        from referee.record import BoardConfig
        from referee.referee import Referee

    random_bot = BotSpec("random", Path(bots.__file__).parent / "random")  # the random bot of the code under test
    config = BoardConfig(size="4x4")
    with Referee(time_control=TimeControl.parse("1s")) as referee:
        referee.play([random_bot, random_bot], config, game_id="warm-up", seed=0)  # start the bots
        thinks = []
        wall, cpu, main = time.perf_counter(), time.process_time(), time.thread_time()
        for number in range(games):
            record = referee.play([random_bot, random_bot], config, game_id=f"g{number}", seed=number)
            thinks += [move.ms / 1000 for move in record.moves]
        wall, cpu, main = time.perf_counter() - wall, time.process_time() - cpu, time.thread_time() - main
    return wall, cpu, main, thinks


def measured(python: str, games: int, env: dict | None = None, mode: str = "--referee-json") -> dict:
    """``referee_games`` in a child process of ``python`` (whose imports decide which code runs)."""
    done = subprocess.run([python, __file__, mode, "--games", str(games)], check=True, env=env,
                          capture_output=True, text=True)
    return json.loads(done.stdout)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--pings", type=int, default=5000)
    parser.add_argument("--rounds", type=int, default=3, help="old and new, taking turns going first")
    parser.add_argument("--baseline-ref", default=baseline.DEFAULT_REF,
                        help="also measure this commit's referee in every round ('none': only today's)")
    parser.add_argument("--echo", help=argparse.SUPPRESS)
    parser.add_argument("--referee-json", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--floor-json", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.echo:
        echo(args.echo)
        return
    if args.floor_json:  # the minimal referee's own CPU (benchmarks/floor.py), the same games
        import floor

        from hexarena.protocol.board import make_board

        cpu, main = time.process_time(), time.thread_time()
        wall = floor.minimal_referee(args.games, "4x4")
        moves = args.games * len(make_board("4x4", "hex").lines)  # every line is drawn: no faults
        print(json.dumps({"wall": wall, "cpu": time.process_time() - cpu, "main": time.thread_time() - main,
                          "moves": moves}))
        return
    if args.referee_json:
        wall, cpu, main, thinks = referee_games(args.games)
        print(json.dumps({"wall": wall, "cpu": cpu, "main": main, "moves": len(thinks),
                          "turn_median": statistics.median(thinks),
                          "turn_mean": statistics.fmean(thinks)}))
        return
    codes = {"new": (sys.executable, baseline.this_tree())}  # this checkout, wherever the install points
    from hexarena.referee import cgroups

    if cgroups.backend() is not None:  # today's code with each whole-bot backend: the cgroup, and the watchdog
        print(f"new: bots in {cgroups.backend().version} cgroups; watchdog: today's code, cgroups out of reach "
              f"({cgroups.ROOT_ENV}=/nonexistent)")
        codes["watchdog"] = (sys.executable, {**baseline.this_tree(), cgroups.ROOT_ENV: "/nonexistent"})
    if args.baseline_ref != "none":
        codes["old"] = (str(baseline.baseline_python(args.baseline_ref)), baseline.environment())
        print(f"old: {args.baseline_ref} ({codes['old'][0]}); new: this worktree ({ROOT})")
    raw = raw_round_trip(args.pings)
    raw_us, raw_mean_us = statistics.median(raw) * 1e6, statistics.fmean(raw) * 1e6
    print(f"raw ROUTER/DEALER round trip over ipc:  median {raw_us:.0f} µs, mean {raw_mean_us:.0f} µs "
          f"({args.pings} pings)")
    runs: dict[str, list[dict]] = {code: [] for code in codes}
    floors = []
    for number in range(1, args.rounds + 1):
        floors.append(measured(sys.executable, args.games, mode="--floor-json"))
        print(f"round {number} floor: referee CPU {floors[-1]['cpu'] / floors[-1]['moves'] * 1e6:.0f} µs/move "
              f"(main {floors[-1]['main'] / floors[-1]['moves'] * 1e6:.0f})", flush=True)
        for code in (list(codes) if number % 2 else list(codes)[::-1]):
            python, env = codes[code]
            run = measured(python, args.games, env)
            runs[code].append(run)
            print(f"round {number} {code}: referee CPU {run['cpu'] / run['moves'] * 1e6:.0f} µs/move "
                  f"(main {run['main'] / run['moves'] * 1e6:.0f}), wall "
                  f"{run['wall'] / run['moves'] * 1e6:.0f} µs/move, TURN->MOVE median {run['turn_median'] * 1e6:.0f} µs, "
                  f"{args.games / run['wall']:.1f} games/s", flush=True)
    runs["floor"] = floors
    cpu = {code: [r["cpu"] / r["moves"] * 1e6 for r in rs] for code, rs in runs.items()}
    wall = {code: [r["wall"] / r["moves"] * 1e6 for r in rs] for code, rs in runs.items()}
    for code in runs:
        print(f"median {code}: referee CPU {statistics.median(cpu[code]):.0f} µs/move, wall "
              f"{statistics.median(wall[code]):.0f} µs/move ({statistics.median(wall[code]) / raw_mean_us:.2f}x the raw "
              "mean round trip)")
    others = [code for code in ("old", "watchdog", "floor") if code in runs]
    turn = {code: [r["turn_median"] for r in rs] for code, rs in runs.items() if code != "floor"}
    for other in others:  # ratios within a round (the same minute of a shared machine), then their median
        for mine in [code for code in ("new", "watchdog") if code in runs and code != other]:
            ratios = [new / old for new, old in zip(cpu[mine], cpu[other])]
            print(f"referee CPU per move {mine} / {other}: {statistics.median(ratios):.2f}x (rounds "
                  f"{min(ratios):.2f}-{max(ratios):.2f}; {args.rounds} rounds of {args.games} games)")
            if other in turn:
                ratios = [new / old for new, old in zip(turn[mine], turn[other])]
                print(f"TURN->MOVE median {mine} / {other}: {statistics.median(ratios):.2f}x")
    if "old" in runs:
        ratios = [floor / old for floor, old in zip(cpu["floor"], cpu["old"])]
        print(f"referee CPU per move floor / old: {statistics.median(ratios):.2f}x")


if __name__ == "__main__":
    main()
