"""``llkgen hint``, ``llkgen moves --classify`` and ``llkgen reshuffle`` on real levels: their
output, their JSON (replayed through the referee) and their documented exit codes.

The commands run in-process through ``llkgen.cli.main``, the console script's own code path
(as in test_cli.py), and once as a subprocess to see that bad input never shows a traceback."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path

import pytest

import llkgen
from llkgen.formats.level import level_from_json
from llkgen.formats.load import load_level_ref
from llkgen.game.referee import replay
from llkgen.outputs import drawn_json, hint_json, label_json, reshuffled_level

from cli_runner import run_cli_in_process
from timing import HANG_SECONDS, Timed, TimedProcess

NO_BORDER = {"border": False, "gravity": "none"}


def _level(grid: list[list[int]], rules: dict | None = None, id: str = "t") -> dict:
    return {"format": "llkgen.level/1", "id": id, "rows": len(grid), "cols": len(grid[0]), "grid": grid,
            "rules": rules or {"border": True, "gravity": "none"}}


def _full(rows: int, cols: int, types: int, seed: int) -> list[list[int]]:
    """A full board: ``types`` types dealt round the cells, shuffled with ``seed``."""
    tiles = [1 + (k // 2) % types for k in range(rows * cols)]
    random.Random(seed).shuffle(tiles)
    return [tiles[r * cols:(r + 1) * cols] for r in range(rows)]


LEVELS = {
    # Taking the left pair of 1s walls in the 2s; taking the top pair does not.
    "mixed.json": _level([[1, 1, 2], [1, 2, 1]], NO_BORDER),
    # No pair can be removed: every tile is locked.
    "dead.json": _level([[1, 2], [2, 1]], NO_BORDER),
    # One pair can be removed, and then the 2s and 3s block each other.
    "doomed.json": _level([[1, 1], [2, 3], [3, 2]], NO_BORDER),
    # The only two tiles have a wall between them: no arrangement can ever be cleared.
    "walled.json": _level([[1, -1, 1]], NO_BORDER),
    "cleared.json": _level([[0, 0]]),
    # Walls cut it into parts, one with an odd number of tiles: the move search alone needs
    # 2.5 million nodes to refute its one-type board (reshuffle's budget is 20,000 a search).
    "walled-gravity.json": _level([[1, 1, 1, 1, -1, 1, 1], [-1, 1, -1, 1, 1, 1, -1], [-1, 1, 1, 1, -1, -1, 1],
                                   [-1, 1, 1, 1, -1, 1, 1], [1, -1, 1, 1, -1, 1, 1], [-1, 1, 1, 1, 1, 1, 1]],
                                  {"border": False, "gravity": "right"}),
    # Boards no budget of a few seconds decides: labelling every move of the first took 135 s,
    # and the second, under gravity, still ran at 120 s (moves --classify and reshuffle alike).
    "big.json": _level(_full(32, 32, 4, 1)),
    "big-gravity.json": _level(_full(64, 64, 4, 1), {"border": True, "gravity": "down"}),
}


@pytest.fixture(scope="module")
def files(tmp_path_factory) -> Path:
    d = tmp_path_factory.mktemp("advice")
    for name, obj in LEVELS.items():
        (d / name).write_text(json.dumps(obj), "utf-8")
    # A 6x8 board of the shipped easy spec: one search node cannot decide it.
    pack = llkgen.generate("easy", count=1)
    llkgen.write_json_atomic(d / "easy.json", llkgen.pack_to_json(pack))
    (d / "malformed.json").write_text('{"format": "llkgen.level/1", "rows": 2', "utf-8")
    (d / "ragged.json").write_text(json.dumps(_level([[1, 1], [2]])), "utf-8")
    return d


@pytest.fixture
def llkgen_cli(files, monkeypatch, capsys):
    """``llkgen_cli(*argv)`` -> (exit code, stdout, stderr); file names are looked up in ``files``."""
    def run(*argv: str) -> tuple[int, str, str]:
        argv = tuple(str(files / a) if a.split("#")[0].endswith(".json") else a for a in argv)
        return run_cli_in_process(argv, monkeypatch, capsys)

    return run


def _pairs(moves: list) -> list:
    """Moves ``[[r1, c1], [r2, c2]]`` as the referee's pairs of cells."""
    return [(tuple(m[0]), tuple(m[1])) for m in moves]


