"""``llkgen.verifier.verify`` checked against the exhaustive brute-force solver in tests/oracle.py.

On thousands of small seeded boards (every gravity, border on and off, walls,
empties, types with 2, 4 and 6 copies, boards at rest and boards not yet
settled):

* ``solvable`` must be true (brute finds a clearing order), and its moves must
  pass ``llkgen.game.referee.replay`` with ``cleared=True`` *and* the oracle's own
  replay, each drawn path being a legal polyline on the board of its moment;
* ``unsolvable`` must be true (brute finds no clearing order);
* ``unknown`` is allowed at a generous node budget only on under 1% of boards,
  and at tiny budgets a verdict that is not ``unknown`` must still be right.

All boards come from fixed seeds, so a failure reproduces exactly.  The sweep
10x larger runs with ``pytest -m slow``.
"""

from __future__ import annotations

import functools
import inspect

import pytest
from hypothesis import given

import llkgen.verifier as verify_mod
from llkgen.game.board import Board, Rules
from llkgen.game.referee import replay
from llkgen.verifier import Budget, verify

import oracle as O
from strategies import cases, equivalence, grid_text, seeded_cases

GENEROUS = 200_000  # nodes; far above what any board here needs
MAX_UNKNOWN_RATE = 0.01

# name -> (seed, count in the default run, generator keywords).  The slow sweep uses 10x the count
# with a different seed, so it covers new boards rather than repeating these.
PROFILES = {
    # The default mix: any size up to 5x6, up to 12 tiles, half the boards with walls.
    "mixed": (1001, 2500, {}),
    # Crowded: every free cell a tile (up to 14), the ring mostly off: most unsolvable boards.
    "crowded": (2002, 2500, dict(min_fill=1.0, max_tiles=14, border_prob=0.3, wall_prob=0.3)),
    # Few types with many copies: many interchangeable pairs, where a wrong choice of partner
    # dooms the board; the case that tempts solvers into unsound shortcuts.
    "many-copies": (3003, 1200, dict(min_fill=1.0, max_tiles=14, max_types=2, copies=(4, 6))),
}
ENGINES = ("auto", "search", "cpsat", "baseline")


def _engine_kw(engine: str) -> dict:
    """Keyword arguments selecting ``engine``; skips the test if verify has no such engine."""
    params = inspect.signature(verify).parameters
    if "engine" not in params:
        if engine != "auto":
            pytest.skip("verify() takes no engine= argument")
        return {}
    known = getattr(verify_mod, "ENGINES", None)
    if known is not None and engine not in known:
        pytest.skip(f"verify() has no engine {engine!r} (engines: {', '.join(known)})")
    return {"engine": engine}


@functools.lru_cache(maxsize=None)
def _profile_cases(name: str, slow: bool) -> tuple:
    """((grid, border, gravity), brute verdict) pairs for one profile; computed once per session."""
    seed, count, kw = PROFILES[name]
    if slow:
        seed, count = seed * 7919, count * 10
    return tuple((case, O.brute_solve(*case)) for case in seeded_cases(seed, count, **kw))


def _describe(case, expected, verdict=None, extra="") -> str:
    grid, border, gravity = case
    got = "" if verdict is None else f" got={verdict.status} ({verdict.reason})"
    return (f"\n{grid_text(grid)}\ngrid={grid} border={border} gravity={gravity} "
            f"brute={'solvable' if expected else 'unsolvable'}{got} {extra}")


