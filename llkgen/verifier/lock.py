"""The lock test: a sound proof that some tiles can never be removed (no gravity only).

Relaxation: repeatedly delete any single tile that has a legal path, on the current relaxed
board, to the cell of a tile it may pair with, whether that tile is still there or already
deleted. When nothing more can be deleted, the tiles left are *locked*.

Why it is sound: without gravity tiles never move, and emptying cells never blocks a path.
Take any real sequence of moves and assume (induction) that every cell it has emptied so far
is also empty on the relaxed fixpoint board. The next real move removes ``a`` and ``b`` along a
path whose interior cells are empty in the real board, hence in the relaxed one; so on the
relaxed board ``a`` links to ``b``'s cell and ``b`` to ``a``'s, and both are deleted by the
fixpoint. So every tile real play can ever remove is deleted by the relaxation, and a tile the
relaxation keeps can never be removed: the board (or the branch of the search with those
partner constraints) is unsolvable.

The fixpoint is unique: deleting a tile only empties a cell, which can only help other tiles,
so the order of deletions changes the cost, never the result. Two things make it cheap:

* A ``hint``: the deletion order of an earlier run on a board with a subset of this board's
  empty cells and a superset of its partner lists (the parent node in the pairing search),
  each step with the path it took. Its steps are taken in order, and a step whose partner is
  still allowed and whose path avoids every tile not yet deleted needs no link test at all
  (:meth:`Relaxation.replay` argues why): on a child node almost every step holds, so the
  fixpoint costs a pass of bit tests instead of repeated passes of path tests.
* The link test of :mod:`llkgen.game.grid`, kept current on the relaxed board by
  :meth:`~llkgen.game.grid.Grid.clear` at a constant cost per deletion. Before the bitboards, a
  union-find over the empty regions filtered out pairs that shared no region, because the
  path test was the expensive part. The filter rejected 60% of same-type pairs on 10x16
  boards with 40 cells emptied, but one filter query cost 2.8x a bitboard link test (both
  timed in alternating rounds), so a filter could no longer pay for itself: it was removed.

**Resuming.** Because the fixpoint is unique, a relaxation stopped early -- some tiles held
back -- can later be continued under different partner lists, as long as every deletion made
so far is still allowed: the result is the fixpoint of the new lists. Failed-pairing probing
uses this (:class:`Relaxation`): it relaxes once with one type's tiles held back, then
resumes from there once per pairing of that type.

``partners`` restricts whom a tile may pair with. At the root every other tile of its type is
allowed; inside the pairing search a tile whose type's pairing is fixed may only use its fixed
partner, which makes the test stronger while staying sound for that branch.
"""

from __future__ import annotations

import time
from functools import lru_cache
from typing import Any, Iterable, Mapping, Sequence

from llkgen.game.board import Gravity
from llkgen.game.grid import Grid, column_masks, crossing, run
from llkgen.verifier.verdict import Limit, OutOfBudget

#: One deletion: the tile, the partner whose cell it linked to, and the cells strictly inside
#: that path as a bitmask over padded indices (0 for neighbours). A step is built once, when
#: its path is found, and the same object is then passed down as a hint from node to node: the
#: loops that replay hints hold steps as :data:`StepObject`, a tuple object, because the
#: compiled core unpacks a ``tuple[int, int, int]`` into machine integers and would build a new
#: tuple, and new integer objects for its positions, every time it stored the step again.
Step = tuple[int, int, int]
#: A step as those loops hold it.
StepObject = tuple[int, ...]

#: For each padded position, the tiles a tile there may pair with (empty for any other cell):
#: a list indexed by position, which the compiled core reads without building an integer
#: object for the key, as a dict look-up would.
PartnerTable = list[list[int]]
#: The entry of a cell without partners (shared: never changed).
NO_PARTNERS: list[int] = []


