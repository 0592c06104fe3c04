"""The C move search under gravity (llkgen/verifier/_gravity_search.c, through
llkgen.verifier.native) against the brute-force oracle, and its hand-over from the Python search.

Its "unsolvable" is a proof only if its move lists are complete and its table and safe
clearings never cut off a clearing, so every test here holds it to ``oracle.brute_solve`` on
seeded small boards: every direction, border on and off, walls, half-filled and unsettled
starts, and boards with many types (where dead ends are common). Each witness it returns is
replayed by the oracle's own referee and by llkgen's. The seeded sweeps count the dead boards
they drew (the refutations must be tested); the same checks under Hypothesis shrink a failure to
a small board and reproduce it.
"""

from __future__ import annotations

import random
import shutil
import time

import pytest
from hypothesis import given
from hypothesis import strategies as st

from llkgen.game.board import Board, Rules
from llkgen.game.referee import replay
from llkgen.verifier import Budget, native, verify

from oracle import brute_solve, is_cleared, oracle_replay
from strategies import drawn, dropped_board, equivalence
from timing import Timed

DIRECTIONS = ("down", "up", "left", "right")


def test_the_c_search_is_built_wherever_a_c_compiler_is():
    """Not a skip in disguise: where a compiler is, the tests below must run."""
    if not native.AVAILABLE and (shutil.which("cc") or shutil.which("gcc")):
        pytest.fail("llkgen.verifier._gravity_search is not built, though a C compiler is here: "
                    "reinstall (pip install -e .) and read the build log")


needs_native = pytest.mark.skipif(not native.AVAILABLE, reason="the C search is not built (no C compiler)")


def _grid(board: Board) -> list[list[int]]:
    return [list(board.cells[r * board.cols:(r + 1) * board.cols]) for r in range(board.rows)]


def _check(board: Board, rules: Rules, result: native.NativeResult) -> bool:
    truth = brute_solve(_grid(board), rules.border, rules.gravity.value)
    assert result.status in ("solvable", "unsolvable"), result
    assert (result.status == "solvable") == truth, (board, rules, result.status)
    if truth:
        ok, final, _ = oracle_replay(_grid(board), rules.border, rules.gravity.value, result.moves)
        assert ok and is_cleared(final), (board, rules, result.moves)
        assert replay(board, rules, result.moves).cleared
    return truth


@needs_native
@pytest.mark.parametrize("seed", range(4))
def test_the_c_search_decides_small_boards_like_brute_force(seed):
    rng = random.Random(f"native/{seed}")
    unsolvable = 0
    for _ in range(1500):
        board, rules = dropped_board(rng)
        unsolvable += not _check(board, rules, native.search(board, rules, None, None))
    assert unsolvable >= 130, "too few dead boards to test the refutations on"


@needs_native
@pytest.mark.parametrize("seed", range(2))
def test_the_race_and_the_restarts_decide_like_brute_force(seed):
    """No dive and turns of one node: every order and the restarts take part on small boards,
    and a table that fills up and stops recording loses nothing."""
    rng = random.Random(f"native-race/{seed}")
    for k in range(1000):
        board, rules = dropped_board(rng)
        _check(board, rules, native.search(board, rules, None, None, dive=0, turn=1, table_mib=k % 2))


@needs_native
@equivalence(200)
@given(case=drawn(dropped_board))
def test_the_c_search_decides_drawn_boards_like_brute_force(case):
    board, rules = case
    _check(board, rules, native.search(board, rules, None, None))


@needs_native
@equivalence(150)
@given(case=drawn(dropped_board), table_mib=st.integers(0, 1))
def test_the_race_and_the_restarts_decide_drawn_boards_like_brute_force(case, table_mib):
    board, rules = case
    _check(board, rules, native.search(board, rules, None, None, dive=0, turn=1, table_mib=table_mib))