def _board(name: str) -> tuple[llkgen.Board, llkgen.Rules]:
    lv = LEVELS[name]
    return llkgen.Board.from_grid(lv["grid"]), llkgen.Rules(**lv["rules"])


# -- hint ---------------------------------------------------------------------------------------
def test_hint_json_gives_a_move_whose_witness_clears_the_board(llkgen_cli, files):
    code, out, _ = llkgen_cli("hint", "easy.json#easy-1", "--json")
    assert code == 0
    found = json.loads(out)
    assert (found["format"], found["verdict"], found["proof"]) == ("llkgen.hint/1", "solvable", None)
    lv = llkgen.load_pack(files / "easy.json").levels[0]
    order = _pairs([found["move"]]) + _pairs(found["witness"])
    result = replay(lv.board, lv.rules, order)
    assert result.ok and result.cleared
    assert [list(p) for p in result.paths[0]] == found["path"]
    assert found["budget"] == {"nodes": 20000, "seconds": None}


def test_hint_prints_the_move_and_its_path(llkgen_cli):
    code, out, _ = llkgen_cli("hint", "mixed.json")
    assert code == 0
    assert out.splitlines() == ["hint: type 1: [0, 0] [0, 1]  via [0, 0] -> [0, 1]",
                                "after this move the board can still be cleared (2 more moves)"]


def test_hint_on_a_dead_board_exits_3_with_the_locked_tiles(llkgen_cli):
    code, out, _ = llkgen_cli("hint", "dead.json")
    assert code == 3
    assert out.startswith("unsolvable: no move can clear the board: 4 tiles can never be removed")
    assert "locked tiles: [0, 0] [0, 1] [1, 0] [1, 1]" in out.splitlines()
    code, out, _ = llkgen_cli("hint", "dead.json", "--json")
    found = json.loads(out)
    assert (code, found["verdict"], found["move"], found["witness"]) == (3, "unsolvable", None, None)
    assert found["proof"]["argument"] == "lock-test" and found["proof"]["locked"] == [[0, 0], [0, 1], [1, 0], [1, 1]]


def test_hint_out_of_nodes_exits_4(llkgen_cli):
    code, out, _ = llkgen_cli("hint", "easy.json#easy-1", "--nodes", "1")
    assert code == 4
    assert out.startswith("unknown: the node budget (1) ran out")
    code, out, _ = llkgen_cli("hint", "easy.json#easy-1", "--nodes", "1", "--json")
    found = json.loads(out)
    assert (code, found["verdict"], found["proof"], found["budget"]) == (4, "unknown", {"budget": "nodes"},
                                                                         {"nodes": 1, "seconds": None})


def test_hint_on_a_cleared_board_exits_0(llkgen_cli):
    code, out, _ = llkgen_cli("hint", "cleared.json", "--json")
    found = json.loads(out)
    assert (code, found["verdict"], found["move"], found["witness"]) == (0, "solvable", None, [])


# -- moves --classify ---------------------------------------------------------------------------
def test_classify_labels_each_move_with_its_evidence(llkgen_cli):
    code, out, _ = llkgen_cli("moves", "mixed.json", "--classify", "--json")
    assert code == 0
    got = json.loads(out)
    assert got["summary"] == {"safe": 1, "fatal": 1, "unknown": 0}
    by_pair = {tuple(_pairs([m["move"]])[0]): m for m in got["moves"]}
    assert set(by_pair) == {((0, 0), (0, 1)), ((0, 0), (1, 0))}
    fatal = by_pair[((0, 0), (1, 0))]
    assert fatal["label"] == "fatal" and fatal["proof"]["argument"] == "lock-test" and fatal["witness"] is None
    safe = by_pair[((0, 0), (0, 1))]
    assert safe["proof"] is None
    board, rules = _board("mixed.json")
    assert replay(board, rules, [((0, 0), (0, 1)), *_pairs(safe["witness"])]).cleared
    assert not replay(board, rules, [((0, 0), (1, 0)), ((0, 2), (1, 1)), ((0, 1), (1, 2))]).cleared


def test_classify_text_has_a_line_per_move_and_a_summary(llkgen_cli):
    code, out, _ = llkgen_cli("moves", "mixed.json", "--classify")
    assert code == 0
    assert out.splitlines() == ["safe    type 1: [0, 0] [0, 1]  via [0, 0] -> [0, 1]",
                                "fatal   type 1: [0, 0] [1, 0]  via [0, 0] -> [1, 0]",
                                "2 removable pairs: 1 safe, 1 fatal, 0 unknown"]


