"""Grading benchmark: the exact difficulty grading of whole levels, against a plain grader.

For each set it makes certified levels with the shipped spec (grading switched off, so only
the benchmark grades them), then grades each one as ``llkgen make`` does --
:func:`llkgen.analysis.grading.grade` with the spec's default playthroughs and node budget -- and
prints CPU-time p50 / p90 / max per level (one core: ``time.process_time``), the verifier
calls made, and the share of labels left unknown.

The plain grader, on the first ``--plain`` levels of each set, plays the same seeded
playthroughs but labels every move by verifying the board after it: no witness shortcuts, no
re-partnered witnesses, no fatal pairs carried over. Both graders give the same labels when
nothing is unknown (the table says whether they agreed), so the ratio of their times is what
the shortcuts buy.

    python benchmarks/grade_bench.py                       # hard, 10x16-built, medium, gravity
    python benchmarks/grade_bench.py --sets hard --levels 20 --plain 3
    python benchmarks/grade_bench.py --markdown out.md

Target (issue 10): the median exact grading of a full 10x16 level takes <= 2 s on one core.
"""

from __future__ import annotations

import argparse
import dataclasses
import importlib.util
import statistics
import sys
import time
from pathlib import Path

if importlib.util.find_spec("llkgen") is None:  # not installed: use the source tree
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np  # noqa: E402

import llkgen.game.grid  # noqa: E402
from llkgen.analysis.advice import FATAL, SAFE  # noqa: E402
from llkgen.analysis.grading import GRADE_KEY, grade  # noqa: E402
from llkgen.game.path import removable_pairs  # noqa: E402
from llkgen.game.referee import play  # noqa: E402
from llkgen.generation.generator import generate_level  # noqa: E402
from llkgen.generation.spec import GradingSpec, load_spec, spec_from_dict  # noqa: E402
from llkgen.verifier import SOLVABLE, UNSOLVABLE, Budget, verify  # noqa: E402

CONFIGS = Path(__file__).resolve().parents[1] / "configs"

#: name -> a function returning the spec whose levels are graded
SETS = {
    "hard": lambda: load_spec(CONFIGS / "hard.yaml"),
    "10x16-built": lambda: spec_from_dict({
        "name": "built", "seed": 11, "board": {"rows": 10, "cols": 16},
        "tiles": {"types": 40, "copies": 4}, "generator": {"strategy": "constructive"}}),
    "medium": lambda: load_spec(CONFIGS / "medium.yaml"),
    "gravity": lambda: load_spec(CONFIGS / "gravity.yaml"),
}


def plain_grade(board, rules, playthroughs: int, nodes: int, seed: int) -> tuple[float, int]:
    """The same playthroughs, every move labelled by its own verification. Returns the fatal
    share and the verifier calls."""
    budget = Budget(nodes=nodes)
    steps = calls = 0
    fatal_sum = 0.0
    for k in range(playthroughs):
        rng = np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(GRADE_KEY, k)))
        current = board
        while not current.is_cleared():
            moves = removable_pairs(current, rules)
            labels = []
            for m in moves:
                calls += 1
                v = verify(play(current, rules, m.a, m.b), rules, budget)
                labels.append(SAFE if v.status == SOLVABLE else FATAL if v.status == UNSOLVABLE else "unknown")
            steps += 1
            fatal_sum += labels.count(FATAL) / len(moves)
            safe = [i for i, lab in enumerate(labels) if lab == SAFE]
            if not safe:
                break
            m = moves[safe[int(rng.integers(len(safe)))]]
            current = play(current, rules, m.a, m.b)
    return (fatal_sum / steps if steps else 0.0), calls


def _pct(xs: list[float], q: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(q * len(xs)))]


def run_set(name: str, levels: int, plain: int) -> list[str]:
    spec = SETS[name]()
    spec = dataclasses.replace(spec, grading=GradingSpec(playthroughs=0), ramp=None,
                               difficulty=dataclasses.replace(spec.difficulty, score=None))
    g = GradingSpec()
    times, calls, unknown = [], [], []
    plain_rows = []
    for i in range(levels):
        lv = generate_level(spec, i)
        witness = [(tuple(a), tuple(b)) for a, b in lv.solution]
        t = time.process_time()
        out = grade(lv.board, lv.rules, playthroughs=g.playthroughs, nodes=g.nodes, seed=lv.seed, witness=witness)
        times.append(time.process_time() - t)
        calls.append(out.verifications)
        unknown.append(out.unknown_share)
        if i < plain:
            t = time.process_time()
            fatal, pcalls = plain_grade(lv.board, lv.rules, g.playthroughs, g.nodes, lv.seed)
            plain_rows.append((time.process_time() - t, times[-1], pcalls, abs(fatal - out.fatal_share) < 1e-9))
        print(f"  {name} level {i + 1}: {times[-1]:.2f} s, {out.verifications} verifications", file=sys.stderr)
    rows = [f"| {name} | {spec.board.rows}x{spec.board.cols} {spec.rules.gravity} | {levels} | "
            f"{statistics.median(times):.2f} | {_pct(times, 0.9):.2f} | {max(times):.2f} | "
            f"{statistics.median(calls):.0f} | {max(unknown):.3f} |"]
    if plain_rows:
        ptimes = [p for p, _, _, _ in plain_rows]
        gtimes = [q for _, q, _, _ in plain_rows]
        agree = all(a for _, _, _, a in plain_rows)
        rows.append(f"| {name}, plain grader (first {len(plain_rows)}) | | {len(plain_rows)} | "
                    f"{statistics.median(ptimes):.2f} | | {max(ptimes):.2f} | "
                    f"{statistics.median([c for _, _, c, _ in plain_rows]):.0f} | "
                    f"{statistics.median(ptimes) / statistics.median(gtimes):.1f}x slower, "
                    f"fatal shares {'agree' if agree else 'DIFFER'} |")
    return rows


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sets", default=",".join(SETS), help="comma-separated: " + ", ".join(SETS))
    ap.add_argument("--levels", type=int, default=10, help="levels graded per set")
    ap.add_argument("--plain", type=int, default=2, help="levels per set also graded by the plain grader")
    ap.add_argument("--markdown", help="also write the table to this file")
    args = ap.parse_args()
    core = "compiled" if getattr(llkgen.game.grid, "__file__", "").endswith((".so", ".pyd")) else "pure Python"
    lines = [f"Grading, {core} core, CPU seconds per level (one core); default grading: "
             f"{GradingSpec().playthroughs} playthroughs, {GradingSpec().nodes} nodes per label.", "",
             "| set | board | levels | p50 s | p90 s | max s | verifications p50 | unknown share max |",
             "|---|---|---|---|---|---|---|---|"]
    for name in args.sets.split(","):
        lines += run_set(name.strip(), args.levels, args.plain)
    text = "\n".join(lines)
    print(text)
    if args.markdown:
        Path(args.markdown).write_text(text + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
