"""Driving the HTML viewer in headless Chromium: shared by the browser tests.

Needs Playwright for Python and Debian's Chromium at /usr/bin/chromium (never
``playwright install``). Test modules that use it set ``pytestmark = BROWSER`` so that they are
skipped, with the reason, when Chromium is missing; the ``browser_context`` fixture lives in
conftest.py.
"""

from __future__ import annotations

import struct
import zlib
from pathlib import Path

import pytest

from llkgen.formats.level import Pack
from llkgen.game.path import removable_pairs
from llkgen.game.referee import replay

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]

BROWSER = [
    pytest.mark.browser,
    pytest.mark.skipif(not Path(CHROMIUM).exists(), reason=f"Chromium not installed at {CHROMIUM}"),
]


class Viewer:
    """A page showing the viewer, with the helpers the tests share."""

    def __init__(self, page, pack: Pack) -> None:
        self.page = page
        self.pack = pack
        self.errors: list[str] = []
        self.requests: list[str] = []
        page.on("pageerror", lambda e: self.errors.append(str(e)))
        page.on("console", lambda m: m.type == "error" and self.errors.append(m.text))
        page.on("request", lambda r: self.requests.append(r.url))

    @classmethod
    def open(cls, context, pack: Pack, url: str, viewport: dict | None = None) -> "Viewer":
        """A new page of ``context`` showing ``url`` (``pack``'s viewer), once the page says it
        is ready; script errors and requests are recorded from before it loads."""
        page = context.new_page()
        if viewport:
            page.set_viewport_size(viewport)
        v = cls(page, pack)
        page.goto(url)
        page.wait_for_selector("html[data-ready='1']", state="attached")
        return v

    def close_checked(self) -> None:
        """Close the page; it must have logged no script error and requested nothing but
        the file itself."""
        self.page.close()
        assert not self.errors, self.errors
        assert all(u.startswith("file://") for u in self.requests), self.requests

    def select(self, index: int, anim_ms: int = 0) -> None:
        self.page.click(f'#level-list tbody tr[data-index="{index}"]')
        self.page.evaluate("ms => window.llk.setAnimation(ms)", anim_ms)
        assert self.state()["index"] == index

    def state(self) -> dict:
        return self.page.evaluate("window.llk.state()")

    def click(self, cell) -> None:
        r, c = cell
        self.page.click(f'#board [data-r="{r}"][data-c="{c}"]')
        self.page.wait_for_selector('#board[data-busy="0"]', state="attached")

    def play(self, a, b) -> None:
        self.click(a)
        self.click(b)

    def text(self, selector: str) -> str:
        return self.page.inner_text(selector)

    def assert_agrees(self, index: int, moves: list) -> None:
        """The page's board after ``moves`` is the referee's, and so is everything derived."""
        lv = self.pack.levels[index]
        res = replay(lv.board, lv.rules, moves)
        assert res.ok, res.describe()
        st = self.state()
        assert st["grid"] == res.final.grid(), f"after {moves}"
        assert st["history"] == [[list(a), list(b)] for a, b in moves]
        if moves:
            assert st["lastPath"] == [list(p) for p in res.paths[-1]]
        assert st["tiles"] == res.final.tile_count
        assert st["moves"] == len(removable_pairs(res.final, lv.rules))
        dom = {(int(e["r"]), int(e["c"])): int(e["v"]) for e in self.page.eval_on_selector_all(
            "#board [data-v]", "els => els.map(e => ({r: e.dataset.r, c: e.dataset.c, v: e.dataset.v}))")}
        assert dom == {(r, c): res.final[r, c] for r in range(lv.board.rows) for c in range(lv.board.cols)}
        assert self.page.get_attribute("#status", "data-tiles") == str(res.final.tile_count)


def png_pixels(data: bytes) -> tuple[int, int, list[bytes]]:
    """Decode an 8-bit RGB/RGBA, non-interlaced PNG into rows of raw pixel bytes."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    pos, idat, width = 8, b"", 0
    while pos < len(data):
        (length,), kind = struct.unpack(">I", data[pos:pos + 4]), data[pos + 4:pos + 8]
        body = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            width, height, depth, colour, _, _, interlace = struct.unpack(">IIBBBBB", body)
            assert depth == 8 and colour in (2, 6) and interlace == 0
            bpp = 3 if colour == 2 else 4
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    raw = zlib.decompress(idat)
    stride = width * bpp
    rows, prev = [], bytearray(stride)
    for y in range(height):
        f = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b = prev[i]
            c = prev[i - bpp] if i >= bpp else 0
            if f == 1:
                line[i] = (line[i] + a) & 255
            elif f == 2:
                line[i] = (line[i] + b) & 255
            elif f == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(bytes(line))
        prev = line
    return width, bpp, rows