@pytest.mark.parametrize("name, last", [("doomed.json", "1 removable pair: 0 safe, 1 fatal, 0 unknown"),
                                        ("dead.json", "dead: no pair can be removed and 4 tiles are left")])
def test_classify_exits_3_when_no_move_can_save_the_board(llkgen_cli, name, last):
    code, out, _ = llkgen_cli("moves", name, "--classify")
    assert code == 3
    assert out.splitlines()[-1] == last


@pytest.mark.parametrize("name, code", [("dead.json", 3), ("mixed.json", 0), ("cleared.json", 0)])
def test_moves_and_classify_agree_on_the_exit_code(llkgen_cli, name, code):
    # A dead board (tiles left, no pair removable) is exit 3 with or without --classify.
    for extra in ([], ["--json"], ["--classify"], ["--classify", "--json"]):
        assert llkgen_cli("moves", name, *extra)[0] == code, extra
    assert llkgen_cli("moves", "dead.json")[1] == "0 removable pairs\n"


def test_classify_out_of_nodes_exits_4(llkgen_cli):
    code, out, _ = llkgen_cli("moves", "easy.json#easy-1", "--classify", "--nodes", "1", "--json")
    assert code == 4
    got = json.loads(out)
    assert got["summary"]["safe"] == 0 and got["summary"]["unknown"] > 0


def test_moves_without_classify_is_unchanged(llkgen_cli):
    code, out, _ = llkgen_cli("moves", "mixed.json", "--json")
    assert code == 0
    assert json.loads(out) == {"format": "llkgen.moves/1", "moves": [
        {"move": [[0, 0], [0, 1]], "path": [[0, 0], [0, 1]]},
        {"move": [[0, 0], [1, 0]], "path": [[0, 0], [1, 0]]}], "tiles_left": 6}


def test_nodes_without_classify_is_a_usage_error(llkgen_cli):
    code, _, err = llkgen_cli("moves", "mixed.json", "--nodes", "5")
    assert code == 2 and "--classify" in err


def test_budget_without_classify_is_a_usage_error(llkgen_cli):
    code, _, err = llkgen_cli("moves", "mixed.json", "--budget", "5")
    assert code == 2 and "--classify" in err


# -- reshuffle ----------------------------------------------------------------------------------
def test_reshuffle_prints_the_new_board_and_what_was_done(llkgen_cli):
    code, out, _ = llkgen_cli("reshuffle", "dead.json", "--seed", "1")
    assert code == 0
    assert out.splitlines() == ["# t: 2x2, border=off, gravity=none", "1 1", "2 2",
                                "reshuffled 4 tiles with seed 1: certified solvable in 2 moves (1 attempt)"]


def test_reshuffle_json_replays_and_keeps_the_tiles(llkgen_cli, files):
    code, out, _ = llkgen_cli("reshuffle", "easy.json#easy-1", "--seed", "5", "--json")
    assert code == 0
    got = json.loads(out)
    assert (got["format"], got["verdict"]) == ("llkgen.reshuffle/1", "solvable")
    lv = llkgen.load_pack(files / "easy.json").levels[0]
    new = level_from_json(got["level"])  # the level --out writes
    assert new.board != lv.board and sorted(new.board.cells) == sorted(lv.board.cells)
    assert (new.id, new.rules) == (lv.id, lv.rules)
    assert replay(new.board, new.rules, new.solution).cleared
    assert (got["seed"], got["attempts"]) == (5, 1) and new.extra["reshuffle"] == {"seed": 5, "attempts": 1}
    assert llkgen_cli("reshuffle", "easy.json#easy-1", "--seed", "5", "--json")[1] == out


def test_reshuffle_out_writes_a_level_that_verify_certifies(llkgen_cli, files, tmp_path):
    target = tmp_path / "again.json"
    code, out, _ = llkgen_cli("reshuffle", "easy.json#easy-1", "--seed", "5", "--out", str(target))
    assert code == 0 and out.rstrip().endswith(f"wrote {target}")
    written = llkgen.load_level(target)
    lv = llkgen.load_pack(files / "easy.json").levels[0]
    assert (written.id, written.rules) == (lv.id, lv.rules)
    assert set(written.extra) == {"solution", "reshuffle"} and written.extra["reshuffle"] == {"seed": 5, "attempts": 1}
    assert replay(written.board, written.rules, written.solution).cleared
    assert llkgen_cli("verify", str(target))[0] == 0


