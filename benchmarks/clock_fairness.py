"""Fair clocks under load: timeouts an honest bot did not cause, and the referee's lag per move.

    python benchmarks/clock_fairness.py                         # 30/60/90 %, busy and sleeping, 1 2 4 8 at once
    python benchmarks/clock_fairness.py --moves 3000 --shares 60 --concurrency 2 8
    python benchmarks/clock_fairness.py --moves 500 --baseline-ref 23071bb   # each cell by today's code and 23071bb's
    python benchmarks/clock_fairness.py --pin-cores --baseline-ref HEAD      # pinned (new) against unpinned (old)

An honest bot spends a fixed share of each move's 200 ms (``--move-ms``) and then answers: ``busy``
spins on the CPU until its share has passed, ``sleep`` sleeps it away. Two copies of it play a league
(``hexarena league run``, unsandboxed, fault policy ``substitute`` so that a timeout costs one move,
not the game) at each concurrency, until about ``--moves`` moves are recorded. Per run:

* **timeouts**: the share of the bots' moves the referee timed out (substituted), though each bot
  answered well within its time by its own clock;
* **lag**: the referee's time for a move (TURN sent to MOVE read, as recorded) less the time the bot
  spent by its own clock, in ms: what the machine's scheduling and the transport add (median, 99th
  percentile, max).

A run at more games than cores is what ``hexarena league run`` warns about before it starts
(``leagues/running/fairness.py``). The figures depend on the machine and on what else it runs: say so.

With ``--baseline-ref REF`` every cell is run twice, by today's code and by commit REF's
(``benchmarks/baseline.py``), taking turns going first, so that a before/after comparison shares the
machine's load cell by cell; the rows say which code each is (``new``, ``old``).
"""

from __future__ import annotations

import argparse
import json
import os
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import baseline

BOT = '''"""honest: spends {share} % of {move_ms} ms a move ({kind}), then a random free line."""
import time
from hexarena.protocol.client import run_bot

SPEND = {spend!r}


def choose(game, state):
    until = time.perf_counter() + SPEND
    if {busy!r}:
        while time.perf_counter() < until:
            pass
    else:
        time.sleep(SPEND)
    return game.rng.choice(state.legal_moves())


if __name__ == "__main__":
    run_bot(choose)
'''


def honest_bots(folder: Path, share: int, kind: str, move_ms: int, python: str = sys.executable) -> list[Path]:
    bots = []
    for name in ("honest-a", "honest-b"):
        bot = folder / name
        bot.mkdir()
        (bot / "bot.py").write_text(BOT.format(share=share, move_ms=move_ms, kind=kind, spend=share * move_ms / 100_000,
                                               busy=kind == "busy"))
        (bot / "bot.toml").write_text(f'name = "{name}"\ncommand = ["{python}", "bot.py"]\nlanguage = "python"\n')
        bots.append(bot)
    return bots


def run(share: int, kind: str, concurrency: int, moves: int, move_ms: int, size: str,
        python: str = sys.executable, env: dict | None = None, pin: bool = False) -> dict:
    """One league of two honest bots, played by ``python``'s hexarena (with ``env``; ``pin``: ``--pin-cores``);
    its timeouts and lags."""
    with tempfile.TemporaryDirectory(prefix="fairness-") as tmp:
        tmp = Path(tmp)
        bots = honest_bots(tmp, share, kind, move_ms, python)
        lines = {"2x2": 19, "3x3": 38, "4x4": 63}.get(size, 63)
        games = max(2 * concurrency, -(-moves // lines))
        games += games % 2
        league = tmp / "fair.toml"
        league.write_text(f'name = "fair"\nparticipants = ["{bots[0]}", "{bots[1]}"]\ngames_per_pairing = {games}\n'
                          f'time_control = "{move_ms}ms"\nfault_policy = "substitute"\nsandbox = false\n'
                          f'concurrency = {concurrency}\n[[boards]]\nsize = "{size}"\n')
        began = time.perf_counter()
        subprocess.run([python, "-m", "hexarena", "league", "run", str(league), "--home", str(tmp / "home"),
                        "--no-sandbox", *(["--pin-cores"] if pin else [])], check=True, cwd=tmp, env=env, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL)
        seconds = time.perf_counter() - began
        with sqlite3.connect(tmp / "home" / "hexarena.db") as db:
            records = [json.loads(text) for (text,) in db.execute("SELECT record FROM games")]
    spent = share * move_ms / 100
    timed = [m for r in records for m in r["moves"] if not m.get("substituted")]
    timeouts = sum(1 for r in records for m in r["moves"] if m.get("substituted"))
    lags = sorted(m["ms"] - spent for m in timed)
    total = len(timed) + timeouts
    return {"share": share, "kind": kind, "concurrency": concurrency, "moves": total, "seconds": seconds,
            "timeouts": timeouts / max(1, total), "lag_median": statistics.median(lags) if lags else 0.0,
            "lag_p99": lags[int(0.99 * (len(lags) - 1))] if lags else 0.0, "lag_max": lags[-1] if lags else 0.0}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--moves", type=int, default=2000, help="moves recorded per run (about)")
    parser.add_argument("--shares", type=int, nargs="+", default=[30, 60, 90], help="percent of each move's time spent")
    parser.add_argument("--kinds", nargs="+", default=["busy", "sleep"], choices=["busy", "sleep"])
    parser.add_argument("--concurrency", type=int, nargs="+", default=[1, 2, 4, 8])
    parser.add_argument("--move-ms", type=int, default=200)
    parser.add_argument("--size", default="3x3", help="board (hex); smaller boards give more games per move")
    parser.add_argument("--json", action="store_true", help="one JSON line per run instead of the table")
    parser.add_argument("--baseline-ref", default="none",
                        help="also run every cell with this commit's code, alternating ('none': only today's)")
    parser.add_argument("--pin-cores", action="store_true",
                        help="today's code runs its leagues with --pin-cores (the baseline's without: with "
                             "--baseline-ref HEAD, pinned against unpinned)")
    args = parser.parse_args()
    cores = os.cpu_count() or 1
    codes = {"new": (sys.executable, baseline.this_tree())}
    if args.baseline_ref != "none":
        baseline.compiled(baseline.ROOT)
        codes["old"] = (str(baseline.baseline_python(args.baseline_ref)), baseline.environment())
    if not args.json:
        print(f"{cores} cores, {args.move_ms} ms a move, {args.size} hex; lag = referee's time less the bot's own, ms"
              + (f"; old: {args.baseline_ref}" if len(codes) > 1 else ""))
        print(f"{'spent':>6} {'kind':6} {'at once':>7} {'code':>4} {'moves':>6} {'timeouts':>9} {'lag median':>11} "
              f"{'p99':>7} {'max':>7}")
    cell = 0
    for share in args.shares:
        for kind in args.kinds:
            for concurrency in args.concurrency:
                cell += 1
                for code in list(codes) if cell % 2 else list(codes)[::-1]:  # old and new take turns going first
                    python, env = codes[code]
                    row = {**run(share, kind, concurrency, args.moves, args.move_ms, args.size, python, env,
                                 pin=args.pin_cores and code == "new"),
                           "code": code}
                    if args.json:
                        print(json.dumps(row), flush=True)
                        continue
                    print(f"{share:5d}% {kind:6} {concurrency:7d} {code:>4} {row['moves']:6d} "
                          f"{100 * row['timeouts']:8.2f}% {row['lag_median']:11.1f} {row['lag_p99']:7.1f} "
                          f"{row['lag_max']:7.1f}", flush=True)


if __name__ == "__main__":
    main()
