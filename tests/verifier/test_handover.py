"""The move search's handover to the C gravity search, and node budgets kept to the node.

Under the same node budget, a build with the C search decides every board pure Python decides
(:class:`~llkgen.verifier.movesearch.MoveSearch`'s docstring argues it: the C search gets the
whole budget from the root, and if it runs out the Python search goes on where it paused). The
boards are the 16 real gravity boards (``data/handover-boards.jsonl``, from
``../shared/real-boards/all.jsonl``: KShisen and italankin deals) on which pure Python runs
past the handover within 20,000 nodes; ``benchmarks/handover_bench.py`` measures them at every
budget from 2,000 to 20,000. And every search that runs out of a node budget of N reports N
nodes, not N + 1.
"""

from __future__ import annotations

import json

import pytest

from llkgen.game.board import Board, Rules
from llkgen.verifier import Budget, native, verify
from llkgen.verifier.baseline import BaselineSearch
from llkgen.verifier.movesearch import NATIVE_AFTER, MoveSearch
from llkgen.verifier.pairing import PairingSearch
from llkgen.verifier.verdict import OutOfBudget

from paths import DATA as TEST_DATA

DATA = TEST_DATA / "handover-boards.jsonl"
BOARDS = {rec["id"]: (Board.from_grid(rec["grid"]), Rules(border=rec["border"], gravity=rec["gravity"]))
          for rec in map(json.loads, DATA.read_text().splitlines())}

needs_native = pytest.mark.skipif(not native.AVAILABLE, reason="the C search is not built (no C compiler)")


def _pure(board: Board, rules: Rules, budget: Budget, monkeypatch: pytest.MonkeyPatch):
    with monkeypatch.context() as m:
        m.setattr(native, "AVAILABLE", False)
        return verify(board, rules, budget)


def _decided(verdict) -> bool:
    return verdict.status in ("solvable", "unsolvable")


@needs_native
@pytest.mark.parametrize("ident, nodes", [
    # each board where the C search with what was left of the budget lost a board pure Python
    # decides, at that budget (benchmarks/handover_bench.py, "split")
    ("kshisen-18x8-L1-s16-down", 5000),
    ("kshisen-18x8-L1-s21-down", 7500),
    ("kshisen-16x9-L1-s3-down", 10_000),
    ("kshisen-18x8-L1-s14-down", 20_000),  # the C search from the root needs 22,577 nodes here
])
def test_the_compiled_build_decides_what_pure_python_decides(ident, nodes, monkeypatch):
    board, rules = BOARDS[ident]
    pure = _pure(board, rules, Budget(nodes=nodes), monkeypatch)
    assert _decided(pure) and pure.stats["nodes"] > NATIVE_AFTER
    compiled = verify(board, rules, Budget(nodes=nodes))
    assert compiled.status == pure.status
    assert compiled.stats["nodes"] <= nodes
    assert "native_nodes" in compiled.stats  # it did hand over


@needs_native
def test_on_every_handover_board_the_compiled_decided_set_contains_pures(monkeypatch):
    nodes = 3000
    pure = {i: _pure(b, r, Budget(nodes=nodes), monkeypatch) for i, (b, r) in BOARDS.items()}
    compiled = {i: verify(b, r, Budget(nodes=nodes)) for i, (b, r) in BOARDS.items()}
    decided = {i for i, v in pure.items() if _decided(v)}
    assert decided  # not vacuous: two boards are decided past the handover at 3,000
    for i in decided:
        assert compiled[i].status == pure[i].status, i
    for v in (*pure.values(), *compiled.values()):
        assert v.stats["nodes"] <= nodes


@needs_native
def test_when_the_c_search_runs_out_the_python_search_goes_on_to_the_same_verdict(monkeypatch):
    # A C search that never decides: the verdict and the count are pure Python's, to the node.
    board, rules = BOARDS["kshisen-18x8-L1-s21-down"]
    pure = _pure(board, rules, Budget(nodes=7500), monkeypatch)
    search = native.search

    def out_of_nodes(board, rules, nodes, deadline, **kw):
        result = search(board, rules, 10, deadline, **kw)
        assert result.status == "nodes"
        return result

    monkeypatch.setattr(native, "search", out_of_nodes)
    compiled = verify(board, rules, Budget(nodes=7500))
    assert (compiled.status, compiled.stats["nodes"]) == (pure.status, pure.stats["nodes"]) == ("unsolvable", 5970)
    assert compiled.stats["stage"] == "move-search" and compiled.stats["native_nodes"] == 10


# -- node budgets kept to the node ----------------------------------------------------------

@pytest.mark.parametrize("nodes", [1, 7, 60])
def test_a_node_budget_that_runs_out_reports_exactly_its_nodes(nodes, monkeypatch):
    # 144 tiles: 72 moves to clear, so no search decides within 60 nodes
    board, gravity = BOARDS["kshisen-18x8-L1-s3-down"]
    for rules, engine in ((gravity, "auto"), (gravity, "baseline"), (Rules(), "search"), (Rules(), "baseline")):
        verdict = _pure(board, rules, Budget(nodes=nodes), monkeypatch) if engine == "auto" else \
            verify(board, rules, Budget(nodes=nodes), engine=engine)
        assert (verdict.status, verdict.stats["nodes"]) == ("unknown", nodes), (rules, engine)
    for solver in (MoveSearch(board, gravity, Budget(nodes=nodes)), BaselineSearch(board, gravity, Budget(nodes=nodes)),
                   PairingSearch(board, Rules(), Budget(nodes=nodes))):
        with pytest.raises(OutOfBudget):
            solver.search()
        assert solver.nodes == nodes


@needs_native
@pytest.mark.parametrize("nodes", [1, 7, 2500, 20_000])
def test_the_c_search_reports_exactly_its_node_budget(nodes):
    board, rules = BOARDS["kshisen-18x8-L1-s3-down"]
    result = native.search(board, rules, nodes, None)
    assert (result.status, result.nodes) == ("nodes", nodes)
    if nodes <= 2500:  # past the handover: the C search's count, then the Python search's to the budget
        verdict = verify(board, rules, Budget(nodes=nodes))
        assert (verdict.status, verdict.stats["nodes"]) == ("unknown", nodes)
