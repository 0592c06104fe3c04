"""Levels per second for ``llkgen make`` on the shipped specs, at --jobs 1 and --jobs 2.

    python benchmarks/make_bench.py                     # easy, hard, gravity; 10 levels each
    python benchmarks/make_bench.py --count 20 --specs hard
    python benchmarks/make_bench.py --target            # also: 100 levels of 10x16 on 2 jobs
    python benchmarks/make_bench.py --compare --count 60 --rounds 3 --specs easy hard

--compare times the ways to run one pack on this machine, in interleaved rounds (so that a
change in the machine's load hits every way alike): ``--jobs 2`` (the process pool),
``--scheduler local`` with 2 Dask workers, and two shards made side by side by two
``llkgen make --shard K/2 --jobs 1`` processes (as two CI jobs would) then merged. Every run's
pack is compared byte for byte with the others. "levels/s" counts the whole run, start-up
included (a Dask local cluster takes seconds to start); "steady" counts from the first level
made to the last.

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
import importlib.util
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if importlib.util.find_spec("llkgen") is None:  # not installed: use the source tree
    sys.path.insert(0, str(ROOT))

import llkgen.generation.generator as generate  # noqa: E402
from llkgen.generation.spec import load_spec  # noqa: E402
from llkgen.jobs.make import make_pack  # noqa: E402

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


def _timed(make) -> tuple[float, float]:
    """(seconds in all, levels per second from the first level made to the last)."""
    stamps: list[float] = []
    start = time.perf_counter()
    make(lambda lv: stamps.append(time.perf_counter()))
    took = time.perf_counter() - start
    steady = (len(stamps) - 1) / (stamps[-1] - stamps[0]) if len(stamps) > 1 and stamps[-1] > stamps[0] else 0.0
    return took, steady


def _shards_and_merge(spec_path: Path, count: int, out: Path) -> float:
    """Two shard processes side by side, then merge: seconds in all."""
    import subprocess

    start = time.perf_counter()
    procs = [subprocess.Popen([sys.executable, "-m", "llkgen", "make", "--config", str(spec_path), "--count",
                               str(count), "--shard", f"{k}/2", "--jobs", "1", "-q", "--out",
                               str(out / f"s{k}.jsonl")]) for k in range(2)]
    if any(p.wait() != 0 for p in procs):
        sys.exit("!! a shard run failed")
    subprocess.run([sys.executable, "-m", "llkgen", "merge", str(out / "s0.jsonl"), str(out / "s1.jsonl"),
                    "--out", str(out / "shards.json")], check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - start


def compare(specs: list[str], count: int, rounds: int) -> None:
    """See the module docstring (--compare)."""
    from llkgen.execution.base import ProcessExecutor
    from llkgen.execution.dask_cluster import DaskExecutor

    def load() -> str:
        return Path("/proc/loadavg").read_text().split()[0] if Path("/proc/loadavg").exists() else "?"

    print(f"# llkgen make: ways to run, {os.cpu_count()} cores, {rounds} interleaved rounds, "
          f"load average {load()} at start")
    print(f"{'spec':<8} {'levels':>6} {'round':>5} {'way':<24} {'seconds':>8} {'levels/s':>9} {'steady':>7}  load")
    totals: dict[tuple[str, str], list[float]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp)
        for spec_name in specs:
            spec_path = ROOT / "configs" / f"{spec_name}.yaml"
            spec = load_spec(spec_path).with_overrides(count=count)
            for r in range(1, rounds + 1):
                ways = {
                    "--jobs 2": lambda cb, spec=spec: make_pack(spec.with_overrides(out=out / "pool.json"), on_level=cb,
                                                     executor=ProcessExecutor(2)),
                    "--scheduler local (2)": lambda cb, spec=spec: make_pack(spec.with_overrides(out=out / "dask.json"),
                                                                  on_level=cb, executor=DaskExecutor("local", 2)),
                }
                for way, make in ways.items():
                    took, steady = _timed(make)
                    totals.setdefault((spec_name, way), []).append(count / took)
                    print(f"{spec_name:<8} {count:>6} {r:>5} {way:<24} {took:>8.2f} {count / took:>9.2f} "
                          f"{steady:>7.2f}  {load()}", flush=True)
                took = _shards_and_merge(spec_path, count, out)
                way = "2 shards + merge"
                totals.setdefault((spec_name, way), []).append(count / took)
                print(f"{spec_name:<8} {count:>6} {r:>5} {way:<24} {took:>8.2f} {count / took:>9.2f} "
                      f"{'':>7}  {load()}", flush=True)
                data = [(out / f).read_bytes() for f in ("pool.json", "dask.json", "shards.json")]
                if data[1:] != data[:1] * 2:
                    sys.exit(f"!! {spec_name}: packs differ between the ways to run")
            base = sum(totals[(spec_name, "--jobs 2")]) / rounds
            for (name, way), rates in totals.items():
                if name == spec_name:
                    mean = sum(rates) / rounds
                    print(f"# {spec_name}: {way}: mean {mean:.2f} levels/s ({mean / base:.0%} of --jobs 2)")
    print(f"packs identical across the ways to run: yes; load average {load()} at the end")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--specs", nargs="+", default=["easy", "hard", "gravity"])
    ap.add_argument("--count", type=int, default=10, help="levels per run (default 10)")
    ap.add_argument("--seed", type=int, default=None, help="override the specs' seeds")
    ap.add_argument("--jobs", type=int, nargs="+", default=[1, 2])
    ap.add_argument("--target", action="store_true", help="also time the 100-level 10x16 target on 2 jobs")
    ap.add_argument("--compare", action="store_true",
                    help="compare --jobs 2, --scheduler local (2 workers) and 2 shards + merge, in rounds")
    ap.add_argument("--rounds", type=int, default=3, help="interleaved rounds for --compare (default 3)")
    args = ap.parse_args()
    if args.compare:
        compare(args.specs, args.count, args.rounds)
        return

    from llkgen._version import version_line

    print(f"# llkgen make benchmark: {version_line()}; {os.cpu_count()} cores, "
          f"load average {os.getloadavg()[0]:.1f} at start")
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
