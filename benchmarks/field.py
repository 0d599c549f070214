"""Benchmark: adaptive pairing against the round robin on a simulated field (no processes).

    nice -n 15 python benchmarks/field.py [--bots 50 200 1000] [--trials 3] [--calibration 20]

Each game's result is drawn from a Bradley–Terry model of known strengths (Elo drawn from a normal
distribution with sd ``--spread``, 250 by default: most of a real competition's field within ±500 of its
middle; a draw with probability ``--draws``). Both methods use the league's own code: the round robin
plays the circle method's rounds (``hexarena.leagues.schedule.games.circle_rounds``, a seat-swapped pair
per pairing: the order ``league run`` plays in), the adaptive league ``hexarena.leagues.results.adaptive``
(batches chosen, played, refit warm-started with ``hexarena.leagues.results.ratings.fit``).

Reported per field size: the games each method needs until the Spearman rank correlation of the fitted
order with the true one reaches 0.95 and 0.99, and until the top 10 is exactly right (the median over
trials; ">N": not within the cap), with the ratio adaptive / round robin (the round robin stopped where
it first reached the target, which a league cannot know) and adaptive / a full round robin (2 games a pair). Then a new version added to a settled adaptive field:
the games until its 95% interval is ±50 Elo, and its rating's error after 100 games.
"""

from __future__ import annotations

import argparse
import math
import statistics
import time

import numpy as np

from hexarena.leagues.results.adaptive import Pairing, next_tables, refit
from hexarena.leagues.results.ratings import ELO_PER_UNIT
from hexarena.leagues.schedule.games import Entrant, circle_rounds

TARGETS = ("rho 0.95", "rho 0.99", "top 10")


def due(played: int, last: list[int], always: int) -> bool:
    """Whether to refit and check now: after every round up to ``always`` games, then at each 5% more."""
    if played > always and played < 1.05 * last[0]:
        return False
    last[0] = played
    return True


class Simulation:
    """A field of known strengths and the results played so far (points and games per pair)."""

    def __init__(self, strengths: np.ndarray, draws: float, rng: np.random.Generator):
        self.strengths = strengths
        self.n = len(strengths)
        self.points = np.zeros((self.n, self.n))
        self.met = np.zeros((self.n, self.n))
        self.draws = draws
        self.rng = rng
        self.played = 0

    def play(self, a: np.ndarray, b: np.ndarray, games: int = 2) -> None:
        """``games`` games of each pair (a[k], b[k])."""
        for _ in range(games):
            p = 1 / (1 + np.exp(self.strengths[b] - self.strengths[a]))
            u = self.rng.random(len(a))
            drawn = self.rng.random(len(a)) < self.draws
            score = np.where(drawn, 0.5, (u < p).astype(float))
            np.add.at(self.points, (a, b), score)
            np.add.at(self.points, (b, a), 1 - score)
            np.add.at(self.met, (a, b), 1)
            np.add.at(self.met, (b, a), 1)
            self.played += len(a)


def spearman(estimate: np.ndarray, truth: np.ndarray) -> float:
    ranks = [np.argsort(np.argsort(x)) for x in (estimate, truth)]
    return float(np.corrcoef(*ranks)[0, 1])


def reached(theta: np.ndarray, truth: np.ndarray) -> dict[str, bool]:
    rho = spearman(theta, truth)
    top = min(10, len(truth))
    exact = np.array_equal(np.argsort(-theta)[:top], np.argsort(-truth)[:top])
    return {"rho 0.95": rho >= 0.95, "rho 0.99": rho >= 0.99, "top 10": exact}


def round_robin(sim: Simulation, cap: int) -> dict[str, int]:
    """Games until each target, checking after every round (the circle method's order, 2 games a pairing)."""
    names = [str(i) for i in range(sim.n)]
    rounds = circle_rounds([Entrant(name, name) for name in names])
    found: dict[str, int] = {}
    theta = None
    number = 0
    checks = [0]
    while sim.played < cap and len(found) < len(TARGETS):
        pairs = rounds[number % len(rounds)]
        number += 1
        sim.play(np.array([int(p[0].key) for p in pairs]), np.array([int(p[1].key) for p in pairs]))
        if not due(sim.played, checks, 10 * sim.n):
            continue
        field = refit(names, sim.points, sim.met, start=theta)
        theta = field.theta
        for target, ok in reached(theta, sim.strengths).items():
            if ok and target not in found:
                found[target] = sim.played
    return found


def adaptive(sim: Simulation, cap: int, pairing: Pairing) -> tuple[dict[str, int], np.ndarray]:
    """Games until each target, refitting after every batch."""
    names = [str(i) for i in range(sim.n)]
    found: dict[str, int] = {}
    field = refit(names, sim.points, sim.met)
    number = 0
    while sim.played < cap and len(found) < len(TARGETS):
        batch = next_tables(field, pairing, number)
        number += 1
        if not batch.tables:
            break
        sim.play(np.array([int(t.a) for t in batch.tables]), np.array([int(t.b) for t in batch.tables]), pairing.games)
        field = refit(names, sim.points, sim.met, start=field.theta)
        for target, ok in reached(field.theta, sim.strengths).items():
            if ok and target not in found:
                found[target] = sim.played
    return found, field.theta


