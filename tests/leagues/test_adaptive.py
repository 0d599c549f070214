"""The adaptive scheduler's choices on hand-made rating tables (``hexarena.leagues.results.adaptive``)."""

from __future__ import annotations

import numpy as np
import pytest

from hexarena.leagues.results.adaptive import Field, Pairing, expected_information, next_tables, refit
from hexarena.leagues.results.ratings import ELO_PER_UNIT


def table(elos: list[float], sds: list[float], met: np.ndarray | None = None, anchors=frozenset()) -> Field:
    """A field of given ratings (Elo around 0) and independent standard deviations (Elo)."""
    n = len(elos)
    theta = np.array(elos) / ELO_PER_UNIT
    cov = np.diag((np.array(sds) / ELO_PER_UNIT) ** 2)
    met = np.zeros((n, n)) if met is None else met
    return Field(tuple(f"b{i}" for i in range(n)), theta, cov, met, frozenset(anchors))


def played(n: int, games: int) -> np.ndarray:
    """Every bot ``games`` games, spread over far-away pairs (so the fair share allows the near ones)."""
    met = np.zeros((n, n))
    for i in range(n):
        met[i, (i + n // 2) % n] = met[(i + n // 2) % n, i] = games
    return met


def test_the_least_certain_neighbours_play_first():
    # b1 and b2 are 5 Elo apart with wide intervals; b0 is 400 Elo above b1 and known well
    field = table([400, 0, -5, -600], [20, 60, 60, 20], played(4, 40))
    batch = next_tables(field, Pairing())
    first = batch.tables[0]
    assert {first.a, first.b} == {"b1", "b2"} and first.reason == "neighbours"
    assert first.low < first.gap < first.high
    assert first.information == pytest.approx(max(t.information for t in batch.tables))
    # each bot at one table per batch
    seated = [name for t in batch.tables for name in (t.a, t.b)]
    assert len(seated) == len(set(seated))


def test_information_falls_as_the_order_settles():
    field = table([0, 30, 300], [40, 40, 40])
    near, far = expected_information(field, np.array([0, 0]), np.array([1, 2]), 2)
    assert near > far > 0


def test_separated_neighbours_stop_the_league():
    field = table([600, 300, 0, -300], [10, 10, 10, 10], played(4, 40))
    batch = next_tables(field, Pairing())
    assert batch.tables == [] and batch.stop == "separated"


def test_the_budget_stops_the_league_and_a_new_version_still_plays():
    met = played(4, 40)
    field = table([10, 0, -10, -20], [60, 60, 60, 60], met)
    assert next_tables(field, Pairing(budget=40)).stop == "budget"
    grown = np.zeros((5, 5))
    grown[:4, :4] = met
    newcomer = table([10, 0, -10, -20, 0], [60, 60, 60, 60, 800], grown)
    batch = next_tables(newcomer, Pairing(budget=40))
    assert batch.tables and all("b4" in (t.a, t.b) for t in batch.tables)
    assert next_tables(field, Pairing(league_budget=int(met.sum() // 2))).stop == "budget"


def test_a_new_version_meets_bots_spread_over_the_range_anchors_first():
    n = 21
    elos = [1000 - 100 * i for i in range(n - 1)] + [0]
    met = np.zeros((n, n))
    met[: n - 1, : n - 1] = played(n - 1, 40)[: n - 1, : n - 1]
    field = table(elos, [20] * (n - 1) + [800], met, anchors={"b9"})
    batch = next_tables(field, Pairing(spread=3))
    calibration = [t for t in batch.tables if t.reason == "calibration"]
    opponents = [t.b for t in calibration]
    assert [t.a for t in calibration] == ["b20"] * 3
    # quantiles ½, ¼, ¾ of the 20 established bots (best first): places 10 (b9 is an anchor near it), 5, 14
    assert opponents == ["b9", "b5", "b14"]


def test_fair_share_caps_games_against_one_opponent():
    n = 9  # a share of 0.25 is twice an even one (2 / 8)
    met = played(n, 10)
    met[0, 1] = met[1, 0] = 10  # b0 and b1: 10 of their 30 games against each other
    field = table([0, 1, 180, 120, 60, -60, -120, -180, -240], [50] * n, met)
    tables = next_tables(field, Pairing(share=0.25)).tables
    assert tables and all({t.a, t.b} != {"b0", "b1"} for t in tables)
    first = next_tables(field, Pairing(share=0.75)).tables[0]
    assert {first.a, first.b} == {"b0", "b1"}


def test_a_new_league_pairs_every_bot_once_at_random_and_the_refit_orders_them():
    n = 10
    field = refit([f"b{i}" for i in range(n)], np.zeros((n, n)), np.zeros((n, n)))
    batch = next_tables(field, Pairing(seed=3))
    assert len(batch.tables) == n // 2 and {t.reason for t in batch.tables} == {"opening"}
    assert sorted(name for t in batch.tables for name in (t.a, t.b)) == sorted(field.names)
    # warm start: the same optimum as from zero
    points = np.zeros((n, n))
    met = np.zeros((n, n))
    for i in range(n - 1):  # a chain: each beats the next 3 of 4
        points[i, i + 1], points[i + 1, i] = 3, 1
        met[i, i + 1] = met[i + 1, i] = 4
    cold = refit(field.names, points, met)
    warm = refit(field.names, points, met, start=cold.theta + 0.3)
    assert np.allclose(cold.theta, warm.theta, atol=1e-6)
    assert list(np.argsort(-cold.theta)) == list(range(n))



def anchored_results(newcomer_games: int) -> tuple[list[str], np.ndarray, np.ndarray]:
    """Three reference bots r0–r2 and two others f0, f1, 30 games a pair (the earlier name takes two in three),
    and a new version that played only the reference bots, ``newcomer_games`` each, scoring 60%."""
    names = ["r0", "r1", "r2", "f0", "f1", "new"]
    n = len(names)
    points, met = np.zeros((n, n)), np.zeros((n, n))
    for i in range(n - 1):
        for j in range(i + 1, n - 1):
            met[i, j] = met[j, i] = 30
            points[i, j], points[j, i] = 20, 10
    for j in range(3):
        met[5, j] = met[j, 5] = newcomer_games
        points[5, j], points[j, 5] = 0.6 * newcomer_games, 0.4 * newcomer_games
    return names, points, met


def test_anchors_are_held_so_a_new_version_interval_is_its_own_uncertainty():
    names, points, met = anchored_results(newcomer_games=70)
    reference = frozenset({"r0", "r1", "r2"})
    free = refit(names, points, met)
    anchored = refit(names, points, met, anchors=reference)  # the reference bots have 190 games each
    assert anchored.held == reference
    assert np.allclose(anchored.theta, free.theta)  # held at the league's own estimate: the ratings do not move
    # its variance is the inverse of its own information against known opponents, Σ g·p(1 − p), plus the
    # fit's prior (one virtual draw against a bot at 0): it met no bot that is not held
    theta = anchored.theta
    p = 1 / (1 + np.exp(theta[:3] - theta[5]))
    s = 1 / (1 + np.exp(-theta[5]))
    own = 70 * float(np.sum(p * (1 - p))) + s * (1 - s)
    half = anchored.half_widths()
    assert half[5] == pytest.approx(ELO_PER_UNIT * 1.959963984540054 / np.sqrt(own), rel=1e-6)
    assert half[5] < 50 and anchored.elo(5)[1] == half[5]  # 210 games: within the precision rule's ±50
    # not held, its interval against the same frame (the anchors' mean) is never narrower: here about as wide,
    # since it met the three alike (their errors against their mean cancel); what holding removes is the
    # anchors' uncertainty against the field (the frame the intervals have without anchors)
    against = np.array([-1 / 3, -1 / 3, -1 / 3, 0, 0, 1])
    joint = ELO_PER_UNIT * 1.959963984540054 * np.sqrt(against @ free.cov @ against)
    assert half[5] <= joint < half[5] + 1
    assert list(half[:3]) == [0, 0, 0] and (half[3:5] > 0).all()  # the others, measured against the anchors
    # a reference bot with fewer games than ANCHOR_GAMES is not held; all bots held would leave no frame: none
    assert refit(names, points, met, anchors=frozenset({"r0"}), anchor_games=10_000).held == frozenset()
    everyone = refit(names, points, met, anchors=frozenset(names), anchor_games=1)
    assert everyone.held == frozenset() and np.allclose(everyone.cov, free.cov)


def test_a_wide_bot_whose_neighbours_are_used_up_plays_further_down_the_field():
    n = 11  # b10: a new version above the whole field, its 3 neighbours met 4 times each (12 of its 12 games)
    elos = [600 - 100 * i for i in range(n - 1)] + [1000]
    met = played(n - 1, 40)
    met = np.pad(met, ((0, 1), (0, 1)))
    for b in range(3):
        met[10, b] = met[b, 10] = 4
    field = table(elos, [10] * (n - 1) + [150], met)
    batch = next_tables(field, Pairing())
    mine = [t for t in batch.tables if "b10" in (t.a, t.b)]
    assert len(mine) == 1 and mine[0].reason == "precision"
    assert {mine[0].a, mine[0].b} - {"b10"} <= {f"b{i}" for i in range(3, n - 1)}  # beyond its window
