"""Tests for Dinic (llkgen.verifier.maxflow) against OR-Tools, and for the flow pairing check and the
locked-tile explanation (llkgen.analysis.explain) against brute force."""
from __future__ import annotations

import itertools
import json
import random

import pytest

from llkgen.analysis.explain import bottleneck, explain_locked
from llkgen.game.board import Board, Rules
from llkgen.game.grid import to_padded
from llkgen.verifier.maxflow import INF, FlowNetwork
from llkgen.verifier.pairing_check import PairingAnalysis, _hall, pairing_check

from oracle import apply_move, brute_solve, oracle_pairs, parse, tile_cells
from strategies import grid_text, random_grid

# ---------------------------------------------------------------- Dinic

def _random_network(rng: random.Random):
    n = rng.randint(2, 30)
    edges = [(rng.randrange(n), rng.randrange(n), rng.choice([0, 1, 1, 2, 3, rng.randint(0, 100)]))
             for _ in range(rng.randint(0, 4 * n))]
    edges = [(u, v, c) for u, v, c in edges if u != v]
    s, t = rng.sample(range(n), 2)
    return n, edges, s, t


def _ortools_value(n, edges, s, t) -> int:
    from ortools.graph.python import max_flow
    smf = max_flow.SimpleMaxFlow()
    for u, v, c in edges:
        smf.add_arc_with_capacity(u, v, c)
    if not edges:
        return 0
    assert smf.solve(s, t) == smf.OPTIMAL
    return smf.optimal_flow()


def _check_certificate(n, edges, s, t, res):
    """The flow is feasible, the cut separates s from t, and both have the same value."""
    side = set(res.source_side)
    assert s in side and t not in side
    assert list(res.source_side) == sorted(side)
    assert res.value == sum(c for _, _, c in res.cut_edges)
    expected_cut = sorted((u, v, c) for u, v, c in edges if c and u in side and v not in side)
    assert sorted(res.cut_edges) == expected_cut
    balance = [0] * n
    for (u, v, c), f in zip(edges, res.flows):
        assert 0 <= f <= c
        balance[u] -= f
        balance[v] += f
    assert balance[t] == res.value == -balance[s]
    assert all(b == 0 for x, b in enumerate(balance) if x not in (s, t))


def test_dinic_matches_ortools_on_random_graphs():
    rng = random.Random(20240611)
    for _ in range(600):
        n, edges, s, t = _random_network(rng)
        net = FlowNetwork(n)
        assert [net.add_edge(u, v, c) for u, v, c in edges] == list(range(len(edges)))
        res = net.max_flow(s, t)
        _check_certificate(n, edges, s, t, res)
        assert res.value == _ortools_value(n, edges, s, t)
        assert net.max_flow(s, t) == res          # the network is not consumed


def test_dinic_layered_deep_graph_has_no_recursion_limit():
    n = 5000                                     # one long path plus shortcuts
    net = FlowNetwork(n)
    for v in range(n - 1):
        net.add_edge(v, v + 1, 3)
    for v in range(0, n - 10, 7):
        net.add_edge(v, v + 10, 1)
    assert net.max_flow(0, n - 1).value == 3


def test_dinic_edge_cases():
    with pytest.raises(ValueError):
        FlowNetwork(3).max_flow(1, 1)
    with pytest.raises(ValueError):
        FlowNetwork(3).max_flow(0, 3)
    with pytest.raises(ValueError):
        FlowNetwork(3).add_edge(0, 1, -1)
    res = FlowNetwork(2).max_flow(0, 1)           # no edges
    assert (res.value, res.source_side, res.cut_edges) == (0, (0,), [])
    net = FlowNetwork(2)                          # parallel and zero-capacity edges
    net.add_edge(0, 1, 2)
    net.add_edge(0, 1, 5)
    net.add_edge(0, 1, 0)
    res = net.max_flow(0, 1)
    assert res.value == 7 and res.flows == (2, 5, 0)
    assert res.cut_edges == [(0, 1, 2), (0, 1, 5)]
    net = FlowNetwork(3)                          # INF edges do not hide a finite cut
    net.add_edge(0, 1, INF)
    net.add_edge(1, 2, 4)
    assert net.max_flow(0, 2).cut_edges == [(1, 2, 4)]
    assert net.max_flow(2, 0).value == 0          # only residual twins point backwards


# ---------------------------------------------------------------- board analyses
# Everything below is judged by the plain code in tests/oracle.py (which shares nothing with
# llkgen) and by the small BFS / brute-force helpers here.



