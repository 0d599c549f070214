"""Adaptive pairing: the next tables of a 2-player league, chosen where a game tells the most about the standings.

    field = refit(names, points, met, start=last.theta)     Bradley–Terry, warm-started (``ratings.fit``)
    batch = next_tables(field, Pairing(budget=100))         seat-swapped pairs to play next, or why to stop

A *table* is one meeting of two bots: a seat-swapped pair of games (``Pairing.games`` of them) from one
start position. ``points[i, j]`` is what bot i scored against bot j (a win 1, a draw ½), ``met[i, j]`` how
many games they played; the fit is the league's own (``hexarena.leagues.results.ratings``), so a simulation
(``benchmarks/field.py``) and a league choose alike.

Expected information of a table between i and j, with d = θᵢ − θⱼ and s² its variance under the fit:
one game's Fisher information about d is p(1 − p), p = 1 / (1 + e^−d), so a table of g games has
I = g·p(1 − p) and leaves d the variance 1 / (1/s² + I): it removes the share s²I / (1 + s²I) of d's
uncertainty. That share is weighted by how unsure the pair's order is, 2·Φ(−|d| / s) (1 for a coin toss,
→ 0 when the order is settled). A pair whose order is settled at ``confidence`` is not played.

The choice, each batch:
- *anchors*: a reference bot with at least ``ANCHOR_GAMES`` games is held at its rating in the fit (``hold``:
  the league's own estimate of it, taken as known), so a new version's interval is its own uncertainty
  against the anchors, not theirs added to it; the intervals are then measured against the anchors.
- *calibration*: a bot with fewer than ``spread`` tables (a new version) meets bots spread over the rating
  range (quantiles ½, ¼, ¾, ... of the established bots), an anchor (a reference bot: its rating is known)
  where one sits near the quantile; all of them in one batch, since they do not depend on its results.
  When no bot is established yet (a new league), the bots are paired at random (seeded).
- *neighbours*: every other pair within ``window`` places of each other in the current order, by
  expected information, best first; each bot at one table per batch.
- *fair share*: a pair plays at most ``share`` of the games of the one of them that has played fewer (at
  least one table; in a small field of n bots up to 2/(n − 1)), so no bot's rating rests on one opponent.
- *budget*: a pair is played only while one of its bots has played fewer than ``budget`` games (so a new
  version is still calibrated against bots that used theirs up); the league stops at ``league_budget``.
- *precision*: a bot left idle whose 95% interval is wider than ±``precision`` Elo plays the neighbour that
  narrows it most, settled order or not (a new version's rating is wanted, not only its place); when the
  fair share has used up its neighbours (at either end of the order a bot has only ``window``), the bot of
  the whole field that narrows it most.
- *stop*: when every neighbouring pair of the order is separated at ``confidence`` and every bot is within
  ±``precision`` ("separated"), or no pair may be played (the budgets, the fair share: "budget").
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass
from dataclasses import field as dataclass_field

import numpy as np

from hexarena.leagues.results.ratings import ELO_MEAN, ELO_PER_UNIT, Z95, fit, gap

_erfc = np.vectorize(math.erfc, otypes=[float])
ANCHOR_GAMES = 100  # a reference bot is held as an anchor from this many games on (its own 95%: ±70 Elo at best)
SPREAD_QUANTILES = (0.5, 0.25, 0.75, 0.1, 0.9, 0.375, 0.625)  # a new version's first opponents, in turn


@dataclass(frozen=True)
class Pairing:
    """How the adaptive scheduler chooses (see the module docstring)."""

    budget: int | None = None  # games per bot version
    league_budget: int | None = None  # games in the league
    confidence: float = 0.95  # neighbours separated at this likelihood of superiority: stop
    share: float = 0.25  # most of a bot's games against one opponent
    window: int = 3  # neighbours on each side considered
    spread: int = 3  # a new version's first tables, against bots spread over the range
    games: int = 2  # per table: one seat-swapped pair
    precision: float | None = 50.0  # Elo: a bot whose 95% interval is wider keeps playing (within its budget)
    seed: int = 0


@dataclass(frozen=True)
class Field:
    """The league as the last fit sees it: θ and its covariance (units of e-fold odds), games met per pair."""

    names: tuple[str, ...]
    theta: np.ndarray
    cov: np.ndarray
    met: np.ndarray  # n × n games played between each pair
    anchors: frozenset[str] = frozenset()
    held: frozenset[str] = frozenset()  # the anchors held fixed in this fit (``refit``): the frame of the intervals

    @property
    def games(self) -> np.ndarray:
        return self.met.sum(axis=1)

    def elo(self, i: int) -> tuple[float, float]:
        """Bot i's rating (Elo, the field's mean at ``ELO_MEAN``) and the half-width of its 95% interval."""
        centred = self.theta[i] - self.theta.mean()
        return ELO_MEAN + ELO_PER_UNIT * centred, float(self.half_widths()[i]) if len(self.theta) > 1 else math.inf

    def half_widths(self) -> np.ndarray:
        """Every bot's 95% half-width in Elo: of θᵢ − mean θ, as ``ratings.ratings`` centres them; with anchors
        held, of θᵢ against the anchors (its own uncertainty, the anchors' taken as known: 0 for an anchor)."""
        if self.held:
            var = np.diag(self.cov)
        else:
            var = np.diag(self.cov) - 2 * self.cov.mean(axis=1) + self.cov.mean()
        return ELO_PER_UNIT * Z95 * np.sqrt(np.clip(var, 0, None))

    def interval(self, i: int, j: int) -> tuple[float, float, float]:
        """The gap θᵢ − θⱼ in Elo and its 95% interval (``ratings.gap``, as the league table shows it)."""
        return gap(self.theta, self.cov, i, j)[:3]

    def gap_variance(self, i: np.ndarray, j: np.ndarray) -> np.ndarray:
        """Var(θᵢ − θⱼ) of each pair (floored: a pair's gap is never known exactly)."""
        return np.maximum(self.cov[i, i] + self.cov[j, j] - 2 * self.cov[i, j], 1e-12)


@dataclass(frozen=True)
class Table:
    """One chosen table: bots a and b (names), why, its expected information and the pair's gap (Elo, 95%)."""

    a: str
    b: str
    reason: str  # "calibration", "neighbours", "precision" or "opening" (a new league: random pairs)
    information: float
    gap: float
    low: float
    high: float


@dataclass(frozen=True)
class Batch:
    tables: list[Table] = dataclass_field(default_factory=list)
    stop: str = ""  # why nothing is left to play: "separated" or "budget" (empty while there are tables)


def refit(names: list[str] | tuple[str, ...], points: np.ndarray, met: np.ndarray, start: np.ndarray | None = None,
          anchors: frozenset[str] = frozenset(), anchor_games: int = ANCHOR_GAMES) -> Field:
    """The Bradley–Terry fit of the pairwise results, from ``start`` (the last fit's θ) when given. An anchor
    with at least ``anchor_games`` games is held at its rating (``hold``)."""
    n = len(names)
    i, j = np.nonzero(points)
    rows = np.stack([i, j], axis=1).astype(np.int64)
    theta, cov = fit(n, [(rows, points[i, j].astype(float))], tolerance=1e-6, start=start)
    met = np.asarray(met)
    held = np.array([name in anchors for name in names], dtype=bool) & (met.sum(axis=1) >= anchor_games)
    if held.any() and not held.all():
        cov = hold(cov, held)
    else:
        held[:] = False
    return Field(tuple(names), theta, cov, met, frozenset(anchors),
                 frozenset(name for name, h in zip(names, held) if h))


def hold(cov: np.ndarray, held: np.ndarray) -> np.ndarray:
    """The covariance of the other bots' θ given the ``held`` ones (a mask) at their fitted values: their rows
    and columns 0, the rest cov_ff − cov_fa cov_aa⁻¹ cov_af (equal to the inverse of the free bots' block of
    the information: the fit with the anchors fixed). At the joint optimum the free θ are the optimum given the
    anchors too, so the ratings do not move; only the intervals lose the anchors' own uncertainty."""
    free = ~held
    conditional = np.zeros_like(cov)
    cross = cov[np.ix_(free, held)]
    block = cov[np.ix_(free, free)] - cross @ np.linalg.solve(cov[np.ix_(held, held)], cross.T)
    conditional[np.ix_(free, free)] = (block + block.T) / 2
    return conditional


def expected_information(field: Field, i: np.ndarray, j: np.ndarray, games: int) -> np.ndarray:
    """The expected information of a table of ``games`` games between each i and j (module docstring): the
    share of the gap's variance it removes (``own_information``), weighted by how unsure the pair's order is."""
    d = field.theta[i] - field.theta[j]
    unsure = _erfc(np.abs(d) / np.sqrt(2 * field.gap_variance(i, j)))  # 2Φ(−|d|/s)
    return unsure * own_information(field, i, j, games)


def separated(field: Field, i: np.ndarray, j: np.ndarray, confidence: float) -> np.ndarray:
    """Whether each pair's order is settled: likelihood of superiority at least ``confidence``."""
    d = np.abs(field.theta[i] - field.theta[j])
    return 0.5 * _erfc(-d / np.sqrt(2 * field.gap_variance(i, j))) >= confidence


def next_tables(field: Field, pairing: Pairing, batch_number: int = 0) -> Batch:
    """The next batch of tables, or an empty batch saying why the league stops (module docstring)."""
    n = len(field.names)
    games = field.games
    total = int(field.met.sum() // 2)
    room = math.inf if pairing.league_budget is None else (pairing.league_budget - total) // pairing.games
    if n < 2 or room <= 0:
        return Batch(stop="budget")
    order = np.argsort(-field.theta, kind="stable")
    place = np.empty(n, dtype=np.int64)
    place[order] = np.arange(n)
    new = games < pairing.spread * pairing.games
    budget = math.inf if pairing.budget is None else pairing.budget
    share = max(pairing.share, 2 / (n - 1))  # a small field: up to twice an even share
    chosen: list[Table] = []
    busy = np.zeros(n, dtype=bool)

    def allowed_with(a: int) -> np.ndarray:
        """Whether a may play each bot: the budget and the fair share."""
        fewer = np.minimum(games[a], games)
        return (fewer < budget) & (field.met[a] + pairing.games <= np.maximum(pairing.games, share * (fewer + pairing.games)))

    def allowed(a: int, b: int) -> bool:
        return bool(allowed_with(a)[b])

    def take(a: int, b: int, reason: str, information: float) -> None:
        chosen.append(Table(field.names[a], field.names[b], reason, float(information), *field.interval(a, b)))

    established = np.flatnonzero(~new)
    if new.any() and not len(established):  # a new league: random pairs, every bot once
        rng = random.Random(f"{pairing.seed}:{batch_number}")
        shuffled = [int(b) for b in np.flatnonzero(new) if games[b] < budget]
        rng.shuffle(shuffled)
        for a, b in zip(shuffled[0::2], shuffled[1::2]):
            if len(chosen) < room:
                take(a, b, "opening", float(expected_information(field, np.array([a]), np.array([b]), pairing.games)[0]))
        return Batch(chosen) if chosen else Batch(stop="budget")
    if new.any():  # calibration: opponents spread over the established bots' range
        ranked = established[np.argsort(-field.theta[established], kind="stable")]
        for a in np.flatnonzero(new):
            if games[a] >= budget:
                continue
            for number in range(int(games[a]) // pairing.games, pairing.spread):
                opponent = spread_opponent(field, ranked, SPREAD_QUANTILES[number % len(SPREAD_QUANTILES)], a)
                if opponent is not None and len(chosen) < room and not busy[opponent]:
                    info = expected_information(field, np.array([a]), np.array([opponent]), pairing.games)[0]
                    take(int(a), opponent, "calibration", info)
                    busy[opponent] = busy[a] = True  # no neighbours yet; with every spread opponent met, it has them
    # neighbours: every pair within the window, by expected information
    first, second = [], []
    for offset in range(1, pairing.window + 1):
        first.append(order[:-offset])
        second.append(order[offset:])
    if first and n > 1:
        i, j = np.concatenate(first), np.concatenate(second)
        score = expected_information(field, i, j, pairing.games)
        settled = separated(field, i, j, pairing.confidence)
        for k in np.argsort(-score, kind="stable"):
            a, b = int(i[k]), int(j[k])
            if len(chosen) >= room:
                break
            if busy[a] or busy[b] or settled[k] or score[k] <= 0 or not allowed(a, b):
                continue
            take(a, b, "neighbours", score[k])
            busy[a] = busy[b] = True
        if pairing.precision is not None:  # a bot still imprecise, left idle: its most useful allowed neighbour
            wide = field.half_widths() > pairing.precision
            gained = own_information(field, i, j, pairing.games)
            for k in np.argsort(-gained, kind="stable"):
                a, b = int(i[k]), int(j[k])
                if len(chosen) >= room:
                    break
                if busy[a] or busy[b] or not (wide[a] or wide[b]) or not allowed(a, b):
                    continue
                take(a, b, "precision", gained[k])
                busy[a] = busy[b] = True
            # one whose neighbours are all used up (the fair share; at either end of the order a bot has only
            # ``window`` of them): the most useful allowed bot of the whole field, so a new version is not stuck
            for a in np.flatnonzero(wide & ~busy & (games < budget)):
                if len(chosen) >= room:
                    break
                window = np.concatenate([j[i == a], i[j == a]])
                if busy[a] or allowed_with(a)[window].any():  # a neighbour busy in this batch: the next one
                    continue
                others = np.flatnonzero(~busy & allowed_with(a))
                others = others[others != a]
                if len(others):
                    gained = own_information(field, np.full(len(others), a), others, pairing.games)
                    b = int(others[np.argmax(gained)])
                    take(int(a), b, "precision", float(gained.max()))
                    busy[a] = busy[b] = True
    if chosen:
        return Batch(chosen)
    neighbours = separated(field, order[:-1], order[1:], pairing.confidence)
    precise = pairing.precision is None or bool((field.half_widths() <= pairing.precision).all())
    return Batch(stop="separated" if neighbours.all() and precise else "budget")


def own_information(field: Field, i: np.ndarray, j: np.ndarray, games: int) -> np.ndarray:
    """The share of the pair's gap variance a table removes, s²I / (1 + s²I), whatever their order (a bot's
    precision, not the standings, is what is wanted)."""
    d = field.theta[i] - field.theta[j]
    gained = field.gap_variance(i, j) * games / (1 + np.exp(-d)) / (1 + np.exp(d))  # s²·g·p(1 − p)
    return gained / (1 + gained)


def spread_opponent(field: Field, ranked: np.ndarray, quantile: float, newcomer: int) -> int | None:
    """The established bot at ``quantile`` of the rating order (best first), or an anchor within a tenth of the
    order of it; None when the newcomer met it already."""
    if not len(ranked):
        return None
    at = min(round(quantile * (len(ranked) - 1)), len(ranked) - 1)
    reach = max(1, len(ranked) // 10)
    near = ranked[max(0, at - reach): at + reach + 1]
    anchors = [int(b) for b in near if field.names[b] in field.anchors and not field.met[newcomer, b]]
    if anchors:
        return min(anchors, key=lambda b: abs(int(np.flatnonzero(ranked == b)[0]) - at))
    candidates = [int(b) for b in near if not field.met[newcomer, b]]
    return min(candidates, key=lambda b: abs(int(np.flatnonzero(ranked == b)[0]) - at)) if candidates else None
