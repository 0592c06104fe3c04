"""The viewer and the SVG renderer on packs made by the real ``llkgen make``, as a user runs them.

tests/render/test_viewer_browser.py proves the page's rules agree with the referee on a hand-made
pack. Here nothing is hand-made: the shipped gravity and shapes specs and
configs/viewer-demo.yaml (walls *and* gravity) go through ``llkgen make``, ``llkgen view`` and
``llkgen render`` as subprocesses in a temporary directory, and the page is then played by
clicking every level's stored certified solution, comparing the page's board with
:func:`llkgen.game.referee.replay` after every pair. So a change in what the generator writes
(key order, metrics, solution format, id scheme, grid sizes) that the viewer cannot take
shows up here even when the hand-made pack still works.

Needs Playwright for Python and Debian's Chromium at /usr/bin/chromium (never
``playwright install``); skipped with a reason when Chromium is missing.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from llkgen.analysis.ladder import STRENGTH, TIERS, profile
from llkgen.formats.level import Pack
from llkgen.formats.load import load_pack
from llkgen.game.board import WALL
from llkgen.game.path import find_path, removable_pairs
from llkgen.game.referee import replay
from llkgen.render import palette

from browser import BROWSER, Viewer, png_pixels
from paths import ROOT
from timing import HANG_SECONDS

SVG = "{http://www.w3.org/2000/svg}"

pytestmark = BROWSER

# pack name -> (spec, extra `make` arguments). Small counts keep the run short: each gravity
# level is a full 8 x 12 board (48 moves), each shapes level 28 moves, each demo level 20.
PACKS: dict[str, tuple[str, list[str]]] = {
    "gravity": ("configs/gravity.yaml", ["--count", "2"]),  # gravity down, no walls
    "shapes": ("configs/shapes.yaml", ["--count", "2"]),  # walls and empty cells, no gravity
    "viewer-demo": ("configs/viewer-demo.yaml", []),  # walls and gravity down, 3 levels
}
# (pack, 0-based level) pairs whose full solution is clicked through.
PLAYED = [("gravity", 0), ("shapes", 1), ("viewer-demo", 0), ("viewer-demo", 2)]


def _llkgen_command() -> list[str]:
    """The installed ``llkgen`` console script next to this interpreter, as a user types it;
    ``python -m llkgen`` when the environment has no script (e.g. a bare checkout)."""
    script = Path(sys.executable).parent / ("llkgen.exe" if os.name == "nt" else "llkgen")
    if script.exists():
        return [str(script)]
    return [shutil.which("llkgen")] if shutil.which("llkgen") else [sys.executable, "-m", "llkgen"]


def run_all(commands: list[list[str]], cwd: Path) -> list[subprocess.CompletedProcess]:
    """Run ``llkgen`` with each argument list, concurrently (they are independent), and
    return the finished processes in order. Fails the test on any non-zero exit."""
    env = {**os.environ, "PYTHONHASHSEED": "0"}
    procs = [subprocess.Popen(_llkgen_command() + args, cwd=cwd, env=env, text=True,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE) for args in commands]
    done = []
    for args, p in zip(commands, procs):
        out, err = p.communicate(timeout=HANG_SECONDS)
        assert p.returncode == 0, f"llkgen {' '.join(args)} exited {p.returncode}:\n{out}\n{err}"
        done.append(subprocess.CompletedProcess(args, p.returncode, out, err))
    return done


# -- fixtures ---------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def work(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A directory holding, per pack name, ``NAME.json`` (made by ``llkgen make``) and
    ``NAME.html`` (made by ``llkgen view``)."""
    tmp = tmp_path_factory.mktemp("generated")
    made = run_all([["make", "--config", str(ROOT / spec), "--out", f"{name}.json", "--jobs", "1", *extra]
                    for name, (spec, extra) in PACKS.items()], tmp)
    for name, proc in zip(PACKS, made):
        n = len(load_pack(tmp / f"{name}.json").levels)
        assert f"wrote {n} certified level" in proc.stdout, proc.stdout
    viewed = run_all([["view", f"{name}.json", "--out", f"{name}.html"] for name in PACKS], tmp)
    for name, proc in zip(PACKS, viewed):
        assert (tmp / f"{name}.html").is_file() and "viewer written to" in proc.stdout
    return tmp


