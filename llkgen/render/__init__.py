"""Rendering levels for people: SVG previews (:mod:`llkgen.render.svg`), a pack's difficulty
curve (:mod:`llkgen.render.curve`) and a self-contained HTML pack viewer that plays the levels
in a browser (:mod:`llkgen.render.html`).

Both take the library's :class:`~llkgen.formats.level.Level` / :class:`~llkgen.formats.level.Pack` objects and
share one palette (:mod:`llkgen.render.palette`), so a tile looks the same everywhere.
"""

from llkgen.render.curve import difficulty_curve_svg, pack_metrics, write_difficulty_curve_svg
from llkgen.render.html import build_viewer_html, write_viewer
from llkgen.render.svg import render_level_svg, write_svgs

__all__ = ["build_viewer_html", "difficulty_curve_svg", "pack_metrics", "render_level_svg",
           "write_difficulty_curve_svg", "write_svgs", "write_viewer"]
