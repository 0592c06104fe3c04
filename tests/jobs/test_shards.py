"""Shards and merge: ``make --shard K/N`` pieces join into the pack one run writes, byte for
byte, and every set of shards that is not exactly one pack's is refused, naming the culprit."""

from __future__ import annotations

import json
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from llkgen.errors import LevelFormatError
from llkgen.generation.spec import parse_spec
from llkgen.jobs.make import make_pack, merge_shards
from llkgen.jobs.shards import Shard, ShardOptionError, default_shard_path

from cli_runner import run_cli_in_process
from specs import tiny_spec

SPEC = tiny_spec(count=7)


def spec(tmp: Path, out: str, **over):
    return parse_spec(SPEC, "tiny.yaml").with_overrides(out=tmp / out, **over)


@pytest.fixture(scope="module")
def made(tmp_path_factory):
    """The whole pack from one run, and its three shards."""
    tmp = tmp_path_factory.mktemp("shards")
    whole = make_pack(spec(tmp, "whole.json"), jobs=1).path
    shards = [make_pack(spec(tmp, f"s{k}.jsonl"), jobs=2, shard=Shard(k, 3)).path for k in range(3)]
    return tmp, whole, shards


def test_merged_shards_are_the_pack_byte_for_byte(made):
    tmp, whole, shards = made
    for order in (shards, shards[::-1]):  # the order the files are named in does not matter
        out = merge_shards(order, tmp / "merged.json")
        assert (out.path, out.count, out.shards) == (tmp / "merged.json", 7, 3)
        assert out.path.read_bytes() == whole.read_bytes()


def test_a_shard_holds_exactly_its_levels(made):
    _, whole, shards = made
    pack = json.loads(whole.read_text("utf-8"))
    lines = shards[1].read_text("utf-8").splitlines()
    header = json.loads(lines[0])
    assert header["format"] == "llkgen.shard/1" and header["shard"] == "1/3" and header["levels"] == 2
    assert (header["name"], header["seed"], header["count"]) == ("tiny", 3, 7)
    records = [json.loads(line) for line in lines[1:]]
    assert [r["index"] for r in records] == [1, 4]
    assert [r["level"] for r in records] == [pack["levels"][1], pack["levels"][4]]


@pytest.mark.parametrize("text", ["3/2", "2/2", "a/b", "1", "-1/2", "1/0", "0/", " /3", "1/2/3"])
def test_bad_shard_option(text):
    with pytest.raises(ShardOptionError, match=r"^shard: expected K/N with 0 <= K < N, .* found '"):
        Shard.parse(text)
    assert ShardOptionError.exit_code == 2


def test_shard_option_and_default_name():
    assert Shard.parse("2/5") == Shard(2, 5) and list(Shard(2, 5).indices(13)) == [2, 7, 12]
    assert default_shard_path("output/easy.json", Shard(1, 4)) == Path("output/easy.shard-1-of-4.jsonl")


def _expect(paths, message: str, tmp: Path):
    out = tmp / "refused.json"
    with pytest.raises(LevelFormatError) as e:
        merge_shards(paths, out)
    assert str(e.value) == message
    assert not out.exists()


def test_missing_duplicated_and_foreign_shards_are_named(made):
    tmp, _, shards = made
    s0, s1, s2 = (str(p) for p in shards)
    _expect([s0, s2], "shard 1/3 missing: expected all 3 shards of pack 'tiny' (seed 3), found 2", tmp)
    _expect([s0, s1, s1, s2], f"{s1}: shard 1/3 given twice (also {s1})", tmp)
    _expect([s0, s1, str(tmp / "nope.jsonl")], f"{tmp / 'nope.jsonl'}: no such file", tmp)
    # Another seed: the same shard index of another pack.
    other = make_pack(spec(tmp, "other.jsonl", seed=4), jobs=1, shard=Shard(2, 3)).path
    with pytest.raises(LevelFormatError, match=rf"^{other}: a shard of another pack: expected seed 3, spec_sha256 "
                                               rf"'\w+' \(as in {s0}\), found seed 4, spec_sha256 '\w+'$"):
        merge_shards([s0, s1, other], tmp / "refused.json")
    # The same spec cut into another number of shards.
    half = make_pack(spec(tmp, "half.jsonl"), jobs=1, shard=Shard(1, 2)).path
    _expect([s0, half], f"{half}: a shard of another pack: expected one of 3 shards (as in {s0}), found shard 1/2", tmp)
    # A pack file is not a shard.
    _expect([s0, s1, str(tmp / "whole.json")],
            f"{tmp / 'whole.json'}: line 1: expected a llkgen.shard/1 header (a file from llkgen make --shard), "
            "found b'{\\n'", tmp)


