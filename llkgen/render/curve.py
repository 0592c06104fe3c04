"""A pack's difficulty curve as SVG: level number across, ``metrics.difficulty`` (0..100) up.

One function draws it for both places it is shown: inline in the HTML viewer, where the other
metrics are drawn as hidden overlays the page can switch on, and as a standalone file for the
manual (:func:`write_difficulty_curve_svg`). Every metric may be missing from any level (old
packs have none of the newer keys): a missing value leaves a gap in its line, and a curve with
no values at all says so instead of drawing empty axes.

The output is a pure function of the arguments: coordinates rounded to one decimal, series in
a fixed order, no ids that depend on anything but the metric names.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from html import escape
from pathlib import Path
from typing import Mapping, Sequence

from llkgen.files import write_text_atomic
from llkgen.render import palette as pal

FONT = "system-ui,-apple-system,'Segoe UI',Helvetica,Arial,sans-serif"


@dataclass(frozen=True)
class Metric:
    """A metric the curve can draw: its key in a level's ``metrics``, how to name it, and its
    scale: ``top`` fixed (a share, a score) or None to scale to the largest value drawn."""

    key: str
    label: str
    top: float | None
    colour: str


#: Every metric the curve knows, the primary one first. Overlay colours keep clear of the
#: difficulty line's ink and of each other.
METRICS: tuple[Metric, ...] = (
    Metric("difficulty", "difficulty", 100.0, pal.INK),
    Metric("fatal_share", "fatal share", 1.0, "#C0392B"),
    Metric("trap_steps", "trap steps", None, "#8E44AD"),
    Metric("choices", "choices", None, "#1F77B4"),
    Metric("link_turns", "link turns", 2.0, "#8A6D00"),
    Metric("unknown_share", "unknown share", 1.0, "#7F7F7F"),
    Metric("initial_moves", "initial moves", None, "#2CA02C"),
    Metric("random_clear_rate", "random clear", 1.0, "#E4007C"),
    Metric("verify_nodes", "verify nodes", None, "#17BECF"),
)
METRIC_BY_KEY = {m.key: m for m in METRICS}

LEFT, RIGHT, TOP, BOTTOM = 40, 48, 26, 30


def metric_value(metrics: object, key: str) -> float | None:
    """``metrics[key]`` when it is a finite number (a bool is not), else None."""
    if not isinstance(metrics, Mapping):
        return None
    v = metrics.get(key)
    if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v):
        return None
    return float(v)


def _n(x: float) -> str:
    """A coordinate: one decimal, no trailing ``.0``, never ``-0``."""
    s = f"{x:.1f}"
    s = s[:-2] if s.endswith(".0") else s
    return "0" if s == "-0" else s


def _nice_top(v: float) -> float:
    """The smallest of 1, 2, 2.5, 5 times a power of ten that is >= v (1 for v <= 0)."""
    if v <= 0:
        return 1.0
    p = 10.0 ** math.floor(math.log10(v))
    for m in (1, 2, 2.5, 5, 10):
        if m * p >= v - 1e-12:
            return m * p
    return 10 * p  # pragma: no cover - the loop always returns


def _tick_label(v: float) -> str:
    if v >= 1000:
        return f"{v:,.0f}"
    return f"{v:g}"


def _index_ticks(n: int, first: int) -> list[int]:
    """Level numbers (1-based, counting ``first`` levels before the window) to label on the
    x axis: about six, on a 1-2-5 step."""
    lo, hi = first + 1, first + n
    if n <= 1:
        return [lo]
    step = 1
    for s in (1, 2, 5, 10, 20, 25, 50, 100, 200, 250, 500, 1000, 2000, 5000, 10_000, 20_000, 50_000):
        step = s
        if (hi - lo) / s <= 6:
            break
    ticks = [lo] + [t for t in range((lo // step + 1) * step, hi + 1, step) if t - lo >= step / 2]
    return ticks


def _series_path(values: Sequence[float | None], x_of, y_of) -> str:
    """An SVG path through the present values, lifting the pen over missing ones."""
    parts: list[str] = []
    pen_down = False
    for i, v in enumerate(values):
        if v is None:
            pen_down = False
            continue
        parts.append(("L" if pen_down else "M") + _n(x_of(i)) + " " + _n(y_of(v)))
        pen_down = True
    return "".join(parts)


def _dots(values: Sequence[float | None], x_of, y_of, r: float) -> list[str]:
    """A dot for each present value whose neighbours are both missing, which a path alone
    would not show."""
    out = []
    for i, v in enumerate(values):
        if v is None:
            continue
        lonely = (i == 0 or values[i - 1] is None) and (i == len(values) - 1 or values[i + 1] is None)
        if lonely:
            out.append(f'<circle cx="{_n(x_of(i))}" cy="{_n(y_of(v))}" r="{_n(r)}"/>')
    return out


def _error_bars(values: Sequence[float | None], ses: Sequence[float | None], x_of, y_of,
                step: float) -> str:
    """One SVG path of ``value \u00b1 se`` bars, one per level with both numbers and ``se > 0``,
    clipped to the plot like the values; capped while levels are at least 4 units apart."""
    cap = min(3.0, step / 4)
    parts: list[str] = []
    for i, (v, se) in enumerate(zip(values, ses)):
        if v is None or se is None or se <= 0:
            continue
        x, hi, lo = _n(x_of(i)), _n(y_of(v + se)), _n(y_of(v - se))
        parts.append(f"M{x} {lo}V{hi}")
        if cap >= 1:
            for y in (lo, hi):
                parts.append(f"M{_n(x_of(i) - cap)} {y}H{_n(x_of(i) + cap)}")
    return "".join(parts)


def difficulty_curve_svg(levels_metrics: Sequence[Mapping | None], *, overlays: Sequence[str] = (),
                         hidden_overlays: bool = False, width: int = 640, height: int = 220,
                         first: int = 0, title: str | None = None) -> str:
    """The curve of ``metrics.difficulty`` over ``levels_metrics`` (one ``metrics`` object, or
    None, per level, in pack order) as an SVG document.

    ``overlays``: other metric keys (from :data:`METRICS`) drawn over it, each scaled to its own
    range with its own right-hand axis (which reads best one at a time); a metric no level
    has is left out. With
    ``hidden_overlays`` they are drawn with ``visibility="hidden"`` for a page to switch on.
    ``first`` counts the levels before these in a bigger pack, so the x axis shows pack
    numbers. ``title`` is drawn above the plot.

    Where a level's metrics also hold ``difficulty_se`` (the score's standard error, in
    points), a bar of \u00b1 one standard error is drawn through its value.

    Guarantees: well-formed SVG; a pure function of its arguments; when no level has a
    difficulty value the plot holds the text "no difficulty data" (and the overlays, if any)."""
    unknown = [k for k in overlays if k not in METRIC_BY_KEY or k == "difficulty"]
    if unknown:
        raise ValueError(f"unknown overlay metric {unknown[0]!r}; expected one of "
                         f"{', '.join(m.key for m in METRICS[1:])}")
    n = len(levels_metrics)
    top_y = TOP + (18 if title else 0)  # a title gets its own line
    plot_w, plot_h = width - LEFT - RIGHT, height - top_y - BOTTOM
    step = plot_w / (n - 1) if n > 1 else 0.0

    def x_of(i: int) -> float:
        return LEFT + (i * step if n > 1 else plot_w / 2)

    out = [f'<svg xmlns="http://www.w3.org/2000/svg" class="curve" width="{width}" height="{height}" '
           f'viewBox="0 0 {width} {height}" font-family="{FONT}" font-size="11" '
           f'data-levels="{n}" data-first="{first}" data-x0="{LEFT}" data-step="{_n(step) if n > 1 else 0}" '
           f'data-plot-top="{top_y}" data-plot-height="{plot_h}" role="img" '
           f'aria-label="difficulty by level">']
    out.append(f'<rect x="0" y="0" width="{width}" height="{height}" fill="{pal.PAPER}"/>')
    if title:
        out.append(f'<text x="{LEFT}" y="15" font-size="13" font-weight="600" fill="{pal.INK}">'
                   f'{escape(title)}</text>')
    # Grid and the difficulty axis (left).
    y0 = top_y + plot_h  # the plot's bottom edge

    def y_at(v: float, top: float) -> float:
        return y0 - (min(max(v, 0.0), top) / top) * plot_h

    out.append('<g class="axis" stroke="#DEDAD0" stroke-width="1">')
    for t in (0, 25, 50, 75, 100):
        y = y_at(t, 100.0)
        out.append(f'<line x1="{LEFT}" y1="{_n(y)}" x2="{LEFT + plot_w}" y2="{_n(y)}"/>')
    out.append("</g>")
    out.append(f'<g class="ticks" fill="{pal.MUTED}" text-anchor="end">')
    for t in (0, 25, 50, 75, 100):
        out.append(f'<text x="{LEFT - 5}" y="{_n(y_at(t, 100.0) + 4)}">{t}</text>')
    out.append("</g>")
    out.append(f'<g class="ticks" fill="{pal.MUTED}" text-anchor="middle">')
    for t in _index_ticks(n, first) if n else []:
        x = x_of(t - first - 1)
        out.append(f'<line x1="{_n(x)}" y1="{y0}" x2="{_n(x)}" y2="{y0 + 4}" stroke="{pal.MUTED}"/>'
                   f'<text x="{_n(x)}" y="{y0 + 16}">{t}</text>')
    out.append(f'<text x="{LEFT + plot_w}" y="{height - 2}" text-anchor="end">level</text>')
    out.append("</g>")

    values = [metric_value(m, "difficulty") for m in levels_metrics]
    have = any(v is not None for v in values)
    if have:
        y_of = lambda v: y_at(v, 100.0)  # noqa: E731
        ses = [metric_value(m, "difficulty_se") for m in levels_metrics]
        bars = _error_bars(values, ses, x_of, y_of, step if n > 1 else plot_w)
        if bars:
            out.append(f'<g class="error-bars" data-metric="difficulty_se" stroke="{pal.MUTED}" '
                       f'stroke-width="1" fill="none"><path d="{bars}"/></g>')
            out.append(f'<text class="error-note" x="{LEFT + 36}" y="{top_y - 8}" fill="{pal.MUTED}">'
                       f"(bars: \u00b1 1 standard error)</text>")
        out.append(f'<g class="series primary" data-metric="difficulty" fill="{pal.INK}">'
                   f'<path d="{_series_path(values, x_of, y_of)}" fill="none" stroke="{pal.INK}" '
                   f'stroke-width="2" stroke-linejoin="round"/>')
        out.extend(_dots(values, x_of, y_of, 2.5))
        out.append("</g>")
    else:
        out.append(f'<text class="no-data" x="{_n(LEFT + plot_w / 2)}" y="{_n(top_y + plot_h / 2)}" '
                   f'text-anchor="middle" font-size="13" fill="{pal.MUTED}">no difficulty data'
                   f'{" in this pack" if n else ""}</text>')
    out.append(f'<text x="{LEFT - 30}" y="{top_y - 8}" fill="{pal.INK}" font-weight="600">difficulty</text>')

    label_right = width - 2  # overlay names run leftwards from the top right corner
    for metric in (METRIC_BY_KEY[k] for k in overlays):
        vals = [metric_value(m, metric.key) for m in levels_metrics]
        present = [v for v in vals if v is not None]
        if not present:
            continue
        top = metric.top if metric.top is not None else _nice_top(max(present))
        y_of = (lambda t: lambda v: y_at(v, t))(top)
        hide = ' visibility="hidden"' if hidden_overlays else ""
        out.append(f'<g class="series overlay" data-metric="{metric.key}" data-top="{_tick_label(top)}" '
                   f'fill="{metric.colour}"{hide}>')
        out.append(f'<path d="{_series_path(vals, x_of, y_of)}" fill="none" stroke="{metric.colour}" '
                   f'stroke-width="1.5" stroke-dasharray="5 3" stroke-linejoin="round"/>')
        out.extend(_dots(vals, x_of, y_of, 2))
        for frac in (0, 0.5, 1):
            out.append(f'<text x="{LEFT + plot_w + 5}" y="{_n(y_at(frac * top, top) + 4)}">'
                       f'{_tick_label(frac * top)}</text>')
        out.append(f'<text x="{label_right}" y="{top_y - 8}" text-anchor="end" font-weight="600">'
                   f'{escape(metric.label)}</text>')
        if not hidden_overlays:
            label_right -= int(len(metric.label) * 6.6) + 12
        out.append("</g>")
    out.append("</svg>")
    return "\n".join(out) + "\n"


def pack_metrics(levels: Sequence) -> list[Mapping | None]:
    """The ``metrics`` object of each level (a :class:`~llkgen.formats.level.Level` or a level JSON
    object), None where a level has none: the argument :func:`difficulty_curve_svg` takes."""
    out: list[Mapping | None] = []
    for lv in levels:
        extra = lv if isinstance(lv, Mapping) else getattr(lv, "extra", {})
        m = extra.get("metrics")
        out.append(m if isinstance(m, Mapping) else None)
    return out


def write_difficulty_curve_svg(levels_metrics: Sequence[Mapping | None], out_path: str | Path,
                               **kwargs) -> Path:
    """Write :func:`difficulty_curve_svg` (same keyword arguments) to ``out_path``
    atomically, e.g. for the manual's ``docs/img``; returns the path."""
    return write_text_atomic(out_path, difficulty_curve_svg(levels_metrics, **kwargs))
