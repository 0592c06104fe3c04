"""Does ``make``'s difficulty (the player ladder's score) hold up? The checks of issue 19, for
docs/difficulty.md ("Measurements").

For each shipped spec, levels are made exactly as ``make`` makes them (``generate_level`` on
the shipped spec; a spec without a ramp gets ``--count`` levels, ``--gravity-count`` for
gravity; the ramp spec keeps its 12 levels, since its targets depend on the count, and is made
at every pack seed of ``--ramp-seeds``). Per level, in one worker process:

1. **noise**: the level is re-graded as ``llkgen grade`` does (:func:`llkgen.analysis.audit.regrade`,
   the spec's precision) with audit seeds 1 and 2 (and 3 for the ramp); per-level sd
   ``|a - b| / sqrt(2)``. ``z`` is ``(a - b) / hypot(se_a, se_b)``: it should look like a
   standard normal (about 5% beyond 2), so a level far beyond it is a bug, not noise.
2. **ramp**: the share of ramp levels whose re-graded score lies within the ramp's tolerance
   of their target, per audit seed and in all; the mean of fresh minus kept (the winner's
   curse shows as a mean away from 0). The shipped pack is also written to a file and graded
   by :func:`llkgen.jobs.grade.grade_levels` (audit seed 1), which must give the same numbers.
3. **ordering**: Spearman, within a spec (one board size), between the kept score (and the
   tier, as its position in :data:`llkgen.analysis.ladder.TIERS`) and the careful and nearest
   models' fail rates measured on an independent stream (:func:`llkgen.analysis.players.clear_rate`,
   stream 5, ``target_se`` 0.03); 'ref' is each model on stream 5 against itself on stream 6.
   Held out: the odd level indices, as in the previous measurement (nothing is fitted now).
4. **cost**: CPU seconds (``time.process_time`` in the worker) of ``generate_level`` with the
   spec as shipped and with grading off and every ladder target dropped (which goes first
   alternates by index); same level index, same pack seed.
5. **profile** (``--profile-levels`` levels per spec): CPU per model player (every
   playthrough ``make``'s ladder plays, timed one by one), the stages' shares of one level
   under cProfile and, when the players are pure Python, the share in ``Playout.copy`` and
   ``Playout.remove``. A compiled build profiles only the Python frames.

Every number but the CPU times is a pure function of the arguments (``--jobs`` only changes
the wall time). Standard errors (±) are over levels: bootstrap (2000 resamples, seeded) for
medians, ratios and Spearman; ``sd / sqrt(n)`` for means; binomial for shares.

    python scripts/difficulty_check.py --count 24 --jobs 2
    python scripts/difficulty_check.py --specs hard gravity --count 12 --parts noise cost
    python scripts/difficulty_check.py --from-raw raw.json      # tables again, no measuring

Run it with the package installed (compiled core) from another directory, so that ``import
llkgen`` finds the installed package; the header says which core ran.
"""

from __future__ import annotations

import argparse
import cProfile
import dataclasses
import importlib.util
import json
import math
import os
import pstats
import statistics
import sys
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if importlib.util.find_spec("llkgen") is None:  # not installed: use the source tree
    sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402

import llkgen.analysis.difficulty as ladder_measure  # noqa: E402
import llkgen.analysis.players as players  # noqa: E402
from llkgen._version import search_core  # noqa: E402
from llkgen.analysis import native_players  # noqa: E402
from llkgen.analysis.audit import regrade  # noqa: E402
from llkgen.analysis.ladder import MODELS, TIERS  # noqa: E402
from llkgen.formats.level import Pack, level_from_json, level_to_json, pack_to_json, write_json_atomic  # noqa: E402
from llkgen.generation.generator import generate_level  # noqa: E402
from llkgen.generation.spec import load_spec_ref  # noqa: E402
from llkgen.generation.spec_model import GradingSpec, Spec  # noqa: E402
from llkgen.jobs.grade import grade_levels  # noqa: E402
from llkgen.jobs.pack import level_of  # noqa: E402

