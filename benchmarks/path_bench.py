"""Path-rule benchmark: ``find_path`` calls per second on full 10x16 boards (40 types x 4,
border on), against a plain baseline in the same run.

The baseline is the textbook search: a breadth-first search over (cell, direction, turns)
states that stops at the first arrival with at most two turns. It answers the yes/no question
only, while ``find_path`` also picks the path a player expects (fewest turns, then shortest,
then smallest corners), so the comparison is conservative.

    python benchmarks/path_bench.py [--boards 20] [--seconds 2]
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections import deque
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from llkgen.board import Board, Rules  # noqa: E402
from llkgen.path import PAD, find_link, find_path, padded, removable_pairs, to_padded  # noqa: E402


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
    ours, n1 = rate(lambda bd, a, b: find_path(bd, a, b, rules), boards, args.seconds)
    base, n2 = rate(lambda bd, a, b: bfs_link(bd, a, b, True), boards, args.seconds)
    grids = {id(bd): (padded(bd, rules), bd.cols + 2 * PAD) for bd in boards}

    def raw(bd, a, b):
        g, w = grids[id(bd)]
        return find_link(g, w, to_padded(a, w), to_padded(b, w))

    inner, _ = rate(raw, boards, args.seconds)
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
    print(f"| find_path (corner scan, best path) | {ours:,.0f} | {ours / base:.1f}x |")
    print(f"| baseline BFS over (cell, direction, turns), yes/no only | {base:,.0f} | 1.0x |")
    print(f"| find_link on a prebuilt padded grid (the verifier's yes/no test) | {inner:,.0f} | {inner / base:.1f}x |")
    print(f"| removable_pairs (whole board) | {pairs_rate:,.0f} boards/s | |")


if __name__ == "__main__":
    main()
