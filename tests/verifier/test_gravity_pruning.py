"""The proofs under gravity, each checked on its own against the brute-force oracle.

* :mod:`llkgen.verifier.components`: the board is solvable exactly when every component is,
  and a type with an odd count in a component is never solvable;
* :mod:`llkgen.verifier.reach`: a type whose partner graph has no perfect matching is never
  solvable, at the root and at positions reached in play (where the move search uses it);
* the move search's table of dead boards holds only dead boards, even when a budget stops
  the search half way;
* ``verify`` with these rules agrees with brute force on crowded walled boards.

Boards: seeded, every gravity direction (and ``none``, where both proofs also hold), walls on
most of them, border on and off. Each rule must fire on a good share of the sample, so a rule
that stopped firing would fail its test rather than pass it vacuously. The same checks run on one
board at a time under Hypothesis too, so that a failure shrinks to a small board.

The second half holds the same proofs to board shapes the walled boards above do not draw: walls
along the board's edge (where the border ring runs around them), one-row and one-column boards,
walls making up half the board, walled pockets that the ring cannot reach, a single type of four
to six tiles, and types above :data:`~llkgen.verifier.reach.MATCHING_MAX` tiles.

* the partner test's tables are recomputed cell by cell from the oracle's path enumerator (a
  span walked by hand, every link of every span cell), for every gravity direction and both
  border settings, and must be equal bit for bit;
* its matching helpers are compared with a plain memoised matching search;
* ``verify`` must agree with brute force on each family, and its witnesses must replay in the
  oracle's own referee.
"""

from __future__ import annotations

import random
from array import array
from functools import lru_cache

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from llkgen.game.board import Board, Gravity, Rules
from llkgen.game.grid import PAD, Grid
from llkgen.game.referee import replay
from llkgen.verifier import Budget, verify
from llkgen.verifier.components import components
from llkgen.verifier.movesearch import MoveSearch
from llkgen.verifier.reach import Reach, _matchable, _odd_component
from llkgen.verifier.verdict import OutOfBudget

from oracle import brute_solution, brute_solve, linkable, oracle_gravity, oracle_replay
from strategies import SHAPES, drawn, equivalence, grid_text, positions_in_play, random_grid, shape_cases

DIRECTIONS = ("down", "up", "left", "right")


def _walled_cases(seed: int, n: int, gravities=DIRECTIONS, settle: float = 0.8, **kw):
    """``n`` seeded (board, rules), walls on nine in ten boards that have room, a ``settle``
    share of them settled under their gravity, border on a third of them."""
    rng = random.Random(seed)
    out = []
    while len(out) < n:
        board, rules = _walled_case(rng, gravities, settle, **kw)
        if board.tile_count:
            out.append((board, rules))
    return out


def _walled_case(rng: random.Random, gravities=DIRECTIONS, settle: float = 0.8, **kw) -> tuple[Board, Rules]:
    """One board of :func:`_walled_cases`, drawn from ``rng``, empty or not."""
    gravity = rng.choice(gravities)
    grid = random_grid(rng, wall_prob=0.9, max_wall_fraction=0.4, **kw)
    if gravity != "none" and rng.random() < settle:
        grid = oracle_gravity(grid, gravity)
    board = Board.from_grid(grid)
    # no border drawn for an empty board (it is dropped), so the seeded samples stay as they were
    border = bool(board.tile_count) and rng.random() < 0.33
    return board, Rules(border=border, gravity=gravity)


def _truth(board: Board, rules: Rules) -> bool:
    return brute_solve(board.grid(), rules.border, rules.gravity)


def test_components_partition_the_tiles_and_decide_like_brute_force():
    splits = odd = 0
    for board, rules in _walled_cases(20261201, 8000, gravities=(*DIRECTIONS, "none"), max_rows=5,
                                      max_cols=6, max_tiles=14, min_fill=0.8):
        split = components(board, rules)
        parts = split.parts
        assert sorted(c for part in parts for c in part.tiles) == board.tiles()
        assert split.independent == (rules.gravity == "none" or oracle_gravity(board.grid(), rules.gravity)
                                     == board.grid())
        truth = _truth(board, rules)
        if split.odd_type() is not None:
            odd += 1
            assert not truth, f"odd count claimed in a solvable board\n{board}\n{rules}"
            continue
        if len(parts) > 1 and split.independent:
            splits += 1
            for part in parts:
                assert part.board.tile_count == len(part.tiles)
            assert all(_truth(part.board, rules) for part in parts) == truth, f"{board}\n{rules}"
    assert splits > 100 and odd > 1000, (splits, odd)


