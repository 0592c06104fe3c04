"""The HTML viewer driven in headless Chromium.

The viewer's script implements the path rule and gravity on its own. These tests prove it
agrees with the Python referee: after every click the page's board, drawn path, tile count
and number of available moves are compared with :func:`llkgen.game.referee.replay` and
:func:`llkgen.game.path.removable_pairs` on the same move list. A fuzz test also compares the
script's rule functions with the Python ones on random boards, under every rule set.

Needs Playwright for Python and Debian's Chromium at /usr/bin/chromium (never
``playwright install``); skipped with a reason when Chromium is missing.
"""

from __future__ import annotations

import random
from dataclasses import replace
from pathlib import Path

import pytest

from llkgen.formats.level import Pack
from llkgen.formats.load import load_pack
from llkgen.game.board import Board, Rules
from llkgen.game.gravity import apply_gravity
from llkgen.game.path import find_path, removable_pairs
from llkgen.game.referee import replay
from llkgen.render import palette
from llkgen.render.html import write_viewer
from llkgen.verifier import Budget, verify

from browser import BROWSER, Viewer, png_pixels
from demo_pack import make_demo_pack
from strategies import drop_odd_tiles
from timing import HANG_SECONDS

pytestmark = BROWSER


# -- fixtures ---------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def pack_and_html(tmp_path_factory: pytest.TempPathFactory) -> tuple[Pack, Path]:
    tmp = tmp_path_factory.mktemp("viewer")
    pack = load_pack(make_demo_pack(tmp))
    return pack, write_viewer(pack, tmp / "viewer.html")


@pytest.fixture
def viewer(browser_context, pack_and_html):
    pack, html = pack_and_html
    v = Viewer.open(browser_context, pack, html.as_uri())
    yield v
    v.close_checked()


def level_index(pack: Pack, pred) -> int:
    return next(i for i, lv in enumerate(pack.levels) if pred(lv))


# -- tests ------------------------------------------------------------------------------------------
def test_level_list_shows_every_level_with_metrics(viewer: Viewer) -> None:
    rows = viewer.page.eval_on_selector_all("#level-list tbody tr", "rs => rs.map(r => r.innerText)")
    assert len(rows) == len(viewer.pack.levels)
    for text, lv in zip(rows, viewer.pack.levels):
        m = lv.extra["metrics"]
        assert lv.id in text
        assert f"{round(m['random_clear_rate'] * 100)}%" in text
        assert str(m["verify_nodes"]) in text and str(m["initial_moves"]) in text
    viewer.select(1)
    assert viewer.text("#level-title") == viewer.pack.levels[1].id
    assert "gravity" in viewer.text("#level-rules") and "verify nodes" in viewer.text("#level-metrics")


@pytest.mark.parametrize("kind", ["plain", "walls", "gravity-down", "gravity-right"])
def test_clicking_the_solution_clears_and_agrees_with_the_referee(viewer: Viewer, kind: str) -> None:
    pack = viewer.pack
    index = {
        "plain": level_index(pack, lambda lv: lv.rules.gravity == "none" and -1 not in lv.board.cells),
        "walls": level_index(pack, lambda lv: lv.rules.gravity == "none" and -1 in lv.board.cells),
        "gravity-down": level_index(pack, lambda lv: lv.rules.gravity == "down"),
        "gravity-right": level_index(pack, lambda lv: lv.rules.gravity == "right"),
    }[kind]
    # One level runs with the real animation so the busy/settle path is exercised too.
    viewer.select(index, anim_ms=120 if kind == "gravity-down" else 0)
    solution = [(tuple(a), tuple(b)) for a, b in pack.levels[index].solution]
    viewer.assert_agrees(index, [])
    for k, (a, b) in enumerate(solution):
        viewer.click(a)
        assert viewer.state()["selected"] == list(a)
        viewer.click(b)
        viewer.assert_agrees(index, solution[: k + 1])
    assert viewer.state()["status"] == "cleared"
    assert viewer.text("#status-banner") == "Cleared!"
    assert viewer.page.get_attribute("#status", "data-state") == "cleared"


