"""What a level designer uses in the viewer, driven in Chromium: the difficulty curve, the
sortable and filterable level list with its thumbnails, the dead-board warning and the
"undecided" note, and the page at a phone's width.

The pack's difficulty metrics are made up here, including the ones older packs carry and packs
made by ``llkgen make`` no longer do (:data:`OLD_METRICS`); one level has no metrics at all and
one lacks only some keys, as in old packs. Copies of it without those metrics, with tiers or
with a shared id test the columns, the tier column and the address.

Needs Playwright for Python and Debian's Chromium at /usr/bin/chromium; skipped with a reason
when Chromium is missing.
"""

from __future__ import annotations

import random
from dataclasses import replace
from pathlib import Path

import pytest

from llkgen.analysis.ladder import MODELS, TIERS
from llkgen.formats.level import Level, Pack
from llkgen.formats.load import load_pack
from llkgen.game.board import Board, Rules
from llkgen.game.path import removable_pairs
from llkgen.game.referee import replay
from llkgen.generation.generator import generate_level
from llkgen.generation.spec import parse_spec
from llkgen.render import palette
from llkgen.render.html import write_viewer
from llkgen.verifier import Budget, verify

from browser import BROWSER, Viewer
from demo_pack import make_demo_pack
from paths import ROOT

pytestmark = BROWSER

METRIC_KEYS = ["difficulty", "fatal_share", "trap_steps", "choices", "link_turns", "unknown_share"]
#: Metrics older packs carry and packs made by `make` now do not.
OLD_METRICS = ["fatal_share", "trap_steps", "choices", "link_turns", "unknown_share"]


def with_solution(board: Board, rules: Rules, level_id: str, metrics: dict | None = None) -> Level:
    verdict = verify(board, rules, Budget(nodes=100_000))
    assert verdict.status == "solvable"
    extra: dict = {"solution": [[list(m.a), list(m.b)] for m in verdict.moves],
                   "certificate": {"verdict": "solvable", "method": "test"}}
    if metrics is not None:
        extra["metrics"] = metrics
    return Level(board, rules, level_id, extra)


#: A solvable 4 x 4 level (no gravity, border on) whose first move (1,0)-(3,0) kills it. Found
#: by a seeded search over shuffled boards (about 20 s of verify calls), so it is pinned here
#: and only re-checked.
TRAP_GRID = [[3, 2, 1, 3], [1, 1, 2, 4], [4, 3, 4, 2], [1, 4, 3, 2]]
TRAP_MOVE = ((1, 0), (3, 0))


def trap_level() -> Level:
    rules = Rules(border=True, gravity="none")
    board = Board.from_grid(TRAP_GRID)
    after = replay(board, rules, [TRAP_MOVE])
    assert after.ok and verify(after.final, rules).status == "unsolvable"
    lv = with_solution(board, rules, "trap-4x4")
    return replace(lv, extra={**lv.extra, "fatal_move": [list(p) for p in TRAP_MOVE]})


@pytest.fixture(scope="module")
def designer_pack(tmp_path_factory: pytest.TempPathFactory) -> tuple[Pack, Path]:
    """Demo levels (twice, under new ids), a trap level and a generated 10x16 level, with
    made-up metrics; level 3 has none, level 5 lacks the difficulty."""
    tmp = tmp_path_factory.mktemp("designer")
    demo = load_pack(make_demo_pack(tmp))
    spec = parse_spec((ROOT / "configs" / "hard.yaml").read_text(encoding="utf-8"), "hard.yaml")
    big = generate_level(spec, 0)
    base = [replace(lv, id=f"{lv.id}-{k}") for k in (1, 2) for lv in demo.levels]
    base.append(trap_level())
    base.append(Level(big.board, big.rules, "hard-10x16", {"solution": big.solution}))
    rng = random.Random(9)
    levels = []
    for i, lv in enumerate(base):
        m = dict(lv.extra.get("metrics") or {"initial_moves": rng.randint(1, 30), "verify_nodes": rng.randint(1, 5000),
                                              "random_clear_rate": rng.random()})
        m.update(difficulty=round(rng.uniform(0, 100), 1), fatal_share=round(rng.random(), 3),
                 trap_steps=round(rng.uniform(0, 9), 2), choices=round(rng.uniform(1, 20), 2),
                 link_turns=round(rng.uniform(0, 2), 2), unknown_share=round(rng.random() / 10, 3))
        if i == 2:
            extra = {k: v for k, v in lv.extra.items() if k != "metrics"}
        elif i == 4:
            extra = {**lv.extra, "metrics": {k: v for k, v in m.items() if k not in ("difficulty", "choices")}}
        else:
            extra = {**lv.extra, "metrics": m}
        levels.append(replace(lv, extra=extra))
    pack = Pack("Designer demo", levels, {"generator": "llkgen tests"})
    return pack, write_viewer(pack, tmp / "designer.html")


