"""Max-flow (Dinic) and the sound board analyses built on it.

Everything here may only ever *prove* a board unsolvable; it never claims a
board solvable.  The board analyses apply to ``gravity == "none"`` only: under
gravity tiles move, so a tile's cell says nothing about where it will be.
"""
from __future__ import annotations

import dataclasses
import time
from dataclasses import dataclass
from typing import NamedTuple

from llkgen.game.board import EMPTY, WALL, Board, Cell, Rules
from llkgen.game.grid import Grid, from_padded
from llkgen.game.lines import Lines
from llkgen.verifier.verdict import OutOfBudget

INF = 1 << 62
"""Capacity of an uncapacitated edge.  Finite cuts are far smaller (a board has
at most 64 * 64 tiles), so ``value >= INF`` means "no finite cut exists"."""


class FlowResult(NamedTuple):
    value: int
    source_side: tuple[int, ...]            # sorted: nodes reachable from s in the residual graph
    cut_edges: list[tuple[int, int, int]]   # (u, v, cap), source side -> sink side, by edge id
    flows: tuple[int, ...] = ()              # flow on each edge, indexed by edge id


class FlowNetwork:
    """Directed network on nodes ``0..n-1`` with integer capacities.

    Arcs live in flat parallel lists (``head``/``nxt``/``to``/``cap``); edge ``i``
    is arc ``2i`` and its residual twin is arc ``2i+1``, so ``to[a ^ 1]`` is the
    tail of arc ``a``.  ``max_flow`` works on a copy of the capacities, so one
    network can answer many ``(s, t)`` queries.
    """

    def __init__(self, n: int):
        if n < 0:
            raise ValueError(f"node count must be >= 0, found {n}")
        self.n = n
        self._head = [-1] * n
        self._nxt: list[int] = []
        self._to: list[int] = []
        self._cap: list[int] = []

    def add_edge(self, u: int, v: int, cap: int) -> int:
        """Add edge u -> v with capacity ``cap`` (int >= 0); return its edge id."""
        if not (0 <= u < self.n and 0 <= v < self.n):
            raise ValueError(f"edge ({u}, {v}) outside nodes 0..{self.n - 1}")
        if not isinstance(cap, int) or cap < 0:
            raise ValueError(f"capacity must be an int >= 0, found {cap!r}")
        for a, b, c in ((u, v, cap), (v, u, 0)):
            self._nxt.append(self._head[a])
            self._head[a] = len(self._to)
            self._to.append(b)
            self._cap.append(c)
        return len(self._to) // 2 - 1

    def max_flow(self, s: int, t: int) -> FlowResult:
        """Maximum s-t flow, with a minimum cut as its certificate.

        Guarantee: ``value == sum(cap for _, _, cap in cut_edges)``, ``s`` is in
        ``source_side`` and ``t`` is not, and every s-t path uses a cut edge.  A
        flow of ``value`` (``flows``) shows no smaller cut exists, the cut shows no
        larger flow exists: either fact can be re-checked without trusting this
        code.  Dinic: BFS level graph, then an iterative DFS blocking flow with
        current-arc pointers, so deep graphs cannot hit the recursion limit.
        """
        n, head, nxt, to = self.n, self._head, self._nxt, self._to
        if not (0 <= s < n and 0 <= t < n):
            raise ValueError(f"source {s} / sink {t} outside nodes 0..{n - 1}")
        if s == t:
            raise ValueError(f"source and sink must differ, both are {s}")
        cap = self._cap[:]
        value = 0
        while True:
            level = [-1] * n
            level[s] = 0
            queue = [s]
            for u in queue:
                a = head[u]
                while a != -1:
                    if cap[a] and level[to[a]] < 0:
                        level[to[a]] = level[u] + 1
                        queue.append(to[a])
                    a = nxt[a]
            if level[t] < 0:
                break          # level >= 0 now marks exactly the residual source side
            cur = head[:]
            path: list[int] = []
            u = s
            while True:
                if u == t:
                    push = min(cap[a] for a in path)
                    for a in path:
                        cap[a] -= push
                        cap[a ^ 1] += push
                    value += push
                    k = next(i for i, a in enumerate(path) if not cap[a])
                    u = to[path[k] ^ 1]
                    del path[k:]
                    continue
                a = cur[u]
                while a != -1 and not (cap[a] and level[to[a]] == level[u] + 1):
                    a = nxt[a]
                cur[u] = a
                if a != -1:
                    path.append(a)
                    u = to[a]
                elif u == s:
                    break
                else:          # dead end: retreat and skip the arc that led here
                    a = path.pop()
                    u = to[a ^ 1]
                    cur[u] = nxt[a]
        side = [x >= 0 for x in level]
        cut = [(to[a ^ 1], to[a], self._cap[a]) for a in range(0, len(to), 2)
               if self._cap[a] and side[to[a ^ 1]] and not side[to[a]]]
        flows = tuple(self._cap[a] - cap[a] for a in range(0, len(to), 2))
        return FlowResult(value, tuple(v for v in range(n) if side[v]), cut, flows)


