"""In-process duels between two bot brains, seats swapped: quick strength checks without bot processes.

    python3 benchmarks/duel.py SIZE BRAIN_A BRAIN_B GAMES TIME
    python3 benchmarks/duel.py 3x3 perfect mcts 20 10000+100    # docs/ladder.md's 3x3 figures

BRAIN is chains, mcts or perfect (bots/brains/); TIME is a fixed limit per move in ms
(``200``) or a bank plus increment in ms (``10000+100``). Each game runs in the referee's one game
loop with in-process seats (``referee/seats/inprocess.py``): the same clocks, and a brain out of time loses.
Two games run at once (one per core). Prints BRAIN_A's wins, draws and losses, as the first and as
the second player, the mean thinking time per game and any bot that lost on time.
"""

from __future__ import annotations

import sys
import time
from multiprocessing import Pool

from hexarena.bots.brains import BRAINS, bot_choose
from hexarena.referee.clock import TimeControl
from hexarena.referee.seats.inprocess import InProcessSpec
from hexarena.referee.record import BoardConfig
from hexarena.referee.referee import Referee


def play(job: tuple[str, str, str, int, str, bool]) -> tuple[int, dict[str, float], str | None]:
    """One game in the referee's game loop: BRAIN_A's margin, each brain's thinking seconds, who lost on time."""
    size, a_name, b_name, seed, time_ms, a_first = job
    bank, plus, increment = time_ms.partition("+")
    control = TimeControl.parse(f"{bank}ms+{increment}ms" if plus else f"{bank}ms")
    specs = {name: InProcessSpec(name, bot_choose(BRAINS[name]())) for name in (a_name, b_name)}
    seats = [specs[a_name], specs[b_name]] if a_first else [specs[b_name], specs[a_name]]
    with Referee(time_control=control) as referee:
        record = referee.play(seats, BoardConfig(size=size), game_id=f"duel{seed}", seed=seed)
    think = {name: sum(m.ms for m in record.moves if record.seats[m.seat] == name) / 1000 for name in specs}
    timeouts = [f for f in record.result.forfeits if f.reason == "timeout"]
    flagged = record.seats[timeouts[0].seat] if timeouts else None
    scores = record.result.scores
    margin = scores[0] - scores[1]
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