SPECS = ("easy", "medium", "hard", "gravity", "ramp")
PARTS = ("noise", "ramp", "order", "cost", "profile")
NOISE_SEEDS = (1, 2)
RAMP_SEEDS = (1, 2, 3)
OUTCOME = ("careful", "nearest")
OUTCOME_STREAMS = (5, 6)
OUTCOME_SE = 0.03
OUTCOME_MAX_RUNS = 1024
STAGES = ("build", "initial_moves", "clear_rate", "certify", "verify_nodes", "ladder")


# -- specs ----------------------------------------------------------------------------------------

def spec_for(name: str, count: int, pack_seed: int | None = None) -> Spec:
    """The shipped spec ``name`` at ``pack_seed`` (default: its own); without a ramp it gets
    ``count`` levels, a ramp keeps its own count (its targets depend on it)."""
    spec = load_spec_ref(name)
    if spec.ramp is None:
        spec = spec.with_overrides(count=count)
    return spec if pack_seed is None else dataclasses.replace(spec, seed=pack_seed)


def ungraded(spec: Spec) -> Spec:
    """``spec`` with grading off and every target that needs the ladder dropped."""
    return dataclasses.replace(spec, grading=GradingSpec(enabled=False), ramp=None,
                               difficulty=dataclasses.replace(spec.difficulty, score=None, tier=None,
                                                              clear_rate=()))


def plan(specs: list[str], count: int, gravity_count: int, ramp_seeds: list[int] | None) -> list[tuple]:
    """``(spec name, pack seed, count, index)`` of every level to measure, slowest specs first."""
    tasks = []
    for name in sorted(specs, key=lambda s: ("gravity", "ramp", "hard", "medium", "easy").index(s)
                       if s in SPECS else 0):
        if name == "ramp":
            base = load_spec_ref(name)
            for seed in ramp_seeds or [base.seed]:
                tasks += [(name, seed, base.count, i) for i in range(base.count)]
        else:
            n = gravity_count if name == "gravity" else count
            spec = spec_for(name, n)
            tasks += [(name, spec.seed, n, i) for i in range(n)]
    return tasks


# -- one level (in a worker) ----------------------------------------------------------------------

def measure_level(task: tuple) -> dict:
    """Every measurement of one level but the profile (see the module docstring)."""
    name, pack_seed, count, index, parts = task
    spec = spec_for(name, count, pack_seed)
    bare = ungraded(spec)
    rec: dict = {"spec": name, "pack_seed": pack_seed, "count": spec.count, "index": index}
    made = {}
    runs = [("graded", spec), ("bare", bare)] if "cost" in parts else [("graded", spec)]
    for key, s in (runs if index % 2 == 0 else runs[::-1]):
        t = time.process_time()
        made[key] = generate_level(s, index)
        rec["cpu_" + key] = time.process_time() - t
        rec["attempts_" + key] = made[key].attempts
    lv = made["graded"]
    if "bare" in made:
        rec["same_board"] = made["bare"].board == lv.board
    level = level_of(spec, lv)
    rec.update(id=level.id, seed=lv.seed, pairs=lv.board.tile_count // 2,
               score=lv.metrics["difficulty"], se=lv.metrics["difficulty_se"],
               tier=lv.players["tier"], stream=lv.players["stream"],
               runs=sum(v["runs"] for v in lv.players["clear_rates"].values()))
    if spec.ramp is not None:
        rec["target"] = spec.ramp.target(index, spec.count)
        rec["tolerance"] = spec.ramp.tolerance
        rec["level_json"] = level_to_json(level)
    if {"noise", "ramp"} & set(parts):
        seeds = RAMP_SEEDS if spec.ramp is not None else NOISE_SEEDS
        rec["regrades"] = {}
        for s in seeds:
            t = time.process_time()
            a = regrade(level, s, precision=spec.grading.precision, max_runs=spec.grading.max_runs)
            rec["regrades"][str(s)] = {"score": a.difficulty.score, "se": a.difficulty.se, "runs": a.difficulty.runs,
                                       "tier": a.tier, "complete": a.complete, "cpu": time.process_time() - t}
    if "order" in parts:
        rec["outcome"] = {}
        for stream in OUTCOME_STREAMS:
            for m in OUTCOME:
                e = players.clear_rate(m, lv.board, lv.rules, lv.seed, stream=stream, target_se=OUTCOME_SE,
                                       max_runs=OUTCOME_MAX_RUNS)
                rec["outcome"][f"{m}@{stream}"] = {"rate": e.rate, "se": e.se, "runs": e.runs}
    return rec