@pytest.fixture(scope="module")
def packs(work: Path) -> dict[str, Pack]:
    return {name: load_pack(work / f"{name}.json") for name in PACKS}


@pytest.fixture
def open_viewer(browser_context, work: Path, packs: dict[str, Pack]):
    """``open_viewer(name)`` opens ``NAME.html`` in a new page; on teardown, the page must have
    logged no script error and requested nothing but the file itself."""
    opened: list[Viewer] = []

    def open_(name: str) -> Viewer:
        v = Viewer.open(browser_context, packs[name], (work / f"{name}.html").as_uri())
        opened.append(v)
        return v

    yield open_
    for v in opened:
        v.close_checked()


class Player:
    """Clicks cells with the real mouse at their on-screen centres, measured once per level.

    ``Viewer.click`` goes through Playwright's element actionability checks, about 0.1 s a
    click on a busy machine; a trusted mouse click at a fixed point costs a quarter of that and
    still goes through the browser's hit testing, so a tile hidden under the path overlay or
    scrolled out of view would be missed exactly as a player would miss it. The board's cells
    never move (only their contents do), so the centres stay valid for the whole level."""

    def __init__(self, viewer: Viewer, index: int, anim_ms: int = 0) -> None:
        self.v = viewer
        self.index = index
        self.anim_ms = anim_ms
        viewer.select(index, anim_ms=anim_ms)
        viewer.page.locator("#board").scroll_into_view_if_needed()
        self.centres = {tuple(map(int, k.split(","))): xy for k, xy in viewer.page.evaluate(
            """() => Object.fromEntries([...document.querySelectorAll('#board [data-r]')].map(e => {
                   const b = e.getBoundingClientRect();
                   return [e.dataset.r + ',' + e.dataset.c, [b.x + b.width / 2, b.y + b.height / 2]]; }))""").items()}
        lv = viewer.pack.levels[index]
        inside = {(r, c) for r in range(lv.board.rows) for c in range(lv.board.cols)}
        assert inside <= set(self.centres)  # the ring's cells are drawn too when border is on
        width, height = viewer.page.viewport_size["width"], viewer.page.viewport_size["height"]
        assert all(0 < x < width and 0 < y < height for x, y in self.centres.values())

    def click(self, cell, settle: bool = False) -> None:
        """Click ``cell``; with ``settle``, wait until a removal's animation has finished
        (only a pair's second click can start one)."""
        self.v.page.mouse.click(*self.centres[tuple(cell)])
        if settle and self.anim_ms:
            self.v.page.wait_for_selector('#board[data-busy="0"]', state="attached")

    def play(self, a, b) -> None:
        self.click(a)
        self.click(b, settle=True)

    def assert_agrees(self, moves: list) -> None:
        """:meth:`Viewer.assert_agrees` in one round trip to the page instead of three (the
        same comparisons: grid, history, drawn path, tile and move counts, the board's DOM,
        the status attribute), since it runs after every one of
        the hundred-odd moves clicked here."""
        v, lv = self.v, self.v.pack.levels[self.index]
        res = replay(lv.board, lv.rules, moves)
        assert res.ok, res.describe()
        got = v.page.evaluate("""() => ({
            st: window.llk.state(),
            dom: [...document.querySelectorAll('#board [data-v]')].map(e => [+e.dataset.r, +e.dataset.c, +e.dataset.v]),
            tiles: document.getElementById('status').getAttribute('data-tiles')})""")
        st = got["st"]
        assert st["index"] == self.index
        assert st["grid"] == res.final.grid(), f"after {moves}"
        assert st["history"] == [[list(a), list(b)] for a, b in moves]
        if moves:
            assert st["lastPath"] == [list(p) for p in res.paths[-1]]
        assert st["tiles"] == res.final.tile_count
        assert st["moves"] == len(removable_pairs(res.final, lv.rules))
        assert {(r, c): x for r, c, x in got["dom"]} == {
            (r, c): res.final[r, c] for r in range(lv.board.rows) for c in range(lv.board.cols)}
        assert got["tiles"] == str(res.final.tile_count)