@pytest.fixture
def open_page(browser_context, designer_pack):
    opened: list[Viewer] = []

    def open_(html: Path | None = None, pack: Pack | None = None, width: int | None = None,
              height: int = 844, fragment: str = "") -> Viewer:
        v = Viewer.open(browser_context, pack or designer_pack[0], (html or designer_pack[1]).as_uri() + fragment,
                        {"width": width, "height": height} if width else None)
        opened.append(v)
        return v

    yield open_
    for v in opened:
        v.close_checked()


def metric(lv: Level, key: str):
    v = (lv.extra.get("metrics") or {}).get(key)
    return v if isinstance(v, (int, float)) and not isinstance(v, bool) else None


def expected_order(pack: Pack, key, descending: bool) -> list[int]:
    """Pack indices sorted by the number ``key(level, index)``; levels without one last
    either way, ties in pack order."""
    have = [i for i, lv in enumerate(pack.levels) if key(lv, i) is not None]
    missing = [i for i, lv in enumerate(pack.levels) if key(lv, i) is None]
    sign = -1 if descending else 1
    return sorted(have, key=lambda i: (sign * key(pack.levels[i], i), i)) + missing


# -- the level list ---------------------------------------------------------------------------------
@pytest.mark.parametrize("column", ["difficulty", "fatal_share", "choices", "random_clear_rate",
                                    "initial_moves", "trap_steps", "id", "tiles"])
def test_sorting_by_a_column_both_ways(open_page, column: str) -> None:
    v = open_page()
    pack = v.pack
    if column == "id":
        key = lambda lv, i: lv.id  # noqa: E731
    elif column == "tiles":
        key = lambda lv, i: lv.board.tile_count  # noqa: E731
    else:
        key = lambda lv, i: metric(lv, column)  # noqa: E731
    v.page.click(f'#level-list th button[data-sort="{column}"]')
    asc = v.page.evaluate("window.llk.listOrder()")
    v.page.click(f'#level-list th button[data-sort="{column}"]')
    desc = v.page.evaluate("window.llk.listOrder()")
    rows = v.page.eval_on_selector_all("#level-list tbody tr", "rs => rs.map(r => +r.dataset.index)")
    assert rows == desc  # the DOM order is what listOrder reports
    if column == "id":
        want = sorted(range(len(pack.levels)), key=lambda i: pack.levels[i].id)
        assert asc == want and desc == want[::-1]
    else:
        assert asc == expected_order(pack, key, False)
        assert desc == expected_order(pack, key, True)
    assert v.page.get_attribute(f'#level-list th[data-col="{column}"]', "aria-sort") == "descending"
    if column == "difficulty":
        assert asc[-2:] == [2, 4] and desc[-2:] == [2, 4]  # the levels without it, last both ways


