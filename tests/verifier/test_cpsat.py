"""The CP-SAT engine (``llkgen.verifier.cpsat``) checked against the brute-force oracle.

* Shapes: for every tile pair, the minimal sets of tiles crossed by its <= 2-turn polylines must
  equal those derived from ``oracle.iter_paths`` (a plain DFS over cells that knows nothing of
  corners); the whole exactness argument rests on this enumeration.
* Verdicts: on seeded small boards without gravity (border on and off, walls, empties, 2/4/6
  copies), ``solvable`` must come with an order that both the library referee and the oracle's
  own replay accept and that clears the board; ``unsolvable`` must match brute ``False``. The
  raw model (no lock probing) is swept too, so the probing cannot hide a modelling bug.
* Status mapping: a model is asserted FEASIBLE / INFEASIBLE directly; a tiny deterministic
  limit gives ``unknown``; an invalid model raises.

Every board comes from a fixed seed and CP-SAT runs with one worker, a fixed seed and a
deterministic limit, so a failure reproduces exactly. ``pytest -m slow`` runs 10x the boards.
"""

from __future__ import annotations

import functools
import random

import pytest
from hypothesis import given
from hypothesis import strategies as st
from ortools.sat.python import cp_model

from llkgen.game.board import Board, Rules
from llkgen.game.grid import PAD, Grid, to_padded
from llkgen.game.lines import Lines
from llkgen.game.referee import replay
from llkgen.verifier import Budget
from llkgen.verifier.cpsat import (
    NODES_PER_DET_SECOND,
    CpsatHandles,
    budget_limits,
    build_model,
    pair_shapes,
    solve_cpsat,
    solve_model,
)

import oracle as O
from strategies import equivalence, grid_text, grids, seeded_cases

# Deterministic seconds per small board: far above what any of them needs (they take < 0.05).
SMALL_LIMIT = Budget(nodes=5 * NODES_PER_DET_SECOND)

# name -> (seed, count in the default run, generator keywords); the slow sweep uses 10x the count
# with another seed. Gravity is forced to "none": CP-SAT handles nothing else.
PROFILES = {
    "mixed": (4101, 600, {}),
    "crowded": (4202, 500, dict(min_fill=1.0, max_tiles=14, border_prob=0.3, wall_prob=0.3)),
    "many-copies": (4303, 400, dict(min_fill=1.0, max_tiles=14, max_types=2, copies=(4, 6))),
}


@functools.lru_cache(maxsize=None)
def _cases(name: str, slow: bool) -> tuple:
    """((grid, border), brute verdict) pairs, computed once per session."""
    seed, count, kw = PROFILES[name]
    if slow:
        seed, count = seed * 7919, count * 10
    out = []
    for grid, border, _gravity in seeded_cases(seed, count, settle_prob=0.0, **kw):
        out.append(((grid, border), O.brute_solve(grid, border, "none")))
    return tuple(out)


def _describe(grid, border, expected, got) -> str:
    return (f"\n{grid_text(grid)}\ngrid={grid} border={border} "
            f"brute={'solvable' if expected else 'unsolvable'} got={got}")


def _check(grid, border, expected, status, order) -> str | None:
    """Why a CP-SAT answer is wrong for this board, or None."""
    if status not in ("solvable", "unsolvable", "unknown"):
        return _describe(grid, border, expected, f"status {status!r} outside the contract")
    if status == "unknown":
        return _describe(grid, border, expected, "unknown at a generous limit")
    if status == "unsolvable":
        if expected:
            witness = O.brute_solution(grid, border, "none")
            return _describe(grid, border, expected,
                             f"CLAIMS UNSOLVABLE; brute clears it by {witness}")
        return None
    if not expected:
        return _describe(grid, border, expected, f"CLAIMS SOLVABLE by {order}")
    result = replay(Board.from_grid(grid), Rules(border=border), order)
    if not (result.ok and result.cleared):
        return _describe(grid, border, expected, f"witness {order} refused: {result.describe()}")
    ok, final, bad = O.oracle_replay(grid, border, "none", order)
    if not (ok and O.is_cleared(final)):
        return _describe(grid, border, expected, f"oracle refuses {order} at move {bad}")
    return None


