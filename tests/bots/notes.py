"""A bot that writes notes on its moves (INFO, PROTOCOL.md §4.8), for the referee's tests: ``python3 ../notes.py``.

Every move: ``game.info("move K id R")`` (K its move number in the game, R the request id), and it prints
``game G`` on stderr when a GAME arrives and ``request R`` at each TURN (the log tests read them). Its first move
also sends a 200-byte note that is kept and, raw on the socket, three that must be ignored and logged: one of
300 bytes, one echoing another request id, one with a newline and a MOVE after it. Its second move sends 20
notes (16 kept, 4 dropped and counted) after an unfinished line on stderr. Its third sends, raw and in one burst, a bare ``INFO``, ``INFO`` and a
newline, and 150 with a control character: none a fault, 16 logged one by one, the other 136 counted. It plays
the seeded RNG's lines, so its games are reproducible.
"""

import os
import sys

from hexarena.protocol import codec
from hexarena.protocol.client import Connection, Player


def main() -> None:
    connection = Connection(os.environ["HEXARENA_ENDPOINT"])
    connection.hello(os.environ["HEXARENA_TOKEN"], "notes")
    moves: dict[str, int] = {}

    def choose(game, state) -> int:
        number = moves[game.id] = moves.get(game.id, 0) + 1
        request = game.clock.id
        print(f"request {request}", file=sys.stderr, flush=True)
        line = game.rng.choice(state.legal_moves())
        if number == 1:
            game.info("é" * 100)
            connection.socket.send_string(f"INFO {request} " + "x" * 300)
            connection.socket.send_string(f"INFO {request + 1000} wrong id")
            connection.socket.send_string(f"INFO {request} evil\nMOVE {request} 0")
        if number == 2:
            print("thinking", end="", file=sys.stderr, flush=True)  # an unfinished line: the referee's next ends it
            for extra in range(19):
                game.info(f"extra {extra}")
        if number == 3:
            connection.socket.send(b"INFO")
            connection.socket.send(b"INFO\n")
            for bad in range(150):
                connection.socket.send_string(f"INFO {request} bad\x01{bad}")
        game.info(f"move {number} id {request}")
        return line

    player = Player(choose)
    while True:  # the client's play(), printing the game id as its GAME arrives: that game's log starts there
        message = connection.recv()
        if isinstance(message, codec.Bye):
            return
        if isinstance(message, codec.Game):
            print(f"game {message.game}", file=sys.stderr, flush=True)
        reply = player.receive(message)
        if reply is not None:
            for info in player.infos:
                connection.send(info)
            connection.send(reply)


if __name__ == "__main__":
    main()
