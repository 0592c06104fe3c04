"""The value of a generator spec: frozen dataclasses with no knowledge of YAML or files.

This is the lower of the two spec modules: :mod:`llkgen.generation.spec` validates raw data into these
classes (and re-exports them), while this module never imports it, so there is no cycle.

Guarantee: a :class:`Spec` built by :func:`~llkgen.generation.spec.spec_from_dict` meets every invariant
its docstrings state; :meth:`Spec.with_overrides` keeps them, raising :class:`~llkgen.errors.SpecError`.
"""

from __future__ import annotations

import dataclasses
import math
import os
from dataclasses import dataclass, field
from typing import Any, Mapping

from llkgen.analysis.ladder import TIERS
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
    "RAMP_SCORE",
    "RAMP_TIER",
    "RAMP_PREDICTED",
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

    def contains(self, value: float, margin: float = 0.0) -> bool:
        """Whether ``value`` lies in the range, and at least ``margin`` inside each bound it has."""
        return ((self.low is None or value >= self.low + margin)
                and (self.high is None or value <= self.high - margin))

    def to_list(self) -> list:
        return [self.low, self.high]


@dataclass(frozen=True)
class DifficultySpec:
    """Target ranges on the per-level metrics (``None``: unconstrained), the number of random
    playthroughs used to estimate ``random_clear_rate``, and the targets on the player ladder
    (:mod:`llkgen.analysis.difficulty`): the ``score`` window, the accepted ``tier`` values
    (``None``: any) and windows on model clear rates (``clear_rate``: ``((model, range),
    ...)`` in ladder order)."""

    initial_moves: MetricRange | None = None
    random_clear_rate: MetricRange | None = None
    verify_nodes: MetricRange | None = None
    playthroughs: int = 32
    #: The window on the ``difficulty`` score (0..100); the spec key is ``score``.
    score: MetricRange | None = None
    tier: tuple[str, ...] | None = None
    clear_rate: tuple[tuple[str, MetricRange], ...] = ()
    #: A ``llkgen.calibration/1`` file, as the spec names it (spec key ``calibration``): every
    #: level then records its players' predicted clear rate.
    calibration: str | None = None
    #: The window on the predicted clear rate (spec key ``clear_rate: [min, max]`` beside
    #: ``calibration``).
    predicted: MetricRange | None = None
    #: The calibration the file holds (:class:`llkgen.analysis.calibration.Calibration`),
    #: loaded when the spec is checked; not part of the spec's value.
    model: Any = field(default=None, compare=False, repr=False)

    def targets(self) -> dict[str, MetricRange]:
        """The constrained metrics, in :data:`METRICS` order, then ``difficulty`` (the score),
        then ``clear_rate.<model>`` for each model's window, then ``predicted_clear_rate``."""
        out = {m: r for m in METRICS if (r := getattr(self, m)) is not None}
        if self.score is not None:
            out["difficulty"] = self.score
        for model, r in self.clear_rate:
            out[f"clear_rate.{model}"] = r
        if self.predicted is not None:
            out[RAMP_PREDICTED] = self.predicted
        return out

    def accepts(self, metrics: Mapping[str, float]) -> bool:
        """True when every constrained metric is in range. ``metrics`` must hold each one."""
        return all(r.contains(metrics[m]) for m, r in self.targets().items())


@dataclass(frozen=True)
class GradingSpec:
    """How the player ladder measures every level (:mod:`llkgen.analysis.difficulty`): to a
    score standard error of ``precision`` points, a targeted model's clear rate to a standard
    error of ``rate_precision``, with at most ``max_runs`` playthroughs per model.
    ``enabled: false`` skips it: no score, tier or clear rates (and no targets on them)."""

    enabled: bool = True
    precision: float = 1.5
    rate_precision: float = 0.03
    max_runs: int = 1024


#: What a ramp can run over: the score, a tier, or one model's clear rate (``clear_rate.<model>``).
RAMP_SCORE = "score"
RAMP_TIER = "tier"
#: The players' clear rate a calibration predicts (needs ``difficulty.calibration``).
RAMP_PREDICTED = "predicted_clear_rate"


@dataclass(frozen=True)
class RampSpec:
    """A pack whose difficulty rises (or falls) evenly: level ``i`` of ``n`` aims at
    ``start + (end - start) * i / (n - 1)`` and is kept only within ``tolerance`` of it.

    ``over`` names what rises: ``score`` (0..100), ``clear_rate.<model>`` (0..1) or ``tier``
    (``start`` and ``end`` are then positions in the ladder's tiers, the target is rounded to
    the nearest one, halves up, and must be met exactly; ``tolerance`` is 0)."""

    start: float
    end: float
    tolerance: float = 5.0
    over: str = RAMP_SCORE

    def target(self, index: int, count: int) -> float:
        if count <= 1:
            return self.start
        return self.start + (self.end - self.start) * index / (count - 1)

    def window(self, index: int, count: int) -> MetricRange:
        """Level ``index``'s window (not for a tier ramp), clipped to the quantity's range."""
        t, top = self.target(index, count), (100.0 if self.over == RAMP_SCORE else 1.0)
        return MetricRange(max(0.0, t - self.tolerance), min(top, t + self.tolerance))


