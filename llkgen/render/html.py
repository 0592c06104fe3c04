"""A single-file HTML viewer that lists a pack's levels and lets you play them.

The page embeds everything it needs: the stylesheet and script from ``llkgen/assets`` inline,
the pack as JSON, and the palette shared with the SVG renderer. A Content-Security-Policy
of ``default-src 'none'`` makes the browser refuse any network request, so the file works
offline and cannot leak anything. The output is a pure function of the pack.

The scripts implement the path rule and gravity themselves (``rules.js``);
``tests/render/test_viewer_browser.py`` proves they agree with :func:`llkgen.game.referee.replay` by
comparing boards after every click. What the page claims about a board it proves itself
(``solver.js``: the lock test and a bounded search), and ``tests/render/test_viewer_solver.py`` holds
those claims to :func:`llkgen.verifier.verify`. The difficulty curve above the list is drawn here,
in Python (:mod:`llkgen.render.curve`), so the manual can use the same picture.

The embedded data also holds the player ladder's tiers (:data:`llkgen.analysis.ladder.TIERS`),
weakest first, which the page sorts the level list's tier column by, and the models in order of
measured strength (:data:`~llkgen.analysis.ladder.STRENGTH`) with the clear rate that counts as
reliable (:data:`~llkgen.analysis.ladder.RELIABLY`): the page shows a level's clear rates in that
order and says where they are not monotone, as :func:`llkgen.analysis.ladder.profile` does for
``llkgen grade`` (``tests/render/test_viewer_designer.py`` holds the page to it).
"""

from __future__ import annotations

import os
from html import escape
from importlib import resources
from pathlib import Path

from llkgen.analysis.ladder import RELIABLY, STRENGTH, TIERS
from llkgen.files import write_text_atomic
from llkgen.formats.level import Pack, pack_from_json, pack_to_json
from llkgen.render.curve import METRICS, difficulty_curve_svg, metric_value, pack_metrics
from llkgen.render.palette import palette_json
from llkgen.text import json_dumps, xml_text

CSP = "default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:"


#: The page's scripts, in the order they run: each later one uses what the earlier ones expose.
SCRIPTS = ("rules.js", "solver.js", "viewer.js")


def _asset(name: str) -> str:
    return resources.files("llkgen").joinpath("assets", name).read_text(encoding="utf-8")


def _curve_html(levels: list[dict], first: int) -> str:
    """The difficulty curve with every other metric some level has as a hidden overlay, and
    the menu that shows one of them."""
    metrics = pack_metrics(levels)
    present = [m for m in METRICS[1:] if any(metric_value(x, m.key) is not None for x in metrics)]
    svg = difficulty_curve_svg(metrics, overlays=[m.key for m in present], hidden_overlays=True, first=first)
    options = "".join(f'<option value="{m.key}">{escape(m.label)}</option>' for m in present)
    menu = (f'<label class="overlay-menu">overlay <select id="curve-overlay"><option value="">none</option>'
            f"{options}</select></label>") if present else ""
    has = int(any(metric_value(x, "difficulty") is not None for x in metrics))
    return f'<div id="curve" data-has-difficulty="{has}">{svg}</div>{menu}'


def _script_json(obj: object) -> str:
    """JSON safe inside ``<script>``: ``<``, ``>`` and ``&`` are escaped, so no string in the
    pack can close the element or open a comment."""
    text = json_dumps(obj, separators=(",", ":"))
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def _pack_json(pack: Pack | dict) -> dict:
    if isinstance(pack, Pack):
        return pack_to_json(pack)
    if isinstance(pack, dict):
        return pack_to_json(pack_from_json(pack))  # validates, and normalises key order
    raise TypeError(f"expected a Pack or a pack JSON object, found {type(pack).__name__}")