# -- tests ------------------------------------------------------------------------------------------
def test_the_played_levels_cover_gravity_and_walls(packs: dict[str, Pack]) -> None:
    played = [packs[name].levels[i] for name, i in PLAYED]
    assert len(played) >= 3
    assert any(lv.rules.gravity != "none" for lv in played)
    assert any(WALL in lv.board.cells for lv in played)
    assert any(lv.rules.gravity != "none" and WALL in lv.board.cells for lv in played)
    for lv in played:  # what `make` stored is a certified, referee-clean solution
        assert lv.extra["certificate"]["verdict"] == "solvable"
        assert replay(lv.board, lv.rules, lv.solution).cleared


def test_the_level_list_shows_the_generated_pack(open_viewer, packs: dict[str, Pack]) -> None:
    for name, pack in packs.items():
        v = open_viewer(name)
        rows = v.page.eval_on_selector_all("#level-list tbody tr", "rs => rs.map(r => r.innerText)")
        assert len(rows) == len(pack.levels)
        for text, lv in zip(rows, pack.levels):
            assert lv.id in text and str(lv.extra["metrics"]["verify_nodes"]) in text
        assert v.text("#pack-name") == pack.name
        assert v.state()["index"] == 0 and v.text("#level-title") == pack.levels[0].id


#: Metrics older packs carry and `make` no longer writes.
OLD_METRICS = ("fatal_share", "trap_steps", "choices", "link_turns", "unknown_share")


def test_the_list_has_no_column_the_generated_pack_lacks(open_viewer, packs: dict[str, Pack]) -> None:
    for name, pack in packs.items():
        assert not any(k in (lv.extra.get("metrics") or {}) for lv in pack.levels for k in OLD_METRICS)
        v = open_viewer(name)
        heads = v.page.eval_on_selector_all("#level-list thead th", "ts => ts.map(t => t.dataset.col)")
        rows = v.page.eval_on_selector_all("#level-list tbody tr",
                                           "rs => rs.map(r => [...r.cells].map(c => c.innerText))")
        assert not set(OLD_METRICS) & set(heads), heads
        assert all(len(r) == len(heads) for r in rows)
        for j, key in enumerate(heads):  # every column shown says something about some level
            assert key == "preview" or any(r[j] != "\u2013" for r in rows), (name, key)
        options = v.page.eval_on_selector_all("#curve-overlay option", "os => os.map(o => o.value)")
        assert not set(OLD_METRICS) & set(options), options
        # `make` measures every level with the model players: the tier column is there and
        # sorts up the ladder (random first, hint last).
        tiers = [lv.extra["players"]["tier"] for lv in pack.levels]
        assert heads[heads.index("difficulty") + 1] == "tier"
        v.page.click('#level-list th button[data-sort="tier"]')
        assert v.page.evaluate("window.llk.listOrder()") == sorted(
            range(len(tiers)), key=lambda i: (TIERS.index(tiers[i]), i))


@pytest.mark.parametrize(("name", "index"), PLAYED, ids=[f"{n}-{i + 1}" for n, i in PLAYED])
def test_clicking_the_certified_solution_clears_the_level(open_viewer, name: str, index: int) -> None:
    v = open_viewer(name)
    # One level with walls and gravity starts with a short real animation, so its first moves
    # wait for the board to settle the way a player's would; the rest skip it (it costs about
    # 0.15 s a move here).
    animated = (name, index) == ("viewer-demo", 0)
    player = Player(v, index, anim_ms=30 if animated else 0)
    lv = v.pack.levels[index]
    solution = [(tuple(a), tuple(b)) for a, b in lv.solution]
    v.assert_agrees(index, [])  # the full three-call check once, the fast one after each move
    for k, (a, b) in enumerate(solution):
        player.click(a)
        if k < 3:
            assert v.state()["selected"] == list(a)
        player.click(b, settle=True)
        player.assert_agrees(solution[: k + 1])
        if animated and k == 5:
            v.page.evaluate("window.llk.setAnimation(0)")
            player.anim_ms = 0
    v.assert_agrees(index, solution)
    assert v.state()["status"] == "cleared"
    assert v.text("#status-banner") == "Cleared!"
    assert v.page.get_attribute("#status", "data-state") == "cleared"
    assert v.page.get_attribute("#status", "data-tiles") == "0"