def asks_ladder(difficulty: DifficultySpec, ramp: RampSpec | None) -> bool:
    """Whether ``difficulty`` or ``ramp`` sets a target the player ladder measures: a score
    window, tiers, a clear-rate window, or a ramp."""
    d = difficulty
    return (ramp is not None or d.score is not None or d.tier is not None or bool(d.clear_rate)
            or d.predicted is not None)


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
        ramp's window on its quantity (``difficulty`` for a score ramp) when there is a ramp
        that is not over the tier."""
        out = self.difficulty.targets()
        ramp = self.ramp
        if ramp is not None and ramp.over != RAMP_TIER:
            out["difficulty" if ramp.over == RAMP_SCORE else ramp.over] = ramp.window(index, self.count)
        return out

    def tiers(self, index: int, ladder: tuple[str, ...]) -> tuple[str, ...] | None:
        """The tiers level ``index`` may have (``None``: any): the ramp's one tier for a tier
        ramp (``ladder`` is the tiers in order), else the difficulty section's."""
        ramp = self.ramp
        if ramp is not None and ramp.over == RAMP_TIER:
            return (ladder[math.floor(ramp.target(index, self.count) + 0.5)],)
        return self.difficulty.tier

    def graded(self) -> bool:
        """Whether any target needs the player ladder: a score, tier or clear-rate target."""
        return asks_ladder(self.difficulty, self.ramp)

    def tile_multiset(self) -> list[int]:
        """Sorted type ids, each repeated as often as it occurs on a board."""
        return [t for t, count in self.tiles.distribution for _ in range(count)]

    def with_overrides(
        self,
        count: int | None = None,
        seed: int | None = None,
        out: str | os.PathLike | None = None,
    ) -> Spec:
        """A copy with overrides applied (``None`` keeps the spec's value); validated with the
        same ranges as the file, raising :class:`SpecError` naming the argument."""
        spec = self
        if count is not None:
            if not is_int(count) or not 1 <= count <= MAX_COUNT:
                raise SpecError(f"count: expected an integer in 1..{MAX_COUNT}, found {describe(count)}",
                                arguments=("count",))
            if spec.export.layout == Layout.FILES and count > FILES_LAYOUT_MAX:
                raise SpecError(f"count: expected at most {FILES_LAYOUT_MAX} levels with export.layout "
                                f"files (one file per level), found {count}: use layout: pack", arguments=("count",))
            spec = dataclasses.replace(spec, count=count)
        if seed is not None:
            if not is_int(seed) or not 0 <= seed <= MAX_SEED:
                raise SpecError(f"seed: expected an integer in 0..{MAX_SEED}, found {describe(seed)}",
                                arguments=("seed",))
            spec = dataclasses.replace(spec, seed=seed)
        if out is not None:
            path = os.fspath(out)
            if not isinstance(path, str) or not path or "\0" in path:
                raise SpecError(f"out: expected a non-empty file path, found {describe(path)}", arguments=("out",))
            spec = dataclasses.replace(spec, export=dataclasses.replace(spec.export, path=path))
        return spec

    def ramp_dict(self) -> dict[str, Any]:
        """The ramp as spec data (a tier ramp names its tiers), ``{}`` without one."""
        r = self.ramp
        if r is None:
            return {}
        if r.over == RAMP_TIER:
            return {"over": r.over, "from": TIERS[int(r.start)], "to": TIERS[int(r.end)]}
        return {"over": r.over, "from": r.start, "to": r.end, "tolerance": r.tolerance}

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
        difficulty: dict[str, Any] = {m: r.to_list() for m, r in self.difficulty.targets().items()
                                      if not m.startswith("clear_rate.")}
        difficulty["playthroughs"] = self.difficulty.playthroughs
        if "difficulty" in difficulty:
            difficulty["score"] = difficulty.pop("difficulty")
        if self.difficulty.tier is not None:
            difficulty["tier"] = list(self.difficulty.tier)
        if self.difficulty.clear_rate:
            difficulty["clear_rate"] = {m: r.to_list() for m, r in self.difficulty.clear_rate}
        difficulty.pop(RAMP_PREDICTED, None)
        if self.difficulty.calibration is not None:
            difficulty["calibration"] = self.difficulty.calibration
        if self.difficulty.predicted is not None:
            difficulty["clear_rate"] = self.difficulty.predicted.to_list()
        extra: dict[str, Any] = {}
        if self.ramp is not None:
            extra["ramp"] = self.ramp_dict()
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
