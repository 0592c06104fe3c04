"""The value of a generator spec: frozen dataclasses with no knowledge of YAML or files.

This is the lower of the two spec modules: :mod:`llkgen.generation.spec` validates raw data into these
classes (and re-exports them), while this module never imports it, so there is no cycle.

Guarantee: a :class:`Spec` built by :func:`~llkgen.generation.spec.spec_from_dict` meets every invariant
its docstrings state; :meth:`Spec.with_overrides` keeps them, raising :class:`~llkgen.errors.SpecError`.
"""

from __future__ import annotations

import dataclasses
import os
from dataclasses import dataclass, field
from typing import Any, Mapping

from llkgen.errors import SpecError
from llkgen.formats.shapes import FILES_LAYOUT_MAX, GridShape, Layout
from llkgen.game.board import Rules
from llkgen.generation.limits import MAX_COUNT, MAX_SEED
from llkgen.generation.strictyaml import describe
from llkgen.verifier.verdict import DEFAULT_NODES

__all__ = [
    "BoardSpec",
    "DifficultySpec",
    "ExportSpec",
    "GeneratorSpec",
    "GradingSpec",
    "MetricRange",
    "RampSpec",
    "Spec",
    "TilesSpec",
    "VerifySpec",
    "LAYOUT_TILE",
    "LAYOUT_EMPTY",
    "LAYOUT_WALL",
    "STRATEGIES",
    "METRICS",
    "MAX_COUNT",
    "MAX_SEED",
    "is_int",
]

LAYOUT_TILE = "#"
LAYOUT_EMPTY = "."
LAYOUT_WALL = "X"
STRATEGIES = ("shuffle", "constructive")
#: Difficulty metrics a spec may constrain; the generator measures each one per level.
METRICS = ("initial_moves", "random_clear_rate", "verify_nodes")



def is_int(v: Any) -> bool:
    """True for an ``int`` that is not a ``bool`` (YAML's ``true`` is no count)."""
    return isinstance(v, int) and not isinstance(v, bool)


@dataclass(frozen=True)
class BoardSpec:
    """Board shape. ``layout`` is ``None`` (every cell a tile cell) or ``rows`` strings of
    ``cols`` characters from ``"#"`` (tile), ``"."`` (empty) and ``"X"`` (wall)."""

    rows: int
    cols: int
    layout: tuple[str, ...] | None = None


@dataclass(frozen=True)
class TilesSpec:
    """Which tiles fill the tile cells: ``distribution`` is ``((type_id, count), ...)`` sorted by
    type id, every count even and >= 2."""

    distribution: tuple[tuple[int, int], ...]

    @property
    def total(self) -> int:
        return sum(count for _, count in self.distribution)

    def uniform(self) -> tuple[int, int] | None:
        """``(types, copies)`` when the distribution is types ``1..types`` with equal counts."""
        ids = [t for t, _ in self.distribution]
        counts = {c for _, c in self.distribution}
        if ids == list(range(1, len(ids) + 1)) and len(counts) == 1:
            return len(ids), self.distribution[0][1]
        return None


@dataclass(frozen=True)
class GeneratorSpec:
    strategy: str = "shuffle"
    max_attempts: int = 200


@dataclass(frozen=True)
class MetricRange:
    """Inclusive ``[low, high]``; ``None`` means unbounded on that side."""

    low: float | None = None
    high: float | None = None

    def contains(self, value: float) -> bool:
        return (self.low is None or value >= self.low) and (self.high is None or value <= self.high)

    def to_list(self) -> list:
        return [self.low, self.high]


@dataclass(frozen=True)
class DifficultySpec:
    """Target ranges on the per-level metrics (``None``: unconstrained) and the number of random
    playthroughs used to estimate ``random_clear_rate``."""

    initial_moves: MetricRange | None = None
    random_clear_rate: MetricRange | None = None
    verify_nodes: MetricRange | None = None
    playthroughs: int = 32
    #: The window on the ``difficulty`` score (0..100); the spec key is ``score``.
    score: MetricRange | None = None

    def targets(self) -> dict[str, MetricRange]:
        """The constrained metrics, in :data:`METRICS` order, then ``difficulty`` (the score)."""
        out = {m: r for m in METRICS if (r := getattr(self, m)) is not None}
        if self.score is not None:
            out["difficulty"] = self.score
        return out

    def accepts(self, metrics: Mapping[str, float]) -> bool:
        """True when every constrained metric is in range. ``metrics`` must hold each one."""
        return all(r.contains(metrics[m]) for m, r in self.targets().items())


@dataclass(frozen=True)
class GradingSpec:
    """The exact grading of every level (:mod:`llkgen.analysis.grading`): ``playthroughs`` seeded safe
    playthroughs (0: no grading, so no exact metrics and no ``difficulty`` score), each
    label's verification limited to ``nodes`` search nodes."""

    playthroughs: int = 2
    nodes: int = 20_000


@dataclass(frozen=True)
class RampSpec:
    """A pack whose difficulty rises (or falls) evenly: level ``i`` of ``n`` aims at
    ``start + (end - start) * i / (n - 1)`` and is kept only within ``tolerance`` of it."""

    start: float
    end: float
    tolerance: float = 5.0

    def target(self, index: int, count: int) -> float:
        if count <= 1:
            return self.start
        return self.start + (self.end - self.start) * index / (count - 1)


@dataclass(frozen=True)
class VerifySpec:
    """Per-level verifier budget in search nodes: a deterministic limit, never seconds, so the
    same spec and seed always give the same pack."""

    nodes: int = DEFAULT_NODES