def check_verdict(case, expected: bool, verdict) -> str | None:
    """Why ``verdict`` is wrong for ``case`` (brute answer ``expected``), or None if it is right."""
    grid, border, gravity = case
    status = verdict.status
    if status not in ("solvable", "unsolvable", "unknown"):
        return _describe(case, expected, verdict, "status outside the contract")
    if not isinstance(verdict.reason, str) or not verdict.reason:
        return _describe(case, expected, verdict, "verdict without a reason")
    if status == "unknown":
        return None
    if status == "unsolvable":
        if expected:
            return _describe(case, expected, verdict,
                             f"CLAIMS UNSOLVABLE; brute clears it by {O.brute_solution(*case)}")
        if not verdict.proof:
            return _describe(case, expected, verdict, "unsolvable without a proof")
        return None
    # solvable
    order = [(tuple(m.a), tuple(m.b)) for m in verdict.moves]
    if not expected:
        return _describe(case, expected, verdict, f"CLAIMS SOLVABLE by {order}")
    result = replay(Board.from_grid(grid), Rules(border=border, gravity=gravity), order)
    if not (result.ok and result.cleared):
        return _describe(case, expected, verdict, f"witness {order} refused: {result.describe()}")
    g = O.thaw(grid)
    for i, m in enumerate(verdict.moves):
        a, b = tuple(m.a), tuple(m.b)
        if not O.is_legal(g, a, b, border):
            return _describe(case, expected, verdict, f"oracle refuses move {i} {a}-{b} of {order}")
        problem = O.check_polyline(g, [tuple(p) for p in m.path], a, b, border)
        if problem is not None:
            return _describe(case, expected, verdict, f"move {i} path {m.path}: {problem}")
        g = O.apply_move(g, a, b, gravity)
    if not O.is_cleared(g):
        return _describe(case, expected, verdict, f"oracle replay of {order} leaves tiles")
    return None


def _sweep(name: str, engine: str, slow: bool, nodes: int = GENEROUS):
    """(wrong verdict descriptions, unknown count, board count, status counts)."""
    kw = _engine_kw(engine)
    wrong, unknown, counts = [], 0, {}
    data = _profile_cases(name, slow)
    for case, expected in data:
        grid, border, gravity = case
        verdict = verify(Board.from_grid(grid), Rules(border=border, gravity=gravity),
                         Budget(nodes=nodes), **kw)
        counts[verdict.status] = counts.get(verdict.status, 0) + 1
        unknown += verdict.status == "unknown"
        problem = check_verdict(case, expected, verdict)
        if problem is not None:
            wrong.append(problem)
    return wrong, unknown, len(data), counts


def _assert_sweep(name: str, engine: str, slow: bool):
    wrong, unknown, total, counts = _sweep(name, engine, slow)
    assert not wrong, f"{len(wrong)} wrong verdicts of {total} ({engine}); first ones:" + "".join(wrong[:5])
    assert unknown <= MAX_UNKNOWN_RATE * total, f"{unknown} of {total} unknown at {GENEROUS} nodes: {counts}"


# --------------------------------------------------------------------------- the brute oracle itself


@pytest.mark.parametrize("text, border, gravity, expected", [
    (".", True, "none", True),                       # nothing to clear
    ("# .\n. #", False, "down", True),                # walls stay; no tiles is cleared
    ("1 1", False, "none", True),
    ("1 2 . 2 1", False, "none", True),               # inner pair first, then the outer one
    ("1 2 1 2", False, "none", False),                # each pair blocks the other
    ("1 2 1 2", True, "none", True),                  # ... unless the ring is open
    ("1 2 1 2", False, "left", False),                # gravity cannot help: no first move
    ("1 2\n2 1", True, "none", False),                # no pair links, ring or not
    ("1 2\n2 1", True, "down", False),
    # Border off. Only the 3s can go first; then the 1s and 2s cross in a closed 2x2 block.
    # Gravity down changes nothing (columns 0 and 1 have no gap).
    ("1 2 3\n2 1 3", False, "none", False),
    ("1 2 3\n2 1 3", False, "down", False),
    # Gravity hurts: without it, removing the 4s opens row 1 and both pairs link through it
    # with two turns; with gravity down the 2s and 1s fall into a crossed 2x2 block.
    ("2 1\n4 4\n1 2", False, "none", True),
    ("2 1\n4 4\n1 2", False, "down", False),
    # Gravity helps: without it, after the 3s go the 4 at (1, 1) is boxed in by the wall and
    # both 2s; with gravity right the rows close up to ". # . 4 / . 2 4 2", the 4s link round
    # (0, 2), then the 2s slide together.
    (". # 4 3\n2 4 2 3", False, "none", False),
    (". # 4 3\n2 4 2 3", False, "right", True),
])
def test_brute_hand_cases(text, border, gravity, expected):
    grid = O.parse(text)
    assert O.brute_solve(grid, border, gravity) is expected
    solution = O.brute_solution(grid, border, gravity)
    if expected:
        ok, final, _ = O.oracle_replay(grid, border, gravity, solution)
        assert ok and O.is_cleared(final)


