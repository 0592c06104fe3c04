"""Verifier benchmark: seeded sets of full boards, the portfolio against a plain baseline.

For each set it prints solvable / unsolvable / unknown counts and p50 / p95 / max times for
the verifier (``engine="auto"``) and for the baseline (``engine="baseline"``: depth-first
search over removable pairs with a table of dead boards and nothing else), on the same
boards under the same per-board budget, then the ratio of medians on the boards both decide.
It also shows which stage decided each board and at what cost.

    python benchmarks/verify_bench.py                  # 50 boards per set, 10 s per board
    python benchmarks/verify_bench.py --boards 10 --budget 2 --sets 10x16
    python benchmarks/verify_bench.py --markdown docs/benchmarks.md

Times are wall-clock on whatever machine runs it; the boards are the same everywhere.
"""

from __future__ import annotations

import argparse
import platform
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from llkgen.board import Board, Rules  # noqa: E402
from llkgen.verify import Budget, verify  # noqa: E402

SETS = {
    "8x12": (8, 12, 24, "none"),
    "10x16": (10, 16, 40, "none"),
    "18x8": (18, 8, 36, "none"),
    "8x12-down": (8, 12, 24, "down"),
}


def boards(name: str, n: int) -> list[Board]:
    rows, cols, types, _ = SETS[name]
    copies = rows * cols // types
    out = []
    for i in range(n):
        rng = random.Random(f"llkgen-bench/{name}/{i}")
        tiles = [t for t in range(1, types + 1) for _ in range(copies)]
        rng.shuffle(tiles)
        out.append(Board(rows, cols, tuple(tiles)))
    return out


def run(board: Board, rules: Rules, engine: str, seconds: float, nodes: int | None):
    t0 = time.perf_counter()
    v = verify(board, rules, Budget(nodes=nodes, seconds=seconds), engine=engine)
    return v.status, time.perf_counter() - t0, v.stats.get("stage", "?"), v.stats.get("nodes", 0)


def pct(xs: list[float], q: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(q * (len(xs) - 1))))]


def ms(x: float) -> str:
    return f"{x * 1000:.0f} ms" if x < 10 else f"{x:.1f} s"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--boards", type=int, default=50, help="boards per set (default 50)")
    ap.add_argument("--budget", type=float, default=10.0, help="seconds per board and engine (default 10)")
    ap.add_argument("--nodes", type=int, default=None, help="optional node budget as well")
    ap.add_argument("--sets", default=",".join(SETS), help=f"comma-separated, from {', '.join(SETS)}")
    ap.add_argument("--engines", default="auto,baseline", help="engines to time (default auto,baseline)")
    ap.add_argument("--markdown", type=Path, help="also write the tables to this Markdown file")
    args = ap.parse_args()

    engines = args.engines.split(",")
    lines = [f"Machine: {platform.machine()}, Python {platform.python_version()}; "
             f"{args.boards} boards per set, {args.budget:g} s budget per board and engine"
             + (f", {args.nodes} nodes" if args.nodes else "") + ".", ""]
    lines += ["| set | engine | solvable | unsolvable | unknown | p50 | p95 | max |",
              "|---|---|---:|---:|---:|---:|---:|---:|"]
    ratio_lines, stage_lines = [], []
    for name in args.sets.split(","):
        rows, cols, types, gravity = SETS[name]
        rules = Rules(border=True, gravity=gravity)
        results: dict[str, list] = {}
        for engine in engines:
            res = []
            for i, b in enumerate(boards(name, args.boards)):
                res.append(run(b, rules, engine, args.budget, args.nodes))
                print(f"\r{name} {engine}: {i + 1}/{args.boards}", end="", file=sys.stderr, flush=True)
            print(file=sys.stderr)
            results[engine] = res
            times = [r[1] for r in res]
            counts = {s: sum(r[0] == s for r in res) for s in ("solvable", "unsolvable", "unknown")}
            lines.append(f"| {name} ({rows}x{cols}, {types}x{rows * cols // types}, gravity {gravity}) | {engine} | "
                         f"{counts['solvable']} | {counts['unsolvable']} | {counts['unknown']} | "
                         f"{ms(statistics.median(times))} | {ms(pct(times, 0.95))} | {ms(max(times))} |")
            if engine != "baseline":
                by_stage: dict[str, list] = {}
                for status, t, stage, nodes in res:
                    if status != "unknown":
                        by_stage.setdefault(stage, []).append((t, nodes))
                for stage, xs in sorted(by_stage.items()):
                    stage_lines.append(
                        f"| {name} | {engine} | {stage} | {len(xs)} | {ms(statistics.median(t for t, _ in xs))} | "
                        f"{ms(max(t for t, _ in xs))} | {statistics.median(n for _, n in xs):.0f} |")
        if "baseline" in results and len(engines) > 1:
            for engine in engines:
                if engine == "baseline":
                    continue
                both = [(a[1], b[1]) for a, b in zip(results[engine], results["baseline"])
                        if a[0] != "unknown" and b[0] != "unknown"]
                if both:
                    ours = statistics.median(a for a, _ in both)
                    base = statistics.median(b for _, b in both)
                    ratio_lines.append(f"| {name} | {engine} | {len(both)} | {ms(ours)} | {ms(base)} | {base / ours:.1f}x |")
    lines += ["", "Ratio of medians on the boards both engines decide:", "",
              "| set | engine | boards | engine p50 | baseline p50 | speed-up |", "|---|---|---:|---:|---:|---:|"]
    lines += ratio_lines
    lines += ["", "Which stage decided (boards decided, median and max time, median nodes):", "",
              "| set | engine | stage | boards | p50 | max | nodes p50 |", "|---|---|---|---:|---:|---:|---:|"]
    lines += stage_lines
    text = "\n".join(lines)
    print(text)
    if args.markdown:
        args.markdown.parent.mkdir(parents=True, exist_ok=True)
        args.markdown.write_text(text + "\n")


if __name__ == "__main__":
    main()