def test_damaged_shards_are_refused(made):
    tmp, _, shards = made
    lines = shards[1].read_text("utf-8").splitlines(keepends=True)
    damaged = {
        "truncated.jsonl": (lines[:2], "line 3: expected the record of level index 4, found the end of the file"),
        "swapped.jsonl": ([lines[0], lines[2], lines[1]], "line 2: expected level index 1, found 4"),
        "extra.jsonl": (lines + [lines[2]], "line 4: expected the end of the file, found more lines"),
        "badjson.jsonl": ([lines[0], lines[1][:50] + "\n", lines[2]], "line 2: bad JSON"),
        "badlevel.jsonl": ([lines[0], lines[1].replace('"rows":4', '"rows":"4"'), lines[2]],
                           "line 2: level.rows: expected"),
    }
    for name, (content, message) in damaged.items():
        (tmp / name).write_text("".join(content), "utf-8")
        with pytest.raises(LevelFormatError) as e:
            merge_shards([shards[0], tmp / name, shards[2]], tmp / "refused.json")
        assert str(e.value).startswith(f"{tmp / name} {message}"), (name, str(e.value))
        assert not (tmp / "refused.json").exists()


def llkgen(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "llkgen", *args], cwd=cwd, capture_output=True,
                          text=True, timeout=300)


def test_cli_shard_and_merge(tmp_path):
    (tmp_path / "tiny.yaml").write_text(SPEC, "utf-8")
    commands = {
        "whole": ("make", "--config", "tiny.yaml", "--jobs", "1", "-q"),
        "s0": ("make", "--config", "tiny.yaml", "--shard", "0/2", "--jobs", "1"),
        "s1": ("make", "--config", "tiny.yaml", "--shard", "1/2", "--jobs", "1", "--json"),
        "bad": ("make", "--config", "tiny.yaml", "--shard", "3/2"),
        "merge-missing": ("merge", "nope.jsonl", "--out", "m.json"),
    }
    with ThreadPoolExecutor(3) as pool:
        runs = {k: pool.submit(llkgen, *a, cwd=tmp_path) for k, a in commands.items()}
        r = {k: f.result() for k, f in runs.items()}
    assert r["s0"].returncode == 0, r["s0"].stderr
    assert r["s0"].stdout.splitlines()[-1].startswith(
        "wrote 4 certified levels (shard 0/2) to tiny.shard-0-of-2.jsonl (pack seed 3, shuffle, ")
    report = json.loads(r["s1"].stdout)
    assert report["shard"] == "1/2" and [lv["id"] for lv in report["levels"]] == ["tiny-2", "tiny-4", "tiny-6"]
    for key, code, line in (
            ("bad", 2, "Error: --shard: expected K/N with 0 <= K < N, e.g. 0/4 for the first of four shards, "
                       "found '3/2'"),
            ("merge-missing", 1, "Error: nope.jsonl: no such file")):
        assert (r[key].returncode, r[key].stderr, r[key].stdout) == (code, line + "\n", ""), key
    m = llkgen("merge", "tiny.shard-1-of-2.jsonl", "tiny.shard-0-of-2.jsonl", "--out", "m.json", cwd=tmp_path)
    assert (m.returncode, m.stdout) == (0, "wrote 7 certified levels from 2 shards to m.json\n"), m.stderr
    assert (tmp_path / "m.json").read_bytes() == (tmp_path / "tiny.json").read_bytes()


def _tampered(path: Path, out: Path, line: int, edit) -> Path:
    """A copy of the shard ``path`` at ``out`` whose record on ``line`` (1-based) went through ``edit``."""
    lines = path.read_text("utf-8").splitlines(keepends=True)
    record = json.loads(lines[line - 1])
    edit(record)
    lines[line - 1] = json.dumps(record, separators=(",", ":")) + "\n"
    out.write_text("".join(lines), "utf-8")
    return out


