"""Does calibration predict players it has never seen? Simulated players, plays drawn from
their true clear rates, a fit on half the levels, predictions on the other half.

The players (:data:`POLICIES`) are not in the ladder, and the fit never sees them by name: it
sees attempts and clears, as it would a studio's.

* ``scan`` notices only pairs near its last move: among the removable pairs, those with a tile
  within Manhattan distance :data:`SCAN_RADIUS` of a tile it just removed, uniformly; when
  there is none (and on its first move), any removable pair, uniformly.
* ``slip`` plays a uniformly random pair :data:`SLIP` of the time; otherwise the best-looking
  one: a pair that completes its type if there is one, and among those the closest (Manhattan),
  ties uniformly.

Levels: ``--levels`` of each shipped spec (easy, medium, hard, gravity, ramp), made as ``make``
makes them (``generate_level``, the spec's own grading), at pack seeds drawn from ``--seed``
(the ramp's are indexes spread over its 12 levels, so they keep their targets). Each level's
*true* clear rate for each policy is measured by ``--true-runs`` playthroughs (its se, at most
``0.5 / sqrt(true-runs)``, is part of what a coverage miss can be).

Then, for each number of attempts per level in ``--attempts``, ``--reps`` times: each level's
plays are drawn ``Binomial(attempts, true rate)``; the levels are split at random in halves;
:func:`llkgen.analysis.calibration.fit` (what ``llkgen calibrate`` runs) fits the first half;
the other half is predicted. Against the true rates of the held-out half it prints, per policy:

* ``rho``: Spearman's rho of the calibrated prediction, and of the baseline: the random clear
  rate ``make`` stores, through its own one-feature logistic fit on the same half (the same
  ranking as the raw rate when the slope is positive, and a clear-rate scale for its MAE);
* ``MAE``: mean absolute error of each prediction;
* ``cover``: the share of held-out levels whose true rate lies in the calibrated 90% interval
  (:meth:`~llkgen.analysis.calibration.Calibration.bounds`, as ``grade`` prints it: opened to
  0 or 1 where it reaches within the plays' resolution, ``3 / attempts``, of it); the same
  with the interval widened by the true rate's own sampling error (``--true-runs``
  playthroughs measure it: what a perfect 90% interval for the rate would show against the
  measured rate); and the same for the interval ``expit(eta +- z se)`` not opened, which never
  holds a true rate of 0 or 1;
* ``k``: the calibration's interval scale (:func:`llkgen.analysis.calibration.interval_scale`);

each as a mean over repetitions with its standard error. The targets, at 200 attempts: the
calibrated prediction beats the baseline on rho and on MAE for every policy; its 90% intervals
cover the true rate on 85-95% of held-out levels.

    python benchmarks/calibration_bench.py                   # seeds drawn anew, printed
    python benchmarks/calibration_bench.py --seed 7 --levels 12 --true-runs 1000 --reps 20 --jobs 2

With the defaults (12 levels a spec, 60 levels, 1000 true runs) it takes about 3 CPU minutes,
most of it the policies' playthroughs in Python. Counts are small by design: 30 levels train
and 30 are held out per repetition, so read the standard errors.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import math
import resource
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

if importlib.util.find_spec("llkgen") is None:  # not installed: use the source tree
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np  # noqa: E402

from llkgen.analysis.calibration import Z90, fit, spearman  # noqa: E402
from llkgen.analysis.calibration_models import BASELINE, FEATURES, PlayData, features_of, fit_logistic  # noqa: E402
from llkgen.game.playout import Pair, Playout  # noqa: E402
from llkgen.generation.generator import generate_level  # noqa: E402
from llkgen.generation.spec import load_spec_ref  # noqa: E402

SPECS = ("easy", "medium", "hard", "gravity", "ramp")
POLICIES = ("scan", "slip")
#: ``scan`` notices pairs with a tile this close (Manhattan) to a tile of its last move.
SCAN_RADIUS = 2
#: ``slip`` plays a random pair this share of the time.
SLIP = 0.2
TARGET_ATTEMPTS = 200
COVER_LOW, COVER_HIGH = 0.85, 0.95


def expit(eta: np.ndarray) -> np.ndarray:
    return 1 / (1 + np.exp(-eta))


def _dist(pl: Playout, a: int, b: int) -> int:
    return abs(pl.grid.R[a] - pl.grid.R[b]) + abs(pl.grid.C[a] - pl.grid.C[b])


def choose(policy: str, pl: Playout, moves: list[Pair], last: Pair | None, rng: np.random.Generator) -> Pair:
    """The pair ``policy`` plays (module docstring)."""
    if policy == "scan":
        pool = moves
        if last is not None:
            pool = [pr for pr in moves if min(_dist(pl, x, y) for x in pr for y in last) <= SCAN_RADIUS] or moves
        return pool[int(rng.integers(len(pool)))]
    if rng.random() < SLIP:
        return moves[int(rng.integers(len(moves)))]
    completing = [pr for pr in moves if len(pl.by_type[pl.g[pr[0]]]) == 2] or moves
    d = [_dist(pl, a, b) for a, b in completing]
    best = [pr for pr, x in zip(completing, d) if x == min(d)]
    return best[int(rng.integers(len(best)))]


def play(policy: str, start: Playout, rng: np.random.Generator) -> bool:
    """One playthrough of ``policy`` from a copy of ``start``: whether it clears the board."""
    pl = start.copy()
    last: Pair | None = None
    while pl.left:
        moves = pl.moves()
        if not moves:
            return False
        last = choose(policy, pl, moves, last, rng)
        pl.remove(*last)
    return True


def measure_level(task: tuple[str, int, int, int, int]) -> dict:
    """Make one level and measure every policy's true clear rate on it (in a worker)."""
    name, pack_seed, index, true_runs, seed = task
    spec = load_spec_ref(name).with_overrides(seed=pack_seed)
    if spec.ramp is None:
        spec = spec.with_overrides(count=index + 1)
    lv = generate_level(spec, index)
    start = Playout(lv.board, lv.rules)
    rates = {}
    for p, policy in enumerate(POLICIES):
        rng = np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(pack_seed, index, p)))
        rates[policy] = sum(play(policy, start, rng) for _ in range(true_runs)) / true_runs
    feats = features_of(lv.metrics, lv.players)
    assert feats is not None, "make grades every shipped spec"
    return {"spec": name, "index": index, "x": feats[0], "var": feats[1], "true": rates}


