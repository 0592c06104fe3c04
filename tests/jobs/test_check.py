"""``llkgen verify`` for CI: checks, exit-code precedence, reports, bad files.

Library-level tests call :func:`llkgen.jobs.check.verify_paths`; the CLI tests run the real
``llkgen`` command as a subprocess and assert on its output and exit code.
"""

from __future__ import annotations

import json
import subprocess
import sys
import xml.etree.ElementTree as ET
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from llkgen.errors import LevelFormatError
from llkgen.game.board import Board, Rules
from llkgen.jobs.check import collect, verify_paths
from llkgen.verifier import Budget, verify

from check_levels import GOOD, HARD, HARD_GRID, UNSOLVABLE, pack, write, write_pack_dir_of
from timing import HANG_SECONDS, Timed, slowdown


def hard_solution() -> list:
    v = verify(Board.from_grid(HARD_GRID), Rules(False, "none"), Budget(nodes=100_000))
    assert v.status == "solvable"
    return v.solution


def test_preconditions():
    assert verify(Board.from_grid(HARD_GRID), Rules(False, "none"), Budget(nodes=1)).status == "unknown"


def checks(report):
    return [(lv.label.rsplit("/", 1)[-1], lv.check) for lv in report.levels]


def test_every_check_and_its_exit_code(tmp_path):
    cases = {
        "ok": (GOOD, 0),
        "unsolvable": (UNSOLVABLE, 3),
        "unknown": (HARD, 4),
        "failed": (GOOD | {"solution": [[[0, 1], [0, 3]], [[0, 0], [2, 0]]]}, 1),
    }
    for check, (level, code) in cases.items():
        report = verify_paths([write(tmp_path / f"{check}.json", level)])
        assert [lv.check for lv in report.levels] == [check]
        assert report.exit_code == code


def test_exit_code_precedence(tmp_path):
    files = (("ok.json", GOOD), ("uns.json", UNSOLVABLE), ("unk.json", HARD))
    ok, uns, unk = (write(tmp_path / n, lv) for n, lv in files)
    bad = write(tmp_path / "bad.json", '{"format": "llkgen.level/1", "rows": 3, "co')
    assert verify_paths([ok, unk]).exit_code == 4
    assert verify_paths([unk, uns, ok]).exit_code == 3
    assert verify_paths([unk, uns, bad, ok]).exit_code == 1
    assert verify_paths([ok]).exit_code == 0


def test_a_corrupt_file_is_named_and_the_others_still_checked(tmp_path):
    write(tmp_path / "a.json", GOOD)
    write(tmp_path / "b.json", json.dumps(pack(GOOD, UNSOLVABLE))[:50])  # truncated
    write(tmp_path / "c.json", pack(GOOD, UNSOLVABLE))
    write(tmp_path / "d.json", GOOD | {"grid": [[1, 2, 0, 2], [-1, 0, 0, 1], [3, 0, 0, 4]]})  # odd counts
    report = verify_paths([tmp_path])
    assert checks(report) == [("a.json", "ok"), ("c.json#good", "ok"), ("c.json#locked", "unsolvable")]
    assert [(Path(p.file).name, p.check) for p in report.problems] == [("b.json", "invalid"), ("d.json", "invalid")]
    assert "bad JSON" in report.problems[0].detail
    assert report.lines()[-2].startswith("INVALID    ") and report.lines()[0].startswith("ok         ")
    assert "even number of times" in report.problems[1].detail
    assert report.exit_code == 1
    assert report.counts() == {"ok": 2, "unsolvable": 1, "unknown": 0, "failed": 0,
                               "invalid_files": 2, "skipped_files": 0}


def test_certificates_are_not_trusted(tmp_path):
    lying = UNSOLVABLE | {"certificate": {"verdict": "solvable", "method": "x", "stats": {"nodes": 1}},
                          "solution": [[[0, 0], [1, 1]], [[0, 1], [1, 0]]]}
    report = verify_paths([write(tmp_path / "lie.json", lying)])
    assert report.levels[0].check == "failed"
    assert "stored solution fails: move 0" in report.levels[0].detail


