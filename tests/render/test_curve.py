"""The difficulty curve (llkgen/render/curve.py): what it draws, from what, and that it copes
with packs whose levels lack some or all metrics."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from llkgen.render.curve import METRICS, difficulty_curve_svg, pack_metrics, write_difficulty_curve_svg

SVG = "{http://www.w3.org/2000/svg}"


def series(root: ET.Element, metric: str) -> ET.Element | None:
    return next((g for g in root.iter(SVG + "g") if g.get("data-metric") == metric), None)


def points(path_d: str) -> list[list[tuple[float, float]]]:
    """The pen-down runs of an M/L path as lists of (x, y)."""
    runs: list[list[tuple[float, float]]] = []
    for op, x, y in re.findall(r"([ML])(-?[\d.]+) (-?[\d.]+)", path_d):
        if op == "M":
            runs.append([])
        runs[-1].append((float(x), float(y)))
    return runs


def test_the_curve_goes_up_with_difficulty_and_lifts_the_pen_over_gaps() -> None:
    metrics = [{"difficulty": 10.0}, {"difficulty": 90.0}, None, {"initial_moves": 3},
               {"difficulty": 50.0}, {"difficulty": 0}, {"difficulty": 100}]
    root = ET.fromstring(difficulty_curve_svg(metrics, width=400, height=200))
    line = series(root, "difficulty")
    assert line is not None
    runs = points(line.find(SVG + "path").get("d"))
    assert [len(r) for r in runs] == [2, 3]  # levels 1-2, then 5-7
    (x1, y1), (x2, y2) = runs[0]
    assert x1 < x2 and y2 < y1  # harder is higher up (SVG y grows downwards)
    ys = [y for _, y in runs[1]]
    assert ys[1] > ys[0] > ys[2]  # 50, 0, 100
    top, height = float(root.get("data-plot-top")), float(root.get("data-plot-height"))
    assert ys[2] == pytest.approx(top) and ys[1] == pytest.approx(top + height)
    # x positions are evenly spaced by level index
    step = float(root.get("data-step"))
    assert runs[1][0][0] - runs[0][0][0] == pytest.approx(4 * step, abs=0.1)
    assert root.find(f".//{SVG}text[@class='no-data']") is None


def test_no_difficulty_data_is_said_not_drawn() -> None:
    for metrics in ([], [None, None], [{"initial_moves": 4, "verify_nodes": 10}]):
        root = ET.fromstring(difficulty_curve_svg(metrics))
        assert series(root, "difficulty") is None
        assert "no difficulty data" in root.find(f".//{SVG}text[@class='no-data']").text


def test_overlays_have_their_own_scale_and_can_be_hidden() -> None:
    metrics = [{"difficulty": 20.0, "fatal_share": 0.5, "choices": 7.0},
               {"difficulty": 40.0, "fatal_share": 1.0, "choices": 3.5, "verify_nodes": True}]
    root = ET.fromstring(difficulty_curve_svg(metrics, overlays=["fatal_share", "choices", "verify_nodes"]))
    fatal, choices = series(root, "fatal_share"), series(root, "choices")
    assert fatal is not None and choices is not None
    assert series(root, "verify_nodes") is None  # a bool is not a number: no level has it
    assert fatal.get("data-top") == "1" and choices.get("data-top") == "10"  # nice round top
    assert fatal.get("visibility") is None
    hidden = ET.fromstring(difficulty_curve_svg(metrics, overlays=["fatal_share"], hidden_overlays=True))
    assert series(hidden, "fatal_share").get("visibility") == "hidden"
    assert series(hidden, "difficulty").get("visibility") is None
    with pytest.raises(ValueError, match="unknown overlay metric 'speed'"):
        difficulty_curve_svg(metrics, overlays=["speed"])


def bars(root: ET.Element) -> tuple[list[tuple[float, float, float]], list[tuple[float, float, float]]]:
    """The error bars' vertical strokes as (x, y_top, y_bottom) and their caps as (x1, x2, y)."""
    g = series(root, "difficulty_se")
    if g is None:
        return [], []
    d = g.find(SVG + "path").get("d")
    strokes = [(float(x), min(float(a), float(b)), max(float(a), float(b)))
               for x, a, b in re.findall(r"M(-?[\d.]+) (-?[\d.]+)V(-?[\d.]+)", d)]
    caps = [(float(a), float(b), float(y)) for a, y, b in re.findall(r"M(-?[\d.]+) (-?[\d.]+)H(-?[\d.]+)", d)]
    return strokes, caps


