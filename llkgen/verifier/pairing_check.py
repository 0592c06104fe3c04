"""The flow pairing check: a sound proof, found with max-flow, that the tiles of some type can
never all be paired (gravity ``none`` only).

It may only ever *prove* a board unsolvable; it never claims a board solvable. Under gravity
tiles move, so a tile's cell says nothing about where it will be, and the check does not apply.
"""

from __future__ import annotations

import dataclasses
import time

from llkgen.game.board import Board, Cell, Gravity, Rules
from llkgen.game.grid import Grid, from_padded
from llkgen.game.lines import Lines
from llkgen.verifier.maxflow import INF, FlowNetwork
from llkgen.verifier.verdict import Limit, OutOfBudget, PairingProof


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

class PairingAnalysis:
    """Viable pairs of a gravity-free board, and the facts (``_Order``) that prune them.
    Tiles are named by their padded index (:mod:`llkgen.game.grid`). Past ``deadline`` (a
    ``time.perf_counter()`` value) any method raises ``OutOfBudget(Limit.SECONDS)``; the clock
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
            raise OutOfBudget(Limit.SECONDS)

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

    def matching_proof(self) -> PairingProof | None:
        for kind, ids in self.types.items():
            adj = {}
            for x in ids:
                self._tick()
                adj[x] = [p for p in ids if p != x and self.viable(x, p)]
            proof = _odd_component(kind, adj, self.w) or _hall(kind, adj, self.w)
            if proof:
                return dataclasses.replace(proof, facts=tuple(self.order.facts))
        return None

def pairing_check(board: Board, rules: Rules, *, deadline: float | None = None) -> PairingProof | None:
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
    if rules.gravity != Gravity.NONE:
        return None
    try:
        pairing = PairingAnalysis(board, rules, deadline)
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

def _odd_component(kind: int, adj: dict[int, list[int]], w: int) -> PairingProof | None:
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
            return PairingProof("odd-component", kind, _cells(comp, w), (),
                         f"{len(comp)} tile(s) of type {kind} can only ever pair among "
                         f"themselves: an odd number")
    return None

def _hall(kind: int, adj: dict[int, list[int]], w: int) -> PairingProof | None:
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
    return PairingProof("hall", kind, _cells(xs, w), _cells(ns, w),
                 f"{len(xs)} tiles of type {kind} can only ever pair with these "
                 f"{len(ns)} tile(s)")