def test_filtering_by_text_and_difficulty_range(open_page) -> None:
    v = open_page()
    pack = v.pack
    v.page.fill("#filter-min", "30")
    v.page.fill("#filter-max", "70")
    want = [i for i, lv in enumerate(pack.levels) if metric(lv, "difficulty") is not None
            and 30 <= metric(lv, "difficulty") <= 70]
    assert 0 < len(want) < len(pack.levels) - 2
    assert v.page.evaluate("window.llk.listOrder()") == want
    assert v.text("#filter-count") == f"{len(want)} of {len(pack.levels)} levels"
    v.page.fill("#filter-min", "")
    v.page.fill("#filter-max", "")
    v.page.fill("#filter-text", "GRAVITY-DOWN")
    assert v.page.evaluate("window.llk.listOrder()") == [
        i for i, lv in enumerate(pack.levels) if "gravity-down" in lv.id]
    v.page.fill("#filter-text", "right")  # rules text matches too: gravity right
    assert v.page.evaluate("window.llk.listOrder()") == [
        i for i, lv in enumerate(pack.levels) if lv.rules.gravity == "right"]
    # Sorting keeps the filter.
    v.page.click('#level-list th button[data-sort="difficulty"]')
    shown = v.page.evaluate("window.llk.listOrder()")
    assert sorted(shown) == [i for i, lv in enumerate(pack.levels) if lv.rules.gravity == "right"]
    v.page.fill("#filter-text", "")
    assert len(v.page.evaluate("window.llk.listOrder()")) == len(pack.levels)


def test_list_shows_metrics_and_dashes_for_missing_ones(open_page) -> None:
    v = open_page()
    texts = v.page.eval_on_selector_all("#level-list tbody tr", "rs => rs.map(r => r.innerText)")
    for text, lv in zip(texts, v.pack.levels):
        d = metric(lv, "difficulty")
        assert (f"{d:.1f}" in text) if d is not None else "\u2013" in text
        f = metric(lv, "fatal_share")
        if f is not None:
            assert f"{round(f * 100)}%" in text
    # The detail pane names every metric a level has, and nothing it lacks.
    for index, lv in enumerate(v.pack.levels):
        v.select(index)
        more, d = v.text("#level-more"), metric(lv, "difficulty")
        assert v.text("#level-difficulty") == (f"difficulty {d:.1f}" if d is not None else "")
        for key, label in (("fatal_share", "fatal share"), ("trap_steps", "trap steps"), ("choices", "choices"),
                           ("link_turns", "link turns"), ("unknown_share", "unknown share")):
            assert (label in more) == (metric(lv, key) is not None), (lv.id, key, more)
        assert v.page.locator('#level-list th[data-col="tier"]').count() == 0  # no level has a tier


def with_extra(pack: Pack, name: str, change) -> Pack:
    """A copy of ``pack`` named ``name`` whose level i has ``change(i, extra)`` as its extra."""
    return Pack(name, [replace(lv, extra=change(i, dict(lv.extra))) for i, lv in enumerate(pack.levels)],
                dict(pack.extra))


def columns(v: Viewer) -> list[str]:
    return v.page.eval_on_selector_all("#level-list thead th", "ts => ts.map(t => t.dataset.col)")


def column_cells(v: Viewer) -> dict[str, list[str]]:
    """Each column's cells, top to bottom, by the key of its header; fails unless every row has
    a cell per header."""
    heads = columns(v)
    rows = v.page.eval_on_selector_all("#level-list tbody tr", "rs => rs.map(r => [...r.cells].map(c => c.innerText))")
    assert all(len(r) == len(heads) for r in rows), (heads, rows)
    return {k: [r[j] for r in rows] for j, k in enumerate(heads)}


def overlay_options(v: Viewer) -> list[str]:
    return v.page.eval_on_selector_all("#curve-overlay option", "os => os.map(o => o.value)")


