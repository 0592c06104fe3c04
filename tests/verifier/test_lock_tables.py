"""The lock test's lean loop against a plain fixpoint, and its tables and caches.

``Relaxation`` writes the link test and the run-table updates into one loop, takes partner
lists as a table by position and keeps found interiors in a cache by board size
(:mod:`llkgen.verifier.lock`). None of that may change a result: here the locked tiles are
compared with a fixpoint computed the slow way (``Grid.link_cell`` and ``Grid.clear``, tile
by tile until nothing changes), on seeded random boards with walls, border on and off, and
random partner restrictions, cold and with a hint (one that left tiles locked, and one that
deleted tiles the run must keep), and the grid it was given left as it was; and the cache is
checked against a fresh :func:`~llkgen.verifier.lock.interior`, also when it starts afresh.
The fixpoint comparison runs under Hypothesis too, so that a failure shrinks to a small board.
"""

from __future__ import annotations

import random

import pytest
from hypothesis import given
from hypothesis import strategies as st

import llkgen.verifier.lock as lock
from llkgen.game.board import WALL, Board, Rules
from llkgen.game.grid import Grid, column_masks
from llkgen.verifier.lock import Relaxation, interior, locked_tiles, partner_table

from strategies import drawn, equivalence


def _board(rng: random.Random) -> Board:
    rows, cols = rng.randint(2, 7), rng.randint(2, 8)
    cells = [WALL if rng.random() < 0.15 else 0 for _ in range(rows * cols)]
    free = [i for i, v in enumerate(cells) if v == 0]
    rng.shuffle(free)
    free = free[: len(free) - len(free) % 2]
    types = rng.randint(1, 4)
    for k in range(0, len(free), 2):
        t = rng.randint(1, types)
        cells[free[k]] = cells[free[k + 1]] = t
    return Board(rows, cols, tuple(cells))


def _partners(grid: Grid, rng: random.Random) -> tuple[list[int], dict[int, list[int]]]:
    """Every tile, each with the tiles of its type minus a random few (a search's
    forbidden pairs), kept symmetric."""
    alive: list[int] = []
    partners: dict[int, list[int]] = {}
    for ps in grid.by_type().values():
        for p in ps:
            alive.append(p)
            partners[p] = [q for q in ps if q != p]
    for p in alive:
        for q in list(partners[p]):
            if p < q and rng.random() < 0.2:
                partners[p].remove(q)
                partners[q].remove(p)
    return alive, partners


def _plain_fixpoint(grid: Grid, alive: list[int], partners: dict[int, list[int]]) -> set[int]:
    g = grid.copy()
    left = list(alive)
    changed = True
    while changed:
        changed = False
        for p in list(left):
            if any(g.link_cell(p, q) for q in partners[p]):
                g.clear(p)
                left.remove(p)
                changed = True
    return set(left)


def _compare(board: Board, rng: random.Random) -> bool:
    """The lock test on ``board`` (rules and forbidden pairs drawn from ``rng``) against the
    plain fixpoint: cold, from a partner table, hinted with tighter partners, and hinted with
    only some tiles free to go. Returns whether any tile is locked."""
    rules = Rules(border=rng.random() < 0.6)
    grid = Grid(board, rules)
    alive, partners = _partners(grid, rng)
    want = _plain_fixpoint(grid, alive, partners)
    order: list = []
    cold = locked_tiles(grid, alive, partners, order=order)
    assert set(cold) == want, board
    assert sorted(locked_tiles(grid, alive, partner_table(len(grid.g), partners))) == sorted(cold)
    # the same board with tighter partners, hinted by the looser run's order
    tight = {p: [q for q in qs if rng.random() < 0.8] for p, qs in partners.items()}
    tight = {p: [q for q in qs if p in tight[q]] for p, qs in tight.items()}
    assert set(locked_tiles(grid, alive, tight, hint=order)) == _plain_fixpoint(grid, alive, tight), board
    # only some tiles may go (the others stay put), hinted by the run that let all go
    sub = [p for p in alive if rng.random() < 0.7]
    assert set(locked_tiles(grid, sub, partners, hint=order)) == _plain_fixpoint(grid, sub, partners), board
    return bool(want)


def test_locked_tiles_match_a_plain_fixpoint_cold_and_hinted():
    rng = random.Random(1801)
    compared = locked = 0
    for _ in range(700):
        locked += _compare(_board(rng), rng)
        compared += 1
    assert compared == 700 and 50 < locked < 650


@equivalence(200)
@given(board=drawn(_board), seed=st.integers(0, 2**32 - 1))
def test_locked_tiles_match_a_plain_fixpoint_on_drawn_boards(board, seed):
    """The check above under Hypothesis: a failure shrinks to a small board (the rules and the
    forbidden pairs come from a seeded generator, cheaper than a draw each)."""
    _compare(board, random.Random(seed))


def test_settle_and_replay_leave_the_grid_they_were_given():
    rng = random.Random(1802)
    for _ in range(100):
        board = _board(rng)
        grid = Grid(board, Rules())
        before = (list(grid.g), list(grid.H), list(grid.V), list(grid.rowbits), list(grid.colbits))
        alive, partners = _partners(grid, rng)
        order: list = []
        locked_tiles(grid, alive, partners, order=order)
        locked_tiles(grid, alive, partners, hint=order)
        assert (grid.g, grid.H, grid.V, grid.rowbits, grid.colbits) == before


@pytest.mark.parametrize("limit", [1, 7, lock.MAX_CACHED_PATHS])
def test_cached_interiors_are_the_interiors(monkeypatch, limit):
    """Every interior a relaxation records equals one built afresh, whether the cache held
    it or not, and when it keeps starting afresh (a limit of 1 or 7)."""
    monkeypatch.setattr(lock, "MAX_CACHED_PATHS", limit)
    lock.path_cache.cache_clear()
    rng = random.Random(1803)
    seen = 0
    for _ in range(150):
        board = _board(rng)
        grid = Grid(board, Rules(border=rng.random() < 0.5))
        alive, partners = _partners(grid, rng)
        for _round in range(2):  # the second round finds the first round's paths cached
            rel = Relaxation(grid)
            rel.settle(alive, partner_table(len(grid.g), partners))
            cols = column_masks(grid.rows, grid.cols)
            for p, q, inside in rel.order:
                if inside:
                    fresh = {interior(cols, grid.w, p, q, True, k) for k in range(grid.w)}
                    fresh |= {interior(cols, grid.w, p, q, False, k) for k in range(len(grid.g) // grid.w)}
                    assert inside in fresh
                    seen += 1
        assert len(lock.path_cache(grid.rows, grid.cols)) <= limit
    assert seen > 200
    lock.path_cache.cache_clear()