def build_viewer_html(pack: Pack | dict, *, first: int = 0, total: int | None = None) -> str:
    """The viewer page for ``pack`` (a :class:`Pack` or a decoded ``llkgen.pack/1`` object).
    When the pack holds only a window of a bigger one, ``first`` is the 0-based index of its
    first level and ``total`` the bigger pack's size, and the page says which levels it holds.

    Guarantees: one self-contained UTF-8 document with no external references; the same pack
    always gives the same string."""
    data = _pack_json(pack)
    kinds = sorted({v for lv in data["levels"] for row in lv["grid"] for v in row if v > 0})
    payload = {"pack": data, "palette": palette_json(kinds), "tiers": list(TIERS), "strength": list(STRENGTH),
               "reliably": RELIABLY}
    name = data.get("name") or "pack"
    n = len(data["levels"])
    if total is not None and (first, n) != (0, total):
        sub = f"levels {first + 1}\u2013{first + n} of {total}"
    else:
        sub = f"{n} level{'s' if n != 1 else ''}"
    if data.get("generator"):
        sub += f" \u00b7 {data['generator']}"
    if data.get("seed") is not None:
        sub += f" \u00b7 seed {data['seed']}"
    return _TEMPLATE.format(
        csp=CSP,  # a constant with no markup characters
        title=escape(xml_text(f"{name} \u2013 llkgen viewer")),
        name=escape(xml_text(str(name))),
        sub=escape(xml_text(sub)),
        css=_asset("viewer.css"),
        curve=_curve_html(data["levels"], first),
        data=_script_json(payload),
        js="\n".join(_asset(name) for name in SCRIPTS),
    )


def write_viewer(pack: Pack | dict, out_path: str | os.PathLike, *, first: int = 0,
                 total: int | None = None) -> Path:
    """Write :func:`build_viewer_html` to ``out_path`` atomically; returns the path."""
    return write_text_atomic(out_path, build_viewer_html(pack, first=first, total=total))


# Double braces are literal braces for str.format; the assets are substituted whole.
_TEMPLATE = """<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="{csp}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{title}</title>
<style>
{css}</style>
</head>
<body>
<header id="top"><h1 id="pack-name">{name}</h1><p class="sub">{sub}</p></header>
<main>
<aside id="levels" aria-label="Levels">
<section id="curve-panel" aria-label="Difficulty by level">
{curve}
</section>
<div id="filters">
<label>find <input type="search" id="filter-text" placeholder="id or rules" autocomplete="off"></label>
<label>difficulty <input type="number" id="filter-min" min="0" max="100" step="1" placeholder="0" inputmode="decimal">
– <input type="number" id="filter-max" min="0" max="100" step="1" placeholder="100" inputmode="decimal"></label>
<span id="filter-count" role="status"></span>
</div>
<div id="list-scroll">
<table id="level-list">
<thead><tr></tr></thead>
<tbody></tbody>
</table>
</div>
</aside>
<section id="game" aria-live="polite">
<h2 id="level-title"></h2>
<p class="meta" id="level-rules"></p>
<p class="meta" id="level-difficulty"></p>
<div id="controls">
<button type="button" id="btn-undo" title="Undo the last move (U)">Undo</button>
<button type="button" id="btn-restart">Restart</button>
<button type="button" id="btn-hint" title="Show a next move (H)">Hint</button>
<button type="button" id="btn-play">Play solution</button>
</div>
<div id="status" data-state="playing"><span id="status-counts"></span><span id="status-banner"></span>
<span id="sol-indicator"></span></div>
<p id="verdict" data-verdict="pending" role="status"></p>
<p id="message" role="status"></p>
<div id="board-wrap"><div id="board" data-busy="0"></div><svg id="overlay" aria-hidden="true"></svg></div>
<div id="level-detail">
<p class="meta" id="level-metrics"></p>
<p class="meta" id="level-more"></p>
<div id="level-players" hidden></div>
<p class="meta" id="level-cert"></p>
</div>
<p class="legend">Click two tiles of the same type joined by a line with at most two turns through empty cells.<br>
<span class="k-empty"></span>empty<span class="k-wall"></span>wall<span class="k-ring"></span>outside ring
(paths may use it when the border rule is on)</p>
</section>
</main>
<script type="application/json" id="llk-data">{data}</script>
<script>
{js}</script>
</body>
</html>
"""