def calibration(sim: Simulation, theta: np.ndarray, pairing: Pairing, newcomer_elo: float) -> tuple[int, float]:
    """A new version joins the settled field: games until its 95% interval is ±50 Elo, and |error| in Elo after
    100 games (its rating against the field's mean, both centred)."""
    n = sim.n
    strengths = np.append(sim.strengths, newcomer_elo / ELO_PER_UNIT)
    grown = Simulation(strengths, sim.draws, sim.rng)
    grown.points[:n, :n], grown.met[:n, :n] = sim.points, sim.met
    names = [str(i) for i in range(n + 1)]
    field = refit(names, grown.points, grown.met, start=np.append(theta, 0.0))
    games_to_50, error_100 = 0, math.nan
    number = 0
    while grown.met[n].sum() < 400:
        batch = next_tables(field, pairing, number)
        number += 1
        if not batch.tables:
            break
        # the league plays on: every table is played, the newcomer's games are counted
        grown.play(np.array([int(t.a) for t in batch.tables]), np.array([int(t.b) for t in batch.tables]),
                   pairing.games)
        field = refit(names, grown.points, grown.met, start=field.theta)
        rating, half = field.elo(n)
        played = int(grown.met[n].sum())
        truth = 1500 + ELO_PER_UNIT * (strengths[n] - strengths.mean())
        if played >= 100 and math.isnan(error_100):
            error_100 = abs(rating - truth)
        if half <= 50 and not games_to_50:
            games_to_50 = played
        if games_to_50 and not math.isnan(error_100):
            break
    return games_to_50, error_100


def shown(values: list[int | None], cap: int) -> str:
    done = [v for v in values if v is not None]
    if len(done) < len(values):
        return f">{cap}"
    return f"{statistics.median(done):,.0f} ({min(done):,}-{max(done):,})"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--bots", type=int, nargs="+", default=[50, 200, 1000])
    parser.add_argument("--trials", type=int, default=3)
    parser.add_argument("--spread", type=float, default=250.0, help="sd of the true Elo")
    parser.add_argument("--draws", type=float, default=0.05)
    parser.add_argument("--calibration", type=int, default=20, help="new versions per field size")
    parser.add_argument("--cap", type=float, default=1.0, help="stop each method at this many full round robins")
    args = parser.parse_args()
    pairing = Pairing()
    print(f"field: true Elo ~ N(0, {args.spread:g}), draws {args.draws:.0%}, {args.trials} trials; median (range) "
          "of games to each target")
    for n in args.bots:
        full = n * (n - 1)  # a full round robin, 2 games per pairing
        cap = int(args.cap * full)
        results: dict[str, dict[str, list]] = {m: {t: [] for t in TARGETS} for m in ("round robin", "adaptive")}
        seconds = {"round robin": 0.0, "adaptive": 0.0}
        calibrations = []
        for trial in range(args.trials):
            rng = np.random.default_rng(1000 * n + trial)
            strengths = rng.normal(0, args.spread, n) / ELO_PER_UNIT
            for method in ("round robin", "adaptive") if trial % 2 == 0 else ("adaptive", "round robin"):
                sim = Simulation(strengths, args.draws, np.random.default_rng(trial))
                start = time.process_time()
                if method == "round robin":
                    found = round_robin(sim, cap)
                else:
                    found, theta = adaptive(sim, cap, pairing)
                    settled = sim
                seconds[method] += time.process_time() - start
                for target in TARGETS:
                    results[method][target].append(found.get(target))
            for k in range(args.calibration // args.trials + (trial < args.calibration % args.trials)):
                calibrations.append(calibration(settled, theta, pairing, rng.normal(0, args.spread)))
        print(f"\n{n} bots (full round robin: {full:,} games)")
        print(f"  {'target':<10} {'round robin':>26} {'adaptive':>26} {'ratio':>7} {'of full':>8}")
        for target in TARGETS:
            rr, ad = results["round robin"][target], results["adaptive"][target]
            ratios = [a / r for a, r in zip(ad, rr) if a and r]
            ratio = f"{statistics.median(ratios):.2f}" if len(ratios) == len(rr) else "-"
            of_full = f"{statistics.median(ad) / full:.3f}" if all(ad) else "-"
            print(f"  {target:<10} {shown(rr, cap):>26} {shown(ad, cap):>26} {ratio:>7} {of_full:>8}")
        print(f"  CPU seconds: round robin {seconds['round robin']:.1f}, adaptive {seconds['adaptive']:.1f}")
        if calibrations:
            to_50 = [g for g, _ in calibrations]
            errors = [e for _, e in calibrations if not math.isnan(e)]
            reached_50 = [g for g in to_50 if g]
            print(f"  new version ({len(calibrations)}): games to ±50 Elo (95%): median "
                  f"{statistics.median(reached_50) if reached_50 else '-'} "
                  f"(range {min(reached_50, default=0)}-{max(reached_50, default=0)}, {len(reached_50)} reached); "
                  + (f"|error| after 100 games: median {statistics.median(errors):.0f} Elo, "
                     f"95th percentile {np.percentile(errors, 95):.0f} Elo" if errors else
                     "no new version reached 100 games (its tables ran out: fair share, settled pairs)"))


if __name__ == "__main__":
    main()
