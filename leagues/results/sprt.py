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

The GSPRT, the generalized log-likelihood ratio of the pentanomial frequencies (fishtest
``LLRcalc``: ``MLE_expected``, ``MLE_t_value``, ``secular``; Van den Bergh, "GSPRT for pentanomial
results", hardy.uhasselt.be/Fishtest/): each hypothesis j constrains the distribution, and pⱼ is
the distribution closest to p̂ (maximum likelihood) under that constraint;

    LLR = N · Σ p̂ᵢ ln(p₁ᵢ / p₀ᵢ)

    logistic model, H: μ = sⱼ with sⱼ = 1 / (1 + 10^(−Eloⱼ / 400)):
        pⱼᵢ = p̂ᵢ / (1 + x vᵢ),  vᵢ = aᵢ − sⱼ,  x the root of Σ p̂ᵢ vᵢ / (1 + x vᵢ) = 0 (the secular
        equation, a bisection on −1/max v < x < −1/min v)
    normalized model (the default, fastchess's), H: (μ − ½) / σ = tⱼ, tⱼ = √2 · nEloⱼ / (800 / ln 10)
    (σ the per-pair deviation, √2 σ the per-game one): the same, with
        vᵢ = aᵢ − ½ − tⱼ σ (1 + ((μ − aᵢ) / σ)²) / 2, μ and σ those of pⱼ, iterated from the uniform distribution to a fixed point

Stop when LLR ≤ ln(β / (1 − α)) (H0 accepted) or LLR ≥ ln((1 − β) / α) (H1 accepted).
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from statistics import NormalDist

from hexarena.protocol.errors import ConfigError

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
        for name, value in (("elo0", self.elo0), ("elo1", self.elo1)):
            if not math.isfinite(value):
                raise ConfigError(f"--{name} must be a finite Elo difference, got {value:g}")
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
    regular = [max(n, 1e-3) for n in counts]
    total = sum(regular)
    observed = [n / total for n in regular]
    fitted = [constrained_mle(observed, elo, hypotheses.model) for elo in (hypotheses.elo0, hypotheses.elo1)]
    return total * sum(p * math.log(one / zero) for p, zero, one in zip(observed, *fitted))


SCORES = (0.0, 0.25, 0.5, 0.75, 1.0)  # a pair's per-game score, by pentanomial slot


def constrained_mle(observed: list[float], elo: float, model: str) -> list[float]:
    """The distribution of most likelihood for ``observed`` whose mean score (logistic) or t-value
    (normalized) is that of ``elo`` (module docstring)."""
    if model == "logistic":
        target = 1 / (1 + 10 ** (-elo / 400))
        return _reweigh(observed, [a - target for a in SCORES])
    t = math.sqrt(2) * elo / NELO_PER_UNIT
    fitted = [1 / len(SCORES)] * len(SCORES)  # from the uniform distribution, as fishtest's MLE_t_value
    for _ in range(100):
        mean = sum(p * a for p, a in zip(fitted, SCORES))
        sigma = math.sqrt(sum(p * (a - mean) ** 2 for p, a in zip(fitted, SCORES)))
        shifts = [a - 0.5 - t * sigma * (1 + ((mean - a) / sigma) ** 2) / 2 for a in SCORES]
        previous, fitted = fitted, _reweigh(observed, shifts)
        if max(abs(x - y) for x, y in zip(previous, fitted)) < 1e-12:
            break
    return fitted


def _reweigh(observed: list[float], shifts: list[float]) -> list[float]:
    """p̂ᵢ / (1 + x vᵢ), x the root of the secular equation Σ p̂ᵢ vᵢ / (1 + x vᵢ) = 0 (by bisection)."""
    if min(shifts) >= 0 or max(shifts) <= 0:  # no root: the constraint holds nowhere near p̂
        return observed
    low, high = -1 / max(shifts), -1 / min(shifts)
    for _ in range(200):
        x = (low + high) / 2
        if sum(p * v / (1 + x * v) for p, v in zip(observed, shifts)) > 0:
            low = x
        else:
            high = x
    x = (low + high) / 2
    return [p / (1 + x * v) for p, v in zip(observed, shifts)]


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
    # +1 (-1): every pair won (lost) by the first bot, so Elo is +inf (-inf) and only a bound is known: ``elo_bound``,
    # the 95% one-sided bound of its per-pair score s with s**pairs = 0.05, as Elo (what fastchess shows as inf)
    one_sided: int = 0
    elo_bound: float = math.nan


def estimate(counts: list[int], draws: int | None = None) -> Estimate:
    """Elo ± 95%, nElo ±, LOS from pentanomial counts; ``draws`` (games drawn) gives the draw ratio."""
    pairs = sum(counts)
    if pairs == 0:
        return Estimate(0, math.nan, math.nan, math.nan, math.nan, math.nan, math.nan)
    total, mean, variance = _moments(counts)
    spread = math.sqrt(variance / total)
    low, high = max(mean - Z95 * spread, 1e-9), min(mean + Z95 * spread, 1 - 1e-9)
    side = 1 if counts[4] == pairs else -1 if counts[0] == pairs else 0
    if side:
        bound = elo(0.05 ** (1 / pairs))
        return Estimate(pairs=pairs, elo=side * math.inf, elo_error=math.nan, nelo=side * math.inf, nelo_error=math.nan,
                        los=100.0 if side > 0 else 0.0, draw_ratio=math.nan if draws is None else draws / (2 * pairs),
                        one_sided=side, elo_bound=side * bound)
    return Estimate(
        pairs=pairs,
        elo=elo(mean),
        elo_error=(elo(high) - elo(low)) / 2,
        nelo=(mean - 0.5) / math.sqrt(2 * variance) * NELO_PER_UNIT,
        nelo_error=Z95 / math.sqrt(2 * total) * NELO_PER_UNIT,
        los=100 * NormalDist().cdf((mean - 0.5) / spread),
        draw_ratio=math.nan if draws is None else draws / (2 * pairs),
    )


def elo_text(result: Estimate | dict, digits: int = 1) -> str:
    """The Elo estimate as a person reads it: ``+12.3 +/- 45.6``; ``+inf (95%: at least +34.4)`` when every pair
    went one way (a symmetric interval would be meaningless); ``no pair finished yet`` before the first."""
    get = result.get if isinstance(result, dict) else lambda key, default=None: getattr(result, key, default)
    if not get("pairs"):
        return "no pair finished yet"
    if get("one_sided", 0):
        side = get("one_sided")
        return f"{'+' if side > 0 else '-'}inf (95%: at {'least' if side > 0 else 'most'} {get('elo_bound'):+.{digits}f})"
    return f"{get('elo'):+.{digits}f} +/- {get('elo_error'):.{digits}f}"


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
    nelo = f"{result['nelo']:.2f} +/- {result['nelo_error']:.2f}" if not result.get("one_sided") and result["pairs"] \
        else elo_text(result, 2).split(" (")[0]
    estimates = [f"Elo: {elo_text(result, 2)}, nElo: {nelo}",
                 f"LOS: {result['los']:.2f} %, DrawRatio: {100 * result['draw_ratio']:.2f} %, "
                 f"PairsRatio: {pairs_ratio(result['pentanomial']):.2f}"] if result["pairs"] else \
        ["Elo: no pair finished yet, so no estimate"]  # not nan
    return "\n".join([
        *estimates,
        f"Games: {result['games']}, Pairs: {result['pairs']}, Ptnml(0-2): [{penta}]",
        f"LLR: {result['llr']:.2f} ({result['lower']:.2f}, {result['upper']:.2f}) "
        f"[{h['elo0']:g}, {h['elo1']:g}] {unit}, alpha {h['alpha']:g}, beta {h['beta']:g}",
    ])


def pairs_ratio(pentanomial: dict) -> float:
    """(WW + WD) / (LL + LD), fastchess's pairs ratio (inf when no pair was lost)."""
    good, bad = pentanomial["WW"] + pentanomial["WD"], pentanomial["LL"] + pentanomial["LD"]
    return good / bad if bad else math.inf
