"""Fast forward play: the engine behind random playthroughs and the constructive generator.

A :class:`Playout` holds a padded board (see :mod:`llkgen.game.path`) and the set of pairs that are
removable right now. :meth:`Playout.moves` lists them in exactly the order of
:func:`llkgen.game.path.removable_pairs` (``(a, b)`` row-major with ``a < b``; padded indices keep
row-major order), so choosing ``moves()[i]`` is the same choice a plain loop over
``removable_pairs`` would make. ``tests/generation/test_generator.py`` checks that equivalence move by
move, on random boards under every gravity, against ``removable_pairs`` and the referee.

Representation: a :class:`llkgen.game.grid.Grid`, whose bitboard run tables make the path rule a
few integer operations and a removal a constant number of table updates. Measured on
constructed boards of the shipped specs (a busy 2-core machine, so read the ratios, not the
times), with the earlier line-of-sight pointers that this replaced: a random playthrough cost
27 ms against 190 ms calling ``removable_pairs`` at every step on hard.yaml (10x16, no
gravity, 7x), and 28 ms against 94 ms on gravity.yaml (8x12, gravity down, 3.4x).
``benchmarks/make_bench.py`` re-measures the generator as a whole.

Why the pair set can be updated without gravity: removing tiles never blocks a path, so a pair
removable now stays removable until one of its tiles goes. After removing ``a`` and ``b`` we
keep the old pairs and look only for *new* ones, whose paths must pass through ``a`` or ``b``
(a path avoiding both was already legal). Let ``x`` be one of them and take the segment of
such a path through ``x``; say it is horizontal, inside the empty run ``H`` of ``x``'s row
(the vertical case is symmetric). Either

* the path has at most one turn, or ``x`` lies on its middle segment: then both of its tiles
  are *seen* from ``H`` -- each bounds ``H`` in its row, or is the first tile straight up or
  down from a cell of ``H`` -- and conversely any two same-type tiles seen from ``H`` link
  through ``H`` with at most two turns, so all such pairs are added; or
* ``x`` lies on the first or last segment of a two-turn path: that segment starts at a tile
  bounding ``H``, which is tested in full (:meth:`Grid.link`) against every tile of its type.
  (Its partner need not be seen from ``H``: the path may turn twice beyond it.)

With gravity, tiles move after every removal and paths can close again; see
:meth:`Playout._after_fall` for what is rechecked.
"""

from __future__ import annotations

from llkgen.game.board import Board, Cell, Rules
from llkgen.game.grid import Grid, Pair, run


