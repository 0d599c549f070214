"""``leagues/results/sprt.py`` against a reference written here from the formulas, and ``hexarena sprt`` as a user runs it."""

from __future__ import annotations

import json
import re
import math
import subprocess
from pathlib import Path

import pytest
from helpers import BOTS, HEXARENA, ROOT, wait_for

from hexarena.leagues.results import sprt
from hexarena.protocol.errors import ConfigError
from hexarena.referee.record import GameRecord

GREEDY, RANDOM = str(BOTS / "greedy"), str(BOTS / "random")


def constrained_fit(observed, values, elo, model):
    """The most likely distribution under the hypothesis, by a general optimizer (not sprt's secular equation)."""
    from scipy.optimize import minimize

    def moments(p):
        mu = sum(a * q for a, q in zip(values, p))
        return mu, math.sqrt(sum(q * (a - mu) ** 2 for a, q in zip(values, p)))

    if model == "logistic":
        constraint = lambda p: moments(p)[0] - 1 / (1 + 10 ** (-elo / 400))  # noqa: E731
    else:  # the per-pair t-value is sqrt(2) times the per-game one, nElo / (800 / ln 10)
        constraint = lambda p: (moments(p)[0] - 0.5) / moments(p)[1] - math.sqrt(2) * elo * math.log(10) / 800  # noqa: E731
    fit = minimize(lambda p: -sum(o * math.log(q) for o, q in zip(observed, p)), [0.2] * 5, method="SLSQP",
                   bounds=[(1e-9, 1)] * 5, constraints=[{"type": "eq", "fun": lambda p: sum(p) - 1},
                                                        {"type": "eq", "fun": constraint}],
                   options={"ftol": 1e-15, "maxiter": 1000})
    return fit.x


def reference(counts, elo0, elo1, alpha, beta, model="normalized"):
    """Fishtest's recipe, written out again: regularize, per-game pair scores, mean, variance, the GSPRT."""
    n = [c if c else 0.001 for c in counts]
    total = n[0] + n[1] + n[2] + n[3] + n[4]
    values = [0.0, 0.25, 0.5, 0.75, 1.0]
    mu = sum(v * c for v, c in zip(values, n)) / total
    var = sum(c * (v - mu) ** 2 for v, c in zip(values, n)) / total
    observed = [c / total for c in n]
    p0, p1 = (constrained_fit(observed, values, elo, model) for elo in (elo0, elo1))
    llr = total * sum(o * math.log(b / a) for o, a, b in zip(observed, p0, p1))

    def to_elo(s):
        return -400 * math.log10(1 / s - 1)

    z = 1.959963984540054
    half = z * math.sqrt(var / total)
    phi = 0.5 * (1 + math.erf((mu - 0.5) / math.sqrt(var / total) / math.sqrt(2)))
    return {"llr": llr, "elo": to_elo(mu), "elo_error": (to_elo(mu + half) - to_elo(mu - half)) / 2,
            "nelo": (mu - 0.5) / math.sqrt(2 * var) * 800 / math.log(10),
            "nelo_error": z / math.sqrt(2 * total) * 800 / math.log(10), "los": 100 * phi,
            "lower": math.log(beta / (1 - alpha)), "upper": math.log((1 - beta) / alpha)}


@pytest.mark.parametrize("counts", [[3, 20, 55, 30, 4], [0, 5, 40, 12, 1], [10, 0, 0, 0, 30], [1, 1, 1, 1, 1]])
@pytest.mark.parametrize("model", ["normalized", "logistic"])
def test_arithmetic_matches_the_formulas(counts, model):
    hypotheses = sprt.Hypotheses(-2, 8, 0.05, 0.1, model)
    got = sprt.report(counts, hypotheses)
    expected = reference(counts, -2, 8, 0.05, 0.1, model)
    for key, value in expected.items():
        tolerance = (1e-4, 1e-6) if key == "llr" else (1e-9, 1e-12)  # the reference's optimizer is less exact
        assert got[key] == pytest.approx(value, rel=tolerance[0], abs=tolerance[1]), key
    assert got["pairs"] == sum(counts)