def test_illegal_picks_are_refused(open_viewer, packs: dict[str, Pack]) -> None:
    found = {"different types": 0, "no path with at most two turns": 0}
    for name, pack in packs.items():
        v = open_viewer(name)
        for index, lv in enumerate(pack.levels[:1]):
            tiles = lv.board.tiles()
            diff = next(((a, b) for a in tiles for b in tiles if lv.board[a] != lv.board[b]), None)
            blocked = next(((a, b) for a in tiles for b in tiles if a < b and lv.board[a] == lv.board[b]
                            and find_path(lv.board, a, b, lv.rules) is None), None)
            player = Player(v, index)
            for reason, pair in (("different types", diff), ("no path with at most two turns", blocked)):
                if pair is None:
                    continue
                v.page.click("#btn-restart")
                player.play(*pair)
                assert f"Refused: {reason}." == v.text("#message")
                st = v.state()
                assert st["grid"] == lv.board.grid() and st["history"] == []
                assert st["selected"] == list(pair[1]) and st["status"] == "playing"
                v.assert_agrees(index, [])
                found[reason] += 1
    assert all(found.values()), found


def test_screenshot_of_a_generated_level_is_not_blank(open_viewer, packs: dict[str, Pack]) -> None:
    v = open_viewer("shapes")
    lv = packs["shapes"].levels[0]
    v.select(0)
    width, bpp, rows = png_pixels(v.page.locator("#board-wrap").screenshot())
    counts: dict[bytes, int] = {}
    for row in rows:
        for i in range(0, width * bpp, bpp):
            counts[row[i:i + 3]] = counts.get(row[i:i + 3], 0) + 1
    total = sum(counts.values())
    assert len(counts) > 30
    assert max(counts.values()) < 0.6 * total  # not near-uniform
    fills = {bytes.fromhex(palette.tile_colour(k)[1:]) for k in lv.board.types()}
    assert fills <= set(counts), [f.hex() for f in fills - set(counts)]
    # The whole page too: a real document, not an error page.
    full = v.page.screenshot(full_page=True)
    assert len(full) > 10_000


def test_render_writes_well_formed_deterministic_svgs(work: Path, packs: dict[str, Pack]) -> None:
    # The 8 x 12 gravity pack adds nothing the demo pack (gravity and walls) does not, and its
    # 48-step solution strips are the slowest to write, so it is left out.
    names = ["shapes", "viewer-demo"]
    run_all([["render", f"{name}.json", "--out", f"svg-{run}/{name}", "--solution"]
             for run in (1, 2) for name in names]
            + [["render", "viewer-demo.json", "--out", "svg-plain"]], work)
    plain = sorted((work / "svg-plain").iterdir())
    assert [p.name for p in plain] == sorted(f"{lv.id}.svg" for lv in packs["viewer-demo"].levels)
    for name in names:
        pack = packs[name]
        written = sorted((work / "svg-1" / name).iterdir())
        # --solution writes the plain previews and, in addition, the solution previews
        assert [p.name for p in written] == sorted(
            [f"{lv.id}.solution.svg" for lv in pack.levels] + [f"{lv.id}.svg" for lv in pack.levels])
        first = [p for p in written if p.name.endswith(".solution.svg")]
        by_id = {lv.id: lv for lv in pack.levels}
        for path in first + (plain if name == "viewer-demo" else []):
            data = path.read_bytes()
            root = ET.fromstring(data)  # well-formed XML, or this raises
            assert root.tag == SVG + "svg"
            lv = by_id[path.name.split(".")[0]]
            tiles = [e for e in root.iter() if (e.get("class") or "").split() == ["tile"]]
            assert len(tiles) == lv.board.tile_count
            steps = [e for e in root.iter() if "step" in (e.get("class") or "").split()]
            if path.parent.name == "svg-plain":
                assert not steps
            else:
                assert len(steps) == len(lv.solution)
                assert data == (work / "svg-2" / name / path.name).read_bytes()