def _bad_first_move(record: dict) -> None:
    record["level"]["solution"][0] = [[0, 0], [0, 0]]


def test_merge_replays_every_stored_solution(made, tmp_path):
    _, _, shards = made
    bad = _tampered(shards[1], tmp_path / "s1.jsonl", 3, _bad_first_move)  # level index 4
    out = tmp_path / "refused.json"
    with pytest.raises(LevelFormatError) as e:
        merge_shards([shards[0], bad, shards[2]], out)
    assert str(e.value) == (f"{bad} line 3: level tiny-5: stored solution fails: move 0: both cells are [0, 0]: "
                            "a move needs two distinct tiles")
    assert not out.exists()
    # A solution that is legal but stops short does not certify the level either.
    short = _tampered(shards[1], tmp_path / "short.jsonl", 2, lambda r: r["level"]["solution"].pop())
    with pytest.raises(LevelFormatError, match=r"line 2: level tiny-2: stored solution fails: all \d+ moves are "
                                               r"legal but 2 tiles remain$"):
        merge_shards([shards[0], short, shards[2]], out)
    # NaN is not JSON: the pack would not be either.
    nan = tmp_path / "nan.jsonl"
    nan.write_text(shards[1].read_text("utf-8").replace('"difficulty_se":', '"difficulty_se":NaN,"x":', 1), "utf-8")
    with pytest.raises(LevelFormatError, match=r"nan.jsonl line 2: bad JSON.*NaN"):
        merge_shards([shards[0], nan, shards[2]], out)
    assert not out.exists()


def test_cli_merge_of_a_bad_solution_is_one_error_line(made, tmp_path, monkeypatch, capsys):
    _, _, shards = made
    bad = _tampered(shards[1], tmp_path / "s1.jsonl", 2, _bad_first_move)
    code, out, err = run_cli_in_process(["merge", str(shards[0]), str(bad), str(shards[2]), "--out",
                                         str(tmp_path / "m.json")], monkeypatch, capsys)
    assert (code, out) == (1, "")
    assert err == (f"Error: {bad} line 2: level tiny-2: stored solution fails: move 0: both cells are [0, 0]: "
                   "a move needs two distinct tiles\n")
    assert not (tmp_path / "m.json").exists()


def test_shards_without_solutions_still_carry_one_to_replay(tmp_path):
    base = parse_spec(SPEC.replace("export: {path: tiny.json}", "export: {path: tiny.json, solutions: false}"),
                      "tiny.yaml")
    whole = make_pack(base.with_overrides(out=tmp_path / "whole.json"), jobs=1).path
    shards = [make_pack(base.with_overrides(out=tmp_path / f"s{k}.jsonl"), jobs=1, shard=Shard(k, 2)).path
              for k in range(2)]
    record = json.loads(shards[0].read_text("utf-8").splitlines()[1])
    assert list(record) == ["index", "attempts", "level", "solution"] and "solution" not in record["level"]
    assert merge_shards(shards, tmp_path / "m.json").path.read_bytes() == whole.read_bytes()
    assert "solution" not in whole.read_text("utf-8")

    def bad(r: dict) -> None:
        r["solution"][0] = [[0, 0], [0, 0]]

    tampered = _tampered(shards[0], tmp_path / "t.jsonl", 2, bad)
    with pytest.raises(LevelFormatError, match=r"t.jsonl line 2: level tiny-1: stored solution fails: move 0: "):
        merge_shards([tampered, shards[1]], tmp_path / "refused.json")
    gone = _tampered(shards[0], tmp_path / "gone.jsonl", 2, lambda r: r.pop("solution"))
    with pytest.raises(LevelFormatError, match=r"gone.jsonl line 2: level tiny-1: no stored solution to replay"):
        merge_shards([gone, shards[1]], tmp_path / "refused.json")
    assert not (tmp_path / "refused.json").exists()


def test_shard_0_of_1_is_a_shard_file(made, tmp_path):
    tmp, whole, _ = made
    one = make_pack(spec(tmp_path, "one.jsonl"), jobs=1, shard=Shard(0, 1)).path
    header = json.loads(one.read_text("utf-8").splitlines()[0])
    assert (header["format"], header["shard"], header["levels"]) == ("llkgen.shard/1", "0/1", 7)
    assert merge_shards([one], tmp_path / "m.json").path.read_bytes() == whole.read_bytes()


