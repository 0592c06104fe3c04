"""Print what the search core decides on a fixed set of seeded boards, one JSON line each.

``tests/project/test_package.py`` runs this script twice: with the wheel it builds (whose search core
is compiled, see setup.py) and with the source tree (pure Python). The two outputs must be
identical: the same verdicts, witnesses, stages and node counts, the same forward play and
model players' clear rates. It
imports nothing but llkgen and the standard library, so it runs in a user's venv.

    python tests/verdict_dump.py            # prints the lines; says on stderr which build ran
"""

from __future__ import annotations

import json
import pickle
import random
import sys

import numpy as np

import llkgen.game.grid
from llkgen.analysis.difficulty import measure
from llkgen.analysis.metrics import random_clear_rate
from llkgen.game.board import Board, Rules
from llkgen.game.playout import Playout, random_playthrough
from llkgen.verifier import Budget, verify

GRAVITIES = ("none", "down", "up", "left", "right")


def small_board(rng: random.Random) -> tuple[Board, Rules]:
    """A random small board: walls, 1-4 types of 2, 4 or 6 copies, any rules."""
    rows, cols = rng.randint(2, 5), rng.randint(2, 6)
    cells = [0] * (rows * cols)
    order = list(range(rows * cols))
    rng.shuffle(order)
    walls = rng.randint(0, rows * cols // 5)
    for i in order[:walls]:
        cells[i] = -1
    room = order[walls:]
    tiles: list[int] = []
    for kind in range(1, rng.randint(1, 4) + 1):
        copies = rng.choice((2, 4, 6))
        if len(tiles) + copies <= len(room):
            tiles += [kind] * copies
    for i, v in zip(room, tiles):
        cells[i] = v
    return Board(rows, cols, tuple(cells)), Rules(border=rng.random() < 0.5, gravity=rng.choice(GRAVITIES))


def full_board(rows: int, cols: int, copies: int, seed: int) -> Board:
    rng = random.Random(seed)
    tiles = [t for t in range(1, rows * cols // copies + 1) for _ in range(copies)]
    rng.shuffle(tiles)
    return Board(rows, cols, tuple(tiles))


def emit(kind: str, i: int, engine: str, board: Board, rules: Rules, nodes: int) -> None:
    v = verify(board, rules, Budget(nodes=nodes), engine=engine)
    stats = {k: v.stats[k] for k in ("stage", "nodes", "dive_nodes", "lock_prunes") if k in v.stats}
    print(json.dumps([kind, i, engine, rules.gravity.value, v.status, v.solution, stats]))


def main() -> None:
    rng = random.Random(20261201)
    for i in range(500):
        board, rules = small_board(rng)
        for engine in ("auto", "search"):
            emit("small", i, engine, board, rules, 3000)
    for i in range(12):
        gravity = GRAVITIES[i % 5]
        emit("8x12", i, "auto", full_board(8, 12, 4, i), Rules(gravity=gravity), 4000)
    for i in range(6):
        emit("10x16", i, "auto", full_board(10, 16, 4, 100 + i), Rules(), 4000)
    for i in range(10):
        board = full_board(6, 8, 4, 200 + i)
        rules = Rules(gravity=GRAVITIES[i % 5])
        rate = random_clear_rate(board, rules, 8, seed=i)
        rngp = np.random.default_rng(np.random.SeedSequence(i))
        cleared, moves = random_playthrough(Playout(board, rules), rules, rngp)
        print(json.dumps(["playout", i, rules.gravity.value, rate, cleared, moves]))
        # The model players (compiled in the wheel) and the measurement built on them; the
        # measurement is pickled, as it is when it comes back from a worker process.
        d = pickle.loads(pickle.dumps(measure(board, rules, i, stream=i % 2, precision=6.0)))
        print(json.dumps(["ladder", i, rules.gravity.value, d.score, d.se, d.players_json()]))
    compiled = not llkgen.game.grid.__file__.endswith(".py")
    print(f"search core: {'compiled' if compiled else 'pure Python'} ({llkgen.game.grid.__file__})",
          file=sys.stderr)


if __name__ == "__main__":
    main()
