"""SVG previews and the HTML viewer page, checked without a browser.

The browser half (clicking through levels and comparing with the referee) lives in
tests/render/test_viewer_browser.py.
"""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from dataclasses import replace
from pathlib import Path

import pytest

import llkgen
from llkgen.errors import EXIT_UNKNOWN
from llkgen.formats.level import Level, Pack, pack_to_json
from llkgen.formats.load import load_levels, load_pack
from llkgen.game.board import WALL, Board, Rules
from llkgen.game.referee import replay
from llkgen.jobs import render as jobs_render
from llkgen.jobs.render import render_levels
from llkgen.render import build_viewer_html, palette, render_level_svg, write_svgs, write_viewer
from llkgen.render.svg import MAX_FRAME_CELLS, MAX_STEM, svg_filenames

from cli_runner import run_cli_in_process
from demo_pack import make_demo_pack

SVG = "{http://www.w3.org/2000/svg}"


@pytest.fixture(scope="module")
def demo_pack(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_demo_pack(tmp_path_factory.mktemp("demo"))


@pytest.fixture
def pack(demo_pack: Path) -> Pack:
    return load_pack(demo_pack)


def parse(svg: str) -> ET.Element:
    return ET.fromstring(svg.encode("utf-8"))


def by_class(root: ET.Element, cls: str) -> list[ET.Element]:
    return [e for e in root.iter() if cls in (e.get("class") or "").split()]


# -- SVG --------------------------------------------------------------------------------------------
def test_demo_pack_covers_the_rules(pack: Pack) -> None:
    rules = {(lv.rules.border, lv.rules.gravity) for lv in pack.levels}
    assert any(g != "none" for _, g in rules)
    assert (False, "none") in rules
    assert any(WALL in lv.board.cells for lv in pack.levels)
    for lv in pack.levels:
        assert replay(lv.board, lv.rules, lv.solution).cleared


@pytest.mark.parametrize("solution", [False, True])
def test_svg_is_well_formed_and_deterministic(pack: Pack, demo_pack: Path, solution: bool) -> None:
    for lv in pack.levels:
        svg = render_level_svg(lv, solution=solution)
        root = parse(svg)
        assert root.tag == SVG + "svg"
        assert svg == render_level_svg(lv, solution=solution)
        # Loading the file afresh (new objects, new dict order in memory) changes nothing.
        again = load_pack(demo_pack).levels[pack.levels.index(lv)]
        assert svg == render_level_svg(again, solution=solution)
        # No float noise: every coordinate and size in the drawing is an integer.
        for el in root.iter():
            for attr in ("x", "y", "width", "height", "cx", "cy", "r", "points", "viewBox"):
                if el.get(attr) is not None:
                    assert re.fullmatch(r"[-\d ,]+", el.get(attr)), (attr, el.get(attr))


def test_svg_has_one_tile_element_per_tile_with_its_type(pack: Pack) -> None:
    for lv in pack.levels:
        root = parse(render_level_svg(lv))
        tiles = by_class(root, "tile")
        assert len(tiles) == lv.board.tile_count
        seen = {(int(t.get("data-r")), int(t.get("data-c"))): int(t.get("data-type")) for t in tiles}
        assert seen == {p: lv.board[p] for p in lv.board.tiles()}
        for t in tiles:
            rect = t.find(SVG + "rect")
            label = t.find(SVG + "text")
            kind = int(t.get("data-type"))
            assert rect.get("fill") == palette.tile_colour(kind)
            assert label.text == palette.tile_label(kind)
        walls = by_class(root, "wall")
        assert len(walls) == sum(1 for v in lv.board.cells if v == WALL)
        assert len(by_class(root, "ring")) == (1 if lv.rules.border else 0)


def test_svg_header_names_level_rules_and_metrics(pack: Pack) -> None:
    for lv in pack.levels:
        root = parse(render_level_svg(lv))
        text = " ".join(t.text or "" for t in root.iter(SVG + "text"))
        m = lv.extra["metrics"]
        assert lv.id in text
        assert f"gravity {lv.rules.gravity}" in text
        assert f"border {'on' if lv.rules.border else 'off'}" in text
        assert f"initial moves {m['initial_moves']}" in text
        assert f"random clear {round(m['random_clear_rate'] * 100)}%" in text
        assert f"verify nodes {m['verify_nodes']}" in text


def test_svg_solution_strip_follows_the_referee(pack: Pack) -> None:
    for lv in pack.levels:
        root = parse(render_level_svg(lv, solution=True))
        res = replay(lv.board, lv.rules, lv.solution)
        steps = by_class(root, "step")
        assert [int(s.get("data-step")) for s in steps] == list(range(1, len(lv.solution) + 1))
        for step, (a, b), path in zip(steps, lv.solution, res.paths):
            marked = {(int(t.get("data-r")), int(t.get("data-c")))
                      for t in by_class(step, "mini") if t.find(SVG + "rect").get("stroke") == palette.HIGHLIGHT}
            assert marked == {tuple(a), tuple(b)}
            line = step.find(f"{SVG}g[@class='path']/{SVG}polyline")
            assert len(line.get("points").split()) == len(path)
        end = by_class(root, "step-end")
        assert len(end) == 1 and "cleared" in ET.tostring(end[0], encoding="unicode")
        # Every tile carries the number of the step that removes it.
        badges = by_class(root, "badge")
        assert len(badges) == lv.board.tile_count
        counts: dict[str, int] = {}
        for bd in badges:
            n = bd.find(SVG + "text").text
            counts[n] = counts.get(n, 0) + 1
        assert counts == {str(i): 2 for i in range(1, len(lv.solution) + 1)}


def test_svg_badges_follow_tiles_under_gravity(pack: Pack) -> None:
    lv = next(lv for lv in pack.levels if lv.rules.gravity != "none")
    root = parse(render_level_svg(lv, solution=True))
    badge = {(int(b.get("data-r")), int(b.get("data-c"))): int(b.find(SVG + "text").text)
             for b in by_class(root, "badge")}
    # The two tiles badged with step k hold the same type in the initial board, and the
    # referee's board before step k has that type exactly at the solution's cells.
    for k, (a, b) in enumerate(lv.solution, start=1):
        cells = [p for p, n in badge.items() if n == k]
        assert len(cells) == 2 and lv.board[cells[0]] == lv.board[cells[1]]
        before = replay(lv.board, lv.rules, lv.solution[: k - 1]).final
        assert before[tuple(a)] == lv.board[cells[0]] == before[tuple(b)]


def test_svg_reports_a_bad_or_missing_solution(pack: Pack) -> None:
    lv = pack.levels[0]
    bad = replace(lv, extra={**lv.extra, "solution": [lv.solution[0], lv.solution[0]]})
    root = parse(render_level_svg(bad, solution=True))
    assert len(by_class(root, "step")) == 1
    end = ET.tostring(by_class(root, "step-end")[0], encoding="unicode")
    assert "step 2 refused" in end
    none = replace(lv, extra={k: v for k, v in lv.extra.items() if k != "solution"})
    svg = render_level_svg(none, solution=True)
    assert "no stored solution" in svg and not by_class(parse(svg), "step")


def test_svg_without_extras_or_id() -> None:
    lv = Level(Board.from_grid([[1, 0, 1], [-1, 2, 2]]), Rules(border=False))
    root = parse(render_level_svg(lv))
    assert len(by_class(root, "tile")) == 4
    assert "initial moves \u2013" in render_level_svg(lv)


def test_write_svgs_names_are_deterministic_and_unique(pack: Pack, demo_pack: Path, tmp_path: Path) -> None:
    levels = load_levels(demo_pack)
    paths = write_svgs(levels, tmp_path / "svg")
    assert [p.name for p in paths] == [f"{lv.id}.svg" for _, lv in levels]
    assert all(p.read_text(encoding="utf-8") == render_level_svg(lv) for p, (_, lv) in zip(paths, levels))
    both = write_svgs(levels, tmp_path / "svg", solution=True)
    assert [p.name for p in both] == [f"{lv.id}{s}" for _, lv in levels for s in (".svg", ".solution.svg")]
    lv = levels[0][1]
    odd = [("x.json#0", replace(lv, id="a/b c")), ("x.json#1", replace(lv, id="a/b c")),
           ("x.json#2", replace(lv, id=None)), ("dir/one.json", replace(lv, id=None))]
    assert svg_filenames(odd) == ["a-b-c", "a-b-c-2", "level-003", "one"]


def test_ids_that_name_each_others_previews_get_distinct_files(pack: Pack, tmp_path: Path) -> None:
    lv = pack.levels[0]
    levels = [("p#0", replace(lv, id="a")), ("p#1", replace(lv, id="a.solution")),
              ("p#2", replace(lv, id="A.SOLUTION")), ("p#3", replace(lv, id="a-2"))]
    paths = write_svgs(levels, tmp_path, solution=True)
    assert len({p.name.lower() for p in paths}) == len(paths) == 8
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(p.name for p in paths)
    for (_, level), plain, steps in zip(levels, paths[::2], paths[1::2]):
        assert plain.read_text("utf-8") == render_level_svg(level)
        assert steps.read_text("utf-8") == render_level_svg(level, solution=True)


@pytest.mark.parametrize("length", [237, 238, 300, 10_000])
def test_long_ids_get_short_distinct_file_names(pack: Pack, tmp_path: Path, length: int) -> None:
    lv = pack.levels[0]
    ids = ["x" * length, "x" * (length - 1) + "y"]
    paths = write_svgs([(f"p#{i}", replace(lv, id=i_)) for i, i_ in enumerate(ids)], tmp_path, solution=True)
    assert len({p.name for p in paths}) == 4
    assert all(len(p.name.encode()) <= MAX_STEM + len(".solution.svg") for p in paths)
    assert all(p.is_file() for p in paths)


def test_a_huge_solution_is_capped_and_the_rest_listed(tmp_path: Path) -> None:
    # 64 x 64 with 2,048 moves: drawing every step would write over a gigabyte.
    n = 64
    board = Board.from_grid([[r * 32 + c // 2 + 1 for c in range(n)] for r in range(n)])
    solution = [[[r, 2 * j], [r, 2 * j + 1]] for r in range(n) for j in range(n // 2)]
    level = Level(board, Rules(), "huge", {"solution": solution})
    svg = render_level_svg(level, solution=True)
    assert len(svg.encode()) < 8_000_000
    root = parse(svg)
    drawn = len(by_class(root, "step"))
    assert drawn * n * n <= MAX_FRAME_CELLS and drawn >= 1
    title = by_class(root, "strip-title")[0].text
    assert title.endswith(f"steps {drawn + 1}\u2013{len(solution)} listed, not drawn")
    listed = [e.text for e in by_class(root, "step-list")[0]]
    assert len(listed) == len(solution) - drawn
    assert listed[0] == f"{drawn + 1}. type {drawn + 1}: (0,{2 * drawn})\u2013(0,{2 * drawn + 1})"
    assert listed[-1] == "2048. type 2048: (63,62)\u2013(63,63)"
    assert by_class(root, "step-end")[0][0].text == "cleared"
    # Every tile still carries the number of the step that removes it.
    assert len(by_class(root, "badge")) == n * n


def test_palette_is_distinct_and_readable() -> None:
    fills = [palette.tile_colour(k) for k in range(1, 41)]
    assert len(set(fills)) == 40
    assert len({palette.tile_label(k) for k in range(1, 200)}) == 199

    def contrast(a: str, b: str) -> float:
        la, lb = sorted((palette._luminance(a), palette._luminance(b)), reverse=True)
        return (la + 0.05) / (lb + 0.05)

    for k in range(1, 41):
        # 3:1 is WCAG's threshold for large bold text, which tile labels are.
        assert contrast(palette.tile_colour(k), palette.text_colour(k)) >= 3.0, k
        assert contrast(palette.tile_colour(k), palette.EMPTY_FILL) > 1.05, k


# -- HTML -------------------------------------------------------------------------------------------
def test_viewer_html_is_self_contained_and_deterministic(pack: Pack, tmp_path: Path) -> None:
    html = build_viewer_html(pack)
    assert html == build_viewer_html(pack)
    assert html == build_viewer_html(pack_to_json(pack))
    assert "<link" not in html and not re.search(r"<(script|img|iframe)[^>]*\ssrc=", html)
    assert "@import" not in html and "url(" not in html.replace("url(#", "")
    # The only URL is the SVG namespace the script passes to createElementNS.
    assert set(re.findall(r"https?://[^\s\"')]+", html)) <= {"http://www.w3.org/2000/svg"}
    assert "default-src 'none'" in html
    for needed in ('id="status"', 'id="board"', 'id="btn-undo"', 'id="btn-restart"', 'id="btn-hint"',
                   'id="btn-play"', 'id="level-list"', 'id="message"'):
        assert needed in html
    out = write_viewer(pack, tmp_path / "v" / "viewer.html")
    assert out.read_text(encoding="utf-8") == html


def test_viewer_embeds_the_pack_and_palette(pack: Pack) -> None:
    html = build_viewer_html(pack)
    m = re.search(r'<script type="application/json" id="llk-data">(.*?)</script>', html, re.S)
    data = json.loads(m.group(1))
    assert data["pack"] == pack_to_json(pack)
    kinds = {v for lv in pack.levels for v in lv.board.cells if v > 0}
    assert data["palette"] == palette.palette_json(sorted(kinds))


def test_viewer_escapes_hostile_strings(pack: Pack) -> None:
    evil = "</script><script>alert(1)</script><!--"
    lv = replace(pack.levels[0], id=evil)
    html = build_viewer_html(Pack(evil, [lv], {"generator": "<b>"}))
    assert evil not in html
    assert html.count("</script>") == 2  # the data block and the viewer script
    m = re.search(r'<script type="application/json" id="llk-data">(.*?)</script>', html, re.S)
    data = json.loads(m.group(1))
    assert data["pack"]["name"] == evil and data["pack"]["levels"][0]["id"] == evil


# -- render and view within a budget, and render's size stated before it writes ---------------

def test_render_states_its_size_before_writing_and_the_estimate_is_never_low(demo_pack, tmp_path):
    shipped = tmp_path / "hard.json"
    shipped.write_text(json.dumps(pack_to_json(llkgen.generate("hard", count=2))))
    for source in (demo_pack, shipped):
        for solution in (False, True):
            seen: list = []
            out = tmp_path / f"{source.stem}-{solution}"
            report = render_levels(source, out, solution=solution, on_estimate=seen.append, on_file=seen.append)
            estimate = seen[0]
            assert estimate.levels == report.levels
            assert estimate.worth_stating == (estimate.bytes >= 10 << 20)
            assert all(isinstance(p, Path) for p in seen[1:])  # the estimate came before every file
            written = sum(p.stat().st_size for p in report.files)
            assert written == report.bytes
            if source == shipped:  # the levels the estimate's constants were measured on
                assert written <= estimate.bytes <= 1.5 * written, (source, solution)


def test_render_stops_at_its_deadline_with_whole_files_and_counts_the_rest(pack, tmp_path, monkeypatch):
    source = tmp_path / "pack.json"
    source.write_text(json.dumps(pack_to_json(pack)))
    n = len(pack.levels)
    assert n >= 3
    looks: list[int] = []

    def two_levels_then_late(deadline):  # the clock, injected: past the deadline from the third look
        looks.append(1)
        return deadline is not None and len(looks) > 2

    monkeypatch.setattr(jobs_render, "out_of_time", two_levels_then_late)
    report = jobs_render.render_levels(source, tmp_path / "svg", solution=True, deadline=0.0, budget=3)
    assert (report.levels, report.not_rendered, report.exit_code) == (2, n - 2, EXIT_UNKNOWN)
    assert sorted(p.name for p in (tmp_path / "svg").iterdir()) == sorted(p.name for p in report.files)
    assert len(report.files) == 4
    for p in report.files:
        parse(p.read_text())  # whole: each parses
    assert "the budget of 3 s ran out after 2 levels: " + f"{n - 2} not rendered" in report.budget_line()


def test_render_and_view_take_a_budget_on_the_command_line(demo_pack, tmp_path, monkeypatch, capsys):
    code, out, err = run_cli_in_process(["render", str(demo_pack), "--out", str(tmp_path / "svg"), "--budget", "0"],
                                        monkeypatch, capsys)
    assert code == 4 and "not rendered" in err and "Traceback" not in err
    assert "about" not in err  # a few kilobytes: not worth a note
    assert not list((tmp_path / "svg").iterdir())
    code, out, err = run_cli_in_process(["render", str(demo_pack), "--out", str(tmp_path / "all"), "--budget", "600"],
                                        monkeypatch, capsys)
    assert code == 0 and "not rendered" not in err
    code, out, err = run_cli_in_process(["view", str(demo_pack), "--out", str(tmp_path / "v.html"), "--budget", "0"],
                                        monkeypatch, capsys)
    assert code == 4 and "nothing written" in err and not (tmp_path / "v.html").exists()
    code, out, err = run_cli_in_process(["view", str(demo_pack), "--out", str(tmp_path / "v.html"), "--budget", "600"],
                                        monkeypatch, capsys)
    assert code == 0 and (tmp_path / "v.html").exists()
