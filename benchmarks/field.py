"""Benchmark: adaptive pairing against the round robin on a simulated field (no processes).

    nice -n 10 python benchmarks/field.py [--bots 50 200 1000] [--trials 3] [--calibration 12]
    nice -n 10 python benchmarks/field.py --bots 1000 --trials 2 --calibration 0 --cycles 1 --adaptive-cap 0.2

Each game's result is drawn from a Bradley–Terry model of known strengths (Elo drawn from a normal
distribution with sd ``--spread``, 250 by default: most of a real competition's field within ±500 of its
middle; a draw with probability ``--draws``). Both methods use the league's own code: the round robin
plays the circle method's rounds (``hexarena.leagues.schedule.games.circle_rounds``, a seat-swapped pair
per pairing: the order ``league run`` plays in), the adaptive league ``hexarena.leagues.results.adaptive``
(batches chosen, played, refit warm-started with ``hexarena.leagues.results.ratings.fit``).

Reported per field size: the games each method needs until the Spearman rank correlation of the fitted
order with the true one reaches 0.95 and 0.99, until the top 10 are the right ten bots ("top 10 set") and
until they are also in the right order ("top 10"): the median over trials (">N": not within the cap). The
round robin twice: as an organiser plays it, in complete cycles (a target counts when it holds at the end
of a cycle: "rr cycles"), and stopped anywhere ("rr prefix": checked after every round up to 10 games a
bot, then at each 5% more; an organiser cannot know where to stop). The ratios are the median over trials
of adaptive / round robin on the same field. Then a new version added to a field settled as a league
settles it (adaptive, ``DEFAULT_BUDGET`` games a bot): the games until its 95% interval is within ±50 Elo,
and its rating's error after 100 games, with no anchors, with 10 anchors (bots at the deciles of the
field, held: ``hexarena.leagues.results.adaptive.hold``) and with every bot of the field held (the bound:
every opponent known).

One BLAS thread (``OPENBLAS_NUM_THREADS``, unless set): the fit's dense solves at 1,000 bots took about
10 s with two threads on a loaded 2-core machine, 1 s with one.
"""

from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # one BLAS thread: on a shared machine several are many times slower

import argparse
import math
import statistics
import time

import numpy as np

from hexarena.leagues.results.adaptive import Pairing, next_tables, refit
from hexarena.leagues.results.ratings import ELO_PER_UNIT
from hexarena.leagues.running.adaptive import DEFAULT_BUDGET
from hexarena.leagues.schedule.games import Entrant, circle_rounds

TARGETS = ("rho 0.95", "rho 0.99", "top 10 set", "top 10")


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
    mine, true = np.argsort(-theta)[:top], np.argsort(-truth)[:top]
    return {"rho 0.95": rho >= 0.95, "rho 0.99": rho >= 0.99, "top 10 set": set(mine) == set(true),
            "top 10": np.array_equal(mine, true)}


def round_robin(sim: Simulation, cycles: int) -> tuple[dict[str, int], dict[str, int]]:
    """Games until each target, in the circle method's order (2 games a pairing), for up to ``cycles`` complete
    round robins: (1) stopped anywhere (checked after every round up to 10 games a bot, then at each 5% more:
    a prefix, which an organiser cannot know to stop at), (2) checked at the end of each complete cycle."""
    names = [str(i) for i in range(sim.n)]
    rounds = circle_rounds([Entrant(name, name) for name in names])
    prefix: dict[str, int] = {}
    complete: dict[str, int] = {}
    theta = None
    number = 0
    checks = [0]
    while number < cycles * len(rounds) and len(complete) < len(TARGETS):
        pairs = rounds[number % len(rounds)]
        number += 1
        sim.play(np.array([int(p[0].key) for p in pairs]), np.array([int(p[1].key) for p in pairs]))
        end = number % len(rounds) == 0
        if not (due(sim.played, checks, 10 * sim.n) or end):
            continue
        field = refit(names, sim.points, sim.met, start=theta)
        theta = field.theta
        for target, ok in reached(theta, sim.strengths).items():
            if ok and target not in prefix:
                prefix[target] = sim.played
            if ok and end and target not in complete:
                complete[target] = sim.played
    return prefix, complete


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


