"""``llkgen make``: the real command, its overrides, its errors, determinism across --jobs, and
that the shipped easy spec really yields easier levels than the hard one."""

from __future__ import annotations

import json
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from statistics import mean

import pytest

from llkgen.generation.spec import load_spec_ref
from llkgen.jobs.pack import generate_pack

from cli_runner import run_cli_in_process
from specs import tiny_spec
from timing import FakeClock, TimedProcess

SPEC = tiny_spec(export="{path: out/tiny.json}")


def llkgen(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "llkgen", *args], cwd=cwd, capture_output=True,
                          text=True, timeout=300)


@pytest.fixture(scope="module")
def work(tmp_path_factory) -> Path:
    tmp = tmp_path_factory.mktemp("make")
    (tmp / "tiny.yaml").write_text(SPEC, "utf-8")
    (tmp / "typo.yaml").write_text(SPEC.replace("cols: 6", "colls: 6"), "utf-8")
    (tmp / "impossible.yaml").write_text(
        SPEC.replace("initial_moves: [2, null]", "initial_moves: [500, null]")
        .replace("max_attempts: 50", "max_attempts: 7"), "utf-8")
    return tmp


@pytest.fixture(scope="module")
def runs(work):
    """Every command of this module, run concurrently once (each start-up costs ~0.5 s)."""
    commands = {
        "jobs1": ("make", "--config", "tiny.yaml", "--jobs", "1"),
        "jobs2": ("make", "--config", "tiny.yaml", "--jobs", "2", "--out", "j2.json"),
        "override": ("make", "--config", "tiny.yaml", "--count", "2", "--seed", "99", "--out", "sub/o.json",
                     "--jobs", "1"),
        "typo": ("make", "--config", "typo.yaml"),
        "missing": ("make", "--config", "nope.yaml"),
        "count0": ("make", "--config", "tiny.yaml", "--count", "0"),
        "jobs0": ("make", "--config", "tiny.yaml", "--jobs", "0"),
        "noconfig": ("make",),
        "json": ("make", "--config", "tiny.yaml", "--json", "--jobs", "2", "--out", "json.json"),
        "quiet": ("make", "--config", "tiny.yaml", "-q", "--jobs", "2", "--out", "quiet.json"),
        "shipped": ("make", "--config", "easy", "--count", "2", "--out", "easy2.json", "-q"),
        "unknown-name": ("make", "--config", "eazy"),
        "shard01": ("make", "--config", "tiny.yaml", "--shard", "0/1", "--out", "x.jsonl", "--jobs", "1"),
    }
    with ThreadPoolExecutor(4) as pool:
        futures = {k: pool.submit(llkgen, *args, cwd=work) for k, args in commands.items()}
        return {k: f.result() for k, f in futures.items()}


def test_same_bytes_at_any_jobs(work, runs, schema_validator):
    for k in ("jobs1", "jobs2"):
        assert runs[k].returncode == 0, runs[k].stderr
    data = (work / "out" / "tiny.json").read_bytes()  # the spec's export.path
    assert data == (work / "j2.json").read_bytes()
    assert json.loads(data)["name"] == "tiny"
    schema_validator("pack").validate(json.loads(data))


def test_output_lines_and_plain_progress_off_a_terminal(runs):
    r = runs["jobs2"]
    lines = r.stdout.splitlines()
    assert len(lines) == 5
    assert lines[0].startswith("level   1  difficulty ")
    assert "initial_moves" in lines[0] and "random_clear_rate" in lines[0] and "verify_nodes" in lines[0]
    assert lines[-1].startswith("wrote 4 certified levels to j2.json (pack seed 3, shuffle,")
    # A CI log or a pipe sees each level arrive, not a progress bar's escape codes.
    assert r.stderr.splitlines() == [f"making tiny: {k}/4 levels" for k in range(1, 5)]