# -- the difficulty fields `make` is gaining --------------------------------------------------------
MODELS = ("random", "nearest", "lookahead", "careful", "deep")
#: Per level of the viewer-demo pack: (difficulty, its standard error, tier, clear rates as
#: (rate, se) in MODELS order). The second level has no standard error and no players.
NEW_FIELDS = [
    (41.2, 1.3, "careful", [(0.61, 0.03), (0.25, 0.04), (0.47, 0.05), (0.84, 0.02), (0.9, 0.015)]),
    (55.0, None, None, None),
    (73.5, 2.4, "hint", [(0.0, 0.0), (0.12, 0.02), (0.3, 0.04), (0.41, 0.05), (0.52, 0.006)]),
]


def with_new_fields(data: dict) -> dict:
    """A copy of a pack's JSON with ``metrics.difficulty``, ``difficulty_se`` and ``pairs`` and
    the top-level ``players`` set from :data:`NEW_FIELDS` (whatever ``make`` wrote there), and a
    metric of a name the page does not know."""
    data = json.loads(json.dumps(data))
    for lv, (diff, se, tier, rates) in zip(data["levels"], NEW_FIELDS, strict=True):
        m = lv.setdefault("metrics", {})
        m["difficulty"] = diff
        m.pop("difficulty_se", None)
        if se is not None:
            m["difficulty_se"] = se
        m["pairs"] = sum(v > 0 for row in lv["grid"] for v in row) // 2
        m["made_up_score"] = 2.5  # a metric the page has no name for is shown under its key
        lv.pop("players", None)
        if tier is not None:
            lv["players"] = {"tier": tier, "clear_rates": {
                name: {"rate": r, "se": e, "runs": 256} for name, (r, e) in zip(MODELS, rates)}}
    return data


def without_new_fields(data: dict) -> dict:
    """A copy of a pack's JSON as packs were before: no ``difficulty_se``, ``pairs`` or ``players``."""
    data = json.loads(json.dumps(data))
    for lv in data["levels"]:
        lv.pop("players", None)
        for k in ("difficulty_se", "pairs", "made_up_score"):
            lv.get("metrics", {}).pop(k, None)
    return data


@pytest.fixture(scope="module")
def formats(work: Path) -> dict[str, dict]:
    """``new-format`` and ``old-format``: the viewer-demo pack with and without the new fields,
    as JSON files next to their pages (made by ``llkgen view``)."""
    demo = json.loads((work / "viewer-demo.json").read_text(encoding="utf-8"))
    made = {"new-format": with_new_fields(demo), "old-format": without_new_fields(demo)}
    for name, data in made.items():
        (work / f"{name}.json").write_text(json.dumps(data), encoding="utf-8")
    run_all([["view", f"{name}.json", "--out", f"{name}.html"] for name in made], work)
    return made


def open_format(open_viewer, packs: dict[str, Pack], work: Path, name: str) -> Viewer:
    packs[name] = load_pack(work / f"{name}.json")  # open_viewer looks the pack up by name
    return open_viewer(name)


