"""Verifier benchmark: seeded board sets, the portfolio against a plain baseline in one run.

For each set it prints solvable / unsolvable / unknown counts and p50 / p95 / max times for
the verifier (``engine="auto"``) and for the baseline (``engine="baseline"``: depth-first
search over removable pairs in board order with a table of dead boards and nothing else,
frozen in ``llkgen/verifier/baseline.py``), on the same boards under the same per-board budget.
The two engines take turns board by board (which goes first alternates), so both see the
same machine load. Then, per set:

* the ratio of medians on the boards both decide, and the ratio of medians over all boards
  (an undecided board counts as the whole budget);
* ``lost``: boards the baseline decided and ``auto`` left undecided (the target is 0);
* which stage decided each board, its median and worst time and its median node count.

Sets (rows x cols, types x copies, border on):

* random full boards without gravity: 8x12, 10x16, 18x8, 12x18 and KShisen's largest size,
  30 wide and 16 high (``16x30``);
* random full boards with gravity: 8x12 down, 10x16 and 12x18 in each direction, 16x30 down,
  and KShisen's default game (``kshisen``: 18 wide, 8 high, 36 types x 4, gravity down);
* boards built by forward play with no hint (``...-built``): a full board of anonymous tiles,
  random removable pairs removed with gravity after each, then the removed pairs given types,
  two pairs a type (what the constructive generator does, without passing its order on).

    python benchmarks/verify_bench.py                        # every set, 10 s per board
    python benchmarks/verify_bench.py --sets 10x16,kshisen --boards 10 --budget 5
    python benchmarks/verify_bench.py --markdown out.md
    python benchmarks/verify_bench.py --sets kshisen --engines auto,auto-python,baseline

``auto-python`` is ``auto`` with the C gravity search switched off, in the same process: what a
pure Python install runs, and the search before the C one took over long searches.

Times are wall-clock on whatever machine runs it (`--cpu`: CPU seconds of this process, which a busy
machine stretches less); the boards are the same everywhere.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import platform
import random
import statistics
import sys
import time
from pathlib import Path

if importlib.util.find_spec("llkgen") is None:  # not installed: use the source tree
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import llkgen.game.grid  # noqa: E402
from llkgen.game.board import Board, Rules  # noqa: E402
from llkgen.game.playout import Playout  # noqa: E402
from llkgen.verifier import Budget, native, verify  # noqa: E402

# name -> (rows, cols, types, gravity, kind, default boards)
SETS: dict[str, tuple[int, int, int, str, str, int]] = {
    "8x12": (8, 12, 24, "none", "random", 50),
    "10x16": (10, 16, 40, "none", "random", 50),
    "18x8": (18, 8, 36, "none", "random", 50),
    "12x18": (12, 18, 54, "none", "random", 30),
    "16x30": (16, 30, 120, "none", "random", 20),
    "8x12-down": (8, 12, 24, "down", "random", 50),
    "kshisen": (8, 18, 36, "down", "random", 30),
    "16x30-down": (16, 30, 120, "down", "random", 10),
}
for _size, (_r, _c) in {"10x16": (10, 16), "12x18": (12, 18)}.items():
    for _g in ("down", "up", "left", "right"):
        SETS[f"{_size}-{_g}"] = (_r, _c, _r * _c // 4, _g, "random", 15)
        SETS[f"{_size}-{_g}-built"] = (_r, _c, _r * _c // 4, _g, "built", 20)


def random_board(name: str, i: int) -> Board:
    rows, cols, types = SETS[name][:3]
    copies = rows * cols // types
    rng = random.Random(f"llkgen-bench/{name}/{i}")
    tiles = [t for t in range(1, types + 1) for _ in range(copies)]
    rng.shuffle(tiles)
    return Board(rows, cols, tuple(tiles))


def built_board(name: str, i: int) -> Board:
    """Forward play on a full board of one anonymous type, then types by removal pair."""
    rows, cols, _, gravity = SETS[name][:4]
    rng = random.Random(f"llkgen-bench/{name}/{i}")
    play = Playout(Board(rows, cols, (1,) * (rows * cols)), Rules(True, gravity), track=True)
    origins = []
    while play.left:
        options = play.moves()
        p, q = options[rng.randrange(len(options))]
        assert play.ident is not None
        origins.append((play.ident[p], play.ident[q]))
        play.remove(p, q)
    kinds = [k // 2 + 1 for k in range(len(origins))]
    rng.shuffle(kinds)
    cells = [0] * (rows * cols)
    for (a, b), t in zip(origins, kinds):
        cells[a] = cells[b] = t
    return Board(rows, cols, tuple(cells))


def boards(name: str, n: int) -> list[Board]:
    make = built_board if SETS[name][4] == "built" else random_board
    return [make(name, i) for i in range(n)]


def verdict(board: Board, rules: Rules, budget: Budget, engine: str):
    """``verify`` with one of the engines these benchmarks time: ``auto-python`` is ``auto`` with
    the C gravity search switched off for the call (what a pure Python install, or one without a
    C compiler, runs); any other is passed on."""
    if engine != "auto-python":
        return verify(board, rules, budget, engine=engine)
    built = native.AVAILABLE
    native.AVAILABLE = False
    try:
        return verify(board, rules, budget, engine="auto")
    finally:
        native.AVAILABLE = built


def run(board: Board, rules: Rules, engine: str, seconds: float, nodes: int | None, clock=time.perf_counter):
    t0 = clock()
    v = verdict(board, rules, Budget(nodes=nodes, seconds=seconds), engine)
    return v.status, clock() - t0, v.stats.get("stage", "?"), v.stats.get("nodes", 0)


def pct(xs: list[float], q: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(q * (len(xs) - 1))))]


def ms(x: float) -> str:
    return f"{x * 1000:.0f} ms" if x < 10 else f"{x:.1f} s"


def describe(name: str) -> str:
    rows, cols, types, gravity, kind, _ = SETS[name]
    how = "built by forward play, no hint" if kind == "built" else "random"
    return f"{rows}x{cols}, {types}x{rows * cols // types}, gravity {gravity}, {how}"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--boards", type=int, default=None, help="boards per set (default: per set, 10-50)")
    ap.add_argument("--budget", type=float, default=10.0, help="seconds per board and engine (default 10)")
    ap.add_argument("--nodes", type=int, default=None, help="optional node budget as well")
    ap.add_argument("--sets", default=",".join(SETS), help=f"comma-separated, from {', '.join(SETS)}")
    ap.add_argument("--engines", default="auto,baseline",
                    help="engines to time (default auto,baseline); auto-python is auto without the C gravity search")
    ap.add_argument("--markdown", type=Path, help="also write the tables to this Markdown file")
    ap.add_argument("--cpu", action="store_true",
                    help="time CPU seconds of this process instead of wall-clock (the budget stays wall-clock)")
    args = ap.parse_args()
    clock = time.process_time if args.cpu else time.perf_counter

    engines = args.engines.split(",")
    names = args.sets.split(",")
    unknown_sets = [n for n in names if n not in SETS]
    if unknown_sets:
        ap.error(f"unknown set(s) {', '.join(unknown_sets)}; choose from {', '.join(SETS)}")
    load0 = os.getloadavg()[0]
    counts_lines = ["| set | engine | boards | solvable | unsolvable | unknown | p50 | p90 | p95 | max |",
                    "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
    ratio_lines = ["| set | boards both decide | auto p50 | baseline p50 | speed-up "
                   "| p50 over all, auto / baseline | lost |",
                   "|---|---:|---:|---:|---:|---:|---:|"]
    stage_lines = ["| set | engine | stage | boards | p50 | max | nodes p50 |", "|---|---|---|---:|---:|---:|---:|"]
    for name in names:
        rows, cols, types, gravity, kind, default_n = SETS[name]
        n = args.boards or default_n
        rules = Rules(border=True, gravity=gravity)
        results: dict[str, list] = {e: [] for e in engines}
        for i, b in enumerate(boards(name, n)):
            turn = engines if i % 2 == 0 else engines[::-1]
            for engine in turn:
                results[engine].append(run(b, rules, engine, args.budget, args.nodes, clock))
            print(f"\r{name}: {i + 1}/{n}", end="", file=sys.stderr, flush=True)
        print(file=sys.stderr)
        for engine in engines:
            res = results[engine]
            times = [r[1] for r in res]
            c = {s: sum(r[0] == s for r in res) for s in ("solvable", "unsolvable", "unknown")}
            counts_lines.append(f"| {name} ({describe(name)}) | {engine} | {n} | {c['solvable']} | "
                                f"{c['unsolvable']} | {c['unknown']} | {ms(statistics.median(times))} | "
                                f"{ms(pct(times, 0.9))} | {ms(pct(times, 0.95))} | {ms(max(times))} |")
            if engine != "baseline":
                by_stage: dict[str, list] = {}
                for status, t, stage, nodes in res:
                    if status != "unknown":
                        by_stage.setdefault(stage, []).append((t, nodes))
                for stage, xs in sorted(by_stage.items()):
                    stage_lines.append(
                        f"| {name} | {engine} | {stage} | {len(xs)} | {ms(statistics.median(t for t, _ in xs))} | "
                        f"{ms(max(t for t, _ in xs))} | {statistics.median(k for _, k in xs):.0f} |")
        if "baseline" in results and "auto" in results:
            ours, base = results["auto"], results["baseline"]
            both = [(a[1], b[1]) for a, b in zip(ours, base) if a[0] != "unknown" and b[0] != "unknown"]
            lost = sum(a[0] == "unknown" and b[0] != "unknown" for a, b in zip(ours, base))
            all_ours = statistics.median(a[1] for a in ours)
            all_base = statistics.median(b[1] for b in base)
            if both:
                o = statistics.median(a for a, _ in both)
                bb = statistics.median(b for _, b in both)
                ratio_lines.append(f"| {name} | {len(both)} | {ms(o)} | {ms(bb)} | {bb / o:.1f}x | "
                                   f"{ms(all_ours)} / {ms(all_base)} | {lost} |")
            else:
                ratio_lines.append(f"| {name} | 0 | | | | {ms(all_ours)} / {ms(all_base)} | {lost} |")
    load1 = os.getloadavg()[0]
    core = "pure Python" if llkgen.game.grid.__file__.endswith(".py") else "compiled"
    core += ", with the C gravity search" if native.AVAILABLE else ", without the C gravity search"
    lines = [f"Machine: {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}, "
             f"search core {core}; "
             f"load average {load0:.1f} at the start, {load1:.1f} at the end; "
             f"{args.budget:g} s budget per board and engine" + (f", {args.nodes} nodes" if args.nodes else "") + ".",
             "", *counts_lines, "", "Speed against the baseline:", "", *ratio_lines, "",
             "Which stage decided (boards decided, median and max time, median nodes):", "", *stage_lines]
    text = "\n".join(lines)
    print(text)
    if args.markdown:
        args.markdown.parent.mkdir(parents=True, exist_ok=True)
        args.markdown.write_text(text + "\n")


if __name__ == "__main__":
    main()
