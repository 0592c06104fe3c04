"""Is the standard error ``make`` reports with every score honest? For docs/difficulty.md
("Is the reported error honest?").

For each shipped spec, ``--levels`` levels are made as ``make`` makes them (``generate_level``;
the ramp spec's 12 at each pack seed of ``--ramp-seeds``, by default its own: the shipped pack). Each level is then
measured ``--repeats`` times by the ladder (:func:`llkgen.analysis.difficulty.measure`, the
spec's ``grading.precision`` and ``max_runs``), each on its own stream (100, 101, ...: apart from
make's streams 0 and 1), and once more, long, as a reference: every model's clear rate to a
standard error of 0.004 (at most 16,384 runs a model, stream 99).

Per spec it prints:

* **score**: the rms over levels of the repeats' sample sd, against the rms of the se they
  reported; their ratio (1 is honest, below 1 conservative, above 1 optimistic) with its
  standard error, a bootstrap over levels; the mean of (score minus
  the reference) with its se (a bias of the adaptive stopping would show there); the share of
  measurements more than 2 of their own se from the reference (about 5% if honest); and the
  median playthroughs a measurement took;
* **per model**: the same ratio for each model's clear rate (``llkgen grade`` and a
  ``clear_rate`` target read these).

Every number is a pure function of the arguments (``--jobs`` only changes the wall time).

    python scripts/se_calibration.py --levels 40 --repeats 6 --ramp-seeds 5 6 7 8 --jobs 2
    python scripts/se_calibration.py --specs easy gravity --levels 10 --raw raw.json
    python scripts/se_calibration.py --from-raw raw.json      # the tables again, no measuring
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import math
import statistics
import sys
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

if importlib.util.find_spec("llkgen") is None:  # not installed: use the source tree
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np  # noqa: E402

from llkgen._version import search_core  # noqa: E402
from llkgen.analysis import native_players  # noqa: E402
from llkgen.analysis.difficulty import measure, score_of  # noqa: E402
from llkgen.analysis.ladder import MODELS  # noqa: E402
from llkgen.analysis.players import clear_rate  # noqa: E402
from llkgen.game.playout import Playout  # noqa: E402
from llkgen.generation.generator import generate_level  # noqa: E402
from llkgen.generation.spec import load_spec_ref  # noqa: E402

SPECS = ("easy", "medium", "hard", "gravity", "ramp")
#: The repeats' first stream, and the reference's: apart from make's (0, 1) and from each other.
FIRST_REPEAT_STREAM = 100
REFERENCE_STREAM = 99
REFERENCE_SE = 0.004
REFERENCE_MAX_RUNS = 16384


def measure_level(task: tuple[str, int | None, int, int]) -> dict:
    """The repeats and the reference of one level (in a worker)."""
    name, pack_seed, index, repeats = task
    spec = load_spec_ref(name)
    if spec.ramp is None:
        spec = spec.with_overrides(count=index + 1)
    elif pack_seed is not None:
        spec = spec.with_overrides(seed=pack_seed)
    lv = generate_level(spec, index)
    start = Playout(lv.board, lv.rules)
    g = spec.grading
    ms = [measure(start, lv.rules, lv.seed, stream=FIRST_REPEAT_STREAM + s, precision=g.precision,
                  max_runs=g.max_runs) for s in range(repeats)]
    ref = {m: clear_rate(m, lv.board, lv.rules, lv.seed, stream=REFERENCE_STREAM, target_se=REFERENCE_SE,
                         max_runs=REFERENCE_MAX_RUNS) for m in MODELS}
    ref_score, ref_se = score_of(ref)
    return {"spec": name, "index": index, "score": [d.score for d in ms], "se": [d.se for d in ms],
            "runs": [d.runs for d in ms], "ref": ref_score, "ref_se": ref_se,
            "rate": {m: [d.rates[m].rate for d in ms] for m in MODELS},
            "rate_se": {m: [d.rates[m].se for d in ms] for m in MODELS},
            "ref_rate": {m: ref[m].rate for m in MODELS}}


def ratio(values: list[list[float]], ses: list[list[float]]) -> tuple[float, float, float, float]:
    """``(rms sample sd, rms reported se, their ratio, the ratio's se)`` over levels. The ratio's
    se is a bootstrap over levels (2000 resamples, seeded): levels differ in their variance, and
    a rate at 0 or 1 is far from normal, so the chi-square spread of a pooled variance would
    understate it (by 2 to 5 times for the nearest model)."""
    var = np.array([statistics.variance(v) for v in values])
    rep = np.array([statistics.fmean(s * s for s in ss) for ss in ses])
    r = math.sqrt(var.mean() / rep.mean())
    rng = np.random.default_rng(2026)
    boot = []
    for _ in range(2000):
        i = rng.integers(len(var), size=len(var))
        if rep[i].mean() > 0:
            boot.append(math.sqrt(var[i].mean() / rep[i].mean()))
    return math.sqrt(var.mean()), math.sqrt(rep.mean()), r, float(np.std(boot, ddof=1))


def tables(recs: list[dict], specs: list[str]) -> str:
    out = ["| spec | levels x repeats | rms sd of repeats | rms reported se | ratio (1 = honest) | "
           "mean score - reference | beyond 2 se of the reference | median playthroughs |",
           "|---|---|---|---|---|---|---|---|"]
    per_model = ["| spec | " + " | ".join(MODELS) + " |", "|---" * (len(MODELS) + 1) + "|"]
    for s in specs:
        rs = [r for r in recs if r["spec"] == s]
        if not rs:
            continue
        sd, se, r, r_se = ratio([x["score"] for x in rs], [x["se"] for x in rs])
        bias = [statistics.fmean(x["score"]) - x["ref"] for x in rs]
        far = sum(abs(v - x["ref"]) > 2 * math.hypot(e, x["ref_se"]) for x in rs for v, e in zip(x["score"], x["se"]))
        n = sum(len(x["score"]) for x in rs)
        runs = statistics.median(v for x in rs for v in x["runs"])
        out.append(f"| {s} | {len(rs)} x {len(rs[0]['score'])} | {sd:.2f} | {se:.2f} | {r:.2f} ± {r_se:.2f} | "
                   f"{statistics.fmean(bias):+.2f} ± {statistics.stdev(bias) / math.sqrt(len(bias)):.2f} | "
                   f"{far} of {n} ({100 * far / n:.1f}%) | {runs:.0f} |")
        cells = []
        for m in MODELS:
            _, _, rm, rm_se = ratio([x["rate"][m] for x in rs], [x["rate_se"][m] for x in rs])
            cells.append(f"{rm:.2f} ± {rm_se:.2f}")
        per_model.append(f"| {s} | " + " | ".join(cells) + " |")
    return "\n".join(out + ["", "Per model: the same ratio for each model's clear rate.", ""] + per_model)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--specs", nargs="+", default=list(SPECS), choices=SPECS, help="shipped spec names")
    ap.add_argument("--levels", type=int, default=40, help="levels per spec (the ramp: at most its 12 a pack)")
    ap.add_argument("--repeats", type=int, default=6, help="independent measurements of each level")
    ap.add_argument("--ramp-seeds", type=int, nargs="+", help="pack seeds of the ramp (default: its own)")
    ap.add_argument("--jobs", type=int, default=1, help="worker processes")
    ap.add_argument("--raw", help="also write every measurement to this JSON file")
    ap.add_argument("--from-raw", help="print the tables of a --raw file again, measuring nothing")
    args = ap.parse_args()
    if args.from_raw:
        recs = json.loads(Path(args.from_raw).read_text(encoding="utf-8"))
        print(tables(recs, [s for s in SPECS if any(r["spec"] == s for r in recs)]))
        return
    if args.repeats < 2 or args.levels < 1:
        ap.error("--repeats must be at least 2 and --levels at least 1")
    tasks = []
    for s in args.specs:
        spec = load_spec_ref(s)
        if spec.ramp is None:
            tasks += [(s, None, i, args.repeats) for i in range(args.levels)]
        else:
            tasks += [(s, seed, i, args.repeats) for seed in args.ramp_seeds or [spec.seed]
                      for i in range(min(args.levels, spec.count))]
    players = "C" if native_players.AVAILABLE else "Python"
    print(f"# is the reported se honest? {search_core()} core, players in {players}; "
          f"{args.repeats} repeats a level (streams {FIRST_REPEAT_STREAM}..), reference: stream {REFERENCE_STREAM}, "
          f"se {REFERENCE_SE} a model")
    with ProcessPoolExecutor(max(1, args.jobs)) as ex:
        recs = list(ex.map(measure_level, tasks, chunksize=1))
    if args.raw:
        Path(args.raw).write_text(json.dumps(recs), encoding="utf-8")
    print(tables(recs, args.specs))


if __name__ == "__main__":
    main()