def test_hand_values_and_verdicts():
    h = sprt.Hypotheses()
    assert h.lower == pytest.approx(-2.944438979) and h.upper == pytest.approx(2.944438979)
    even = sprt.estimate([5, 10, 20, 10, 5])
    assert even.elo == pytest.approx(0) and even.los == pytest.approx(50)
    assert sprt.llr([0] * 5, h) == 0 and sprt.verdict(3.0, h) == "H1 accepted"
    assert sprt.verdict(-3.0, h) == "H0 accepted" and sprt.verdict(0.0, h) is None
    assert [sprt.pair_index(a, b) for a, b in [(0, 0), (0, 0.5), (1, 0), (0.5, 0.5), (1, 0.5), (1, 1)]] == [0, 1, 2, 2, 3, 4]


@pytest.mark.parametrize("kwargs, message", [
    ({"elo0": 5, "elo1": 5}, "--elo0 (5) must be below --elo1 (5)"),
    ({"alpha": 0.5}, "--alpha must be in (0, 0.5)"),
    ({"beta": 0}, "--beta must be in (0, 0.5)"),
    ({"elo1": float("inf")}, "--elo1 must be a finite Elo difference, got inf"),
    ({"elo0": float("nan")}, "--elo0 must be a finite Elo difference, got nan"),
])
def test_bad_hypotheses(kwargs, message):
    with pytest.raises(ConfigError, match=message.replace("(", r"\(").replace(")", r"\)")):
        sprt.Hypotheses(**kwargs)


def run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([*HEXARENA, *args], check=False, capture_output=True, text=True, cwd=ROOT, timeout=120)


@pytest.mark.slow
def test_a_strong_bot_accepts_h1_well_before_max_pairs(tmp_path):
    out = tmp_path / "games.jsonl"
    done = run("sprt", GREEDY, RANDOM, "--size", "2x2", "--time", "300ms", "--concurrency", "2", "--elo1", "50",
               "--max-pairs", "300", "--seed", "1", "--json", "--out", str(out))
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["verdict"] == "H1 accepted" and result["pairs"] < 150
    assert result["pairs"] % 2 == 0  # updated after whole batches of 2 pairs
    records = [GameRecord.model_validate_json(line) for line in out.read_text().splitlines()]
    assert len(records) == 2 * result["pairs"]
    for one, two in zip(records[::2], records[1::2]):  # a pair: one start position, both seat orders
        assert one.seats == ["greedy", "random"] and two.seats == ["random", "greedy"]
        assert one.opening == two.opening and one.opening
    assert sum(result["pentanomial"].values()) == result["pairs"]


@pytest.mark.slow
def test_a_bot_against_a_copy_of_itself_does_not_accept_h1():
    done = run("sprt", GREEDY, GREEDY, "--size", "3x3", "--time", "300ms", "--concurrency", "2", "--max-pairs", "30",
               "--seed", "5", "--no-sandbox")  # as match has it: for a machine that cannot make a sandbox
    assert done.returncode == 0, done.stderr
    assert "hexarena: warning: the sandbox is off (--no-sandbox)" in done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].startswith("sprt: greedy vs greedy#2 on 3x3 hex")
    assert lines[-1] in ("SPRT: H0 accepted", "SPRT: inconclusive at --max-pairs 30")
    assert any(line.startswith("Elo: ") for line in lines) and any(line.startswith("LLR: ") for line in lines)


@pytest.mark.parametrize("args, message", [
    (["--elo0", "5", "--elo1", "0"], "--elo0 (5) must be below --elo1 (0)"),
    (["--alpha", "0.7"], "--alpha must be in (0, 0.5), got 0.7"),
])
def test_bad_input_is_one_line_and_exit_2(args, message):
    done = run("sprt", GREEDY, RANDOM, *args)
    assert done.returncode == 2 and done.stderr.strip() == f"hexarena: error: {message}"


def test_a_bad_openings_file_names_the_row(tmp_path):
    book = tmp_path / "book.txt"
    book.write_text("0,1\n3,3\n")
    done = run("sprt", GREEDY, RANDOM, "--size", "2x2", "--openings", str(book))
    assert done.returncode == 2 and done.stderr.strip() == f"hexarena: error: {book}: row 2: line 3 is already drawn on 2x2 hex"


@pytest.mark.slow
@pytest.mark.parametrize(("signum", "status"), [("SIGINT", 130), ("SIGTERM", 143)])
def test_ctrl_c_prints_the_state_so_far(signum, status):
    """Ctrl-C, or SIGTERM (whose default would end sprt with no word), prints the test's state so far."""
    import signal
    import time

    run = subprocess.Popen([*HEXARENA, "sprt", GREEDY, RANDOM, "--size", "3x3", "--time", "300ms", "--seed", "2"],
                           cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                           preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))  # as a terminal's Ctrl-C
    try:
        while run.stdout.readline().startswith("sprt:"):  # the header; then wait for the first batch
            pass
        time.sleep(0.5)
        run.send_signal(getattr(signal, signum))
        out, err = run.communicate(timeout=30)
    finally:
        run.kill()
    assert run.returncode == status and err.strip() == "hexarena: error: interrupted"
    lines = out.splitlines()
    assert lines[-1] == "SPRT: interrupted" and lines[-3].startswith("Games: ") and "Ptnml(0-2)" in lines[-3]



