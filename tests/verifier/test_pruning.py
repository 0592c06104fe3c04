"""Every pruning rule of the verifier, each checked on its own against the brute-force oracle:
none may ever discard a solvable board (or a solvable branch).

The rules: the lock test (root and with partner restrictions), its hinted replay (same
fixpoint as a cold run), the safe-move closure of the pairing search, failed-pairing probing,
the flow pairing check, clearing a type from the top under gravity, and the pinned fixture
boards in tests/data.

The seeded samples also count how often each rule fires, so a rule that stopped firing fails
rather than passes vacuously. The same checks run board by board under Hypothesis at the end,
where a failure shrinks to a small board and reproduces.
"""

from __future__ import annotations

import json
import random

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from llkgen.formats.level import load_level
from llkgen.game.board import Board, Rules
from llkgen.game.grid import PAD, Grid, to_padded
from llkgen.game.path import removable_pairs
from llkgen.game.referee import play, replay
from llkgen.verifier import Budget, root_lock, verify
from llkgen.verifier.lock import locked_tiles, root_partners
from llkgen.verifier.movesearch import MoveSearch
from llkgen.verifier.pairing import PairingSearch
from llkgen.verifier.pairing_check import pairing_check

from oracle import brute_solution, brute_solve, oracle_gravity
from paths import DATA
from strategies import drawn, equivalence, grids, random_grid


def _no_gravity_cases(seed: int, n: int, **kw):
    rng = random.Random(seed)
    out = []
    while len(out) < n:
        grid = random_grid(rng, **kw)
        board = Board.from_grid(grid)
        if board.tile_count:
            out.append((grid, board, Rules(border=rng.random() < 0.5)))
    return out


CASES = _no_gravity_cases(20261130, 1500)
TRUTH = {i: brute_solve(g, r.border, "none") for i, (g, _, r) in enumerate(CASES)}


def test_the_sample_has_both_verdicts():
    assert 100 < sum(TRUTH.values()) < len(TRUTH) - 100


def test_root_lock_test_never_locks_a_solvable_board():
    fired = 0
    for i, (_grid, board, rules) in enumerate(CASES):
        if root_lock(board, rules):
            fired += 1
            assert not TRUTH[i], f"lock test fired on a solvable board:\n{board}\n{rules}"
    assert fired > 50  # the test must exercise the rule


def test_lock_test_with_a_fixed_pairing_never_locks_the_solution_pairing():
    """Inside the search a tile may only use its fixed partner: restricted to the pairing of
    a real solution, the test must still pass."""
    checked = 0
    for i, (grid, board, rules) in enumerate(CASES):
        if not TRUTH[i]:
            continue
        solution = brute_solution(grid, rules.border, "none")
        w = board.cols + 2 * PAD
        partners = {}
        for a, b in solution:
            pa, pb = to_padded(a, w), to_padded(b, w)
            partners[pa], partners[pb] = [pb], [pa]
        assert locked_tiles(Grid(board, rules), list(partners), partners) == []
        checked += 1
    assert checked > 100


def test_hinted_lock_test_reaches_the_same_fixpoint():
    """The replayed parent order is only a speed-up: after a real move and with tighter
    partners, a hinted run and a cold run agree."""
    rng = random.Random(3)
    compared = 0
    for _grid, board, rules in CASES[:600]:
        g = Grid(board, rules)
        alive, partners = root_partners(g)
        types = g.by_type()
        order: list = []
        if locked_tiles(g, alive, partners, (), order):
            continue
        # play one legal move for real and forbid one random pair of another type
        pairs = [(p, q) for ps in types.values() for i, p in enumerate(ps) for q in ps[i + 1:]
                 if g.link(p, q)]
        if not pairs:
            continue
        p, q = rng.choice(pairs)
        g2 = g.copy()
        g2.remove(p, q)
        alive2 = [x for x in alive if x not in (p, q)]
        partners2 = {x: [y for y in partners[x] if y not in (p, q)] for x in alive2}
        if alive2 and rng.random() < 0.5:
            x = rng.choice(alive2)
            if partners2[x]:
                y = rng.choice(partners2[x])
                partners2[x] = [z for z in partners2[x] if z != y]
                partners2[y] = [z for z in partners2[y] if z != x]
        cold = locked_tiles(g2, alive2, partners2)
        warm = locked_tiles(g2, alive2, partners2, order)
        assert sorted(cold) == sorted(warm), f"{board}\n{rules}"
        compared += 1
    assert compared > 200