def test_columns_and_overlays_only_for_metrics_the_pack_has(open_page, designer_pack, tmp_path: Path) -> None:
    # An old pack, with every metric: every column and every overlay.
    old = open_page()
    assert set(OLD_METRICS) <= set(columns(old)) and set(OLD_METRICS) <= set(overlay_options(old))
    assert column_cells(old)["fatal_share"][0] == f"{round(metric(old.pack.levels[0], 'fatal_share') * 100)}%"

    # A pack as `make` writes them now: none of those metrics, so none of their columns.
    def strip(i: int, extra: dict) -> dict:
        if "metrics" in extra:
            extra["metrics"] = {k: v for k, v in extra["metrics"].items() if k not in OLD_METRICS}
        return extra

    new = with_extra(designer_pack[0], "New", strip)
    v = open_page(write_viewer(new, tmp_path / "new.html"), new)
    assert columns(v) == ["index", "preview", "id", "size", "rules", "tiles", "difficulty", "initial_moves",
                          "random_clear_rate", "verify_nodes"]
    assert overlay_options(v) == ["", "initial_moves", "random_clear_rate", "verify_nodes"]
    cells = column_cells(v)
    for key, texts in cells.items():  # no column of dashes only
        assert key == "preview" or any(t != "\u2013" for t in texts), (key, texts)
    moves = [metric(lv, "initial_moves") for lv in new.levels]
    assert cells["initial_moves"] == [f"{m:,}" if m is not None else "\u2013" for m in moves]
    v.page.click('#level-list th button[data-sort="verify_nodes"]')  # the columns left still sort
    assert v.page.evaluate("window.llk.listOrder()") == expected_order(
        new, lambda lv, i: metric(lv, "verify_nodes"), False)
    for index in (0, 3):
        v.select(index)
        assert not any(k.replace("_", " ") in v.text("#level-more") for k in OLD_METRICS)

    # One level with one of them is enough for its column (and overlay); the others show a dash.
    def one(i: int, extra: dict) -> dict:
        extra = strip(i, extra)
        if i == 3:
            extra["metrics"] = {**extra.get("metrics", {}), "trap_steps": 4.5}
        return extra

    single = with_extra(designer_pack[0], "One", one)
    v = open_page(write_viewer(single, tmp_path / "one.html"), single)
    assert [k for k in columns(v) if k in OLD_METRICS] == ["trap_steps"]
    assert [k for k in overlay_options(v) if k in OLD_METRICS] == ["trap_steps"]
    assert column_cells(v)["trap_steps"] == ["4.5" if i == 3 else "\u2013" for i in range(len(single.levels))]


#: Tiers given to the designer pack's levels (None: the level has no players).
TIER_OF = ["deep", "random", None, "hint", "careful", "nearest", "lookahead", None, "careful", "random"]


def test_the_tier_column_sorts_up_the_ladder_and_the_find_box_matches_it(open_page, designer_pack,
                                                                         tmp_path: Path) -> None:
    def players(i: int, extra: dict) -> dict:
        if TIER_OF[i] is not None:
            extra["players"] = {"tier": TIER_OF[i], "stream": 0, "clear_rates": {
                m: {"rate": 0.5, "se": 0.05, "runs": 64} for m in MODELS}}
        return extra

    pack = with_extra(designer_pack[0], "Tiers", players)
    assert len(pack.levels) == len(TIER_OF)
    v = open_page(write_viewer(pack, tmp_path / "tiers.html"), pack)
    heads = columns(v)
    assert heads[heads.index("difficulty") + 1] == "tier"
    assert column_cells(v)["tier"] == [t or "\u2013" for t in TIER_OF]
    rank = lambda lv, i: TIERS.index(TIER_OF[i]) if TIER_OF[i] else None  # noqa: E731
    v.page.click('#level-list th button[data-sort="tier"]')
    asc = v.page.evaluate("window.llk.listOrder()")
    assert asc == expected_order(pack, rank, False) == [1, 9, 5, 6, 4, 8, 0, 3, 2, 7]  # not by name
    assert column_cells(v)["tier"][:3] == ["random", "random", "nearest"]  # the DOM moved too
    v.page.click('#level-list th button[data-sort="tier"]')
    assert v.page.evaluate("window.llk.listOrder()") == expected_order(pack, rank, True)
    assert v.page.get_attribute('#level-list th[data-col="tier"]', "aria-sort") == "descending"
    # The find box matches the tier as it matches the id and the rules.
    assert v.page.get_attribute("#filter-text", "placeholder") == "id, rules or tier"
    v.page.fill("#filter-text", "CAREFUL")
    assert sorted(v.page.evaluate("window.llk.listOrder()")) == [4, 8]
    v.page.fill("#filter-text", "hint")
    assert v.page.evaluate("window.llk.listOrder()") == [3]
    assert v.text("#filter-count") == f"1 of {len(pack.levels)} levels"
    # The level's tier is in its details too.
    v.page.fill("#filter-text", "")
    v.select(6)
    assert v.text("#level-difficulty").endswith("tier lookahead")
    assert v.page.eval_on_selector_all("#level-players li.tier", "ls => ls.map(l => l.dataset.player)") == [
        "lookahead"]


