"""How ``llkgen make`` writes a pack: the shape of each level's board, and the layout on disk.

Both are set in a spec's ``export`` section (``grid:`` and ``layout:``). Neither changes a
level, only how it is written, so they are not part of a spec's identity for shards and
journals (see :func:`llkgen.jobs.shards.spec_sha256`).
"""

from __future__ import annotations

from enum import StrEnum


class GridShape(StrEnum):
    """How a level's board and solution are written.

    ``nested``: ``grid`` as a list of row lists and ``solution`` as ``[[[r1, c1], [r2, c2]], ...]``
    (``llkgen.level/1``). ``flat``: ``cells``, the board row-major, and ``solution`` as a flat
    list of cell indices ``row * cols + col``, two per move (``llkgen.level-flat/1``): no
    array inside an array anywhere, which game engines' simple JSON readers (Unity's
    ``JsonUtility``) need."""

    NESTED = "nested"
    FLAT = "flat"


class Layout(StrEnum):
    """Where a pack's levels go: ``pack``, one pack file (a pack directory of JSON-lines parts
    past 10,000 levels); ``files``, a directory with one JSON file per level and an
    ``index.json`` listing them, for clients that load one level at a time."""

    PACK = "pack"
    FILES = "files"


GRID_SHAPES = tuple(g.value for g in GridShape)
LAYOUTS = tuple(x.value for x in Layout)

#: The most levels a ``files`` layout holds. Its index lists every level's id and file name on
#: a line of its own, up to about 230 bytes with a 100-character pack name, and must stay under
#: the 64 MiB that llkgen reads of a JSON file: 100,000 levels is 23 MB at worst. (A folder of
#: a million small files is also no way to ship levels to a game.)
FILES_LAYOUT_MAX = 100_000
