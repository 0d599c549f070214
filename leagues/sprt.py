"""Is the new bot better? Pentanomial statistics and the generalized SPRT, as fastchess and fishtest compute them.

Pure arithmetic, no games. The unit is a *pair*: two games from one start position, the seats
swapped. The new bot scores 0, ½ or 1 a game, so 0 … 2 a pair; ``counts`` are the pentanomial
frequencies ``[LL, LD, DD+WL, WD, WW]`` (pair score 0, ½, 1, 1½, 2).

Formulas (fishtest ``stat_util``/``LLRcalc``, fastchess ``sprt.cpp``; the model is Michel Van den
Bergh's normalized Elo, "Normalized Elo", hardy.uhasselt.be/Fishtest/normalized_elo_practical.pdf):

    N      = Σ nᵢ (pairs);  every nᵢ = 0 is first replaced by 10⁻³ (fishtest's ``regularize``)
    pᵢ     = nᵢ / N,  aᵢ = i / 4                        per-game score of a pair, i = 0 … 4
    μ      = Σ pᵢ aᵢ,  σ² = Σ pᵢ (aᵢ − μ)²              mean and variance of a pair's per-game score
    Elo(s) = −400 log₁₀(1/s − 1)                          the logistic model
    Elo ±  = (Elo(μ + z σ/√N) − Elo(μ − z σ/√N)) / 2,  z = Φ⁻¹(0.975) = 1.95996…
    nElo   = (μ − ½) / √(2σ²) · 800 / ln 10               √(2σ²) is the per-game standard deviation
    nElo ± = z / √(2N) · 800 / ln 10
    LOS    = Φ((μ − ½) / (σ/√N))                          likelihood of superiority

The GSPRT (Van den Bergh's approximation of the generalized log-likelihood ratio, fishtest
``LLRcalc.LLR_alt2``, fastchess ``SPRT::getLLR``; hardy.uhasselt.be/Fishtest/GSPRT_approximation.pdf):
the hypotheses H0: elo = elo0 and H1: elo = elo1 each fix the mean score μ₀, μ₁, and with
rⱼ = Σ pᵢ (aᵢ − μⱼ)² = σ² + (μ − μⱼ)²

    LLR = N / 2 · ln(r₀ / r₁)

(it grows slowly when the true difference lies far beyond elo1: pick elo1 near the size you expect.)

Normalized model (the default, fastchess's): μⱼ = ½ + nEloⱼ / (800 / ln 10) · √(2σ²).
Logistic model: μⱼ = 1 / (1 + 10^(−Eloⱼ / 400)).
Stop when LLR ≤ ln(β / (1 − α)) (H0 accepted) or LLR ≥ ln((1 − β) / α) (H1 accepted).
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from statistics import NormalDist

from protocol.errors import ConfigError

Z95 = NormalDist().inv_cdf(0.975)
NELO_PER_UNIT = 800 / math.log(10)  # nElo = this · (μ − ½) / per-game standard deviation
PAIR_NAMES = ("LL", "LD", "DD+WL", "WD", "WW")
MODELS = ("normalized", "logistic")


@dataclass(frozen=True)
class Hypotheses:
    """H0: elo = elo0 against H1: elo = elo1, error rates α (accepting H1 wrongly) and β (accepting H0 wrongly)."""

    elo0: float = 0.0
    elo1: float = 5.0
    alpha: float = 0.05
    beta: float = 0.05
    model: str = "normalized"

    def __post_init__(self) -> None:
        if not self.elo0 < self.elo1:
            raise ConfigError(f"--elo0 ({self.elo0:g}) must be below --elo1 ({self.elo1:g})")
        for name, value in (("alpha", self.alpha), ("beta", self.beta)):
            if not 0 < value < 0.5:
                raise ConfigError(f"--{name} must be in (0, 0.5), got {value:g}")
        if self.model not in MODELS:
            raise ConfigError(f"--model must be one of: {', '.join(MODELS)}, got {self.model!r}")

    @property
    def lower(self) -> float:
        """ln(β / (1 − α)): at or below it, H0 is accepted."""
        return math.log(self.beta / (1 - self.alpha))

    @property
    def upper(self) -> float:
        """ln((1 − β) / α): at or above it, H1 is accepted."""
        return math.log((1 - self.beta) / self.alpha)


def pair_index(first: float, second: float) -> int:
    """The pentanomial slot of a pair from the new bot's two game scores (each 0, ½ or 1)."""
    return round(2 * (first + second))


def pentanomial(records: list, name: str) -> tuple[list[int], int]:
    """Pentanomial counts and games drawn of bot ``name`` from game records taken two by two, each
    two a seat-swapped pair from one start position (2 players); two records that are not are skipped."""
    counts, draws = [0] * 5, 0
    for one, two in zip(records[::2], records[1::2]):
        if name not in one.seats or one.seats != two.seats[::-1] or one.opening != two.opening:
            continue
        scores = [game_score(record, record.seats.index(name)) for record in (one, two)]
        counts[pair_index(*scores)] += 1
        draws += sum(score == 0.5 for score in scores)
    return counts, draws


def game_score(record, seat: int) -> float:
    """1 for a win, ½ for a draw (first place shared), 0 for a loss."""
    placements = record.result.placements
    if placements[seat] != min(placements):
        return 0.0
    return 0.5 if placements.count(placements[seat]) > 1 else 1.0