def _sweep(name: str, slow: bool, probe: bool) -> tuple[list[str], dict]:
    """(wrong answers, status counts); the raw model gets the first half of the boards."""
    wrong, counts = [], {}
    det, _ = budget_limits(SMALL_LIMIT)
    data = _cases(name, slow)
    if not probe:
        data = data[: len(data) // 2]
    for (grid, border), expected in data:
        board, rules = Board.from_grid(grid), Rules(border=border)
        if probe:
            status, order, _stats = solve_cpsat(board, rules, SMALL_LIMIT)
        else:
            model, handles = build_model(board, rules, probe=False)
            result = solve_model(model, handles, deterministic_limit=det)
            status, order = result.status, result.order
        counts[status] = counts.get(status, 0) + 1
        problem = _check(grid, border, expected, status, order)
        if problem is not None:
            wrong.append(problem)
    return wrong, counts


# --------------------------------------------------------------------------- shapes vs the oracle


def _oracle_minimal_sets(grid, border, a, b) -> set[frozenset]:
    """Minimal sets of tile cells crossed by the <=2-turn paths a->b that avoid walls, from the
    oracle's plain path enumeration on the grid with every tile lifted."""
    open_grid = [[0 if v > 0 else v for v in row] for row in grid]
    rows, cols = len(grid), len(grid[0])
    sets = set()
    for path in O.iter_paths(open_grid, a, b, border):
        sets.add(frozenset((r, c) for r, c in path[1:-1]
                           if 0 <= r < rows and 0 <= c < cols and grid[r][c] > 0))
    return {s for s in sets if not any(t < s for t in sets)}


def test_pair_shapes_match_oracle_paths():
    checked = nonempty = 0
    for grid, border, _ in seeded_cases(4404, 250, settle_prob=0.0, min_fill=0.7):
        board = Board.from_grid(grid)
        w = board.cols + 2 * PAD
        lines = Lines(Grid(board, Rules(border=border)))
        cells = board.tiles()
        index = {to_padded(c, w): i for i, c in enumerate(cells)}
        for same in board.types().values():
            for i, a in enumerate(same):
                for b in same[i + 1:]:
                    got = {frozenset(cells[k] for k in s)
                           for s in pair_shapes(lines, to_padded(a, w), to_padded(b, w), index)}
                    want = _oracle_minimal_sets(grid, border, a, b)
                    assert got == want, \
                        f"\n{grid_text(grid)}\nborder={border} pair {a}-{b}: {got} != {want}"
                    checked += 1
                    nonempty += any(got)
    assert checked > 500 and nonempty > 100, (checked, nonempty)


# --------------------------------------------------------------------------- models, status mapping


@pytest.mark.parametrize("text, border, feasible", [
    ("1 2 1 2", False, False),         # each pair blocks the other
    ("1 2 1 2", True, True),           # ... unless the ring is open
    ("1 2\n2 1", True, False),         # no pair ever links
    ("1 2 3\n2 1 3", False, False),    # after the 3s the 1s and 2s cross in a closed block
    ("2 1\n4 4\n1 2", False, True),    # the 4s first, then both pairs through row 1
    (". # 4 3\n2 4 2 3", False, False),
    ("1 2 2 1", False, True),
    ("1 1 1 1\n2 3 3 2", False, True),  # the 2s wait for the 3s
    ("1 # 1", True, True),             # round the wall by the ring
    ("1 # 1", False, False),           # the wall is never passable
])
@pytest.mark.parametrize("probe", [False, True])
def test_build_model_feasibility(text, border, feasible, probe):
    board = Board.from_grid(O.parse(text))
    assert O.brute_solve(board.grid(), border, "none") is feasible  # the oracle agrees
    model, handles = build_model(board, Rules(border=border), probe=probe)
    result = solve_model(model, handles, deterministic_limit=10.0)
    want = ("OPTIMAL", "FEASIBLE") if feasible else ("INFEASIBLE",)
    assert result.stats["cpsat_status"] in want, result.stats
    if feasible:
        res = replay(board, Rules(border=border), result.order)
        assert res.ok and res.cleared, res.describe()
    else:
        assert result.status == "unsolvable" and result.order is None


def _full_board(rows: int, cols: int, copies: int, seed: int) -> Board:
    rng = random.Random(seed)
    tiles = [t for t in range(1, rows * cols // copies + 1) for _ in range(copies)]
    rng.shuffle(tiles)
    return Board.from_grid([tiles[r * cols:(r + 1) * cols] for r in range(rows)])


def test_tiny_limit_is_unknown_never_unsolvable():
    """A limit hit is UNKNOWN -> 'unknown' (full 8x12 board, probing off, 1e-4 det. seconds)."""
    board = _full_board(8, 12, 4, 0)
    model, handles = build_model(board, Rules(border=True), probe=False)
    result = solve_model(model, handles, deterministic_limit=1e-4)
    assert result.stats["cpsat_status"] == "UNKNOWN"
    assert (result.status, result.order) == ("unknown", None)


def test_model_invalid_raises():
    model = cp_model.CpModel()
    model.new_int_var(0, 1, "v")
    domain = model.proto.variables[0].domain
    domain[0], domain[1] = 1, 0  # an ill-formed domain: CP-SAT reports MODEL_INVALID
    handles = CpsatHandles([], [], [], [], [])
    with pytest.raises(RuntimeError, match="invalid CP-SAT model"):
        solve_model(model, handles)


def test_gravity_is_refused():
    board = Board.from_grid([[1, 1]])
    with pytest.raises(ValueError, match="gravity"):
        solve_cpsat(board, Rules(gravity="down"), Budget())
    with pytest.raises(ValueError, match="gravity"):
        build_model(board, Rules(gravity="left"))


def test_empty_board_is_solvable():
    status, order, stats = solve_cpsat(Board.from_grid([[0, -1], [0, 0]]), Rules(), Budget())
    assert (status, order) == ("solvable", [])
    assert {"cpsat_status", "branches", "conflicts", "vars", "constraints"} <= stats.keys()


def test_budget_mapping():
    det = 200_000 / NODES_PER_DET_SECOND
    assert budget_limits(Budget(nodes=200_000, seconds=None)) == (det, None)
    assert budget_limits(Budget(nodes=None, seconds=2.5)) == (None, 2.5)


def test_deterministic_and_hint_safe():
    """Same board and budget: same answer, same order, same search counters. A hint (here the
    brute order, or garbage) never changes correctness."""
    board, rules = _full_board(4, 6, 4, 3), Rules(border=True)
    first = solve_cpsat(board, rules, SMALL_LIMIT)
    again = solve_cpsat(board, rules, SMALL_LIMIT)
    assert first[:2] == again[:2]
    assert {k: first[2][k] for k in ("branches", "conflicts")} == \
        {k: again[2][k] for k in ("branches", "conflicts")}
    expected = O.brute_solve(board.grid(), True, "none")
    brute = O.brute_solution(board.grid(), True, "none") or []
    for hint in (brute, [((0, 0), (3, 5)), ((9, 9), (0, 1))]):
        status, order, _ = solve_cpsat(board, rules, SMALL_LIMIT, hint=hint)
        assert _check(board.grid(), True, expected, status, order) is None


def test_full_board_witness_replays():
    """A full 6x8 board (12 types x 4, ring on): decided, and a witness replays."""
    board, rules = _full_board(6, 8, 4, 5), Rules(border=True)
    status, order, stats = solve_cpsat(board, rules, Budget(nodes=20 * NODES_PER_DET_SECOND))
    assert status in ("solvable", "unsolvable"), stats
    if status == "solvable":
        result = replay(board, rules, order)
        assert result.ok and result.cleared, result.describe()


# --------------------------------------------------------------------------- CP-SAT vs brute


def test_profiles_hold_both_answers():
    for name in PROFILES:
        data = _cases(name, False)
        unsolvable = sum(not e for _, e in data)
        assert 0.03 * len(data) <= unsolvable <= 0.97 * len(data), (name, unsolvable)
        assert {border for (_, border), _ in data} == {True, False}, name


@pytest.mark.parametrize("probe", [True, False], ids=["probed", "raw-model"])
@pytest.mark.parametrize("profile", sorted(PROFILES))
def test_cpsat_matches_brute(profile, probe):
    wrong, counts = _sweep(profile, slow=False, probe=probe)
    assert not wrong, f"{len(wrong)} wrong answers {counts}; first ones:" + "".join(wrong[:5])


@equivalence(100)
@given(grid=grids(settle=False), border=st.booleans(), probe=st.booleans())
def test_cpsat_matches_brute_on_drawn_boards(grid, border, probe):
    """The profiles' check on one drawn board, probed or the raw model, so a failure shrinks."""
    board, rules = Board.from_grid(grid), Rules(border=border)
    if probe:
        status, order, _stats = solve_cpsat(board, rules, SMALL_LIMIT)
    else:
        model, handles = build_model(board, rules, probe=False)
        result = solve_model(model, handles, deterministic_limit=budget_limits(SMALL_LIMIT)[0])
        status, order = result.status, result.order
    problem = _check(grid, border, O.brute_solve(grid, border, "none"), status, order)
    assert problem is None, problem


@pytest.mark.slow
@pytest.mark.parametrize("probe", [True, False], ids=["probed", "raw-model"])
@pytest.mark.parametrize("profile", sorted(PROFILES))
def test_cpsat_matches_brute_slow(profile, probe):
    wrong, counts = _sweep(profile, slow=True, probe=probe)
    assert not wrong, f"{len(wrong)} wrong answers {counts}; first ones:" + "".join(wrong[:5])


# --------------------------------------------------------------------------- routing


def _walled(rows: int, cols: int, types: int, copies: int, walls: int, seed: int) -> Board:
    rng = random.Random(seed)
    cells = list(range(rows * cols))
    rng.shuffle(cells)
    flat = [0] * (rows * cols)
    for c in cells[:walls]:
        flat[c] = -1
    tiles = [t for t in range(1, types + 1) for _ in range(copies)]
    for c, t in zip(cells[walls:], tiles):
        flat[c] = t
    return Board(rows, cols, tuple(flat))


def test_cpsat_suits_reads_board_features():
    """The routing test looks at walls, types and pair count only (see its docstring)."""
    from llkgen.verifier.cpsat import SUITS_MAX_PAIRS, cpsat_suits

    walled = _walled(12, 12, 4, 28, 29, 1)             # 20% walls, 4 types x 28
    assert cpsat_suits(walled, Rules()) and cpsat_suits(walled, Rules(border=False))
    assert not cpsat_suits(walled, Rules(gravity="down"))  # the model is gravity none only
    assert not cpsat_suits(_walled(12, 12, 4, 28, 0, 1), Rules())   # no walls: the search wins
    assert not cpsat_suits(_walled(12, 12, 4, 28, 22, 1), Rules())  # 15% walls: the same
    assert not cpsat_suits(_walled(12, 12, 6, 18, 29, 1), Rules())  # six types: no rescue seen
    crowded = _walled(16, 16, 2, 100, 52, 1)           # 2 x C(100, 2) pairs: too big a model
    assert 2 * 100 * 99 // 2 > SUITS_MAX_PAIRS and not cpsat_suits(crowded, Rules())
    assert not cpsat_suits(Board.from_grid([[-1, 0], [0, -1]]), Rules())  # no tiles


#: ``benchmarks/cpsat_bench.py``'s board 5 of class sparse-12x12-2x20 (30% walls, 2 types x
#: 20): the search alone left it unknown after 5 s, CP-SAT cleared it in about 0.1 CPU s.
STUBBORN_SPARSE = """
. 1 # 2 2 . . 2 2 # 2 .
2 # . 1 . . 2 . . 1 . .
. # . . # . . # . # # 1
. # 2 . . . 2 . 1 . # 1
# . . # . . 2 # . . # .
1 . . # # # . 1 2 1 # #
# 1 . 2 . . # # . . . 1
2 2 2 # . . 1 # # . . 2
# . . . 2 2 # # 1 . # #
# . 1 . # . 1 # . # . 1
1 # # # 1 2 # . . . 1 .
. . # # # # . . # . 1 2
"""


def test_auto_hands_a_stubborn_walled_board_to_cpsat():
    """On a board ``cpsat_suits`` accepts, ``auto`` gives the search its nodes (here half the
    budget) and CP-SAT the rest; the verdict names the ``cpsat`` stage and its witness replays. The
    search alone, with the whole budget, stays undecided: the route is what decides it."""
    from llkgen.verifier import verify
    from llkgen.verifier.cpsat import cpsat_suits

    board, rules, budget = Board.from_text(STUBBORN_SPARSE), Rules(border=True), Budget(nodes=200)
    assert cpsat_suits(board, rules)
    alone = verify(board, rules, budget, engine="search")
    assert (alone.status, alone.stats["stage"]) == ("unknown", "pairing-search"), alone.reason
    routed = verify(board, rules, budget)
    assert (routed.status, routed.stats["stage"]) == ("solvable", "cpsat"), routed.reason
    assert 100 <= routed.stats["search_nodes"] < 200  # half the node budget, then CP-SAT
    ok, final, bad = O.oracle_replay(board.grid(), True, "none", routed.solution)
    assert ok and O.is_cleared(final), bad
    # The same tiles without the walls: rejected by the classifier, so the search alone runs.
    open_board = Board.from_text(STUBBORN_SPARSE.replace("#", "."))
    assert not cpsat_suits(open_board, rules)
    assert verify(open_board, rules, budget).stats["stage"] != "cpsat"


def _walled_case(rng: random.Random) -> tuple[Board, bool]:
    """A small board ``cpsat_suits`` accepts: 20-40% walls, 1-4 types, at most 14 tiles."""
    rows, cols = rng.randint(3, 5), rng.randint(3, 6)
    n = rows * cols
    cells = list(range(n))
    rng.shuffle(cells)
    nw = -(-n * rng.choice((20, 25, 30, 40)) // 100)
    types = rng.randint(1, 4)
    tiles = [1, 1]
    while True:
        t, copies = rng.randint(1, types), rng.choice((2, 2, 4, 4, 6))
        if len(tiles) + copies > min(n - nw, 14):
            break
        tiles += [t] * copies
    rng.shuffle(tiles)
    flat = [0] * n
    for c in cells[:nw]:
        flat[c] = -1
    for c, t in zip(cells[nw:], tiles):
        flat[c] = t
    return Board(rows, cols, tuple(flat)), rng.random() < 0.6


def _auto_sweep(seed: int, count: int) -> tuple[list[str], dict]:
    """``auto`` against brute force on walled few-type boards, 200 nodes each. The callers
    make the search hand over after one node, so CP-SAT (0.2 deterministic seconds) decides
    every board the lock test, the flow check and that node leave. ``unknown`` is allowed,
    a wrong answer or a refused witness never."""
    from llkgen.verifier import verify
    from llkgen.verifier.cpsat import cpsat_suits

    rng = random.Random(seed)
    wrong, counts = [], {}
    for _ in range(count):
        board, border = _walled_case(rng)
        rules, grid = Rules(border=border), board.grid()
        assert cpsat_suits(board, rules), grid_text(grid)
        v = verify(board, rules, Budget(nodes=200))
        key = f"{v.stats['stage']}/{v.status}"
        counts[key] = counts.get(key, 0) + 1
        if v.status != "unknown":
            problem = _check(grid, border, O.brute_solve(grid, border, "none"), v.status, v.solution)
            if problem is not None:
                wrong.append(f" [{v.stats['stage']}]" + problem)
    return wrong, counts


def test_auto_with_cpsat_matches_brute(monkeypatch):
    monkeypatch.setattr("llkgen.verifier.portfolio.HANDOVER_NODES", 1)
    wrong, counts = _auto_sweep(5151, 150)
    assert not wrong, f"{len(wrong)} wrong answers {counts}; first ones:" + "".join(wrong[:5])
    assert counts.get("cpsat/solvable", 0) >= 25, counts  # 47 when written


@pytest.mark.slow
def test_auto_with_cpsat_matches_brute_slow(monkeypatch):
    monkeypatch.setattr("llkgen.verifier.portfolio.HANDOVER_NODES", 1)
    wrong, counts = _auto_sweep(5151 * 7919, 3000)
    assert not wrong, f"{len(wrong)} wrong answers {counts}; first ones:" + "".join(wrong[:5])
    assert counts.get("cpsat/solvable", 0) >= 500, counts