def profile_level(task: tuple) -> dict:
    """Where ``make``'s time goes on one level: CPU per model player (every playthrough the
    ladder plays, timed), then the level again under cProfile."""
    name, pack_seed, count, index = task
    spec = spec_for(name, count, pack_seed)
    per_model = {m: [0.0, 0] for m in MODELS}
    original = ladder_measure.playthroughs

    def timed_batch(model, start, seed, stream, k0, k1):
        t = time.process_time()
        try:
            return original(model, start, seed, stream, k0, k1)
        finally:
            acc = per_model[model]
            acc[0] += time.process_time() - t
            acc[1] += k1 - k0

    ladder_measure.playthroughs = timed_batch
    try:
        t = time.process_time()
        generate_level(spec, index)
        total = time.process_time() - t
    finally:
        ladder_measure.playthroughs = original
    prof = cProfile.Profile()
    prof.enable()
    generate_level(spec, index)
    prof.disable()
    stats = pstats.Stats(prof).stats  # type: ignore[attr-defined]
    whole = sum(v[2] for v in stats.values())  # every function's own time: the profiled total
    stages = {s: 0.0 for s in STAGES}
    playout = {"copy": 0.0, "remove": 0.0}
    top = []
    for (file, _line, func), (_cc, _nc, tt, ct, _callers) in stats.items():
        base = os.path.basename(file)
        if base == "generator.py" and func in stages:
            stages[func] += ct
        if base.startswith("playout") and func in playout:
            playout[func] += ct
        top.append((tt, f"{base.split('.')[0]}.{func}" if file != "~" else func))
    top.sort(reverse=True)
    return {"spec": name, "index": index, "cpu": total, "per_model": per_model, "profiled": whole,
            "stages": stages, "playout": playout, "top": [(round(t, 4), f) for t, f in top[:6]]}


# -- statistics -----------------------------------------------------------------------------------

RNG_SEED = 2026


def boot_se(n: int, stat, rounds: int = 2000) -> float:
    """Bootstrap standard error of ``stat(indices)`` over ``n`` items resampled with
    replacement (NaN resamples skipped)."""
    rng = np.random.default_rng(RNG_SEED)
    vals = [stat(rng.integers(n, size=n)) for _ in range(rounds)]
    vals = [v for v in vals if not math.isnan(v)]
    return float(np.std(vals, ddof=1)) if len(vals) > 1 else math.nan


def ranks(xs) -> np.ndarray:
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


def spearman(x, y) -> float:
    """Spearman's rho (Pearson on average ranks); NaN when either side is constant."""
    rx, ry = ranks(x), ranks(y)
    if len(rx) < 3 or rx.std() == 0 or ry.std() == 0:
        return math.nan
    return float(np.corrcoef(rx, ry)[0, 1])


def rho_se(x, y) -> tuple[float, float]:
    x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    return spearman(x, y), boot_se(len(x), lambda i: spearman(x[i], y[i]))


def mean_se(xs) -> tuple[float, float]:
    xs = list(xs)
    return statistics.mean(xs), (statistics.stdev(xs) / math.sqrt(len(xs)) if len(xs) > 1 else math.nan)


def median_se(xs) -> tuple[float, float]:
    a = np.asarray(list(xs), dtype=float)
    return float(np.median(a)), boot_se(len(a), lambda i: float(np.median(a[i])))


def share_se(k: int, n: int) -> tuple[float, float]:
    p = k / n
    return p, math.sqrt(p * (1 - p) / n)


def fmt(x: float, d: int = 2) -> str:
    return "n/a" if x is None or math.isnan(x) else f"{x:.{d}f}"


def pm(v: tuple[float, float], d: int = 2, sign: bool = False) -> str:
    x, e = v
    if math.isnan(x):
        return "n/a"
    return (f"{x:+.{d}f}" if sign else f"{x:.{d}f}") + ("" if math.isnan(e) else f" ± {e:.{d}f}")


def met(ok: bool) -> str:
    return "met" if ok else "**missed**"