def test_reshuffle_may_replace_the_level_file_but_never_the_pack(llkgen_cli, files, tmp_path):
    pack = files / "easy.json"
    before = pack.read_bytes()
    code, _, err = llkgen_cli("reshuffle", "easy.json#easy-1", "--seed", "5", "--out", str(pack))
    assert code == 1 and "would replace the whole pack" in err and "Traceback" not in err
    assert pack.read_bytes() == before
    own = tmp_path / "own.json"
    own.write_text(json.dumps(LEVELS["dead.json"]), "utf-8")
    assert llkgen_cli("reshuffle", str(own), "--seed", "1", "--out", str(own))[0] == 0
    assert llkgen.load_level(own).board.grid() == [[1, 1], [2, 2]]


def test_reshuffle_exits_3_when_no_arrangement_can_be_cleared(llkgen_cli):
    code, out, _ = llkgen_cli("reshuffle", "walled.json", "--seed", "0")
    assert code == 3 and out.startswith("unsolvable: no arrangement of the 2 tiles left can be cleared")
    code, out, _ = llkgen_cli("reshuffle", "walled.json", "--seed", "0", "--json")
    got = json.loads(out)
    assert code == 3 and (got["verdict"], got["level"], got["attempts"]) == ("unsolvable", None, None)
    # -q prints nothing but errors and failures: this is one
    text = llkgen_cli("reshuffle", "walled.json", "--seed", "0")[1]
    assert llkgen_cli("reshuffle", "walled.json", "--seed", "0", "-q")[:2] == (3, text)


def test_reshuffle_under_gravity_proves_that_no_arrangement_can_be_cleared(llkgen_cli):
    code, out, _ = llkgen_cli("reshuffle", "walled-gravity.json", "--seed", "0")
    assert code == 3 and out.startswith("unsolvable: no arrangement of the 30 tiles left can be cleared")
    assert "(components)" in out


def test_reshuffle_out_of_nodes_exits_4(llkgen_cli):
    code, out, _ = llkgen_cli("reshuffle", "easy.json#easy-1", "--seed", "3", "--nodes", "1")
    assert code == 4 and out.startswith("unknown: no arrangement was certified in 32 attempts")


def test_reshuffle_needs_a_seed(llkgen_cli):
    code, _, err = llkgen_cli("reshuffle", "dead.json")
    assert code == 2 and "--seed" in err


# -- the library's values, printed -------------------------------------------------------------
@pytest.mark.parametrize("ref, nodes, status", [
    ("mixed.json", 20000, "move"), ("dead.json", 20000, "dead"), ("cleared.json", 20000, "cleared"),
    ("easy.json#easy-1", 1, "undecided")])
def test_a_library_hint_prints_as_the_command_prints_it(llkgen_cli, files, ref, nodes, status):
    code, out, _ = llkgen_cli("hint", ref, "--nodes", str(nodes), "--json")
    lv = load_level_ref(str(files / ref))
    found = llkgen.hint(lv.board, lv.rules, llkgen.Budget(nodes=nodes))
    assert hint_json(found, llkgen.Budget(nodes=nodes)) == json.loads(out)
    # the hint's status word carries the verifier's verdict, and the exit code follows from it
    assert (found.status, found.verdict, found.exit_code) == (status, json.loads(out)["verdict"], code)
    assert found.status.verdict == found.verdict and found.status.exit_code == code


@pytest.mark.parametrize("name", ["mixed.json", "doomed.json", "dead.json"])
def test_library_labels_print_as_the_command_prints_them(llkgen_cli, name):
    _, out, _ = llkgen_cli("moves", name, "--classify", "--json")
    labels = llkgen.classify_moves(*_board(name))
    assert [label_json(x) for x in labels] == json.loads(out)["moves"]
    assert [drawn_json(x.move) for x in labels] == json.loads(llkgen_cli("moves", name, "--json")[1])["moves"]


def test_a_library_reshuffle_prints_as_the_command_prints_it(llkgen_cli, files):
    _, out, _ = llkgen_cli("reshuffle", "easy.json#easy-1", "--seed", "5", "--json")
    lv = load_level_ref(str(files / "easy.json#easy-1"))
    done = llkgen.reshuffle(lv.board, lv.rules, seed=5)
    assert reshuffled_level(done, lv.rules, lv.id) == json.loads(out)["level"]


