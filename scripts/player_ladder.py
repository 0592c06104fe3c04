"""The player ladder against today's difficulty score, for docs/difficulty.md.

For each shipped spec (easy, medium, hard, gravity) makes ``--count`` levels at the spec's own
seed (or ``--seed``), exactly as ``llkgen.generate`` makes them, and measures per level:

1. today's score, re-graded with two fresh seeds (``grade`` + a fresh 32-run
   ``random_clear_rate`` + ``difficulty_score``, as make's grade stage does);
2. the clear rate of every model of :mod:`llkgen.analysis.players` (``target_se`` 0.05) on
   streams 0 (the score), 1 (its re-measurement) and 2 (the outcome);
3. CPU seconds (``time.process_time``, in the worker) of make with grading, make with
   ``grading: {playthroughs: 0}``, one re-grade, and each model's stream-0 measurement.

Levels are split by index parity: even indices fit candidate (b)'s weights, odd ones are held
out. Prints Markdown tables. Every number but the CPU times is a pure function of the
arguments (``--jobs`` only changes the wall time).

    python scripts/player_ladder.py --count 24 --jobs 2
"""

from __future__ import annotations

import argparse
import importlib.util
import itertools
import json
import math
import statistics
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import numpy as np
import yaml

ROOT = Path(__file__).resolve().parents[1]
if importlib.util.find_spec("llkgen") is None:  # not installed: use the source tree
    sys.path.insert(0, str(ROOT))

from llkgen.analysis.grading import difficulty_score, grade  # noqa: E402
from llkgen.analysis.metrics import random_clear_rate  # noqa: E402
from llkgen.analysis.players import HINT, MODELS, clear_rates, tier  # noqa: E402
from llkgen.generation.generator import generate_level  # noqa: E402
from llkgen.generation.spec import spec_from_dict  # noqa: E402

SPECS = ("easy", "medium", "hard", "gravity")
STREAMS = (0, 1, 2)  # 0: the score, 1: its re-measurement, 2: the outcome
OUTCOME = ("careful", "nearest")  # the strong models whose fail rates the score should order
TIERS = MODELS + (HINT,)
#: Spawn key of the fresh re-grading seeds, apart from every key the library uses.
REGRADE_KEY = 3 << 20
#: Candidate (b): weights per model tried on the fit half.
GRID = (0, 1, 2)


def fresh_seed(level_seed: int, j: int) -> int:
    return int(np.random.SeedSequence(level_seed, spawn_key=(REGRADE_KEY, j)).generate_state(1, np.uint64)[0]
               >> np.uint64(11))


def spec_dict(name: str, count: int, seed: int | None, grading: bool) -> dict:
    d = yaml.safe_load((ROOT / "configs" / f"{name}.yaml").read_text())
    d["count"] = count
    if seed is not None:
        d["seed"] = seed
    if not grading:
        d["grading"] = {"playthroughs": 0}
    return d


def measure(task: tuple[str, int, int | None, int, float]) -> dict:
    """Every measurement of level ``index`` of spec ``name`` (runs in a worker)."""
    name, index, seed, count, target_se = task
    spec = spec_from_dict(spec_dict(name, count, seed, True), name)
    t = time.process_time()
    lv = generate_level(spec, index)
    t_make = time.process_time() - t
    bare = spec_from_dict(spec_dict(name, count, seed, False), name)
    t = time.process_time()
    lv_bare = generate_level(bare, index)
    t_bare = time.process_time() - t
    assert lv_bare.board == lv.board, "grading changed the level"
    pairs = lv.board.tile_count // 2
    witness = [(tuple(a), tuple(b)) for a, b in lv.solution]
    regrades, t_regrade = [], []
    for j in range(2):
        s = fresh_seed(lv.seed, j)
        t = time.process_time()
        g = grade(lv.board, lv.rules, playthroughs=spec.grading.playthroughs, nodes=spec.grading.nodes,
                  seed=s, witness=witness)
        metrics = {**g.metrics(), "random_clear_rate": random_clear_rate(lv.board, lv.rules, 32, s)}
        regrades.append(difficulty_score(metrics, pairs))
        t_regrade.append(time.process_time() - t)
    rates: dict[int, dict[str, float]] = {}
    runs: dict[int, dict[str, int]] = {}
    t_model: dict[str, float] = {}
    for stream in STREAMS:
        rates[stream], runs[stream] = {}, {}
        for m in MODELS:
            t = time.process_time()
            est = clear_rates(lv.board, lv.rules, lv.seed, stream=stream, target_se=target_se, models=(m,))[m]
            if stream == 0:
                t_model[m] = time.process_time() - t
            rates[stream][m], runs[stream][m] = est.rate, est.runs
    return {"spec": name, "index": index, "seed": lv.seed, "pairs": pairs, "score": lv.metrics["difficulty"],
            "regrades": regrades, "rates": rates, "runs": runs,
            "cpu": {"make": t_make, "bare": t_bare, "regrade": statistics.mean(t_regrade), **t_model}}