# ------------------------------------------------------------ board analyses

def _require_tile(board: Board, cell: Cell, name: str) -> Cell:
    rc = tuple(cell) if isinstance(cell, (tuple, list)) else ()
    if len(rc) != 2 or not all(type(x) is int for x in rc) or not board.in_bounds(rc) \
            or board[rc] <= 0:
        raise ValueError(f"{name}: expected a tile cell on the {board.rows}x{board.cols} "
                         f"board, found {cell!r}")
    return rc


class _GridNetwork:
    """The board as a node-split flow network: cell i has nodes 2i (in) and 2i+1 (out).

    Cells are numbered on the board framed by the ring, ``(r + 1) * (cols + 2) + c + 1``.
    in -> out costs 1 for a tile and INF for an empty cell or (border) ring cell; walls,
    and the ring without border, get no arcs, so no path can use them.  Neighbours are
    joined out -> in with INF, so every finite cut consists of tiles only.
    """

    def __init__(self, board: Board, rules: Rules):
        self.w = w = board.cols + 2
        self.net = FlowNetwork(2 * w * (board.rows + 2))
        lo = -1 if rules.border else 0
        free = {}
        for r in range(lo, board.rows - lo):
            for c in range(lo, board.cols - lo):
                v = board[r, c] if board.in_bounds((r, c)) else EMPTY
                if v != WALL:
                    free[(r, c)] = v
        for (r, c), v in free.items():
            i = self.index((r, c))
            self.net.add_edge(2 * i, 2 * i + 1, 1 if v > 0 else INF)
            for n in ((r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1)):
                if n in free:
                    self.net.add_edge(2 * i + 1, 2 * self.index(n), INF)

    def index(self, cell: Cell) -> int:
        return (cell[0] + 1) * self.w + cell[1] + 1

    def bottleneck(self, a: Cell, b: Cell) -> tuple[Cell, ...] | None:
        res = self.net.max_flow(2 * self.index(a) + 1, 2 * self.index(b))
        if res.value >= INF:
            return ()
        if res.value == 0:
            return None
        cut = (divmod(u // 2, self.w) for u, _, _ in res.cut_edges)
        return tuple(sorted((r - 1, c - 1) for r, c in cut))


def bottleneck(board: Board, rules: Rules, a: Cell, b: Cell) -> tuple[Cell, ...] | None:
    """A smallest set of tiles at least one of which must be removed before ``a`` and ``b``
    can ever link (gravity ``none`` only; other gravities raise ``ValueError``).

    Returns the cells sorted row-major; ``()`` when a path of empty (or ring) cells already
    joins them (they may still need more than two turns); ``None`` when walls alone separate
    them, so no removals ever let them link.

    Soundness: any linking line is a 4-connected path whose inner cells are empty at that
    moment.  The cut meets every path from ``a`` to ``b`` through non-wall cells, and all its
    cells are tiles, so one of them must be gone by then; without gravity tiles never move,
    so "gone" means removed.  Minimal by max-flow/min-cut (Menger): that many tile-disjoint
    paths exist.  Of all minimum cuts it returns the one nearest ``a`` (deterministic).
    """
    if rules.gravity != "none":
        raise ValueError(f"bottleneck needs gravity 'none', found {rules.gravity!r}: tiles move")
    a, b = _require_tile(board, a, "a"), _require_tile(board, b, "b")
    if a == b:
        raise ValueError(f"a and b must differ, both are {a}")
    return _GridNetwork(board, rules).bottleneck(a, b)


@dataclass(frozen=True)
class Proof:
    """Why a board can never be cleared, checkable by hand.

    ``kind`` ``"odd-component"``: ``cells`` are tiles of ``type`` that can only ever pair
    among themselves, and there is an odd number of them.  ``kind`` ``"hall"``: the
    ``cells`` of ``type`` can only ever pair with ``partners``, which are fewer.  "Can ever
    pair" means a wall-free line exists that avoids every tile ``facts`` keep on the board
    at that step; each fact is ``("same-step", (x, p), ())`` or ``("before", ys, (x,))``
    (the tiles ys go strictly before x), in the order derived.
    """

    kind: str
    type: int
    cells: tuple[Cell, ...]
    partners: tuple[Cell, ...]
    reason: str
    facts: tuple[tuple[str, tuple[Cell, ...], tuple[Cell, ...]], ...] = ()

    def to_json(self) -> dict:
        return {"kind": self.kind, "type": self.type, "cells": [list(c) for c in self.cells],
                "partners": [list(c) for c in self.partners], "reason": self.reason,
                "facts": [[f, [list(c) for c in a], [list(c) for c in b]]
                          for f, a, b in self.facts]}


class _Order:
    """Facts true in every clearing sequence of a gravity-free board, over tile ids (padded
    indices, as in :mod:`llkgen.game.grid`).  ``group[x]``: bitmask of the tiles removed in x's
    step (x, or x and its partner).  ``after[x]``: tiles removed strictly later than x;
    transitively closed, the same for both tiles of a group, and always a union of whole
    groups.
    """

    def __init__(self, ids: list[int], w: int):
        self.group = {x: 1 << x for x in ids}
        self.after = {x: 0 for x in ids}
        self.w = w
        self.facts: list[tuple[str, tuple[Cell, ...], tuple[Cell, ...]]] = []

    def may_pair(self, x: int, p: int) -> bool:
        """Do the facts still allow x and p to go in one step?"""
        g, a = self.group, self.after
        if g[x] == g[p]:
            return True
        return (g[x] | g[p]).bit_count() == 2 and not (a[x] >> p & 1 or a[p] >> x & 1)

    def present(self, x: int, p: int) -> int:
        """Tiles still on the board when x and p are removed together (besides x and p:
        when ``may_pair``, their groups hold nothing else)."""
        return self.after[x] | self.after[p]

    def before(self, y: int, x: int) -> None:
        """Record that y's group goes strictly before x.  Callers pass y outside x's group
        and after-set (and ``same_step`` pairs that ``may_pair``), so no fact ever closes a
        cycle: a contradiction shows up instead as a tile with no viable partner."""
        gy, gain = self.group[y], self.group[x] | self.after[x]
        self.facts.append(("before", _cells(_bits(gy), self.w), (from_padded(x, self.w),)))
        for z in self.after:
            if self.group[z] & gy or self.after[z] & gy:
                self.after[z] |= gain

    def essential(self, lines: list[int]) -> int:
        """Tiles whose step meets every line (with the tile sharing their step)."""
        out = 0
        for t in _bits(min(lines, key=int.bit_count)):
            out |= self.group[t]
        for m in lines:
            if not out:
                break
            for t in _bits(out):
                if not self.group[t] & m:
                    out &= ~self.group[t]
        return out

    def same_step(self, x: int, p: int) -> None:
        both, later = self.group[x] | self.group[p], self.after[x] | self.after[p]
        self.facts.append(("same-step", _cells((x, p), self.w), ()))
        for z in self.after:
            if both >> z & 1:
                self.group[z], self.after[z] = both, later
            elif self.after[z] & both:
                self.after[z] |= both | later


class _Pairing:
    """Viable pairs of a gravity-free board, and the facts (``_Order``) that prune them.
    Tiles are named by their padded index (:mod:`llkgen.game.grid`). Past ``deadline`` (a
    ``time.perf_counter()`` value) any method raises ``OutOfBudget("seconds")``; the clock
    is read once per pair, per tile and per type, each a few milliseconds of work at most
    even on a 64x64 board."""

    def __init__(self, board: Board, rules: Rules, deadline: float | None = None):
        self.deadline = deadline
        grid = Grid(board, rules)
        lines, self.w = Lines(grid), grid.w
        self.types = {kind: [grid.pos(c) for c in cells] for kind, cells in board.types().items()}
        self.shapes: dict[tuple[int, int], list[int]] = {}
        for ids in self.types.values():
            for i, x in enumerate(ids):
                for p in ids[i + 1:]:
                    self._tick()
                    self.shapes[x, p] = lines.tile_sets(x, p)
        self.order = _Order([x for ids in self.types.values() for x in ids], self.w)

    def _tick(self) -> None:
        if self.deadline is not None and time.perf_counter() > self.deadline:
            raise OutOfBudget("seconds")

    def viable(self, x: int, p: int) -> list[int]:
        """The lines x..p the facts leave usable, as tile bitmasks ([] if x, p cannot pair)."""
        if not self.order.may_pair(x, p):
            return []
        present = self.order.present(x, p)
        return [m for m in self.shapes[min(x, p), max(x, p)] if not m & present]

    def derive(self) -> None:
        """Add facts until none is new (each adds a bit to a finite set, so this ends)."""
        order, changed = self.order, True
        while changed:
            changed = False
            for ids in self.types.values():
                for x in ids:
                    self._tick()
                    options = [(p, ls) for p in ids if p != x for ls in [self.viable(x, p)] if ls]
                    if not options:
                        continue                    # reported by the matching step
                    if len(options) == 1 and order.group[x] != order.group[options[0][0]]:
                        order.same_step(x, options[0][0])   # leaves its lines usable
                        changed = True
                    essential = order.essential([m for _, ls in options for m in ls])
                    for y in _bits(essential):
                        if not order.after[y] >> x & 1:
                            order.before(y, x)
                            changed = True

    def matching_proof(self) -> Proof | None:
        for kind, ids in self.types.items():
            adj = {}
            for x in ids:
                self._tick()
                adj[x] = [p for p in ids if p != x and self.viable(x, p)]
            proof = _odd_component(kind, adj, self.w) or _hall(kind, adj, self.w)
            if proof:
                return dataclasses.replace(proof, facts=tuple(self.order.facts))
        return None


def pairing_check(board: Board, rules: Rules, *, deadline: float | None = None) -> Proof | None:
    """A proof that ``board`` can never be cleared, or ``None`` (which proves nothing).
    Gravity other than ``none``: always ``None`` (not applicable: tiles move).

    ``deadline`` is a ``time.perf_counter()`` value: past it the check stops and returns
    ``None``. That is sound, because only a proof is ever trusted and this is a pruning stage:
    stopping early just proves less. The clock is read after every pair and every tile
    examined, so the overrun is milliseconds (a pair's lines on a 64x64 board take well under
    one).

    Soundness.  Fix any clearing sequence.  Tiles never move, so a cell that starts as a
    tile is empty exactly after that tile's step, and each step removes one pair.  When x
    goes with partner p along a line L, every tile inside L went at an earlier step and L
    avoids walls.  (1) Facts: call (x, p) *viable* if the facts so far let them share a
    step and some wall-free line between them avoids every tile the facts keep on the
    board at that step.  The pair really used is viable, so: if x has one viable partner,
    they share a step; a tile meeting every viable line of every viable partner of x (with
    the tile it shares its step with) goes strictly before x.  By induction each fact holds
    in every clearing sequence.  (2) The pairs used form, per type, a perfect matching
    within the viable pairs.  None exists if a connected component of viable pairs has an
    odd number of tiles, or if the max flow on the bipartite double cover is below the tile
    count: its min cut gives a set X of tiles with fewer viable partners N(X) than |X|,
    while a matching maps X one-to-one into N(X).  Missed: graphs with a fractional but no
    perfect matching and only even components (one tile joined to three triangles: ten
    tiles of one type).  A cycle of facts cannot arise (see ``_Order``); a cyclic
    dependency shows up as a tile without viable partners instead.
    """
    if rules.gravity != "none":
        return None
    try:
        pairing = _Pairing(board, rules, deadline)
        pairing.derive()
        return pairing.matching_proof()
    except OutOfBudget:
        return None


def _bits(mask: int) -> list[int]:
    out = []
    while mask:
        out.append((mask & -mask).bit_length() - 1)
        mask &= mask - 1
    return out


def _cells(ids, w: int) -> tuple[Cell, ...]:
    return tuple(sorted(from_padded(i, w) for i in ids))


def _odd_component(kind: int, adj: dict[int, list[int]], w: int) -> Proof | None:
    seen: set[int] = set()
    for start in adj:
        if start in seen:
            continue
        comp = [start]
        seen.add(start)
        for u in comp:
            for v in adj[u]:
                if v not in seen:
                    seen.add(v)
                    comp.append(v)
        if len(comp) % 2:
            return Proof("odd-component", kind, _cells(comp, w), (),
                         f"{len(comp)} tile(s) of type {kind} can only ever pair among "
                         f"themselves: an odd number")
    return None


def _hall(kind: int, adj: dict[int, list[int]], w: int) -> Proof | None:
    ids = list(adj)
    n = len(ids)
    pos = {x: i for i, x in enumerate(ids)}
    net = FlowNetwork(2 * n + 2)                    # 0 source, 1 sink, 2+i left, 2+n+i right
    for i, x in enumerate(ids):
        net.add_edge(0, 2 + i, 1)
        net.add_edge(2 + n + i, 1, 1)
        for p in adj[x]:
            net.add_edge(2 + i, 2 + n + pos[p], INF)  # INF: no middle arc can be cut
    res = net.max_flow(0, 1)
    if res.value == n:
        return None
    side = res.source_side
    xs = [ids[v - 2] for v in side if 2 <= v < 2 + n]
    ns = [ids[v - 2 - n] for v in side if v >= 2 + n]
    return Proof("hall", kind, _cells(xs, w), _cells(ns, w),
                 f"{len(xs)} tiles of type {kind} can only ever pair with these "
                 f"{len(ns)} tile(s)")


def explain_locked(board: Board, rules: Rules, locked_cells, *,
                   deadline: float | None = None) -> dict:
    """For a designer: what keeps each locked tile from linking, as JSON-ready data.

    For every locked tile, the partner of its type with the smallest ``bottleneck`` (ties:
    row-major) and that cut; per type, the union of those cuts as ``blockers``.  A cut is
    ``[]`` when the pair is already joined by free cells and ``null`` when walls separate it.
    ``proof`` is ``pairing_check``'s proof, if any.  Under gravity nothing is computed and
    ``applicable`` is false.  Raises ``ValueError`` if a locked cell is not a tile.

    ``complete`` is true when every locked tile was explained and the pairing check ran to
    the end.  Past ``deadline`` (a ``time.perf_counter()`` value) it stops and returns what it
    has: the types whose every locked tile was explained, ``proof`` null, ``complete`` false
    and ``reason`` saying so.  The clock is read before each cut (one max-flow: about 0.1 s
    on a 64x64 board) and throughout the pairing check.
    """
    if rules.gravity != "none":
        return {"applicable": False, "complete": True,
                "reason": f"gravity {rules.gravity!r} moves tiles", "types": [], "proof": None}
    locked = sorted({_require_tile(board, cell, "locked cell") for cell in locked_cells})
    kinds = sorted({board[cell] for cell in locked})

    def stopped(done: list) -> dict:
        return {"applicable": True, "complete": False,
                "reason": f"time budget ran out: {len(done)} of {len(kinds)} locked types "
                          "explained, no pairing proof", "types": done, "proof": None}

    def late() -> bool:
        return deadline is not None and time.perf_counter() > deadline

    if late():
        return stopped([])
    grid = _GridNetwork(board, rules)
    by_type = board.types()
    out: list[dict] = []
    for kind in kinds:
        pairs: list[dict] = []
        blockers: set[Cell] = set()
        for a in (cell for cell in locked if board[cell] == kind):
            options = []
            for b in by_type[kind]:
                if b != a:
                    if late():
                        return stopped(out)
                    options.append((grid.bottleneck(a, b), b))
            cut, b = min(options, key=lambda o: (o[0] is None, len(o[0] or ()), o[0] or (), o[1]))
            blockers.update(cut or ())
            pairs.append({"a": list(a), "b": list(b),
                          "bottleneck": None if cut is None else [list(c) for c in cut]})
        out.append({"type": kind, "blockers": [list(c) for c in sorted(blockers)], "pairs": pairs})
    try:
        pairing = _Pairing(board, rules, deadline)
        pairing.derive()
        proof = pairing.matching_proof()
    except OutOfBudget:
        return {**stopped(out), "reason": "time budget ran out during the pairing check: "
                                          "every locked type explained, no pairing proof"}
    return {"applicable": True, "complete": True, "reason": "", "types": out,
            "proof": None if proof is None else proof.to_json()}