# -- --budget -----------------------------------------------------------------------------------
# Every board here runs for minutes without a budget. The commands run in this process, timed
# from the call's start, with the overrun past the budget scaled by how busy the machine is
# (tests/timing.py); one real process per command checks the budget end to end.

BUDGETED = [["moves", "--classify"], ["reshuffle", "--seed", "1"], ["hint"], ["solve"], ["verify", "--jobs", "1"]]


def _says_the_budget_ran_out(command: str, out: str) -> None:
    # moves --classify prints a label per move, the others the reason (naming the budget)
    if command == "moves":
        assert out.splitlines()[-1].endswith(" unknown")
    else:
        assert "time budget" in out or "budget of 1 s ran out" in out, out[-500:]


@pytest.mark.parametrize("command", BUDGETED, ids=lambda c: c[0])
@pytest.mark.parametrize("name", ["big.json", "big-gravity.json"])
def test_budget_bounds_the_whole_command(llkgen_cli, command, name):
    with Timed() as t:
        code, out, err = llkgen_cli(command[0], name, *command[1:], "--budget", "1")
    assert code == 4, (out[-500:], err)
    _says_the_budget_ran_out(command[0], out)
    assert t.seconds < t.limit(1), t
    assert "Traceback" not in err


@pytest.mark.parametrize("command", BUDGETED[:3], ids=lambda c: c[0])
def test_budget_bounds_the_real_process(files, command):
    """The command as a user runs it: its wall time is the budget, the overrun scaled by the
    load, and the interpreter's start-up, measured around the run."""
    with TimedProcess() as t:
        r = subprocess.run([sys.executable, "-m", "llkgen", command[0], str(files / "big.json"), *command[1:],
                            "--budget", "1"], capture_output=True, text=True, timeout=600)
    assert r.returncode == 4, (r.stdout[-500:], r.stderr)
    _says_the_budget_ran_out(command[0], r.stdout)
    assert t.seconds < t.limit(1), t


def test_classify_budget_leaves_unchecked_moves_unknown(llkgen_cli):
    code, out, _ = llkgen_cli("moves", "big.json", "--classify", "--budget", "0.5", "--json")
    got = json.loads(out)
    assert code == 4 and got["summary"] == {"safe": 0, "fatal": 0, "unknown": 960}
    assert {json.dumps(m["proof"]) for m in got["moves"]} == {'{"budget": "seconds"}'}


# Budget 0 is a budget that runs out at once, the same for every command: undecided, exit 4,
# even where the lock test would have proved the board dead in no time (dead.json), so the
# answer never depends on how far a stage got before its first look at the clock. (dead.json
# has no removable pair, which moves --classify lists without a search: dead, exit 3.)
@pytest.mark.parametrize("command, name", [
    *[(c, n) for c in BUDGETED for n in ("mixed.json", "doomed.json")],
    *[(c, "dead.json") for c in BUDGETED if c[0] != "moves"],
], ids=str)
def test_budget_0_is_undecided_with_exit_4_for_every_command(llkgen_cli, command, name):
    code, out, err = llkgen_cli(command[0], name, *command[1:], "--budget", "0")
    assert code == 4, (out, err)
    assert ("undecided" in out or "unknown" in out) and err == ""


# -- bad input ----------------------------------------------------------------------------------
@pytest.mark.parametrize("command", [["hint"], ["moves", "--classify"], ["reshuffle", "--seed", "1"]])
@pytest.mark.parametrize("name, message", [
    ("missing.json", "missing.json"),
    ("malformed.json", "malformed.json"),
    ("ragged.json", "ragged rows"),
    ("easy.json#easy-9", "no level 'easy-9'"),
])
def test_bad_input_exits_1_with_an_error_line(llkgen_cli, command, name, message):
    code, out, err = llkgen_cli(command[0], name, *command[1:])
    assert code == 1 and out == ""
    assert err.startswith("Error: ") and message in err and "Traceback" not in err


def test_the_installed_command_shows_no_traceback(files):
    for argv in (["hint", "missing.json"], ["reshuffle", "malformed.json", "--seed", "1"]):
        proc = subprocess.run([sys.executable, "-m", "llkgen", *argv], cwd=files, capture_output=True,
                              text=True, timeout=HANG_SECONDS)
        assert proc.returncode == 1, proc.stderr
        assert proc.stderr.startswith("Error: ") and "Traceback" not in proc.stderr
