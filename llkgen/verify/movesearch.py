"""Exact depth-first search over removable pairs, for every gravity mode.

Under gravity the monotonicity that the pairing search and the lock test rely on is gone: a
removal makes tiles slide, which can close a path that was open. So this search branches on
every removable pair and prunes only with a table of *dead* boards: a board from which the
search has already tried every move without clearing it. That is sound under any rules,
because the outcome of play depends only on the board (and the fixed rules), not on how it
was reached. The table stores the exact board bytes, so a hash collision can never prune a
live board.

``ordered=False`` is the benchmark's plain baseline: the same search with moves in board
order. ``ordered=True`` tries first the moves that finish a type and then those whose tiles
lie nearest the side tiles fall towards (or nearest the edge without gravity): a heuristic
only, which changes speed, never the verdict.
"""

from __future__ import annotations

import time
from array import array

from llkgen.board import Board, Rules
from llkgen.gravity import _lines, compact
from llkgen.path import PAD, find_link, from_padded, padded, to_padded
from llkgen.verify.verdict import Budget, OutOfBudget

Pair = tuple[int, int]


class MoveSearch:
    def __init__(self, board: Board, rules: Rules, budget: Budget, *, ordered: bool = True,
                 start: float | None = None, prefer: list | None = None):
        self.rows, self.cols = board.rows, board.cols
        self.w = board.cols + 2 * PAD
        self.g = padded(board, rules)
        self.gravity = rules.gravity
        self.lines = None
        if rules.gravity != "none":
            w = self.w
            self.lines = [[to_padded(divmod(i, board.cols), w) for i in line]
                          for line in _lines(board.rows, board.cols, rules.gravity)]
        self.cells = [to_padded((r, c), self.w) for r in range(board.rows) for c in range(board.cols)]
        self.ordered = ordered
        self.dead: set[bytes] = set()
        self.nodes = 0
        self.tt_hits = 0
        self.budget = budget
        self.start = time.perf_counter() if start is None else start
        self.deadline = None if budget.seconds is None else self.start + budget.seconds
        self.path: list[Pair] = []
        self._rank = self._edge_rank()
        # A removal order to try first (move-ordering hint; cells as at each step). Followed
        # while the search's path is still a prefix of it.
        self.prefer = [tuple(sorted((to_padded(tuple(a), self.w), to_padded(tuple(b), self.w))))
                       for a, b in (prefer or [])]

    def _edge_rank(self) -> dict[int, int]:
        """Distance of each cell from the side the ordering prefers to clear first."""
        rank = {}
        rows, cols = self.rows, self.cols
        for r in range(rows):
            for c in range(cols):
                if self.gravity == "down":
                    d = rows - 1 - r
                elif self.gravity == "up":
                    d = r
                elif self.gravity == "left":
                    d = c
                elif self.gravity == "right":
                    d = cols - 1 - c
                else:
                    d = min(r, c, rows - 1 - r, cols - 1 - c)
                rank[to_padded((r, c), self.w)] = d
        return rank

    def moves(self, g: list[int]) -> list[Pair]:
        by_type: dict[int, list[int]] = {}
        for p in self.cells:
            v = g[p]
            if v > 0:
                by_type.setdefault(v, []).append(p)
        w = self.w
        out = []
        for t, tiles in by_type.items():
            n = len(tiles)
            for i in range(n):
                p = tiles[i]
                for j in range(i + 1, n):
                    if find_link(g, w, p, tiles[j]):
                        out.append((n, p, tiles[j]))
        if self.ordered:
            rank = self._rank
            out.sort(key=lambda m: (m[0] != 2, rank[m[1]] + rank[m[2]], m[1], m[2]))
        else:
            out.sort(key=lambda m: (m[1], m[2]))
        moves = [(p, q) for _, p, q in out]
        depth = len(self.path)
        if depth < len(self.prefer) and self.path == self.prefer[:depth] and self.prefer[depth] in moves:
            moves.remove(self.prefer[depth])
            moves.insert(0, self.prefer[depth])
        return moves

    def _tick(self) -> None:
        self.nodes += 1
        if self.budget.nodes is not None and self.nodes > self.budget.nodes:
            raise OutOfBudget("nodes")
        if self.deadline is not None and (self.nodes & 3) == 0 and time.perf_counter() > self.deadline:
            raise OutOfBudget("seconds")

    def search(self) -> list[tuple] | None:
        """The removal order as board cells ``((r1, c1), (r2, c2))``, each in the coordinates
        of the board at that moment, or ``None`` after an exhaustive search."""
        if self._solve(self.g):
            w = self.w
            return [(from_padded(p, w), from_padded(q, w)) for p, q in self.path]
        return None

    def _solve(self, g: list[int]) -> bool:
        self._tick()
        if not any(g[p] > 0 for p in self.cells):
            return True
        key = array("h", g).tobytes()
        if key in self.dead:
            self.tt_hits += 1
            return False
        for p, q in self.moves(g):
            child = g[:]
            child[p] = child[q] = 0
            if self.lines is not None:
                compact(child, self.lines)
            self.path.append((p, q))
            if self._solve(child):
                return True
            self.path.pop()
        self.dead.add(key)
        return False
