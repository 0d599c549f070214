"""Benchmark: adaptive pairing against the round robin on real bot processes, a field of known graded strength.

    nice -n 10 python benchmarks/field_real.py [--bots 16] [--cycles 2] [--board 3x3] [--concurrency 2]

The field: ``--bots`` copies of one bot, each a folder of its own (so a version of its own) that plays the
reference ``greedy`` move (take a cell, else a line that gives none away, else any) except with its own
blunder rate, when it draws any free line at random (from the game's seeded generator): rates 0, 1/(n − 1),
..., 1, so the true order is known (a lower rate is stronger) and neighbouring bots are close.

Three leagues of ``hexarena league run``'s own runner in one fresh workspace, each with its own seed: two
round robins (``--cycles`` seat-swapped pairs a pairing: round robin A and B) and an adaptive league
stopped at the same number of games (``league_budget``; no per-bot budget). Each league's final order is
its Bradley–Terry ratings (``hexarena.leagues.results.ratings``, as ``league table`` shows them). Reported:
Spearman's ρ and Kendall's τ between each two orders and against the true one; the goal of issue 27 is that
adaptive agrees with a round robin as well as the two round robins agree with each other.
"""

from __future__ import annotations

import argparse
import itertools
import os
import tempfile
import time
from pathlib import Path

import numpy as np

from hexarena.leagues.registry.reference import REFERENCE_AUTHOR
from hexarena.leagues.registry.submit import ensure_reference_bots, submit
from hexarena.leagues.results import store
from hexarena.leagues.results.ratings import ratings
from hexarena.leagues.running.runner import run_league
from hexarena.leagues.schedule.config import parse_league
from hexarena.leagues.workspace.home import Workspace

BOT = '''"""A greedy bot that blunders: with probability BLUNDER a random free line (benchmarks/field_real.py)."""

from hexarena.bots.greedy.bot import choose as greedy
from hexarena.protocol.client import run_bot

BLUNDER = {rate!r}


def choose(game, state) -> int:
    if game.rng.random() < BLUNDER:
        return game.rng.choice(state.legal_moves())
    return greedy(game, state)


if __name__ == "__main__":
    run_bot(choose)
'''


def make_field(root: Path, ws: Workspace, n: int) -> dict[str, float]:
    """n bot folders under root, registered in ws: name → blunder rate."""
    rates = {}
    for k in range(n):
        name, rate = f"blunder{k:02d}", round(k / (n - 1), 4)
        folder = root / name
        folder.mkdir(parents=True)
        (folder / "bot.py").write_text(BOT.format(rate=rate))
        (folder / "bot.toml").write_text(f'name = "{name}"\ncommand = ["python3", "bot.py"]\nlanguage = "python"\n'
                                         f'author = "bench"\ndescription = "greedy, a random line {rate:.0%} of moves"\n')
        assert submit(ws, folder, check=False, author=REFERENCE_AUTHOR).accepted, name
        rates[name] = rate
    return rates


def league_file(name: str, bots: list[str], board: str, seed: int, cycles: int, concurrency: int,
                adaptive_games: int | None = None) -> str:
    lines = [f'name = "{name}"', f"participants = {bots!r}".replace("'", '"'), f"games_per_pairing = {2 * cycles}",
             'time_control = "1s"', f"seed = {seed}", f"concurrency = {concurrency}"]
    if adaptive_games:
        lines += ['pairing = "adaptive"', f"league_budget = {adaptive_games}", "budget = 1000000"]
    return "\n".join(lines) + f'\n\n[[boards]]\nsize = "{board}"\n'


def spearman(a: list[str], b: list[str]) -> float:
    ra = {bot: i for i, bot in enumerate(a)}
    x = np.array([ra[bot] for bot in b], dtype=float)
    return float(np.corrcoef(x, np.arange(len(b)))[0, 1])


def kendall(a: list[str], b: list[str]) -> float:
    ra = {bot: i for i, bot in enumerate(a)}
    x = [ra[bot] for bot in b]
    pairs = list(itertools.combinations(range(len(x)), 2))
    return sum(1 if x[i] < x[j] else -1 for i, j in pairs) / len(pairs)


def order(ws: Workspace, league: str) -> tuple[list[str], int]:
    """The league's bots, best first by their ratings, and its games."""
    tally = store.tally(ws, league)
    table = ratings(tally.games)
    return list(table["bot"]), int(table["games"].sum() // 2)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--bots", type=int, default=16)
    parser.add_argument("--cycles", type=int, default=2, help="seat-swapped pairs a pairing in each round robin")
    parser.add_argument("--board", default="3x3")
    parser.add_argument("--concurrency", type=int, default=2)
    parser.add_argument("--repeats", type=int, default=1, help="independent triples of leagues (new seeds)")
    args = parser.parse_args()
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    with tempfile.TemporaryDirectory(prefix="field-real-") as tmp, Workspace(Path(tmp) / "home") as ws:
        ensure_reference_bots(ws, bots_dir=Path(tmp) / "no-reference-bots")  # seeded: this field only
        rates = make_field(Path(tmp) / "bots", ws, args.bots)
        bots = list(rates)
        truth = sorted(bots, key=rates.get)
        games = args.cycles * len(bots) * (len(bots) - 1)
        print(f"{len(bots)} bots on hex {args.board} (blunder rates 0 to 1), round robins of {args.cycles} seat-swapped "
              f"pairs a pairing ({games} games) and an adaptive league of as many games; {args.repeats} repeat(s)")
        rows = []
        for repeat in range(args.repeats):
            orders, seconds = {}, {}
            for kind in ("round robin A", "adaptive", "round robin B"):
                name = f"{kind.replace(' ', '-')}-{repeat}"
                seed = 3 * repeat + {"round robin A": 1, "adaptive": 2, "round robin B": 3}[kind]
                text = league_file(name, bots, args.board, seed, args.cycles, args.concurrency,
                                   games if kind == "adaptive" else None)
                start = time.perf_counter()
                run_league(ws, parse_league(text, f"{name}.toml"), progress=False)
                seconds[kind] = time.perf_counter() - start
                orders[kind], played = order(ws, name)
                print(f"  {name}: {played} games in {seconds[kind]:.0f} s; order {' '.join(b[-2:] for b in orders[kind])}",
                      flush=True)
            compared = [("round robin A", "round robin B"), ("adaptive", "round robin A"), ("adaptive", "round robin B"),
                        ("round robin A", "truth"), ("round robin B", "truth"), ("adaptive", "truth")]
            orders["truth"] = truth
            rows.append({f"{a} / {b}": (spearman(orders[a], orders[b]), kendall(orders[a], orders[b]))
                         for a, b in compared})
        print(f"\n  {'orders compared':<30}{'Spearman':>10}{'Kendall':>10}   (mean over {len(rows)} repeat(s))")
        for key in rows[0]:
            rho = np.mean([row[key][0] for row in rows])
            tau = np.mean([row[key][1] for row in rows])
            print(f"  {key:<30}{rho:>10.3f}{tau:>10.3f}")


if __name__ == "__main__":
    main()
