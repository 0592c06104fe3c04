"""Levels per second for ``llkgen make`` on the shipped specs, at --jobs 1 and --jobs 2.

    python benchmarks/make_bench.py                     # easy, hard, gravity; 10 levels each
    python benchmarks/make_bench.py --count 20 --specs hard
    python benchmarks/make_bench.py --target            # also: 100 levels of 10x16 on 2 jobs

Each run is the library call behind ``llkgen make`` (generate, certify, write the pack) into a
temporary directory, so packs under output/ are untouched. The --jobs 1 and --jobs 2 packs are
compared byte for byte. With --jobs 1 the slowest level is reported with the pack seed, so an
outlier can be reproduced with ``llkgen make --config configs/<spec>.yaml --seed S``, and
"in verify" is the share of the run spent inside the verifier (the rest is dealing or
constructing boards and measuring their metrics).

The target (issue 5): a 100-level pack of full 10x16 boards, 40 types x 4, border on, in under
30 s on 2 cores. That is ``configs/hard.yaml`` with ``--count 100``. Wall-clock figures depend
on the machine and on whatever else runs on it: say both when quoting them.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import llkgen.generate as generate  # noqa: E402
from llkgen.export import make_pack  # noqa: E402
from llkgen.spec import load_spec  # noqa: E402

#: Seconds spent inside verify() by generate_level in this process (jobs 1 runs only).
VERIFY_SECONDS = [0.0]
_verify = generate.verify


def _timed_verify(*args, **kwargs):
    t = time.perf_counter()
    try:
        return _verify(*args, **kwargs)
    finally:
        VERIFY_SECONDS[0] += time.perf_counter() - t


generate.verify = _timed_verify


def run(spec_name: str, count: int, jobs: int, out_dir: Path, seed: int | None) -> dict:
    spec = load_spec(ROOT / "configs" / f"{spec_name}.yaml").with_overrides(
        count=count, seed=seed, out=out_dir / f"{spec_name}-{count}-j{jobs}.json")
    stamps: list[tuple[float, object]] = []
    VERIFY_SECONDS[0] = 0.0
    start = time.perf_counter()
    result = make_pack(spec, jobs=jobs, on_level=lambda lv: stamps.append((time.perf_counter(), lv)))
    took = time.perf_counter() - start
    slowest = None
    if jobs == 1:
        prev = start
        for t, lv in stamps:
            if slowest is None or t - prev > slowest[0]:
                slowest = (t - prev, lv)
            prev = t
    return {"spec": spec_name, "count": count, "jobs": jobs, "seconds": took, "path": result.path,
            "levels": result.levels, "slowest": slowest, "pack_seed": spec.seed,
            "verify_share": VERIFY_SECONDS[0] / took if jobs == 1 else None}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--specs", nargs="+", default=["easy", "hard", "gravity"])
    ap.add_argument("--count", type=int, default=10, help="levels per run (default 10)")
    ap.add_argument("--seed", type=int, default=None, help="override the specs' seeds")
    ap.add_argument("--jobs", type=int, nargs="+", default=[1, 2])
    ap.add_argument("--target", action="store_true", help="also time the 100-level 10x16 target on 2 jobs")
    args = ap.parse_args()

    print(f"# llkgen make benchmark: {os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f} at start")
    print(f"{'spec':<8} {'levels':>6} {'jobs':>4} {'seconds':>8} {'levels/s':>9} {'attempts':>8}  "
          f"{'mean rate':>9} {'mean nodes':>10} {'in verify':>9}  slowest level (jobs 1)")
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp)
        plan = [(s, args.count, j) for s in args.specs for j in args.jobs]
        if args.target:
            plan.append(("hard", 100, 2))
        for spec_name, count, jobs in plan:
            r = run(spec_name, count, jobs, out, args.seed)
            rows.append(r)
            lv = r["levels"]
            slow = ""
            if r["slowest"] is not None:
                secs, s_lv = r["slowest"]
                slow = (f"#{s_lv.index + 1} {secs:.1f} s, {s_lv.metrics['verify_nodes']} nodes, "
                        f"{s_lv.attempts} attempts (pack seed {r['pack_seed']})")
            print(f"{spec_name:<8} {count:>6} {jobs:>4} {r['seconds']:>8.2f} {count / r['seconds']:>9.2f} "
                  f"{sum(x.attempts for x in lv):>8}  "
                  f"{sum(x.metrics['random_clear_rate'] for x in lv) / count:>9.2f} "
                  f"{sum(x.metrics['verify_nodes'] for x in lv) / count:>10.0f} "
                  f"{'' if r['verify_share'] is None else format(r['verify_share'], '.0%'):>9}  {slow}", flush=True)
        by_key: dict[tuple, bytes] = {}
        for r in rows:
            data = r["path"].read_bytes()
            key = (r["spec"], r["count"])
            if key in by_key and by_key[key] != data:
                print(f"!! {r['spec']} x{r['count']}: packs differ between job counts", flush=True)
                sys.exit(1)
            by_key[key] = data
    print("packs identical across job counts: yes")
    if args.target:
        t = rows[-1]["seconds"]
        print(f"target: 100 levels of 10x16 (hard.yaml) on 2 jobs in {t:.1f} s "
              f"({'met' if t < 30 else 'missed'}: goal < 30 s)")


if __name__ == "__main__":
    main()
