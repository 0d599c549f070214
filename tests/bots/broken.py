"""A deliberately broken bot for the referee's tests: ``python3 ../broken.py FAULT`` from a folder here.

It plays random lines, and commits FAULT at its first TURN of any game whose id starts
with "fault", so the test can check that the same bot, restarted, plays the next game.
``no_connection`` sleeps instead of connecting (only on its first launch when
BROKEN_MARKER names a file it can create, or is "launched"); ``trickle`` floods slowly; ``spawner`` never faults but starts children that
try to outlive it; ``second_hello`` says HELLO again before its MOVE; ``chatty_end`` writes a
line on stderr after each END. With BROKEN_PIDS set, the bot writes its pid (and its children's) there
if it can (in the sandbox it cannot, and its pids are its namespace's: tests find a bot's processes by
the BROKEN_PIDS value in their environment).
"""

import contextlib
import os
import subprocess
import sys
import time
from pathlib import Path

from hexarena.protocol import codec
from hexarena.protocol.client import Connection, play


def first_launch(marker: str | None) -> bool:
    if marker is None:
        return True
    if marker == "launched" or Path(marker).exists():
        return False
    with contextlib.suppress(OSError):  # the sandbox's filesystem is read-only: the test says "launched"
        Path(marker).touch()
    return True


def spawn_children(pid_file: str) -> None:
    """A child, a grandchild orphaned to init, and a child in its own process group."""
    children = [
        subprocess.Popen(["sleep", "300"]),
        subprocess.Popen(["sh", "-c", "sleep 300 & echo $!"], stdout=subprocess.PIPE, text=True),
        subprocess.Popen(["sleep", "301"], process_group=0),
    ]
    orphan = children[1].stdout.readline().strip()
    children[1].wait()
    pids = [os.getpid(), children[0].pid, int(orphan), children[2].pid]
    with contextlib.suppress(OSError):
        Path(pid_file).write_text(" ".join(map(str, pids)))


def main(fault: str) -> None:
    if fault == "no_connection" and first_launch(os.environ.get("BROKEN_MARKER")):
        time.sleep(600)
    connection = Connection(os.environ["HEXARENA_ENDPOINT"])
    connection.hello(os.environ["HEXARENA_TOKEN"], f"broken-{fault}")
    if fault == "spawner":
        spawn_children(os.environ["BROKEN_PIDS"])
    elif "BROKEN_PIDS" in os.environ:
        with contextlib.suppress(OSError):
            Path(os.environ["BROKEN_PIDS"]).write_text(str(os.getpid()))
    print(f"broken bot ready to commit {fault}", file=sys.stderr, flush=True)

    flooded = set()

    def choose(game, state) -> int:
        line = game.rng.choice(state.legal_moves())
        if not game.id.startswith("fault"):
            return line
        if fault == "crashed":
            raise SystemExit("deliberate crash")
        if fault == "timeout":
            time.sleep(600)
        if fault == "illegal_line":
            return len(game.board.lines) + 5
        if fault == "malformed_message":
            connection.socket.send_string(f"MOVE {game.clock.id} banana")
        if fault == "flood" and game.id not in flooded:  # once a game: the answer, then 200 copies
            flooded.add(game.id)
            for _ in range(200):
                connection.send(codec.Move(game.clock.id, line))
        if fault == "trickle" and game.id not in flooded:  # the answer, then 150 copies spread over ~0.2 s, so
            flooded.add(game.id)  # the referee reads them as they come and its inbox never holds 100 at once
            connection.send(codec.Move(game.clock.id, line))
            for _ in range(150):
                time.sleep(0.001)
                connection.send(codec.Move(game.clock.id, line))
        if fault == "wrong_request":
            connection.send(codec.Move(game.clock.id + 1000, line))
        if fault == "second_hello":  # §3.3: dropped and logged, the game goes on
            connection.send(codec.Hello(codec.VERSION, os.environ["HEXARENA_TOKEN"], "again"))
        return line

    def on_end(game, end) -> None:  # what a bot writes in answer to END belongs to that game's log
        if fault == "chatty_end":
            print(f"chatty_end: {game.id} ended {end.termination}", file=sys.stderr, flush=True)

    play(connection, choose, on_end)


if __name__ == "__main__":
    main(sys.argv[1])
