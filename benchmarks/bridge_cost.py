"""What the stdio bridge costs per move: the same Python bot natively on ZeroMQ and on the bridge, one run.

    python3 benchmarks/bridge_cost.py [--games 40] [--size 4x4]

Both bots are one script (lowest free line, no thinking), so the difference between the
referee-measured reply times (TURN sent → MOVE received, as charged to the bot's clock)
is the bridge: a pipe each way plus the relay thread's hop onto the DEALER socket.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import textwrap
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from hexarena.referee.clock import TimeControl
from hexarena.referee.seats.process import BotSpec
from hexarena.referee.record import BoardConfig
from hexarena.referee.referee import Referee

BOT = textwrap.dedent('''
    import json, os, sys
    stdio = "--stdio" in sys.argv
    if stdio:
        send = lambda text: (sys.stdout.write(text + "\\n"), sys.stdout.flush())
        recv = lambda: sys.stdin.readline().rstrip("\\n")
    else:
        import zmq
        socket = zmq.Context().socket(zmq.DEALER)
        socket.connect(os.environ["HEXARENA_ENDPOINT"])
        send, recv = socket.send_string, socket.recv_string
    send("HELLO v1 " + os.environ["HEXARENA_TOKEN"])
    while True:
        command, _, rest = recv().partition(" ")
        if command == "GAME":
            game = json.loads(rest)
            free = sorted(set(range(len(game["lines"]))) - set(game["predrawn"]))
        elif command == "DRAWN":
            free.remove(int(rest.split()[1]))
        elif command == "TURN":
            send(f"MOVE {rest.split()[0]} {free[0]}")
        elif command == "BYE":
            break
''')


def make_bots(folder: Path) -> tuple[BotSpec, BotSpec]:
    (folder / "bot.py").write_text(BOT)
    specs = []
    for name, extra in (("native", ""), ("bridged", 'transport = "stdio"\n')):
        (folder / name).mkdir()
        args = '"python3", "../bot.py"' + (', "--stdio"' if extra else "")
        (folder / name / "bot.toml").write_text(f'name = "{name}"\ncommand = [{args}]\n{extra}')
        specs.append(BotSpec(name, folder / name))
    return specs[0], specs[1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=40)
    parser.add_argument("--size", default="4x4")
    args = parser.parse_args()
    config = BoardConfig(size=args.size)
    with tempfile.TemporaryDirectory(prefix="bridge-cost-") as tmp:
        native, bridged = make_bots(Path(tmp))
        times: dict[str, list[float]] = {"native": [], "bridged": []}
        with Referee(time_control=TimeControl.parse("1s")) as referee:
            for number in range(args.games):  # interleaved, so both see the same machine load
                record = referee.play([native, bridged], config, game_id=f"g{number}", seed=number)
                assert record.result.termination == "completed", record.result
                for move in record.moves:
                    times[record.seats[move.seat]].append(move.ms)
    median = {name: statistics.median(values) for name, values in times.items()}
    p90 = {name: statistics.quantiles(values, n=10)[-1] for name, values in times.items()}
    for name in ("native", "bridged"):
        print(f"{name:8} {len(times[name]):6} moves  median {1000 * median[name]:7.1f} µs  p90 {1000 * p90[name]:7.1f} µs")
    print(f"bridge cost per move: +{1000 * (median['bridged'] - median['native']):.1f} µs, "
          f"ratio bridged/native {median['bridged'] / median['native']:.2f}x (medians, one run)")


if __name__ == "__main__":
    main()
