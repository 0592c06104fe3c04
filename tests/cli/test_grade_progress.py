"""``grade``'s progress on stderr: a bar on a terminal, a plain line per level otherwise (a CI
log, a pipe), as ``make`` shows it; nothing with ``--json`` or ``--quiet``."""

from __future__ import annotations

import llkgen
from llkgen.formats.level import pack_to_json, write_json_atomic
from llkgen.jobs.grade import level_count

from cli_runner import run_cli_in_process
from paths import DATA


def test_grade_shows_a_line_per_level_when_stderr_is_not_a_terminal(monkeypatch, capsys):
    level = str(DATA / "gravity-solvable-down.json")
    code, out, err = run_cli_in_process(["grade", level, "--jobs", "1"], monkeypatch, capsys)
    assert code == 0, err
    assert f"grading {level}: 1/1 levels" in err.splitlines()
    assert "gravity-solvable-down" in out
    for quiet in (["--quiet"], ["--json"]):
        code, out, err = run_cli_in_process(["grade", level, "--jobs", "1", *quiet], monkeypatch, capsys)
        assert code == 0 and "grading" not in err


def test_level_count_counts_what_grade_measures(tmp_path):
    pack = write_json_atomic(tmp_path / "p.json", pack_to_json(llkgen.generate("easy", count=3)))
    assert level_count(str(pack)) == 3
    assert level_count(str(DATA / "gravity-solvable-down.json")) == 1
    assert level_count(f"{pack}#1") == 1
