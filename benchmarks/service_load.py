"""hexarena serve on loopback: upload-to-first-game latency, and requests/s of the standings endpoint.

    python3 benchmarks/service_load.py [--seconds 10] [--threads 4]

Starts ``hexarena serve`` (a real process, a fresh workspace in a temp folder, one league of random, greedy
and the uploaded bot on 2x2) and measures from this process:

1. upload → first game: the league plays "all" active bots (random and greedy, the other reference bots retired);
   an author uploads a bot (POST /api/bots, a .tar.gz of bots/random renamed); the time
   until the answer (build and conformance check in the sandbox), then until the league has stored the new
   bot's first game (polled every 10 ms at /api/leagues/NAME/games?bot=...); three uploads, each a new bot.
2. standings: ``--threads`` threads, each on one keep-alive connection (http.client), GET the standings
   for ``--seconds``; requests/s overall and the median and 99th percentile latency. The server caches the
   standings per change of the league's games, so this is the steady state between games.

Bounded: every loop stops by time or count; only 127.0.0.1 is contacted; the server is killed at the end.
"""

from __future__ import annotations

import argparse
import http.client
import json
import secrets
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from hexarena.leagues.registry import authors, uploads
from hexarena.leagues.registry.catalog import list_bots, retire
from hexarena.leagues.registry.submit import ensure_reference_bots
from hexarena.leagues.workspace.home import Workspace

LEAGUE = """name = "bench"
participants = ["all"]
games_per_pairing = 2
time_control = "200ms,margin=200ms"
[[boards]]
size = "2x2"
"""


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def get(url: str) -> dict:
    with urllib.request.urlopen(url, timeout=30) as response:
        return json.loads(response.read())


def upload(url: str, token: str, archive: bytes) -> int:
    boundary = secrets.token_hex(8)
    body = (f"--{boundary}\r\nContent-Disposition: form-data; name=\"file\"; filename=\"bot.tar.gz\"\r\n\r\n"
            ).encode() + archive + f"\r\n--{boundary}--\r\n".encode()
    request = urllib.request.Request(url + "/api/bots", data=body, method="POST", headers={
        "Authorization": f"Bearer {token}", "Content-Type": f"multipart/form-data; boundary={boundary}"})
    with urllib.request.urlopen(request, timeout=300) as response:
        return response.status


def bot_archive(scratch: Path, name: str) -> bytes:
    folder = scratch / name
    shutil.copytree(ROOT / "bots" / "random", folder)
    manifest = folder / "bot.toml"
    manifest.write_text(manifest.read_text().replace('name = "random"', f'name = "{name}"'))
    return uploads.pack(folder)


def first_game_latency(url: str, token: str, scratch: Path, name: str) -> tuple[float, float]:
    archive = bot_archive(scratch, name)
    began = time.perf_counter()
    assert upload(url, token, archive) == 201
    answered = time.perf_counter()
    deadline = answered + 120
    while time.perf_counter() < deadline:
        if get(f"{url}/api/leagues/bench/games?bot={name}&limit=1")["total"]:
            return answered - began, time.perf_counter() - began
        time.sleep(0.01)
    raise SystemExit(f"{name}: no game within 120 s of its upload")


def hammer(port: int, seconds: float, latencies: list[float], errors: list[str]) -> None:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    stop = time.perf_counter() + seconds
    while time.perf_counter() < stop:
        began = time.perf_counter()
        connection.request("GET", "/api/leagues/bench/standings")
        response = connection.getresponse()
        response.read()
        if response.status != 200:
            errors.append(str(response.status))
        latencies.append(time.perf_counter() - began)
    connection.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--threads", type=int, default=4)
    args = parser.parse_args()
    scratch = Path(tempfile.mkdtemp(prefix="hexarena-bench-"))
    home = scratch / "home"
    names = ["bench-a", "bench-b", "bench-c"]
    with Workspace(home) as ws:  # "all" active bots: random, greedy and each uploaded one (the others retired)
        token = authors.add(ws, "bench")
        ensure_reference_bots(ws)
        for info in list_bots(ws):
            if info.name not in ("random", "greedy"):
                retire(ws, info.name)
    (scratch / "bench.toml").write_text(LEAGUE)
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    with open(scratch / "serve.log", "wb") as log:
        server = subprocess.Popen([shutil.which("hexarena") or "hexarena", "serve", "--home", str(home), "--port",
                                   str(port), "--league", str(scratch / "bench.toml")],
                                  stderr=log, stdout=subprocess.DEVNULL, start_new_session=True)
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                get(url + "/api/queue")
                break
            except OSError:
                if time.monotonic() > deadline or server.poll() is not None:
                    raise SystemExit((scratch / "serve.log").read_text()) from None
                time.sleep(0.1)
        while get(url + "/api/queue")[0]["state"] != "idle":  # random vs greedy first
            time.sleep(0.05)
        print("upload -> first game (each a new bot; the league then plans and plays its games):")
        for name in names:
            answered, first = first_game_latency(url, token, scratch, name)
            print(f"  {name}: answer (build + check) {answered * 1000:.0f} ms, its first game stored "
                  f"{first * 1000:.0f} ms after the upload began")
            while get(url + "/api/queue")[0]["state"] != "idle":
                time.sleep(0.05)
        latencies: list[float] = []
        errors: list[str] = []
        threads = [threading.Thread(target=hammer, args=(port, args.seconds, latencies, errors))
                   for _ in range(args.threads)]
        began = time.perf_counter()
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        elapsed = time.perf_counter() - began
        latencies.sort()
        print(f"standings: {len(latencies)} requests in {elapsed:.1f} s from {args.threads} keep-alive connections: "
              f"{len(latencies) / elapsed:.0f} requests/s, median {statistics.median(latencies) * 1000:.1f} ms, "
              f"p99 {latencies[int(0.99 * (len(latencies) - 1))] * 1000:.1f} ms, {len(errors)} errors")
    finally:
        server.send_signal(signal.SIGTERM)
        try:
            server.wait(timeout=20)
        except subprocess.TimeoutExpired:
            server.kill()
        shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    main()
