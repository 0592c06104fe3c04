"""``llkgen verify``'s output forms (llkgen/jobs/check_output.py): GitHub workflow commands on
the file and line of each level not certified, the markdown job summary, and ``--format``.
tests/project/test_action.py runs them inside the GitHub Action."""

from __future__ import annotations

import json
from pathlib import Path

from llkgen.formats.level import dumps, level_from_json
from llkgen.formats.packdir import write_pack_dir
from llkgen.jobs.check import verify_paths
from llkgen.jobs.check_output import (
    SUMMARY_ROWS,
    LevelLines,
    escape_data,
    escape_property,
    pack_level_lines,
    problem_annotation,
    summary_markdown,
)
from llkgen.jobs.check_report import CheckStatus, FileProblem, LevelResult
from llkgen.verifier import UNKNOWN, Budget

from cli_runner import run_cli_in_process

GOOD = {"format": "llkgen.level/1", "id": "good", "rows": 3, "cols": 4,
        "grid": [[1, 2, 0, 2], [-1, 0, 0, 1], [3, 0, 0, 3]], "rules": {"border": True, "gravity": "none"}}
#: Each tile's twin sits diagonally across the 2x2 board: no path with two turns joins them.
CROSSED = {"format": "llkgen.level/1", "id": "crossed", "rows": 2, "cols": 2, "grid": [[1, 2], [2, 1]],
           "rules": {"border": True, "gravity": "none"}}


def pack(*levels: dict) -> dict:
    return {"format": "llkgen.pack/1", "name": "p", "levels": list(levels)}


def test_workflow_command_values_are_escaped_as_the_runner_unescapes_them():
    assert escape_data("100% done\r\nnext: a, b") == "100%25 done%0D%0Anext: a, b"
    assert escape_property("levels/a:b,c%.json") == "levels/a%3Ab%2Cc%25.json"
    # A label cannot start a second command on a line of its own.
    assert "\n" not in escape_data("x\n::error::injected")


def test_a_pack_level_is_annotated_on_the_line_of_its_object(tmp_path):
    levels = [GOOD | {"id": "a"}, CROSSED, GOOD | {"id": ""}, CROSSED | {"id": "b, c: d"}]
    path = tmp_path / "pack.json"
    path.write_text(dumps(pack(*levels)), "utf-8")
    lines = path.read_text("utf-8").splitlines()
    found = pack_level_lines(path.read_text("utf-8"))
    # An empty id labels the level by its index, as levels_from_json does.
    assert set(found) == {"a", "crossed", "2", "b, c: d"}
    for name, line in found.items():
        assert lines[line - 1].strip() == "{", (name, line)
        assert lines[line].strip() == '"format": "llkgen.level/1",'
    assert found["crossed"] < found["b, c: d"]
    # Keys before "levels" hold lists and objects, and the pack on one line: still found.
    one_line = json.dumps({"format": "llkgen.pack/1", "meta": {"levels": [1]}, "x": [[]], "levels": levels})
    assert pack_level_lines(one_line) == {"a": 1, "crossed": 1, "2": 1, "b, c: d": 1}
    assert pack_level_lines("[]") == {} and pack_level_lines('{"format": "x"}') == {}

    report = verify_paths([path])
    text = [a for a in (_annotate(lv) for lv in report.levels) if a]
    assert text == [
        f"::error file={path},line={found['crossed']},title=llkgen verify%3A unsolvable::{path}#crossed: "
        + escape_data(report.levels[1].detail),
        f"::error file={path},line={found['b, c: d']},title=llkgen verify%3A unsolvable::{path}#b, c: d: "
        + escape_data(report.levels[3].detail),
    ]


def _annotate(lv: LevelResult) -> str | None:
    from llkgen.jobs.check_output import level_annotation

    return level_annotation(lv, LevelLines())


def test_a_pack_directory_level_is_annotated_on_its_line_in_its_part(tmp_path):
    levels = [GOOD | {"id": f"g{i}"} for i in range(3)] + [CROSSED]
    root = write_pack_dir(tmp_path / "dir", {"name": "p"}, (level_from_json(lv) for lv in levels), per_file=2)
    [bad] = [lv for lv in verify_paths([root]).levels if lv.check != CheckStatus.OK]
    assert LevelLines().locate(bad) == (str(root / "levels-00001.jsonl"), 2)
    assert json.loads((root / "levels-00001.jsonl").read_text().splitlines()[1])["id"] == "crossed"


def test_a_level_file_is_line_1_and_an_unknown_level_a_warning(tmp_path):
    lv = LevelResult("lv.json", "lv.json", CheckStatus.UNKNOWN, UNKNOWN, "search", "", 7, Budget(7, None), None, None,
                     "unknown: 7 nodes were not enough")
    assert _annotate(lv) == ("::warning file=lv.json,line=1,title=llkgen verify%3A unknown::lv.json: unknown: 7 "
                             "nodes were not enough")
    assert _annotate(LevelResult(**{**lv.__dict__, "check": CheckStatus.OK})) is None


