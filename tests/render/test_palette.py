"""The tile palette has no near-twins: pairwise CIEDE2000 distances over every fill it holds.

CIEDE2000 is written out here from Sharma, Wu and Dalal, "The CIEDE2000 color-difference
formula: implementation notes, supplementary test data, and mathematical observations" (2005),
and checked against pairs from that paper's test table, so the bound below rests on a formula
that is itself tested. Nothing here comes from llkgen but the palette under test.

Bounds (see llkgen/render/palette.py for how the fills were picked): 2.3 is about a
just-noticeable difference; tiles must be told apart at a glance, across a board, so the
closest two fills must be far above it. The shipped specs use up to 40 types (configs/hard.yaml),
which is also the palette's size: type 41 reuses type 1's fill.
"""

from __future__ import annotations

import itertools
import math
import re

import pytest

from llkgen.render import palette

from paths import ROOT

#: Smallest CIEDE2000 distance allowed between two tile fills, by how many types are in play.
MIN_DELTA_E = {12: 20.0, 24: 18.0, 40: 15.0}
#: Smallest distance between a tile fill and the fills a tile must not be mistaken for.
MIN_DELTA_E_BACKGROUND = 12.0


def srgb_to_lab(hex_colour: str) -> tuple[float, float, float]:
    """CIE L*a*b* (D65 white) of an sRGB ``#RRGGBB``."""
    rgb = [int(hex_colour[i:i + 2], 16) / 255 for i in (1, 3, 5)]
    lin = [c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in rgb]
    x = (0.4124564 * lin[0] + 0.3575761 * lin[1] + 0.1804375 * lin[2]) / 0.95047
    y = 0.2126729 * lin[0] + 0.7151522 * lin[1] + 0.0721750 * lin[2]
    z = (0.0193339 * lin[0] + 0.1191920 * lin[1] + 0.9503041 * lin[2]) / 1.08883

    def f(t: float) -> float:
        return t ** (1 / 3) if t > (6 / 29) ** 3 else t / (3 * (6 / 29) ** 2) + 4 / 29

    return 116 * f(y) - 16, 500 * (f(x) - f(y)), 200 * (f(y) - f(z))


def ciede2000(lab1: tuple[float, float, float], lab2: tuple[float, float, float]) -> float:
    """CIEDE2000 colour difference (kL = kC = kH = 1), following Sharma et al. step by step."""
    (l1, a1, b1), (l2, a2, b2) = lab1, lab2
    c_bar = (math.hypot(a1, b1) + math.hypot(a2, b2)) / 2
    g = 0.5 * (1 - math.sqrt(c_bar ** 7 / (c_bar ** 7 + 25 ** 7)))
    a1p, a2p = (1 + g) * a1, (1 + g) * a2
    c1p, c2p = math.hypot(a1p, b1), math.hypot(a2p, b2)
    h1p = math.degrees(math.atan2(b1, a1p)) % 360 if c1p else 0.0
    h2p = math.degrees(math.atan2(b2, a2p)) % 360 if c2p else 0.0
    dl, dc = l2 - l1, c2p - c1p
    if c1p * c2p == 0:
        dh = 0.0
    else:
        dh = h2p - h1p
        dh -= 360 if dh > 180 else 0
        dh += 360 if dh < -180 else 0
    d_h = 2 * math.sqrt(c1p * c2p) * math.sin(math.radians(dh / 2))
    l_bar, cp_bar = (l1 + l2) / 2, (c1p + c2p) / 2
    if c1p * c2p == 0:
        h_bar = h1p + h2p
    elif abs(h1p - h2p) <= 180:
        h_bar = (h1p + h2p) / 2
    else:
        h_bar = (h1p + h2p + 360) / 2 if h1p + h2p < 360 else (h1p + h2p - 360) / 2
    t = (1 - 0.17 * math.cos(math.radians(h_bar - 30)) + 0.24 * math.cos(math.radians(2 * h_bar))
         + 0.32 * math.cos(math.radians(3 * h_bar + 6)) - 0.20 * math.cos(math.radians(4 * h_bar - 63)))
    s_l = 1 + 0.015 * (l_bar - 50) ** 2 / math.sqrt(20 + (l_bar - 50) ** 2)
    s_c = 1 + 0.045 * cp_bar
    s_h = 1 + 0.015 * cp_bar * t
    d_theta = 30 * math.exp(-(((h_bar - 275) / 25) ** 2))
    r_t = -math.sin(math.radians(2 * d_theta)) * 2 * math.sqrt(cp_bar ** 7 / (cp_bar ** 7 + 25 ** 7))
    return math.sqrt((dl / s_l) ** 2 + (dc / s_c) ** 2 + (d_h / s_h) ** 2 + r_t * (dc / s_c) * (d_h / s_h))


