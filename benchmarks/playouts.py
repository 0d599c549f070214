"""Random playouts per second: the real rules engine beside a minimal inline bitmask loop.

    python benchmarks/playouts.py [--rounds 7] [--games 1500] [--before 21ebc33]

Both loops play uniformly random complete games (a random order of the free lines is a
uniformly random game) on one core; the ratio is what the engine's states, steps and
outcome cost on top of the bare minimum (goal: at most 2, the engine at least half the
bare loop's speed). Rounds alternate bare loop, engine and (with ``--before``) the engine
of an earlier commit (then also the mcts brain's playouts, today's and that commit's), each timed in this thread's CPU time, so that a shared, noisy
machine moves them alike; each ratio is given as its median and range over the rounds.
"""

from __future__ import annotations

import argparse
import random
import statistics
import subprocess
import sys
import time
import types
from pathlib import Path

from hexarena.bots.brains import mcts
from hexarena.protocol.board import make_board
from hexarena.protocol.rules import Rules

ROOT = Path(__file__).resolve().parent.parent
clock = time.thread_time  # CPU time: other processes on the machine do not count


def engine_games(rules, games: int, rng: random.Random) -> float:
    begin = rules.start()
    start = clock()
    for _ in range(games):
        state = begin
        order = state.legal_moves()
        rng.shuffle(order)
        for line in order:
            state = state.apply(line).state
        state.outcome()
    return games / (clock() - start)


def bare_games(rules: Rules, games: int, rng: random.Random) -> float:
    """The same playouts with only a drawn mask and two counters, inline."""
    touches, lines = rules.touches, list(range(rules.lines))
    start = clock()
    for _ in range(games):
        rng.shuffle(lines)
        drawn, mover, score = 0, 0, [0, 0]
        for line in lines:
            drawn |= 1 << line
            closed = 0
            for _, mask in touches[line]:
                if drawn & mask == mask:
                    closed += 1
            if closed:
                score[mover] += closed
            else:
                mover ^= 1
    return games / (clock() - start)


def mcts_playouts(playout, rules: Rules, games: int, rng: random.Random) -> float:
    """The mcts brain's playouts (capture when it can, else a line that offers nothing) from the empty board."""
    state = rules.start()
    start = clock()
    for _ in range(games):
        playout(state, state.drawn, [0, 0], 0, rng)
    return games / (clock() - start)


def engine_at(commit: str, path: str = "protocol/rules.py") -> types.ModuleType:
    """``path`` (the rules engine) as it was at ``commit``, loaded as a module of its own (importing today's
    modules, if it imports any)."""
    source = subprocess.run(["git", "-C", str(ROOT), "show", f"{commit}:{path}"],
                            capture_output=True, text=True, check=True).stdout
    module = types.ModuleType(f"{Path(path).stem}_{commit}")
    sys.modules[module.__name__] = module  # dataclasses look their module up
    exec(compile(source, f"{commit}:{path}", "exec"), module.__dict__)  # noqa: S102 - our own history
    return module


def spread(values: list[float]) -> str:
    return f"{statistics.median(values):5.2f} ({min(values):.2f}-{max(values):.2f})"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--games", type=int, default=1500, help="games per loop and round (6x6: half)")
    parser.add_argument("--before", metavar="COMMIT", help="also time the engine of this commit (e.g. 21ebc33)")
    args = parser.parse_args()
    before = engine_at(args.before) if args.before else None
    header = f"{'board':8} {'engine/s':>9} {'bare/s':>9} {'bare/engine: median (range)':>29}"
    print(header + (f" {'before/s':>9} {'engine/before':>20}" if before else ""))
    for size in ("4x4", "6x6"):
        board = make_board(size)
        rules, games = Rules(board), args.games if size == "4x4" else args.games // 2
        old_rules = before.Rules(board) if before else None
        engine, bare, old = [], [], []
        for round_ in range(args.rounds):
            bare.append(bare_games(rules, games, random.Random(round_)))
            engine.append(engine_games(rules, games, random.Random(round_)))
            if before:
                old.append(engine_games(old_rules, games, random.Random(round_)))
        line = (f"{size + ' hex':8} {statistics.median(engine):9,.0f} {statistics.median(bare):9,.0f} "
                f"{spread([b / e for b, e in zip(bare, engine)]):>29}")
        if before:
            line += f" {statistics.median(old):9,.0f} {spread([e / o for e, o in zip(engine, old)]):>20}"
        print(line)
    if before:  # the mcts brain's playouts, today's and the commit's, on today's engine
        old_mcts = engine_at(args.before, "bots/brains/mcts.py")
        for size in ("4x4", "6x6"):
            rules, games = Rules(make_board(size)), args.games // 10
            now, old = [], []
            for round_ in range(args.rounds):
                now.append(mcts_playouts(mcts.playout, rules, games, random.Random(round_)))
                old.append(mcts_playouts(old_mcts.playout, rules, games, random.Random(round_)))
            print(f"{size + ' hex':8} mcts playouts/s {statistics.median(now):9,.0f}, before {statistics.median(old):9,.0f}:"
                  f" {spread([n / o for n, o in zip(now, old)])}")


if __name__ == "__main__":
    main()