def _connected(grid, a, b, border, blocked) -> bool:
    """BFS: a 4-connected path a -> b whose inner cells are non-wall and not in ``blocked``."""
    rows, cols = len(grid), len(grid[0])
    lo = -1 if border else 0
    seen, todo = {a}, [a]
    for r, c in todo:
        for n in ((r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1)):
            if n == b:
                return True
            inside = 0 <= n[0] < rows and 0 <= n[1] < cols
            ok = (grid[n[0]][n[1]] != -1 if inside else
                  lo <= n[0] <= rows - lo - 1 and lo <= n[1] <= cols - lo - 1)
            if ok and n not in seen and n not in blocked:
                seen.add(n)
                todo.append(n)
    return False


def _boards(seed: int, n: int, **kw):
    rng = random.Random(seed)
    for _ in range(n):
        yield random_grid(rng, **kw), rng.random() < 0.5


def test_bottleneck_is_a_minimum_tile_cut():
    fired = {"connected": 0, "separated": 0, "cut": 0}
    for grid, border in _boards(202, 500, wall_prob=0.7):
        board, rules = Board.from_grid(grid), Rules(border)
        tiles = tile_cells(grid)
        for a, b in itertools.combinations(tiles, 2):
            if grid[a[0]][a[1]] != grid[b[0]][b[1]]:
                continue
            cut = bottleneck(board, rules, a, b)
            others = [t for t in tiles if t not in (a, b)]
            if cut == ():
                fired["connected"] += 1
                assert _connected(grid, a, b, border, set(others))
            elif cut is None:
                fired["separated"] += 1
                assert not _connected(grid, a, b, border, set())
            else:
                fired["cut"] += 1
                assert list(cut) == sorted(set(cut)) and set(cut) <= set(others)
                assert not _connected(grid, a, b, border, set(cut))
                for k in range(len(cut)):          # no smaller set of tiles separates them
                    for smaller in itertools.combinations(others, k):
                        assert _connected(grid, a, b, border, set(smaller)), (grid_text(grid), a, b)
    assert min(fired.values()) > 20, fired


def test_bottleneck_examples_and_errors():
    board = Board.from_text("1 2 1\n. 3 .\n3 # 2")
    assert bottleneck(board, Rules(border=False), (0, 0), (0, 2)) == ((0, 1), (1, 1))
    assert bottleneck(board, Rules(border=True), (0, 0), (0, 2)) == ()
    walled = Board.from_text("1 # 1")
    assert bottleneck(walled, Rules(border=False), (0, 0), (0, 2)) is None
    with pytest.raises(ValueError):
        bottleneck(board, Rules(gravity="down"), (0, 0), (0, 2))
    for a, b in (((0, 0), (0, 0)), ((0, 0), (1, 0)), ((0, 0), (5, 5)), ((0, 0), (2, 1))):
        with pytest.raises(ValueError):
            bottleneck(board, Rules(), a, b)


def _all_clearings(grid, border):
    """Every clearing sequence, as {tile: step index} plus the pairs used."""
    out = []

    def walk(state, step, times, pairs):
        if not tile_cells(state):
            out.append((dict(times), list(pairs)))
            return
        for a, b in oracle_pairs(state, border):
            times[a] = times[b] = step
            pairs.append((a, b))
            walk(apply_move(state, a, b, "none"), step + 1, times, pairs)
            pairs.pop()
            del times[a], times[b]

    walk(grid, 0, {}, [])
    return out


def test_derived_facts_hold_in_every_clearing_sequence():
    """The facts pairing_check relies on, checked against every real solution."""
    boards = facts_seen = 0
    for grid, border in _boards(303, 800, wall_prob=0.8, max_tiles=8):
        clearings = _all_clearings(grid, border)
        if not clearings:
            continue
        pairing = PairingAnalysis(Board.from_grid(grid), Rules(border))
        pairing.derive()
        w, why = len(grid[0]) + 4, (grid_text(grid), border)
        boards += 1
        for times, pairs in clearings:
            for kind, first, then in pairing.order.facts:
                facts_seen += 1
                if kind == "same-step":
                    assert times[first[0]] == times[first[1]], (why, first)
                else:
                    assert all(times[y] < times[then[0]] for y in first), (why, first, then)
            for a, b in pairs:
                assert pairing.viable(to_padded(a, w), to_padded(b, w)), (why, a, b)
    assert boards > 500 and facts_seen > 4000, (boards, facts_seen)   # measured 738, 8600


def _check_proof_shape(grid, proof):
    assert all(grid[r][c] == proof.type for r, c in proof.cells + proof.partners)
    if proof.kind == "odd-component":
        assert len(proof.cells) % 2 == 1
    else:
        assert proof.kind == "hall" and len(proof.partners) < len(proof.cells)
    json.dumps(proof.to_json())


