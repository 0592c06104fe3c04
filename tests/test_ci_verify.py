"""``llkgen verify`` for CI: statuses, exit-code precedence, reports, bad files.

Library-level tests call :func:`llkgen.ci_verify.verify_paths`; the CLI tests run the real
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

from llkgen.board import Board, Rules
from llkgen.ci_verify import collect, verify_paths
from llkgen.errors import LevelFormatError
from llkgen.verify import Budget, verify

GOOD = {"format": "llkgen.level/1", "id": "good", "rows": 3, "cols": 4,
        "grid": [[1, 2, 0, 2], [-1, 0, 0, 1], [3, 0, 0, 3]], "rules": {"border": True, "gravity": "none"},
        "solution": [[[0, 1], [0, 3]], [[0, 0], [1, 3]], [[2, 0], [2, 3]]]}
# Locked without a border: the lock test proves it unsolvable.
UNSOLVABLE = {"format": "llkgen.level/1", "id": "locked", "rows": 2, "cols": 2,
              "grid": [[1, 2], [2, 1]], "rules": {"border": False, "gravity": "none"}}
# Solvable, but not within a one-node budget.
HARD_GRID = [[2, 9, 8, 1, 1, 6], [7, 6, 3, 1, 1, 5], [8, 3, 3, 2, 9, 5],
             [3, 5, 6, 4, 9, 4], [2, 2, 5, 7, 4, 7], [7, 6, 8, 9, 4, 8]]
HARD = {"format": "llkgen.level/1", "id": "hard", "rows": 6, "cols": 6, "grid": HARD_GRID,
        "rules": {"border": False, "gravity": "none"}, "certificate": {"budget": {"nodes": 1}}}


def write(path: Path, obj) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(obj if isinstance(obj, str) else json.dumps(obj), "utf-8")
    return path


def pack(*levels) -> dict:
    return {"format": "llkgen.pack/1", "name": "p", "levels": list(levels)}


def hard_solution() -> list:
    v = verify(Board.from_grid(HARD_GRID), Rules(False, "none"), Budget(nodes=100_000))
    assert v.status == "solvable"
    return v.solution


def test_preconditions():
    assert verify(Board.from_grid(HARD_GRID), Rules(False, "none"), Budget(nodes=1)).status == "unknown"


def statuses(report):
    return [(lv.label.rsplit("/", 1)[-1], lv.status) for lv in report.levels]


def test_every_status_and_its_exit_code(tmp_path):
    cases = {
        "ok": (GOOD, 0),
        "unsolvable": (UNSOLVABLE, 3),
        "unknown": (HARD, 4),
        "failed": (GOOD | {"solution": [[[0, 1], [0, 3]], [[0, 0], [2, 0]]]}, 1),
    }
    for status, (level, code) in cases.items():
        report = verify_paths([write(tmp_path / f"{status}.json", level)])
        assert [lv.status for lv in report.levels] == [status]
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
    assert statuses(report) == [("a.json", "ok"), ("c.json#good", "ok"), ("c.json#locked", "unsolvable")]
    assert [(Path(p.file).name, p.status) for p in report.problems] == [("b.json", "invalid"), ("d.json", "invalid")]
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
    assert report.levels[0].status == "failed"
    assert "stored solution fails: move 0" in report.levels[0].detail


def test_a_stored_solution_settles_an_undecided_level(tmp_path):
    level = HARD | {"solution": hard_solution()}
    report = verify_paths([write(tmp_path / "h.json", level)])
    (res,) = report.levels
    assert (res.status, res.verdict, res.method, res.solution) == ("ok", "unknown", "stored-solution", "replays")
    assert report.exit_code == 0


def test_budget_comes_from_nodes_then_certificate_then_default(tmp_path):
    path = write(tmp_path / "h.json", HARD)
    assert verify_paths([path]).levels[0].budget == 1
    res = verify_paths([path], nodes=100_000).levels[0]
    assert (res.budget, res.status) == (100_000, "ok")
    plain = {k: v for k, v in HARD.items() if k != "certificate"}
    assert verify_paths([write(tmp_path / "p.json", plain)]).levels[0].budget == 200_000


def test_directories_are_searched_recursively(tmp_path):
    write(tmp_path / "x" / "y" / "deep.json", GOOD)
    write(tmp_path / "x" / "notes.txt", "not json")
    write(tmp_path / "x" / ".hidden" / "h.json", UNSOLVABLE)
    write(tmp_path / "x" / "package.json", {"name": "something else"})
    found = [(p.relative_to(tmp_path).as_posix(), strict) for p, strict in collect([tmp_path / "x"])]
    assert found == [("x/package.json", False), ("x/y/deep.json", False)]
    report = verify_paths([tmp_path / "x"])
    assert statuses(report) == [("deep.json", "ok")]
    assert [(Path(p.file).name, p.status) for p in report.problems] == [("package.json", "skipped")]
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
    obj = json.loads(json.dumps(report.to_json()))
    assert obj["format"] == "llkgen.verify-report/1" and obj["exit_code"] == 1
    assert [lv["status"] for lv in obj["levels"]] == ["ok", "unsolvable", "unknown"]
    assert obj["files"][0]["status"] == "invalid"


# -- the real command ---------------------------------------------------------------------------
def llkgen(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "llkgen", *args], cwd=cwd, capture_output=True,
                          text=True, timeout=120)


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
    }
    with ThreadPoolExecutor(len(commands)) as pool:
        runs = dict(zip(commands, pool.map(lambda a: llkgen(*a, cwd=tmp_path), commands.values())))

    r = runs["dir"]
    lines = r.stdout.splitlines()
    assert r.returncode == 1, r.stderr
    assert lines[0].startswith("ok         levels/pack.json#good: solvable")
    assert lines[1].startswith("UNKNOWN    levels/pack.json#hard: unknown: undecided")
    assert lines[2].startswith("UNSOLVABLE levels/sub/locked.json: unsolvable: 4 tiles can never be removed")
    assert lines[3].startswith("INVALID    levels/broken.json: bad JSON")
    assert lines[-1] == "3 levels in 3 files: 1 certified, 1 unsolvable, 1 unknown, 0 failed; 1 invalid file (exit 1)"
    assert ET.parse(tmp_path / "out" / "junit.xml").getroot().get("tests") == "4"

    r = runs["json"]
    assert r.returncode == 3
    assert [lv["status"] for lv in json.loads(r.stdout)["levels"]] == ["ok", "unknown", "unsolvable"]

    r = runs["nodes"]
    assert r.returncode == 0 and r.stdout.splitlines()[-1].endswith("(exit 0)")

    r = runs["missing"]
    assert r.returncode == 1 and "INVALID    missing.json: no such file" in r.stdout

    assert runs["zero"].returncode == 2  # usage error from the option parser