# -- statistics ---------------------------------------------------------------------------------

def ranks(xs: list[float]) -> np.ndarray:
    """Ranks 1..n, ties given their average rank."""
    a = np.asarray(xs, dtype=float)
    order = np.argsort(a, kind="mergesort")
    r = np.empty(len(a))
    i = 0
    while i < len(a):
        j = i
        while j + 1 < len(a) and a[order[j + 1]] == a[order[i]]:
            j += 1
        r[order[i:j + 1]] = (i + j) / 2 + 1
        i = j + 1
    return r


def spearman(x: list[float], y: list[float]) -> float:
    """Spearman's rho (Pearson on average ranks); NaN when either side is constant."""
    rx, ry = ranks(x), ranks(y)
    if rx.std() == 0 or ry.std() == 0:
        return math.nan
    return float(np.corrcoef(rx, ry)[0, 1])


def fail(rec: dict, stream: int, model: str) -> float:
    return 1.0 - rec["rates"][stream][model]


def outcome(rec: dict) -> float:
    return statistics.mean(fail(rec, 2, m) for m in OUTCOME)


def weighted(weights: tuple[int, ...]):
    total = sum(weights)
    return lambda rec, s: 100 * sum(w * fail(rec, s, m) for w, m in zip(weights, MODELS)) / total


def mean_fail(rec: dict, s: int) -> float:
    return 100 * statistics.mean(fail(rec, s, m) for m in MODELS)


def tier_score(rec: dict, s: int) -> float:
    """The tier as an ordinal on 0..100: 20 points a rung (random 0 .. hint 100)."""
    named = {m: _Rate(r) for m, r in rec["rates"][s].items()}
    return 100 * TIERS.index(tier(named)) / (len(TIERS) - 1)


class _Rate:  # the part of players.Estimate that tier() reads
    def __init__(self, rate: float):
        self.rate = rate


def fit_weights(by_spec: dict[str, list[dict]]) -> tuple[int, ...]:
    """Candidate (b): the weights in GRID^5 whose score (stream 0) best orders the fit half by
    the outcome, by the mean within-spec Spearman; ties go to fewer models, then smaller sums."""
    best, best_key = None, None
    for w in itertools.product(GRID, repeat=len(MODELS)):
        if not any(w):
            continue
        f = weighted(w)
        rhos = [spearman([f(r, 0) for r in recs], [outcome(r) for r in recs])
                for recs in by_spec.values()]
        rhos = [x for x in rhos if not math.isnan(x)]
        obj = statistics.mean(rhos) if rhos else -2.0
        key = (-round(obj, 9), sum(1 for x in w if x), sum(w), w)
        if best_key is None or key < best_key:
            best, best_key = w, key
    assert best is not None
    return best


def remeasure_sd(recs: list[dict], f) -> float:
    """Median over levels of |score(stream 0) - score(stream 1)| / sqrt(2)."""
    return statistics.median(abs(f(r, 0) - f(r, 1)) / math.sqrt(2) for r in recs)


def fmt(x: float, d: int = 2) -> str:
    return "n/a" if math.isnan(x) else f"{x:.{d}f}"