def test_a_bad_file_is_annotated_at_the_line_its_problem_names(tmp_path):
    part = FileProblem("d/levels-00001.jsonl:17", CheckStatus.INVALID, "expected a level")
    assert problem_annotation(part) == ("::error file=d/levels-00001.jsonl,line=17,title=llkgen verify%3A invalid "
                                        "file::d/levels-00001.jsonl:17: expected a level")
    syntax = FileProblem("a.json", CheckStatus.INVALID, "bad JSON at line 4 column 2: Expecting value")
    assert problem_annotation(syntax).startswith("::error file=a.json,line=4,")  # type: ignore[union-attr]
    assert problem_annotation(FileProblem("b.json", CheckStatus.SKIPPED, "not an llkgen level")) is None
    late = FileProblem("c.json", CheckStatus.UNKNOWN, "not checked: the --budget of 0 s ran out")
    assert problem_annotation(late).startswith("::warning file=c.json,line=1,")  # type: ignore[union-attr]


def test_the_summary_counts_and_lists_what_is_not_certified(tmp_path):
    (tmp_path / "ok.json").write_text(json.dumps(GOOD))
    crossed = [CROSSED | {"id": f"c|{i}<b>"} for i in range(SUMMARY_ROWS + 2)]
    (tmp_path / "x.json").write_text(json.dumps(pack(*crossed)))
    (tmp_path / "bad.json").write_text("{")
    text = summary_markdown(verify_paths([tmp_path]))
    lines = text.splitlines()
    assert lines[0] == "### llkgen verify: not all levels certified"
    assert lines[2:5] == ["| certified | failed | unsolvable | unknown | invalid files | skipped files |",
                          "|---:|---:|---:|---:|---:|---:|", f"| 1 | 0 | {SUMMARY_ROWS + 2} | 0 | 1 | 0 |"]
    rows = [line for line in lines if line.startswith(f"| {tmp_path}")]
    assert len(rows) == SUMMARY_ROWS
    assert rows[0].startswith(f"| {tmp_path}/x.json#c\\|0&lt;b&gt; | unsolvable | unsolvable: ")
    assert lines[-2] == "... and 3 more (the JUnit and JSON reports list them all)."
    good = summary_markdown(verify_paths([tmp_path / "ok.json"]))
    assert good.startswith("### llkgen verify: all levels certified\n") and "| level or file |" not in good


def test_verify_format_github_and_summary_from_the_command_line(tmp_path, monkeypatch, capsys):
    (tmp_path / "good.json").write_text(json.dumps(GOOD))
    (tmp_path / "crossed.json").write_text(json.dumps(CROSSED))
    summary = tmp_path / "summary.md"
    monkeypatch.chdir(tmp_path)
    code, out, _ = run_cli_in_process(["verify", ".", "--format", "github", "--summary", str(summary)],
                                      monkeypatch, capsys)
    assert code == 3
    assert out.splitlines()[0].startswith("::error file=crossed.json,line=1,title=llkgen verify%3A unsolvable::")
    assert out.splitlines()[1].startswith("ok         good.json: solvable")
    assert summary.read_text().startswith("### llkgen verify: not all levels certified\n")
    # --json is --format json, unchanged; text is the default.
    code, out, _ = run_cli_in_process(["verify", ".", "--json"], monkeypatch, capsys)
    assert code == 3 and json.loads(out)["summary"]["unsolvable"] == 1
    code, same, _ = run_cli_in_process(["verify", ".", "--format", "json"], monkeypatch, capsys)
    assert code == 3 and same == out
    code, text, _ = run_cli_in_process(["verify", ".", "--format", "text"], monkeypatch, capsys)
    assert code == 3 and text.startswith("UNSOLVABLE")
    for argv in (["--format", "yaml"], ["--json", "--format", "github"]):
        code, _, err = run_cli_in_process(["verify", ".", *argv], monkeypatch, capsys)
        assert code == 2 and "--format" in err, err


def test_the_files_named_are_read_relative_to_the_run(tmp_path):
    assert Path(LevelLines().locate(LevelResult(
        "gone.json#x", "gone.json", CheckStatus.FAILED, UNKNOWN, "replay", "", 0, Budget(1, None), False, 1, ""))[0]) \
        == Path("gone.json")


def test_a_name_with_a_newline_cannot_start_a_workflow_command(tmp_path, monkeypatch, capsys):
    """A certified level's line, a skipped file's line and the summary are plain text in the
    GitHub form; a newline in a file name must not let the rest of the name begin a line the
    runner reads as a command (``::error::``, ``::add-mask::``)."""
    folder = tmp_path / "inj"
    folder.mkdir()
    (folder / "a\n::error::pwned.json").write_text(json.dumps(GOOD))
    (folder / "b\n::add-mask::x.json").write_text(json.dumps({"name": "not a level"}))
    monkeypatch.chdir(tmp_path)
    code, out, _ = run_cli_in_process(["verify", "inj", "--format", "github"], monkeypatch, capsys)
    assert code == 0
    assert not [line for line in out.splitlines() if line.startswith("::")], out
    assert "\\x0a::error::pwned.json" in out