def _moments(counts: list[int]) -> tuple[float, float, float]:
    """N, μ and σ² of the pair per-game score (zero counts regularized to 10⁻³, as fishtest)."""
    if len(counts) != 5:
        raise ValueError("pentanomial counts are five numbers: LL, LD, DD+WL, WD, WW")
    regular = [max(n, 1e-3) for n in counts]
    total = sum(regular)
    mean = sum(n * i / 4 for i, n in enumerate(regular)) / total
    variance = sum(n * (i / 4 - mean) ** 2 for i, n in enumerate(regular)) / total
    return total, mean, variance


def elo(score: float) -> float:
    """The logistic Elo difference of an expected score in (0, 1)."""
    return -400 * math.log10(1 / score - 1)


def llr(counts: list[int], hypotheses: Hypotheses) -> float:
    """The GSPRT log-likelihood ratio of H1 over H0 (module docstring); 0 before any pair."""
    if sum(counts) == 0:
        return 0.0
    total, mean, variance = _moments(counts)
    if hypotheses.model == "normalized":
        scale = math.sqrt(2 * variance) / NELO_PER_UNIT
        mean0, mean1 = 0.5 + hypotheses.elo0 * scale, 0.5 + hypotheses.elo1 * scale
    else:
        mean0, mean1 = (1 / (1 + 10 ** (-e / 400)) for e in (hypotheses.elo0, hypotheses.elo1))
    return total / 2 * math.log((variance + (mean - mean0) ** 2) / (variance + (mean - mean1) ** 2))


@dataclass(frozen=True)
class Estimate:
    """What the pairs say so far (module docstring): Elo, nElo and their 95% half-widths, LOS in %."""

    pairs: int
    elo: float
    elo_error: float
    nelo: float
    nelo_error: float
    los: float
    draw_ratio: float  # share of games drawn, when known (``estimate(..., draws=)``), else nan


def estimate(counts: list[int], draws: int | None = None) -> Estimate:
    """Elo ± 95%, nElo ±, LOS from pentanomial counts; ``draws`` (games drawn) gives the draw ratio."""
    pairs = sum(counts)
    if pairs == 0:
        return Estimate(0, math.nan, math.nan, math.nan, math.nan, math.nan, math.nan)
    total, mean, variance = _moments(counts)
    spread = math.sqrt(variance / total)
    low, high = max(mean - Z95 * spread, 1e-9), min(mean + Z95 * spread, 1 - 1e-9)
    return Estimate(
        pairs=pairs,
        elo=elo(mean),
        elo_error=(elo(high) - elo(low)) / 2,
        nelo=(mean - 0.5) / math.sqrt(2 * variance) * NELO_PER_UNIT,
        nelo_error=Z95 / math.sqrt(2 * total) * NELO_PER_UNIT,
        los=100 * NormalDist().cdf((mean - 0.5) / spread),
        draw_ratio=math.nan if draws is None else draws / (2 * pairs),
    )


def verdict(value: float, hypotheses: Hypotheses) -> str | None:
    """``"H1 accepted"``, ``"H0 accepted"`` once the LLR crosses a bound, else None (keep playing)."""
    if value >= hypotheses.upper:
        return "H1 accepted"
    if value <= hypotheses.lower:
        return "H0 accepted"
    return None


def report(counts: list[int], hypotheses: Hypotheses, draws: int | None = None, games: int | None = None) -> dict:
    """Everything a run prints, as one dict (``hexarena sprt --json``)."""
    value = llr(counts, hypotheses)
    return {"pairs": sum(counts), "games": 2 * sum(counts) if games is None else games,
            "pentanomial": dict(zip(PAIR_NAMES, counts)), **asdict(estimate(counts, draws)),
            "llr": value, "lower": hypotheses.lower, "upper": hypotheses.upper, "verdict": verdict(value, hypotheses),
            "hypotheses": asdict(hypotheses)}


def describe(result: dict) -> str:
    """The report in the conventions engine authors know (fastchess's layout)."""
    h = result["hypotheses"]
    penta = ", ".join(f"{name} {n}" for name, n in result["pentanomial"].items())
    unit = "nElo" if h["model"] == "normalized" else "Elo"
    return "\n".join([
        f"Elo: {result['elo']:.2f} +/- {result['elo_error']:.2f}, nElo: {result['nelo']:.2f} +/- "
        f"{result['nelo_error']:.2f}",
        f"LOS: {result['los']:.2f} %, DrawRatio: {100 * result['draw_ratio']:.2f} %, "
        f"PairsRatio: {pairs_ratio(result['pentanomial']):.2f}",
        f"Games: {result['games']}, Pairs: {result['pairs']}, Ptnml(0-2): [{penta}]",
        f"LLR: {result['llr']:.2f} ({result['lower']:.2f}, {result['upper']:.2f}) "
        f"[{h['elo0']:g}, {h['elo1']:g}] {unit}, alpha {h['alpha']:g}, beta {h['beta']:g}",
    ])


def pairs_ratio(pentanomial: dict) -> float:
    """(WW + WD) / (LL + LD), fastchess's pairs ratio (inf when no pair was lost)."""
    good, bad = pentanomial["WW"] + pentanomial["WD"], pentanomial["LL"] + pentanomial["LD"]
    return good / bad if bad else math.inf
