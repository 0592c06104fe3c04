#!/usr/bin/env python3
"""Render a pack's HTML viewer to ``docs/img/viewer.png`` and one level to
``docs/img/sample.svg`` (with its solution strip), for the README.

    python scripts/screenshot_viewer.py [PACK.json] [--level N] [--out-dir docs/img]

Without a pack it uses the demo pack of the render tests. Needs Playwright for Python and
Debian's Chromium at /usr/bin/chromium (no ``playwright install``). The page is driven a
little (a few moves and a selected tile) so the screenshot shows play, not just a board.
"""

from __future__ import annotations

import argparse
import importlib.util
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from llkgen.level import load_pack  # noqa: E402
from llkgen.render.html import write_viewer  # noqa: E402
from llkgen.render.svg import render_level_svg  # noqa: E402

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]


def demo_pack(tmp: Path) -> Path:
    spec = importlib.util.spec_from_file_location("conftest_browser", ROOT / "tests" / "conftest_browser.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod.make_demo_pack(tmp)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("pack", nargs="?", type=Path, help="pack JSON (default: the test demo pack)")
    ap.add_argument("--level", type=int, default=None,
                    help="1-based level to show (default: the first with gravity, else 1)")
    ap.add_argument("--moves", type=int, default=3, help="solution moves to play before the shot")
    ap.add_argument("--out-dir", type=Path, default=ROOT / "docs" / "img")
    args = ap.parse_args(argv)

    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory() as tmpdir:
        tmp = Path(tmpdir)
        pack_path = args.pack or demo_pack(tmp)
        pack = load_pack(pack_path)
        if args.level is None:
            idx = next((i for i, lv in enumerate(pack.levels) if lv.rules.gravity != "none"), 0)
        else:
            idx = args.level - 1
        level = pack.levels[idx]
        args.out_dir.mkdir(parents=True, exist_ok=True)
        (args.out_dir / "sample.svg").write_text(render_level_svg(level, solution=True), encoding="utf-8")

        html = write_viewer(pack, tmp / "viewer.html")
        with sync_playwright() as pw:
            ctx = pw.chromium.launch_persistent_context(
                str(tmp / "profile"), executable_path=CHROMIUM, args=CHROMIUM_ARGS,
                headless=True, viewport={"width": 1180, "height": 900}, device_scale_factor=1)
            page = ctx.new_page()
            page.goto(html.as_uri())
            page.wait_for_selector("html[data-ready='1']")
            page.evaluate(f"window.llk.select({idx})")
            page.evaluate("window.llk.setAnimation(0)")
            for a, b in (level.solution or [])[: args.moves]:
                for r, c in (a, b):
                    page.click(f'#board [data-r="{r}"][data-c="{c}"]')
            # Leave the next solution move visible: its pair drawn with the path overlay.
            page.evaluate("window.llk.setAnimation(60000)")
            nxt = (level.solution or [])[args.moves: args.moves + 1]
            if nxt:
                for r, c in nxt[0]:
                    page.click(f'#board [data-r="{r}"][data-c="{c}"]')
            page.mouse.move(0, 0)
            out = args.out_dir / "viewer.png"
            height = page.evaluate("Math.ceil(document.querySelector('main').getBoundingClientRect().bottom) + 8")
            page.screenshot(path=str(out), clip={"x": 0, "y": 0, "width": 1180, "height": min(900, height)})
            ctx.close()
    print(f"wrote {out} ({out.stat().st_size} bytes) and {args.out_dir / 'sample.svg'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