def test_thumbnails_show_each_starting_board(open_page) -> None:
    v = open_page()
    got = v.page.evaluate("""() => [...document.querySelectorAll('#level-list tbody tr')].map(tr => {
        const c = tr.querySelector('canvas.thumb'), d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
        return {index: +tr.dataset.index, w: c.width, h: c.height, px: Array.from(d)}; })""")
    fills = {0: palette.EMPTY_FILL, -1: palette.WALL_FILL}
    for t in got:
        lv = v.pack.levels[t["index"]]
        assert (t["w"], t["h"]) == (lv.board.cols, lv.board.rows)
        for r in range(lv.board.rows):
            for c in range(lv.board.cols):
                x = lv.board[r, c]
                hexc = fills[x] if x <= 0 else palette.tile_colour(x)
                o = 4 * (r * lv.board.cols + c)
                assert bytes(t["px"][o:o + 3]).hex().upper() == hexc[1:], (lv.id, r, c)


# -- the curve --------------------------------------------------------------------------------------
def click_curve(v: Viewer, index: int) -> None:
    """A real mouse click on the curve above level ``index`` (0-based)."""
    x, y = v.page.evaluate("""i => {
        const svg = document.querySelector('#curve svg'), pt = svg.createSVGPoint();
        pt.x = +svg.dataset.x0 + i * +svg.dataset.step; pt.y = +svg.dataset.plotTop + 10;
        const s = pt.matrixTransform(svg.getScreenCTM()); return [s.x, s.y]; }""", index)
    v.page.mouse.click(x, y)


def address(v: Viewer) -> str:
    return v.page.evaluate("location.hash")


def test_curve_click_selects_a_level_and_overlays_switch(open_page) -> None:
    v = open_page()
    assert v.page.locator("#curve svg g.primary path").count() == 1
    assert v.page.locator("#curve .no-data").count() == 0
    for index in (6, 3, 0):
        click_curve(v, index)
        assert v.state()["index"] == index
        assert address(v) == f"#level={v.pack.levels[index].id}"
    assert v.page.get_attribute('#curve g[data-metric="fatal_share"]', "visibility") == "hidden"
    v.page.select_option("#curve-overlay", "fatal_share")
    assert v.page.get_attribute('#curve g[data-metric="fatal_share"]', "visibility") == "visible"
    assert v.page.get_attribute('#curve g[data-metric="choices"]', "visibility") == "hidden"
    v.page.select_option("#curve-overlay", "")
    assert v.page.get_attribute('#curve g[data-metric="fatal_share"]', "visibility") == "hidden"


def test_the_address_names_the_level_and_back_forward_and_reload_keep_it(open_page) -> None:
    v = open_page()
    ids = [lv.id for lv in v.pack.levels]
    assert address(v) == "" and v.state()["index"] == 0  # opening the page adds no entry
    v.select(2)  # from the list
    assert address(v) == f"#level={ids[2]}"
    click_curve(v, 5)  # from the curve: the same address and the same history
    assert address(v) == f"#level={ids[5]}" and v.text("#level-title") == ids[5]
    v.select(5)  # the level shown already: no new entry
    v.page.go_back()
    v.page.wait_for_function("i => window.llk.state().index === i", arg=2)
    assert address(v) == f"#level={ids[2]}" and v.text("#level-title") == ids[2]
    v.page.go_back()
    v.page.wait_for_function("() => window.llk.state().index === 0")
    v.page.go_forward()
    v.page.wait_for_function("i => window.llk.state().index === i", arg=2)
    v.page.reload()
    v.page.wait_for_selector("html[data-ready='1']", state="attached")
    assert v.state()["index"] == 2 and address(v) == f"#level={ids[2]}"
    # A link straight to a level, by id or by its number (older links), and one naming nothing.
    assert open_page(fragment=f"#level={ids[7]}").state()["index"] == 7
    by_number = open_page(fragment="#level=4")
    assert by_number.state()["index"] == 3 and address(by_number) == f"#level={ids[3]}"
    nothing = open_page(fragment="#level=no-such-level")
    assert nothing.state()["index"] == 0 and address(nothing) == "#level=no-such-level"


