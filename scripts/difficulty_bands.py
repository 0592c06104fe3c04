"""Where the shipped specs' levels land on the difficulty score, for docs/difficulty.md.

Makes ``--count`` levels from each of easy, medium, hard and gravity (every level graded as
``llkgen make`` grades it), prints the quantiles of the score and of each part as a Markdown
table, and draws two SVGs: a strip chart of every level's score per spec
(``docs/img/difficulty-bands.svg``) and the difficulty curve of the shipped ``ramp`` pack
(``docs/img/difficulty-ramp.svg``, drawn by :func:`llkgen.render.write_difficulty_curve_svg`).

    python scripts/difficulty_bands.py --count 30 --jobs 2 [--seed 1000]
"""

from __future__ import annotations

import argparse
import importlib.util
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if importlib.util.find_spec("llkgen") is None:  # not installed: use the source tree
    sys.path.insert(0, str(ROOT))

from llkgen.analysis.grading import WEIGHTS, score_parts  # noqa: E402
from llkgen.files import write_text_atomic  # noqa: E402
from llkgen.generation.generator import generate_pack  # noqa: E402
from llkgen.generation.spec import load_spec  # noqa: E402
from llkgen.render import write_difficulty_curve_svg  # noqa: E402

SPECS = ("easy", "medium", "hard", "gravity")
COLOURS = {"easy": "#2e7d32", "medium": "#1565c0", "hard": "#c62828", "gravity": "#6a1b9a"}


def quantiles(xs: list[float]) -> tuple[float, float, float, float, float]:
    xs = sorted(xs)
    q = statistics.quantiles(xs, n=4, method="inclusive") if len(xs) > 1 else [xs[0]] * 3
    return xs[0], q[0], q[1], q[2], xs[-1]


def strip_svg(scores: dict[str, list[float]]) -> str:
    """Every level's score as a dot on its spec's row, 0..100 across."""
    w, row, left, right, top = 640, 44, 90, 20, 30
    h = top + row * len(scores) + 30
    x = lambda v: left + (w - left - right) * v / 100  # noqa: E731
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" viewBox="0 0 {w} {h}" '
           'font-family="system-ui,Helvetica,Arial,sans-serif" font-size="12">',
           f'<rect width="{w}" height="{h}" fill="#fff"/>',
           f'<text x="{left}" y="18" fill="#333">difficulty score of every level, by spec</text>']
    for t in range(0, 101, 10):
        out.append(f'<line x1="{x(t):.1f}" y1="{top}" x2="{x(t):.1f}" y2="{h - 24}" stroke="#e5e5e5"/>')
        out.append(f'<text x="{x(t):.1f}" y="{h - 8}" text-anchor="middle" fill="#555">{t}</text>')
    for i, (name, xs) in enumerate(scores.items()):
        cy = top + row * i + row / 2
        lo, q1, med, q3, hi = quantiles(xs)
        out.append(f'<text x="{left - 10}" y="{cy + 4:.1f}" text-anchor="end" fill="#222">{name}</text>')
        out.append(f'<rect x="{x(q1):.1f}" y="{cy - 9:.1f}" width="{max(1.0, x(q3) - x(q1)):.1f}" height="18" '
                   f'fill="{COLOURS.get(name, "#555")}" fill-opacity="0.15"/>')
        out.append(f'<line x1="{x(med):.1f}" y1="{cy - 11:.1f}" x2="{x(med):.1f}" y2="{cy + 11:.1f}" '
                   f'stroke="{COLOURS.get(name, "#555")}" stroke-width="2"/>')
        for v in xs:
            out.append(f'<circle cx="{x(v):.1f}" cy="{cy:.1f}" r="3" fill="{COLOURS.get(name, "#555")}" '
                       'fill-opacity="0.6"/>')
    out.append("</svg>")
    return "\n".join(out) + "\n"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--count", type=int, default=30)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--seed", type=int, help="override every spec's pack seed (a held-out sample)")
    ap.add_argument("--img", default=str(ROOT / "docs" / "img"))
    args = ap.parse_args()
    scores: dict[str, list[float]] = {}
    parts: dict[str, dict[str, list[float]]] = {}
    for name in SPECS:
        spec = load_spec(ROOT / "configs" / f"{name}.yaml").with_overrides(count=args.count, seed=args.seed)
        levels = generate_pack(spec, jobs=args.jobs)
        scores[name] = [lv.metrics["difficulty"] for lv in levels]
        parts[name] = {k: [score_parts(lv.metrics, lv.board.tile_count // 2)[k] * w for lv in levels]
                       for k, w in WEIGHTS}
        print(f"{name}: {len(levels)} levels", file=sys.stderr)
    print(f"Scores of {args.count} levels per shipped spec (min, lower quartile, median, upper quartile, max):\n")
    print("| spec | score | " + " | ".join(k for k, _ in WEIGHTS) + " |")
    print("|---|---|" + "---|" * len(WEIGHTS))
    for name in SPECS:
        q = quantiles(scores[name])
        cells = [f"{statistics.median(parts[name][k]):.1f}" for k, _ in WEIGHTS]
        print(f"| {name} | {' / '.join(f'{v:.1f}' for v in q)} | " + " | ".join(cells) + " |")
    print("\n(part columns: the median points each part contributes)")
    img = Path(args.img)
    write_text_atomic(img / "difficulty-bands.svg", strip_svg(scores))
    ramp = load_spec(ROOT / "configs" / "ramp.yaml")
    ramp_levels = generate_pack(ramp, jobs=args.jobs)
    write_difficulty_curve_svg([lv.metrics for lv in ramp_levels], img / "difficulty-ramp.svg",
                               title="ramp.yaml: difficulty of each level (target 25 to 60)")
    print("\nramp:", [lv.metrics["difficulty"] for lv in ramp_levels], file=sys.stderr)


if __name__ == "__main__":
    main()