def test_brute_witnesses_replay_in_library():
    """Brute's clearing orders are accepted by the library referee too (the two judges agree)."""
    checked = 0
    for (grid, border, gravity), solvable in _profile_cases("mixed", False)[:600]:
        if not solvable:
            continue
        order = O.brute_solution(grid, border, gravity)
        result = replay(Board.from_grid(grid), Rules(border=border, gravity=gravity), order)
        assert result.ok and result.cleared, _describe((grid, border, gravity), True, None, str(order))
        checked += 1
    assert checked > 300


def test_profiles_are_not_trivial():
    """The sweeps only mean something if they hold plenty of both answers and of tiles."""
    for name in PROFILES:
        data = _profile_cases(name, False)
        unsolvable = sum(not expected for _, expected in data)
        tiles = [len(O.tile_cells(case[0])) for case, _ in data]
        assert unsolvable >= 0.03 * len(data), (name, unsolvable)
        assert sum(t >= 8 for t in tiles) >= 0.2 * len(data), name
        gravities = {case[2] for case, _ in data}
        assert len(gravities) == 5 and {case[1] for case, _ in data} == {True, False}, name


# --------------------------------------------------------------------------- verify vs brute


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("profile", sorted(PROFILES))
def test_verify_matches_brute(profile, engine):
    _assert_sweep(profile, engine, slow=False)


@pytest.mark.slow
@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("profile", sorted(PROFILES))
def test_verify_matches_brute_slow(profile, engine):
    _assert_sweep(profile, engine, slow=True)


@pytest.mark.parametrize("nodes", [1, 3, 10, 40])
def test_tiny_budgets_never_lie(nodes):
    """Running out of budget gives ``unknown``, never a wrong verdict."""
    kw = _engine_kw("auto")
    wrong = []
    for case, expected in _profile_cases("crowded", False)[:800]:
        grid, border, gravity = case
        verdict = verify(Board.from_grid(grid), Rules(border=border, gravity=gravity),
                         Budget(nodes=nodes), **kw)
        problem = check_verdict(case, expected, verdict)
        if problem is not None:
            wrong.append(problem)
    assert not wrong, f"{len(wrong)} wrong verdicts at {nodes} nodes; first ones:" + "".join(wrong[:5])


def test_verify_is_deterministic():
    """Same board, rules and node budget: same status, same witness."""
    kw = _engine_kw("auto")
    for case, _ in _profile_cases("many-copies", False)[:300]:
        grid, border, gravity = case
        board, rules = Board.from_grid(grid), Rules(border=border, gravity=gravity)
        first = verify(board, rules, Budget(nodes=GENEROUS), **kw)
        again = verify(board, rules, Budget(nodes=GENEROUS), **kw)
        assert (first.status, [m[:2] for m in first.moves]) == \
            (again.status, [m[:2] for m in again.moves]), _describe(case, None)


# A Hypothesis pass over the shared strategy: fixed (derandomized) so the run is reproducible, and
# it shrinks any failure to a small board.
@equivalence(300)
@given(case=cases(max_tiles=12))
def test_verify_matches_brute_hypothesis(case):
    _check_engine(case, "auto")


@pytest.mark.parametrize("engine", ["search", "baseline"])
def test_the_plain_engines_match_brute_hypothesis(engine):
    """``auto``'s shortcuts held to the plain searches and to brute force on the same drawn boards
    (the seeded sweeps above run every engine on thousands)."""

    @equivalence(150)
    @given(case=cases(max_tiles=12))
    def check(case):
        _check_engine(case, engine)

    check()


def _check_engine(case, engine: str) -> None:
    grid, border, gravity = case
    verdict = verify(Board.from_grid(grid), Rules(border=border, gravity=gravity),
                     Budget(nodes=GENEROUS), **_engine_kw(engine))
    expected = O.brute_solve(grid, border, gravity)
    problem = check_verdict(case, expected, verdict)
    assert problem is None, problem
    assert verdict.status != "unknown", _describe(case, expected, verdict)