def test_a_stored_solution_settles_an_undecided_level(tmp_path):
    level = HARD | {"solution": hard_solution()}
    path = write(tmp_path / "h.json", level)
    (res,) = verify_paths([path], resolve=True).levels
    assert (res.check, res.verdict, res.method, res.replayed) == ("ok", "unknown", "replay", True)
    assert res.stage and res.nodes >= 1 and "search undecided" in res.detail


def test_a_stored_solution_is_replayed_not_searched(tmp_path, monkeypatch):
    """Replay first: a level whose stored solution clears the board is certified by the
    referee alone. The verifier is replaced by a tripwire, so a search would fail the test."""
    import llkgen.jobs.check as ci

    def tripwire(*args, **kwargs):
        raise AssertionError("searched a level that stores a solution")

    monkeypatch.setattr(ci, "verify", tripwire)
    path = write(tmp_path / "p.json", pack(GOOD, HARD | {"solution": hard_solution()}))
    report = verify_paths([path])
    assert [(r.check, r.verdict, r.method, r.stage, r.nodes, r.replayed, r.solution_moves)
            for r in report.levels] == [("ok", "solvable", "replay", "", 0, True, 3),
                                        ("ok", "solvable", "replay", "", 0, True, len(hard_solution()))]
    assert "the stored solution replays: all 3 moves are legal" in report.levels[0].detail
    assert report.exit_code == 0 and report.methods == {"replay": 2, "search": 0}
    assert "2 certified (2 by replay, 0 by search)" in report.summary()


def test_resolve_searches_every_level(tmp_path):
    path = write(tmp_path / "p.json", pack(GOOD, GOOD | {"id": "plain", "solution": None} ))
    plain = verify_paths([path])
    assert [(r.method, r.verdict) for r in plain.levels] == [("replay", "solvable"), ("search", "solvable")]
    assert plain.levels[1].nodes >= 0 and plain.levels[1].stage
    forced = verify_paths([path], resolve=True)
    assert [(r.check, r.method, r.replayed, r.solution_moves) for r in forced.levels] == \
        [("ok", "search", True, 3), ("ok", "search", None, None)]
    assert all(r.stage for r in forced.levels)


BAD_MOVE = [[[0, 1], [0, 3]], [[0, 0], [2, 0]]]  # the second move joins types 1 and 3


@pytest.mark.parametrize("resolve", [False, True])
def test_a_corrupt_stored_solution_fails(tmp_path, resolve):
    """A stored solution that does not replay is a failed check, with the first bad move named,
    even though the level itself is solvable: the pack ships a wrong solution. With --resolve
    the search's verdict is added to the message."""
    path = write(tmp_path / "p.json", pack(GOOD | {"solution": BAD_MOVE}))
    report = verify_paths([path], resolve=resolve)
    (res,) = report.levels
    assert (res.check, res.replayed, res.solution_moves, report.exit_code) == ("failed", False, 2, 1)
    assert res.detail.startswith("stored solution fails: move 1: cells [0, 0] and [2, 0] hold different types")
    if resolve:
        assert (res.method, res.verdict) == ("search", "solvable") and "(search: solvable" in res.detail
    else:
        assert (res.method, res.verdict, res.nodes) == ("replay", "unknown", 0)
        assert "not searched" in res.detail and "unless resolve" in res.detail


def test_a_solution_that_leaves_tiles_fails(tmp_path):
    res = verify_paths([write(tmp_path / "l.json", GOOD | {"solution": GOOD["solution"][:2]})]).levels[0]
    assert res.check == "failed" and "but 2 tiles remain" in res.detail
    res = verify_paths([write(tmp_path / "n.json", GOOD | {"solution": "none"})]).levels[0]
    assert res.check == "failed" and "expected a list of moves" in res.detail
    assert (res.replayed, res.solution_moves) == (False, None)  # a solution, but no list of moves


