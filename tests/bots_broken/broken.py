"""Deliberately broken bots for the tests of hexarena check and the stdio bridge.

    python3 broken.py MODE            # speaks protocol v1 over ZeroMQ
    python3 broken.py MODE --stdio    # the same bot on the stdio bridge (lines on stdin/stdout)

Each MODE breaks one thing a bot must do (PROTOCOL.md); otherwise the bot plays random legal lines.
"""

import json
import os
import random
import sys
import time

MODES = {
    "old_version": "says HELLO v0",
    "slow_start": "takes 800 ms over its first TURN",
    "alternation": "thinks turns alternate, so it gives up when a capture gave someone an extra move",
    "no_border": "ignores the pre-drawn lines",
    "no_misere": "exits on a misère game",
    "two_players": "exits on a game of 3 or 4 players",
    "hex_only": "exits on a board of squares",
    "stale": "ignores DRAWN: knows only its own lines",
    "one_game": "exits after its first game",
    "no_quit": "ignores BYE",
    "hang": "never answers a TURN",
    "die": "exits with status 1 at its first TURN",
}


class Zmq:
    def __init__(self) -> None:
        import zmq

        self.socket = zmq.Context.instance().socket(zmq.DEALER)
        self.socket.linger = 1000
        self.socket.connect(os.environ["HEXARENA_ENDPOINT"])

    def send(self, text: str) -> None:
        self.socket.send_string(text)

    def recv(self) -> str:
        return self.socket.recv_string()


class Stdio:
    def send(self, text: str) -> None:
        print(text, flush=True)

    def recv(self) -> str:
        line = sys.stdin.readline()
        if not line:
            sys.exit("stdin closed")
        return line.rstrip("\n")


def main(mode: str, channel) -> None:
    version = "v0" if mode == "old_version" else "v1"
    channel.send(f"HELLO {version} {os.environ['HEXARENA_TOKEN']} broken-{mode}")
    turns = 0
    while True:
        text = channel.recv()
        command, _, rest = text.partition(" ")
        if command == "GAME":
            game = json.loads(rest)
            if mode == "no_misere" and game["misere"]:
                sys.exit("misère is not supported")
            if mode == "two_players" and game["players"] > 2:
                sys.exit("only two players are supported")
            if mode == "hex_only" and any(len(cell) != 6 for cell in game["cells"]):
                sys.exit("only hexagons are supported")
            free = set(range(len(game["lines"])))
            if mode != "no_border":
                free -= set(game["predrawn"])
            seat, players, drawn = game["seat"], game["players"], 0
            rng = random.Random(game["seed"])
        elif command == "DRAWN":
            drawn += 1
            if mode != "stale":
                free.discard(int(rest.split()[1]))
        elif command == "TURN":
            turns += 1
            if mode == "hang":
                time.sleep(3600)
            if mode == "die":
                sys.exit(1)
            if mode == "slow_start" and turns == 1:
                time.sleep(0.8)
            if mode == "alternation" and drawn % players != seat:
                sys.exit("TURN out of turn")
            line = rng.choice(sorted(free))
            free.discard(line)
            channel.send(f"MOVE {rest.split()[0]} {line}")
        elif command == "END" and mode == "one_game":
            sys.exit(0)
        elif command == "BYE":
            if mode == "no_quit":
                time.sleep(3600)
            return


if __name__ == "__main__":
    main(sys.argv[1], Stdio() if "--stdio" in sys.argv else Zmq())