def tables(recs: list[dict], count: int, seed: int | None) -> str:
    by_spec = {s: [r for r in recs if r["spec"] == s] for s in SPECS}
    fit = {s: [r for r in rs if r["index"] % 2 == 0] for s, rs in by_spec.items()}
    held = {s: [r for r in rs if r["index"] % 2 == 1] for s, rs in by_spec.items()}
    w = fit_weights(fit)
    wname = " + ".join(f"{x}·{m}" if x > 1 else m for x, m in zip(w, MODELS) if x)
    cands = {
        "today": lambda r, s: r["score"],
        "(a) mean fail": mean_fail,
        f"(b) fitted: {wname}": weighted(w),
        "(c) tier": tier_score,
        "(d) nearest + careful": weighted(tuple(int(m in OUTCOME) for m in MODELS)),
        "ref: careful alone": weighted(tuple(int(m == "careful") for m in MODELS)),
        "ref: nearest alone": weighted(tuple(int(m == "nearest") for m in MODELS)),
    }
    out = [f"N = {count} levels per spec (seed: {'each spec’s own' if seed is None else seed}); "
           f"{count - count // 2} fit (even index) / {count // 2} held out (odd index).\n"]

    out.append("### 1. Today's score, re-graded\n")
    out.append("Two fresh grading seeds per level (grading + a fresh 32-run random clear rate). "
               "sd (fresh) = median over levels of |fresh₁ − fresh₂| / √2; sd (with made) = median "
               "sample sd of the made score and the two fresh ones; bias = median of made − mean of fresh.\n")
    out.append("| spec | pairs | median score | sd (fresh) | max sd (fresh) | sd (with made) | bias |")
    out.append("|---|---|---|---|---|---|---|")
    for s, rs in by_spec.items():
        sds = [abs(r["regrades"][0] - r["regrades"][1]) / math.sqrt(2) for r in rs]
        sd3 = [statistics.stdev([r["score"], *r["regrades"]]) for r in rs]
        bias = [r["score"] - statistics.mean(r["regrades"]) for r in rs]
        out.append(f"| {s} | {rs[0]['pairs']} | {statistics.median(r['score'] for r in rs):.1f} | "
                   f"{statistics.median(sds):.2f} | {max(sds):.2f} | {statistics.median(sd3):.2f} | "
                   f"{statistics.median(bias):+.1f} |")

    out.append("\n### 2. The ladder\n")
    out.append("Median clear rate per model (stream 0, all levels), median runs to reach "
               "`target_se` 0.05, and re-measure sd of the fail rate in points "
               "(median |stream 0 − stream 1| × 100 / √2).\n")
    out.append("| spec | " + " | ".join(MODELS) + " | runs (median) | re-measure sd per model |")
    out.append("|---|" + "---|" * len(MODELS) + "---|---|")
    for s, rs in by_spec.items():
        med = [statistics.median(r["rates"][0][m] for r in rs) for m in MODELS]
        nruns = statistics.median(r["runs"][0][m] for r in rs for m in MODELS)
        sd = [remeasure_sd(rs, lambda r, st, m=m: 100 * fail(r, st, m)) for m in MODELS]
        out.append(f"| {s} | " + " | ".join(f"{x:.2f}" for x in med) + f" | {nruns:.0f} | "
                   + " / ".join(f"{x:.1f}" for x in sd) + " |")
    out.append("\nCPU seconds per level per model (stream 0, mean):\n")
    out.append("| spec | " + " | ".join(MODELS) + " | all five |")
    out.append("|---|" + "---|" * len(MODELS) + "---|")
    for s, rs in by_spec.items():
        ts = [statistics.mean(r["cpu"][m] for r in rs) for m in MODELS]
        out.append(f"| {s} | " + " | ".join(f"{x:.3f}" for x in ts) + f" | {sum(ts):.3f} |")

    out.append("\n### 3. Candidate scores\n")
    out.append(f"(b)'s weights were chosen on the fit half (all four specs) from {{{', '.join(map(str, GRID))}}} "
               "per model, by the mean within-spec Spearman against the outcome (mean of the careful "
               "and nearest fail rates, stream 2). Re-measure sd: each level's sd over its two "
               "measurements, |stream 0 − stream 1| / √2 (today's: the two fresh re-grades of table 1), its "
               "median and max over the spec's levels, and rms: their root mean square, the pooled sd "
               "(for normal noise the median is about 0.67 of it; a discrete score can have median 0). "
               "ρ: Spearman on the held-out half "
               f"({count // 2} levels per spec) against the careful / nearest fail rate of stream 2; "
               "n/a where a side is constant. (d) is the outcome's two models measured on stream 0; the "
               "'ref' rows are one outcome model on stream 0 against itself on stream 2: how well a "
               "score can do when its only error is the runs' noise.\n")
    out.append("| spec | score | re-measure sd | max | rms | ρ careful (held out) | ρ nearest (held out) |")
    out.append("|---|---|---|---|---|---|---|")
    summary = {}
    for s in SPECS:
        for cname, f in cands.items():
            if cname == "today":
                diffs = [abs(r["regrades"][0] - r["regrades"][1]) / math.sqrt(2) for r in by_spec[s]]
            else:
                diffs = [abs(f(r, 0) - f(r, 1)) / math.sqrt(2) for r in by_spec[s]]
            sd = statistics.median(diffs)
            rms = math.sqrt(statistics.mean(x * x for x in diffs))
            h = held[s]
            rc = spearman([f(r, 0) for r in h], [fail(r, 2, "careful") for r in h])
            rn = spearman([f(r, 0) for r in h], [fail(r, 2, "nearest") for r in h])
            summary[(s, cname)] = (sd, rc, rn)
            out.append(f"| {s} | {cname} | {sd:.2f} | {max(diffs):.2f} | {rms:.2f} | {fmt(rc)} | {fmt(rn)} |")

    out.append("\n### 4. Cost\n")
    out.append("Median CPU seconds per level (a few levels cost far more: the mean re-grade is shown too): "
               "make with grading, make with `grading: {playthroughs: 0}`, one re-grade (grading + 32 random "
               "runs, as make's grade stage), candidates (a), (b) and (d) (their models only, one stream). "
               "Ratio: the score's median CPU / make without grading's.\n")
    need = {"(a)": MODELS, "(b)": [m for x, m in zip(w, MODELS) if x], "(d)": OUTCOME}
    out.append("| spec | make | make, no grading | re-grade (median / mean) | (a) | (b) | (d) | ratio today | "
               "ratio (a) | ratio (b) | ratio (d) |")
    out.append("|---|---|---|---|---|---|---|---|---|---|---|")
    for s, rs in by_spec.items():
        med = {k: statistics.median(r["cpu"][k] for r in rs) for k in ("make", "bare", "regrade")}
        cand = {c: statistics.median(sum(r["cpu"][m] for m in ms) for r in rs) for c, ms in need.items()}
        mean_rg = statistics.mean(r["cpu"]["regrade"] for r in rs)
        out.append(f"| {s} | {med['make']:.3f} | {med['bare']:.3f} | {med['regrade']:.3f} / {mean_rg:.3f} | "
                   + " | ".join(f"{v:.3f}" for v in cand.values()) + f" | {med['regrade'] / med['bare']:.2f} | "
                   + " | ".join(f"{v / med['bare']:.2f}" for v in cand.values()) + " |")
    return "\n".join(out) + "\n"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--count", type=int, default=24, help="levels per spec (split fit / held out by parity)")
    ap.add_argument("--seed", type=int, help="override every spec's pack seed")
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--target-se", type=float, default=0.05)
    ap.add_argument("--raw", help="also write every level's measurements to this JSON file")
    ap.add_argument("--from-raw", help="print the tables from a --raw file instead of measuring")
    args = ap.parse_args()
    if args.from_raw:
        recs = json.loads(Path(args.from_raw).read_text())
        for r in recs:
            r["rates"] = {int(k): v for k, v in r["rates"].items()}
            r["runs"] = {int(k): v for k, v in r["runs"].items()}
    else:
        tasks = [(s, i, args.seed, args.count, args.target_se) for s in SPECS for i in range(args.count)]
        t = time.perf_counter()
        if args.jobs > 1:
            with ProcessPoolExecutor(args.jobs) as ex:
                recs = list(ex.map(measure, tasks, chunksize=1))
        else:
            recs = [measure(x) for x in tasks]
        print(f"measured {len(recs)} levels in {time.perf_counter() - t:.0f} s wall", file=sys.stderr)
        if args.raw:
            Path(args.raw).write_text(json.dumps(recs))
    print(tables(recs, args.count, args.seed))


if __name__ == "__main__":
    main()