@pytest.mark.slow
def test_sprt_forks_its_referee_workers_as_league_run_does_and_ctrl_c_stops_them():
    """--concurrency 2: the two referee workers are forked from sprt's own process (its command line, not a fresh
    interpreter's ``-m hexarena.referee.pool``: none imports the referee), each held to a core of its own with
    --pin-cores, and are gone once a Ctrl-C stopped it."""
    import os
    import signal

    from hexarena.referee.launch import children

    run = subprocess.Popen([*HEXARENA, "sprt", GREEDY, GREEDY, "--size", "3x3", "--time", "300ms", "--seed", "2",
                            "--concurrency", "2", "--pin-cores"], cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                           preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))  # noqa: PLW1509 - Ctrl-C
    command = lambda pid: Path(f"/proc/{pid}/cmdline").read_bytes()
    try:
        while run.stdout.readline().startswith("sprt:"):  # the header; then wait for the first batch
            pass
        ours = command(run.pid)
        workers = wait_for(lambda: found if len(found := children(run.pid)) >= 2 else None, 30, "2 referee workers")
        commands = [command(pid) for pid in workers]
        cores = sorted(os.sched_getaffinity(0))
        pinned = sorted(min(os.sched_getaffinity(pid)) for pid in workers if len(os.sched_getaffinity(pid)) == 1)
        run.send_signal(signal.SIGINT)
        out, err = run.communicate(timeout=30)
    finally:
        run.kill()
        run.wait()
    assert commands == [ours, ours] and b"hexarena.referee.pool" not in ours
    assert pinned == (cores[:2] if len(cores) >= 2 else cores * 2)  # worker i on core i (both on the one core)
    assert run.returncode == 130 and out.splitlines()[-1] == "SPRT: interrupted", err
    assert not any(Path(f"/proc/{pid}").exists() for pid in workers)


@pytest.mark.slow
def test_a_referee_worker_killed_mid_sprt_is_one_line_exit_1():
    """The OOM killer's way. Before, a traceback; and the league's wording ("the games stored so far are kept")
    would be wrong here: an sprt stores nothing."""
    import os
    import signal

    from hexarena.referee.launch import children

    run = subprocess.Popen([*HEXARENA, "sprt", GREEDY, GREEDY, "--size", "3x3", "--time", "300ms", "--seed", "2",
                            "--concurrency", "2"], cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        while not run.stdout.readline().startswith("pairs "):  # the header, then the first batch's line
            pass
        os.kill(children(run.pid)[0], signal.SIGKILL)
        _, err = run.communicate(timeout=60)
    finally:
        run.kill()
        run.wait()
    said = [line for line in err.splitlines() if line.startswith("hexarena: error:")]
    assert run.returncode == 1 and "Traceback" not in err, err
    assert len(said) == 1 and re.fullmatch(r"hexarena: error: referee worker pair-\d ended \(exit status -9\) in a "
                                           r"game", said[0]), err


def test_a_one_sided_result_is_inf_with_a_bound_and_no_pair_is_no_nan():
    from hexarena.leagues.results.sprt import Hypotheses, describe, elo_text, estimate, report

    won = estimate([0, 0, 0, 0, 5])  # a 10-0 match: every pair won
    assert (won.elo, won.one_sided, elo_text(won)) == (float("inf"), 1, "+inf (95%: at least +34.4)")
    assert elo_text(estimate([5, 0, 0, 0, 0])) == "-inf (95%: at most -34.4)"
    assert elo_text(estimate([1, 2, 3, 2, 1])).endswith(f" +/- {estimate([1, 2, 3, 2, 1]).elo_error:.1f}")
    assert describe(report([0, 0, 0, 0, 5], Hypotheses())).splitlines()[0] == \
        "Elo: +inf (95%: at least +34.35), nElo: +inf"
    nothing = describe(report([0] * 5, Hypotheses()))  # an sprt interrupted before its first batch
    assert "nan" not in nothing and nothing.splitlines()[0] == "Elo: no pair finished yet, so no estimate"
