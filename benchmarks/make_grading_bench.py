"""What the player ladder costs ``make``: CPU per level with grading against without it, in
the same run, on the same levels.

For each spec and level index, the level is made three times in one worker process:

* **with grading**: the spec as shipped (the ladder measures every level to
  ``grading.precision``; a level kept for a score window, ramp, tier or clear-rate target is
  measured again on a fresh stream, as ``make`` does);
* **without**: the same spec with ``grading: {enabled: false}`` and no target that needs the
  ladder (no score window, tier, clear-rate window or ramp). Without such targets grading
  cannot reject a candidate, so both runs keep the same board; the ramp spec needs grading to
  choose its levels, so its baseline drops the ramp and keeps other levels;
* **without, Python players**: the same, with the C players (``llkgen.analysis._players``)
  switched off in the worker: what make without grading cost before they existed. The level
  is the same (the players' numbers do not depend on where they run; the table checks it).

Which goes first alternates by level index, so all see the same machine load. Prints per spec:
CPU seconds per level (mean and its standard error over levels), the ratio of the means (with a
bootstrap standard error over levels) and the median per-level ratio with its quartiles; then
the ratio against make without grading with the players in Python, and the ladder's
playthroughs for the kept level. The issue's target is a ratio of at most 2 against make
without grading in the same build.

    python benchmarks/make_grading_bench.py                           # every shipped spec, 12 levels
    python benchmarks/make_grading_bench.py --specs hard gravity --count 24 --jobs 2

Times are CPU seconds of the worker (``time.process_time``), not wall-clock, but a loaded
machine still moves them (shared caches, frequency): compare the two columns of one run, not
figures from different runs or machines. Say which core ran (the header prints it): the
compiled core and pure Python differ several-fold. Nothing here asserts on a time.
"""

from __future__ import annotations

import argparse
import dataclasses
import importlib.util
import math
import os
import statistics
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

if importlib.util.find_spec("llkgen") is None:  # not installed: use the source tree
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np  # noqa: E402

from llkgen._version import search_core  # noqa: E402
from llkgen.analysis import native_players  # noqa: E402
from llkgen.generation.generator import generate_level  # noqa: E402
from llkgen.generation.spec import load_spec_ref  # noqa: E402
from llkgen.generation.spec_model import GradingSpec, Spec  # noqa: E402

SPECS = ("easy", "medium", "hard", "gravity", "ramp")


def ungraded(spec: Spec) -> Spec:
    """``spec`` with grading off and every target that needs the ladder dropped."""
    return dataclasses.replace(spec, grading=GradingSpec(enabled=False), ramp=None,
                               difficulty=dataclasses.replace(spec.difficulty, score=None, tier=None,
                                                              clear_rate=()))


def spec_for(name: str, count: int) -> Spec:
    """The shipped spec; a spec without a ramp gets ``count`` levels (a ramp keeps its own
    count, since its targets depend on it)."""
    spec = load_spec_ref(name)
    return spec if spec.ramp is not None else spec.with_overrides(count=count)


def time_level(task: tuple[str, int, int]) -> dict:
    """CPU seconds of level ``index`` made with and without grading (in a worker)."""
    name, count, index = task
    spec = spec_for(name, count)
    bare = ungraded(spec)
    out: dict = {"spec": name, "index": index}
    runs = [("graded", spec, True), ("bare", bare, True), ("bare_python", bare, False)]
    for key, s, in_c in (runs if index % 2 == 0 else runs[::-1]):
        saved = native_players._players
        if not in_c:
            native_players._players = None  # the players in Python, as before they were in C
        try:
            t = time.process_time()
            lv = generate_level(s, index)
            out[key] = time.process_time() - t
        finally:
            native_players._players = saved
        out[key + "_attempts"] = lv.attempts
        out[key + "_board"] = lv.board.grid()
        if lv.players is not None:
            out["ladder_runs"] = sum(r["runs"] for r in lv.players["clear_rates"].values())
    bare_board = out.pop("bare_board")
    out["same_board"] = out.pop("graded_board") == bare_board
    # The players' numbers do not depend on where they run, so neither does the level.
    out["same_in_python"] = out.pop("bare_python_board") == bare_board
    return out


def boot_se(n: int, stat, rng: np.random.Generator, rounds: int = 2000) -> float:
    """Bootstrap standard error of ``stat(indices)`` over ``n`` items resampled with replacement."""
    return float(np.std([stat(rng.integers(n, size=n)) for _ in range(rounds)], ddof=1))


