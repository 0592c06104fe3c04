"""Tile colours and labels shared by the SVG renderer and the HTML viewer.

Colour alone never identifies a type: every tile also carries its type number as a label,
so boards stay readable for colour-blind viewers and in greyscale prints. The colours are
a fixed list (Kenneth Kelly's 22 colours of maximum contrast without white and black,
then the 20 colours of matplotlib's ``tab20``), so 40 types get 40 different fills; types
beyond that reuse the cycle and are told apart by their label. Everything here is a pure
function of the type number, which keeps renders byte-identical.
"""

from __future__ import annotations

#: Fills for types 1, 2, 3, ... (index ``k - 1``). Kelly first: its neighbours contrast most.
TILE_COLOURS: tuple[str, ...] = (
    # Kelly (1965), minus white and black, which would read as "empty" and "wall".
    "#F3C300", "#875692", "#F38400", "#A1CAF1", "#BE0032", "#C2B280", "#848482", "#008856",
    "#E68FAC", "#0067A5", "#F99379", "#604E97", "#F6A600", "#B3446C", "#DCD300", "#882D17",
    "#8DB600", "#654522", "#E25822", "#2B3D26",
    # matplotlib tab20.
    "#1F77B4", "#AEC7E8", "#FF7F0E", "#FFBB78", "#2CA02C", "#98DF8A", "#D62728", "#FF9896",
    "#9467BD", "#C5B0D5", "#8C564B", "#C49C94", "#E377C2", "#F7B6D2", "#7F7F7F", "#C7C7C7",
    "#BCBD22", "#DBDB8D", "#17BECF", "#9EDAE5",
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
