"""The referee's cost per move against a raw pyzmq ROUTER/DEALER ping-pong, measured in the same run.

    python3 benchmarks/referee_overhead.py [--games 200] [--pings 5000]

1. Raw: this script as a child process echoes over ipc with a DEALER; the parent is a ROUTER
   waiting with a poller timeout (as the referee does). Result: µs per round trip.
2. Referee: random vs random on 4x4 hexagons, bots kept running across games, 1 s per move.
   Results: the TURN → MOVE time the referee records (one round trip plus the bot's parsing and
   choice), the wall time per move with everything (DRAWN to both bots, rules, records, the
   start and end of each game) and the referee's own CPU per move; games per second.
The ratios compare (2) with (1) from the same run; on a loaded machine the means carry its tail.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import zmq

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


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


def referee_games(games: int) -> tuple[float, float, list[float]]:
    """(wall seconds, referee CPU seconds, think seconds per move) for ``games`` random-vs-random 4x4 games."""
    from referee.clock import TimeControl
    from referee.local import BotSpec
    from referee.record import BoardConfig
    from referee.referee import Referee

    random_bot = BotSpec("random", ROOT / "bots" / "random")
    config = BoardConfig(size="4x4")
    with Referee(time_control=TimeControl.parse("1s")) as referee:
        referee.play([random_bot, random_bot], config, game_id="warm-up", seed=0)  # start the bots
        thinks = []
        wall, cpu = time.perf_counter(), time.process_time()
        for number in range(games):
            record = referee.play([random_bot, random_bot], config, game_id=f"g{number}", seed=number)
            thinks += [move.ms / 1000 for move in record.moves]
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    return wall, cpu, thinks


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--pings", type=int, default=5000)
    parser.add_argument("--echo", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.echo:
        echo(args.echo)
        return
    raw = raw_round_trip(args.pings)
    wall, cpu, thinks = referee_games(args.games)
    moves = len(thinks)
    raw_us, raw_mean_us = statistics.median(raw) * 1e6, statistics.fmean(raw) * 1e6
    turn_us, turn_mean_us = statistics.median(thinks) * 1e6, statistics.fmean(thinks) * 1e6
    per_move_us = wall / moves * 1e6
    print(f"raw ROUTER/DEALER round trip over ipc:  median {raw_us:.0f} µs, mean {raw_mean_us:.0f} µs "
          f"({args.pings} pings)")
    print(f"referee TURN -> MOVE, random bot, 4x4:  median {turn_us:.0f} µs, mean {turn_mean_us:.0f} µs "
          f"({moves} moves)")
    print(f"referee per move, all included (wall):  {per_move_us:.0f} µs, of which referee CPU "
          f"{cpu / moves * 1e6:.0f} µs")
    print(f"ratio TURN->MOVE / raw round trip:      {turn_us / raw_us:.2f}x (median), "
          f"{turn_mean_us / raw_mean_us:.2f}x (mean)")
    print(f"ratio wall per move / raw round trip:   {per_move_us / raw_mean_us:.2f}x (vs mean)")
    print(f"games per second (bots kept running):   {args.games / wall:.1f}")


if __name__ == "__main__":
    main()