def test_merge_budget_stops_between_records_and_writes_nothing(made, tmp_path, monkeypatch, capsys):
    """A deadline checked before each record: already past, or passing after the third."""
    import time

    import llkgen.jobs.make as make
    from llkgen.errors import BudgetExhausted

    _, whole, shards = made
    out = tmp_path / "m.json"
    code, stdout, err = run_cli_in_process(["merge", *map(str, shards), "--out", str(out), "--budget", "0"],
                                           monkeypatch, capsys)
    assert (code, stdout) == (4, "")
    assert err == f"Error: {out}: the --budget of 0 s ran out after 0 of 7 levels; nothing was written\n"
    clock = iter(range(100))
    monkeypatch.setattr(make, "out_of_time", lambda deadline: deadline is not None and next(clock) > 3)
    with pytest.raises(BudgetExhausted, match=r"the budget of 2 s ran out after 3 of 7 levels"):
        merge_shards(shards, out, deadline=time.perf_counter() + 2, budget=2)
    assert list(tmp_path.iterdir()) == []
    monkeypatch.undo()
    assert merge_shards(shards, out, deadline=time.perf_counter() + 600, budget=600).path.read_bytes() == \
        whole.read_bytes()


#: Ids a record must not carry: each names a file outside the pack, or no file, or the one
#: file of another level (in the ``files`` layout a level is ``<id>.json``).
BAD_IDS = ["../../evil", "x" * 5000, "tiny-\u0665", "..", "tiny-1"]


@pytest.mark.parametrize("bad_id", BAD_IDS, ids=["parent", "long", "unicode", "dots", "another-levels"])
def test_merge_holds_every_level_id_to_the_packs(tmp_path, monkeypatch, capsys, bad_id):
    """A shard record whose level id was edited is refused, naming the shard and the line, exit 1
    (bad input), and nothing is written, here or outside: the id a run gives level i is NAME-(i+1),
    and a record read back is held to exactly that. (In the ``files`` layout, where the id names
    the level's file, these were a ValueError traceback.)"""
    files = parse_spec(tiny_spec(count=4, export="{path: tiny.json, layout: files}"), "tiny.yaml")
    shards = [make_pack(files.with_overrides(out=tmp_path / f"s{k}.jsonl"), jobs=1, shard=Shard(k, 2)).path
              for k in range(2)]
    bad = _tampered(shards[1], tmp_path / "bad.jsonl", 3, lambda r: r["level"].update(id=bad_id))  # index 3
    out = tmp_path / "out" / "merged"
    with pytest.raises(LevelFormatError) as e:
        merge_shards([shards[0], bad], out)
    assert str(e.value).startswith(f"{bad} line 3: level id: expected 'tiny-4' (level 4 of pack 'tiny'), found string ")
    code, stdout, err = run_cli_in_process(["merge", str(shards[0]), str(bad), "--out", str(out)], monkeypatch, capsys)
    assert (code, stdout) == (1, "") and err.count("\n") == 1, err
    assert err.startswith(f"Error: {bad} line 3: level id: expected 'tiny-4'")
    assert not out.exists() and list((tmp_path / "out").iterdir()) == [] and not (tmp_path.parent / "evil").exists()
    assert merge_shards(shards, out).count == 4  # the shards as made merge


def test_a_shard_named_like_no_spec_is_refused(made, tmp_path):
    """A shard's header ``name`` names the pack's ids and files, as a spec's name does, and is
    held to the same rule."""
    _, _, shards = made
    lines = shards[0].read_text("utf-8").splitlines(keepends=True)
    header = json.loads(lines[0])
    header["name"] = "../evil"
    bad = tmp_path / "named.jsonl"
    bad.write_text(json.dumps(header) + "\n" + "".join(lines[1:]), "utf-8")
    with pytest.raises(LevelFormatError, match=r"named.jsonl: line 1: name: expected a file-name-safe name .* "
                                               r"found string '../evil'"):
        merge_shards([bad, *shards[1:]], tmp_path / "m.json")
