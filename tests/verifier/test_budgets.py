"""Budgets that hold: the CP-SAT engine, the flow pairing check and ``explain_locked`` stop at
their deadline, and ortools is imported only when CP-SAT runs.

Each gives a tiny budget to a board that takes tens of seconds (or, for ``explain_locked``,
many minutes) without one, and checks first what the stop must look like (``unknown`` naming
the time budget, ``None``, ``complete: false``), which is what callers rely on. The time is
bounded in this process, from the call's start, with the overrun scaled by how busy the machine
is (``tests/timing.py``); one real process (``solve``) checks the command's budget end to end.
"""

from __future__ import annotations

import json
import random
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from llkgen.analysis.explain import explain_locked
from llkgen.game.board import Board, Rules
from llkgen.game.grid import Grid
from llkgen.verifier.cpsat import NODES_PER_DET_SECOND, solve_cpsat
from llkgen.verifier.lock import locked_tiles, root_partners
from llkgen.verifier.pairing_check import pairing_check
from llkgen.verifier.portfolio import verify
from llkgen.verifier.verdict import DEFAULT_NODES, UNKNOWN, Budget, Limit, OutOfBudget

from timing import Timed, TimedProcess


def _board(rows: int, cols: int, types: int, walls: float, seed: int) -> Board:
    """Every cell that is not a wall holds a tile; types get even counts, spread evenly."""
    rng = random.Random(f"test_budgets/{rows}x{cols}/{types}/{walls}/{seed}")
    n = rows * cols
    cells = list(range(n))
    rng.shuffle(cells)
    flat = [0] * n
    nw = round(n * walls)
    for c in cells[:nw]:
        flat[c] = -1
    room = (n - nw) // 2 * 2
    tiles = [1 + (k // 2) % types for k in range(room)]  # pairs dealt round the types
    rng.shuffle(tiles)
    for c, t in zip(cells[nw:], tiles):
        flat[c] = t
    return Board(rows, cols, tuple(flat))


def _run(code: str) -> str:
    out = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True,
                         text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    return out.stdout


# --------------------------------------------------------------------------- lazy ortools


def test_cpsat_module_imports_without_ortools():
    out = _run("""
        import sys
        import llkgen.verifier.cpsat
        print("ortools" in sys.modules)
    """)
    assert out.split() == ["False"]


def test_auto_never_imports_ortools_and_cpsat_still_runs():
    """NOTE: this needs ``llkgen/verifier/portfolio.py`` to import ``cpsat`` without ortools (on
    this branch ``cpsat`` imports ortools only inside its solving functions, so the eager
    ``from llkgen.verifier.cpsat import solve_cpsat`` there is harmless); once ``__init__``
    imports it lazily this keeps holding."""
    out = _run("""
        import sys
        from llkgen.game.board import Board, Rules
        from llkgen.verifier import verify
        board = Board.from_text("1 2 2 1\\n3 . . 3")
        print(verify(board, Rules(), engine="auto").status, "ortools" in sys.modules)
        print(verify(board, Rules(), engine="cpsat").status, "ortools" in sys.modules)
    """)
    assert out.split() == ["solvable", "False", "solvable", "True"]


# --------------------------------------------------------------------------- CP-SAT


def test_cpsat_time_budget_holds_while_the_model_is_built():
    """16x16, 8 types x 32, no walls: building this model takes ~40 s of Python (and ~5 s of
    CP-SAT start-up). With 0.3 s it must say unknown, by the time budget, at once."""
    board = _board(16, 16, 8, 0.0, 0)
    with Timed() as t:
        status, order, stats = solve_cpsat(board, Rules(), Budget(nodes=200_000, seconds=0.3))
    assert (status, order, stats["stopped_by"]) == ("unknown", None, "time"), stats
    assert t.seconds < t.limit(0.3), t


def test_cpsat_deadline_is_honoured_too():
    board = _board(16, 16, 8, 0.0, 0)
    with Timed() as t:
        status, _, stats = solve_cpsat(board, Rules(), Budget(nodes=None), deadline=time.perf_counter() + 0.3)
    assert (status, stats["stopped_by"]) == ("unknown", "time"), stats
    assert t.seconds < t.limit(0.3), t


def test_cpsat_says_which_budget_ran_out():
    """A deterministic limit too small to finish: ``stopped_by`` is ``nodes``, even with a
    generous seconds budget beside it. (Found by trying seeds: lock probing keeps every
    pair of this 8x12 board, and CP-SAT needs more than 0.002 deterministic seconds.)"""
    board = _board(8, 12, 24, 0.0, 0)
    status, _, stats = solve_cpsat(board, Rules(), Budget(nodes=2, seconds=60))
    assert stats["cpsat_status"] == "UNKNOWN", stats
    assert (status, stats["stopped_by"]) == ("unknown", "nodes"), stats
    assert 2 / NODES_PER_DET_SECOND <= stats["deterministic_time"]


def test_verify_cpsat_names_the_time_budget():
    from llkgen.verifier import verify

    board = _board(16, 16, 8, 0.0, 0)
    with Timed() as t:
        verdict = verify(board, Rules(), Budget(nodes=200_000, seconds=0.3), engine="cpsat")
    assert verdict.status == "unknown"
    assert "time budget" in verdict.reason and verdict.limit == Limit.SECONDS
    assert t.seconds < t.limit(0.3), t



#: ``benchmarks/cpsat_bench.py``'s board 5 of class walls20-12x12-4x28-noborder: the search
#: left it unknown after 5 s and CP-SAT needed 4.5 CPU s (about 1400 pairs to model).
STUBBORN_WALLED = """
# 4 2 # # 1 # 2 2 4 3 4
1 # 2 4 4 1 # 3 3 2 1 3
1 1 2 1 2 3 3 3 # 4 4 #
3 2 3 4 3 1 2 2 # 1 1 4
4 4 4 4 # 3 1 3 1 2 1 #
3 4 1 3 2 2 2 1 4 1 4 2
# 4 # 3 # 1 2 2 # 1 . 4
3 2 # 2 3 1 3 2 1 1 # #
# 2 . 2 # 4 4 2 # 1 4 #
# 4 2 3 . 2 # 3 4 2 3 3
2 3 4 # 1 2 3 1 # # 3 3
4 # 1 4 # 4 4 1 3 3 1 1
"""


def test_auto_search_then_cpsat_holds_the_budget():
    """``auto`` on a board ``cpsat_suits`` accepts: the search's nodes, then CP-SAT, whose
    model building (about 2 s here) and start-up must stop at the one deadline."""
    from llkgen.verifier import verify
    from llkgen.verifier.cpsat import cpsat_suits

    board, rules = Board.from_text(STUBBORN_WALLED), Rules(border=False)
    assert cpsat_suits(board, rules)
    with Timed() as t:
        verdict = verify(board, rules, Budget(nodes=10, seconds=1.0))  # the search hands over at 5
    assert (verdict.status, verdict.stats["stage"], verdict.limit) == ("unknown", "cpsat", Limit.SECONDS)
    assert t.seconds < t.limit(1.0), t

# --------------------------------------------------------------------------- flow


def test_pairing_check_stops_at_its_deadline():
    """64x64, 20% walls, 4 types: the unbudgeted check runs for minutes (its pair tables
    alone hold millions of pairs). Stopping proves nothing, so it returns None."""
    board = _board(64, 64, 4, 0.2, 1)
    with Timed() as t:
        assert pairing_check(board, Rules(), deadline=time.perf_counter() + 0.3) is None
    assert t.seconds < t.limit(0.3), t


def test_pairing_check_stopped_early_is_none_where_it_would_find_a_proof():
    """The deadline really is what stops it: the same board with time to spare is proved."""
    board = Board.from_text("1 2\n2 1")
    assert pairing_check(board, Rules(border=False)).kind == "odd-component"
    assert pairing_check(board, Rules(border=False), deadline=time.perf_counter() - 1) is None


def _locked(board: Board) -> list:
    grid = Grid(board, Rules())
    alive, partners = root_partners(grid)
    return [grid.cell(p) for p in locked_tiles(grid, alive, partners)]


def test_explain_locked_stops_at_its_deadline():
    """64x64, 20% walls, 4 copies per type: thousands of locked tiles, each needing three
    max-flows of ~0.1 s, so the full explanation takes many minutes."""
    board = _board(64, 64, 819, 0.2, 1)
    locked = _locked(board)
    assert len(locked) > 1000
    with Timed() as t:
        report = explain_locked(board, Rules(), locked, deadline=time.perf_counter() + 0.5)
    assert t.seconds < t.limit(0.5), t
    assert report["applicable"] and not report["complete"]
    assert "time budget" in report["reason"] and report["proof"] is None
    json.dumps(report)
    done = {t["type"] for t in report["types"]}
    assert len(done) < len({board[c] for c in locked})
    # what it did finish is exact: every locked tile of an explained type is there
    for t in report["types"]:
        assert {tuple(p["pair"][0]) for p in t["pairs"]} == {c for c in locked if board[c] == t["type"]}


def test_explain_locked_complete_when_in_time():
    board = Board.from_text("1 2 1\n. 3 .\n3 # 2")
    report = explain_locked(board, Rules(border=False), [(0, 0), (0, 2)],
                            deadline=time.perf_counter() + 60)
    assert report["complete"] and report["reason"] == ""
    assert report["types"] == explain_locked(board, Rules(border=False), [(0, 0), (0, 2)])["types"]
    late = explain_locked(board, Rules(border=False), [(0, 0), (0, 2)],
                          deadline=time.perf_counter() - 1)
    assert not late["complete"] and late["types"] == []


def test_solve_budget_covers_the_explanation(tmp_path: Path):
    """``llkgen solve --budget 1`` on that 64x64 board: the lock test decides at once, and
    the explanation after the verdict stays inside the same budget (it took 288 s before).
    The real-process check of ``solve``'s budget: the interpreter's start-up, measured, is
    allowed on top."""
    board = _board(64, 64, 819, 0.2, 1)
    level = tmp_path / "big.json"
    level.write_text(json.dumps({"format": "llkgen.level/1", "id": "big", "rows": 64,
                                 "cols": 64, "grid": board.grid(),
                                 "rules": {"border": True, "gravity": "none"}}))
    with TimedProcess() as t:
        out = subprocess.run([sys.executable, "-m", "llkgen", "solve", str(level), "--budget", "1",
                              "--json"], capture_output=True, text=True, timeout=600)
    assert out.returncode == 3, out.stderr
    proof = json.loads(out.stdout)["proof"]
    assert proof["locked"] and "time budget" in proof["bottlenecks_incomplete"]
    assert t.seconds < t.limit(1), t


# --------------------------------------------------------------------------- advice: the whole call

def _timed(call) -> tuple[object, Timed]:
    with Timed() as t:
        try:
            out = call()
        except Exception as e:  # a ReshuffleError is the answer of a reshuffle out of time
            out = e
    return out, t


def test_classify_moves_budget_bounds_the_whole_call():
    """32x32, 4 types, hundreds of removable pairs: labelling them took 135 s, each
    verification within its own budget. With ``seconds`` for the whole call, the moves it did
    not reach are unknown, their proof naming the time budget."""
    from llkgen.analysis.advice import UNDECIDED, classify_moves

    board = _board(32, 32, 4, 0.0, 1)
    labels, took = _timed(lambda: classify_moves(board, Rules(), Budget(nodes=20_000, seconds=1.0)))
    assert took.seconds < took.limit(1.0), took
    assert isinstance(labels, list) and len(labels) > 900
    assert all(x.label == UNDECIDED and x.limit == Limit.SECONDS for x in labels)


def test_advice_budget_bounds_the_whole_call_under_gravity():
    """64x64 under gravity: classify and reshuffle both still ran at 120 s. A reshuffle's
    forward play alone takes 20 s here; it stops at the deadline too."""
    from llkgen.analysis.advice import classify_moves, hint
    from llkgen.analysis.reshuffle import ReshuffleError, reshuffle

    board, rules = _board(64, 64, 4, 0.0, 1), Rules(gravity="down")
    budget = Budget(nodes=20_000, seconds=1.0)
    labels, took = _timed(lambda: classify_moves(board, rules, budget))
    assert took.seconds < took.limit(1.0), took
    assert isinstance(labels, list) and {x.label for x in labels} == {"unknown"}
    error, took = _timed(lambda: reshuffle(board, rules, 1, budget))
    assert took.seconds < took.limit(1.0), took
    assert isinstance(error, ReshuffleError) and error.exit_code == 4 and "time budget" in str(error)
    found, took = _timed(lambda: hint(board, rules, budget))
    assert took.seconds < took.limit(1.0), took
    assert found.verdict == "unknown" and found.limit == Limit.SECONDS


def test_advice_deadline_is_one_clock_for_the_whole_call():
    """A ``deadline`` already past: nothing is searched, and nothing overruns it."""
    from llkgen.analysis.advice import classify_moves, hint
    from llkgen.analysis.reshuffle import ReshuffleError, reshuffle

    board = _board(32, 32, 4, 0.0, 1)
    past = time.perf_counter() - 1
    labels = classify_moves(board, Rules(), deadline=past)
    assert {x.label for x in labels} == {"unknown"}
    assert hint(board, Rules(), deadline=past).status == "undecided"
    error, _ = _timed(lambda: reshuffle(board, Rules(), 1, deadline=past))
    assert isinstance(error, ReshuffleError) and error.exit_code == 4


# --------------------------------------------------------------------------- 0 seconds

def test_zero_seconds_is_a_budget_that_runs_out_at_once():
    """``seconds=0`` is valid everywhere and decides nothing that needs a search: the lock
    test used to prove this board dead before its first look at the clock, while the dive
    answered unknown on the next; now every stage agrees."""
    import llkgen
    from llkgen.verifier import verify

    dead, mixed = [[1, 2], [2, 1]], [[1, 1, 2], [1, 2, 1]]
    rules = {"border": False, "gravity": "none"}
    for grid in (dead, mixed):
        for gravity in ("none", "down"):
            v = verify(Board.from_grid(grid), Rules(border=False, gravity=gravity), Budget(seconds=0))
            assert (v.status, v.limit) == ("unknown", Limit.SECONDS), v.reason
        assert llkgen.verify(grid, rules, Budget(seconds=0)).status == "unknown"
        assert llkgen.hint(grid, rules, Budget(seconds=0)).status == "undecided"
        assert {x.label for x in llkgen.classify_moves(grid, rules, Budget(seconds=0))} <= {"unknown"}
    assert verify(Board.from_grid([[0, 0]]), Rules(), Budget(seconds=0)).status == "solvable"  # nothing to do


def test_negative_or_nan_seconds_are_still_refused():
    import pytest

    import llkgen
    from llkgen.errors import LlkgenError

    for bad in (-1, float("nan"), True):
        with pytest.raises(LlkgenError, match="budget.seconds: expected a number from 0 to 1,000,000"):
            llkgen.hint([[1, 1]], None, Budget(seconds=bad))


def test_reach_pairing_stops_at_its_deadline():
    # The partner graph of reach pairing costs a test per pair of same-type tiles, on masks as
    # wide as the board: on a big walled board of one type it ran for seconds past --budget.
    from llkgen.game.board import Gravity
    from llkgen.verifier.reach import Reach

    rng = random.Random(5)
    n = 64
    grid = [[-1 if rng.random() < 0.1 else 1 for _ in range(n)] for _ in range(n)]
    if sum(row.count(1) for row in grid) % 2:
        grid[0][grid[0].index(1)] = 0
    board, rules = Board.from_grid(grid), Rules(gravity=Gravity.DOWN)
    reach = Reach(board, rules)
    with Timed() as t, pytest.raises(OutOfBudget):
        reach.stranded(Grid(board, rules), deadline=time.perf_counter() + 0.1)
    assert t.seconds < t.limit(0.1), t
    with Timed() as t:
        v = verify(board, rules, Budget(seconds=0.2))
    assert v.status == UNKNOWN and v.limit == Limit.SECONDS
    assert t.seconds < t.limit(0.2), t


def test_seconds_come_first_in_a_budget():
    """A budget given seconds and no node count has no node limit: a search given ten seconds
    is not stopped at the default 200,000 nodes after a few of them. Nodes stay the default
    when nothing is given, and whatever is given explicitly is kept."""
    assert Budget() == Budget(nodes=DEFAULT_NODES, seconds=None)
    assert Budget(seconds=10) == Budget(nodes=None, seconds=10)
    assert Budget(seconds=0).nodes is None
    assert Budget(5, 2.0) == Budget(nodes=5, seconds=2.0)
    assert Budget(nodes=None).nodes is None and Budget(nodes=DEFAULT_NODES, seconds=3).nodes == DEFAULT_NODES
    # a gravity board that takes more nodes than the limit it is given: seconds alone let it finish
    grid = [[7, 2, 6, 8], [2, 1, 4, 6], [7, 4, 1, 8], [5, 3, 3, 5]]  # refuted by search in 38 nodes
    board, rules = Board.from_grid(grid), Rules(border=True, gravity="down")
    assert verify(board, rules, Budget(nodes=10, seconds=30)).limit == Limit.NODES
    free = verify(board, rules, Budget(seconds=30))
    assert free.status == "unsolvable" and free.stats["nodes"] > 10


def test_advice_given_seconds_alone_keeps_a_node_limit_per_verification(monkeypatch):
    """``hint``, ``classify_moves`` and ``reshuffle`` spend ``budget.seconds`` on the whole call;
    a budget of seconds alone still gives each verification the default node limit, so one
    hard verification cannot take all of them."""
    import llkgen.analysis.advice as advice

    seen: list[Budget] = []
    real = advice.verify

    def spy(board, rules, budget, **kw):
        seen.append(budget)
        return real(board, rules, budget, **kw)

    monkeypatch.setattr(advice, "verify", spy)
    board, rules = Board.from_grid([[1, 2, 2, 1], [3, 3, 4, 4]]), Rules()
    advice.hint(board, rules, Budget(seconds=30))
    advice.classify_moves(board, rules, Budget(seconds=30))
    assert seen and {b.nodes for b in seen} == {DEFAULT_NODES}
    seen.clear()
    advice.hint(board, rules, Budget(nodes=7, seconds=30))
    assert {b.nodes for b in seen} == {7}


# --------------------------------------------------------------------------- the range of --budget

#: Every command that takes ``--budget``, with arguments it would otherwise run on.
BUDGET_COMMANDS = [["solve", "{level}"], ["hint", "{level}"], ["moves", "{level}", "--classify"],
                   ["reshuffle", "{level}", "--seed", "1"], ["verify", "{level}"], ["grade", "{level}"],
                   ["make", "--config", "easy", "--count", "1", "--out", "{tmp}/out.json"],
                   ["merge", "{tmp}/shard.json", "--out", "{tmp}/merged.json"],
                   ["render", "{level}", "--out", "{tmp}/svg"], ["view", "{level}", "--out", "{tmp}/view.html"]]


def test_every_command_with_a_budget_is_held_to_its_range():
    from typer.main import get_command

    from llkgen.cli import app

    commands = get_command(app).commands
    with_budget = {name for name, command in commands.items() if any("--budget" in p.opts for p in command.params)}
    assert with_budget == {argv[0] for argv in BUDGET_COMMANDS}


@pytest.mark.parametrize("seconds", ["1e10", "inf", "nan", "-1", "1000000.5"])
@pytest.mark.parametrize("command", BUDGET_COMMANDS, ids=lambda c: c[0])
def test_budget_out_of_range_is_a_usage_error(tmp_path, monkeypatch, capsys, command, seconds):
    """``--budget`` takes a number of seconds from 0 to the documented maximum, like any option
    with a range: anything else (``1e10`` and ``inf`` crashed make, verify and grade with
    "timestamp out of range") is exit 2 naming ``--budget``, before any work."""
    from llkgen.cli.options import MAX_BUDGET_SECONDS

    from cli_runner import run_cli_in_process

    level = tmp_path / "level.json"
    level.write_text(json.dumps({"format": "llkgen.level/1", "id": "t", "rows": 1, "cols": 2, "grid": [[1, 1]]}))
    argv = [a.format(level=level, tmp=tmp_path) for a in command]
    code, out, err = run_cli_in_process([*argv, "--budget", seconds], monkeypatch, capsys)
    assert (code, out) == (2, ""), err
    assert "--budget" in err and "Traceback" not in err
    assert not (tmp_path / "out.json").exists() and not (tmp_path / "merged.json").exists()
    code, _, err = run_cli_in_process([*argv, "--budget", str(MAX_BUDGET_SECONDS)], monkeypatch, capsys)
    assert code != 2, err  # the maximum itself is a budget