def test_a_level_with_a_shared_id_is_addressed_by_its_number(open_page, designer_pack, tmp_path: Path) -> None:
    base = designer_pack[0]
    levels = [replace(lv, id="twin") if i in (1, 4) else lv for i, lv in enumerate(base.levels)]
    pack = Pack("Twins", levels, dict(base.extra))
    html = write_viewer(pack, tmp_path / "twins.html")
    v = open_page(html, pack)
    v.select(4)
    assert address(v) == "#level=5" and v.text("#level-title") == "twin"
    v.select(3)
    assert address(v) == f"#level={levels[3].id}"
    v.page.go_back()
    v.page.wait_for_function("() => window.llk.state().index === 4")
    assert open_page(html, pack, fragment="#level=2").state()["index"] == 1
    shared = open_page(html, pack, fragment="#level=twin")  # names no one level
    assert shared.state()["index"] == 0 and address(shared) == "#level=twin"


def test_a_pack_without_difficulty_says_so(open_page, tmp_path: Path) -> None:
    old = load_pack(make_demo_pack(tmp_path))  # the metrics old packs have, no difficulty
    v = open_page(write_viewer(old, tmp_path / "old.html"), old)
    assert "no difficulty data" in v.text("#curve")
    options = v.page.eval_on_selector_all("#curve-overlay option", "os => os.map(o => o.value)")
    assert options == ["", "initial_moves", "random_clear_rate", "verify_nodes"]
    # The list still sorts by a metric every level lacks: pack order.
    v.page.click('#level-list th button[data-sort="difficulty"]')
    assert v.page.evaluate("window.llk.listOrder()") == list(range(len(old.levels)))
    # and the game still works
    lv = old.levels[0]
    v.select(0)
    v.play(*lv.solution[0])
    assert v.state()["history"] == [lv.solution[0]]


# -- proofs on the board in play ---------------------------------------------------------------------
def wait_for_verdict(v: Viewer) -> str:
    v.page.wait_for_selector("html[data-analysis='done']", state="attached")
    return v.page.get_attribute("#verdict", "data-verdict")


def test_a_fatal_move_raises_a_dead_board_warning(open_page) -> None:
    v = open_page()
    index = next(i for i, lv in enumerate(v.pack.levels) if lv.id == "trap-4x4")
    lv = v.pack.levels[index]
    v.select(index)
    assert wait_for_verdict(v) == "solvable"  # on the certified solution
    a, b = map(tuple, lv.extra["fatal_move"])
    v.play(a, b)
    after = replay(lv.board, lv.rules, [(a, b)]).final
    assert verify(after, lv.rules).status == "unsolvable"
    assert wait_for_verdict(v) == "dead"
    assert v.text("#verdict").startswith("Dead board")
    assert v.page.is_visible("#verdict")
    v.page.click("#btn-hint")
    assert v.state()["hint"] is None and "No hint" in v.text("#message")
    v.page.click("#btn-undo")
    assert wait_for_verdict(v) == "solvable"


