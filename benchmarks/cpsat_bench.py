"""CP-SAT against the search: the board classes where the CP-SAT model might earn its place.

For each class of seeded boards (gravity none) it runs ``verify(board, rules, Budget(...),
engine=...)`` with ``engine="cpsat"`` and ``engine="search"`` on the same boards under the same
per-board budget, the two interleaved board by board (cpsat, search, cpsat, search: each
board's minimum CPU time is kept; a run that ended unknown is not repeated, it would only burn
its budget again). It prints Markdown tables:

1. per class and engine: solvable / unsolvable / unknown counts and p50 / p95 CPU time over all
   boards (an unknown counts at the time it used);
2. per class: the boards both engines decide, both medians and their ratio (search / cpsat:
   above 1 CP-SAT is faster), and the boards only one of them decides;
3. the second opinion: on every board the search left unknown, CP-SAT with a larger budget
   (``--second``), and the CPU time it needed;
4. routing: for the boards :func:`llkgen.verifier.cpsat.cpsat_suits` accepts and for the rest,
   what "the search for s seconds, then CP-SAT for the rest of the budget" would decide, worked
   out from the two runs above (a board counts as decided by the search if it took at most s,
   else by CP-SAT if it needed at most budget - s), against the search alone. It counts CPU
   seconds, so it says what a split would give on an idle machine; on a loaded one a slice
   of the wall clock buys less, which is why ``auto`` hands over after a number of nodes
   instead (see ``HANDOVER_NODES`` and docs/benchmarks.md, "CP-SAT against the search");
5. with ``--auto``: ``engine="auto"`` as shipped, run in turn with the other two, against the
   search alone: what the routing really decides, and how many boards its CP-SAT stage
   decided.

Times are CPU seconds of this process (``time.process_time``, CP-SAT's worker thread included),
so a loaded machine slows both engines alike; the budgets are wall-clock seconds, as a user's
``--budget`` is. The boards are the same everywhere. ``--classes stubborn`` takes the 10x16 set
of ``benchmarks/verify_bench.py`` and keeps the boards the search leaves unknown.

    python benchmarks/cpsat_bench.py                          # every class, 10 boards, 10 s
    python benchmarks/cpsat_bench.py --classes walls20-2x56,stubborn --boards 20
    python benchmarks/cpsat_bench.py --budget 5 --second 60 --repeat 1
    python benchmarks/cpsat_bench.py --classes walls30-12x12-4x24 --auto --second 0
"""

from __future__ import annotations

import argparse
import os
import platform
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from llkgen.game.board import Board, Rules  # noqa: E402
from llkgen.verifier import Budget, verify  # noqa: E402
from llkgen.verifier.cpsat import cpsat_suits  # noqa: E402

#: name -> (rows, cols, [(types, copies), ...], wall share, border). Tiles go on random
#: non-wall cells; the cells left over stay empty.
CLASSES: dict[str, tuple[int, int, list[tuple[int, int]], float, bool]] = {
    # few types, many copies, full boards
    "full-8x10-2x40": (8, 10, [(2, 40)], 0.0, True),
    "full-8x10-4x20": (8, 10, [(4, 20)], 0.0, True),
    "full-8x10-6x12": (8, 10, [(6, 12)], 0.0, True),
    "full-10x16-4x40": (10, 16, [(4, 40)], 0.0, True),
    # ... and half empty
    "half-8x10-2x20": (8, 10, [(2, 20)], 0.0, True),
    "half-8x10-4x10": (8, 10, [(4, 10)], 0.0, True),
    "half-8x10-6x6": (8, 10, [(6, 6)], 0.0, True),
    "half-10x16-4x20": (10, 16, [(4, 20)], 0.0, True),
    # sparse boards with walls: 30% walls, 30% tiles
    "sparse-12x12-10x4": (12, 12, [(10, 4)], 0.3, True),
    "sparse-12x12-10x4-noborder": (12, 12, [(10, 4)], 0.3, False),
    "sparse-12x12-2x20": (12, 12, [(2, 20)], 0.3, True),
    "sparse-12x12-2x20-noborder": (12, 12, [(2, 20)], 0.3, False),
    # walls with few types and every other cell a tile
    "walls20-12x12-2x56": (12, 12, [(2, 56)], 0.2, True),
    "walls20-12x12-2x56-noborder": (12, 12, [(2, 56)], 0.2, False),
    "walls20-12x12-4x28": (12, 12, [(4, 28)], 0.2, True),
    "walls20-12x12-4x28-noborder": (12, 12, [(4, 28)], 0.2, False),
    "walls30-12x12-2x50": (12, 12, [(2, 50)], 0.3, True),
    "walls30-12x12-4x24": (12, 12, [(4, 24)], 0.3, True),
    "walls20-12x12-6x18": (12, 12, [(6, 18)], 0.2, True),
    "walls20-12x12-28x4": (12, 12, [(28, 4)], 0.2, True),
    # fewer walls, few types: where does the search start to need help?
    "walls10-12x12-4x32": (12, 12, [(4, 32)], 0.1, True),
    "walls10-12x12-4x32-noborder": (12, 12, [(4, 32)], 0.1, False),
    "walls15-12x12-4x30": (12, 12, [(4, 30)], 0.15, True),
    "walls15-12x12-4x30-noborder": (12, 12, [(4, 30)], 0.15, False),
}
STUBBORN = "stubborn"