def calibration(sim: Simulation, theta: np.ndarray, pairing: Pairing, newcomer_elo: float,
                anchors: frozenset[str]) -> tuple[int, float]:
    """A new version joins the settled field (every table of each batch is played, the newcomer's games counted):
    games until its 95% interval is within ±50 Elo, and its |error| in Elo after 100 games (its rating against
    the established field's mean, truth and estimate alike). ``anchors`` (names): held in the fit."""
    n = sim.n
    strengths = np.append(sim.strengths, newcomer_elo / ELO_PER_UNIT)
    grown = Simulation(strengths, sim.draws, sim.rng)
    grown.points[:n, :n], grown.met[:n, :n] = sim.points, sim.met
    names = [str(i) for i in range(n + 1)]
    field = refit(names, grown.points, grown.met, start=np.append(theta, 0.0), anchors=anchors, anchor_games=1)
    games_to_50, error_100 = 0, math.nan
    number = 0
    while grown.met[n].sum() < 600:
        batch = next_tables(field, pairing, number)
        number += 1
        if not batch.tables:
            break
        grown.play(np.array([int(t.a) for t in batch.tables]), np.array([int(t.b) for t in batch.tables]),
                   pairing.games)
        field = refit(names, grown.points, grown.met, start=field.theta, anchors=anchors, anchor_games=1)
        played = int(grown.met[n].sum())
        if played >= 100 and math.isnan(error_100):
            estimate = field.theta[n] - field.theta[:n].mean()
            error_100 = ELO_PER_UNIT * abs(estimate - (strengths[n] - strengths[:n].mean()))
        if field.half_widths()[n] <= 50 and not games_to_50:
            games_to_50 = played
        if games_to_50 and not math.isnan(error_100):
            break
    return games_to_50, error_100


