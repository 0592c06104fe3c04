"""Tile colours and labels shared by the SVG renderer and the HTML viewer.

Colour alone never identifies a type: every tile also carries its type number as a label,
so boards stay readable for colour-blind viewers and in greyscale prints. Everything here is a
pure function of the type number, which keeps renders byte-identical.

The 40 fills were picked once, greedily, for distance in CIEDE2000 (the perceptual colour
difference; 2.3 is a just-noticeable difference). Start from Kelly's first four colours of
maximum contrast (yellow, purple, orange, light blue), then repeatedly add the colour whose
nearest chosen colour is farthest away, among the sRGB colours with channels in steps of 0x11
whose lightness L* lies in 35..90 (no near-black tile to pass for a wall, no near-white one to
pass for an empty cell) and that are at least 14 from the empty, wall, ring, paper and black
fills; ties go to the smaller hex string. The previous palette (Kelly's 22, then matplotlib's
tab20) held near-twins: two greys 2.2 apart and two oranges 4.0 apart, both within the 24
types the shipped specs use. ``tests/render/test_palette.py`` pins the result: the closest two of
the first 12 fills are 22.8 apart, of the first 24 19.7, of all 40 15.4. Types beyond 40
reuse the cycle and are told apart by their label. Re-run the pick (and that test's bounds)
if the empty, wall or ring fills change.
"""

from __future__ import annotations

#: Fills for types 1, 2, 3, ... (index ``k - 1``), in the order they were picked: every prefix
#: is as spread out as the greedy pick could make it, so small packs get the most distinct fills.
TILE_COLOURS: tuple[str, ...] = (
    "#F3C300", "#875692", "#F38400", "#A1CAF1", "#006611", "#22FFAA", "#AA0000", "#FFAABB",
    "#006677", "#775500", "#999988", "#FF55FF", "#44AA00", "#EE2266", "#3377EE", "#00AAAA",
    "#4411FF", "#AA7766", "#BBEE00", "#FFCCAA", "#AA99CC", "#998800", "#665555", "#FF3300",
    "#BBDDCC", "#558866", "#44EEFF", "#445588", "#992255", "#0099CC", "#9966FF", "#CCCC88",
    "#00BB88", "#DDCCDD", "#BB7799", "#DD00AA", "#AA5511", "#666655", "#777788", "#006655",
)

EMPTY_FILL = "#F4F1EA"
EMPTY_STROKE = "#E2DDD2"
WALL_FILL = "#3A3F47"
WALL_HATCH = "#5A616C"
RING_FILL = "#EAF1F8"
RING_STROKE = "#9DB4CC"
PATH_COLOUR = "#111111"
PATH_CASING = "#FFFFFF"
HIGHLIGHT = "#E4007C"
INK = "#222222"
MUTED = "#666666"
PAPER = "#FFFFFF"


def tile_colour(kind: int) -> str:
    """Fill colour of tile type ``kind >= 1``."""
    return TILE_COLOURS[(kind - 1) % len(TILE_COLOURS)]


def _luminance(hex_colour: str) -> float:
    """WCAG relative luminance of ``#RRGGBB``."""
    out = []
    for i in (1, 3, 5):
        v = int(hex_colour[i : i + 2], 16) / 255
        out.append(v / 12.92 if v <= 0.03928 else ((v + 0.055) / 1.055) ** 2.4)
    return 0.2126 * out[0] + 0.7152 * out[1] + 0.0722 * out[2]


def text_colour(kind: int) -> str:
    """Black or white, whichever contrasts more with the tile's fill (WCAG ratio)."""
    lum = _luminance(tile_colour(kind))
    # Contrast with black is (L + 0.05) / 0.05, with white 1.05 / (L + 0.05); equal at L ~ 0.179.
    return "#111111" if lum > 0.179 else "#FFFFFF"


def tile_label(kind: int) -> str:
    """The short label drawn on a tile: its type number, as written in the level's grid."""
    return str(kind)


def palette_json(kinds: list[int]) -> dict[str, dict[str, str]]:
    """``{"k": {"fill", "ink", "label"}}`` for the given types, in the given (sorted) order,
    for the HTML viewer, so both renderers agree on every colour."""
    return {
        str(k): {"fill": tile_colour(k), "ink": text_colour(k), "label": tile_label(k)}
        for k in sorted(set(kinds))
    }
