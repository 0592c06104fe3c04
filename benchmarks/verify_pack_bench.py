"""``llkgen verify`` on a pack with stored solutions: certifying by replay against re-solving.

Builds a pack with ``llkgen make`` (or reuses the one cached from an earlier run), then times
the real command, ``llkgen verify PACK`` (each level certified by replaying its stored
solution) against ``llkgen verify PACK --resolve`` (each level searched, as verify did
before), in interleaved rounds whose order alternates, so both see the same machine load.
It prints a Markdown table: wall-clock and CPU time (the command and its worker processes)
per run, their medians, and the ratio of medians. Start-up is included in both: a row for
``llkgen --version`` shows what it costs.

    python benchmarks/verify_pack_bench.py                          # easy, 1,000 levels
    python benchmarks/verify_pack_bench.py --config hard --count 200 --rounds 3
    python benchmarks/verify_pack_bench.py --markdown out.md

The pack is cached as ``CACHE/CONFIG-COUNT.json`` (``--cache``, default a directory under the
system's temporary directory); delete it to rebuild. Times are from whatever machine runs it,
so the load average is printed with them.
"""

from __future__ import annotations

import argparse
import os
import platform
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def llkgen(*args: str) -> list[str]:
    return [sys.executable, "-m", "llkgen", *args]


def loadavg() -> str:
    try:
        return " ".join(Path("/proc/loadavg").read_text().split()[:3])
    except OSError:
        return "n/a"


def timed(argv: list[str]) -> tuple[float, float]:
    """(wall seconds, CPU seconds of the command and every process it waited for)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    r = subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if r.returncode != 0:
        sys.exit(f"{' '.join(argv)} exited {r.returncode}: {r.stderr.strip()}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def build(config: str, count: int, cache: Path) -> Path:
    pack = cache / f"{config}-{count}.json"
    if pack.exists():
        print(f"reusing {pack}", file=sys.stderr)
        return pack
    cache.mkdir(parents=True, exist_ok=True)
    print(f"building {pack} (llkgen make --config {config} --count {count}) ...", file=sys.stderr)
    started = time.perf_counter()
    subprocess.run(llkgen("make", "--config", config, "--count", str(count), "--out", str(pack), "-q"), check=True)
    print(f"built in {time.perf_counter() - started:.1f} s", file=sys.stderr)
    return pack


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--config", default="easy", help="spec to build the pack from (default: easy)")
    ap.add_argument("--count", type=int, default=1000, help="levels in the pack (default: 1000)")
    ap.add_argument("--rounds", type=int, default=3, help="interleaved rounds (default: 3)")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1,
                    help="verify --jobs (default: the number of cores)")
    ap.add_argument("--cache", type=Path, default=Path(tempfile.gettempdir()) / "llkgen-verify-pack-bench")
    ap.add_argument("--markdown", type=Path, help="also write the table to this file")
    args = ap.parse_args()

    pack = build(args.config, args.count, args.cache)
    runs = {
        "llkgen --version (start-up)": llkgen("--version"),
        "llkgen verify PACK (replay)": llkgen("verify", str(pack), "--jobs", str(args.jobs)),
        "llkgen verify PACK --resolve (search)": llkgen("verify", str(pack), "--resolve", "--jobs", str(args.jobs)),
    }
    names = list(runs)
    load_before = loadavg()
    walls: dict[str, list[float]] = {n: [] for n in names}
    cpus: dict[str, list[float]] = {n: [] for n in names}
    for r in range(args.rounds):
        order = names if r % 2 == 0 else names[::-1]
        for name in order:
            wall, cpu = timed(runs[name])
            walls[name].append(wall)
            cpus[name].append(cpu)
            print(f"round {r + 1}: {name}: {wall:.2f} s wall, {cpu:.2f} s CPU", file=sys.stderr)
    load_after = loadavg()

    def med(xs: list[float]) -> float:
        return statistics.median(xs)

    lines = [
        f"`llkgen verify` on `{pack.name}` ({args.count} levels of `{args.config}` with stored solutions), "
        f"`--jobs {args.jobs}`, {args.rounds} interleaved rounds; Python {platform.python_version()} on "
        f"{platform.machine()}, {os.cpu_count()} cores; load average {load_before} before, {load_after} after.",
        "",
        "| command | wall per run (s) | wall median (s) | CPU median (s) |",
        "|---|---|---|---|",
    ]
    for name in names:
        lines.append(f"| `{name}` | {' '.join(f'{w:.2f}' for w in walls[name])} | {med(walls[name]):.2f} | "
                     f"{med(cpus[name]):.2f} |")
    replay, search = names[1], names[2]
    start_wall, start_cpu = med(walls[names[0]]), med(cpus[names[0]])
    lines += [
        "",
        f"Ratio of medians, `--resolve` over replay: **{med(walls[search]) / med(walls[replay]):.1f}x** wall, "
        f"**{med(cpus[search]) / med(cpus[replay]):.1f}x** CPU. Without the start-up: "
        f"{(med(walls[search]) - start_wall) / max(1e-9, med(walls[replay]) - start_wall):.1f}x wall, "
        f"{(med(cpus[search]) - start_cpu) / max(1e-9, med(cpus[replay]) - start_cpu):.1f}x CPU.",
    ]
    text = "\n".join(lines) + "\n"
    print(text)
    if args.markdown:
        args.markdown.write_text(text, "utf-8")


if __name__ == "__main__":
    main()
