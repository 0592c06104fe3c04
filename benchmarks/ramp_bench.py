"""What a ramp level costs the player ladder, aimed against blind, on the same levels in one run,
and whether the aimed levels still hold their targets when re-graded.

Each task is one level (pack seed, index) of ``configs/ramp.yaml`` made twice in one worker
process, which one first alternating by index so both see the same load:

* **blind** (``generator.AIM`` off): the method before aiming. Deals drawn blindly, each
  candidate measured by the whole ladder (with its early stop at 2 se outside the window, after
  a first round that counts an unplayed model as anywhere from 0 to 100% failing), and a
  candidate that meets the window measured again, fresh, before it is kept;
* **aimed** (as shipped): candidates steered towards the target
  (:mod:`llkgen.generation.steer`) and screened by a coarse sequential measurement
  (:func:`llkgen.analysis.difficulty.screen`) before the fresh measurement that decides.

Per level it counts the ladder's playthroughs (every call to the players in
:mod:`llkgen.analysis.difficulty`), the CPU seconds (``time.process_time``) of the whole
``generate_level``, and, on the kept board, the playthroughs of one full measurement
(:func:`~llkgen.analysis.difficulty.measure` to the spec's precision, no window, on an unrelated
seed): the unit of "one measurement". Then each kept level is re-graded ``--regrades`` times
with seeds of its own (``audit_seed`` of a drawn audit seed and the level), as ``llkgen grade``
does, and a re-grade is within when ``|score - target| <= tolerance``.

Pack seeds are fresh each run: drawn from ``--seed`` (default: from the operating system) and
printed, so a run can be repeated but no list is tuned. Prints one table: playthroughs per kept
level (mean ± se over levels), the ratio of the mean to the mean full measurement (± bootstrap
se over levels), the share of re-grades within tolerance (Wilson 95% interval), CPU per kept
level, candidates per level, and the winner's curse: the mean of a level's re-grades minus its
kept score, mean ± se over levels (and over the mean kept se). The issue's targets: aimed at
most 2.5 measurements a kept level, at least 90% within.

    python benchmarks/ramp_bench.py --packs 8 --jobs 2
    python benchmarks/ramp_bench.py --packs 8 --jobs 2 --seed 7     # repeat a run
    python benchmarks/ramp_bench.py --packs 8 --jobs 2 --guards 0.75,0.5

``--guards`` adds an aimed row for each guard band given (``generator.AIMED_GUARD_SE``, in the
fresh measurement's standard errors; the shipped one is the "aimed" row), on the same levels:
the guard is what trades the two targets against each other.

Nothing here asserts on a time; compare the two rows of one run.
"""

from __future__ import annotations

import argparse
import importlib.util
import math
import os
import secrets
import statistics
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

if importlib.util.find_spec("llkgen") is None:  # not installed: use the source tree
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np  # noqa: E402

import llkgen.analysis.difficulty as difficulty  # noqa: E402
import llkgen.generation.generator as generator  # noqa: E402
from llkgen._version import search_core  # noqa: E402
from llkgen.analysis.audit import audit_seed  # noqa: E402
from llkgen.generation.spec import load_spec_ref  # noqa: E402

SHIPPED_GUARD = generator.AIMED_GUARD_SE
#: The stream of the full measurement that sizes "one measurement": apart from make's.
UNIT_STREAM = 12_345

_played = [0]
_real_playthroughs = difficulty.playthroughs


def _counted(model, start, seed, stream, k0, k1):
    _played[0] += k1 - k0
    return _real_playthroughs(model, start, seed, stream, k0, k1)


def method_name(guard: float | None) -> str:
    """The row of an aimed run with guard band ``guard`` (``None``: blind)."""
    if guard is None:
        return "blind"
    return "aimed" if guard == SHIPPED_GUARD else f"aimed, guard {guard:g} se"


def make_level(task: tuple[int, int, int, int, tuple[float, ...]]) -> list[dict]:
    """Level ``index`` of the ramp at ``pack_seed``, made blind and aimed at each guard band
    (in a worker), which one first rotating with the index."""
    pack_seed, index, audit, regrades, guards = task
    difficulty.playthroughs = _counted
    spec = load_spec_ref("ramp").with_overrides(seed=pack_seed)
    ramp = spec.ramp
    assert ramp is not None
    target = ramp.start + (ramp.end - ramp.start) * index / (spec.count - 1)
    out = []
    runs: list[float | None] = [None, SHIPPED_GUARD, *guards]
    shift = index % len(runs)
    for guard in runs[shift:] + runs[:shift]:
        method = method_name(guard)
        generator.AIM = guard is not None
        generator.AIMED_GUARD_SE = SHIPPED_GUARD if guard is None else guard
        _played[0] = 0
        t0 = time.process_time()
        lv = generator.generate_level(spec, index)
        cpu = time.process_time() - t0
        played = _played[0]
        _played[0] = 0
        g = spec.grading
        difficulty.measure(lv.board, lv.rules, lv.seed, stream=UNIT_STREAM, precision=g.precision, max_runs=g.max_runs)
        unit = _played[0]
        fresh = [difficulty.measure(lv.board, lv.rules, audit_seed(audit + r, f"{pack_seed}/{index}"),
                                    precision=g.precision, max_runs=g.max_runs).score for r in range(regrades)]
        out.append({"method": method, "pack": pack_seed, "index": index, "played": played, "unit": unit,
                    "cpu": cpu, "attempts": lv.attempts, "kept": lv.metrics["difficulty"],
                    "within": sum(abs(s - target) <= ramp.tolerance for s in fresh), "regrades": len(fresh),
                    "shift": statistics.fmean(fresh) - lv.metrics["difficulty"], "se": lv.metrics["difficulty_se"]})
    return out


