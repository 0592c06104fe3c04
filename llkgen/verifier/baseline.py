"""The benchmark's yardstick: a plain depth-first search, kept deliberately plain.

It tries every removable pair in board order (row-major), applies gravity with a fresh copy of
the cells at every node, finds removable pairs by testing every same-type pair with a
straightforward line-of-sight scan, and prunes only with a table of dead boards (exact board
bytes: a board from which every move was tried without clearing it; sound under any rules,
because the outcome of play depends on the board alone).

It is frozen on purpose. ``benchmarks/verify_bench.py`` reports the verifier against it in
the same run, so a speed-up means the same thing in every report: nothing in the verifier's
own representation (:mod:`llkgen.game.grid`) or its pruning reaches this module. It is still exact,
and ``tests/verifier/test_verify_oracle.py`` holds it to the brute-force oracle like every engine.
"""

from __future__ import annotations

import time
from array import array
from typing import Sequence

from llkgen.game.board import Board, Cell, Rules
from llkgen.game.gravity import compact
from llkgen.game.grid import Pair, from_padded, gravity_lines, padded
from llkgen.verifier.verdict import Budget, Limit, OutOfBudget


def _sees(g: Sequence[int], w: int, pa: int, pb: int) -> tuple[int, ...] | None:
    """Corners (padded indices) of *some* path of at most two turns joining ``pa`` and
    ``pb``, or None: the lines of sight of both ends scanned cell by cell, then every column
    (row) inside both reaches tried as the middle segment. This is the verifier's path test
    as it was before :mod:`llkgen.game.grid`, kept unchanged here so the yardstick stays put."""
    ra, ca = divmod(pa, w)
    rb, cb = divmod(pb, w)
    if ra == rb:
        lo, hi = (pa, pb) if pa < pb else (pb, pa)
        i = lo + 1
        while i < hi and not g[i]:
            i += 1
        if i == hi:
            return (pa, pb)
    elif ca == cb:
        lo, hi = (pa, pb) if pa < pb else (pb, pa)
        i = lo + w
        while i < hi and not g[i]:
            i += w
        if i == hi:
            return (pa, pb)
    # Line of sight of each end: first blocked cell in each direction.
    i = pa - 1
    while not g[i]:
        i -= 1
    aL = i + 1 - ra * w
    i = pa + 1
    while not g[i]:
        i += 1
    aR = i - 1 - ra * w
    i = pa - w
    while not g[i]:
        i -= w
    aU = i // w + 1
    i = pa + w
    while not g[i]:
        i += w
    aD = i // w - 1
    i = pb - 1
    while not g[i]:
        i -= 1
    bL = i + 1 - rb * w
    i = pb + 1
    while not g[i]:
        i += 1
    bR = i - 1 - rb * w
    i = pb - w
    while not g[i]:
        i -= w
    bU = i // w + 1
    i = pb + w
    while not g[i]:
        i += w
    bD = i // w - 1
    if ca != cb and ra != rb:
        if aL <= cb <= aR and bU <= ra <= bD:
            return (pa, ra * w + cb, pb)
        if aU <= rb <= aD and bL <= ca <= bR:
            return (pa, rb * w + ca, pb)
    if ra != rb:
        top, bottom = (ra, rb) if ra < rb else (rb, ra)
        for c in range(max(aL, bL), min(aR, bR) + 1):
            if c != ca and c != cb:
                i = (top + 1) * w + c
                end = bottom * w + c
                while i < end and not g[i]:
                    i += w
                if i >= end:
                    return (pa, ra * w + c, rb * w + c, pb)
    if ca != cb:
        left, right = (ca, cb) if ca < cb else (cb, ca)
        for r in range(max(aU, bU), min(aD, bD) + 1):
            if r != ra and r != rb:
                i = r * w + left + 1
                end = r * w + right
                while i < end and not g[i]:
                    i += 1
                if i >= end:
                    return (pa, r * w + ca, r * w + cb, pb)
    return None


class BaselineSearch:
    """``search()`` returns a removal order (cells, each as on the board at that moment) or
    ``None`` after an exhaustive search; a budget running out raises :class:`OutOfBudget`."""

    def __init__(self, board: Board, rules: Rules, budget: Budget, start: float | None = None):
        self.w = board.cols + 4
        self.g = padded(board, rules)
        self.lines = gravity_lines(rules.gravity, board.rows, board.cols)
        self.cells = [(r + 2) * self.w + c + 2 for r in range(board.rows) for c in range(board.cols)]
        self.dead: set[bytes] = set()
        self.nodes = 0
        self.budget = budget
        self.start = time.perf_counter() if start is None else start
        self.deadline = None if budget.seconds is None else self.start + budget.seconds
        self.path: list[Pair] = []

    def moves(self, g: list[int]) -> list[Pair]:
        by_type: dict[int, list[int]] = {}
        for p in self.cells:
            if g[p] > 0:
                by_type.setdefault(g[p], []).append(p)
        out = []
        for tiles in by_type.values():
            for i, p in enumerate(tiles):
                out += [(p, q) for q in tiles[i + 1:] if _sees(g, self.w, p, q)]
                # the seconds budget holds even on a 64x64 board with four types, where
                # one node tests half a million pairs
                if len(tiles) > 64 and self.deadline is not None and time.perf_counter() > self.deadline:
                    raise OutOfBudget(Limit.SECONDS)
        out.sort()
        return out

    def _tick(self) -> None:
        # The check comes before the count: a budget of N nodes that runs out reports N.
        if self.budget.nodes is not None and self.nodes >= self.budget.nodes:
            raise OutOfBudget(Limit.NODES)
        self.nodes += 1
        if self.deadline is not None and (self.nodes & 3) == 0 and time.perf_counter() > self.deadline:
            raise OutOfBudget(Limit.SECONDS)

    def search(self) -> list[tuple[Cell, Cell]] | None:
        if self._solve(self.g):
            return [(from_padded(p, self.w), from_padded(q, self.w)) for p, q in self.path]
        return None

    def _solve(self, g: list[int]) -> bool:
        self._tick()
        if not any(g[p] > 0 for p in self.cells):
            return True
        key = array("h", g).tobytes()
        if key in self.dead:
            return False
        for p, q in self.moves(g):
            child = g[:]
            child[p] = child[q] = 0
            compact(child, self.lines)
            self.path.append((p, q))
            if self._solve(child):
                return True
            self.path.pop()
        self.dead.add(key)
        return False
