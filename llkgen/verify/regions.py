"""Union-find over the empty regions of a padded board, with undo.

Two tiles can only link if they are orthogonal neighbours or both touch the same connected
region of empty cells: the interior cells of any linking path are empty and connected, the
first touches one tile and the last the other. With ``border`` on, the outer ring is empty
and so belongs to a region. This gives a constant-time filter in front of the path test.

The search only ever *empties* cells (no gravity), so regions only merge: opening a cell is a
handful of unions. We use union by size without path compression, so every union is undone
by popping a log entry when the search backtracks; finds stay O(log n). Rebuilding the
labelling at every node would cost a pass over every cell instead.
"""

from __future__ import annotations

from typing import Sequence


class Regions:
    def __init__(self, g: Sequence[int], w: int):
        n = len(g)
        self.w = w
        self.parent = list(range(n))
        self.size = [1] * n
        self.log: list[tuple[int, int]] = []
        for p in range(n):
            if g[p] == 0:
                if g[p - 1] == 0:
                    self._union(p, p - 1)
                if g[p - w] == 0:
                    self._union(p, p - w)
        self.log.clear()

    def copy(self) -> "Regions":
        """An independent copy with an empty undo log."""
        other = Regions.__new__(Regions)
        other.w = self.w
        other.parent = list(self.parent)
        other.size = list(self.size)
        other.log = []
        return other

    def find(self, p: int) -> int:
        parent = self.parent
        while parent[p] != p:
            p = parent[p]
        return p

    def _union(self, p: int, q: int) -> None:
        p, q = self.find(p), self.find(q)
        if p == q:
            return
        if self.size[p] < self.size[q]:
            p, q = q, p
        self.parent[q] = p
        self.size[p] += self.size[q]
        self.log.append((p, q))

    def open(self, g: Sequence[int], p: int) -> None:
        """Cell ``p`` has just become empty in ``g``: merge it with its empty neighbours."""
        w = self.w
        for q in (p - 1, p + 1, p - w, p + w):
            if g[q] == 0:
                self._union(p, q)

    def mark(self) -> int:
        return len(self.log)

    def undo(self, mark: int) -> None:
        parent, size, log = self.parent, self.size, self.log
        while len(log) > mark:
            p, q = log.pop()
            parent[q] = q
            size[p] -= size[q]

    def touching(self, g: Sequence[int], p: int) -> set[int]:
        """Roots of the empty regions orthogonally adjacent to cell ``p``."""
        w = self.w
        return {self.find(q) for q in (p - 1, p + 1, p - w, p + w) if g[q] == 0}

    def may_link(self, g: Sequence[int], p: int, q: int) -> bool:
        """False only when no path can join ``p`` and ``q`` (a sound filter)."""
        d = abs(p - q)
        if d == 1 or d == self.w:
            return True
        rp = self.touching(g, p)
        return bool(rp) and not rp.isdisjoint(self.touching(g, q))