def _bench_board(name: str, i: int, rows: int, cols: int) -> Board:
    """``benchmarks/verify_bench.py``'s random full board ``name`` #i (four tiles a type)."""
    rng = random.Random(f"llkgen-bench/{name}/{i}")
    tiles = [t for t in range(1, rows * cols // 4 + 1) for _ in range(4)]
    rng.shuffle(tiles)
    return Board(rows, cols, tuple(tiles))


@needs_native
@pytest.mark.parametrize("i", [1, 8])
def test_a_full_table_costs_time_never_a_verdict(i):
    """Dead boards with about a thousand dead positions, searched again with the table capped at
    its first 1,024 slots (716 positions at its 70% load): the same refutation, with more nodes
    (10 to 25 times as many)."""
    board = _bench_board("10x16-left", i, 10, 16)
    rules = Rules(True, "left")
    whole = native.search(board, rules, None, None)
    capped = native.search(board, rules, 1_000_000, None, table_mib=0)
    assert whole.status == capped.status == "unsolvable"
    assert whole.recorded > 800 and capped.recorded == 716
    assert capped.nodes > whole.nodes


@needs_native
def test_budgets_stop_the_c_search():
    board = _bench_board("10x16-left", 0, 10, 16)
    rules = Rules(True, "left")
    # a budget of N nodes that runs out reports N (not N + 1)
    stopped = native.search(board, rules, 5000, None)
    assert (stopped.status, stopped.nodes, stopped.moves) == ("nodes", 5000, None)
    with Timed() as t:
        timed = native.search(board, rules, None, time.perf_counter() + 0.2)
    assert timed.status == "seconds"
    assert t.seconds < t.limit(0.2), t


@needs_native
def test_bad_arguments_raise():
    with pytest.raises(ValueError, match="62"):
        native.search(Board(63, 1, (0,) * 63), Rules(True, "down"), None, None)
    with pytest.raises(ValueError, match="gravity"):
        native.search(Board(1, 2, (1, 1)), Rules(True, "none"), None, None)
    from llkgen.verifier.native import _gravity_search

    with pytest.raises(ValueError, match="cells"):
        _gravity_search.search(1, 2, [1, -5], 1, 1, -1, -1.0, 1)
    with pytest.raises(ValueError, match="cells"):
        _gravity_search.search(1, 2, [1], 1, 1, -1, -1.0, 1)


@needs_native
def test_verify_hands_a_long_search_over_and_replays_its_witness(monkeypatch):
    """10x16-down #7 is still undecided after the Python search's 2,000 nodes; the C search then
    finds a clearing (in about 50,000 nodes), and the witness is replayed like any other.
    Without the C search, verify gives the same verdict on a board both decide."""
    board = _bench_board("10x16-down", 7, 10, 16)
    rules = Rules(True, "down")
    v = verify(board, rules, Budget(nodes=None, seconds=30))
    assert v.status == "solvable" and v.stats["stage"] == "native-search", v.stats
    # the C search started over from the root: the verdict's count is its own
    assert v.stats["nodes"] == v.stats["native_nodes"] >= 1
    assert replay(board, rules, [(m.a, m.b) for m in v.moves]).cleared
    dead = _bench_board("10x16-left", 1, 10, 16)
    a = verify(dead, Rules(True, "left"), Budget(nodes=None, seconds=30))
    monkeypatch.setattr(native, "AVAILABLE", False)
    b = verify(dead, Rules(True, "left"), Budget(nodes=None, seconds=60))
    assert a.status == b.status == "unsolvable"
    assert a.stats["stage"] == "native-search" and b.stats["stage"] == "move-search"
    assert a.proof["argument"] == b.proof["argument"] == "exhaustive-search"


def test_without_the_c_search_the_python_search_goes_on(monkeypatch):
    monkeypatch.setattr(native, "AVAILABLE", False)
    board = Board(2, 2, (1, 2, 2, 1))
    assert not native.suits(board, Rules(True, "down"))
    with pytest.raises(ValueError, match="when built"):
        native.search(board, Rules(True, "down"), None, None)