def test_json_summary_describes_the_pack_written(work, runs, schema_validator):
    r = runs["json"]
    assert r.returncode == 0, r.stderr
    summary = json.loads(r.stdout)
    pack = json.loads((work / "json.json").read_text("utf-8"))
    assert (work / "json.json").read_bytes() == (work / "j2.json").read_bytes()
    assert summary["format"] == "llkgen.make-report/1"
    assert (summary["path"], summary["name"], summary["seed"], summary["jobs"]) == ("json.json", "tiny", 3, 2)
    assert [(lv["id"], lv["seed"], lv["metrics"]) for lv in summary["levels"]] == [
        (lv["id"], lv["seed"], lv["metrics"]) for lv in pack["levels"]]
    assert all(lv["attempts"] >= 1 for lv in summary["levels"])
    schema_validator("make-report").validate(summary)


def test_quiet_prints_nothing_and_still_writes_the_pack(work, runs):
    r = runs["quiet"]
    assert (r.returncode, r.stdout, r.stderr) == (0, "", "")
    assert (work / "quiet.json").read_bytes() == (work / "j2.json").read_bytes()


def test_a_shipped_spec_is_found_by_name(work, runs):
    r = runs["shipped"]
    assert (r.returncode, r.stdout, r.stderr) == (0, "", "")
    pack = json.loads((work / "easy2.json").read_text("utf-8"))
    assert pack["name"] == "easy" and [lv["id"] for lv in pack["levels"]] == ["easy-1", "easy-2"]
    r = runs["unknown-name"]
    assert r.returncode == 1
    assert r.stderr == ("Error: eazy: no such file, and no shipped spec of that name: expected a YAML file "
                        "or one of easy, gravity, hard, medium, ramp, shapes, viewer-demo\n")


def test_the_designs_example_makes_the_shipped_spec_in_an_empty_directory(tmp_path, monkeypatch, capsys):
    # "llkgen make --config easy.yaml", typed verbatim where no easy.yaml is: the shipped easy
    # spec, with one line on stderr that says so and how to get a copy to edit.
    monkeypatch.chdir(tmp_path)
    code, out, err = run_cli_in_process(["make", "--config", "easy.yaml"], monkeypatch, capsys)
    assert code == 0, err
    note, *progress = err.splitlines()
    assert note == "note: easy.yaml: no such file here: making the shipped spec easy (a copy to edit: llkgen init easy)"
    assert all(line.startswith("making easy: ") for line in progress)
    assert out.splitlines()[-1].startswith("wrote 10 certified levels to output/easy.json")
    made = (tmp_path / "output" / "easy.json").read_bytes()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["output"]
    # the very pack --config easy makes
    code, _, _ = run_cli_in_process(["make", "--config", "easy", "--out", "by-name.json", "-q"], monkeypatch, capsys)
    assert code == 0 and (tmp_path / "by-name.json").read_bytes() == made
    # -q: no note; another shipped spec names its file to copy
    code, out, err = run_cli_in_process(["make", "--config", "hard.yml", "--count", "1", "-q"], monkeypatch, capsys)
    assert (code, out, err) == (0, "", "") and (tmp_path / "output" / "hard.json").is_file()
    code, _, err = run_cli_in_process(["make", "--config", "hard.yml", "--count", "1", "--json"], monkeypatch, capsys)
    assert code == 0 and err.startswith("note: hard.yml: no such file here: making the shipped spec hard (a copy "
                                        "to edit: cp ") and err.splitlines()[0].endswith("hard.yaml hard.yml)")


@pytest.mark.parametrize("config", ["./easy.yaml", "configs/easy.yaml", "eazy.yaml", "easy.json"])
def test_a_spec_path_with_a_folder_or_another_name_must_exist(tmp_path, monkeypatch, capsys, config):
    # A folder part, ./ included, names a file someone typed out: never replaced by another.
    monkeypatch.chdir(tmp_path)
    code, out, err = run_cli_in_process(["make", "--config", config], monkeypatch, capsys)
    assert (code, out) == (1, "") and err.startswith("Error: ") and "no such file" in err
    assert "shipped spec easy" not in err and list(tmp_path.iterdir()) == []


def test_an_existing_spec_file_wins_over_the_shipped_spec_of_its_name(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "easy.yaml").write_text(SPEC.replace("path: out/tiny.json", "path: mine.json"), "utf-8")
    code, out, err = run_cli_in_process(["make", "--config", "easy.yaml", "--jobs", "1"], monkeypatch, capsys)
    assert code == 0 and "note:" not in err and (tmp_path / "mine.json").is_file()