def _slow_64() -> dict:
    import random

    rng = random.Random("ci_verify/64x64/4")
    tiles = [1 + (k // 2) % 4 for k in range(64 * 64)]
    rng.shuffle(tiles)
    grid = [tiles[r * 64:(r + 1) * 64] for r in range(64)]
    return {"format": "llkgen.level/1", "id": "big", "rows": 64, "cols": 64, "grid": grid}


#: Measured: 26 s to "unknown" with a budget of 5 nodes and no seconds budget.
SLOW_64 = _slow_64()


def test_seconds_budget_makes_a_slow_board_unknown(tmp_path):
    """A 64x64 board with 4 types takes tens of seconds at the root even with a tiny node
    budget (measured: --nodes 5, 21 s); a seconds budget stops it: unknown, naming the budget.
    Idle the search stops itself at the deadline ("during the quick dive"); on a busy machine
    its first look at the clock can come past the run's hard stop, and the run ends the worker
    ("not checked"). The budget is scaled by how busy the machine is, and so is the overrun
    allowed past it (``tests/timing.py``); it stays under the idle search's 21 s."""
    path = write(tmp_path / "big.json", SLOW_64)
    seconds = min(15, round(max(1.0, slowdown())))
    with Timed() as t:
        report = verify_paths([path], nodes=5, seconds=seconds)
    (res,) = report.levels
    assert (res.check, res.method, res.budget, report.exit_code) == ("unknown", "search", Budget(5, seconds), 4)
    assert res.detail == f"not checked: the budget of {seconds:g} s ran out" or \
        res.detail.startswith(f"unknown: the budget of {seconds:g} s ran out during the "), res.detail
    assert t.seconds < t.limit(seconds), t


def test_budget_comes_from_nodes_then_certificate_then_default(tmp_path):
    path = write(tmp_path / "h.json", HARD)
    assert verify_paths([path]).levels[0].budget == Budget(1, None)
    res = verify_paths([path], nodes=100_000).levels[0]
    assert (res.budget, res.check) == (Budget(100_000, None), "ok")
    plain = {k: v for k, v in HARD.items() if k != "certificate"}
    assert verify_paths([write(tmp_path / "p.json", plain)]).levels[0].budget.nodes == 200_000


def test_directories_are_searched_recursively(tmp_path):
    write(tmp_path / "x" / "y" / "deep.json", GOOD)
    write(tmp_path / "x" / "notes.txt", "not json")
    write(tmp_path / "x" / ".hidden" / "h.json", UNSOLVABLE)
    write(tmp_path / "x" / "package.json", {"name": "something else"})
    found = [(p.relative_to(tmp_path).as_posix(), strict) for p, strict in collect([tmp_path / "x"])]
    assert found == [("x/package.json", False), ("x/y/deep.json", False)]
    report = verify_paths([tmp_path / "x"])
    assert checks(report) == [("deep.json", "ok")]
    assert [(Path(p.file).name, p.check) for p in report.problems] == [("package.json", "skipped")]
    assert report.exit_code == 0
    # Named explicitly, the same file is checked strictly.
    assert verify_paths([tmp_path / "x" / "package.json"]).exit_code == 1


def test_nothing_to_check_is_an_error(tmp_path):
    with pytest.raises(LevelFormatError, match="no level files found"):
        verify_paths([tmp_path])


def test_same_report_with_a_process_pool(tmp_path):
    write(tmp_path / "p.json", pack(GOOD, UNSOLVABLE, HARD, GOOD))
    assert verify_paths([tmp_path], jobs=2).to_json() == verify_paths([tmp_path], jobs=1).to_json()


def test_junit_and_json_reports(tmp_path):
    write(tmp_path / "p.json", pack(GOOD, UNSOLVABLE, HARD))
    write(tmp_path / "q.json", "{")
    report = verify_paths([tmp_path])
    root = ET.fromstring(report.to_junit())
    assert root.tag == "testsuites"
    assert {k: root.get(k) for k in ("tests", "failures", "errors", "skipped")} == \
        {"tests": "4", "failures": "2", "errors": "1", "skipped": "0"}
    failures = [f.get("type") for f in root.iter("failure")]
    assert failures == ["unsolvable", "unknown"]
    methods = [{p.get("name"): p.get("value") for p in case.iter("property")}.get("method")
               for case in root.iter("testcase")]
    assert methods == ["replay", "search", "search", None]  # GOOD stores a solution; q.json is invalid
    obj = json.loads(json.dumps(report.to_json()))
    assert obj["format"] == "llkgen.verify-report/2" and obj["exit_code"] == 1
    assert [(lv["check"], lv["verdict"]) for lv in obj["levels"]] == \
        [("ok", "solvable"), ("unsolvable", "unsolvable"), ("unknown", "unknown")]
    assert [(lv["replayed"], lv["solution_moves"]) for lv in obj["levels"]] == [(True, 3), (None, None), (None, None)]
    assert [lv["method"] for lv in obj["levels"]] == ["replay", "search", "search"]
    assert obj["summary"]["certified_by"] == {"replay": 1, "search": 0}
    assert obj["files"][0]["check"] == "invalid"


# -- the real command ---------------------------------------------------------------------------
def llkgen(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "llkgen", *args], cwd=cwd, capture_output=True,
                          text=True, timeout=HANG_SECONDS)


def test_cli_verify(tmp_path):
    write(tmp_path / "levels" / "pack.json", pack(GOOD, HARD))
    write(tmp_path / "levels" / "sub" / "locked.json", UNSOLVABLE)
    write(tmp_path / "levels" / "broken.json", "{\"format\": \"llkgen.pack/1\", \"name\": \"x\", \"levels\": [")
    commands = {  # run concurrently: each interpreter start-up costs ~0.5 s
        "dir": ("verify", "levels", "--junit", "out/junit.xml", "--jobs", "1"),
        "json": ("verify", "levels/pack.json", "levels/sub", "--json", "--jobs", "1"),
        "nodes": ("verify", "levels/pack.json", "--nodes", "100000", "--jobs", "1"),
        "missing": ("verify", "missing.json"),
        "zero": ("verify", "levels", "--nodes", "0"),
        "quiet": ("verify", "levels", "-q", "--jobs", "1"),
        "quiet-json": ("verify", "levels/pack.json", "levels/sub", "--json", "--quiet", "--jobs", "1"),
    }
    with ThreadPoolExecutor(len(commands)) as pool:
        runs = dict(zip(commands, pool.map(lambda a: llkgen(*a, cwd=tmp_path), commands.values())))

    r = runs["dir"]
    lines = r.stdout.splitlines()
    assert r.returncode == 1, r.stderr
    assert lines[0].startswith("ok         levels/pack.json#good: solvable")
    assert lines[1].startswith("UNKNOWN    levels/pack.json#hard: unknown: the ")
    assert lines[2].startswith("UNSOLVABLE levels/sub/locked.json: unsolvable: 4 tiles can never be removed")
    assert lines[3].startswith("INVALID    levels/broken.json: bad JSON")
    assert lines[-1] == ("3 levels in 3 files: 1 certified (1 by replay, 0 by search), 1 unsolvable, "
                         "1 unknown, 0 failed; 1 invalid file (exit 1)")
    assert ET.parse(tmp_path / "out" / "junit.xml").getroot().get("tests") == "4"

    r = runs["json"]
    assert r.returncode == 3
    assert [lv["check"] for lv in json.loads(r.stdout)["levels"]] == ["ok", "unknown", "unsolvable"]

    r = runs["nodes"]
    assert r.returncode == 0 and r.stdout.splitlines()[-1].endswith("(exit 0)")

    r = runs["missing"]
    assert r.returncode == 1 and "INVALID    missing.json: no such file" in r.stdout

    assert runs["zero"].returncode == 2  # usage error from the option parser

    # -q: only what is not certified (levels and files), then the summary; the exit code is the same
    r = runs["quiet"]
    assert (r.returncode, r.stderr) == (1, "")
    assert r.stdout.splitlines() == runs["dir"].stdout.splitlines()[1:]
    # with --json the report is unchanged
    r = runs["quiet-json"]
    quiet, loud = json.loads(r.stdout), json.loads(runs["json"].stdout)
    assert r.returncode == 3 and quiet.keys() == loud.keys()
    assert quiet["levels"] == loud["levels"] and quiet["summary"] == loud["summary"]


# -- pack directories ---------------------------------------------------------------------------
def test_pack_directories_are_streamed_and_found_in_folders(tmp_path):
    big = write_pack_dir_of(tmp_path / "levels" / "big", GOOD, UNSOLVABLE, HARD, GOOD | {"id": "g2"})
    write(tmp_path / "levels" / "a.json", GOOD)
    web = tmp_path / "levels" / "web"
    write(web / "index.json", {"title": "not a pack"})
    write(web / "lv.json", GOOD)
    assert [(p.relative_to(tmp_path).as_posix(), strict) for p, strict in collect([tmp_path / "levels"])] == \
        [("levels/a.json", False), ("levels/big", False), ("levels/web/index.json", False),
         ("levels/web/lv.json", False)]
    report = verify_paths([tmp_path / "levels"], jobs=2)
    assert checks(report) == [("a.json", "ok"), ("big#good", "ok"), ("big#locked", "unsolvable"),
                                ("big#hard", "unknown"), ("big#g2", "ok"), ("lv.json", "ok")]
    assert [lv.method for lv in report.levels] == ["replay", "replay", "search", "search", "replay", "replay"]
    assert [(Path(p.file).name, p.check) for p in report.problems] == [("index.json", "skipped")]
    assert verify_paths([big]).to_json()["levels"] == verify_paths([big], jobs=2).to_json()["levels"]


def test_a_broken_pack_directory_is_invalid_at_its_line(tmp_path):
    big = write_pack_dir_of(tmp_path / "big", GOOD, GOOD | {"id": "g2"}, GOOD | {"id": "g3"})
    part = big / "levels-00001.jsonl"
    part.write_text(part.read_text("utf-8").replace('"rows":3', '"rows":4'), "utf-8")
    report = verify_paths([big])
    assert checks(report) == [("big#good", "ok"), ("big#g2", "ok")]  # those before the bad line
    (p,) = report.problems
    assert (p.file, p.check) == (f"{part}:1", "invalid")
    assert p.detail == "levels[2]: rows/cols say 4x4 but the grid is 3x4"
    assert report.exit_code == 1
    assert report.lines()[-1] == f"INVALID    {part}:1: levels[2]: rows/cols say 4x4 but the grid is 3x4"
    (big / "index.json").unlink()
    report = verify_paths([big])
    assert [(p.file, p.detail) for p in report.problems] == \
        [(f"{big}/index.json", "no such file: a pack directory needs its index (llkgen.packdir/1)")]


def test_a_pack_directory_is_read_as_it_is_checked(tmp_path):
    """Streaming, seen from outside: when the first level is reported, the last part has not
    been read yet, so breaking it then is noticed. A reader that loaded the whole directory
    first would check all four levels."""
    big = write_pack_dir_of(tmp_path / "big", GOOD, *(GOOD | {"id": f"g{i}"} for i in (2, 3, 4)))
    last = big / "levels-00001.jsonl"

    def break_last_part(res) -> None:
        if res.label.endswith("#good"):
            last.write_text("[]\n", "utf-8")

    report = verify_paths([big], on_level=break_last_part)
    assert checks(report) == [("big#good", "ok"), ("big#g2", "ok")]
    assert [(p.file, p.detail) for p in report.problems] == \
        [(f"{last}:1", "levels[2]: expected a level object, found a list of 0")]


def test_without_reports_nothing_is_kept_per_level(tmp_path):
    big = write_pack_dir_of(tmp_path / "big", GOOD, UNSOLVABLE, GOOD | {"id": "g2"})
    seen = []
    report = verify_paths([big], on_level=seen.append, keep_levels=False)
    assert report.levels == [] and len(seen) == 3
    assert (report.counts()["ok"], report.counts()["unsolvable"], report.exit_code) == (2, 1, 3)


def test_cli_verify_replay_resolve_budget_and_pack_dirs(tmp_path):
    write_pack_dir_of(tmp_path / "big", GOOD, GOOD | {"id": "g2"}, GOOD | {"id": "g3"})
    write(tmp_path / "bad.json", GOOD | {"solution": BAD_MOVE})
    broken = write_pack_dir_of(tmp_path / "broken", GOOD, GOOD | {"id": "g2"}, GOOD | {"id": "g3"})
    (broken / "levels-00001.jsonl").write_text("{\n", "utf-8")
    commands = {
        "replay": ("verify", "big", "--json", "--jobs", "1"),
        "resolve": ("verify", "big", "--resolve", "--junit", "j.xml", "--jobs", "2"),
        "bad": ("verify", "bad.json", "big", "--budget", "5", "--jobs", "1"),
        "broken": ("verify", "broken", "--jobs", "1"),
        "neg": ("verify", "big", "--budget", "-1"),
        "budget": ("verify", "slow.json", "--nodes", "5", "--budget", "0.3", "--json"),
    }
    write(tmp_path / "slow.json", SLOW_64)
    with ThreadPoolExecutor(len(commands)) as pool:
        runs = dict(zip(commands, pool.map(lambda a: llkgen(*a, cwd=tmp_path), commands.values())))

    r = runs["replay"]
    assert r.returncode == 0, r.stderr
    assert [(lv["label"], lv["method"]) for lv in json.loads(r.stdout)["levels"]] == \
        [("big#good", "replay"), ("big#g2", "replay"), ("big#g3", "replay")]

    r = runs["resolve"]
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines()[-1] == \
        "3 levels in 1 file: 3 certified (0 by replay, 3 by search), 0 unsolvable, 0 unknown, 0 failed (exit 0)"
    props = [p.get("value") for p in ET.parse(tmp_path / "j.xml").getroot().iter("property")
             if p.get("name") == "method"]
    assert props == ["search"] * 3

    r = runs["bad"]
    assert r.returncode == 1
    assert r.stdout.splitlines()[0].startswith(
        "FAILED     bad.json: stored solution fails: move 1: cells [0, 0] and [2, 0] hold different types")
    assert "Traceback" not in r.stderr

    r = runs["broken"]
    assert r.returncode == 1 and "Traceback" not in r.stderr
    assert "INVALID    broken/levels-00001.jsonl:1: bad JSON at column 2" in r.stdout

    assert runs["neg"].returncode == 2

    r = runs["budget"]
    assert r.returncode == 4, r.stderr
    (lv,) = json.loads(r.stdout)["levels"]
    assert (lv["check"], lv["method"], lv["budget"]["seconds"]) == ("unknown", "search", 0.3)
    assert "the budget of 0.3 s ran out" in lv["detail"]


def test_budget_bounds_the_whole_run_not_each_level(tmp_path):
    """A good level file, then four levels of tens of seconds each (at --nodes 5): one budget
    for the whole run. The level read first is certified, the searches in the workers stop at
    the deadline (or the run ends them), and the ones waiting for a worker are not checked.
    The budget is scaled by how busy the machine is (starting the workers and reading the
    levels take longer then), and stays under the idle search's 21 s."""
    big = write(tmp_path / "slow.json", pack(*[SLOW_64 | {"id": f"big-{k}"} for k in range(4)]))
    good = write(tmp_path / "good.json", GOOD)
    seconds = min(15, round(max(1.0, 2 * slowdown())))
    with Timed() as t:
        report = verify_paths([good, big], nodes=5, jobs=2, seconds=seconds)
    assert t.seconds < t.limit(seconds), t
    assert [lv.check for lv in report.levels] == ["ok"] + ["unknown"] * 4, report.lines()
    assert report.levels[0].method == "replay" and report.exit_code == 4 and report.problems == []
    for lv in report.levels[1:]:
        assert lv.budget == Budget(5, seconds)
        assert lv.detail == f"not checked: the budget of {seconds:g} s ran out" or \
            lv.detail.startswith(f"unknown: the budget of {seconds:g} s ran out during the "), lv.detail
    assert any(lv.detail.startswith("not checked") for lv in report.levels[1:])  # two workers, four levels


def test_budget_zero_checks_nothing_and_reports_every_file(tmp_path):
    write(tmp_path / "a.json", GOOD)
    write_pack_dir_of(tmp_path / "dir", GOOD, GOOD | {"id": "g2"})
    report = verify_paths([tmp_path], seconds=0)
    assert (report.checked, report.files, report.exit_code) == (0, 2, 4)
    assert [(p.file.rsplit("/", 1)[-1], p.check, p.detail) for p in report.problems] == \
        [(name, "unknown", "not checked: the budget of 0 s ran out") for name in ("a.json", "dir")]
    assert report.summary().endswith("; 2 files not (fully) checked: the time budget ran out (exit 4)")
    assert report.counts()["skipped_files"] == 0
    suites = ET.fromstring(report.to_junit())
    assert suites.get("failures") == "2" and len(list(suites.iter("failure"))) == 2
    # A file past the deadline is not read, so not found invalid either; read in time, it is.
    write(tmp_path / "b.json", "{")
    assert verify_paths([tmp_path / "b.json", tmp_path / "a.json"], seconds=0).exit_code == 4
    assert verify_paths([tmp_path / "b.json"], seconds=60).exit_code == 1


def test_cli_verify_budget_zero_and_with_scheduler(tmp_path):
    write(tmp_path / "a.json", GOOD)
    r = llkgen("verify", "a.json", "--budget", "0", "--json", cwd=tmp_path)
    assert r.returncode == 4, r.stderr
    report = json.loads(r.stdout)
    assert (report["exit_code"], report["levels"], report["files"]) == \
        (4, [], [{"file": "a.json", "check": "unknown", "detail": "not checked: the budget of 0 s ran out"}])
    r = llkgen("verify", "a.json", "--budget", "1", "--scheduler", "local", cwd=tmp_path)
    assert (r.returncode, r.stdout) == (2, "") and r.stderr.startswith("Error: --budget: cannot be kept with")


@pytest.mark.parametrize("value", [10**400, -(10**400), 2**53 + 1, 1e300])
def test_a_number_out_of_range_in_metrics_is_refused_where_it_is_read(tmp_path, monkeypatch, capsys, value):
    """A 401-digit integer in a level's ``metrics`` passed verify, then grade, view and render
    crashed with OverflowError. Numbers in ``metrics`` are range-checked when the level is
    read (at most 2^53 in magnitude): verify says the file is invalid, and every command that
    reads it says so in one Error line, exit 1."""
    from cli_runner import run_cli_in_process

    path = write(tmp_path / "big.json", pack(GOOD | {"metrics": {"difficulty": value, "pairs": 3}}))
    (problem,) = verify_paths([path]).problems
    assert problem.check == "invalid" and "metrics.difficulty: expected a number from -2^53 to 2^53" in problem.detail
    for argv in (["grade", str(path)], ["view", str(path), "--out", str(tmp_path / "v")],
                 ["render", str(path), "--out", str(tmp_path / "r")], ["verify", str(path)]):
        code, out, err = run_cli_in_process(argv, monkeypatch, capsys)
        assert code == 1 and "Traceback" not in err, (argv, err)
        assert "metrics.difficulty: expected a number from -2^53 to 2^53" in out + err, argv
    assert verify_paths([write(tmp_path / "ok.json", GOOD | {"metrics": {"difficulty": 2**53}})]).exit_code == 0