def test_off_the_solution_the_page_searches_and_says_undecided_when_it_cannot_tell(open_page) -> None:
    v = open_page()
    index = next(i for i, lv in enumerate(v.pack.levels) if lv.id == "hard-10x16")
    lv = v.pack.levels[index]
    sol = [(tuple(a), tuple(b)) for a, b in lv.solution]
    v.select(index)
    here = lv.board
    other = next(m for m in removable_pairs(here, lv.rules) if {m.a, m.b} != set(sol[0]))
    v.play(other.a, other.b)
    after = replay(here, lv.rules, [(other.a, other.b)]).final
    verdict = wait_for_verdict(v)
    assert verdict in ("solvable", "dead", "undecided")
    if verdict == "dead":
        assert verify(after, lv.rules).status == "unsolvable"
    # With the budget cut to one board the page cannot tell, and says so.
    v.page.evaluate("window.llk.setBudgets(1, 1)")
    assert wait_for_verdict(v) == "undecided"
    assert v.text("#verdict").startswith("Undecided")
    v.page.click("#btn-hint")
    advice = v.state()["hintAdvice"]
    assert advice["status"] == "move" and advice["label"] in ("safe", "undecided")
    if advice["label"] == "undecided":
        assert "undecided" in v.text("#message")
    else:
        assert replay(after, lv.rules, [advice["move"]] + advice["witness"]).cleared


# -- a phone ----------------------------------------------------------------------------------------
def board_box(v: Viewer) -> dict:
    return v.page.evaluate("""() => {
        const r = document.getElementById('board-wrap').getBoundingClientRect();
        return {top: r.top, bottom: r.bottom, left: r.left, right: r.right}; }""")


def test_on_a_phone_the_board_is_on_the_first_screen(open_page) -> None:
    for index, lv in enumerate(open_page().pack.levels):
        v = open_page(width=390, height=844, fragment=f"#level={lv.id}")
        assert v.state()["index"] == index
        box = board_box(v)
        assert 0 < box["top"] < 844 and box["bottom"] <= 844, (lv.id, box)  # the whole board
        order = v.page.evaluate("""() => ['game', 'levels', 'level-detail'].map(
            id => document.getElementById(id).getBoundingClientRect().top)""")
        assert order[0] < box["top"] < order[2] < order[1]  # the level, its board, its details, the list
    # A pick from the list, down below, brings the board back on screen.
    v.page.locator('#level-list tbody tr[data-index="8"]').scroll_into_view_if_needed()
    assert board_box(v)["top"] < 0
    v.page.click('#level-list tbody tr[data-index="8"]')
    assert v.state()["index"] == 8 and 0 <= board_box(v)["top"] < 844


def test_on_a_desktop_the_list_is_beside_the_board(open_page) -> None:
    v = open_page(width=1280, height=800)
    for index in range(len(v.pack.levels)):
        v.select(index)
        box = board_box(v)
        levels = v.page.evaluate("document.getElementById('levels').getBoundingClientRect().right")
        assert levels < box["left"] and box["right"] <= 1280 and box["top"] < 800, (index, box)
        assert v.page.evaluate("document.documentElement.scrollWidth") <= 1280


def test_the_page_fits_a_phone(open_page) -> None:
    v = open_page(width=390)
    for index in range(len(v.pack.levels)):
        v.select(index)
        sizes = v.page.evaluate("""() => ({doc: document.documentElement.scrollWidth, body: document.body.scrollWidth,
            board: document.getElementById('board-wrap').getBoundingClientRect().right})""")
        assert sizes["doc"] <= 390 and sizes["body"] <= 390, (index, sizes)
        assert sizes["board"] <= 390, (index, sizes)  # the whole board is on screen, 10x16 too
    for sel in ["#btn-undo", "#btn-restart", "#btn-hint", "#btn-play", "#filter-text", "#filter-min",
                "#filter-max", "#curve-overlay"]:
        box = v.page.locator(sel).bounding_box()
        assert box and box["x"] >= 0 and box["x"] + box["width"] <= 390, (sel, box)
        assert box["height"] >= 20, (sel, box)  # big enough to tap
    # Playable there: two taps remove a pair, Hint answers, the filter filters.
    index = next(i for i, lv in enumerate(v.pack.levels) if lv.id == "hard-10x16")
    lv = v.pack.levels[index]
    v.select(index)
    v.play(*lv.solution[0])
    assert v.state()["history"] == [list(map(list, lv.solution[0]))]
    v.page.click("#btn-hint")
    assert "Hint" in v.text("#message")
    v.page.fill("#filter-text", "hard")
    assert v.page.evaluate("window.llk.listOrder()") == [index]