@pytest.mark.parametrize("gravity", [*DIRECTIONS, "none"])
def test_reach_pairing_never_strands_a_solvable_position(gravity):
    """The test is built once from the root and asked about later positions, as the move
    search does: a position it calls stranded must be unsolvable."""
    rng = random.Random(7)
    fired = checked = 0
    for board, rules in _walled_cases(20261202 + len(gravity), 700, gravities=(gravity,), max_rows=5,
                                      max_cols=6, max_tiles=14, min_fill=0.8):
        reach = Reach(board, rules)
        for position in positions_in_play(board, rules, rng, 4):
            checked += 1
            if reach.stranded(Grid(position, rules)) is not None:
                fired += 1
                assert not _truth(position, rules), (
                    f"reach-pairing stranded a solvable position\n{grid_text(position.grid())}\n{rules}\n"
                    f"root\n{board}")
    assert fired > 100, (fired, checked)


def _board_of_key(key: bytes, board: Board) -> Board:
    g = array("h")
    g.frombytes(key)
    w = board.cols + 2 * PAD
    return Board(board.rows, board.cols, tuple(g[(r + PAD) * w + c + PAD] for r in range(board.rows)
                                              for c in range(board.cols)))


@pytest.mark.parametrize("with_reach", [True, False])
@pytest.mark.parametrize("nodes", [3, 10])
def test_dead_table_holds_only_dead_boards_when_the_budget_stops_the_search(nodes, with_reach):
    """Every board the move search records as dead, with or without the partner test, must
    be unsolvable, also when the node budget interrupts it (an interrupted subtree is never
    recorded)."""
    recorded = interrupted = 0
    for board, rules in _walled_cases(20261203 + nodes, 500, max_rows=6, max_cols=6, max_tiles=20,
                                      min_fill=0.9):
        reach = Reach(board, rules) if with_reach else None
        search = MoveSearch(board, rules, Budget(nodes=nodes), reach=reach)
        try:
            search.search()
        except OutOfBudget:
            interrupted += 1
        for key in search.dead:
            recorded += 1
            position = _board_of_key(key, board)
            assert not _truth(position, rules), f"recorded dead but solvable\n{position}\n{rules}\nroot\n{board}"
    assert interrupted > 10 and recorded > 100, (interrupted, recorded)


def test_dead_table_keys_before_and_after_the_closure_are_dead():
    """A node is recorded under the board its move left and under the board after the
    clearings from the top. Both must be unsolvable, on wall-free boards (the random full
    boards the table serves most) and walled ones, every direction, border on and off; and
    the first kind must occur, so the test cannot pass vacuously."""
    from llkgen.verifier.movesearch import _far_ends

    rng = random.Random(20261204)
    before_closure = recorded = 0
    for board, rules in _walled_cases(20261204, 1500, max_rows=5, max_cols=6, max_tiles=20, min_fill=0.9):
        if rng.random() < 0.5:  # half of them wall-free
            board = Board.from_grid(oracle_gravity([[max(v, 0) for v in row] for row in board.grid()],
                                                   rules.gravity))
            if not board.tile_count:
                continue
        search = MoveSearch(board, rules, Budget(nodes=rng.choice((5, 40, 2000))))
        try:
            search.search()
        except OutOfBudget:
            pass
        for key in search.dead:
            recorded += 1
            position = _board_of_key(key, board)
            grid = Grid(position, rules)
            if any(_far_ends(grid).values()) and search.closure(grid):
                before_closure += 1
            assert not _truth(position, rules), f"recorded dead but solvable\n{position}\n{rules}\nroot\n{board}"
    assert before_closure > 150 and recorded > 1000, (before_closure, recorded)