class Playout:
    """A board being played forward. Positions are padded indices.

    ``ident`` (optional bookkeeping for the constructive generator) follows each tile through
    gravity: ``ident[p]`` is the board cell, row-major index, where the tile now at ``p``
    started."""

    def __init__(self, board: Board | None, rules: Rules, track: bool = False):
        self.rules = rules
        if board is None:
            return  # an empty shell that copy() fills
        self.grid = Grid(board, rules)
        self.g = self.grid.g
        self.w = self.grid.w
        self.left = board.tile_count
        self.ident: list[int] | None = None
        if track:
            self.ident = [-1] * len(self.g)
            for i, p in enumerate(self.grid.cells):
                self.ident[p] = i
        self._rebuild()

    def copy(self) -> "Playout":
        """An independent copy; cheaper than building a new one (nothing is recomputed)."""
        other = Playout(None, self.rules)
        other.grid = self.grid.copy()
        other.g = other.grid.g
        other.w = self.w
        other.left = self.left
        other.by_type = {t: list(ps) for t, ps in self.by_type.items()}
        other.links = set(self.links)
        other.ident = None if self.ident is None else list(self.ident)
        return other

    def link(self, pa: int, pb: int) -> bool:
        """Whether some path with at most two turns joins padded cells ``pa`` and ``pb``
        (types ignored)."""
        return self.grid.link(pa, pb)

    # -- the set of removable pairs ----------------------------------------------------------
    def _rebuild(self) -> None:
        self.by_type: dict[int, list[int]] = self.grid.by_type()
        link = self.grid.link
        self.links: set[Pair] = {
            (p, q)
            for ps in self.by_type.values()
            for i, p in enumerate(ps)
            for q in ps[i + 1 :]
            if link(p, q)
        }

    def moves(self) -> list[Pair]:
        """Removable pairs ``(p, q)``, ``p < q``, sorted: the order of ``removable_pairs``."""
        return sorted(self.links)

    def cells(self, pair: Pair) -> tuple[Cell, Cell]:
        return self.grid.cell(pair[0]), self.grid.cell(pair[1])

    # -- playing ----------------------------------------------------------------------------
    def remove(self, p: int, q: int) -> None:
        """Play the removable pair ``(p, q)`` (the caller takes it from :meth:`moves`)."""
        t = self.g[p]
        self.left -= 2
        fall = self.grid.remove(p, q)
        if self.grid.lines:
            self._after_fall(p, q, t, fall)
            return
        ps = self.by_type[t]
        ps.remove(p)
        ps.remove(q)
        if not ps:
            del self.by_type[t]
        links = self.links
        links.discard((p, q) if p < q else (q, p))
        for r in ps:
            for x in (p, q):
                links.discard((x, r) if x < r else (r, x))
        for x in (p, q):
            self._new_links_through(x, True)
            self._new_links_through(x, False)

    def _new_links_through(self, x: int, horizontal: bool) -> None:
        """Add the pairs that became removable through the empty run containing ``x`` (its row
        run if ``horizontal``, else its column run). The module docstring argues why this
        finds every new pair."""
        grid = self.grid
        g, links, by_type = self.g, self.links, self.by_type
        R, C, w = grid.R, grid.C, grid.w
        if horizontal:
            m = run(grid.rowbits[R[x]], C[x])
            base, step = x - C[x], 1
        else:
            m = run(grid.colbits[C[x]], R[x])
            base, step = C[x], w
        ends = [e for e in (base + ((m & -m).bit_length() - 2) * step, base + m.bit_length() * step)
                if g[e] > 0]
        found = []
        while m:
            low = m & -m
            e = base + (low.bit_length() - 1) * step
            m ^= low
            # the first cells across the run from e: up and down (or left and right)
            if horizontal:
                k = run(grid.colbits[C[e]], R[e])
                near, far = ((k & -k).bit_length() - 2) * w + C[e], k.bit_length() * w + C[e]
            else:
                k = run(grid.rowbits[R[e]], C[e])
                near, far = e - C[e] + (k & -k).bit_length() - 2, e - C[e] + k.bit_length()
            if g[near] > 0:
                found.append(near)
            if g[far] > 0:
                found.append(far)
        seen: dict[int, list[int]] = {}
        for u in ends + found:
            t = g[u]
            if t in seen:
                seen[t].append(u)
            else:
                seen[t] = [u]
        for ps in seen.values():
            if len(ps) > 1:
                for i, a in enumerate(ps):
                    for b in ps[i + 1 :]:
                        if a != b:
                            links.add((a, b) if a < b else (b, a))
        link = grid.link
        for e in ends:
            for r in by_type[g[e]]:
                if r != e:
                    pair = (e, r) if e < r else (r, e)
                    if pair not in links and link(e, r):
                        links.add(pair)

    def _after_fall(self, p: int, q: int, t: int, fall) -> None:
        """Update after removing ``p`` and ``q`` and letting tiles fall.

        Only three kinds of pair can change: pairs of a tile that moved (rechecked in full),
        pairs whose path ran through a cell that became occupied (every remaining pair is
        rechecked if there is one -- after the first move of a settled board there never is),
        and new pairs through a cell that became empty (found as without gravity: a path that
        avoids every newly empty cell was legal before)."""
        g, ident = self.g, self.ident
        ps = self.by_type[t]
        ps.remove(p)
        ps.remove(q)
        if not ps:
            del self.by_type[t]
        by_type = self.by_type
        for i, j in fall.moves:
            lst = by_type[g[j]] if g[j] > 0 else None
            # a tile may move twice in one fall only on an unsettled board; follow it by cell
            if lst is not None and i in lst:
                lst[lst.index(i)] = j
            if ident is not None:
                ident[j] = ident[i]
                ident[i] = -1
        gone = {p, q}
        gone.update(i for i, _ in fall.moves)
        link = self.grid.link
        links = {pr for pr in self.links if pr[0] not in gone and pr[1] not in gone}
        if fall.closed:
            links = {pr for pr in links if link(*pr)}
        self.links = links
        for _, j in fall.moves:
            if g[j] <= 0:
                continue
            for r in by_type[g[j]]:
                if r != j:
                    pair = (j, r) if j < r else (r, j)
                    if pair not in links and link(j, r):
                        links.add(pair)
        for x in fall.opened:
            self._new_links_through(x, True)
            self._new_links_through(x, False)

    def reshuffle(self, rng) -> None:
        """Permute the types of the remaining tiles among the cells they occupy (``rng`` is a
        numpy Generator). Occupancy, and so ``ident`` and the grid's run tables, is
        unchanged."""
        g = self.g
        cells = self.grid.tiles()
        values = [g[p] for p in cells]
        order = rng.permutation(len(values))
        for p, k in zip(cells, order):
            g[p] = values[int(k)]
        self._rebuild()

    def any_cells_link(self) -> bool:
        """Whether some two remaining tiles could link if they had the same type. If not, no
        reshuffle can ever produce a move."""
        cells = self.grid.tiles()
        link = self.grid.link
        return any(link(p, q) for i, p in enumerate(cells) for q in cells[i + 1 :])


def random_playthrough(board: Board | Playout, rules: Rules, rng, record: bool = True,
                       ) -> tuple[bool, list[tuple[Cell, Cell]]]:
    """Play uniformly random removable pairs until the board is cleared or no pair is left.

    Returns ``(cleared, moves)``. Each step draws ``rng.integers(n)`` once, ``n`` being the
    number of removable pairs, and takes that index in ``removable_pairs`` order. ``board``
    may be a :class:`Playout` of the starting board (it is copied, not changed), which saves
    rebuilding the pair set for every playthrough. With ``record=False`` the move list stays
    empty (it is only wanted by tests and callers that replay it)."""
    play = board.copy() if isinstance(board, Playout) else Playout(board, rules)
    moves: list[tuple[Cell, Cell]] = []
    while play.left:
        options = play.moves()
        if not options:
            return False, moves
        p, q = options[int(rng.integers(len(options)))]
        if record:
            moves.append(play.cells((p, q)))
        play.remove(p, q)
    return True, moves