def interior(cols: Sequence[int], w: int, p: int, q: int, across: bool, k: int) -> int:
    """The cells strictly inside the path from ``p`` to ``q`` whose middle segment is column
    ``k`` (``across``: ``p -> (rp, k) -> (rq, k) -> q``) or row ``k`` (``p -> (k, cp) -> (k, cq)
    -> q``), as a bitmask over padded indices; ``cols`` is :func:`column_masks` of the grid."""
    rp, cp = divmod(p, w)
    rq, cq = divmod(q, w)
    if across:
        lo, hi = (rp, rq) if rp < rq else (rq, rp)
        inside = (((2 << abs(cp - k)) - 1) << (rp * w + min(cp, k))
                  | ((2 << abs(cq - k)) - 1) << (rq * w + min(cq, k))
                  | cols[k] & ((1 << (hi * w + w)) - (1 << (lo * w))))
    else:
        lo, hi = (cp, cq) if cp < cq else (cq, cp)
        inside = (cols[cp] & ((1 << (max(rp, k) * w + w)) - (1 << (min(rp, k) * w)))
                  | cols[cq] & ((1 << (max(rq, k) * w + w)) - (1 << (min(rq, k) * w)))
                  | ((2 << (hi - lo)) - 1) << (k * w + lo))
    return inside & ~((1 << p) | (1 << q))


#: How many interiors :func:`path_cache` keeps for one board size before it starts afresh.
MAX_CACHED_PATHS = 1 << 14


@lru_cache(maxsize=4)
def path_cache(rows: int, cols: int) -> dict[int, int]:
    """Interiors already built (:func:`interior`) for boards of this size, by
    :meth:`Relaxation.path_key`. A relaxation finds the same few paths over and over (on the
    seeded 10x16 and 18x8 boards of ``benchmarks/instructions_bench.py``, 334,000 paths found,
    10,600 of them distinct), and an interior is a dozen operations on integers of some
    hundred bits, each a new object, where a look-up is one operation on a small one."""
    return {}