def test_error_bars_span_one_standard_error_where_there_is_one() -> None:
    metrics = [{"difficulty": 40.0, "difficulty_se": 5.0}, {"difficulty": 60.0}, None,
               {"difficulty": 98.0, "difficulty_se": 4.0}, {"difficulty": 20.0, "difficulty_se": 0},
               {"difficulty_se": 3.0}]
    root = ET.fromstring(difficulty_curve_svg(metrics, width=400, height=200))
    top, height = float(root.get("data-plot-top")), float(root.get("data-plot-height"))
    x0, step = float(root.get("data-x0")), float(root.get("data-step"))

    def y(v: float) -> float:
        return top + height * (1 - v / 100)

    strokes, caps = bars(root)
    # Levels 1 and 4 only: level 2 has no se, level 5 a zero one, level 6 no difficulty.
    assert [round((x - x0) / step) for x, _, _ in strokes] == [0, 3]
    assert strokes[0][1:] == (pytest.approx(y(45), abs=0.1), pytest.approx(y(35), abs=0.1))
    assert strokes[1][1:] == (pytest.approx(y(100), abs=0.1), pytest.approx(y(94), abs=0.1))  # clipped at 100
    # Each bar has a cap at either end, centred on it.
    want = sorted((round(x - 3, 1), round(x + 3, 1), yy) for x, lo, hi in strokes for yy in (lo, hi))
    assert sorted(caps) == want
    note = root.find(f".//{SVG}text[@class='error-note']")
    assert note is not None and "1 standard error" in note.text
    # The line is drawn over the bars.
    groups = [g.get("data-metric") for g in root.iter(SVG + "g") if g.get("data-metric")]
    assert groups.index("difficulty_se") < groups.index("difficulty")


def test_no_standard_errors_no_bars_and_crowded_bars_lose_their_caps() -> None:
    plain = ET.fromstring(difficulty_curve_svg([{"difficulty": 10.0}, {"difficulty": 20.0}]))
    assert bars(plain) == ([], []) and plain.find(f".//{SVG}text[@class='error-note']") is None
    many = [{"difficulty": 50.0, "difficulty_se": 2.0}] * 500
    strokes, caps = bars(ET.fromstring(difficulty_curve_svg(many)))
    assert len(strokes) == 500 and caps == []


def test_the_curve_is_deterministic_and_labels_pack_numbers(tmp_path: Path) -> None:
    metrics = [{m.key: i * 1.5 for m in METRICS} for i in range(40)]
    a = difficulty_curve_svg(metrics, overlays=["choices"], first=100, title="Pack <b>")
    assert a == difficulty_curve_svg(metrics, overlays=["choices"], first=100, title="Pack <b>")
    root = ET.fromstring(a)  # the title is escaped, so this parses
    labels = [t.text for t in root.iter(SVG + "text")]
    assert "Pack <b>" in labels and "101" in labels and "140" in labels and "1" not in labels
    out = write_difficulty_curve_svg(metrics, tmp_path / "img" / "curve.svg")
    assert out.read_text(encoding="utf-8") == difficulty_curve_svg(metrics)


def test_pack_metrics_reads_levels_and_level_json() -> None:
    from llkgen.formats.level import Level
    from llkgen.game.board import Board, Rules

    lv = Level(Board.from_grid([[1, 1]]), Rules(), "a", {"metrics": {"difficulty": 3.0}})
    assert pack_metrics([lv, {"metrics": {"difficulty": 4}}, {"grid": []}, {"metrics": "bad"}]) == [
        {"difficulty": 3.0}, {"difficulty": 4}, None, None]


def test_the_viewer_embeds_the_curve_and_copes_with_old_packs() -> None:
    from llkgen.formats.level import Level, Pack
    from llkgen.game.board import Board, Rules
    from llkgen.render import build_viewer_html

    board = Board.from_grid([[1, 1]])
    old = Pack("old", [Level(board, Rules(), "a", {"metrics": {"initial_moves": 1}}), Level(board, Rules(), "b")])
    html = build_viewer_html(old)
    assert "no difficulty data in this pack" in html and 'data-has-difficulty="0"' in html
    assert '<option value="initial_moves">' in html and '<option value="fatal_share">' not in html
    new = Pack("new", [Level(board, Rules(), "a", {"metrics": {"difficulty": 12.5, "fatal_share": 0.2}})])
    html = build_viewer_html(new)
    assert 'data-has-difficulty="1"' in html and "no difficulty data" not in html
    assert '<option value="fatal_share">fatal share</option>' in html
    assert html == build_viewer_html(new)