# -- tables ---------------------------------------------------------------------------------------

def noise_table(by_spec: dict[str, list[dict]]) -> list[str]:
    if not any("regrades" in r for rs in by_spec.values() for r in rs):
        return []
    out = ["### Noise: re-grading with two fresh audit seeds\n",
           "Each level re-graded by `regrade` with audit seeds 1 and 2 (the spec's precision). sd = "
           "|a − b| / √2 per level; its median (± bootstrap se), max and rms over the spec's levels. "
           "Reported se: the median of the two re-grades' own standard errors. z = (a − b) / hypot(se_a, se_b): "
           "the share beyond 2 should be near 5%. fresh − kept: the mean of the two re-grades minus the score "
           "`make` kept (kept on stream 0; for the ramp, on the fresh stream 1), mean ± se over levels.\n",
           "| spec | levels | pairs | median score | median sd | max sd | rms sd | reported se (median) | "
           "\\|z\\| > 2 | max \\|z\\| | fresh − kept | target: median sd ≤ 2 |",
           "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for s, rs in by_spec.items():
        rs = [r for r in rs if "regrades" in r]
        if not rs:
            continue
        a = [r["regrades"]["1"] for r in rs]
        b = [r["regrades"]["2"] for r in rs]
        sds = [abs(x["score"] - y["score"]) / math.sqrt(2) for x, y in zip(a, b)]
        zs = [(x["score"] - y["score"]) / math.hypot(x["se"], y["se"]) for x, y in zip(a, b)]
        rep = statistics.median([x["se"] for x in a] + [y["se"] for y in b])
        drift = mean_se((x["score"] + y["score"]) / 2 - r["score"] for r, x, y in zip(rs, a, b))
        med = median_se(sds)
        rms = math.sqrt(statistics.mean(x * x for x in sds))
        pairs = sorted({r["pairs"] for r in rs})
        beyond = sum(abs(z) > 2 for z in zs)
        out.append(f"| {s} | {len(rs)} | {'/'.join(map(str, pairs))} | "
                   f"{statistics.median(r['score'] for r in rs):.1f} | {pm(med)} | {max(sds):.2f} | {rms:.2f} | "
                   f"{rep:.2f} | {beyond} of {len(rs)} | {max(abs(z) for z in zs):.2f} | {pm(drift, sign=True)} | "
                   f"{met(med[0] <= 2)} |")
    return out


def ramp_tables(rs: list[dict], graded: dict | None) -> list[str]:
    if not rs or "regrades" not in rs[0]:
        return []
    seeds = sorted(rs[0]["regrades"], key=int)
    tol = rs[0]["tolerance"]
    out = ["\n### The ramp, re-graded\n",
           f"`configs/ramp.yaml` as shipped (12 levels, 25 → 60, tolerance {tol:g}), made at each pack "
           f"seed below and re-graded with audit seeds {', '.join(seeds)}. Within: |re-graded − target| ≤ "
           f"{tol:g}, target = from + (to − from)·i/(n − 1). Shares ± binomial se; fresh − kept: per level the "
           "mean over the audit seeds minus the kept score, mean ± se over levels.\n",
           "| pack seed | levels | kept within | " + " | ".join(f"audit seed {s} within" for s in seeds)
           + " | all re-grades within | fresh − kept | mean \\|fresh − target\\| | target ≥ 90% |",
           "|---|---|---|" + "---|" * len(seeds) + "---|---|---|---|"]
    groups = {}
    for r in rs:
        groups.setdefault(r["pack_seed"], []).append(r)
    groups["all"] = rs
    for key, g in groups.items():
        n = len(g)
        kept = sum(abs(r["score"] - r["target"]) <= r["tolerance"] for r in g)
        per = [sum(abs(r["regrades"][s]["score"] - r["target"]) <= r["tolerance"] for r in g) for s in seeds]
        k = sum(per)
        drift = mean_se(statistics.mean(r["regrades"][s]["score"] for s in seeds) - r["score"] for r in g)
        off = statistics.mean(abs(r["regrades"][s]["score"] - r["target"]) for r in g for s in seeds)
        share = share_se(k, n * len(seeds))
        out.append(f"| {key} | {n} | {kept} of {n} | " + " | ".join(f"{x} of {n}" for x in per)
                   + f" | {k} of {n * len(seeds)} ({100 * share[0]:.0f}% ± {100 * share[1]:.0f}) | "
                   f"{pm(drift, sign=True)} | {off:.2f} | {met(share[0] >= 0.9)} |")
    first = rs[0]["pack_seed"]
    out += ["\nThe shipped pack (pack seed " f"{first}), level by level: kept score ± its se, and the re-grades "
            "(± their se); * marks a re-grade outside the tolerance.\n",
            "| level | target | kept | tier | " + " | ".join(f"audit seed {s}" for s in seeds) + " |",
            "|---|---|---|---|" + "---|" * len(seeds)]
    for r in (x for x in rs if x["pack_seed"] == first):
        cells = []
        for s in seeds:
            g = r["regrades"][s]
            star = "" if abs(g["score"] - r["target"]) <= r["tolerance"] else " *"
            cells.append(f"{g['score']:.1f} ± {g['se']:.1f}{star}")
        out.append(f"| {r['id']} | {r['target']:.1f} | {r['score']:.1f} ± {r['se']:.1f} | {r['tier']} | "
                   + " | ".join(cells) + " |")
    if graded is not None:
        out.append(f"\n`grade_levels` (what `llkgen grade` runs) on the shipped pack written to a file, audit "
                   f"seed 1: {graded['same']} of {graded['n']} levels give the same score and se as the per-level "
                   f"re-grade above; {graded['moved']} flagged as moved.")
    return out


def order_table(by_spec: dict[str, list[dict]]) -> list[str]:
    if not any("outcome" in r for rs in by_spec.values() for r in rs):
        return []
    out = ["\n### Ordering within one board size\n",
           "Spearman ρ (± bootstrap se) between the kept score (or the tier, as its position in "
           f"{', '.join(TIERS)}) and the careful / nearest fail rates measured on an independent stream "
           f"(stream {OUTCOME_STREAMS[0]}, target se {OUTCOME_SE}). Held out: the odd level indices (as in the "
           "previous measurement; nothing is fitted). ref: the model on stream "
           f"{OUTCOME_STREAMS[0]} against itself on stream {OUTCOME_STREAMS[1]}, the best any score can do given "
           "the outcome's own noise. careful vs nearest: the two outcomes against each other (stream 5). n/a: one "
           "side is constant. 'medium + ramp': the 48-pair boards without gravity pooled.\n",
           "| spec | held out | score vs careful | score vs nearest | tier vs careful | tier vs nearest | "
           "ref careful | ref nearest | all levels: score vs careful / nearest | careful vs nearest (all levels) | "
           "tiers (held out) | target ≥ 0.75 (score) |",
           "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    groups = dict(by_spec)
    if "medium" in by_spec and "ramp" in by_spec:
        groups["medium + ramp"] = by_spec["medium"] + by_spec["ramp"]
    for s, rs in groups.items():
        rs = [r for r in rs if "outcome" in r]
        if not rs:
            continue
        held = [r for r in rs if r["index"] % 2 == 1]

        def fail(r, m, stream=OUTCOME_STREAMS[0]):
            return 1 - r["outcome"][f"{m}@{stream}"]["rate"]

        sc = [r["score"] for r in held]
        ti = [TIERS.index(r["tier"]) for r in held]
        rho = {(k, m): rho_se(x, [fail(r, m) for r in held]) for k, x in (("score", sc), ("tier", ti))
               for m in OUTCOME}
        ref = {m: rho_se([fail(r, m) for r in held], [fail(r, m, OUTCOME_STREAMS[1]) for r in held]) for m in OUTCOME}
        allr = [spearman([r["score"] for r in rs], [fail(r, m) for r in rs]) for m in OUTCOME]
        both = rho_se([fail(r, "careful") for r in rs], [fail(r, "nearest") for r in rs])
        tiers = {t: sum(r["tier"] == t for r in held) for t in TIERS}
        tiers_txt = ", ".join(f"{t} {n}" for t, n in tiers.items() if n)
        ok = all(not math.isnan(rho[("score", m)][0]) and rho[("score", m)][0] >= 0.75 for m in OUTCOME)
        out.append(f"| {s} | {len(held)} | {pm(rho[('score', 'careful')])} | {pm(rho[('score', 'nearest')])} | "
                   f"{pm(rho[('tier', 'careful')])} | {pm(rho[('tier', 'nearest')])} | {pm(ref['careful'])} | "
                   f"{pm(ref['nearest'])} | {fmt(allr[0])} / {fmt(allr[1])} (n = {len(rs)}) | {pm(both)} | "
                   f"{tiers_txt} | {met(ok)} |")
    out += ["\nWhat any score could reach on the same held-out levels. Without ties, a score ranks levels that "
            "the outcome ties (nearest clears most levels always or never) in some order, so even a perfect one "
            "stops short of 1: 'ceiling' is the Spearman ρ of the outcome's own order with ties broken, the most a "
            "score without ties can reach against it. Against both outcomes at once, no ordering can beat "
            "√((1 + ρ)/2) against both, ρ being the two outcomes' own Spearman on these levels (the best is their "
            "sum of standardised ranks). 'nearest fails' counts the levels whose nearest fail rate is above 0.5.\n",
            "| spec | held out | nearest fails | ceiling vs careful | ceiling vs nearest | "
            "careful vs nearest (held out) | both at once ≤ | target 0.75 reachable |",
            "|---|---|---|---|---|---|---|---|"]
    for s, rs in groups.items():
        held = [r for r in rs if "outcome" in r and r["index"] % 2 == 1]
        if len(held) < 3:
            continue
        c = [1 - r["outcome"]["careful@5"]["rate"] for r in held]
        n = [1 - r["outcome"]["nearest@5"]["rate"] for r in held]
        ceil = [spearman(np.argsort(np.argsort(y, kind="mergesort"), kind="mergesort"), y) for y in (c, n)]
        cn = spearman(c, n)
        both = math.sqrt((1 + cn) / 2) if not math.isnan(cn) else math.nan
        reach = min(both, *ceil)
        out.append(f"| {s} | {len(held)} | {sum(x > 0.5 for x in n)} | {fmt(ceil[0])} | {fmt(ceil[1])} | {fmt(cn)} | "
                   f"{fmt(both)} | {'no' if reach < 0.75 else 'not ruled out'} |")
    out += ["\nThe outcome models' clear rates (stream 5), median [min, max] over all levels of the spec, and the "
            "median runs they took:\n",
            "| spec | careful | nearest | runs careful / nearest |", "|---|---|---|---|"]
    for s, rs in by_spec.items():
        rs = [r for r in rs if "outcome" in r]
        if not rs:
            continue
        cells = []
        for m in OUTCOME:
            v = [r["outcome"][f"{m}@5"]["rate"] for r in rs]
            cells.append(f"{statistics.median(v):.2f} [{min(v):.2f}, {max(v):.2f}]")
        runs = [statistics.median(r["outcome"][f"{m}@5"]["runs"] for r in rs) for m in OUTCOME]
        out.append(f"| {s} | {cells[0]} | {cells[1]} | {runs[0]:.0f} / {runs[1]:.0f} |")
    return out


def cost_table(by_spec: dict[str, list[dict]]) -> list[str]:
    if not any("cpu_bare" in r for rs in by_spec.values() for r in rs):
        return []
    out = ["\n### Cost: make with and without grading\n",
           "CPU seconds per level (`time.process_time` in the worker), mean ± se over levels; the same level "
           "index and pack seed made with the spec as shipped and with `grading: {enabled: false}` and no "
           "ladder target (for the ramp: no ramp, so other levels are kept). Ratio of means ± bootstrap se; "
           "per-level ratio: median [quartiles]. The re-grade column is one `regrade` of a kept level "
           "(what `llkgen grade` costs per level).\n",
           "| spec | levels | make, grading | make, no grading | ratio of means | per-level ratio median [q1, q3] | "
           "attempts (grading / none) | one re-grade | ladder runs/level | target ≤ 2× |",
           "|---|---|---|---|---|---|---|---|---|---|"]
    for s, rs in by_spec.items():
        rs = [r for r in rs if "cpu_bare" in r]
        if not rs:
            continue
        g = np.array([r["cpu_graded"] for r in rs])
        b = np.array([r["cpu_bare"] for r in rs])
        ratio = (float(g.mean() / b.mean()), boot_se(len(rs), lambda i, g=g, b=b: float(g[i].mean() / b[i].mean())))
        per = sorted(g / b)
        q1, q2, q3 = statistics.quantiles(per, n=4)
        rg = [x["cpu"] for r in rs for x in r.get("regrades", {}).values()]
        out.append(f"| {s} | {len(rs)} | {pm(mean_se(g))} | {pm(mean_se(b), 3)} | {pm(ratio)} | "
                   f"{q2:.1f} [{q1:.1f}, {q3:.1f}] | "
                   f"{statistics.mean(r['attempts_graded'] for r in rs):.1f} / "
                   f"{statistics.mean(r['attempts_bare'] for r in rs):.1f} | "
                   f"{pm(mean_se(rg)) if rg else 'n/a'} | {statistics.median(r['runs'] for r in rs):.0f} | "
                   f"{met(ratio[0] <= 2)} |")
    return out


def profile_table(profs: list[dict]) -> list[str]:
    if not profs:
        return []
    specs = list(dict.fromkeys(p["spec"] for p in profs))
    out = ["\n### Where make's time goes\n",
           "Per model player: CPU seconds of every playthrough `make`'s ladder plays (each timed with "
           "`process_time`), summed over the profiled levels, as a share of the levels' whole `make` CPU; "
           "ms per playthrough in brackets. The stages: cumulative time under cProfile of one level (the first "
           f"profiled), as shares of its profiled total. {players_build()}\n",
           "| spec | levels | make CPU s/level | ladder share | " + " | ".join(MODELS) + " |",
           "|---|---|---|---|" + "---|" * len(MODELS)]
    for s in specs:
        ps = [p for p in profs if p["spec"] == s]
        total = sum(p["cpu"] for p in ps)
        lad = sum(p["per_model"][m][0] for p in ps for m in MODELS)
        cells = []
        for m in MODELS:
            sec = sum(p["per_model"][m][0] for p in ps)
            n = sum(p["per_model"][m][1] for p in ps)
            cells.append(f"{100 * sec / total:.0f}% ({1000 * sec / n:.2f} ms)" if n else "0%")
        out.append(f"| {s} | {len(ps)} | {total / len(ps):.3f} | {100 * lad / total:.0f}% | "
                   + " | ".join(cells) + " |")
    out += ["\n| spec | " + " | ".join(STAGES) + " | Playout.copy | Playout.remove | top own time (Python frames) |",
            "|---|" + "---|" * len(STAGES) + "---|---|---|"]
    for s in specs:
        p = next(p for p in profs if p["spec"] == s)
        tot = p["profiled"]
        pl = p["playout"]
        seen = any(pl.values())
        top = ", ".join(f"{f} {100 * t / tot:.0f}%" for t, f in p["top"][:4])
        shares = (f"{100 * pl['copy'] / tot:.0f}% | {100 * pl['remove'] / tot:.0f}%" if seen
                  else "not seen | not seen")
        out.append(f"| {s} | " + " | ".join(f"{100 * p['stages'][st] / tot:.0f}%" for st in STAGES) + " | "
                   + shares + f" | {top} |")
    return out


def players_build() -> str:
    if native_players.AVAILABLE:
        return ("The ladder's playthroughs run in the C players here (each batch timed whole): cProfile sees "
                "only the Python frames, so Playout.copy/remove are not seen in the ladder.")
    compiled = not players.__file__.endswith(".py")
    return ("The players, Playout and the path code are compiled here: cProfile sees only the Python frames "
            "(the generator, the ladder's loop, numpy's seeding), so Playout.copy/remove are not seen."
            if compiled else "Pure Python build: cProfile sees every frame (and inflates their cost).")


# -- main -----------------------------------------------------------------------------------------

def grade_check(recs: list[dict]) -> dict | None:
    """The shipped ramp pack written to a file and graded by grade_levels with audit seed 1:
    how many levels agree with the per-level re-grade. In this process (``jobs=1``): with the
    compiled players, a LevelAudit does not unpickle (its ``Estimate`` is a frozen dataclass
    compiled by mypyc), so grading on worker processes fails."""
    rs = [r for r in recs if r["spec"] == "ramp" and "regrades" in r]
    if not rs:
        return None
    first = rs[0]["pack_seed"]
    rs = [r for r in rs if r["pack_seed"] == first]
    spec = load_spec_ref("ramp")
    pack = Pack(spec.name, [level_from_json(r["level_json"]) for r in rs], {"seed": first})
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "ramp.json"
        write_json_atomic(path, pack_to_json(pack))
        report = grade_levels(str(path), 1, precision=spec.grading.precision, max_runs=spec.grading.max_runs,
                              jobs=1)
    same = sum(abs(a.difficulty.score - r["regrades"]["1"]["score"]) < 1e-9
               and abs(a.difficulty.se - r["regrades"]["1"]["se"]) < 1e-9 for a, r in zip(report.measured, rs))
    return {"n": len(rs), "same": same, "moved": sum(bool(a.moved) for a in report.measured)}


def tables(recs: list[dict], profs: list[dict], graded: dict | None, header: str) -> str:
    by_spec: dict[str, list[dict]] = {}
    for r in recs:
        by_spec.setdefault(r["spec"], []).append(r)
    by_spec = {s: by_spec[s] for s in SPECS if s in by_spec}
    out = [header, ""]
    out += noise_table(by_spec)
    out += ramp_tables(by_spec.get("ramp", []), graded)
    out += order_table(by_spec)
    out += cost_table(by_spec)
    out += profile_table(profs)
    return "\n".join(out) + "\n"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--count", type=int, default=24, help="levels per spec without a ramp (default 24)")
    ap.add_argument("--gravity-count", type=int, help="levels of the gravity spec (default: --count)")
    ap.add_argument("--ramp-seeds", type=int, nargs="+",
                    help="pack seeds of the 12-level ramp (default: the shipped seed only)")
    ap.add_argument("--specs", nargs="+", default=list(SPECS), choices=SPECS)
    ap.add_argument("--parts", nargs="+", default=list(PARTS), choices=PARTS)
    ap.add_argument("--profile-levels", type=int, default=3, help="levels per spec for the profile part")
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--raw", help="also write every measurement to this JSON file")
    ap.add_argument("--from-raw", help="print the tables from a --raw file instead of measuring")
    args = ap.parse_args()
    if args.from_raw:
        data = json.loads(Path(args.from_raw).read_text())
        print(tables(data["levels"], data["profiles"], data["graded"], data["header"]))
        return
    parts = tuple(args.parts)
    build = (f"{search_core()} core, players "
             + ("in C" if native_players.AVAILABLE
                else "pure Python" if players.__file__.endswith(".py") else "compiled"))
    header = (f"Measured with: {build}; {os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f} at start. "
              f"Command: `python scripts/difficulty_check.py {' '.join(sys.argv[1:])}`")
    print(header, file=sys.stderr)
    tasks = plan(args.specs, args.count, args.gravity_count or args.count, args.ramp_seeds)
    recs: list[dict] = []
    profs: list[dict] = []
    t0 = time.perf_counter()
    with ProcessPoolExecutor(max(1, args.jobs)) as ex:
        if set(parts) - {"profile"}:
            for r in ex.map(measure_level, [(*t, parts) for t in tasks], chunksize=1):
                recs.append(r)
                print(f"  {r['spec']} #{r['index'] + 1} (pack seed {r['pack_seed']}) score {r['score']:.1f} "
                      f"[{time.perf_counter() - t0:.0f} s]", file=sys.stderr, flush=True)
        if "profile" in parts:
            ptasks = [(s, p, c, i) for s, p, c, i in tasks
                      if i < args.profile_levels and p == spec_for(s, c).seed]
            profs = list(ex.map(profile_level, ptasks, chunksize=1))
    graded = grade_check(recs) if "ramp" in parts else None
    header += f"; load average {os.getloadavg()[0]:.1f} at the end."
    if args.raw:
        Path(args.raw).write_text(json.dumps({"levels": recs, "profiles": profs, "graded": graded, "header": header}))
    print(tables(recs, profs, graded, header))


if __name__ == "__main__":
    main()
