"""The proofs under gravity, measured: ``auto`` against the move search alone and the baseline.

``auto`` under gravity splits the board into independent sub-games
(:mod:`llkgen.verifier.components`), proves types unpairable wherever gravity takes them
(:mod:`llkgen.verifier.reach`) and runs that test at every node of the move search. The move
search alone (``plain`` below: :class:`~llkgen.verifier.movesearch.MoveSearch` on the whole
board, nothing else) is exactly what ``auto`` ran under gravity before those rules, so the
two side by side, in one run and on the same boards, are the before and after. ``baseline``
is the frozen yardstick of ``benchmarks/verify_bench.py``. ``auto-python`` is ``auto`` with
the C gravity search (:mod:`llkgen.verifier.native`) switched off: what a pure Python install
runs, and what ``auto`` ran before long searches went to C.

Sets:

* ``small``: seeded small random gravity boards (4-6 rows, 5-7 columns, walls on half of
  them, 1-6 types, 60-100% of the free cells filled, border on or off, each direction; the
  kind of board on which the search was blind);
* ``real``: the gravity boards of ``../shared/real-boards/all.jsonl`` (no walls: every rule
  above is a no-op there, so this measures what the rules cost);
* ``full``: random full 10x16 boards, 40 types x 4, border on, one set per direction;
* ``open``: issue 31's sets, the ones the search leaves undecided most: random full boards,
  4 copies a type, border on, 12x18 in each direction and 10x16 left and right, on fresh
  seeds drawn anew each run (printed; ``--seed`` repeats a run).

``auto+precedence`` is ``auto`` with the precedence argument of
:mod:`llkgen.verifier.precedence` tried first (what the verifier would run with it as a stage
before the move search); against ``auto`` in the same run it shows what the stage would buy.

CPU seconds (``time.process_time``) per call, so a busy machine stretches every engine alike.

    python benchmarks/gravity_pruning_bench.py --sets small --boards 600 --nodes 60000
    python benchmarks/gravity_pruning_bench.py --sets real --budget 10
    python benchmarks/gravity_pruning_bench.py --sets real --budget 10 --engines auto,auto-python,baseline
    python benchmarks/gravity_pruning_bench.py --sets full --boards 5 --budget 10
    python benchmarks/gravity_pruning_bench.py --sets open --boards 10 --budget 10 --engines auto,auto+precedence

The budget is wall-clock seconds (``Budget.seconds``): on a loaded machine a board gets less
CPU than that, and the CPU columns say how much it got.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import time
from pathlib import Path

from verify_bench import verdict as engine_verdict  # this folder: the engines it times, auto-python too

from llkgen.game.board import Board, Rules
from llkgen.game.gravity import apply_gravity
from llkgen.game.referee import replay
from llkgen.verifier import Budget
from llkgen.verifier.movesearch import MoveSearch
from llkgen.verifier.precedence import precedence_cycle
from llkgen.verifier.verdict import OutOfBudget

REAL = Path(__file__).resolve().parents[2] / "shared" / "real-boards" / "all.jsonl"
DIRECTIONS = ("down", "up", "left", "right")


def small_boards(seed: int, n: int) -> list[tuple[str, Board, Rules]]:
    rng = random.Random(seed)
    out = []
    for i in range(n):
        gravity = rng.choice(DIRECTIONS)
        border = rng.random() < 0.5
        rows, cols = rng.randint(4, 6), rng.randint(5, 7)
        cells = rows * cols
        walls = rng.randint(1, cells // 4) if rng.random() < 0.5 else 0
        room = cells - walls
        count = rng.randint(max(room * 3 // 5, 2), room) // 2 * 2
        types = rng.randint(1, 6)
        flat = [-1] * walls + [1 + (k // 2) % types for k in range(count)] + [0] * (room - count)
        rng.shuffle(flat)
        board = apply_gravity(Board(rows, cols, tuple(flat)), gravity)
        out.append((f"small-{i}", board, Rules(border=border, gravity=gravity)))
    return out


def real_boards(path: Path) -> list[tuple[str, Board, Rules]]:
    out = []
    for line in path.read_text().splitlines():
        rec = json.loads(line)
        if rec["gravity"] != "none":
            out.append((rec["id"], Board.from_grid(rec["grid"]),
                        Rules(border=rec["border"], gravity=rec["gravity"])))
    return out


def full_boards(seed: int, n: int, gravity: str, rows: int = 10, cols: int = 16) -> list[tuple[str, Board, Rules]]:
    rng = random.Random(seed)
    out = []
    for i in range(n):
        flat = [1 + k // 4 for k in range(rows * cols)]
        rng.shuffle(flat)
        out.append((f"{rows}x{cols}-{gravity}-{i}", Board(rows, cols, tuple(flat)),
                    Rules(border=True, gravity=gravity)))
    return out


def run(engine: str, board: Board, rules: Rules, budget: Budget) -> tuple[str, str, int, float]:
    """(status, stage, nodes, CPU seconds) of one engine on one board."""
    t0 = time.process_time()
    if engine == "plain":
        search = MoveSearch(board, rules, budget)
        try:
            found = search.search()
            status = "unsolvable" if found is None else "solvable"
            if found is not None:  # the referee's replay, as verify does before it answers
                assert replay(board, rules, found).cleared
        except OutOfBudget:
            status = "unknown"
        return status, "move-search", search.nodes, time.process_time() - t0
    if engine == "auto+precedence":
        if precedence_cycle(board, rules) is not None:
            return "unsolvable", "precedence", 0, time.process_time() - t0
        engine = "auto"
    verdict = engine_verdict(board, rules, budget, engine)
    return (str(verdict.status), verdict.stats.get("stage", ""), int(verdict.stats.get("nodes", 0)),
            time.process_time() - t0)


def p90(xs: list[float]) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(0.9 * (len(xs) - 1))))]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sets", default="small,real,full")
    ap.add_argument("--boards", type=int, default=None, help="boards per set (small: 600, full: 5 a direction)")
    ap.add_argument("--budget", type=float, default=10.0, help="seconds per board and engine")
    ap.add_argument("--nodes", type=int, default=None, help="node budget as well")
    ap.add_argument("--engines", default="auto,plain,baseline")
    ap.add_argument("--list", action="store_true", help="print each board's result")
    ap.add_argument("--seed", type=int, default=None,
                    help="seed of the open sets (default: drawn from the clock, printed)")
    args = ap.parse_args()
    budget = Budget(nodes=args.nodes, seconds=args.budget)
    engines = args.engines.split(",")
    sets: dict[str, list] = {}
    for name in args.sets.split(","):
        if name == "small":
            sets["small"] = small_boards(20261201, args.boards or 600)
        elif name == "real":
            sets["real"] = real_boards(REAL)
        elif name == "full":
            for d in DIRECTIONS:
                sets[f"10x16-{d}"] = full_boards(20261201, args.boards or 5, d)
        elif name == "open":
            seed = args.seed if args.seed is not None else time.time_ns() % 1_000_000_007
            print(f"open sets: seed {seed}")
            for k, d in enumerate(DIRECTIONS):
                sets[f"12x18-{d}"] = full_boards(seed + k, args.boards or 10, d, 12, 18)
            for k, d in enumerate(("left", "right")):
                sets[f"10x16-{d}"] = full_boards(seed + 4 + k, args.boards or 15, d)
        else:
            raise SystemExit(f"--sets: unknown set {name!r}")
    print("| set | engine | boards | solvable | unsolvable | unknown | nodes | CPU s | CPU p50 ms | CPU p90 ms |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for name, boards in sets.items():
        results: dict[str, list] = {e: [] for e in engines}
        for i, (ident, board, rules) in enumerate(boards):
            turn = engines[i % len(engines):] + engines[:i % len(engines)]  # alternate who goes first
            for engine in turn:
                res = run(engine, board, rules, budget)
                results[engine].append(res)
                if args.list:
                    print(f"  {ident} {engine} {res[0]} {res[1]} {res[2]} {res[3]:.3f}", flush=True)
        for engine in engines:
            rs = results[engine]
            counts = {s: sum(1 for r in rs if r[0] == s) for s in ("solvable", "unsolvable", "unknown")}
            print(f"| {name} | {engine} | {len(rs)} | {counts['solvable']} | {counts['unsolvable']} | "
                  f"{counts['unknown']} | {sum(r[2] for r in rs):,} | {sum(r[3] for r in rs):.1f} | "
                  f"{statistics.median(r[3] for r in rs) * 1000:.1f} | {p90([r[3] for r in rs]) * 1000:.1f} |",
                  flush=True)
        # The boards some engine proved unsolvable: where the search used to be blind.
        dead = [i for i in range(len(boards)) if any(results[e][i][0] == "unsolvable" for e in engines)]
        if dead:
            for engine in engines:
                rs = [results[engine][i] for i in dead]
                print(f"| {name}, unsolvable ones | {engine} | {len(rs)} | - | "
                      f"{sum(1 for r in rs if r[0] == 'unsolvable')} | {sum(1 for r in rs if r[0] == 'unknown')} | "
                      f"{sum(r[2] for r in rs):,} | {sum(r[3] for r in rs):.1f} | "
                      f"{statistics.median(r[3] for r in rs) * 1000:.1f} | {p90([r[3] for r in rs]) * 1000:.1f} |",
                      flush=True)
        for engine in engines:
            stages: dict[str, int] = {}
            for status, stage, *_ in results[engine]:
                key = f"{stage} ({status})"
                stages[key] = stages.get(key, 0) + 1
            print(f"  {name} {engine} stages: " + ", ".join(f"{k} {v}" for k, v in sorted(stages.items())))


if __name__ == "__main__":
    main()
