#!/usr/bin/env python3
"""Make the README's pictures from packs made by ``llkgen make``: docs/img/viewer.png and docs/img/sample.svg.

    python scripts/screenshot_viewer.py                   # both, from the shipped specs
    python scripts/screenshot_viewer.py PACK.json --level 2 --moves 5

Everything goes through the real command line, as a user would run it, in a temporary directory:

* ``viewer.png``: ``llkgen make --config configs/medium.yaml`` (its 12 levels, each measured
  with the model players, so the list shows tiers and the curve error bars; or the given PACK),
  then ``llkgen view``; the page is opened in headless Chromium, level ``--level`` is selected,
  ``--moves`` moves of its certified solution are clicked, and the next move's two tiles are
  clicked with the removal animation held, so the shot shows a game in progress with its path.
* ``sample.svg``: ``llkgen make --config configs/viewer-demo.yaml --count 1`` (a 6 x 8 board
  with walls and gravity), then ``llkgen render --solution``; its one solution strip is copied.
  A small board on purpose: the strip draws the board once per step, so a 10 x 12 level's
  strip is over half a megabyte.

Needs Playwright for Python and Debian's Chromium at /usr/bin/chromium (never
``playwright install``). The pack is deterministic (fixed spec seeds), so rerunning the script
changes the PNG only if the viewer's look or the generator changed.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from llkgen.formats.load import load_pack  # noqa: E402

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]
WIDTH = 1280  # wide enough for the level list beside a 10 x 12 board with its ring
MAX_PNG, MAX_SVG = 150_000, 300_000  # bytes; the README should stay light


def llkgen(*args: str, cwd: Path) -> str:
    """Run ``python -m llkgen ARGS`` in ``cwd``; exit with its message if it fails."""
    proc = subprocess.run([sys.executable, "-m", "llkgen", *args], cwd=cwd, capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})
    if proc.returncode:
        sys.exit(f"llkgen {' '.join(args)} failed (exit {proc.returncode}):\n{proc.stdout}{proc.stderr}")
    return proc.stdout


def make_pack(config: Path, count: int | None, out: Path) -> Path:
    """``llkgen make`` with ``config``: ``count`` levels, or as many as the spec says."""
    extra = ["--count", str(count)] if count is not None else []
    llkgen("make", "--config", str(config), *extra, "--out", str(out), "--jobs", "1", cwd=out.parent)
    return out


def write_sample_svg(config: Path, level: int, tmp: Path, dest: Path) -> Path:
    pack_path = make_pack(config, level, tmp / "sample.json")
    llkgen("render", str(pack_path), "--out", str(tmp / "sample-svg"), "--solution", cwd=tmp)
    lv = load_pack(pack_path).levels[level - 1]
    shutil.copyfile(tmp / "sample-svg" / f"{lv.id}.solution.svg", dest)
    return dest


def screenshot_viewer(pack_path: Path, index: int, moves: int, tmp: Path, dest: Path) -> Path:
    from playwright.sync_api import sync_playwright

    level = load_pack(pack_path).levels[index]
    solution = level.solution or []
    html = tmp / "viewer.html"
    llkgen("view", str(pack_path), "--out", str(html), cwd=tmp)
    with sync_playwright() as pw:
        ctx = pw.chromium.launch_persistent_context(
            str(tmp / "profile"), executable_path=CHROMIUM, args=CHROMIUM_ARGS,
            headless=True, viewport={"width": WIDTH, "height": 1000}, device_scale_factor=1)
        page = ctx.new_page()
        page.goto(html.as_uri())
        page.wait_for_selector("html[data-ready='1']", state="attached")
        page.click(f'#level-list tbody tr[data-index="{index}"]')  # as a user picks a level
        page.evaluate("window.llk.setAnimation(0)")
        for a, b in solution[:moves]:
            for r, c in (a, b):
                page.click(f'#board [data-r="{r}"][data-c="{c}"]')
        # The next move is clicked with the removal animation held, so its two tiles are still
        # on the board, joined by the drawn path.
        page.evaluate("window.llk.setAnimation(60000)")
        for r, c in solution[moves: moves + 1][0] if len(solution) > moves else []:
            page.click(f'#board [data-r="{r}"][data-c="{c}"]')
        state = page.evaluate("window.llk.state()")
        if state["index"] != index or len(state["history"]) != min(moves + 1, len(solution)):
            sys.exit(f"the viewer did not play the moves: {state}")
        page.mouse.move(0, 0)
        height = page.evaluate("Math.ceil(document.querySelector('main').getBoundingClientRect().bottom) + 8")
        page.screenshot(path=str(dest), clip={"x": 0, "y": 0, "width": WIDTH, "height": min(1000, height)})
        ctx.close()
    return dest


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("pack", nargs="?", type=Path, help="pack JSON for the screenshot (default: made from --config)")
    ap.add_argument("--config", type=Path, default=ROOT / "configs" / "medium.yaml",
                    help="spec the screenshot's pack is made from (default: configs/medium.yaml)")
    ap.add_argument("--count", type=int, default=None, help="levels in that pack (default: the spec's count)")
    ap.add_argument("--level", type=int, default=2, help="1-based level shown in the screenshot (default 2)")
    ap.add_argument("--moves", type=int, default=6, help="solution moves played before the shot (default 6)")
    ap.add_argument("--sample-config", type=Path, default=ROOT / "configs" / "viewer-demo.yaml",
                    help="spec the sample SVG's level is made from (default: configs/viewer-demo.yaml)")
    ap.add_argument("--out-dir", type=Path, default=ROOT / "docs" / "img")
    args = ap.parse_args(argv)

    args.out_dir.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmpdir:
        tmp = Path(tmpdir)
        pack_path = (args.pack.resolve() if args.pack
                     else make_pack(args.config.resolve(), args.count, tmp / "pack.json"))
        n = len(load_pack(pack_path).levels)
        if not 1 <= args.level <= n:
            sys.exit(f"--level {args.level}: the pack has levels 1..{n}")
        png = screenshot_viewer(pack_path, args.level - 1, args.moves, tmp, args.out_dir / "viewer.png")
        svg = write_sample_svg(args.sample_config.resolve(), 1, tmp, args.out_dir / "sample.svg")
    for path, limit in ((png, MAX_PNG), (svg, MAX_SVG)):
        size = path.stat().st_size
        note = "" if size <= limit else f"  WARNING: over {limit:,} bytes, too heavy for the README"
        print(f"wrote {path} ({size:,} bytes){note}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
