"""Exact depth-first search over removable pairs, for every gravity mode.

Under gravity the monotonicity that the pairing search and the lock test rely on is gone: a
removal makes tiles slide, which can close a path that was open. So this search branches on
every removable pair and prunes only with a table of *dead* boards: a board from which the
search has already tried every move without clearing it. That is sound under any rules,
because the outcome of play depends only on the board (and the fixed rules), not on how it
was reached. The table stores the exact board bytes, so a hash collision can never prune a
live board.

Move ordering is a heuristic only: it changes speed, never the verdict.
"""

from __future__ import annotations

import time
from array import array

from llkgen.board import Board, Cell, Rules
from llkgen.grid import Grid
from llkgen.verify.verdict import Budget, OutOfBudget

Pair = tuple[int, int]


class MoveSearch:
    def __init__(self, board: Board, rules: Rules, budget: Budget, *, ordering: str = "far",
                 start: float | None = None, prefer: list | None = None):
        self.grid = Grid(board, rules)
        self.g = self.grid.g
        self.ordering = ordering
        self.dead: set[bytes] = set()
        self.nodes = 0
        self.budget = budget
        self.start = time.perf_counter() if start is None else start
        self.deadline = None if budget.seconds is None else self.start + budget.seconds
        self.path: list[Pair] = []
        grid = self.grid
        self.depth = {p: rules.gravity.depth(grid.cell(p), board.rows, board.cols) for p in grid.cells}
        # A removal order to try first (move-ordering hint; cells as at each step). Followed
        # while the search's path is still a prefix of it.
        self.prefer = [tuple(sorted((grid.pos(a), grid.pos(b)))) for a, b in (prefer or [])]

    def moves(self) -> list[Pair]:
        grid = self.grid
        link = grid.link
        out = []
        for tiles in grid.by_type().values():
            n = len(tiles)
            for i in range(n):
                p = tiles[i]
                for j in range(i + 1, n):
                    if link(p, tiles[j]):
                        out.append((n, p, tiles[j]))
        if self.ordering == "far":
            depth = self.depth
            out.sort(key=lambda m: (-depth[m[1]] - depth[m[2]], m[1], m[2]))
        elif self.ordering == "near":
            depth = self.depth
            out.sort(key=lambda m: (m[0] != 2, depth[m[1]] + depth[m[2]], m[1], m[2]))
        else:
            out.sort(key=lambda m: (m[1], m[2]))
        moves = [(p, q) for _, p, q in out]
        depth_now = len(self.path)
        if (depth_now < len(self.prefer) and self.path == self.prefer[:depth_now]
                and self.prefer[depth_now] in moves):
            moves.remove(self.prefer[depth_now])
            moves.insert(0, self.prefer[depth_now])
        return moves

    def _tick(self) -> None:
        self.nodes += 1
        if self.budget.nodes is not None and self.nodes > self.budget.nodes:
            raise OutOfBudget("nodes")
        if self.deadline is not None and time.perf_counter() > self.deadline:
            raise OutOfBudget("seconds")

    def search(self) -> list[tuple[Cell, Cell]] | None:
        """The removal order as board cells ``((r1, c1), (r2, c2))``, each in the coordinates
        of the board at that moment, or ``None`` after an exhaustive search."""
        if self._solve():
            cell = self.grid.cell
            return [(cell(p), cell(q)) for p, q in self.path]
        return None

    def _solve(self) -> bool:
        self._tick()
        grid = self.grid
        if grid.is_cleared():
            return True
        key = array("h", grid.g).tobytes()
        if key in self.dead:
            return False
        snap = grid.snapshot()
        for p, q in self.moves():
            grid.remove(p, q)
            self.path.append((p, q))
            if self._solve():
                return True
            self.path.pop()
            grid.restore(snap)
        self.dead.add(key)
        return False