def test_overrides(work, runs, schema_validator):
    assert runs["override"].returncode == 0, runs["override"].stderr
    obj = json.loads((work / "sub" / "o.json").read_text("utf-8"))
    assert obj["seed"] == 99 and len(obj["levels"]) == 2
    schema_validator("pack").validate(obj)


def test_bad_input_is_one_error_line(runs):
    expected = {
        "typo": 'Error: typo.yaml:4: unknown key "colls" at board.colls: did you mean "cols"?',
        "missing": "Error: nope.yaml: no such file",
    }
    for key, start in expected.items():
        r = runs[key]
        assert r.returncode == 1, (key, r.stderr)
        assert r.stderr.startswith(start), (key, r.stderr)
        assert "Traceback" not in r.stderr and len(r.stderr.splitlines()) == 1
    assert runs["noconfig"].returncode == 2 and "--config" in runs["noconfig"].stderr


def test_count_0_and_jobs_0_are_the_same_kind_of_error(runs):
    for key, option in (("count0", "--count"), ("jobs0", "--jobs")):
        r = runs[key]
        assert r.returncode == 2 and r.stdout == "", (key, r.stderr)
        assert f"Invalid value for '{option}'" in " ".join(r.stderr.split()), (key, r.stderr)
        assert "Traceback" not in r.stderr


def test_giving_up_explains_and_keeps_the_previous_pack(work, runs):
    assert runs["jobs2"].returncode == 0
    before = (work / "j2.json").read_bytes()
    r = llkgen("make", "--config", "impossible.yaml", "--out", "j2.json", cwd=work)
    assert r.returncode == 1
    assert r.stderr.startswith("Error: impossible.yaml: level ")
    assert "no shuffle board was accepted in 7 attempts: 0 proved unsolvable, 0 unknown" in r.stderr
    assert "7 outside the difficulty range (initial_moves not in [500, null]: 7)" in r.stderr
    assert (work / "j2.json").read_bytes() == before


def test_made_pack_passes_verify(work, runs):
    r = llkgen("verify", "j2.json", "--jobs", "1", cwd=work)
    assert r.returncode == 0, r.stdout
    assert r.stdout.splitlines()[-1] == (
        "4 levels in 1 file: 4 certified (4 by replay, 0 by search), 0 unsolvable, 0 unknown, 0 failed (exit 0)")


def test_easy_spec_yields_easier_levels_than_hard_spec():
    # The shipped specs with small counts. The hard seed is fixed to one whose first levels
    # need little verifier effort, only to keep this test fast.
    easy = generate_pack(load_spec_ref("easy").with_overrides(count=3), jobs=1)
    hard = generate_pack(load_spec_ref("hard").with_overrides(count=2, seed=5), jobs=1)

    def avg(levels, metric, per_pair=False):
        return mean(lv.metrics[metric] / (lv.board.tile_count / 2 if per_pair else 1) for lv in levels)

    assert avg(easy, "random_clear_rate") > avg(hard, "random_clear_rate")
    assert avg(easy, "random_clear_rate") >= 0.5 and avg(hard, "random_clear_rate") <= 0.3
    # Hard boards are bigger, so compare the choice per remaining pair, not the raw count.
    assert avg(easy, "initial_moves", per_pair=True) > avg(hard, "initial_moves", per_pair=True)
    assert avg(easy, "verify_nodes") < avg(hard, "verify_nodes")


def test_shard_0_of_1_is_a_shard_file_that_merges(work, runs, monkeypatch, capsys):
    r = runs["shard01"]
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines()[-1].startswith("wrote 4 certified levels (shard 0/1) to x.jsonl (pack seed 3, ")
    assert json.loads((work / "x.jsonl").read_text("utf-8").splitlines()[0])["shard"] == "0/1"
    monkeypatch.chdir(work)
    code, out, err = run_cli_in_process(["merge", "x.jsonl", "--out", "x.json"], monkeypatch, capsys)
    assert (code, out, err) == (0, "wrote 4 certified levels from 1 shard to x.json\n", "")
    assert (work / "x.json").read_bytes() == (work / "out" / "tiny.json").read_bytes()
    # -q: nothing but errors; --json: its report, as make's
    code, out, err = run_cli_in_process(["merge", "x.jsonl", "--out", "q.json", "-q"], monkeypatch, capsys)
    assert (code, out, err) == (0, "", "") and (work / "q.json").read_bytes() == (work / "x.json").read_bytes()
    code, out, err = run_cli_in_process(["merge", "x.jsonl", "--out", "j.json", "--json", "-q"], monkeypatch, capsys)
    assert (code, err) == (0, "")
    assert json.loads(out) == {"format": "llkgen.merge-report/1", "path": "j.json", "levels": 4, "shards": 1}