def levels_to_make(specs: list[str], per_spec: int, rng: np.random.Generator) -> list[tuple[str, int, int]]:
    out = []
    for name in specs:
        spec = load_spec_ref(name)
        if spec.ramp is None:
            seed = int(rng.integers(1 << 31))
            out += [(name, seed, i) for i in range(per_spec)]
        else:  # the ramp's levels aim at targets by index: spread the indexes, vary the pack seed
            for k in range(per_spec):
                out.append((name, int(rng.integers(1 << 31)), k % spec.count))
    return out


def one_rep(levels: list[dict], policy: str, attempts: int, true_runs: int, rng: np.random.Generator) -> dict:
    """Plays drawn, halves split, fitted on one and scored on the other."""
    n = len(levels)
    x = np.array([lv["x"] for lv in levels])
    var = np.array([lv["var"] for lv in levels])
    true = np.array([lv["true"][policy] for lv in levels])
    att = np.full(n, attempts)
    clears = rng.binomial(att, true)
    data = PlayData(tuple(f"{lv['spec']}#{lv['index']}" for lv in levels), att, clears, x, var)
    order = rng.permutation(n)
    train, test = np.sort(order[: n // 2]), np.sort(order[n // 2:])
    cal = fit(data.take(train), seed=int(rng.integers(1 << 31)), boot=0)
    eta, v, _ = cal.predict_x(x[test], var[test])
    pred = expit(eta)
    lo, hi = cal.bounds(eta, v)
    base = fit_logistic(data.take(train), [next(i for i, f in enumerate(FEATURES) if f.name == BASELINE)])
    bpred = expit(base.eta(x[test]))
    t = true[test]
    inside = (lo <= t) & (t <= hi)
    # The true rate is itself measured: the interval widened by its own sampling variance
    # (empirical logit), which is what a perfect interval would show against the measured rate.
    c = t * true_runs
    wide = np.sqrt(v + 1 / (c + 0.5) + 1 / (true_runs - c + 0.5))
    wlo, whi = cal.bounds(eta, wide ** 2)
    covered = (wlo <= t) & (t <= whi)
    # The interval as expit(eta +- z se) alone, not opened to 0 or 1 where the plays cannot
    # resolve rates: a level whose true rate is 0 or 1 is then always missed.
    sd = np.sqrt(v)
    strict = (expit(eta - Z90 * sd) <= t) & (t <= expit(eta + Z90 * sd))
    return {"rho": spearman(pred, t), "rho_base": spearman(bpred, t),
            "mae": float(np.mean(np.abs(pred - t))), "mae_base": float(np.mean(np.abs(bpred - t))),
            "cover": float(np.mean(inside)), "cover_se": float(np.mean(covered)), "strict": float(np.mean(strict)),
            "scale": cal.interval_scale, "kind": str(cal.kind)}


def _children_cpu() -> float:
    """CPU seconds of the worker processes that have ended."""
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def mean_se(values: list[float]) -> tuple[float, float]:
    m = float(np.mean(values))
    return m, float(np.std(values, ddof=1) / math.sqrt(len(values))) if len(values) > 1 else 0.0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--specs", nargs="+", default=list(SPECS), choices=SPECS)
    ap.add_argument("--levels", type=int, default=12, help="levels per spec")
    ap.add_argument("--true-runs", type=int, default=1000, help="playthroughs behind each true clear rate")
    ap.add_argument("--attempts", type=int, nargs="+", default=[50, 100, 200, 400])
    ap.add_argument("--reps", type=int, default=20, help="draws of plays and splits per number of attempts")
    ap.add_argument("--seed", type=int, default=None, help="default: drawn anew, and printed")
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--raw", help="save the levels' features and true rates to this JSON file")
    ap.add_argument("--from-raw", help="read them from a --raw file instead of making and playing the levels")
    args = ap.parse_args()
    seed = args.seed if args.seed is not None else int(np.random.SeedSequence().entropy % (1 << 32))
    rng = np.random.default_rng(seed)
    todo = levels_to_make(args.specs, args.levels, rng)
    t0 = time.process_time()
    tasks = [(name, ps, i, args.true_runs, seed) for name, ps, i in todo]
    if args.from_raw:
        levels = [lv | {"x": np.array(lv["x"]), "var": np.array(lv["var"])}
                  for lv in json.loads(Path(args.from_raw).read_text())]
    elif args.jobs > 1:
        with ProcessPoolExecutor(args.jobs) as pool:
            levels = list(pool.map(measure_level, tasks))
    else:
        levels = [measure_level(t) for t in tasks]
    made = time.process_time() - t0 + _children_cpu()
    if args.raw:
        Path(args.raw).write_text(json.dumps([lv | {"x": lv["x"].tolist(), "var": lv["var"].tolist()}
                                              for lv in levels]))
    print(f"seed {seed}; {len(levels)} levels ({args.levels} per spec: {', '.join(args.specs)}), "
          f"true rates from {args.true_runs} playthroughs each; {args.reps} repetitions; "
          f"levels and true rates took {made:.0f} CPU-s (workers included)")
    for policy in POLICIES:
        rates = [lv["true"][policy] for lv in levels]
        print(f"{policy}: true clear rate mean {np.mean(rates):.3f}, spread (sd) {np.std(rates):.3f}, "
              f"{sum(r in (0.0, 1.0) for r in rates)} of {len(rates)} levels at 0 or 1")
    print()
    print("| policy | attempts | rho calibrated | rho baseline | MAE calibrated | MAE baseline | 90% cover "
          "| cover, true rate's se added | cover, not opened at 0 and 1 | interval scale k | logistic chosen |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    verdicts = []
    for policy in POLICIES:
        for attempts in args.attempts:
            reps = [one_rep(levels, policy, attempts, args.true_runs, rng) for _ in range(args.reps)]
            cells = {k: mean_se([r[k] for r in reps])
                     for k in ("rho", "rho_base", "mae", "mae_base", "cover", "cover_se", "strict", "scale")}
            logistic = sum(r["kind"] == "logistic" for r in reps)
            print(f"| {policy} | {attempts} | " + " | ".join(f"{m:.3f} ± {s:.3f}" for m, s in cells.values())
                  + f" | {logistic}/{len(reps)} |")
            if attempts == TARGET_ATTEMPTS:
                verdicts.append((policy, cells))
    print()
    for policy, c in verdicts:
        d_rho = c["rho"][0] - c["rho_base"][0]
        d_mae = c["mae_base"][0] - c["mae"][0]
        cover, strict = c["cover"][0], c["strict"][0]
        ok = d_rho > 0 and d_mae > 0 and COVER_LOW <= cover <= COVER_HIGH
        print(f"{policy} at {TARGET_ATTEMPTS} attempts: rho {d_rho:+.3f} over the baseline, MAE {d_mae:+.3f} "
              f"below it, coverage {cover:.3f} ({strict:.3f} with intervals not opened at 0 and 1; target "
              f"{COVER_LOW}-{COVER_HIGH}): {'targets met' if ok else 'TARGET MISSED'}")
    print(f"total {time.process_time() - t0 + _children_cpu():.0f} CPU-s (workers included)")


if __name__ == "__main__":
    main()