class Relaxation:
    """A relaxed board being emptied: a copy of the grid, the deletion order so far, and the
    tiles not deleted yet. :meth:`replay` and :meth:`settle` only ever delete tiles that link
    to an allowed partner's cell, so any prefix of their work is a valid start for another
    run under different partners (see the module docstring)."""

    def __init__(self, grid: Grid, deadline: float | None = None, *, copy: bool = True):
        self.grid = grid.copy() if copy else grid
        self.order: list[Step] = []
        self.deadline = deadline
        self.attempts = 0
        # Deletions are written to ``g`` at once but reach the run tables only when a link
        # test needs them (``_flush``): a replayed hint needs few.
        self.pending: list[int] = []
        #: the padded cells of each column, for the path masks (:meth:`path`)
        self.cols = column_masks(self.grid.rows, self.grid.cols)
        self.paths = path_cache(self.grid.rows, self.grid.cols)
        self.size = len(self.grid.g)
        self.span = 2 * max(self.grid.w, self.size // self.grid.w)

    def _interior(self, p: int, q: int, across: int, k: int) -> int:
        """:func:`interior`, through :func:`path_cache`."""
        key = (p * self.size + q) * self.span + k * 2 + across
        paths = self.paths
        inside = paths.get(key, -1)
        if inside < 0:
            inside = interior(self.cols, self.grid.w, p, q, across == 1, k)
            if len(paths) >= MAX_CACHED_PATHS:
                paths.clear()
            paths[key] = inside
        return inside

    def copy(self) -> "Relaxation":
        self._flush()
        other = Relaxation(self.grid.copy(), self.deadline, copy=False)
        other.order = list(self.order)
        return other

    def _flush(self) -> None:
        """Apply the pending deletions to the run tables (:meth:`Grid._opened` written out:
        a replay may flush a hundred cells at once). Table entries are updated as ``t[i] =
        t[i] | m``, never ``t[i] |= m``: the compiled core does the second with boxed
        integers and Python's generic operator."""
        rg = self.grid
        R, C, H, V, w = rg.R, rg.C, rg.H, rg.V, rg.w
        rowbits, colbits = rg.rowbits, rg.colbits
        for p in self.pending:
            r, c = R[p], C[p]
            rowbits[r] = rowbits[r] | 1 << c
            colbits[c] = colbits[c] | 1 << r
            m = H[p]
            lo = p - c + (m & -m).bit_length() - 2
            hi = p - c + m.bit_length()
            H[lo] = H[lo] | m
            H[hi] = H[hi] | m
            m = V[p]
            lo = ((m & -m).bit_length() - 2) * w + c
            hi = m.bit_length() * w + c
            V[lo] = V[lo] | m
            V[hi] = V[hi] | m
        self.pending.clear()

    def path(self, p: int, q: int) -> int | None:
        """The interior of some path from tile ``p`` to cell ``q`` (a tile or empty) as a
        bitmask over padded indices, or None. The tables must be flushed."""
        rg = self.grid
        w = rg.w
        d = p - q
        if d == 1 or d == -1 or d == w or d == -w:
            return 0
        R, C = rg.R, rg.C
        rp, rq, cp, cq = R[p], R[q], C[p], C[q]
        if rg.g[q]:
            hq, vq = rg.H[q], rg.V[q]
        else:
            hq, vq = run(rg.rowbits[rq], cq), run(rg.colbits[cq], rq)
        found = crossing(rg.rowbits, rg.colbits, rp, cp, rq, cq, rg.H[p], hq, rg.V[p], vq)
        if found is None:
            return None
        across, m = found
        return self._interior(p, q, 1 if across else 0, (m & -m).bit_length() - 1)

    def replay(self, hint: Sequence[Step], alive: Sequence[int], partners: PartnerTable) -> list[int]:
        """Delete tiles of ``alive`` following ``hint``, an earlier deletion order on a board
        with a subset of this board's empty cells and partner lists that may have allowed
        more. Returns the tiles of the hint it could not delete, in hint order, at a fixpoint:
        each was tested last on the final board.

        Why a recorded step can be taken untested: it found its path on a board whose empty
        cells were, at that point, a subset of ours, except for the tiles the hint had deleted
        before it that are still here (``missed``). So a step whose partner is still allowed
        and whose path avoids ``missed`` is valid as recorded.

        The first pass takes every such step and only *defers* the others, with a bit test
        and no link test: steps whose path is blocked, and steps whose partner is no longer
        allowed. Then the deferred steps are unwound in hint order, pass after pass: most
        find their recorded path clear again once the few re-partnered tiles before them have
        gone, and only the rest are tested. Measured on the node lock tests and probes of
        seeded 10x16 boards, testing each step when it came up cost several times the link
        tests."""
        g = self.grid.g
        taken, waiting, missed = _first_pass(hint, _members(len(g), alive), g, partners)
        pending = self.pending
        order: list[Any] = self.order
        for step in taken:
            p = step[0]
            g[p] = 0
            pending.append(p)
            order.append(step)
        return self._unwind(waiting, missed, partners)

    def _unwind(self, waiting: list[StepObject], missed: int, partners: PartnerTable) -> list[int]:
        """Delete the tiles of ``waiting`` until none more can go; return those left, in
        order. Each entry is a step: its tile, and the partner and interior it was recorded
        with, or partner -1. A step whose recorded interior avoids ``missed`` (the tiles of
        ``waiting`` still here, or 0 when no entry has a recorded path) is taken as recorded
        (:meth:`replay` says why); every other tile is tested against each of its partners.
        Every 64 tests it reads the clock: on a 64x64 board a single pass can take seconds.

        The link test is :meth:`path` written out, and the table updates
        :meth:`Grid._opened <llkgen.game.grid.Grid._opened>`: this is the relaxation's
        innermost loop. Most tests fail (six in seven on seeded 10x16 and 18x8 boards), and a
        failing test is a few operations on small integers, with no call and no tuple, and no
        run computed for an empty partner cell that the tile's own row run cannot meet. Only
        a found path builds its interior (:meth:`_interior`)."""
        if not waiting:
            return []
        self._flush()
        rg = self.grid
        g, H, V, R, C = rg.g, rg.H, rg.V, rg.R, rg.C
        rowbits, colbits, w = rg.rowbits, rg.colbits, rg.w
        order: list[Any] = self.order
        deadline = self.deadline
        attempts = self.attempts
        paths, size, span = self.paths, self.size, self.span
        changed = True
        while waiting and changed:
            changed = False
            keep: list[StepObject] = []
            for step in waiting:
                p = step[0]
                rp, cp = R[p], C[p]
                if step[1] >= 0 and not step[2] & missed:
                    found: StepObject | None = step
                else:
                    qs = partners[p]
                    if not qs:
                        keep.append(step)
                        continue
                    attempts += 1
                    if deadline is not None and not attempts & 63 and time.perf_counter() > deadline:
                        self.attempts = attempts
                        raise OutOfBudget(Limit.SECONDS)
                    hp, vp = H[p], V[p]
                    found = None
                    for q in qs:
                        d = p - q
                        if d == 1 or d == -1 or d == w or d == -w:
                            found = (p, q, 0)
                            break
                        rq, cq = R[q], C[q]
                        # horizontal-vertical-horizontal: a middle column both ends reach in
                        # their rows, clear in every row between (grid.crossing, written
                        # out). The run through an empty end lies inside its row's passable
                        # cells, so those are met with the tile's first, and the run
                        # (grid.run, written out) only computed when they meet.
                        tile = g[q]
                        if tile:
                            m = hp & H[q]
                        else:
                            x = rowbits[rq] | 1 << cq
                            m = hp & x
                            if m:
                                y = x >> cq
                                y = (~y & (y + 1)).bit_length() - 1  # the run's cells from cq up
                                m &= (1 << (cq + y)) - (1 << (~x & ((1 << cq) - 1)).bit_length())
                        if m:
                            if rp == rq:
                                m &= (2 << max(cp, cq)) - (1 << min(cp, cq))
                                lo = hi = rp
                            elif rp < rq:
                                lo, hi = rp + 1, rq
                            else:
                                lo, hi = rq + 1, rp
                            while m and lo < hi:
                                m &= rowbits[lo]
                                lo += 1
                            if m:
                                k = ((m & -m).bit_length() - 1) * 2 + 1
                                inside = paths.get((p * size + q) * span + k, -1)
                                if inside < 0:
                                    inside = self._interior(p, q, 1, k >> 1)
                                found = (p, q, inside)
                                break
                        # vertical-horizontal-vertical, the same with columns
                        if tile:
                            m = vp & V[q]
                        else:
                            x = colbits[cq] | 1 << rq
                            m = vp & x
                            if m:
                                y = x >> rq
                                y = (~y & (y + 1)).bit_length() - 1
                                m &= (1 << (rq + y)) - (1 << (~x & ((1 << rq) - 1)).bit_length())
                        if m:
                            if cp == cq:
                                m &= (2 << max(rp, rq)) - (1 << min(rp, rq))
                                lo = hi = cp
                            elif cp < cq:
                                lo, hi = cp + 1, cq
                            else:
                                lo, hi = cq + 1, cp
                            while m and lo < hi:
                                m &= colbits[lo]
                                lo += 1
                            if m:
                                k = ((m & -m).bit_length() - 1) * 2
                                inside = paths.get((p * size + q) * span + k, -1)
                                if inside < 0:
                                    inside = self._interior(p, q, 0, k >> 1)
                                found = (p, q, inside)
                                break
                    if found is None:
                        keep.append(step)
                        continue
                # delete p: Grid._opened written out (see _flush)
                g[p] = 0
                rowbits[rp] = rowbits[rp] | 1 << cp
                colbits[cp] = colbits[cp] | 1 << rp
                m = H[p]
                lo = p - cp + (m & -m).bit_length() - 2
                hi = p - cp + m.bit_length()
                H[lo] = H[lo] | m
                H[hi] = H[hi] | m
                m = V[p]
                lo = ((m & -m).bit_length() - 2) * w + cp
                hi = m.bit_length() * w + cp
                V[lo] = V[lo] | m
                V[hi] = V[hi] | m
                order.append(found)
                if missed:
                    missed ^= 1 << p
                changed = True
            waiting = keep
        self.attempts = attempts
        return [step[0] for step in waiting]

    def settle(self, tiles: Sequence[int], partners: PartnerTable) -> list[int]:
        """Delete tiles of ``tiles`` until none more can go; return those left, in order."""
        g = self.grid.g
        return self._unwind([(p, -1, 0) for p in tiles if g[p]], 0, partners)


def _members(size: int, tiles: Iterable[int]) -> list[bool]:
    """Membership of ``tiles`` as a list indexed by padded position."""
    out = [False] * size
    for p in tiles:
        out[p] = True
    return out


def _first_pass(hint: Sequence[StepObject], live: list[bool], g: list[int],
                partners: PartnerTable) -> tuple[list[StepObject], list[StepObject], int]:
    """The first pass of :meth:`Relaxation.replay` over a board ``g`` (not changed): the steps
    of live tiles on ``g`` it takes as recorded, the steps it defers (a re-partnered tile's
    with partner -1), and the deferred tiles as a bitmask."""
    taken: list[StepObject] = []
    waiting: list[StepObject] = []
    missed = 0
    # The partner is looked up as the object the step holds (Any): as an int, the compiled
    # core would build a new integer object for every look-up.
    steps: Sequence[tuple[Any, ...]] = hint
    for step in steps:
        p: int = step[0]
        if not g[p]:
            continue
        if not live[p]:
            missed |= 1 << p  # a tile not in alive stays: no later recorded path may cross it
            continue
        if step[1] in partners[p]:
            if not missed or not step[2] & missed:
                taken.append(step)
                continue
        else:
            step = (p, -1, 0)  # no recorded path for its new partners
        waiting.append(step)
        missed |= 1 << p
    return taken, waiting, missed


def partner_table(size: int, partners: Mapping[int, Sequence[int]]) -> PartnerTable:
    """``partners`` as a :data:`PartnerTable` over ``size`` padded positions."""
    table: PartnerTable = [NO_PARTNERS] * size
    for p, qs in partners.items():
        table[p] = list(qs)
    return table


def locked_tiles(grid: Grid, alive: Sequence[int], partners: Mapping[int, Sequence[int]] | PartnerTable,
                 hint: Sequence[Step] = (), order: list[Step] | None = None,
                 deadline: float | None = None) -> list[int]:
    """Positions of the tiles the relaxation cannot delete (an empty list proves nothing).

    ``partners`` gives each tile of ``alive`` the tiles it may pair with: a mapping, or a
    :data:`PartnerTable`. ``grid`` is not changed. ``hint`` is an earlier deletion order (see
    the module docstring); it changes the cost only, never the result. ``order``, if given,
    receives this run's deletion order. Past ``deadline`` (a ``time.perf_counter()`` value) it
    raises ``OutOfBudget(Limit.SECONDS)``. The relaxation is sound only without gravity, so a
    ``grid`` under gravity raises ``ValueError`` (checked here, once per call, not in the
    loops)."""
    _need_no_gravity(grid)
    table = partners if isinstance(partners, list) else partner_table(len(grid.g), partners)
    if hint:
        live = _members(len(grid.g), alive)
        steps: Sequence[tuple[Any, ...]] = hint  # as objects: see Step and _first_pass
        g = grid.g
        todo = sum(1 for p in alive if g[p])
        for step in steps:
            p: int = step[0]
            if g[p]:
                if not live[p] or step[1] not in table[p]:
                    todo = -1
                    break
                todo -= 1
        if not todo:
            # Every tile of alive has a step in the hint, every step's partner is still
            # allowed and no step deleted a tile outside alive, so the whole hint replays
            # (see Relaxation.replay): the common case of a child whose move left every
            # tile's partner alive. (A hint that left tiles, or deleted one that must stay,
            # goes through the replay below, which handles both.)
            if order is not None:
                out: list[Any] = order
                for step in steps:
                    if live[step[0]]:
                        out.append(step)
            return []
    rel = Relaxation(grid, deadline)
    if hint:
        stuck = rel.replay(hint, alive, table)
        rest = [p for p in alive if grid.g[p] and rel.grid.g[p]]
        # The replay left its own tiles at a fixpoint; tiles the hint never saw still need
        # settling, and if any of them goes, the stuck ones get another chance there.
        left = rel.settle(rest, table) if len(rest) > len(stuck) else stuck
    else:
        left = rel.settle(alive, table)
    if order is not None:
        order.extend(rel.order)
    return left


class OrderWalk:
    """A complete deletion order of a grid, walked once, to vet many partner changes at once.

    Failed-pairing probing asks, for each pairing of each type, whether the lock test with
    that type held to that pairing deletes every tile. The node's own lock test already gave
    a complete deletion ``order`` under looser partner lists. :meth:`passes` answers "yes,
    certainly" for most pairings without running the lock test, by building a valid deletion
    order under the new partners from ``order``:

    * a tile whose new partner's cell it links to just before ``order`` deleted it takes that
      link at that step instead (:attr:`linked`, with the path found);
    * any other re-partnered tile is *deferred*: it stays until every other tile has gone,
      which is allowed only if no later step of ``order`` crossed it (:attr:`crossed`) and no
      swapped-in path above crosses it; at the end the deferred tiles are deleted among
      themselves on the final board (:meth:`passes` tries that).

    Every other step keeps its tile, partner and path, and finds the same empty cells as in
    ``order``, because the only tiles still present that ``order`` had deleted are deferred
    ones, which those paths avoid. So when :meth:`passes` says yes, the lock test under the new
    partners deletes every tile (its fixpoint is unique). When it says no, nothing is known:
    the caller runs the lock test."""

    def __init__(self, grid: Grid, order: Sequence[Step], wanted: Mapping[int, Sequence[int]]):
        self.values = {p: grid.g[p] for p in wanted}
        rel = Relaxation(grid)
        g = rel.grid.g
        self.linked: dict[tuple[int, int], int] = {}
        gone = 0  # tiles deleted so far along the walk
        crossed = 0  # tiles some later step's path ran through
        for p, _, inside in order:
            crossed |= inside & gone
            if p in wanted:
                rel._flush()
                for y in wanted[p]:
                    path = rel.path(p, y)
                    if path is not None:
                        self.linked[p, y] = path
            g[p] = 0
            rel.pending.append(p)
            gone |= 1 << p
        rel._flush()
        self.crossed = crossed
        self.end = rel.grid  # every tile gone

    def passes(self, mate: Mapping[int, int]) -> bool:
        """Whether the lock test certainly deletes every tile when each tile ``x`` of
        ``mate`` may pair only with ``mate[x]`` (every other tile as before)."""
        deferred = [x for x, y in mate.items() if (x, y) not in self.linked]
        if not deferred:
            return True
        held = 0
        for x in deferred:
            if self.crossed >> x & 1:
                return False
            held |= 1 << x
        for x, y in mate.items():
            if (x, y) in self.linked and self.linked[x, y] & held:
                return False
        end = self.end
        for x in deferred:
            end.fill(x, self.values[x])
        left = list(deferred)
        progress = True
        while left and progress:
            progress = False
            for x in list(left):
                if end.link_cell(x, mate[x]):
                    end.clear(x)
                    left.remove(x)
                    progress = True
        for x in left:
            end.clear(x)
        return not left


def _need_no_gravity(grid: Grid) -> None:
    """Raise ``ValueError`` unless ``grid`` is played without gravity: under gravity a tile
    that cannot link now may slide to where it can, and the relaxation's argument (emptying
    cells only opens paths, and tiles never move) fails, so "locked" would be no proof."""
    if grid.gravity != Gravity.NONE:  # not an assert: python -O would strip it, and the proof would lie
        raise ValueError(f"the lock test is only sound without gravity, found gravity {grid.gravity!r}")


def root_partners(grid: Grid) -> tuple[list[int], dict[int, list[int]]]:
    """Every tile, and for each every other tile of its type: the partner lists of an
    unconstrained board, for the lock test; so, like it, only without gravity: a ``grid``
    under gravity raises ``ValueError``."""
    _need_no_gravity(grid)
    alive: list[int] = []
    partners: dict[int, list[int]] = {}
    for ps in grid.by_type().values():
        for p in ps:
            alive.append(p)
            partners[p] = [q for q in ps if q != p]
    return alive, partners
