"""Path-rule benchmark on 10x16 boards (40 types x 4, border on, 40 cells emptied), every
figure against plain baselines in the same run.

* ``Grid.link``, the verifier's link test on the bitboard run tables of :mod:`llkgen.game.grid`,
  against the line-of-sight scan it replaced (kept as the frozen baseline search's test,
  ``llkgen.verifier.baseline._sees``). Both are timed on prebuilt boards, with the queries as
  padded indices, so the loop around them is the same.
* ``find_path`` (the referee's drawn path: fewest turns, then shortest, then smallest
  corners) against the textbook search: a breadth-first search over (cell, direction, turns)
  states that stops at the first arrival with at most two turns. The BFS answers yes/no only,
  so that comparison is conservative.

    python benchmarks/path_bench.py [--boards 20] [--seconds 2]
"""

from __future__ import annotations

import argparse
import importlib.util
import random
import sys
import time
from collections import deque
from pathlib import Path

if importlib.util.find_spec("llkgen") is None:  # not installed: use the source tree
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from llkgen.game.board import Board, Rules  # noqa: E402
from llkgen.game.grid import Grid  # noqa: E402
from llkgen.game.path import find_path, removable_pairs  # noqa: E402
from llkgen.verifier.baseline import _sees  # noqa: E402


def bfs_link(board: Board, a, b, border: bool) -> bool:
    """Plain search: states are (cell, direction, turns so far); one cell per step."""
    r_lo, r_hi = (-1, board.rows) if border else (0, board.rows - 1)
    c_lo, c_hi = (-1, board.cols) if border else (0, board.cols - 1)
    steps = ((-1, 0), (1, 0), (0, -1), (0, 1))

    def free(r: int, c: int) -> bool:
        if not (r_lo <= r <= r_hi and c_lo <= c <= c_hi):
            return False
        return not board.in_bounds((r, c)) or board[r, c] == 0

    queue = deque((a, d, 0) for d in range(4))
    seen = set(queue)
    while queue:
        (r, c), d, t = queue.popleft()
        nr, nc = r + steps[d][0], c + steps[d][1]
        if (nr, nc) == b:
            return True
        if not free(nr, nc):
            continue
        for nd in range(4):
            nt = t if nd == d else t + 1
            state = ((nr, nc), nd, nt)
            if nt <= 2 and state not in seen:
                seen.add(state)
                queue.append(state)
    return False


def make_boards(n: int) -> list[Board]:
    out = []
    for i in range(n):
        rng = random.Random(f"llkgen-path-bench/{i}")
        tiles = [t for t in range(1, 41) for _ in range(4)]
        rng.shuffle(tiles)
        # open the board up a little, as mid-game positions are
        for k in rng.sample(range(160), 40):
            tiles[k] = 0
        counts: dict[int, int] = {}
        for v in tiles:
            counts[v] = counts.get(v, 0) + 1
        for k, v in enumerate(tiles):  # restore even counts
            if v and counts[v] % 2:
                counts[v] -= 1
                tiles[k] = 0
        out.append(Board(10, 16, tuple(tiles)))
    return out


def queries(board: Board) -> list:
    return [(a, b) for cells in board.types().values() for i, a in enumerate(cells) for b in cells[i + 1:]]


def rate(fn, boards, seconds: float) -> tuple[float, int]:
    calls, t0 = 0, time.perf_counter()
    while time.perf_counter() - t0 < seconds:
        for board in boards:
            for a, b in queries(board):
                fn(board, a, b)
                calls += 1
    return calls / (time.perf_counter() - t0), calls


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--boards", type=int, default=20)
    ap.add_argument("--seconds", type=float, default=2.0)
    args = ap.parse_args()
    boards = make_boards(args.boards)
    rules = Rules()
    # the two must agree before their speed means anything
    for board in boards:
        for a, b in queries(board):
            assert (find_path(board, a, b, rules) is not None) == bfs_link(board, a, b, True), (board, a, b)
    ours, _ = rate(lambda bd, a, b: find_path(bd, a, b, rules), boards, args.seconds)
    base, _ = rate(lambda bd, a, b: bfs_link(bd, a, b, True), boards, args.seconds)
    # the two link tests, on prebuilt boards and padded queries
    prepared = []
    for board in boards:
        grid = Grid(board, rules)
        prepared.append((grid, [(grid.pos(a), grid.pos(b)) for a, b in queries(board)]))
    for grid, qs in prepared:
        for pa, pb in qs:
            assert grid.link(pa, pb) == bool(_sees(grid.g, grid.w, pa, pb))

    def link_rates(tests) -> list[float]:
        """Calls per second of each test, timed in alternating rounds over all boards: the
        machine's speed drifts over seconds, and this way every test sees the same drift."""
        spent = [0.0] * len(tests)
        calls = sum(len(qs) for _, qs in prepared)
        rounds = 0
        t_end = time.perf_counter() + 2 * args.seconds
        while time.perf_counter() < t_end:
            for k, test in enumerate(tests):
                t0 = time.perf_counter()
                for grid, qs in prepared:
                    f = test(grid)
                    for pa, pb in qs:
                        f(pa, pb)
                spent[k] += time.perf_counter() - t0
            rounds += 1
        return [rounds * calls / t for t in spent]

    scan, bits = link_rates([lambda grid: (lambda pa, pb, g=grid.g, w=grid.w: _sees(g, w, pa, pb)),
                             lambda grid: grid.link])
    t0 = time.perf_counter()
    reps = 0
    while time.perf_counter() - t0 < args.seconds:
        for board in boards:
            removable_pairs(board, rules)
            reps += 1
    pairs_rate = reps / (time.perf_counter() - t0)
    print(f"{args.boards} seeded 10x16 boards (40 types x 4, 40 cells emptied), border on; "
          f"{sum(len(queries(b)) for b in boards)} same-type pairs")
    print("| function | calls/s | ratio |")
    print("|---|---:|---:|")
    print(f"| `Grid.link`, bitboard run tables (the verifier's link test) | {bits:,.0f} | "
          f"{bits / scan:.1f}x the scan |")
    print(f"| line-of-sight scan (the link test before `llkgen.game.grid`) | {scan:,.0f} | 1.0x |")
    print(f"| `find_path` (corner scan, best path) | {ours:,.0f} | {ours / base:.1f}x the BFS |")
    print(f"| baseline BFS over (cell, direction, turns), yes/no only | {base:,.0f} | 1.0x |")
    print(f"| `removable_pairs` (whole board) | {pairs_rate:,.0f} boards/s | |")


if __name__ == "__main__":
    main()
