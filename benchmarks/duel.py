"""In-process duels between two bot brains, seats swapped: quick strength checks without the referee.

    PYTHONPATH=. python3 benchmarks/duel.py SIZE BRAIN_A BRAIN_B GAMES TIME
    PYTHONPATH=. python3 benchmarks/duel.py 3x3 perfect mcts 20 10000+100    # docs/ladder.md's 3x3 figures

BRAIN is chains, mcts or perfect (bots/brains/); TIME is a fixed limit per move in ms
(``200``) or a bank plus increment in ms (``10000+100``), kept by wall clock as the referee would.
Two games run at once (one per core). Prints BRAIN_A's wins, draws and losses, as the first and as
the second player, the mean thinking time per game and any bot that would have lost on time.
"""

from __future__ import annotations

import random
import sys
import time
from multiprocessing import Pool

from bots.brains import BRAINS, think_time
from protocol.board import make_board
from protocol.rules import Rules


def play(job: tuple[str, str, str, int, str, bool]) -> tuple[int, dict[str, float], str | None]:
    """One game: BRAIN_A's margin, each brain's thinking seconds, and who ran out of bank (or None)."""
    size, a_name, b_name, seed, time_control, a_first = job
    rules = Rules(make_board(size))
    brains = {a_name: BRAINS[a_name](), b_name: BRAINS[b_name]()}
    seats = [a_name, b_name] if a_first else [b_name, a_name]
    per_move = "+" not in time_control
    bank, _, increment = time_control.partition("+")
    left = {a_name: int(bank), b_name: int(bank)}
    increment_ms = 0 if per_move else int(increment)
    think = {a_name: 0.0, b_name: 0.0}
    flagged = None
    rng = random.Random(seed)
    state = rules.start()
    while not state.is_over():
        name = seats[state.to_move]
        brain = brains[name]
        seconds = think_time(brain, state, left[name], left[name], per_move, increment_ms)
        started = time.monotonic()
        line = brain(state, rng, seconds)
        spent = time.monotonic() - started
        think[name] += spent
        if not per_move:
            left[name] += increment_ms - int(spent * 1000)
            flagged = flagged or (name if left[name] < 0 else None)
        state = state.apply(line).state
    margin = state.scores[0] - state.scores[1]
    return (margin if a_first else -margin), think, flagged


def main() -> None:
    if len(sys.argv) != 6 or any(name not in BRAINS for name in sys.argv[2:4]):
        sys.exit(f"usage: duel.py SIZE BRAIN_A BRAIN_B GAMES TIME  (BRAIN: {', '.join(BRAINS)})")
    size, a, b, games, time_control = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), sys.argv[5]
    jobs = [(size, a, b, 1000 + i, time_control, i % 2 == 0) for i in range(games)]
    began = time.time()
    with Pool(2) as pool:
        results = pool.map(play, jobs, chunksize=1)
    margins = [margin for margin, _, _ in results]
    first = [m for m, job in zip(margins, jobs) if job[5]]
    second = [m for m, job in zip(margins, jobs) if not job[5]]
    wins, draws = sum(m > 0 for m in margins), sum(m == 0 for m in margins)
    print(f"{size} {a} vs {b} @ {time_control}: {a} W{wins} D{draws} L{games - wins - draws}; "
          f"wins as first {sum(m > 0 for m in first)}/{len(first)}, as second {sum(m > 0 for m in second)}/{len(second)}; "
          f"thinking per game {sum(t[a] for _, t, _ in results) / games:.2f} s / {sum(t[b] for _, t, _ in results) / games:.2f} s; "
          f"flagged {[f for _, _, f in results if f]}; {time.time() - began:.0f} s")


if __name__ == "__main__":
    main()