def test_dead_removed_sets_name_dead_boards():
    """The move search also records each dead board as the set of root tiles removed to reach
    it, and skips a move whose set is recorded without playing it. Each recorded set, played
    out independently (the root with those tiles taken away, then gravity), must give a board
    recorded dead: so the identities the search carries through every slide are right, and a
    skipped move is one whose board is dead. Boards settled and not, walls and none, every
    direction, border on and off."""
    rng = random.Random(20261205)
    checked = skipped = 0
    for board, rules in _walled_cases(20261205, 1200, max_rows=5, max_cols=6, max_tiles=20, min_fill=0.9):
        if rng.random() < 0.5:
            board = Board.from_grid([[max(v, 0) for v in row] for row in board.grid()])
            if not board.tile_count:
                continue
        search = MoveSearch(board, rules, Budget(nodes=rng.choice((5, 40, 2000))))
        try:
            search.search()
        except OutOfBudget:
            pass
        tiles = board.tiles()
        grid0 = board.grid()
        for removed in search.dead_sets:
            checked += 1
            g = [list(row) for row in grid0]
            for k, (r, c) in enumerate(tiles):
                if removed >> k & 1:
                    g[r][c] = 0
            if removed:
                g = oracle_gravity(g, rules.gravity)
            key = array("h", Grid(Board.from_grid(g), rules).g).tobytes()
            assert key in search.dead, f"removed set {removed:b} names a board not recorded dead\n{board}\n{rules}"
        skipped += search.skipped
    assert checked > 700 and skipped > 250, (checked, skipped)


@pytest.mark.parametrize("seed", range(4))
def test_verify_with_the_gravity_proofs_matches_brute_force(seed):
    """The routed chain (components, reach-pairing, move search with the partner test at each
    node, sub-games searched one by one) on crowded walled boards of up to 16 tiles."""
    stages: dict[str, int] = {}
    for board, rules in _walled_cases(20261210 + seed, 400, max_rows=5, max_cols=7, max_tiles=16,
                                      min_fill=0.9):
        truth = _truth(board, rules)
        verdict = verify(board, rules, Budget(nodes=200_000))
        stage = verdict.stats["stage"]
        stages[stage] = stages.get(stage, 0) + 1
        assert verdict.status == ("solvable" if truth else "unsolvable"), (
            f"{verdict.status} ({stage}) but brute force says {truth}\n{board}\n{rules}")
        if truth:
            order = [(m.a, m.b) for m in verdict.moves]
            result = replay(board, rules, order)
            assert result.ok and result.cleared
    assert stages.get("components", 0) > 20 and stages.get("reach-pairing", 0) > 3, stages


@equivalence(100)
@given(case=drawn(_walled_case, (*DIRECTIONS, "none"), max_rows=5, max_cols=6, max_tiles=14, min_fill=0.8),
       nodes=st.sampled_from((3, 10, 2000)), play_seed=st.integers(0, 2**32 - 1))
def test_every_gravity_proof_holds_on_a_drawn_board(case, nodes, play_seed):
    """The checks above on one board under Hypothesis, so a failure shrinks to a small board:
    the components, reach-pairing at the root and a few moves into play, the dead table with and
    without the partner test under a node budget, and verify's routed chain."""
    board, rules = case
    assume(board.tile_count)
    truth = _truth(board, rules)
    split = components(board, rules)
    assert sorted(c for part in split.parts for c in part.tiles) == board.tiles()
    if split.odd_type() is not None:
        assert not truth, "an odd count claimed in a solvable board"
    elif len(split.parts) > 1 and split.independent:
        assert all(_truth(part.board, rules) for part in split.parts) == truth, "the parts decide otherwise"
    reach = Reach(board, rules)
    for position in positions_in_play(board, rules, random.Random(play_seed), 4):
        if reach.stranded(Grid(position, rules)) is not None:
            assert not _truth(position, rules), f"reach-pairing stranded a solvable position\n{position}"
    for partner_test in (reach, None):
        search = MoveSearch(board, rules, Budget(nodes=nodes), reach=partner_test)
        try:
            search.search()
        except OutOfBudget:
            pass
        for key in search.dead:
            position = _board_of_key(key, board)
            assert not _truth(position, rules), f"recorded dead but solvable\n{position}"
    verdict = verify(board, rules, Budget(nodes=200_000))
    assert verdict.status == ("solvable" if truth else "unsolvable"), verdict.stats["stage"]
    if truth:
        assert replay(board, rules, [(m.a, m.b) for m in verdict.moves]).cleared