def summarise(name: str, recs: list[dict], rng: np.random.Generator) -> dict:
    g = [r["graded"] for r in recs]
    b = [r["bare"] for r in recs]
    pairs = np.array([g, b]).T
    ratio = statistics.mean(g) / statistics.mean(b)
    ratio_se = boot_se(len(recs), lambda idx: pairs[idx, 0].mean() / pairs[idx, 1].mean(), rng)
    py = [r["bare_python"] for r in recs]
    per = [x / y for x, y in zip(g, b)]
    q1, q2, q3 = statistics.quantiles(per, n=4) if len(per) > 1 else (per[0],) * 3
    return {"spec": name, "n": len(recs), "graded": statistics.mean(g),
            "graded_se": statistics.stdev(g) / math.sqrt(len(g)) if len(g) > 1 else math.nan,
            "bare": statistics.mean(b), "bare_se": statistics.stdev(b) / math.sqrt(len(b)) if len(b) > 1 else math.nan,
            "ratio": ratio, "ratio_se": ratio_se, "median_ratio": statistics.median(per), "q1": q1, "q3": q3,
            "attempts": (statistics.mean(r["graded_attempts"] for r in recs),
                         statistics.mean(r["bare_attempts"] for r in recs)),
            "same": sum(r["same_board"] for r in recs),
            "bare_python": statistics.mean(py),
            "bare_python_se": statistics.stdev(py) / math.sqrt(len(py)) if len(py) > 1 else math.nan,
            "ratio_python": statistics.mean(g) / statistics.mean(py),
            "ratio_python_se": boot_se(len(recs), lambda idx: pairs[idx, 0].mean() / np.array(py)[idx].mean(), rng),
            "ladder_runs": statistics.mean(r.get("ladder_runs", 0) for r in recs),
            "same_in_python": sum(r["same_in_python"] for r in recs)}


def table(rows: list[dict]) -> str:
    out = ["| spec | levels | CPU s/level, grading | CPU s/level, no grading | ratio of means | "
           "per-level ratio: median [quartiles] | attempts/level (grading / none) | same board | ≤ 2× |",
           "|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        out.append(f"| {r['spec']} | {r['n']} | {r['graded']:.3f} ± {r['graded_se']:.3f} | "
                   f"{r['bare']:.3f} ± {r['bare_se']:.3f} | {r['ratio']:.2f} ± {r['ratio_se']:.2f} | "
                   f"{r['median_ratio']:.2f} [{r['q1']:.2f}, {r['q3']:.2f}] | "
                   f"{r['attempts'][0]:.1f} / {r['attempts'][1]:.1f} | {r['same']} of {r['n']} | "
                   f"{'met' if r['ratio'] <= 2 and r['median_ratio'] <= 2 else 'missed'} |")
    return "\n".join(out)


def python_table(rows: list[dict]) -> str:
    """The same runs against make without grading with the players in Python (the C players
    switched off in the worker): what make without grading cost before the C players."""
    out = ["| spec | CPU s/level, grading | CPU s/level, no grading, Python players | ratio of means | "
           "ladder playthroughs (kept level) | same board as in C |",
           "|---|---|---|---|---|---|"]
    for r in rows:
        out.append(f"| {r['spec']} | {r['graded']:.3f} ± {r['graded_se']:.3f} | "
                   f"{r['bare_python']:.3f} ± {r['bare_python_se']:.3f} | "
                   f"{r['ratio_python']:.2f} ± {r['ratio_python_se']:.2f} | {r['ladder_runs']:.0f} | "
                   f"{r['same_in_python']} of {r['n']} |")
    return "\n".join(out)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--specs", nargs="+", default=list(SPECS), help="shipped spec names")
    ap.add_argument("--count", type=int, default=12, help="levels per spec (a ramp spec keeps its own count)")
    ap.add_argument("--jobs", type=int, default=1, help="worker processes (each level is timed in its worker)")
    args = ap.parse_args()
    tasks = [(s, args.count, i) for s in args.specs for i in range(spec_for(s, args.count).count)]
    print(f"# make with and without grading: {search_core()} core, {os.cpu_count()} cores, "
          f"load average {os.getloadavg()[0]:.1f} at start; CPU seconds (process_time) per level, ± standard error")
    with ProcessPoolExecutor(max(1, args.jobs)) as ex:
        recs = list(ex.map(time_level, tasks, chunksize=1))
    rng = np.random.default_rng(2026)
    rows = [summarise(s, [r for r in recs if r["spec"] == s], rng) for s in args.specs]
    print(table(rows))
    print("# the same levels' make without grading, with the C players switched off:")
    print(python_table(rows))
    print(f"# load average {os.getloadavg()[0]:.1f} at the end")


if __name__ == "__main__":
    main()