def make(name: str, i: int) -> Board:
    rows, cols, kinds, walls, _ = CLASSES[name]
    rng = random.Random(f"llkgen-cpsat-bench/{name}/{i}")
    n = rows * cols
    cells = list(range(n))
    rng.shuffle(cells)
    flat = [0] * n
    nw = round(n * walls)
    for c in cells[:nw]:
        flat[c] = -1
    tiles = []
    kind = 0
    for types, copies in kinds:
        for _ in range(types):
            kind += 1
            tiles += [kind] * copies
    rng.shuffle(tiles)
    assert len(tiles) <= n - nw, name
    for c, t in zip(cells[nw:], tiles):
        flat[c] = t
    return Board(rows, cols, tuple(flat))


def features(board: Board) -> str:
    counts = board.types()
    walls = sum(v == -1 for v in board.cells)
    tiles = board.tile_count
    return (f"{len(counts)} types, {tiles} tiles, walls {walls / len(board.cells):.0%}, "
            f"density {tiles / max(1, len(board.cells) - walls):.0%}")


def run(board: Board, rules: Rules, engine: str, seconds: float) -> tuple[str, float, float]:
    """(verdict, CPU seconds, cost): the cost is the search's nodes, or CP-SAT's deterministic
    seconds (what a node budget buys, at ``NODES_PER_DET_SECOND``); for ``auto``, 1 when its
    CP-SAT stage decided and 0 otherwise."""
    c = time.process_time()
    v = verify(board, rules, Budget(nodes=None, seconds=seconds), engine=engine)
    t = time.process_time() - c
    if engine == "cpsat":
        cost = v.stats.get("cpsat", {}).get("deterministic_time", 0.0)
    elif engine == "auto":
        cost = float(v.status != "unknown" and v.stats.get("stage") == "cpsat")
    else:
        cost = v.stats.get("nodes", 0)
    return v.status, t, cost


def pct(xs: list[float], q: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(q * (len(xs) - 1))))]


def secs(x: float) -> str:
    return f"{x * 1000:.0f} ms" if x < 1 else f"{x:.2f} s"