def test_a_split_board_is_solved_part_by_part():
    """Two halves cut apart by a wall column, border off: each half clears on its own, so
    the board does, and the witness (one half's moves, then the other's) replays."""
    board = Board.from_text("""
        1 1 # 3 3
        2 2 # 4 4
        1 2 # 3 4
        2 1 # 4 3
    """)
    rules = Rules(border=False, gravity="down")
    split = components(board, rules)
    assert split.independent and [len(p.tiles) for p in split.parts] == [8, 8]
    verdict = verify(board, rules, Budget(nodes=10_000))
    assert verdict.status == "solvable" and verdict.stats["components"] == 2
    assert _truth(board, rules)


def test_an_odd_part_is_unsolvable_without_search():
    board = Board.from_text("""
        1 # 1 1
        # . 1 2
        2 . . .
    """)
    rules = Rules(border=False, gravity="left")
    verdict = verify(board, rules, Budget(nodes=10_000))
    assert verdict.status == "unsolvable" and verdict.stats["stage"] == "components"
    assert verdict.proof["argument"] == "component-parity" and verdict.proof["tiles"] == [[0, 0]]
    assert not _truth(board, rules)


def test_open_board_links_are_the_oracles():
    """Without gravity a span is one cell, so ``reach`` is the open board's link relation
    itself: checked against the oracle's path enumerator, every pair of cells, both ways."""
    rng = random.Random(20261204)
    checked = linked = 0
    for _ in range(150):
        grid = random_grid(rng, max_rows=5, max_cols=6, wall_prob=1.0, max_wall_fraction=0.4)
        board, border = Board.from_grid(grid), rng.random() < 0.5
        rules = Rules(border=border, gravity="none")
        reach = Reach(board, rules)
        open_grid = [[-1 if v == -1 else 0 for v in row] for row in grid]
        w = board.cols + 2 * PAD
        cells = [(r, c) for r in range(board.rows) for c in range(board.cols) if grid[r][c] != -1]
        for x in cells:
            for y in cells:
                if x != y:
                    px, py = (x[0] + PAD) * w + x[1] + PAD, (y[0] + PAD) * w + y[1] + PAD
                    got = bool(reach.reach[px] >> py & 1)
                    assert got == linkable(open_grid, x, y, border), (grid_text(grid), border, x, y)
                    checked += 1
                    linked += got
    assert checked > 10_000 and 0 < linked < checked, (checked, linked)


# =========================================================================== unusual shapes


WALL = -1
FALL = {"none": (0, 0), "down": (1, 0), "up": (-1, 0), "left": (0, -1), "right": (0, 1)}


# --------------------------------------------------------------------------- reach tables


def _expected_tables(grid, border: bool, gravity: str) -> tuple[dict[int, int], dict[int, int]]:
    """``Reach.span`` and ``Reach.reach`` recomputed by hand: each span walked cell by cell
    towards the gravity side, each link asked of the oracle's path enumerator on the open
    board (ring cells included as ends when ``border``)."""
    rows, cols = len(grid), len(grid[0])
    w = cols + 2 * PAD
    open_grid = [[WALL if v == WALL else 0 for v in row] for row in grid]
    dr, dc = FALL[gravity]

    def pid(cell):
        return (cell[0] + PAD) * w + cell[1] + PAD

    ends = [(r, c) for r in range(rows) for c in range(cols) if grid[r][c] != WALL]
    if border:
        ends += [(r, c) for r in range(-1, rows + 1) for c in range(-1, cols + 1)
                 if not (0 <= r < rows and 0 <= c < cols)]
    span, reach = {}, {}
    for r, c in ends:
        if not (0 <= r < rows and 0 <= c < cols):
            continue
        cells = [(r, c)]
        while gravity != "none":
            nr, nc = cells[-1][0] + dr, cells[-1][1] + dc
            if not (0 <= nr < rows and 0 <= nc < cols) or grid[nr][nc] == WALL:
                break
            cells.append((nr, nc))
        span[pid((r, c))] = sum(1 << pid(x) for x in cells)
        reach[pid((r, c))] = sum(1 << pid(y) for y in ends
                                 if any(y != x and linkable(open_grid, x, y, border) for x in cells))
    return span, reach


@pytest.mark.parametrize("family", sorted(SHAPES))
def test_reach_tables_equal_a_cell_by_cell_recomputation(family):
    """Every direction and border setting: the index arithmetic of runs, spans and the
    two-turn closure, bit for bit."""
    for grid, border, gravity in shape_cases(family, 20261220 + len(family), 40):
        if len(grid) * len(grid[0]) > 24:
            continue
        board = Board.from_grid(grid)
        reach = Reach(board, Rules(border=border, gravity=Gravity(gravity)))
        span, linked = _expected_tables(grid, border, gravity)
        assert set(reach.span) == set(span)
        for p in span:
            assert (reach.span[p], reach.reach[p]) == (span[p], linked[p]), (grid, border, gravity, p)