def test_random_legal_play_on_gravity_boards_agrees_with_the_referee(viewer: Viewer) -> None:
    rng = random.Random(20240601)
    for index, lv in enumerate(viewer.pack.levels):
        if lv.rules.gravity == "none":
            continue
        viewer.select(index)
        for game in range(3):
            if game:
                viewer.page.click("#btn-restart")
            moves: list = []
            board = lv.board
            while (legal := removable_pairs(board, lv.rules)):
                mv = rng.choice(legal)
                a, b = (mv.b, mv.a) if rng.random() < 0.5 else (mv.a, mv.b)  # either click order
                viewer.play(a, b)
                moves.append((a, b))
                viewer.assert_agrees(index, moves)
                board = replay(lv.board, lv.rules, moves).final
            expected = "cleared" if board.is_cleared() else "stuck"
            assert viewer.state()["status"] == expected
            if expected == "stuck":
                assert "Stuck" in viewer.text("#status-banner")


def test_illegal_picks_are_refused_with_a_reason(viewer: Viewer) -> None:
    found = {"different types": False, "no path with at most two turns": False}
    for index, lv in enumerate(viewer.pack.levels):
        tiles = lv.board.tiles()
        diff = next(((a, b) for a in tiles for b in tiles if lv.board[a] != lv.board[b]), None)
        blocked = next(((a, b) for a in tiles for b in tiles if a < b and lv.board[a] == lv.board[b]
                        and find_path(lv.board, a, b, lv.rules) is None), None)
        viewer.select(index)
        for reason, pair in (("different types", diff), ("no path with at most two turns", blocked)):
            if pair is None:
                continue
            viewer.page.click("#btn-restart")
            viewer.play(*pair)
            assert reason in viewer.text("#message")
            st = viewer.state()
            assert st["grid"] == lv.board.grid() and st["history"] == []
            assert st["selected"] == list(pair[1])
            found[reason] = True
    assert all(found.values()), found


def test_undo_restart_hint_and_play_solution(viewer: Viewer) -> None:
    pack = viewer.pack
    index = level_index(pack, lambda lv: lv.rules.gravity == "down")
    lv = pack.levels[index]
    sol = [(tuple(a), tuple(b)) for a, b in lv.solution]
    viewer.select(index)

    viewer.page.click("#btn-hint")
    assert "certified solution" in viewer.text("#message")
    hinted = viewer.page.eval_on_selector_all("#board .hint", "els => els.map(e => [+e.dataset.r, +e.dataset.c])")
    assert sorted(map(tuple, hinted)) == sorted(sol[0])

    # Follow the solution up to the first board that also offers a move off the certified line.
    k = next(k for k in range(len(sol))
             if len(removable_pairs(replay(lv.board, lv.rules, sol[:k]).final, lv.rules)) > 1)
    for a, b in sol[:k]:
        viewer.play(a, b)
    viewer.page.click("#btn-hint")
    assert f"step {k + 1} of {len(sol)}" in viewer.text("#message")

    # Leave the certified line: Hint then offers a move the page proved safe, with the order
    # that clears the board after it, which the referee accepts; or says the board is dead,
    # which the verifier confirms.
    here = replay(lv.board, lv.rules, sol[:k]).final
    other = next(m for m in removable_pairs(here, lv.rules) if {m.a, m.b} != set(sol[k]))
    viewer.play(other.a, other.b)
    off = sol[:k] + [(other.a, other.b)]
    viewer.assert_agrees(index, off)
    after = replay(lv.board, lv.rules, off).final
    if viewer.state()["status"] == "playing":
        viewer.page.click("#btn-hint")
        msg = viewer.text("#message")
        advice = viewer.state()["hintAdvice"]
        if advice["status"] == "move":
            assert advice["label"] == "safe" and "is safe" in msg
            a, b = advice["move"]
            assert f"({a[0]},{a[1]})" in msg and f"({b[0]},{b[1]})" in msg
            assert replay(after, lv.rules, [advice["move"]] + advice["witness"]).cleared
        else:
            assert advice["status"] == "dead" and "No hint" in msg
            assert verify(after, lv.rules, Budget(nodes=100_000)).status == "unsolvable"

    viewer.page.click("#btn-undo")
    viewer.assert_agrees(index, sol[:k])
    viewer.page.click("#btn-restart")
    viewer.assert_agrees(index, [])

    # Play solution steps through the witness with the real animation and clears the board.
    viewer.page.evaluate("window.llk.setAnimation(40)")
    viewer.page.click("#btn-play")
    viewer.page.wait_for_selector('#status[data-state="cleared"]', state="attached", timeout=HANG_SECONDS * 1000)
    viewer.page.wait_for_function("!window.llk.state().playing")
    viewer.assert_agrees(index, sol)
    assert viewer.text("#status-banner") == "Cleared!"