# -- --budget: the whole run --------------------------------------------------------------------


def test_make_budget_bounds_the_whole_run_and_writes_nothing(tmp_path):
    """The shipped hard spec takes about 0.1 s a level on one core (0.06 s compiled): 1.5 s
    cannot make 100. The real-process check of ``make``'s budget: the overrun past it is
    scaled by the load and the interpreter's start-up, measured around the run, is allowed on
    top (the budget starts when the command does)."""
    out = tmp_path / "hard.json"
    out.write_text("previous", "utf-8")
    with TimedProcess() as t:
        r = llkgen("make", "--config", "hard", "-q", "--out", str(out), "--jobs", "1", "--count", "100",
                   "--budget", "1.5", cwd=tmp_path)
    assert r.returncode == 4, r.stderr
    assert r.stdout == "" and r.stderr.count("\n") == 1 and r.stderr.startswith("Error: ")
    assert "the --budget of 1.5 s ran out after " in r.stderr and " of 100 levels; nothing was written (rerun " \
        "with --resume to keep going)" in r.stderr
    assert out.read_text("utf-8") == "previous" and sorted(p.name for p in tmp_path.iterdir()) == ["hard.json"]
    assert t.seconds < t.limit(1.5), t


def test_make_budget_with_resume_keeps_the_levels_finished(tmp_path, monkeypatch, capsys):
    """The budget runs out part way through 400 easy levels: the levels finished are kept in
    the journal, and a rerun with --resume takes them up. Where the budget runs out is not a
    matter of time here but of the clock: a fake one (``tests/timing.py``) that moves 0.1 s at
    each read, so 30 s run out after 300 reads (the run reads it about three times a level),
    at any load. (What is left of the budget is also how long the run waits for a worker's
    next level, in real seconds: ample at first, so the first levels are always kept.)"""
    from llkgen import console
    from llkgen.execution import base

    out = tmp_path / "easy.json"
    args = ["make", "--config", "easy", "-q", "--out", str(out), "--count", "400", "--resume"]
    with monkeypatch.context() as m:
        FakeClock(0.1).install(m, console, base)
        code, _, err = run_cli_in_process([*args, "--jobs", "1", "--budget", "30"], m, capsys)
    assert code == 4, err
    journal = tmp_path / "easy.json.journal"
    held = len(journal.read_text("utf-8").splitlines()) - 1  # a header, then a record a level
    assert 1 <= held < 400, err
    level_word = "level" if held == 1 else "levels"
    assert err.startswith("Error: ") and err.endswith(
        f"ran out after {held} of 400 levels; nothing was written, and the journal {journal} holds {held} "
        f"{level_word} (rerun with --resume to continue)\n")
    assert not out.exists()
    code, stdout, err = run_cli_in_process([*args, "--json"], monkeypatch, capsys)
    assert code == 0, err
    assert json.loads(stdout)["resumed"] == held and not journal.exists()


def test_make_budget_zero_and_with_scheduler(work, monkeypatch, capsys):
    code, out, err = run_cli_in_process(["make", "--config", str(work / "tiny.yaml"), "--out", str(work / "z.json"),
                                         "--budget", "0"], monkeypatch, capsys)
    assert (code, out) == (4, "") and "the --budget of 0 s ran out after 0 of" in err
    assert not (work / "z.json").exists()
    code, out, err = run_cli_in_process(["make", "--config", str(work / "tiny.yaml"), "--budget", "5",
                                         "--scheduler", "local"], monkeypatch, capsys)
    assert (code, out) == (2, "")
    assert err.startswith("Error: --budget: cannot be kept with --scheduler")