def _perfect_matching(nbrs: tuple[int, ...]) -> bool:
    """Whether the graph has a perfect matching: the lowest vertex left tries every
    neighbour, memoised on the set of vertices left."""

    @lru_cache(None)
    def perfect(left: int) -> bool:
        if not left:
            return True
        i = (left & -left).bit_length() - 1
        rest = left & ~(1 << i)
        return any(perfect(rest & ~(1 << j)) for j in range(len(nbrs)) if rest >> j & 1 and nbrs[i] >> j & 1)

    return perfect((1 << len(nbrs)) - 1)


def test_matching_helpers_agree_with_a_plain_matching_search():
    rng = random.Random(20261221)
    for _ in range(3000):
        n, p = rng.randint(1, 10), rng.random()
        nbrs = [0] * n
        for i in range(n):
            for j in range(i + 1, n):
                if rng.random() < p:
                    nbrs[i] |= 1 << j
                    nbrs[j] |= 1 << i
        truth = _perfect_matching(tuple(nbrs))
        assert _matchable((1 << n) - 1, nbrs, set()) == truth
        odd = _odd_component(nbrs)
        if odd:
            assert not truth and odd.bit_count() % 2
            closed = 0  # the mask is a union of whole components: no edge leaves it
            for i in range(n):
                if odd >> i & 1:
                    closed |= nbrs[i]
            assert closed & ~odd == 0


# --------------------------------------------------------------------------- verify


def _check(grid, border: bool, gravity: str) -> str:
    board, rules = Board.from_grid(grid), Rules(border=border, gravity=Gravity(gravity))
    solution = brute_solution(grid, border, gravity)
    verdict = verify(board, rules, Budget(nodes=300_000))
    expected = "unsolvable" if solution is None else "solvable"
    assert verdict.status == expected, (
        f"{verdict.status} ({verdict.stats.get('stage')}: {verdict.reason}) but brute force "
        f"says {expected} {solution}\n{board}\nborder={border} gravity={gravity}")
    if solution is not None:
        ok, final, _ = oracle_replay(grid, border, gravity, [(m.a, m.b) for m in verdict.moves])
        assert ok and not any(v > 0 for row in final for v in row)
    split = components(board, rules)
    if split.odd_type() is None and split.independent and len(split.parts) > 1:
        parts = [brute_solution(part.board.grid(), border, gravity) is not None for part in split.parts]
        assert all(parts) == (solution is not None)
    return str(verdict.stats.get("stage"))


@pytest.mark.parametrize("family", sorted(SHAPES))
def test_verify_matches_brute_force_on_unusual_shapes(family):
    stages: dict[str, int] = {}
    for grid, border, gravity in shape_cases(family, 20261230 + len(family), 60):
        stage = _check(grid, border, gravity)
        stages[stage] = stages.get(stage, 0) + 1
    assert len(stages) > 1, stages


def test_pocket_boards_split_with_the_border_on():
    """The ring joins every part touching the board's edge, never a walled pocket: such
    boards still split when settled, and a tile swapped across is caught by parity."""
    split_seen = odd_seen = 0
    for grid, border, gravity in shape_cases("pocket", 20261240, 80, settle=1.0):
        if not border or gravity == "none":
            continue
        board, rules = Board.from_grid(grid), Rules(border=True, gravity=Gravity(gravity))
        split = components(board, rules)
        odd_seen += split.odd_type() is not None
        split_seen += split.odd_type() is None and len(split.parts) > 1
        _check(grid, True, gravity)
    assert split_seen > 3 and odd_seen > 1, (split_seen, odd_seen)


@pytest.mark.slow
@pytest.mark.parametrize("family", sorted(SHAPES))
def test_verify_matches_brute_force_on_unusual_shapes_sweep(family):
    for settle in (0.0, 1.0):
        for grid, border, gravity in shape_cases(family, 20261250 + len(family) + int(settle), 600, settle):
            _check(grid, border, gravity)


@pytest.mark.slow
def test_types_above_the_matching_limit():
    for grid, border, gravity in shape_cases("big", 20261260, 40):
        _check(grid, border, gravity)