@dataclass(frozen=True)
class ExportSpec:
    """Where and how the pack is written: ``grid`` is each level's shape and ``layout`` the
    files on disk (see :mod:`llkgen.formats.shapes`)."""

    path: str
    solutions: bool = True
    grid: GridShape = GridShape.NESTED
    layout: Layout = Layout.PACK


@dataclass(frozen=True)
class Spec:
    """A validated generator spec. Invariant: ``len(tile_multiset()) == len(layout_cells()[0])``."""

    name: str
    board: BoardSpec
    tiles: TilesSpec
    export: ExportSpec
    seed: int = 0
    count: int = 1
    rules: Rules = field(default_factory=Rules)
    generator: GeneratorSpec = field(default_factory=GeneratorSpec)
    difficulty: DifficultySpec = field(default_factory=DifficultySpec)
    verify: VerifySpec = field(default_factory=VerifySpec)
    grading: GradingSpec = field(default_factory=GradingSpec)
    ramp: RampSpec | None = None
    #: Where the spec came from, for messages; not part of the spec's value.
    source: str = field(default="<string>", compare=False)

    def layout_cells(self) -> tuple[list[tuple[int, int]], list[tuple[int, int]]]:
        """``(tile_cells, walls)``, each row-major."""
        rows, cols, layout = self.board.rows, self.board.cols, self.board.layout
        if layout is None:
            return [(r, c) for r in range(rows) for c in range(cols)], []
        tiles = [(r, c) for r in range(rows) for c in range(cols) if layout[r][c] == LAYOUT_TILE]
        walls = [(r, c) for r in range(rows) for c in range(cols) if layout[r][c] == LAYOUT_WALL]
        return tiles, walls

    def targets(self, index: int) -> dict[str, MetricRange]:
        """The metric windows level ``index`` must meet: the difficulty section's, with the
        ramp's window on ``difficulty`` when there is a ramp."""
        out = self.difficulty.targets()
        if self.ramp is not None:
            t = self.ramp.target(index, self.count)
            out["difficulty"] = MetricRange(max(0.0, t - self.ramp.tolerance), min(100.0, t + self.ramp.tolerance))
        return out

    def tile_multiset(self) -> list[int]:
        """Sorted type ids, each repeated as often as it occurs on a board."""
        return [t for t, count in self.tiles.distribution for _ in range(count)]

    def with_overrides(
        self,
        count: int | None = None,
        seed: int | None = None,
        out: str | os.PathLike | None = None,
    ) -> Spec:
        """A copy with CLI overrides applied (``None`` keeps the spec's value); validated with the
        same ranges as the file, raising :class:`SpecError` naming the option."""
        spec = self
        if count is not None:
            if not is_int(count) or not 1 <= count <= MAX_COUNT:
                raise SpecError(
                    f"--count: expected an integer in 1..{MAX_COUNT}, found {describe(count)}"
                )
            if spec.export.layout == Layout.FILES and count > FILES_LAYOUT_MAX:
                raise SpecError(f"--count: expected at most {FILES_LAYOUT_MAX} levels with export.layout "
                                f"files (one file per level), found {count}: use layout: pack")
            spec = dataclasses.replace(spec, count=count)
        if seed is not None:
            if not is_int(seed) or not 0 <= seed <= MAX_SEED:
                raise SpecError(
                    f"--seed: expected an integer in 0..{MAX_SEED}, found {describe(seed)}"
                )
            spec = dataclasses.replace(spec, seed=seed)
        if out is not None:
            path = os.fspath(out)
            if not isinstance(path, str) or not path or "\0" in path:
                raise SpecError(f"--out: expected a non-empty file path, found {describe(path)}")
            spec = dataclasses.replace(spec, export=dataclasses.replace(spec.export, path=path))
        return spec

    def to_dict(self) -> dict[str, Any]:
        """The normalised spec (all defaults filled in) as plain YAML/JSON data.
        ``spec_from_dict(spec.to_dict()) == spec``, also after a JSON round trip."""
        board: dict[str, Any] = {"rows": self.board.rows, "cols": self.board.cols}
        if self.board.layout is not None:
            board["layout"] = "\n".join(self.board.layout) + "\n"
        uniform = self.tiles.uniform()
        if uniform is not None:
            tiles: dict[str, Any] = {"types": uniform[0], "copies": uniform[1]}
        else:
            tiles = {"distribution": {t: c for t, c in self.tiles.distribution}}
        difficulty: dict[str, Any] = {m: r.to_list() for m, r in self.difficulty.targets().items()}
        difficulty["playthroughs"] = self.difficulty.playthroughs
        if "difficulty" in difficulty:
            difficulty["score"] = difficulty.pop("difficulty")
        extra: dict[str, Any] = {}
        if self.ramp is not None:
            extra["ramp"] = {"from": self.ramp.start, "to": self.ramp.end, "tolerance": self.ramp.tolerance}
        return {
            "name": self.name,
            "seed": self.seed,
            "count": self.count,
            "board": board,
            "rules": self.rules.to_json(),
            "tiles": tiles,
            "generator": dataclasses.asdict(self.generator),
            "difficulty": difficulty,
            "verify": dataclasses.asdict(self.verify),
            "grading": dataclasses.asdict(self.grading),
            **extra,
            "export": {**dataclasses.asdict(self.export), "grid": self.export.grid.value,
                       "layout": self.export.layout.value},
        }
