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
    with pytest.raises(ShardOptionError, match=r"^--shard: expected K/N with 0 <= K < N, .* found '"):
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
        "badjson.jsonl": ([lines[0], lines[1][:50] + "\n", lines[2]], "line 2: bad JSON: "),
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
