"""What the move search's refutations look like on random full boards under gravity.

For each board it runs the move search (no proof but its own table) up to a node budget and
reports, from the table of dead boards it leaves behind:

* ``nodes`` and ``boards``: nodes expanded and dead boards recorded (a node is
  recorded under the board its move left and, when the clearings from the top played
  anything, the board after them as well);
* ``stuck``: the recorded boards with no move at all, and the tiles left on them (fewest,
  median, most): how deep play gets before it jams;
* ``locked``: the tiles the lock test of :mod:`llkgen.verifier.gravlock` locks on the board
  itself (0: it proves nothing there).

A refutation costs about one node per reachable board, so a board stays ``unknown`` when
millions of boards are reachable from it; a proof rule pays only if it fires well above the
stuck boards. Used for the findings in ``docs/benchmarks.md`` ("The verifier under gravity",
"What is left, and why").

    python benchmarks/gravity_deadends.py --sets 10x16-left --boards 4 --nodes 100000
"""

from __future__ import annotations

import argparse
import importlib.util
import statistics
import sys
import time
from array import array
from pathlib import Path

if importlib.util.find_spec("llkgen") is None:  # not installed: use the source tree
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from verify_bench import SETS, random_board  # noqa: E402

from llkgen.game.board import Board, Rules  # noqa: E402
from llkgen.game.grid import PAD, Grid  # noqa: E402
from llkgen.verifier.gravlock import gravity_locked  # noqa: E402
from llkgen.verifier.movesearch import MoveSearch  # noqa: E402
from llkgen.verifier.verdict import Budget, OutOfBudget  # noqa: E402


def board_of_key(key: bytes, board: Board) -> Board:
    g = array("h")
    g.frombytes(key)
    w = board.cols + 2 * PAD
    return Board(board.rows, board.cols, tuple(g[(r + PAD) * w + c + PAD] for r in range(board.rows)
                                              for c in range(board.cols)))


def has_move(grid: Grid) -> bool:
    return any(grid.link(p, q) for tiles in grid.by_type().values()
               for i, p in enumerate(tiles) for q in tiles[i + 1:])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sets", default="10x16-left,10x16-right,10x16-down,10x16-up")
    ap.add_argument("--boards", type=int, default=4)
    ap.add_argument("--nodes", type=int, default=100_000)
    args = ap.parse_args()
    print("| board | locked | verdict | nodes | boards | stuck | tiles left when stuck (min / median / max) | CPU |")
    print("|---|---:|---|---:|---:|---:|---|---:|")
    for name in args.sets.split(","):
        gravity = SETS[name][3]
        for i in range(args.boards):
            board = random_board(name, i)
            rules = Rules(gravity=gravity)
            search = MoveSearch(board, rules, Budget(nodes=args.nodes, seconds=None))
            t = time.process_time()
            try:
                verdict = "solvable" if search.search() is not None else "unsolvable"
            except OutOfBudget:
                verdict = "unknown"
            cpu = time.process_time() - t
            left = []
            for key in search.dead:
                position = board_of_key(key, board)
                if not has_move(Grid(position, rules)):
                    left.append(position.tile_count)
            spread = (f"{min(left)} / {statistics.median(left):g} / {max(left)}" if left else "-")
            locked = len(gravity_locked(board, rules))
            print(f"| {name} #{i} | {locked} | {verdict} | {search.nodes:,} | {len(search.dead):,} "
                  f"| {len(left):,} | {spread} | {cpu:.1f} s |", flush=True)


if __name__ == "__main__":
    main()
