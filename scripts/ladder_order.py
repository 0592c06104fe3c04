"""The player ladder's order by measured strength, for ``llkgen/analysis/ladder.py``
(:data:`~llkgen.analysis.ladder.STRENGTH`) and docs/calibration.md ("The ladder in order").

Reference set: ``--levels`` levels of each shipped spec, made as ``make`` makes them
(``generate_level``, at pack seeds ``--seed``, ``--seed + 1``, ...; the ramp's 12 indexes in
turn). Each model's clear rate on each level is measured to a standard error of 0.02 (at most
4,096 playthroughs, stream 98: apart from make's 0 and 1 and the se study's 99 and 100+).

Prints per spec and over all of them: each model's mean clear rate with its standard error
over levels, the order by that mean (weak to strong), and for each pair of neighbours in that
order the mean paired difference of their clear rates (with its standard error over levels),
the share of levels on which the stronger one clears at least as often, and the share
on which the weaker one clears reliably (>= 0.8) while the stronger one does not -- the
levels whose profile is not monotone.

    python scripts/ladder_order.py --levels 12 --jobs 2
"""

from __future__ import annotations

import argparse
import importlib.util
import statistics
import sys
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

if importlib.util.find_spec("llkgen") is None:  # not installed: use the source tree
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from llkgen.analysis.ladder import MODELS, RELIABLY  # noqa: E402
from llkgen.analysis.players import clear_rates  # noqa: E402
from llkgen.generation.generator import generate_level  # noqa: E402
from llkgen.generation.spec import load_spec_ref  # noqa: E402

SPECS = ("easy", "medium", "hard", "gravity", "ramp")
STREAM = 98


def measure_level(task: tuple[str, int, int]) -> dict:
    name, seed, k = task
    spec = load_spec_ref(name).with_overrides(seed=seed)
    index = k % spec.count if spec.ramp is not None else 0
    if spec.ramp is None:
        spec = spec.with_overrides(count=1)
    lv = generate_level(spec, index)
    rates = clear_rates(lv.board, lv.rules, lv.seed, stream=STREAM, target_se=0.02, max_runs=4096)
    return {"spec": name, "rates": {m: e.rate for m, e in rates.items()}}


def table(recs: list[dict], title: str) -> list[str]:
    mean = {m: statistics.fmean(r["rates"][m] for r in recs) for m in MODELS}
    se = {m: statistics.stdev([r["rates"][m] for r in recs]) / len(recs) ** 0.5 for m in MODELS}
    order = sorted(MODELS, key=lambda m: mean[m])
    out = [f"{title} ({len(recs)} levels): " + ", ".join(f"{m} {mean[m]:.3f} ± {se[m]:.3f}" for m in order)]
    for weak, strong in zip(order, order[1:]):
        ge = sum(r["rates"][strong] >= r["rates"][weak] for r in recs)
        broken = sum(r["rates"][weak] >= RELIABLY > r["rates"][strong] for r in recs)
        diff = [r["rates"][strong] - r["rates"][weak] for r in recs]
        d_se = statistics.stdev(diff) / len(diff) ** 0.5
        out.append(f"  {weak} -> {strong}: mean paired difference {statistics.fmean(diff):+.3f} ± {d_se:.3f}; "
                   f"stronger clears at least as often on {ge}/{len(recs)}; "
                   f"weaker reliable, stronger not on {broken}/{len(recs)}")
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--specs", nargs="+", default=list(SPECS), choices=SPECS)
    ap.add_argument("--levels", type=int, default=12)
    ap.add_argument("--seed", type=int, default=1000)
    ap.add_argument("--jobs", type=int, default=1)
    args = ap.parse_args()
    tasks = [(s, args.seed + k, k) for s in args.specs for k in range(args.levels)]
    with ProcessPoolExecutor(args.jobs) as pool:
        recs = list(pool.map(measure_level, tasks))
    for s in args.specs:
        print("\n".join(table([r for r in recs if r["spec"] == s], s)))
    print("\n".join(table(recs, "all")))


if __name__ == "__main__":
    main()
