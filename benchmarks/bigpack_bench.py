"""Peak memory and write speed of ``make`` for big packs, with generation taken out.

    python benchmarks/bigpack_bench.py --count 100000

Generating 100,000 real levels takes hours, and the question here is only whether the
writing side streams: every level is a copy of one real level of the shipped easy spec (the
generator is replaced by a lookup), so what is measured is the journal, the ordering and the
pack directory. The peak resident set size is read from the kernel (``ru_maxrss``) in a fresh
process per count, and is compared with the size of the levels' JSON: a writer that held
every level would need at least that much more.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def one_run(count: int, out: Path) -> None:
    import llkgen.generation.generator as generate
    from llkgen.generation.spec import load_spec
    from llkgen.jobs.make import make_pack

    spec = load_spec(ROOT / "configs" / "easy.yaml").with_overrides(count=count, out=out / "big.json")
    template = generate.generate_level(spec, 0)
    generate.generate_level = lambda s, i: dataclasses.replace(template, index=i)  # type: ignore[assignment]
    start = time.perf_counter()
    result = make_pack(spec, jobs=1)
    took = time.perf_counter() - start
    size = sum(p.stat().st_size for p in result.path.iterdir()) if result.path.is_dir() else result.path.stat().st_size
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(json.dumps({"count": count, "seconds": round(took, 1), "pack_mb": round(size / 2**20, 1),
                      "peak_rss_mb": round(peak_mb, 1), "dir": result.path.is_dir()}))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--count", type=int, nargs="+", default=[1000, 10_000, 100_000])
    ap.add_argument("--one", type=int, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.one:
        with tempfile.TemporaryDirectory() as tmp:
            one_run(args.one, Path(tmp))
        return
    print(f"{'levels':>8} {'form':>5} {'seconds':>8} {'levels/s':>9} {'pack MB':>8} {'peak RSS MB':>12}")
    for count in args.count:
        r = json.loads(subprocess.run([sys.executable, __file__, "--one", str(count)], check=True,
                                      capture_output=True, text=True).stdout)
        print(f"{count:>8} {'dir' if r['dir'] else 'file':>5} {r['seconds']:>8.1f} {count / r['seconds']:>9.0f} "
              f"{r['pack_mb']:>8.1f} {r['peak_rss_mb']:>12.1f}", flush=True)


if __name__ == "__main__":
    main()