def test_safe_move_closure_keeps_solvable_boards_solvable():
    """The closure plays forced pairs and whole-type clearings without branching; from a
    solvable board, the board it leaves must still be solvable."""
    checked = 0
    for i, (_grid, board, rules) in enumerate(CASES):
        if not TRUTH[i]:
            continue
        search = PairingSearch(board, rules, Budget(nodes=10))
        assert search.closure(search.types), f"closure declared a solvable board dead:\n{board}"
        if not search.moves:
            continue
        order = [((p // search.w - PAD, p % search.w - PAD), (q // search.w - PAD, q % search.w - PAD))
                 for p, q in search.moves]
        result = replay(board, rules, order)
        assert result.ok
        assert brute_solve(result.final.grid(), rules.border, "none"), (
            f"closure moves {order} lost the solution of\n{board}\n{rules}")
        checked += 1
    assert checked > 100


def test_probing_never_forbids_every_pairing_of_a_solvable_board():
    checked = 0
    for i, (_grid, board, rules) in enumerate(CASES):
        if not TRUTH[i]:
            continue
        search = PairingSearch(board, rules, Budget(nodes=10))
        assert search.closure(search.types)
        order: list = []
        if search.locked((), order):
            pytest.fail(f"lock test fired on a solvable board:\n{board}")
        dirty = search.probe(order)
        assert search.closure(dirty), f"probing forbade every pairing of a type:\n{board}\n{rules}"
        checked += 1
    assert checked > 100


def test_flow_pairing_check_never_fires_on_a_solvable_board():
    fired = 0
    for i, (_grid, board, rules) in enumerate(CASES):
        if pairing_check(board, rules) is not None:
            fired += 1
            assert not TRUTH[i], f"pairing check fired on a solvable board:\n{board}"
    assert fired > 10


def test_search_without_lock_or_probing_agrees_with_the_full_search():
    """The quick dive (no lock test, no probing) is itself an exact search."""
    for i, (_grid, board, rules) in enumerate(CASES[:400]):
        order = PairingSearch(board, rules, Budget(nodes=None), lock=False, probe=False).search()
        assert (order is not None) == TRUTH[i], f"{board}\n{rules}"


def _settled_gravity_cases(seed: int, n: int):
    """Settled boards in every direction, half of them a few random moves into play (where
    types with two tiles left at the tops of their runs are common)."""
    rng = random.Random(seed)
    out = []
    while len(out) < n:
        board, rules = _gravity_case(rng)
        if board.tile_count:
            out.append((board, rules))
    return out


def _gravity_case(rng: random.Random) -> tuple[Board, Rules]:
    """One settled board, zero to three random moves into play."""
    gravity = rng.choice(["down", "up", "left", "right"])
    grid = oracle_gravity(random_grid(rng, max_rows=5, max_cols=5), gravity)
    board, rules = Board.from_grid(grid), Rules(border=rng.random() < 0.5, gravity=gravity)
    for _ in range(rng.choice([0, 0, 1, 2, 3])):
        moves = removable_pairs(board, rules)
        if not moves:
            break
        m = rng.choice(moves)
        board = play(board, rules, m.a, m.b)
    return board, rules


def test_clearing_a_type_from_the_top_keeps_solvable_gravity_boards_solvable():
    """Under gravity the move search clears, without branching, any type whose tiles are all
    at the far ends of their runs, when its own moves can clear it. From a solvable board the
    board it leaves must still be solvable, and the moves must replay."""
    fired = 0
    for board, rules in _settled_gravity_cases(20261201, 3000):
        search = MoveSearch(board, rules, Budget(nodes=10))
        grid = search.root.copy()
        played = search.closure(grid)
        if not played:
            continue
        fired += 1
        result = replay(board, rules, played)
        assert result.ok and result.final == grid.to_board(), f"{board}\n{rules}\n{played}"
        if brute_solve(board.grid(), rules.border, rules.gravity):
            assert brute_solve(result.final.grid(), rules.border, rules.gravity), (
                f"clearing from the top lost the solution of\n{board}\n{rules}\nplayed {played}")
    assert fired > 500


def test_move_search_race_and_restarts_agree_with_brute_force(monkeypatch):
    """With no head start and turns of one node, every line of the race and the restarts
    take part on small boards; the verdict must still be brute force's, the witness must
    replay, and the search must stay complete."""
    import llkgen.verifier.movesearch as movesearch

    monkeypatch.setattr(movesearch, "SLICE", 1)
    for board, rules in _settled_gravity_cases(20261203, 800):
        truth = brute_solve(board.grid(), rules.border, rules.gravity)
        found = MoveSearch(board, rules, Budget(nodes=None), dive=0).search()
        assert (found is not None) == truth, f"{board}\n{rules}"
        if found is not None:
            res = replay(board, rules, found)
            assert res.ok and res.cleared


def test_move_search_with_and_without_the_rule_agree_with_brute_force():
    for board, rules in _settled_gravity_cases(20261202, 1200):
        truth = brute_solve(board.grid(), rules.border, rules.gravity)
        for safe in (True, False):
            found = MoveSearch(board, rules, Budget(nodes=None), safe=safe).search()
            assert (found is not None) == truth, f"safe={safe}\n{board}\n{rules}"
            if found is not None:
                res = replay(board, rules, found)
                assert res.ok and res.cleared


PINNED = sorted(DATA.glob("*.json"))


@pytest.mark.parametrize("path", [p for p in PINNED if "expect" in json.loads(p.read_text())],
                         ids=lambda p: p.stem)
def test_pinned_verdicts(path):
    level = load_level(path)
    verdict = verify(level.board, level.rules, Budget(nodes=100_000))
    assert verdict.status == level.extra["expect"]
    truth = brute_solve(level.board.grid(), level.rules.border, level.rules.gravity)
    assert truth == (level.extra["expect"] == "solvable")


def test_greedy_trap_really_traps_greedy_play():
    level = load_level(DATA / "greedy-trap.json")
    board = level.board
    while True:
        moves = removable_pairs(board, level.rules)
        if not moves:
            break
        board = play(board, level.rules, moves[0].a, moves[0].b)
    assert not board.is_cleared()


# -- the same rules under Hypothesis: a failure shrinks to a small board -------------------------


@equivalence(300)
@given(grid=grids(settle=False), border=st.booleans())
def test_every_rule_without_gravity_keeps_a_drawn_board_solvable(grid, border):
    """The lock test, the flow pairing check, the lock test on a solution's pairing, the
    closure, probing and the search without lock or probing, on one board."""
    board, rules = Board.from_grid(grid), Rules(border=border)
    assume(board.tile_count)
    truth = brute_solve(grid, border, "none")
    assert not (root_lock(board, rules) and truth), "the lock test fired on a solvable board"
    assert not (pairing_check(board, rules) is not None and truth), "the pairing check fired on a solvable board"
    found = PairingSearch(board, rules, Budget(nodes=None), lock=False, probe=False).search()
    assert (found is not None) == truth, "the search without lock or probing"
    if not truth:
        return
    w = board.cols + 2 * PAD
    partners = {}
    for a, b in brute_solution(grid, border, "none"):
        pa, pb = to_padded(a, w), to_padded(b, w)
        partners[pa], partners[pb] = [pb], [pa]
    assert locked_tiles(Grid(board, rules), list(partners), partners) == [], "the lock test on a solution's pairing"
    search = PairingSearch(board, rules, Budget(nodes=10))
    assert search.closure(search.types), "the closure declared a solvable board dead"
    if search.moves:
        order = [((p // search.w - PAD, p % search.w - PAD), (q // search.w - PAD, q % search.w - PAD))
                 for p, q in search.moves]
        result = replay(board, rules, order)
        assert result.ok and brute_solve(result.final.grid(), border, "none"), f"the closure's {order}"
    order = []
    assert not search.locked((), order), "the lock test fired on a solvable board after the closure"
    assert search.closure(search.probe(order)), "probing forbade every pairing of a type"


@equivalence(150)
@given(case=drawn(_gravity_case))
def test_every_rule_under_gravity_keeps_a_drawn_board_solvable(case):
    """Clearing a type from the top, the move search with and without that rule, and the race
    and restarts with turns of one node, on one board."""
    import llkgen.verifier.movesearch as movesearch

    board, rules = case
    assume(board.tile_count)
    truth = brute_solve(board.grid(), rules.border, rules.gravity)
    search = MoveSearch(board, rules, Budget(nodes=10))
    grid = search.root.copy()
    played = search.closure(grid)
    if played:
        result = replay(board, rules, played)
        assert result.ok and result.final == grid.to_board(), played
        assert not truth or brute_solve(result.final.grid(), rules.border, rules.gravity), \
            f"clearing from the top lost the solution: played {played}"
    found = {f"safe={safe}": MoveSearch(board, rules, Budget(nodes=None), safe=safe).search() for safe in (True, False)}
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(movesearch, "SLICE", 1)
        found["race"] = MoveSearch(board, rules, Budget(nodes=None), dive=0).search()
    for name, moves in found.items():
        assert (moves is not None) == truth, name
        if moves is not None:
            res = replay(board, rules, moves)
            assert res.ok and res.cleared, name
