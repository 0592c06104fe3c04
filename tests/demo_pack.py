"""A small demo pack for the rendering and viewer tests (imported, not a conftest plugin).

``make_demo_pack`` is the single place that decides which pack the render tests use; it can
later be swapped for a pack made by ``llkgen make`` without touching the tests. Each board is
hand-made and small (14-20 tiles) so that the plain brute-force search below finds its
solution instantly; the solution is then replayed by the referee before it is stored.
"""

from __future__ import annotations

import random
from pathlib import Path

from llkgen.formats.level import Level, Pack, pack_to_json, write_json_atomic
from llkgen.game.board import Board, Rules
from llkgen.game.path import removable_pairs
from llkgen.game.referee import replay

# (id, rules, grid). Together they cover: no gravity with the border ring, walls without the
# ring, gravity down, and gravity right with walls splitting rows into runs.
DEMO_BOARDS: list[tuple[str, Rules, list[list[int]]]] = [
    ("plain-4x5", Rules(border=True, gravity="none"), [
        [1, 2, 3, 4, 1],
        [5, 6, 0, 6, 2],
        [3, 7, 7, 5, 4],
        [8, 0, 8, 9, 9],
    ]),
    ("walls-5x6", Rules(border=False, gravity="none"), [
        [1, 2, -1, 3, 1, 4],
        [5, 0, 2, 0, 0, 3],
        [-1, 6, 7, 7, 6, -1],
        [5, 8, 0, 9, 8, 9],
        [10, 4, -1, -1, 0, 10],
    ]),
    ("gravity-down-5x4", Rules(border=True, gravity="down"), [
        [0, 9, 0, 9],
        [1, 2, 3, 4],
        [2, 5, 6, 1],
        [3, 6, 5, 7],
        [4, 8, 7, 8],
    ]),
    ("gravity-right-walls-4x6", Rules(border=True, gravity="right"), [
        [1, 2, -1, 3, 1, 0],
        [4, 0, 5, 2, -1, 9],
        [3, 5, -1, 4, 6, 9],
        [6, 7, 7, 0, 0, -1],
    ]),
]


def brute_force_solution(board: Board, rules: Rules) -> tuple[list, int]:
    """A clearing move list found by plain depth-first search over ``removable_pairs``,
    memoising dead positions, and the number of positions visited. Raises if none exists."""
    dead: set[tuple[int, ...]] = set()
    nodes = 0

    def dfs(b: Board) -> list | None:
        nonlocal nodes
        nodes += 1
        if b.is_cleared():
            return []
        if b.cells in dead:
            return None
        for mv in removable_pairs(b, rules):
            res = replay(b, rules, [(mv.a, mv.b)])
            rest = dfs(res.final)
            if rest is not None:
                return [(mv.a, mv.b)] + rest
        dead.add(b.cells)
        return None

    moves = dfs(board)
    if moves is None:
        raise AssertionError(f"demo board has no solution:\n{board}")
    return moves, nodes


def random_clear_rate(board: Board, rules: Rules, seed: int, trials: int = 100) -> float:
    rng = random.Random(seed)
    cleared = 0
    for _ in range(trials):
        b = board
        while True:
            moves = removable_pairs(b, rules)
            if not moves:
                break
            mv = rng.choice(moves)
            b = replay(b, rules, [(mv.a, mv.b)]).final
        cleared += b.is_cleared()
    return cleared / trials


def demo_levels() -> list[Level]:
    levels = []
    for i, (level_id, rules, grid) in enumerate(DEMO_BOARDS):
        board = Board.from_grid(grid)
        moves, nodes = brute_force_solution(board, rules)
        res = replay(board, rules, moves)
        assert res.ok and res.cleared, res.describe()
        extra = {
            "seed": i,
            "metrics": {
                "initial_moves": len(removable_pairs(board, rules)),
                "random_clear_rate": random_clear_rate(board, rules, seed=i),
                "verify_nodes": nodes,
            },
            "certificate": {"verdict": "solvable", "method": "test-dfs", "stats": {"nodes": nodes}},
            "solution": [[list(a), list(b)] for a, b in moves],
        }
        levels.append(Level(board, rules, level_id, extra))
    return levels


def make_demo_pack(tmp_path: Path) -> Path:
    """Write the demo pack to ``tmp_path / "demo-pack.json"`` and return its path."""
    pack = Pack("Render demo", demo_levels(), {"generator": "llkgen tests", "seed": 7})
    return write_json_atomic(Path(tmp_path) / "demo-pack.json", pack_to_json(pack))