def stubborn(n: int, seconds: float) -> list[Board]:
    """The boards of verify_bench's 10x16 set that the search leaves unknown."""
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from verify_bench import boards

    out = []
    for i, b in enumerate(boards("10x16", n)):
        status, _, _ = run(b, Rules(border=True), "search", seconds)
        print(f"\rstubborn scan: {i + 1}/{n}, {len(out) + (status == 'unknown')} unknown", end="",
              file=sys.stderr, flush=True)
        if status == "unknown":
            out.append(b)
    print(file=sys.stderr)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--boards", type=int, default=10, help="boards per class (default 10)")
    ap.add_argument("--offset", type=int, default=0,
                    help="index of the first board (default 0; another offset gives fresh boards)")
    ap.add_argument("--budget", type=float, default=10.0, help="seconds per board and engine (default 10)")
    ap.add_argument("--second", type=float, default=60.0,
                    help="CP-SAT's budget on the boards the search left unknown (default 60; 0: skip)")
    ap.add_argument("--repeat", type=int, default=2, help="runs per board and engine, minimum kept (default 2)")
    ap.add_argument("--classes", default=",".join([*CLASSES, STUBBORN]),
                    help=f"comma-separated, from {', '.join([*CLASSES, STUBBORN])}")
    ap.add_argument("--auto", action="store_true", help="also run engine auto, in turn with the others")
    ap.add_argument("--stubborn-boards", type=int, default=50, help="10x16 boards scanned for 'stubborn' (default 50)")
    args = ap.parse_args()

    load0 = os.getloadavg()
    lines = ["| class | features (board 0) | suits | engine | solvable | unsolvable | unknown | p50 | p95 |",
             "|---|---|---:|---|---:|---:|---:|---:|---:|"]
    routed: dict[bool, list[tuple[tuple, tuple]]] = {True: [], False: []}
    ratio_lines = ["| class | both decide | search p50 | cpsat p50 | search / cpsat | only cpsat | only search |",
                   "|---|---:|---:|---:|---:|---:|---:|"]
    auto_lines = ["| class | auto decided | by its cpsat stage | auto p50 | auto p95 | search decided | "
                  "search p50 | search p95 |", "|---|---:|---:|---:|---:|---:|---:|---:|"]
    second_lines = ["| class | board | search | cpsat (second opinion) | cpsat CPU | cpsat det. s |",
                    "|---|---:|---|---|---:|---:|"]
    for name in args.classes.split(","):
        if name == STUBBORN:
            boards = stubborn(args.stubborn_boards, args.budget)
            rules = Rules(border=True)
        else:
            boards = [make(name, i) for i in range(args.offset, args.offset + args.boards)]
            rules = Rules(border=CLASSES[name][4], gravity="none")
        if not boards:
            lines.append(f"| {name} | (none) | | | | | | | |")
            continue
        engines = ("cpsat", "search", "auto") if args.auto else ("cpsat", "search")
        best: dict[str, list[tuple[str, float, float]]] = {e: [] for e in engines}
        for i, b in enumerate(boards):
            runs: dict[str, list[tuple[str, float, float]]] = {e: [] for e in engines}
            for _rep in range(args.repeat):
                for engine in engines:
                    if not (runs[engine] and runs[engine][0][0] == "unknown"):
                        runs[engine].append(run(b, rules, engine, args.budget))
            got = {}
            for engine, rs in runs.items():
                decided = [r for r in rs if r[0] != "unknown"]
                if len({r[0] for r in decided}) > 1:
                    raise AssertionError(f"{name} board {i}: {engine} gave {rs}")
                got[engine] = min(decided, key=lambda r: r[1]) if decided else rs[0]
                best[engine].append(got[engine])
            if len({r[0] for r in got.values()} - {"unknown"}) > 1:
                raise AssertionError(f"{name} board {i}: {got}")
            print(f"\r{name}: {i + 1}/{len(boards)}", end="", file=sys.stderr, flush=True)
        print(file=sys.stderr)
        suits = [cpsat_suits(b, rules) for b in boards]
        for ok, c, se in zip(suits, best["cpsat"], best["search"]):
            routed[ok].append((se, c))
        for engine in ("cpsat", "search"):
            res = best[engine]
            times = [r[1] for r in res]
            counts = {s: sum(r[0] == s for r in res) for s in ("solvable", "unsolvable", "unknown")}
            lines.append(f"| {name} | {features(boards[0])} | {sum(suits)}/{len(boards)} | {engine} | "
                         f"{counts['solvable']} | {counts['unsolvable']} | {counts['unknown']} | "
                         f"{secs(statistics.median(times))} | "
                         f"{secs(pct(times, 0.95))} |")
        pairs = list(zip(best["cpsat"], best["search"]))
        both = [(c[1], s[1]) for c, s in pairs if c[0] != "unknown" and s[0] != "unknown"]
        only_c = sum(c[0] != "unknown" and s[0] == "unknown" for c, s in pairs)
        only_s = sum(c[0] == "unknown" and s[0] != "unknown" for c, s in pairs)
        if both:
            cp, se = statistics.median(c for c, _ in both), statistics.median(s for _, s in both)
            ratio_lines.append(f"| {name} | {len(both)} | {secs(se)} | {secs(cp)} | {se / cp:.2f} | "
                               f"{only_c} | {only_s} |")
        else:
            ratio_lines.append(f"| {name} | 0 | | | | {only_c} | {only_s} |")
        if args.auto:
            a, se = best["auto"], best["search"]
            auto_lines.append(f"| {name} | {sum(r[0] != 'unknown' for r in a)} | {sum(r[2] for r in a):.0f} | "
                              f"{secs(statistics.median(r[1] for r in a))} | {secs(pct([r[1] for r in a], 0.95))} | "
                              f"{sum(r[0] != 'unknown' for r in se)} | {secs(statistics.median(r[1] for r in se))} | "
                              f"{secs(pct([r[1] for r in se], 0.95))} |")
        if args.second:
            for i, (b, found) in enumerate(zip(boards, best["search"])):
                if found[0] != "unknown":
                    continue
                status, t, det = run(b, rules, "cpsat", args.second)
                second_lines.append(f"| {name} | {args.offset + i} | unknown at {args.budget:g} s | "
                                    f"{status} at {args.second:g} s | {secs(t)} | {det:.2f} |")

    load1 = os.getloadavg()
    print(f"Machine: {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}; "
          f"load average {load0[0]:.2f} at the start, {load1[0]:.2f} at the end. {args.boards} boards per "
          f"class (from board {args.offset}), {args.budget:g} s per board and engine (wall clock), "
          f"times in CPU seconds, "
          f"minimum of {args.repeat} interleaved runs.\n")
    print("\n".join(lines))
    print("\nBoards both engines decide (ratio of CPU medians; above 1 CP-SAT is faster), and boards "
          "only one decides:\n")
    print("\n".join(ratio_lines))
    if args.second:
        print(f"\nSecond opinion: CP-SAT with {args.second:g} s on every board the search left unknown:\n")
        print("\n".join(second_lines))
    print(f"\nRouting within {args.budget:g} s: the search alone, or the search for s seconds and then "
          "CP-SAT for the rest (worked out from the runs above):\n")
    print("| boards | policy | decided | unknown | p50 | p95 |\n|---|---|---:|---:|---:|---:|")
    for ok in (True, False):
        res = routed[ok]
        if not res:
            continue
        label = f"{len(res)} with cpsat_suits {'true' if ok else 'false'}"
        for s1 in (None, *(x for x in (0.5, 1.0, 2.0, 5.0) if x < args.budget)):
            times, decided = [], 0
            for (s_status, s_t, _), (c_status, c_t, _) in res:
                if s_status != "unknown" and (s1 is None or s_t <= s1):
                    times.append(s_t)
                    decided += 1
                elif s1 is not None and c_status != "unknown" and c_t <= args.budget - s1:
                    times.append(s1 + c_t)
                    decided += 1
                else:
                    times.append(max(s_t, args.budget if s1 is not None else s_t))
            policy = "search alone" if s1 is None else f"search {s1:g} s, then CP-SAT"
            print(f"| {label} | {policy} | {decided} | {len(res) - decided} | "
                  f"{secs(statistics.median(times))} | {secs(pct(times, 0.95))} |")
    if args.auto:
        print("\nengine auto as shipped against the search alone, same boards and budget (CPU, all boards):\n")
        print("\n".join(auto_lines))
    print("\nWhat deciding cost, on the boards each engine decided (search: nodes; CP-SAT: "
          "deterministic seconds; and CPU seconds):\n")
    print("| boards | engine | decided | cost p50 | cost p95 | cost max | CPU p50 | CPU p95 | CPU max |\n"
          "|---|---|---:|---:|---:|---:|---:|---:|---:|")
    for ok in (True, False):
        for k, engine in enumerate(("search", "cpsat")):
            won = [pair[k] for pair in routed[ok] if pair[k][0] != "unknown"]
            if won:
                costs, cpu = [r[2] for r in won], [r[1] for r in won]
                fmt = (lambda x: f"{x:.0f}") if engine == "search" else (lambda x: f"{x:.3f}")
                print(f"| cpsat_suits {'true' if ok else 'false'} | {engine} | {len(won)} | "
                      f"{fmt(statistics.median(costs))} | {fmt(pct(costs, 0.95))} | {fmt(max(costs))} | "
                      f"{secs(statistics.median(cpu))} | {secs(pct(cpu, 0.95))} | {secs(max(cpu))} |")

if __name__ == "__main__":
    main()