def median(values: list[int | None]) -> float | None:
    """The median, None (not reached) counted as above every number; None when that is the median."""
    ordered = sorted(values, key=lambda v: math.inf if v is None else v)
    middle = ordered[(len(ordered) - 1) // 2: len(ordered) // 2 + 1]
    return None if None in middle else statistics.mean(middle)


def shown(values: list[int | None], cap: int) -> str:
    m = median(values)
    return f">{cap:,}" if m is None else f"{m:,.0f}"


def ratio(top: list[int | None], bottom: list[int | None]) -> str:
    """The median over trials of top / bottom (the same field in both), a trial where top was not reached counted
    as above every ratio, one where bottom was not as below; "-" when that decides the median."""
    ratios = sorted(math.inf if a is None else 0.0 if b is None else a / b for a, b in zip(top, bottom))
    middle = ratios[(len(ratios) - 1) // 2: len(ratios) // 2 + 1]
    return "-" if any(r in (0.0, math.inf) for r in middle) else f"{statistics.mean(middle):.3f}"


METHODS = {"adaptive": Pairing()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--bots", type=int, nargs="+", default=[50, 200, 1000])
    parser.add_argument("--trials", type=int, default=3)
    parser.add_argument("--spread", type=float, default=250.0, help="sd of the true Elo")
    parser.add_argument("--draws", type=float, default=0.05)
    parser.add_argument("--calibration", type=int, default=12, help="new versions per field size (0: none)")
    parser.add_argument("--calibration-bots", type=int, default=200, help="at most this many bots: calibrate")
    parser.add_argument("--cycles", type=int, nargs="+", default=[8, 4, 1],
                        help="complete round robins at most, per field size (the last for the larger ones)")
    parser.add_argument("--adaptive-cap", type=float, nargs="+", default=[8, 4, 0.2],
                        help="adaptive stops at this many complete round robins' games, per field size")
    parser.add_argument("--methods", nargs="+", default=list(METHODS), choices=list(METHODS))
    args = parser.parse_args()
    print(f"field: true Elo ~ N(0, {args.spread:g}), draws {args.draws:.0%}, {args.trials} trials; median games "
          "to each target (cycles: at the end of a complete round robin; prefix: a round robin stopped anywhere)")
    for size, n in enumerate(args.bots):
        full = n * (n - 1)  # a full round robin, 2 games per pairing
        cycles = args.cycles[min(size, len(args.cycles) - 1)]
        cap = cycles * full
        adaptive_cap = int(args.adaptive_cap[min(size, len(args.adaptive_cap) - 1)] * full)
        methods = ["rr cycles", "rr prefix", *args.methods]
        results: dict[str, dict[str, list]] = {m: {t: [] for t in TARGETS} for m in methods}
        seconds = dict.fromkeys(["round robin", *args.methods], 0.0)
        calibrations: dict[str, list] = {}
        for trial in range(args.trials):
            rng = np.random.default_rng(1000 * n + trial)
            strengths = rng.normal(0, args.spread, n) / ELO_PER_UNIT
            order = ["round robin", *args.methods]
            for method in order if trial % 2 == 0 else order[::-1]:
                sim = Simulation(strengths, args.draws, np.random.default_rng(trial))
                start = time.perf_counter()
                if method == "round robin":
                    prefix, complete = round_robin(sim, cycles)
                    for target in TARGETS:
                        results["rr prefix"][target].append(prefix.get(target))
                        results["rr cycles"][target].append(complete.get(target))
                else:
                    found, _ = adaptive(sim, adaptive_cap, METHODS[method])
                    for target in TARGETS:
                        results[method][target].append(found.get(target))
                seconds[method] += time.perf_counter() - start
            if n > args.calibration_bots or not args.calibration:
                continue
            settled = Simulation(strengths, args.draws, np.random.default_rng(trial))  # as a league: to its budget
            _, settled_theta = adaptive(settled, cap, Pairing(budget=DEFAULT_BUDGET))
            ranked = np.argsort(-settled_theta)
            frames = {"no anchors": frozenset(),
                      "10 anchors": frozenset(str(b) for b in ranked[np.linspace(0, n - 1, 10).astype(int)]),
                      "all anchored": frozenset(str(b) for b in range(n))}
            for k in range(args.calibration // args.trials + (trial < args.calibration % args.trials)):
                elo = rng.normal(0, args.spread)
                for frame, anchors in frames.items():
                    copy = Simulation(strengths, args.draws, np.random.default_rng(10_000 * trial + k))
                    copy.points, copy.met = settled.points.copy(), settled.met.copy()
                    calibrations.setdefault(frame, []).append(
                        calibration(copy, settled_theta, Pairing(budget=3 * DEFAULT_BUDGET), elo, anchors))
        print(f"\n{n} bots (a complete round robin: {full:,} games, 2 a pair; at most {cycles}; adaptive at most "
              f"{adaptive_cap:,} games)")
        header = "".join(f"{m:>16}" for m in methods)
        ratios = "".join(f"{m[:8] + '/cyc':>13}{m[:8] + '/pre':>13}" for m in args.methods)
        print(f"  {'target':<9}{header}{ratios}")
        for target in TARGETS:
            cells = "".join(f"{shown(results[m][target], adaptive_cap if m in METHODS else cap):>16}" for m in methods)
            cells += "".join(f"{ratio(results[m][target], results['rr cycles'][target]):>13}"
                             f"{ratio(results[m][target], results['rr prefix'][target]):>13}" for m in args.methods)
            print(f"  {target:<9}{cells}")
        for m in methods:
            print(f"  per trial, {m}: " + "; ".join(f"{t} " + " ".join("-" if v is None else str(v) for v in results[m][t])
                                                    for t in TARGETS))
        print("  seconds (wall, all trials): " + ", ".join(f"{m} {v:.1f}" for m, v in seconds.items()))
        for frame, runs in calibrations.items():
            to_50 = [g for g, _ in runs if g]
            errors = [e for _, e in runs if not math.isnan(e)]
            print(f"  new version, {frame} ({len(runs)}): games to ±50 Elo (95%): median "
                  f"{statistics.median(to_50) if to_50 else '-'} (range {min(to_50, default=0)}-{max(to_50, default=0)}, "
                  f"{len(to_50)} reached); |error| after 100 games: median "
                  f"{statistics.median(errors):.0f} Elo, largest {max(errors):.0f}" if errors else "no 100 games")


if __name__ == "__main__":
    main()