def test_the_detail_pane_shows_difficulty_tier_and_clear_rates(open_viewer, packs, work, formats) -> None:
    v = open_format(open_viewer, packs, work, "new-format")
    embedded = v.page.evaluate("JSON.parse(document.getElementById('llk-data').textContent).pack.levels")
    assert [lv.get("players") for lv in embedded] == [lv.get("players") for lv in formats["new-format"]["levels"]]
    for index, (diff, se, tier, rates) in enumerate(NEW_FIELDS):
        v.select(index)
        pairs = formats["new-format"]["levels"][index]["metrics"]["pairs"]
        want = f"difficulty {diff:.1f}" + (f" \u00b1 {se:.1f}" if se is not None else "")
        assert v.text("#level-difficulty") == want + (f" \u00b7 tier {tier}" if tier else "")
        assert f"pairs {pairs}" in v.text("#level-more") and "made up score 2.5" in v.text("#level-more")
        chips = v.page.eval_on_selector_all("#level-players li", """ls => ls.map(l => ({
            name: l.dataset.player, text: l.innerText.replace(/\\s+/g, ' '), tier: l.classList.contains('tier'),
            broken: l.classList.contains('break'),
            fill: l.querySelector('.p-fill').style.width, band: l.querySelector('.p-se').style.width}))""")
        if rates is None:
            assert chips == [] and not v.page.is_visible("#level-players")
            continue
        assert v.page.is_visible("#level-players")
        # Weak to strong by measured strength, as llkgen grade shows them; a model that fails
        # where a weaker one clears reliably is marked, and the profile says which.
        assert [c["name"] for c in chips] == list(STRENGTH)
        by_name = dict(zip(MODELS, rates))
        prof = profile({m: r for m, (r, _) in by_name.items()})
        assert [c["name"] for c in chips if c["broken"]] == list(dict.fromkeys(s for _, s in prof.breaks))
        line = v.text("#level-profile")
        assert line.endswith(f"tier in strength order {prof.ordered_tier}")
        assert line.startswith("monotone") == prof.monotone
        for weak, strong in prof.breaks:
            assert f"{strong} {round(by_name[strong][0] * 100)}% is not reliable where weaker" in line
            assert weak in line.split(f"{strong} ", 1)[1].split(";")[0]
        for c in chips:
            r, e = by_name[c["name"]]
            e_text = f"{e * 100:.1f}" if 0 < e < 0.01 else f"{round(e * 100)}"
            assert c["text"] == f"{c['name']} {round(r * 100)} \u00b1 {e_text}%", c
            assert float(c["fill"].rstrip("%")) == pytest.approx(100 * r, abs=0.05)
            assert float(c["band"].rstrip("%")) == pytest.approx(100 * (min(1, r + e) - max(0, r - e)), abs=0.1)
            assert c["tier"] == (c["name"] == tier)
        label = v.text("#level-players .players-label")
        assert ("none is reliable" in label) == (tier == "hint")
    # The whole pane, as a reader sees it.
    v.select(0)
    pane = v.text("#game")
    assert "difficulty 41.2 \u00b1 1.3" in pane and "tier careful" in pane and "84 \u00b1 2%" in pane


def test_the_list_has_a_tier_column_and_the_curve_error_bars(open_viewer, packs, work, formats) -> None:
    v = open_format(open_viewer, packs, work, "new-format")
    heads = v.page.eval_on_selector_all("#level-list thead th", "ts => ts.map(t => t.dataset.col)")
    assert heads[heads.index("difficulty") + 1] == "tier"
    col = heads.index("tier")
    cells = v.page.eval_on_selector_all("#level-list tbody tr", f"rs => rs.map(r => r.cells[{col}].innerText)")
    assert cells == [t or "\u2013" for _, _, t, _ in NEW_FIELDS]
    v.page.click('#level-list th button[data-sort="difficulty"]')  # sorting moves the tier cells along
    v.page.click('#level-list th button[data-sort="difficulty"]')
    cells = v.page.eval_on_selector_all("#level-list tbody tr", f"rs => rs.map(r => r.cells[{col}].innerText)")
    assert cells == ["hint", "\u2013", "careful"]
    bars = v.page.get_attribute('#curve g[data-metric="difficulty_se"] path', "d")
    assert bars.count("V") == 2  # the levels with a standard error


def test_an_old_pack_has_no_tier_column_and_no_players(open_viewer, packs, work, formats) -> None:
    v = open_format(open_viewer, packs, work, "old-format")
    assert v.page.locator('#level-list th[data-col="tier"]').count() == 0
    assert v.page.locator('#curve g[data-metric="difficulty_se"]').count() == 0
    for index, lv in enumerate(formats["old-format"]["levels"]):
        v.select(index)
        assert not v.page.is_visible("#level-players")
        d = lv.get("metrics", {}).get("difficulty")
        assert v.text("#level-difficulty") == (f"difficulty {d:.1f}" if d is not None else "")
        assert "\u00b1" not in v.text("#level-difficulty") and "tier" not in v.text("#game")
        assert "verify nodes" in v.text("#level-metrics")
    # and it still plays
    lv = v.pack.levels[0]
    v.select(0)
    v.play(*lv.solution[0])
    assert v.state()["history"] == [[list(p) for p in lv.solution[0]]]