def _pairing_sweep(seed: int, n: int, **kw):
    """(boards, unsolvable, proofs by kind); fails on any proof for a solvable board."""
    counts = {"boards": 0, "unsolvable": 0, "odd-component": 0, "hall": 0}
    for grid, border in _boards(seed, n, **kw):
        proof = pairing_check(Board.from_grid(grid), Rules(border))
        solvable = brute_solve(grid, border, "none")
        counts["boards"] += 1
        counts["unsolvable"] += not solvable
        if proof is not None:
            assert not solvable, (grid_text(grid), border, proof)
            _check_proof_shape(grid, proof)
            counts[proof.kind] += 1
    return counts


def test_pairing_check_never_fires_on_a_solvable_board():
    counts = _pairing_sweep(404, 3000, wall_prob=0.8)
    # Measured: 3000 boards, 320 unsolvable, 319 proofs (all odd-component).
    assert counts["odd-component"] > 250, counts


@pytest.mark.slow
def test_pairing_check_sweep_slow():
    for seed, kw in ((505, dict(wall_prob=0.0)),
                     (506, dict(wall_prob=1.0, max_tiles=16, max_types=3, min_fill=0.9)),
                     (507, dict(max_rows=6, max_cols=6, max_tiles=14, wall_prob=1.0))):
        counts = _pairing_sweep(seed, 3000, **kw)
        assert counts["odd-component"] > 0, counts


STAR = """
# # # # # 1 #
# 1 # . . . #
# . # . # # #
# . . 1 # # #
# # # . # # #
# 1 . . # # #
# # # # # # #
"""


@pytest.mark.parametrize("text, border", [
    ("1 2\n2 1", False),                     # crossed pairs: each type waits for the other
    (". 1 2 1 4\n. . 4 2 .", False),          # a three-type chain of waiting
    (STAR, False),                           # three tiles whose only partner is one tile
    ("2 1 # # .\n. 3 3 # #\n1 # . 1 1\n. 3 2 # 3", False),  # needs: a paired tile is taken
])
def test_pairing_check_needs_its_facts(text, border):
    grid = parse(text)
    assert not brute_solve(grid, border, "none")
    board, rules = Board.from_grid(grid), Rules(border)
    proof = pairing_check(board, rules)
    assert proof is not None and proof.facts
    _check_proof_shape(grid, proof)
    relaxed = PairingAnalysis(board, rules)                  # walls-only relaxation, no facts
    if text is STAR:
        assert relaxed.matching_proof().kind == "hall"
        assert relaxed.matching_proof().partners == ((3, 3),)
    else:
        assert relaxed.matching_proof() is None


def test_hall_certificate():
    w = 14                                                   # tiles named by padded index
    a, b, c, d = (to_padded((0, k), w) for k in (0, 1, 2, 9))
    adj = {a: [d], b: [d], c: [d], d: [a, b, c]}             # a star: 3 leaves, 1 centre
    proof = _hall(7, adj, w)
    assert (proof.cells, proof.partners) == (((0, 0), (0, 1), (0, 2)), ((0, 9),))
    assert _hall(7, {a: [d], b: [d], d: [a, b]}, w).partners == ((0, 9),)
    assert _hall(7, {a: [b], b: [a, c], c: [b, d], d: [c]}, w) is None


def test_pairing_check_not_applicable_or_nothing_to_prove():
    board = Board.from_text("1 2\n2 1")
    for gravity in ("down", "up", "left", "right"):
        assert pairing_check(board, Rules(border=False, gravity=gravity)) is None
    assert pairing_check(Board.from_text(". #\n# ."), Rules()) is None
    assert pairing_check(Board.from_text("1 # 1"), Rules(border=True)) is None
    assert pairing_check(Board.from_text("1 # 1"), Rules(border=False)).kind == "odd-component"


def test_explain_locked():
    board = Board.from_text("1 2 1\n. 3 .\n3 # 2")
    report = explain_locked(board, Rules(border=False), [(0, 0), (0, 2)])
    assert report["applicable"] and report["proof"] is None
    assert report["types"] == [{"type": 1, "blockers": [[0, 1], [1, 1]], "pairs": [
        {"pair": [[0, 0], [0, 2]], "bottleneck": [[0, 1], [1, 1]]},
        {"pair": [[0, 2], [0, 0]], "bottleneck": [[0, 1], [1, 1]]}]}]
    json.dumps(report)
    stuck = explain_locked(Board.from_text("1 2\n2 1"), Rules(border=False), [(0, 0)])
    assert stuck["proof"]["kind"] == "odd-component"
    assert explain_locked(board, Rules(gravity="down"), [(0, 0)])["applicable"] is False
    with pytest.raises(ValueError):
        explain_locked(board, Rules(), [(1, 0)])
