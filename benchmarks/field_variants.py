import os; os.environ["OPENBLAS_NUM_THREADS"]="1"
import sys, time, statistics
import numpy as np
sys.path.insert(0, "/work/wt-i27/benchmarks")
from field import Simulation, adaptive, round_robin, TARGETS
from hexarena.leagues.results.adaptive import Pairing
from hexarena.leagues.results.ratings import ELO_PER_UNIT
n = int(sys.argv[1]); trials = int(sys.argv[2]); cycles = float(sys.argv[3])
variants = {"base": Pairing(), "spread1": Pairing(spread=1), "win6": Pairing(window=6), "noprec": Pairing(precision=None),
            "sweep2": Pairing(sweep=2), "rank": Pairing(criterion="rank"), "rankw6": Pairing(criterion="rank", window=6), "rank_np": Pairing(criterion="rank", precision=None), "sweep4": Pairing(sweep=4), "sweep8": Pairing(sweep=8), "sweep16": Pairing(sweep=16), "s1w6": Pairing(spread=1, window=6)}
chosen = sys.argv[4].split(",")
res = {v: {t: [] for t in TARGETS} for v in ["rrpre", *chosen]}
for trial in range(trials):
    rng = np.random.default_rng(1000 * n + trial)
    strengths = rng.normal(0, 250, n) / ELO_PER_UNIT
    sim = Simulation(strengths, 0.05, np.random.default_rng(trial))
    pre, _ = round_robin(sim, max(1, int(cycles)))
    for t in TARGETS: res["rrpre"][t].append(pre.get(t))
    for v in chosen:
        sim = Simulation(strengths, 0.05, np.random.default_rng(trial))
        t0 = time.perf_counter()
        found, _ = adaptive(sim, int(cycles * n * (n - 1)), variants[v])
        for t in TARGETS: res[v][t].append(found.get(t))
        print(trial, v, found, f"{time.perf_counter()-t0:.1f}s", flush=True)
for v, r in res.items():
    print(v, {t: r[t] for t in TARGETS}, flush=True)