# Pairs 1, 7, 13, 17, 19, 25 and 34 of Sharma et al.'s Table 1: (Lab 1, Lab 2, CIEDE2000).
SHARMA = [
    ((50.0, 2.6772, -79.7751), (50.0, 0.0, -82.7485), 2.0425),
    ((50.0, 0.0, 0.0), (50.0, -1.0, 2.0), 2.3669),
    ((50.0, 2.49, -0.001), (50.0, -2.49, 0.0011), 7.2195),
    ((50.0, 2.5, 0.0), (73.0, 25.0, -18.0), 27.1492),
    ((50.0, 2.5, 0.0), (50.0, 3.1736, 0.5854), 1.0),
    ((60.2574, -34.0099, 36.2677), (60.4626, -34.1751, 39.4387), 1.2644),
    ((2.0776, 0.0795, -1.135), (0.9033, -0.0636, -0.5514), 0.9082),
]


@pytest.mark.parametrize(("lab1", "lab2", "expected"), SHARMA)
def test_ciede2000_matches_the_published_test_data(lab1, lab2, expected) -> None:
    assert ciede2000(lab1, lab2) == pytest.approx(expected, abs=1e-4)
    assert ciede2000(lab2, lab1) == pytest.approx(expected, abs=1e-4)


def test_srgb_to_lab_matches_known_values() -> None:
    assert srgb_to_lab("#FFFFFF") == pytest.approx((100.0, 0.0, 0.0), abs=0.01)
    assert srgb_to_lab("#000000") == pytest.approx((0.0, 0.0, 0.0), abs=0.01)
    assert srgb_to_lab("#FF0000") == pytest.approx((53.24, 80.09, 67.20), abs=0.05)


def closest_pair(fills: list[str]) -> tuple[float, str, str]:
    labs = [srgb_to_lab(c) for c in fills]
    return min((ciede2000(labs[i], labs[j]), fills[i], fills[j])
               for i, j in itertools.combinations(range(len(fills)), 2))


def shipped_max_types() -> int:
    """The most tile types any shipped spec asks for (``types: N`` in configs/*.yaml)."""
    counts = [int(m) for p in sorted((ROOT / "configs").glob("*.yaml"))
              for m in re.findall(r"^\s*types:\s*(\d+)", p.read_text(encoding="utf-8"), re.M)]
    assert counts, "no spec in configs/ names a type count"
    return max(counts)


def test_the_palette_covers_every_shipped_spec() -> None:
    assert len(palette.TILE_COLOURS) >= shipped_max_types()
    assert len(set(palette.TILE_COLOURS)) == len(palette.TILE_COLOURS)
    # Past the palette, fills cycle (labels still differ).
    n = len(palette.TILE_COLOURS)
    assert palette.tile_colour(n + 1) == palette.tile_colour(1)


@pytest.mark.parametrize("types", sorted(MIN_DELTA_E))
def test_no_two_tile_fills_are_near_twins(types: int) -> None:
    assert types <= len(palette.TILE_COLOURS)
    fills = [palette.tile_colour(k) for k in range(1, types + 1)]
    distance, a, b = closest_pair(fills)
    assert distance >= MIN_DELTA_E[types], f"{a} and {b} are only {distance:.1f} apart (CIEDE2000)"


def test_tiles_stand_out_from_empty_cells_walls_and_the_ring() -> None:
    backgrounds = [palette.EMPTY_FILL, palette.WALL_FILL, palette.RING_FILL, palette.PAPER]
    for k in range(1, len(palette.TILE_COLOURS) + 1):
        fill = srgb_to_lab(palette.tile_colour(k))
        for bg in backgrounds:
            d = ciede2000(fill, srgb_to_lab(bg))
            assert d >= MIN_DELTA_E_BACKGROUND, f"type {k} ({palette.tile_colour(k)}) is {d:.1f} from {bg}"


def test_the_old_palette_would_have_failed() -> None:
    """The check can fail: the palette this one replaced (Kelly's colours, then tab20) put two
    greys 2.2 apart within the first 40 and two oranges 4.0 apart within the first 24."""
    old = ["#F3C300", "#875692", "#F38400", "#A1CAF1", "#BE0032", "#C2B280", "#848482", "#008856",
           "#E68FAC", "#0067A5", "#F99379", "#604E97", "#F6A600", "#B3446C", "#DCD300", "#882D17",
           "#8DB600", "#654522", "#E25822", "#2B3D26", "#1F77B4", "#AEC7E8", "#FF7F0E", "#FFBB78"]
    distance, a, b = closest_pair(old)
    assert distance < MIN_DELTA_E[24] and {a, b} == {"#F38400", "#FF7F0E"}