def boot_se(n: int, stat, rng: np.random.Generator, rounds: int = 2000) -> float:
    """Bootstrap standard error of ``stat(indices)`` over ``n`` items resampled with replacement."""
    return float(np.std([stat(rng.integers(n, size=n)) for _ in range(rounds)], ddof=1))


def wilson(k: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """The Wilson score interval of ``k`` successes in ``n`` trials."""
    p = k / n
    mid = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return mid - half, mid + half


def mean_se(xs: list[float]) -> tuple[float, float]:
    return statistics.fmean(xs), statistics.stdev(xs) / math.sqrt(len(xs))


def row(method: str, recs: list[dict], rng: np.random.Generator) -> str:
    played = np.array([r["played"] for r in recs], float)
    unit = np.array([r["unit"] for r in recs], float)
    ratio = played.mean() / unit.mean()
    ratio_se = boot_se(len(recs), lambda i: played[i].mean() / unit[i].mean(), rng)
    k, n = sum(r["within"] for r in recs), sum(r["regrades"] for r in recs)
    lo, hi = wilson(k, n)
    pm, pm_se = mean_se(list(played))
    cpu, cpu_se = mean_se([r["cpu"] for r in recs])
    att, att_se = mean_se([r["attempts"] for r in recs])
    shift, shift_se = mean_se([r["shift"] for r in recs])
    met = "met" if ratio <= 2.5 and k / n >= 0.9 else "**missed**"
    return (f"| {method} | {len(recs)} | {att:.1f} ± {att_se:.1f} | {pm:.0f} ± {pm_se:.0f} | {unit.mean():.0f} | "
            f"{ratio:.2f} ± {ratio_se:.2f} | {k} of {n} ({100 * k / n:.1f}%, [{100 * lo:.1f}, {100 * hi:.1f}]) | "
            f"{shift:+.2f} ± {shift_se:.2f} ({shift / statistics.fmean(r['se'] for r in recs):+.2f} se) | "
            f"{cpu:.3f} ± {cpu_se:.3f} | {met} |")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--packs", type=int, default=8, help="ramp packs (12 levels each) at fresh pack seeds")
    ap.add_argument("--regrades", type=int, default=2, help="fresh re-grades of each kept level")
    ap.add_argument("--seed", type=int, help="the seed the pack seeds are drawn from (default: drawn)")
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--guards", default="", metavar="G,...",
                    help=f"aimed rows at these guard bands too, in se (shipped {SHIPPED_GUARD:g})")
    args = ap.parse_args()
    try:
        guards = tuple(float(g) for g in args.guards.split(",") if g.strip())
    except ValueError:
        ap.error(f"--guards: expected numbers separated by commas, found {args.guards!r}")
    if any(not 0 <= g < 5 for g in guards):
        ap.error(f"--guards: expected guard bands from 0 to 5 se, found {args.guards!r}")
    guards = tuple(dict.fromkeys(g for g in guards if g != SHIPPED_GUARD))
    seed = args.seed if args.seed is not None else secrets.randbits(32)
    draw = np.random.default_rng(seed)
    packs = [int(x) for x in draw.integers(1_000_000, size=args.packs)]
    audit = int(draw.integers(1_000_000))
    count = load_spec_ref("ramp").count
    print(f"# configs/ramp.yaml, blind against aimed: {search_core()} core, {os.cpu_count()} cores, "
          f"load average {os.getloadavg()[0]:.1f} at start")
    print(f"# --seed {seed}: pack seeds {' '.join(map(str, packs))}; audit seeds {audit}..{audit + args.regrades - 1}")
    tasks = [(p, i, audit, args.regrades, guards) for p in packs for i in range(count)]
    with ProcessPoolExecutor(max(1, args.jobs)) as ex:
        recs = [r for rs in ex.map(make_level, tasks, chunksize=1) for r in rs]
    rng = np.random.default_rng(2026)
    print("| method | levels | candidates/level | ladder playthroughs/kept level | one measurement | "
          "ratio (target ≤ 2.5) | re-grades within tolerance (95% interval; target ≥ 90%) | "
          "re-graded − kept | CPU s/kept level | targets |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for m in [method_name(g) for g in (None, SHIPPED_GUARD, *guards)]:
        print(row(m, [r for r in recs if r["method"] == m], rng))
    print(f"# load average {os.getloadavg()[0]:.1f} at the end")


if __name__ == "__main__":
    main()