def test_js_rules_match_python_on_random_boards(viewer: Viewer) -> None:
    """Fuzz: removable pairs with their drawn paths, and gravity, on 300 random boards."""
    rng = random.Random(7)
    cases = []
    for _ in range(300):
        rows, cols = rng.randint(1, 7), rng.randint(1, 7)
        kinds = rng.randint(1, 4)
        cells = [rng.choice([0, 0, -1] + list(range(1, kinds + 1)) * 2) for _ in range(rows * cols)]
        cells = drop_odd_tiles(cells)
        board = Board.checked(rows, cols, cells)
        rules = Rules(border=rng.random() < 0.6, gravity=rng.choice(["none", "down", "up", "left", "right"]))
        cases.append((board, rules))
    got = viewer.page.evaluate(
        """cases => cases.map(([g, r]) => ({
               pairs: window.llk.rules.removablePairs(g, r).map(m => [m.a, m.b, m.path]),
               gravity: window.llk.rules.applyGravity(g, r.gravity)}))""",
        [[b.grid(), {"border": r.border, "gravity": r.gravity}] for b, r in cases])
    for (board, rules), out in zip(cases, got):
        want = [[list(m.a), list(m.b), [list(p) for p in m.path]] for m in removable_pairs(board, rules)]
        assert out["pairs"] == want, (board.grid(), rules)
        assert out["gravity"] == apply_gravity(board, rules.gravity).grid(), (board.grid(), rules)


# -- screenshot -------------------------------------------------------------------------------------
def test_screenshot_shows_a_colourful_board(viewer: Viewer) -> None:
    index = level_index(viewer.pack, lambda lv: len(lv.board.types()) >= 8)
    lv = viewer.pack.levels[index]
    viewer.select(index)
    png = viewer.page.locator("#board-wrap").screenshot()
    width, bpp, rows = png_pixels(png)
    pixels = [row[i:i + 3] for row in rows for i in range(0, width * bpp, bpp)]
    counts: dict[bytes, int] = {}
    for p in pixels:
        counts[p] = counts.get(p, 0) + 1
    assert len(counts) > 30
    assert max(counts.values()) < 0.6 * len(pixels)  # not near-uniform
    # Each tile type's fill colour is actually on screen.
    fills = {bytes.fromhex(palette.tile_colour(k)[1:]) for k in lv.board.types()}
    assert fills <= set(counts), [f.hex() for f in fills - set(counts)]


def test_a_bad_stored_solution_is_flagged_not_trusted(browser_context, pack_and_html, tmp_path: Path) -> None:
    pack, _ = pack_and_html
    lv = pack.levels[0]
    bad = replace(lv, extra={**lv.extra, "solution": [lv.solution[0], lv.solution[0]]})
    html = write_viewer(Pack("bad", [bad]), tmp_path / "bad.html")
    page = browser_context.new_page()
    try:
        page.goto(html.as_uri())
        page.wait_for_selector("html[data-ready='1']", state="attached")
        assert "stored solution step 2 refused" in page.inner_text("#message")
        assert page.evaluate("window.llk.state().solutionError")
        page.click("#btn-hint")  # the page's own search, not the rejected solution
        advice = page.evaluate("window.llk.state().hintAdvice")
        assert advice["status"] == "move" and advice["label"] == "safe", advice
        assert "is safe" in page.inner_text("#message")
        assert replay(lv.board, lv.rules, [advice["move"]] + advice["witness"]).cleared
    finally:
        page.close()
