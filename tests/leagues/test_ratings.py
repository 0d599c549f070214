"""Ratings on synthetic records: Bradley–Terry (2 players) and Plackett–Luce (3–4) with 95% intervals."""

import itertools
import random

import numpy as np
import pytest

from hexarena.leagues.results.ratings import ELO_MEAN, fit, log_likelihood, orderings, ratings
from hexarena.leagues.results.tables import game_matrix, seat_frame
from hexarena.referee.record import BoardConfig, GameRecord, Result


def game(number: int, seats: list[str], scores: list[int], misere: bool = False) -> GameRecord:
    """A finished game with these scores; placements follow the rules (equal scores share a place)."""
    placements = [1 + sum(other > mine for other in scores) for mine in scores]
    config = BoardConfig(size="3x3", players=len(seats), misere=misere)
    return GameRecord(id=f"g{number:06d}", config=config, seats=seats, result=Result(scores=scores, placements=placements))


def plackett_luce_games(strengths: dict[str, float], players: int, count: int, seed: int) -> list[GameRecord]:
    """Games whose finishing orders are drawn from Plackett–Luce with the given strengths (Gumbel trick)."""
    rng = random.Random(seed)
    records = []
    for number in range(count):
        seats = rng.sample(sorted(strengths), players)
        noisy = [strengths[bot] + -np.log(-np.log(rng.random())) for bot in seats]
        order = sorted(range(players), key=lambda s: -noisy[s])
        scores = [0] * players
        for place, seat in enumerate(order):
            scores[seat] = players - place
        records.append(game(number, seats, scores))
    return records


def test_a_bot_that_always_wins_is_first_with_an_interval_excluding_the_others():
    rng = random.Random(7)
    records = []
    for a, b in itertools.permutations(["ace", "bee", "cat", "dog"], 2):
        for _ in range(10):
            if "ace" in (a, b):
                scores = [5, 4] if a == "ace" else [4, 5]
            else:
                scores = rng.choice([[5, 4], [4, 5], [4, 4]])
            records.append(game(len(records), [a, b], scores))
    table = ratings(seat_frame(records))
    assert table["bot"].iloc[0] == "ace"
    assert table["elo_low"].iloc[0] > table["elo_high"].iloc[1:].max()
    assert table["los"].iloc[0] > 99.9
    # the gap to the next bot: Elo difference with an interval that excludes 0 for ace only
    assert table["gap"].iloc[0] == pytest.approx(table["elo"].iloc[0] - table["elo"].iloc[1])
    assert 0 < table["gap_low"].iloc[0] < table["gap"].iloc[0] < table["gap_high"].iloc[0]
    assert all(table["gap_low"].iloc[1:3] < 0)
    assert table[["gap", "gap_low", "gap_high", "los"]].iloc[-1].isna().all()
    assert table["elo"].mean() == pytest.approx(ELO_MEAN)
    assert list(table["games"]) == [60, 60, 60, 60]


def test_the_fit_is_the_maximum_of_the_penalised_likelihood():
    records = plackett_luce_games({"a": 0.0, "b": 0.4, "c": 1.0, "d": -0.3, "e": 0.2}, 3, 300, seed=1)
    frame = seat_frame(records)
    groups = [orderings(*game_matrix(frame, 3))]
    theta, cov = fit(5, groups)
    best = log_likelihood(theta, groups)
    for i in range(5):
        step = np.eye(5)[i] * 1e-4
        gradient = (log_likelihood(theta + step, groups) - log_likelihood(theta - step, groups)) / 2e-4
        assert abs(gradient) < 1e-4
        assert log_likelihood(theta + 100 * step, groups) < best
    assert np.all(np.linalg.eigvalsh(cov) > 0)


@pytest.mark.parametrize("players", [2, 3, 4])
def test_strengths_are_recovered_within_their_intervals(players):
    strengths = {"a": -1.0, "b": -0.5, "c": 0.0, "d": 0.5, "e": 1.0}
    table = ratings(seat_frame(plackett_luce_games(strengths, players, 4000, seed=players)))
    assert list(table["bot"]) == ["e", "d", "c", "b", "a"]
    true_elo = {bot: ELO_MEAN + 400 / np.log(10) * s for bot, s in strengths.items()}  # the strengths' mean is 0
    inside = [row.elo_low <= true_elo[row.bot] <= row.elo_high for row in table.itertuples()]
    assert sum(inside) >= 4  # 95% intervals: one miss in five is possible, two would be a bad sign
    assert all(table["los"].iloc[:-1] > 95)


def test_draws_count_half_and_equal_bots_rate_equal():
    # 40 draws; 20 decided games, seat 0 wins each and x and y take seat 0 in turn
    records = [game(n, ["x", "y"] if n % 2 else ["y", "x"], [3, 3] if n % 3 else [4, 2]) for n in range(60)]
    table = ratings(seat_frame(records))
    assert table["elo"].tolist() == pytest.approx([ELO_MEAN, ELO_MEAN])
    assert table["los"].iloc[0] == pytest.approx(50)


def test_shared_places_spread_over_every_consistent_order():
    codes = np.array([[0, 1, 2]])
    rows, weights = orderings(codes, np.array([[1, 1, 3]]))
    assert sorted(map(tuple, rows)) == [(0, 1, 2), (1, 0, 2)] and weights.tolist() == [0.5, 0.5]
    rows, weights = orderings(codes, np.array([[1, 1, 1]]))
    assert len(rows) == 6 and weights.sum() == pytest.approx(1)
