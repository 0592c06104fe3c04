"""Pack directories (``llkgen.packdir/1``): the writer's output read back exactly, streamed and
sliced, one level found through the index, atomic replacement, and every way a directory can
be broken reported with its file and line.

Round trips compare against ``pack_to_json`` of the same levels as a pack file: a pack
directory must carry exactly what the pack file would.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

import llkgen.formats.packdir as packdir_mod
from llkgen.errors import LevelFormatError, OutputError
from llkgen.formats.container import PACKDIR_FORMAT, PackFileError, is_pack_dir
from llkgen.formats.level import Level, Pack, level_to_json, pack_to_json
from llkgen.formats.load import iter_pack_dir, load_level_ref, load_levels, load_pack, read_pack_index
from llkgen.formats.packdir import level_line, write_pack_dir
from llkgen.game.board import Board, Rules

from timing import HANG_SECONDS

HEADER = {"format": "llkgen.pack/1", "name": "tiny", "generator": "test", "seed": 7}


def _level(i: int, with_id: bool = True) -> Level:
    # Two tiles of type 1 + i % 5, apart on one row; i fixes the id and the grid.
    grid = [[1 + i % 5, 0, 1 + i % 5], [0, -1, 0]]
    extra = {"seed": i, "solution": [[[0, 0], [0, 2]]], "x-future": {"i": i, "s": "\u00e9\ud800"}}
    return Level(Board.from_grid(grid), Rules(True, "none"), f"lv-{i}" if with_id else None, extra)


def _levels(n: int) -> list[Level]:
    return [_level(i, with_id=i % 7 != 3) for i in range(n)]


def _write(tmp_path: Path, n: int = 23, per_file: int = 10, name: str = "big") -> Path:
    return write_pack_dir(tmp_path / name, HEADER, iter(_levels(n)), per_file=per_file)


def test_round_trip_matches_the_pack_file(tmp_path):
    path = _write(tmp_path)
    assert sorted(os.listdir(path)) == ["index.json", "levels-00000.jsonl", "levels-00001.jsonl",
                                        "levels-00002.jsonl"]
    index = json.loads((path / "index.json").read_text("utf-8"))
    assert index["format"] == PACKDIR_FORMAT and index["count"] == 23
    assert list(index)[:4] == ["format", "name", "generator", "seed"]
    assert index["files"] == [{"path": "levels-00000.jsonl", "count": 10, "first": 0},
                              {"path": "levels-00001.jsonl", "count": 10, "first": 10},
                              {"path": "levels-00002.jsonl", "count": 3, "first": 20}]
    assert index["ids"][:4] == ["lv-0", "lv-1", "lv-2", None]
    expected = pack_to_json(Pack("tiny", _levels(23), {"generator": "test", "seed": 7}))
    assert pack_to_json(load_pack(path)) == expected
    # One compact line per level, exactly level_to_json in its key order.
    lines = (path / "levels-00001.jsonl").read_text("utf-8").splitlines()
    assert lines[1] == level_line(_levels(23)[11]).rstrip("\n")
    assert lines[1].startswith('{"format":"llkgen.level/1","id":"lv-11","rows":2')
    assert "\\ud800" in lines[1]  # a lone surrogate is written as its escape


def test_labels_slices_and_one_level_by_id(tmp_path, monkeypatch):
    path = _write(tmp_path)
    labels = [label for label, _ in load_levels(path)]
    assert labels[:4] == [f"{path}#lv-0", f"{path}#lv-1", f"{path}#lv-2", f"{path}#3"]
    assert [label for label, _ in iter_pack_dir(path, 8, 12)] == labels[8:12]
    # Finding a level reads only the part that holds it: the others are made unreadable.
    for part in ("levels-00000.jsonl", "levels-00001.jsonl"):
        (path / part).write_text("not json\n", "utf-8")
    assert load_level_ref(f"{path}#lv-21").extra["seed"] == 21
    with pytest.raises(LevelFormatError, match=r"no level 'nope': expected the id of one of its 23 levels"):
        load_level_ref(f"{path}#nope")
    with pytest.raises(LevelFormatError, match=r"is a pack directory of 23 levels"):
        load_level_ref(path)


def test_the_same_levels_give_the_same_bytes(tmp_path):
    """Twice from Level objects, and once from their JSON objects (as ``make`` holds them)."""
    a, b = _write(tmp_path, name="a"), _write(tmp_path, name="b")
    c = write_pack_dir(tmp_path / "c", HEADER, (level_to_json(lv) for lv in _levels(23)), per_file=10)
    assert sorted(os.listdir(a)) == sorted(os.listdir(c))
    for name in os.listdir(a):
        assert (a / name).read_bytes() == (b / name).read_bytes() == (c / name).read_bytes()


def test_an_empty_pack(tmp_path):
    path = write_pack_dir(tmp_path / "empty", {"name": "e"}, [])
    assert os.listdir(path) == ["index.json"]
    assert load_pack(path).levels == [] and read_pack_index(path).count == 0


def test_replacing_keeps_the_old_pack_until_the_new_one_is_complete(tmp_path):
    path = _write(tmp_path, n=5)

    def failing():
        yield _level(0)
        raise RuntimeError("generator broke")

    with pytest.raises(RuntimeError):
        write_pack_dir(path, HEADER, failing())
    assert read_pack_index(path).count == 5  # the old pack, whole
    assert sorted(os.listdir(tmp_path)) == ["big"]  # no temporary directory left
    write_pack_dir(path, HEADER, _levels(3))
    assert read_pack_index(path).count == 3 and sorted(os.listdir(tmp_path)) == ["big"]
    assert not (path / "levels-00001.jsonl").exists()


def test_never_replaces_something_else(tmp_path):
    other = tmp_path / "photos"
    other.mkdir()
    (other / "cat.jpg").write_bytes(b"\xff")
    with pytest.raises(OutputError, match="not a pack directory"):
        write_pack_dir(other, HEADER, _levels(1))
    assert os.listdir(other) == ["cat.jpg"]
    file = tmp_path / "file.json"
    file.write_text("{}")
    with pytest.raises(OutputError, match="is not a directory"):
        write_pack_dir(file, HEADER, _levels(1))
    empty = tmp_path / "empty"
    empty.mkdir()
    assert read_pack_index(write_pack_dir(empty, HEADER, _levels(1))).count == 1


def test_header_mistakes_are_bugs(tmp_path):
    for header in ({"generator": "x"}, {"name": "x", "levels": []}, {"name": "x", "format": "llkgen.level/1"}):
        with pytest.raises(ValueError):
            write_pack_dir(tmp_path / "x", header, [])
    with pytest.raises(ValueError, match="per_file"):
        write_pack_dir(tmp_path / "x", HEADER, [], per_file=10_001)


def test_is_pack_dir(tmp_path):
    assert is_pack_dir(_write(tmp_path, n=1))
    parts_only = tmp_path / "parts"
    parts_only.mkdir()
    (parts_only / "levels-00000.jsonl").write_text("")
    assert is_pack_dir(parts_only) and not is_pack_dir(tmp_path / "nope")


# -- broken pack directories ---------------------------------------------------------------------
def _index(path: Path) -> dict:
    return json.loads((path / "index.json").read_text("utf-8"))


def _set_index(path: Path, **changes) -> None:
    (path / "index.json").write_text(json.dumps(_index(path) | changes), "utf-8")


def _part(path: Path, name: str) -> list[str]:
    return (path / name).read_text("utf-8").splitlines(keepends=True)


def _set_part(path: Path, name: str, lines: list[str]) -> None:
    (path / name).write_text("".join(lines), "utf-8")


def _break_line(path: Path) -> None:
    lines = _part(path, "levels-00001.jsonl")
    lines[6] = lines[6].replace('"rows":2', '"rows":3')
    _set_part(path, "levels-00001.jsonl", lines)


def _bad_json(path: Path) -> None:
    lines = _part(path, "levels-00001.jsonl")
    lines[2] = lines[2][:40] + "\n"
    _set_part(path, "levels-00001.jsonl", lines)


BROKEN = [
    ("missing-index", lambda p: (p / "index.json").unlink(),
     "index.json", "no such file: a pack directory needs its index (llkgen.packdir/1)"),
    ("index-bad-json", lambda p: (p / "index.json").write_text("{", "utf-8"),
     "index.json", "bad JSON at line 1 column 2: Expecting property name enclosed in double quotes"),
    ("index-wrong-format", lambda p: _set_index(p, format="llkgen.pack/1"),
     "index.json", "format: expected 'llkgen.packdir/1', found string 'llkgen.pack/1'"),
    ("count-mismatch", lambda p: _set_index(p, count=24),
     "index.json", "count: says 24 levels but the parts in files hold 23"),
    ("ids-short", lambda p: _set_index(p, ids=_index(p)["ids"][:-1]),
     "index.json", "ids: expected a list of 23 level ids (count), found a list of 22"),
    ("part-escapes", lambda p: _set_index(p, files=[{"path": "../x.jsonl", "count": 23, "first": 0}]),
     "index.json",
     "files[0].path: expected a file name ending .jsonl in the pack directory, found string '../x.jsonl'"),
    ("first-wrong", lambda p: _set_index(p, files=[f | {"first": 0} for f in _index(p)["files"]]),
     "index.json", "files[1].first: expected 10 (the levels in the parts before it), found 0"),
    ("missing-part", lambda p: (p / "levels-00001.jsonl").unlink(),
     "levels-00001.jsonl", "no such file, but index.json lists it"),
    ("bad-line", _break_line,
     "levels-00001.jsonl:7", "levels[16]: rows/cols say 3x3 but the grid is 2x3"),
    ("bad-json-line", _bad_json,
     "levels-00001.jsonl:3", "bad JSON at column "),
    ("empty-line", lambda p: _set_part(p, "levels-00001.jsonl", _part(p, "levels-00001.jsonl")[:4] + ["\n"]),
     "levels-00001.jsonl:5", "empty line, expected a level object"),
    ("short-part", lambda p: _set_part(p, "levels-00001.jsonl", _part(p, "levels-00001.jsonl")[:8]),
     "levels-00001.jsonl:9", "the file ends after 8 levels, but index.json lists 10"),
    ("long-part", lambda p: _set_part(p, "levels-00002.jsonl", _part(p, "levels-00002.jsonl") * 2),
     "levels-00002.jsonl:4", "more levels than the 3 that index.json lists for this file"),
    ("id-mismatch", lambda p: _set_index(p, ids=["zz"] + _index(p)["ids"][1:]),
     "levels-00000.jsonl:1", "levels[0].id: index.json lists 'zz', found 'lv-0'"),
    ("fifo-part", lambda p: ((p / "levels-00001.jsonl").unlink(), os.mkfifo(p / "levels-00001.jsonl")),
     "levels-00001.jsonl", "not a regular file, expected a part of index.json"),
    # A link to a valid part (or index) elsewhere is still refused: it could name any file.
    ("linked-part", lambda p: _link_out(p, "levels-00001.jsonl"),
     "levels-00001.jsonl", "a symbolic link, expected a part of index.json"),
    ("linked-index", lambda p: _link_out(p, "index.json"),
     "index.json", "a symbolic link, expected the pack directory's index file"),
    ("dangling-index", lambda p: ((p / "index.json").unlink(), (p / "index.json").symlink_to(p.parent / "gone")),
     "index.json", "a symbolic link, expected the pack directory's index file"),
]


def _link_out(path: Path, name: str) -> None:
    """Move ``path/name`` out of the pack directory and leave a symbolic link to it in its place."""
    outside = path.parent / f"outside-{name}"
    (path / name).rename(outside)
    (path / name).symlink_to(outside)


@pytest.mark.parametrize("case", BROKEN, ids=[c[0] for c in BROKEN])
def test_broken_pack_dirs_name_file_and_line(tmp_path, case):
    _, breaker, where, reason = case
    path = _write(tmp_path)
    breaker(path)
    with pytest.raises(PackFileError) as info:
        load_levels(path)
    assert info.value.where == f"{path}/{where}"
    assert info.value.reason.startswith(reason), info.value.reason
    assert str(info.value).startswith(f"{path}/{where}: {reason}")


def test_a_line_over_the_cap(tmp_path, monkeypatch):
    path = _write(tmp_path)
    monkeypatch.setattr(packdir_mod, "MAX_LINE_BYTES", 100)
    with pytest.raises(PackFileError, match=r"levels-00000\.jsonl:1: line too long: more than 100 bytes"):
        load_levels(path)


def test_streaming_yields_the_levels_before_a_bad_line(tmp_path):
    path = _write(tmp_path)
    _break_line(path)
    seen = []
    with pytest.raises(PackFileError):
        for label, _ in iter_pack_dir(path):
            seen.append(label)
    assert len(seen) == 16


# -- the real commands --------------------------------------------------------------------------
def _llkgen(args: tuple[str, ...], cwd: Path):
    import subprocess
    import sys

    return subprocess.run([sys.executable, "-m", "llkgen", *args], cwd=cwd, capture_output=True,
                          text=True, timeout=HANG_SECONDS)


def test_cli_reads_pack_directories(tmp_path):
    from concurrent.futures import ThreadPoolExecutor

    _write(tmp_path, n=23, name="big")
    broken = {}
    for name, breaker, where, reason in BROKEN:
        if name in ("missing-index", "bad-line", "count-mismatch", "missing-part", "short-part"):
            path = _write(tmp_path, name=name)
            breaker(path)
            broken[name] = (where, reason)
    commands = {
        "view": ("view", "big", "--out", "v.html"),
        "view-window": ("view", "big", "--out", "w.html", "--start", "20", "--limit", "5"),
        "view-past": ("view", "big", "--out", "x.html", "--start", "23"),
        "render": ("render", "big", "--out", "svg"),
        "show": ("show", "big#lv-12"),
        "show-dir": ("show", "big"),
        **{f"view-{name}": ("view", name, "--out", f"{name}.html") for name in broken},
        **{f"render-{name}": ("render", name, "--out", f"svg-{name}") for name in broken},
    }
    with ThreadPoolExecutor(4) as pool:
        runs = dict(zip(commands, pool.map(lambda a: _llkgen(a, tmp_path), commands.values())))

    r = runs["view"]
    assert r.returncode == 0 and r.stderr == "", r.stderr
    html = (tmp_path / "v.html").read_text("utf-8")
    assert '<p class="sub">23 levels' in html and "lv-22" in html
    r = runs["view-window"]
    assert r.returncode == 0
    assert r.stderr == ("note: big has 23 levels; the page holds levels 21 to 23 "
                        "(choose others with --start and --limit)\n")
    html = (tmp_path / "w.html").read_text("utf-8")
    assert "levels 21\u201323 of 23" in html and '"lv-20"' in html and '"lv-19"' not in html
    assert runs["view-past"].returncode == 2

    r = runs["render"]
    assert r.returncode == 0 and r.stdout.splitlines()[-1] == "23 SVG files written to svg"
    assert (tmp_path / "svg" / "lv-22.svg").is_file() and (tmp_path / "svg" / "level-004.svg").is_file()

    r = runs["show"]
    assert r.returncode == 0 and r.stdout.startswith("# lv-12: 2x3")
    r = runs["show-dir"]
    assert r.returncode == 1 and "is a pack directory of 23 levels" in r.stderr

    for name, (where, reason) in broken.items():
        for cmd in ("view", "render"):
            r = runs[f"{cmd}-{name}"]
            assert r.returncode == 1, (cmd, name, r.stderr)
            assert r.stderr.startswith(f"Error: {name}/{where}: {reason}"), (cmd, name, r.stderr)
            assert "Traceback" not in r.stderr


def test_render_streams_a_pack_directory(tmp_path):
    """Previews are written as levels are read: once the first is written, breaking the last
    part is noticed (a renderer that loaded the directory first would write all 23)."""
    from llkgen.formats.load import iter_levels
    from llkgen.render.svg import iter_write_svgs, svg_filenames

    path = _write(tmp_path)
    written = iter_write_svgs(iter_levels(path), tmp_path / "svg")
    first = next(written)
    assert first.name == svg_filenames(load_levels(path))[0] + ".svg"
    (path / "levels-00002.jsonl").write_text("[]\n", "utf-8")
    with pytest.raises(PackFileError, match=r"levels-00002\.jsonl:1: levels\[20\]: expected a level object"):
        list(written)
    assert len(os.listdir(tmp_path / "svg")) == 20


# -- symbolic links --------------------------------------------------------------------------------
def test_a_part_that_becomes_a_link_after_the_check_is_still_not_followed(tmp_path, monkeypatch):
    # lstat says "regular file", then the open must refuse the link itself (O_NOFOLLOW).
    import llkgen.formats.container as container

    path = _write(tmp_path)
    _link_out(path, "levels-00000.jsonl")
    monkeypatch.setattr(container.stat, "S_ISLNK", lambda mode: False)
    with pytest.raises(PackFileError, match=r"levels-00000\.jsonl: a symbolic link, expected a part of index\.json"):
        list(iter_pack_dir(path))


def test_a_directory_whose_index_is_a_link_is_never_replaced(tmp_path):
    from llkgen.formats.container import DirKind, dir_kind

    path = _write(tmp_path)
    _link_out(path, "index.json")
    assert dir_kind(path) is DirKind.BROKEN
    before = sorted(os.listdir(path))
    with pytest.raises(OutputError, match="never replaced"):
        _write(tmp_path)
    assert sorted(os.listdir(path)) == before
    # A link to some other tool's JSON leaves an ordinary folder.
    other = tmp_path / "web"
    other.mkdir()
    (tmp_path / "data.json").write_text('{"pages": 3}')
    (other / "index.json").symlink_to(tmp_path / "data.json")
    assert dir_kind(other) is DirKind.FOREIGN


@pytest.mark.parametrize("name", ["levels-00000.jsonl", "index.json"])
def test_verify_refuses_a_linked_file_of_a_pack_directory(tmp_path, monkeypatch, capsys, name):
    from cli_runner import run_cli_in_process

    path = _write(tmp_path, n=3)
    _link_out(path, name)
    code, out, _ = run_cli_in_process(["verify", str(path)], monkeypatch, capsys)
    assert code == 1 and f"INVALID    {path / name}: a symbolic link, expected " in out
    code, out, err = run_cli_in_process(["show", f"{path}#lv-0"], monkeypatch, capsys)
    assert code == 1 and out == "" and err.startswith(f"Error: {path / name}: a symbolic link, expected ")
