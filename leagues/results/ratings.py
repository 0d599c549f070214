"""Ratings with 95% intervals: Bradley–Terry for 2 players, Plackett–Luce for 3–4, as Elo.

The model: bot i has a strength θᵢ; at a table the finishing order is drawn by picking the winner
with probability exp θ over the seats left, then the next, and so on (Plackett–Luce). With two
players that is Bradley–Terry, P(i beats j) = 1 / (1 + exp(θⱼ − θᵢ)). Shared places count every
order consistent with them, each with equal weight (a 2-player draw is half a win for each).

The fit maximises the log-likelihood by Newton's method (with step halving; it is concave) plus a
weak prior: every bot is given ``PRIOR_DRAWS`` virtual drawn games against a virtual bot of
strength 0, as BayesElo does. It keeps a bot that won (or lost) everything finite; its weight is
that of one game. Intervals: the covariance is the inverse of the observed information (the negated
Hessian) at the optimum; 95% = ±1.96 standard deviations (Wald).

Elo = 1500 + θ · 400 / ln 10, with the mean over rated bots anchored at 1500 (θ is centred and the
covariance transformed with it). Against the next bot in the list: the Elo gap θᵢ − θⱼ with its
own 95% interval, ±1.96 sd(θᵢ − θⱼ) from the same covariance (narrower than the two bots' intervals
side by side, which ignore that both were fitted from the same games), and the likelihood of
superiority Φ((θᵢ − θⱼ) / sd(θᵢ − θⱼ)).

Input: the seat frame of ``hexarena.leagues.results.tables`` (games of different player counts add their likelihoods).
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pandas as pd

from hexarena.leagues.results.tables import game_matrix

PRIOR_DRAWS = 1.0
ELO_PER_UNIT = 400 / math.log(10)
ELO_MEAN = 1500.0
Z95 = 1.959963984540054


def orderings(codes: np.ndarray, placements: np.ndarray, counts: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Finishing orders (rows of bot codes, best first) with weights: a game with shared places becomes
    every order consistent with them, weighted equally and summing to 1 (to ``counts``, when a row stands
    for that many games). Equal rows are merged."""
    k = codes.shape[1]
    perms = np.array(list(itertools.permutations(range(k))))
    ordered = placements[:, perms]  # games × perms × k
    consistent = np.all(ordered[:, :, 1:] >= ordered[:, :, :-1], axis=2)
    weights = consistent / consistent.sum(axis=1, keepdims=True)
    if counts is not None:
        weights = weights * counts[:, None]
    rows = codes[:, perms][consistent]
    row_weights = weights[consistent]
    if not len(rows):
        return rows.reshape(0, k), row_weights
    base = int(rows.max()) + 1
    key = rows @ base ** np.arange(k)
    if base**k <= 1 << 22:  # few possible orders: count them directly, no sort
        totals = np.bincount(key, weights=row_weights, minlength=base**k)
        present = np.flatnonzero(totals)
        return (present[:, None] // base ** np.arange(k)) % base, totals[present]
    unique, inverse = np.unique(key, return_inverse=True)
    return (unique[:, None] // base ** np.arange(k)) % base, np.bincount(inverse, weights=row_weights)


def _terms(theta: np.ndarray, groups: list[tuple[np.ndarray, np.ndarray]]) -> tuple[float, np.ndarray, np.ndarray]:
    """Log-posterior, its gradient and the observed information (negated Hessian)."""
    n = len(theta)
    sig = 1 / (1 + np.exp(-theta))
    value = PRIOR_DRAWS / 2 * float(np.sum(np.log(sig) + np.log1p(-sig)))
    grad = PRIOR_DRAWS * (0.5 - sig)
    info = np.diag(PRIOR_DRAWS * sig * (1 - sig)).ravel()
    for rows, weights in groups:
        for stage in range(rows.shape[1] - 1):
            left = rows[:, stage:]
            strength = theta[left]
            top = strength.max(axis=1, keepdims=True)
            expo = np.exp(strength - top)
            total = expo.sum(axis=1, keepdims=True)
            prob = expo / total
            value += float(weights @ (strength[:, 0] - top[:, 0] - np.log(total[:, 0])))
            grad += np.bincount(rows[:, stage], weights=weights, minlength=n)
            for a in range(left.shape[1]):
                grad -= np.bincount(left[:, a], weights=weights * prob[:, a], minlength=n)
                for b in range(left.shape[1]):
                    term = weights * prob[:, a] * ((a == b) - prob[:, b])
                    info += np.bincount(left[:, a] * n + left[:, b], weights=term, minlength=n * n)
    return value, grad, info.reshape(n, n)


def fit(n: int, groups: list[tuple[np.ndarray, np.ndarray]], tolerance: float = 1e-9,
        start: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Strengths θ (n) and their covariance (n × n) from weighted finishing orders (``orderings``).
    ``start``: the θ to begin Newton's method from (a refit after a few more games: the last fit), else 0."""
    theta = np.zeros(n) if start is None else np.array(start, dtype=float)
    value, grad, info = _terms(theta, groups)
    for _ in range(100):
        step = np.linalg.solve(info, grad)
        for _ in range(40):
            new_value, new_grad, new_info = _terms(theta + step, groups)
            if new_value >= value - 1e-12:
                break
            step /= 2
        theta, value, grad, info = theta + step, new_value, new_grad, new_info
        if np.abs(step).max() < tolerance:
            break
    return theta, np.linalg.inv(info)


def log_likelihood(theta: np.ndarray, groups: list[tuple[np.ndarray, np.ndarray]]) -> float:
    """The maximised function (log-likelihood plus the prior), for checks."""
    return _terms(np.asarray(theta, dtype=float), groups)[0]


def ratings(frame: pd.DataFrame) -> pd.DataFrame:
    """One row per bot, best first: rank, bot, games, elo, elo_low, elo_high (95%); then against the
    next bot in the list (empty for the last): gap, gap_low, gap_high (Elo, 95%) and los (likelihood of
    superiority, %)."""
    names = np.asarray(frame["bot"].cat.categories, dtype=object)
    games = frame["weight"] if "weight" in frame else pd.Series(1, index=frame.index)
    played = games.groupby(frame["bot"], observed=False).sum().reindex(names).to_numpy()
    groups = [orderings(*game_matrix(frame, int(k))) for k in sorted(frame["players"].unique())]
    keep = np.flatnonzero(played > 0)
    remap = np.full(len(names), -1)
    remap[keep] = np.arange(len(keep))
    theta, cov = fit(len(keep), [(remap[rows], weights) for rows, weights in groups])
    centre = np.eye(len(keep)) - 1 / max(len(keep), 1)
    theta, cov = centre @ theta, centre @ cov @ centre.T
    sd = np.sqrt(np.clip(np.diag(cov), 0, None))
    order = np.argsort(-theta, kind="stable")
    table = pd.DataFrame({
        "rank": np.arange(1, len(keep) + 1),
        "bot": names[keep][order],
        "games": played[keep][order].astype(int),
        "elo": ELO_MEAN + ELO_PER_UNIT * theta[order],
        "elo_low": ELO_MEAN + ELO_PER_UNIT * (theta - Z95 * sd)[order],
        "elo_high": ELO_MEAN + ELO_PER_UNIT * (theta + Z95 * sd)[order],
    })
    gaps = [gap(theta, cov, i, j) for i, j in itertools.zip_longest(order, order[1:])]
    for column, values in zip(("gap", "gap_low", "gap_high", "los"), zip(*gaps)):
        table[column] = values
    return table


def gap(theta: np.ndarray, cov: np.ndarray, i: int, j: int | None) -> tuple[float, float, float, float]:
    """Elo gap θᵢ − θⱼ, its 95% interval, and P(θᵢ > θⱼ) in % (normal approximation); NaNs without a j."""
    if j is None:
        return (math.nan,) * 4
    spread = math.sqrt(max(cov[i, i] + cov[j, j] - 2 * cov[i, j], 1e-300))
    difference = theta[i] - theta[j]
    superiority = 100 * 0.5 * math.erfc(-difference / spread / math.sqrt(2))
    return (ELO_PER_UNIT * difference, ELO_PER_UNIT * (difference - Z95 * spread),
            ELO_PER_UNIT * (difference + Z95 * spread), superiority)
