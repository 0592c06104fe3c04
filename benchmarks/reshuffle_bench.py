"""``reshuffle`` on boards that no arrangement can clear: proved (exit 3) or undecided (exit 4)?

When forward play gets stuck, :func:`llkgen.analysis.reshuffle.reshuffle` settles the question on
the board's *one-type board* (every tile one type): if the verifier proves it unsolvable, no
arrangement of the tiles can be cleared, exit 3; if its budget runs out first the answer is
only "none was certified", exit 4. Under gravity the move search alone was blind on such
boards (a 6x7 board with walls, border off and gravity down took an exhaustive search of 54k
nodes, past reshuffle's 20,000-node budget); the component split and reach pairing of
:mod:`llkgen.verifier.portfolio` now prove them at the root.

The boards: seeded random 6x7 boards (walls on 0-30% of the cells, 50-100% of the rest
filled, every direction, border on or off), settled. Each one's one-type board is first
decided with no node limit (``--seconds`` each; the reference). Then, on the boards no
arrangement can clear, ``reshuffle`` runs with its defaults (seed 0, 32 attempts, 20,000
nodes per verification) and its exit code is counted, next to what the move search alone
(:class:`~llkgen.verifier.movesearch.MoveSearch`, what ``auto`` ran under gravity before the
proofs) says about the one-type board within the same 20,000 nodes. The boards some
arrangement can clear are reshuffled too: they must come back certified (exit 0).

    python benchmarks/reshuffle_bench.py                  # 2,000 boards
    python benchmarks/reshuffle_bench.py --boards 500 --rows 6 --cols 7
"""

from __future__ import annotations

import argparse
import random
import time

from llkgen.analysis.advice import ADVICE_BUDGET
from llkgen.analysis.reshuffle import ReshuffleError, reshuffle
from llkgen.game.board import Board, Rules
from llkgen.game.gravity import apply_gravity
from llkgen.verifier import Budget, verify
from llkgen.verifier.movesearch import MoveSearch
from llkgen.verifier.verdict import OutOfBudget

GRAVITIES = ("down", "up", "left", "right")


def boards(n: int, rows: int, cols: int, seed: int) -> list[tuple[Board, Rules]]:
    rng = random.Random(f"llkgen-reshuffle-bench/{seed}")
    out = []
    for _ in range(n):
        walls = rng.choice([0.0, 0.1, 0.2, 0.3])
        fill = rng.choice([0.5, 0.7, 1.0])
        cells = [-1 if rng.random() < walls else (1 if rng.random() < fill else 0) for _ in range(rows * cols)]
        if cells.count(1) % 2:
            cells[cells.index(1)] = 0
        rules = Rules(border=rng.random() < 0.5, gravity=rng.choice(GRAVITIES))
        out.append((apply_gravity(Board(rows, cols, tuple(cells)), rules.gravity), rules))
    return out


def plain(board: Board, rules: Rules) -> str:
    """The move search alone on the one-type board, within reshuffle's node budget."""
    try:
        return "solvable" if MoveSearch(board, rules, ADVICE_BUDGET).search() is not None else "unsolvable"
    except OutOfBudget:
        return "unknown"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--boards", type=int, default=2000)
    ap.add_argument("--rows", type=int, default=6)
    ap.add_argument("--cols", type=int, default=7)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--seconds", type=float, default=60.0, help="reference budget per one-type board")
    args = ap.parse_args()
    rows: dict[str, dict[str, int]] = {}
    slowest = 0.0
    for board, rules in boards(args.boards, args.rows, args.cols, args.seed):
        if board.tile_count == 0:
            continue
        truth = verify(board, rules, Budget(nodes=None, seconds=args.seconds))
        key = {"solvable": "some arrangement clears", "unsolvable": "no arrangement clears"}.get(
            str(truth.status), "reference undecided")
        row = rows.setdefault(key, {})
        row["boards"] = row.get("boards", 0) + 1
        start = time.process_time()
        try:
            reshuffle(board, rules, seed=0)
            code = 0
        except ReshuffleError as e:
            code = e.exit_code
        slowest = max(slowest, time.process_time() - start)
        row[f"exit {code}"] = row.get(f"exit {code}", 0) + 1
        if truth.status == "unsolvable":
            before = plain(board, rules)
            row[f"move search alone: {before}"] = row.get(f"move search alone: {before}", 0) + 1
    print(f"{args.boards} random {args.rows}x{args.cols} boards (seed {args.seed}); slowest reshuffle "
          f"{slowest * 1000:.0f} ms CPU\n")
    cols = ["boards", "exit 0", "exit 3", "exit 4", "move search alone: unsolvable", "move search alone: unknown"]
    print("| one-type board | " + " | ".join(cols) + " |")
    print("|---|" + "---:|" * len(cols))
    for key, row in rows.items():
        print(f"| {key} | " + " | ".join(str(row.get(c, 0)) for c in cols) + " |")


if __name__ == "__main__":
    main()
