"""Generator specs: the YAML file a level designer writes, loaded into frozen dataclasses.

Guarantee: :func:`load_spec` and :func:`parse_spec` return a fully validated :class:`Spec` or raise
:class:`~llkgen.errors.SpecError`, whatever the input (any text, any bytes, any YAML document).
Every message names the source, the line when known, the key path, and what was expected versus
found, e.g. ``easy.yaml:5: unknown key "colls" at board.colls: did you mean "cols"?``.

Only ``yaml.safe_load`` semantics are used (no Python object tags), with one tightening: a
duplicate key inside one mapping is an error, since YAML would otherwise silently keep the last.

A spec looks like this (see ``configs/*.yaml`` for commented examples)::

    name: easy                      # required, [A-Za-z0-9_][A-Za-z0-9_.-]{0,99}
    seed: 1                         # int >= 0, default 0
    count: 10                       # 1..1000000, default 1
    board: {rows: 6, cols: 8}       # optional layout: "#" tile cell, "." empty, "X" wall
    rules: {border: true, gravity: none}
    tiles: {types: 12, copies: 4}   # or  tiles: {distribution: {1: 4, 2: 2, ...}}
    generator: {strategy: shuffle, max_attempts: 200}
    difficulty: {initial_moves: [6, null], random_clear_rate: [0.5, 1.0], playthroughs: 32}
    verify: {nodes: 200000}
    export: {path: output/easy.json, solutions: true, grid: nested, layout: pack}

The dataclasses themselves live in :mod:`llkgen.generation.spec_model`, the lower module, and are
re-exported here; this module reads and validates, and only it imports the other, so there is no cycle.
"""

from __future__ import annotations

import difflib
import os
import re
from importlib import resources
from typing import Any, NoReturn, Sequence

from llkgen.analysis.ladder import BATCH, MODELS, TIERS
from llkgen.errors import SpecError
from llkgen.files import read_bounded
from llkgen.formats.shapes import FILES_LAYOUT_MAX, GRID_SHAPES, LAYOUTS, GridShape, Layout
from llkgen.game.board import GRAVITIES, MAX_SIDE, MAX_TYPE, Gravity, Rules
from llkgen.generation.limits import SPECS_PACKAGE, STARTER, shipped_specs
from llkgen.generation.spec_model import (
    LAYOUT_EMPTY,
    LAYOUT_TILE,
    LAYOUT_WALL,
    MAX_COUNT,
    MAX_SEED,
    METRICS,
    RAMP_SCORE,
    RAMP_TIER,
    STRATEGIES,
    BoardSpec,
    DifficultySpec,
    ExportSpec,
    GeneratorSpec,
    GradingSpec,
    MetricRange,
    RampSpec,
    Spec,
    TilesSpec,
    VerifySpec,
    is_int,
)
from llkgen.generation.strictyaml import KeyIndex, KeyPath, ListIndex, describe, fmt_path, load_yaml, quote
from llkgen.verifier.verdict import DEFAULT_NODES

__all__ = [
    "BoardSpec",
    "DifficultySpec",
    "ExportSpec",
    "GeneratorSpec",
    "MetricRange",
    "Spec",
    "TilesSpec",
    "VerifySpec",
    "load_spec",
    "load_spec_ref",
    "parse_spec",
    "shipped_specs",
    "starter_spec",
    "spec_from_dict",
    "LAYOUT_TILE",
    "LAYOUT_EMPTY",
    "LAYOUT_WALL",
    "STRATEGIES",
    "METRICS",
]

MAX_ATTEMPTS = 1_000_000
MAX_PLAYTHROUGHS = 100_000
#: The finest precisions a spec may ask for (the score's in points, a clear rate's), and the
#: most playthroughs per model.
MIN_PRECISION = 0.25
MIN_RATE_PRECISION = 0.005
MAX_RUNS_LIMIT = 1 << 20
#: A target window's half-width must be at least this many standard errors of its measurement.
WINDOW_SE = 2.0
MAX_VERIFY_NODES = 10**9
#: A spec is a few dozen lines; refusing megabytes keeps the pure-Python YAML parser fast.
MAX_SPEC_BYTES = 1 << 20
#: A spec's name: it names the level ids ``NAME-N``, so the level files ``NAME-N.json`` of the
#: ``files`` layout (:func:`llkgen.formats.packfiles.level_file_name`, whose rule this is), and the
#: default output ``output/NAME.json``. Not starting with ``.`` or ``-``: such a file is hidden, or
#: read as an option by a shell command, and ``level_file_name`` refuses it.
_NAME_RE = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.-]{0,99}")
#: What :data:`_NAME_RE` accepts, as messages say it.
NAME_RULE = "a file-name-safe name of 1..100 characters from A-Z a-z 0-9 _ . - (not starting with . or -)"


def name_ok(name: object) -> bool:
    """Whether ``name`` can be a spec's name (:data:`_NAME_RE`): every level id ``NAME-N`` it
    gives is then a level file name of every layout."""
    return isinstance(name, str) and _NAME_RE.fullmatch(name) is not None


# --------------------------------------------------------------------------- validation helpers

_MISSING = object()


def _is_number(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


class _Checker:
    def __init__(self, source: str, index: KeyIndex) -> None:
        self.source = source
        self.index = index

    def _where(self, path: KeyPath) -> str:
        # The nearest recorded ancestor gives the line; the whole document has none worth citing.
        p = path
        while p:
            line = self.index.line(p)
            if line is not None:
                return f"{self.source}:{line}"
            p = p[:-1]
        return self.source

    def fail(self, path: KeyPath, message: str) -> NoReturn:
        raise SpecError(f"{self._where(path)}: {fmt_path(path)}: {message}")

    def fail_at(self, path: KeyPath, message: str) -> NoReturn:
        """Like :meth:`fail` without repeating the path (the message already cites it)."""
        raise SpecError(f"{self._where(path)}: {message}")

    def expected(self, path: KeyPath, what: str, found: Any) -> NoReturn:
        hint = ""
        if isinstance(found, bool) and ("one of" in what or "string" in what or "name" in what):
            hint = " (YAML reads yes/no/on/off as booleans: quote the value)"
        self.fail(path, f"expected {what}, found {describe(found)}{hint}")

    def section(
        self,
        value: Any,
        path: KeyPath,
        keys: Sequence[str],
        required: Sequence[str] = (),
    ) -> dict:
        """Check a mapping: no unknown keys (with a did-you-mean), all required keys present.
        A null optional section means 'all defaults'."""
        if value is None and not required:
            return {}
        if not isinstance(value, dict):
            self.expected(path, f"a mapping with keys {', '.join(keys)}", value)
        for key in value:
            if key not in keys:
                child = path + (key,)
                close = difflib.get_close_matches(str(key), keys, n=1, cutoff=0.6)
                advice = (
                    f"did you mean {quote(close[0])}?"
                    if close
                    else "expected one of " + ", ".join(map(quote, keys))
                )
                self.fail_at(child, f"unknown key {quote(key)} at {fmt_path(child)}: {advice}")
        for key in required:
            if key not in value:
                where = fmt_path(path) if path else "the top level"
                self.fail_at(path, f"missing required key {quote(key)} in {where}")
        return value

    def integer(
        self, m: dict, path: KeyPath, key: str, lo: int, hi: int | None, default: Any = _MISSING
    ) -> int:
        v = m.get(key, default)
        what = f"an integer in {lo}..{hi}" if hi is not None else f"an integer >= {lo}"
        if not is_int(v) or v < lo or (hi is not None and v > hi):
            self.expected(path + (key,), what, v)
        return v

    def boolean(self, m: dict, path: KeyPath, key: str, default: bool) -> bool:
        v = m.get(key, default)
        if not isinstance(v, bool):
            self.expected(path + (key,), "true or false", v)
        return v

    def choice(self, m: dict, path: KeyPath, key: str, options: Sequence[str], default: str) -> str:
        v = m.get(key, default)
        if not isinstance(v, str) or v not in options:
            what = "one of " + ", ".join(options)
            if isinstance(v, str):
                close = difflib.get_close_matches(v, options, n=1, cutoff=0.6)
                if close:
                    self.fail(
                        path + (key,),
                        f"expected {what}, found {quote(v)}: did you mean {quote(close[0])}?",
                    )
            self.expected(path + (key,), what, v)
        return v


# --------------------------------------------------------------------------- the schema

_TOP_KEYS = (
    "name",
    "seed",
    "count",
    "board",
    "rules",
    "tiles",
    "generator",
    "difficulty",
    "verify",
    "grading",
    "ramp",
    "export",
)


def _check_board(ck: _Checker, value: Any) -> BoardSpec:
    path = ("board",)
    m = ck.section(value, path, ("rows", "cols", "layout"), required=("rows", "cols"))
    rows = ck.integer(m, path, "rows", 1, MAX_SIDE)
    cols = ck.integer(m, path, "cols", 1, MAX_SIDE)
    raw = m.get("layout")
    if raw is None:
        return BoardSpec(rows, cols, None)
    lpath = path + ("layout",)
    if not isinstance(raw, str):
        ck.expected(
            lpath, f'a multi-line string of {rows} lines x {cols} characters ("#", ".", "X")', raw
        )
    lines = raw.split("\n")
    # A "|" block ends with a newline; trailing blank lines are never meant as board rows.
    while lines and not lines[-1].strip():
        lines.pop()
    lines = [line.rstrip() for line in lines]
    node = ck.index.value_nodes.get(lpath)
    # In a "|" block, row r is on the line after the indicator plus r; other styles get no
    # per-row line numbers.
    first_line = (
        node.start_mark.line + 2
        if node is not None and getattr(node, "style", None) == "|"
        else None
    )

    def where(r: int) -> str:
        return f"{ck.source}:{first_line + r}" if first_line is not None else ck._where(lpath)

    if len(lines) != rows:
        hint = (
            ' (write the layout as a "|" block so its line breaks are kept)'
            if len(lines) == 1
            else ""
        )
        ck.fail(lpath, f"expected {rows} lines (board.rows), found {len(lines)}{hint}")
    for r, line in enumerate(lines):
        if len(line) != cols:
            raise SpecError(
                f"{where(r)}: board.layout row {r}: expected {cols} characters (board.cols), "
                f"found {len(line)} in {quote(line)}"
            )
        for c, ch in enumerate(line):
            if ch not in (LAYOUT_TILE, LAYOUT_EMPTY, LAYOUT_WALL):
                raise SpecError(
                    f'{where(r)}: board.layout row {r}, col {c} (0-based): expected "#" (tile cell), '
                    f'"." (empty) or "X" (wall), found {quote(ch)}'
                )
    return BoardSpec(rows, cols, tuple(lines))


def _check_rules(ck: _Checker, value: Any) -> Rules:
    path = ("rules",)
    m = ck.section(value, path, ("border", "gravity"))
    return Rules(
        border=ck.boolean(m, path, "border", True),
        gravity=Gravity(ck.choice(m, path, "gravity", GRAVITIES, "none")),
    )


def _check_tiles(ck: _Checker, value: Any, tile_cells: int, cells_desc: str) -> TilesSpec:
    path = ("tiles",)
    if value is None:
        ck.expected(path, 'a mapping with "types" (and optional "copies") or "distribution"', value)
    m = ck.section(value, path, ("types", "copies", "distribution"))
    if "distribution" in m:
        if "types" in m or "copies" in m:
            ck.fail(
                path,
                'expected either "types" (with optional "copies") or "distribution", found both',
            )
        dpath = path + ("distribution",)
        raw = m["distribution"]
        if not isinstance(raw, dict) or not raw:
            ck.expected(
                dpath, "a non-empty mapping of type id to even count, e.g. {1: 4, 2: 2}", raw
            )
        by_type: dict[int, int] = {}
        for key, count in raw.items():
            kpath = dpath + (key,)
            # Decimal strings are accepted so that a spec embedded in JSON (where keys become
            # strings) loads back unchanged.
            tid = (
                int(key) if isinstance(key, str) and re.fullmatch(r"[1-9][0-9]{0,5}", key) else key
            )
            if not is_int(tid) or not 1 <= tid <= MAX_TYPE:
                ck.fail_at(
                    kpath,
                    f"{fmt_path(dpath)}: expected type ids in 1..{MAX_TYPE}, found key {describe(key)}",
                )
            if tid in by_type:
                ck.fail(kpath, f"type {tid} is listed twice")
            if not is_int(count) or count < 2 or count % 2 or count > MAX_SIDE * MAX_SIDE:
                ck.expected(
                    kpath,
                    f"an even count in 2..{MAX_SIDE * MAX_SIDE} (tiles are removed in pairs)",
                    count,
                )
            by_type[tid] = count
        tiles = TilesSpec(tuple(sorted(by_type.items())))
        summary = f"{len(by_type)} types in tiles.distribution"
    else:
        if "types" not in m:
            ck.fail_at(
                path,
                'tiles: expected "types" (with optional "copies") or "distribution", found neither',
            )
        types = ck.integer(m, path, "types", 1, MAX_SIDE * MAX_SIDE // 2)
        copies = m.get("copies", 4)
        if not is_int(copies) or copies < 2 or copies % 2 or copies > MAX_SIDE * MAX_SIDE:
            ck.expected(
                path + ("copies",),
                f"an even integer in 2..{MAX_SIDE * MAX_SIDE} (tiles are removed in pairs)",
                copies,
            )
        tiles = TilesSpec(tuple((t, copies) for t in range(1, types + 1)))
        summary = f"{types} types x {copies} copies"
    if tiles.total != tile_cells:
        ck.fail(
            path,
            f"expected {tile_cells} tiles to fill {cells_desc}, found {tiles.total} ({summary})",
        )
    return tiles


def _check_range(ck: _Checker, m: dict, path: KeyPath, metric: str, top: float | None = None) -> MetricRange | None:
    raw = m.get(metric)
    if raw is None:
        return None
    mpath = path + (metric,)
    top = top if top is not None else {"random_clear_rate": 1, "score": 100}.get(metric)
    is_rate = top is not None
    what = f"a number in 0..{top}" if is_rate else "an integer >= 0"
    if not isinstance(raw, list) or len(raw) != 2:
        ck.expected(mpath, f"[min, max] where each is {what} or null", raw)
    bounds = []
    for i, v in enumerate(raw):
        if is_rate:
            ok = v is None or (_is_number(v) and 0 <= v <= (top or 1))
        else:
            ok = v is None or (is_int(v) and v >= 0)
        if not ok:
            ck.expected(mpath + (ListIndex(i),), f"{what} or null", v)
        bounds.append(float(v) if is_rate and v is not None else v)
    low, high = bounds
    if low is not None and high is not None and low > high:
        ck.fail(mpath, f"expected min <= max, found [{describe(raw[0])}, {describe(raw[1])}]")
    return MetricRange(low, high)


def _number(ck: _Checker, m: dict, path: KeyPath, key: str, lo: float, hi: float, default: float) -> float:
    v = m.get(key, default)
    if not _is_number(v) or not lo <= v <= hi:
        ck.expected(path + (key,), f"a number in {lo:g}..{hi:g}", v)
    return float(v)


def _check_tiers(ck: _Checker, m: dict, path: KeyPath) -> tuple[str, ...] | None:
    """``tier``: one tier name, or a list of them (any of which is accepted)."""
    raw = m.get("tier")
    if raw is None:
        return None
    values = raw if isinstance(raw, list) else [raw]
    if not values:
        ck.expected(path + ("tier",), "a tier name or a non-empty list of them", raw)
    for i, v in enumerate(values):
        where = path + (("tier", ListIndex(i)) if isinstance(raw, list) else ("tier",))
        if not isinstance(v, str) or v not in TIERS:
            ck.expected(where, "a tier: one of " + ", ".join(TIERS), v)
    return tuple(t for t in TIERS if t in values)


def _check_clear_rates(ck: _Checker, m: dict, path: KeyPath) -> tuple[tuple[str, MetricRange], ...]:
    """``clear_rate``: ``{model: [min, max]}``, rates in 0..1, kept in ladder order."""
    raw = m.get("clear_rate")
    if raw is None:
        return ()
    cpath = path + ("clear_rate",)
    cm = ck.section(raw, cpath, MODELS)
    out = []
    for model in MODELS:
        if model in cm:
            r = _check_range(ck, cm, cpath, model, top=1)
            if r is not None:
                out.append((model, r))
    return tuple(out)


def _check_difficulty(ck: _Checker, value: Any) -> DifficultySpec:
    path = ("difficulty",)
    m = ck.section(value, path, METRICS + ("score", "playthroughs", "tier", "clear_rate"))
    ranges = {metric: _check_range(ck, m, path, metric) for metric in METRICS + ("score",)}
    playthroughs = ck.integer(m, path, "playthroughs", 1, MAX_PLAYTHROUGHS, default=32)
    return DifficultySpec(**ranges, playthroughs=playthroughs, tier=_check_tiers(ck, m, path),
                          clear_rate=_check_clear_rates(ck, m, path))


#: Keys of the exact grading the player ladder replaced, and what to write instead.
_RETIRED_GRADING = {
    "playthroughs": "the score is now measured by model players to a set error: use grading.precision "
                    "(points, default 1.5), or grading.enabled: false to skip it",
    "nodes": "the score no longer labels moves with the verifier: remove it (grading.precision sets "
             "how precisely the score is measured)",
}


def _check_grading(ck: _Checker, value: Any) -> GradingSpec:
    path = ("grading",)
    if isinstance(value, dict):
        for key, why in _RETIRED_GRADING.items():
            if key in value:
                ck.fail_at(path + (key,), f"grading.{key}: no longer a spec key: {why}")
    m = ck.section(value, path, ("enabled", "precision", "rate_precision", "max_runs"))
    return GradingSpec(enabled=ck.boolean(m, path, "enabled", True),
                       precision=_number(ck, m, path, "precision", MIN_PRECISION, 50, 1.5),
                       rate_precision=_number(ck, m, path, "rate_precision", MIN_RATE_PRECISION, 0.5, 0.03),
                       max_runs=ck.integer(m, path, "max_runs", BATCH, MAX_RUNS_LIMIT, default=1024))


def _check_ramp(ck: _Checker, value: Any) -> RampSpec | None:
    if value is None:
        return None
    path = ("ramp",)
    m = ck.section(value, path, ("over", "from", "to", "tolerance"), required=("from", "to"))
    overs = (RAMP_SCORE, RAMP_TIER) + tuple(f"clear_rate.{model}" for model in MODELS)
    over = ck.choice(m, path, "over", overs, RAMP_SCORE)
    if over == RAMP_TIER:
        if "tolerance" in m:
            ck.fail_at(path + ("tolerance",), "ramp.tolerance: not allowed with over: tier: each level's "
                       "tier is the ramp's, exactly")
        ends = []
        for key in ("from", "to"):
            v = m[key]
            if not isinstance(v, str) or v not in TIERS:
                ck.expected(path + (key,), "a tier: one of " + ", ".join(TIERS), v)
            ends.append(float(TIERS.index(v)))
        return RampSpec(ends[0], ends[1], 0.0, over)
    top, low_tol, default_tol = (100.0, 0.5, 5.0) if over == RAMP_SCORE else (1.0, 0.005, 0.1)
    bounds = [_number(ck, m, path, key, 0, top, default_tol) for key in ("from", "to")]
    tolerance = _number(ck, m, path, "tolerance", low_tol, top, default_tol)
    return RampSpec(bounds[0], bounds[1], tolerance, over)


def _check_measurable(ck: _Checker, difficulty: DifficultySpec, grading: GradingSpec,
                      ramp: RampSpec | None) -> None:
    """Targets on the ladder need it enabled, and windows no tighter than it can measure:
    a window's half-width (a ramp's tolerance) must be at least :data:`WINDOW_SE` standard
    errors, so that a level whose true value is in the middle lands in it at least 95% of
    the time."""
    asks = ramp is not None or difficulty.score is not None or difficulty.tier is not None or difficulty.clear_rate
    if asks and not grading.enabled:
        ck.fail_at(("grading", "enabled"), "grading.enabled: expected true, found false: the spec sets "
                   "difficulty targets (score, tier, clear_rate or ramp), which the player ladder measures")
    if ramp is not None and ramp.over != RAMP_TIER:
        se = grading.precision if ramp.over == RAMP_SCORE else grading.rate_precision
        key = "precision" if ramp.over == RAMP_SCORE else "rate_precision"
        if ramp.tolerance < WINDOW_SE * se:
            ck.fail_at(("ramp", "tolerance"),
                       f"ramp.tolerance: expected at least {WINDOW_SE:g} x grading.{key} = {WINDOW_SE * se:g}, "
                       f"found {ramp.tolerance:g}: a window tighter than the measurement's error rejects "
                       f"levels that are on target; widen it, or lower grading.{key} (more playthroughs)")
    windows = [("difficulty.score", difficulty.score, grading.precision, "precision")]
    windows += [(f"difficulty.clear_rate.{mdl}", r, grading.rate_precision, "rate_precision")
                for mdl, r in difficulty.clear_rate]
    for where, r, se, key in windows:
        if r is not None and r.low is not None and r.high is not None and (r.high - r.low) / 2 < WINDOW_SE * se:
            ck.fail_at(tuple(where.split(".")),
                       f"{where}: expected a window at least {2 * WINDOW_SE * se:g} wide (2 x {WINDOW_SE:g} "
                       f"x grading.{key}), found [{r.low:g}, {r.high:g}]: it is tighter than the "
                       f"measurement's error; widen it, or lower grading.{key}")


def _check_export(ck: _Checker, value: Any, name: str, count: int) -> ExportSpec:
    path = ("export",)
    m = ck.section(value, path, ("path", "solutions", "grid", "layout"))
    out = m.get("path", f"output/{name}.json")
    if not isinstance(out, str) or not out.strip() or "\0" in out:
        ck.expected(path + ("path",), "a non-empty file path", out)
    layout = Layout(ck.choice(m, path, "layout", LAYOUTS, Layout.PACK.value))
    if layout == Layout.FILES and count > FILES_LAYOUT_MAX:
        ck.fail(path + ("layout",), f"expected at most {FILES_LAYOUT_MAX} levels for layout files (one "
                                    f"file per level), found count {count}: use layout: pack")
    return ExportSpec(path=out, solutions=ck.boolean(m, path, "solutions", True),
                      grid=GridShape(ck.choice(m, path, "grid", GRID_SHAPES, GridShape.NESTED.value)),
                      layout=layout)


def spec_from_dict(data: Any, source: str = "<dict>", *, _index: KeyIndex | None = None) -> Spec:
    """Validate already-parsed data (e.g. :meth:`Spec.to_dict` output, or JSON) into a Spec."""
    ck = _Checker(source, _index or KeyIndex())
    if data is None:
        raise SpecError(
            f"{source}: expected a mapping of spec keys (name, board, tiles, ...), found an empty document"
        )
    if not isinstance(data, dict):
        raise SpecError(
            f"{source}: expected a mapping of spec keys (name, board, tiles, ...) at the top level, "
            f"found {describe(data)}"
        )
    m = ck.section(data, (), _TOP_KEYS, required=("name", "board", "tiles"))
    name = m["name"]
    if not name_ok(name):
        ck.expected(("name",), NAME_RULE, name)
    seed = ck.integer(m, (), "seed", 0, MAX_SEED, default=0)
    count = ck.integer(m, (), "count", 1, MAX_COUNT, default=1)
    board = _check_board(ck, m["board"])
    rules = _check_rules(ck, m.get("rules"))
    if board.layout is None:
        tile_cells = board.rows * board.cols
        cells_desc = f"the {board.rows}x{board.cols} board"
    else:
        tile_cells = sum(line.count(LAYOUT_TILE) for line in board.layout)
        cells_desc = f'the {tile_cells} "#" cells of board.layout'
    tiles = _check_tiles(ck, m["tiles"], tile_cells, cells_desc)
    gm = ck.section(m.get("generator"), ("generator",), ("strategy", "max_attempts"))
    generator = GeneratorSpec(
        strategy=ck.choice(gm, ("generator",), "strategy", STRATEGIES, "shuffle"),
        max_attempts=ck.integer(gm, ("generator",), "max_attempts", 1, MAX_ATTEMPTS, default=200),
    )
    difficulty = _check_difficulty(ck, m.get("difficulty"))
    vm = ck.section(m.get("verify"), ("verify",), ("nodes",))
    verify = VerifySpec(
        nodes=ck.integer(vm, ("verify",), "nodes", 1, MAX_VERIFY_NODES, default=DEFAULT_NODES)
    )
    grading = _check_grading(ck, m.get("grading"))
    ramp = _check_ramp(ck, m.get("ramp"))
    if ramp is not None and ramp.over == RAMP_SCORE and difficulty.score is not None:
        ck.fail_at(("ramp",), "ramp: expected either ramp or difficulty.score, found both: the ramp "
                   "sets each level's score window")
    if ramp is not None and ramp.over == RAMP_TIER and difficulty.tier is not None:
        ck.fail_at(("ramp",), "ramp: expected either a tier ramp or difficulty.tier, found both: the ramp "
                   "sets each level's tier")
    if ramp is not None and ramp.over.startswith("clear_rate.") and ramp.over[11:] in dict(difficulty.clear_rate):
        ck.fail_at(("ramp",), f"ramp: expected either a ramp over {ramp.over} or difficulty.{ramp.over}, "
                   "found both: the ramp sets each level's window")
    _check_measurable(ck, difficulty, grading, ramp)
    export = _check_export(ck, m.get("export"), name, count)
    return Spec(
        name=name,
        board=board,
        tiles=tiles,
        export=export,
        seed=seed,
        count=count,
        rules=rules,
        generator=generator,
        difficulty=difficulty,
        verify=verify,
        grading=grading,
        ramp=ramp,
        source=source,
    )


def parse_spec(text: str | bytes, source: str = "<string>") -> Spec:
    """Parse and validate spec YAML. Raises only :class:`SpecError`, whose message starts with
    ``source``. Bytes must be UTF-8 (a BOM is allowed)."""
    if isinstance(text, (bytes, bytearray)):
        if len(text) > MAX_SPEC_BYTES:
            raise SpecError(
                f"{source}: expected a spec of at most {MAX_SPEC_BYTES} bytes, found {len(text)}"
            )
        try:
            text = bytes(text).decode("utf-8-sig")
        except UnicodeDecodeError as e:
            raise SpecError(
                f"{source}: expected UTF-8 text, found byte 0x{text[e.start]:02x} at offset {e.start}"
            ) from None
    if not isinstance(text, str):
        raise SpecError(f"{source}: expected YAML text, found {describe(text)}")
    if len(text) > MAX_SPEC_BYTES:
        raise SpecError(
            f"{source}: expected a spec of at most {MAX_SPEC_BYTES} characters, found {len(text)}"
        )
    data, index = load_yaml(text, source)
    return spec_from_dict(data, source, _index=index)


def load_spec(path: str | os.PathLike) -> Spec:
    """Read and validate a spec file. The file name as given is the ``source`` in messages.
    An input over :data:`MAX_SPEC_BYTES` (or an endless one such as ``/dev/zero``) is refused
    without being read whole."""
    source = os.fspath(path)
    data = read_bounded(path, MAX_SPEC_BYTES, "a YAML spec", SpecError)
    return parse_spec(data, source=str(source))


# --------------------------------------------------------------------------- shipped specs

# SPECS_PACKAGE, STARTER and shipped_specs live in llkgen.generation.limits, for the CLI.


def _shipped(name: str) -> Any:
    return resources.files(SPECS_PACKAGE).joinpath(f"{name}.yaml")


def load_spec_ref(ref: str | os.PathLike) -> Spec:
    """:func:`load_spec` for a file; for a bare name with no file of that name (no directory
    part, no ``.yaml``), the shipped spec of that name, so ``llkgen make --config easy`` works
    anywhere. Raises :class:`SpecError` naming both possibilities when neither exists."""
    text = os.fspath(ref)
    bare = text and os.sep not in text and "/" not in text and not text.endswith((".yaml", ".yml"))
    if not bare or os.path.lexists(text):
        return load_spec(text)
    names = shipped_specs()
    if text not in names:
        raise SpecError(f"{text}: no such file, and no shipped spec of that name: expected a YAML "
                        f"file or one of {', '.join(names)}")
    resource = _shipped(text)
    return parse_spec(resource.read_bytes(), source=str(resource))


#: The spec's JSON Schema as ``llkgen init`` writes it beside each spec (:func:`write_spec_schema`);
#: the first line of a :func:`starter_spec` names it, relative to the spec, for editors.
SPEC_SCHEMA_FILE = "llkgen-spec.schema.json"


def starter_spec(name: str) -> str:
    """The text of a new spec named ``name``: the shipped :data:`STARTER` spec, every key
    commented, with its name, output path and title changed, under a ``yaml-language-server``
    modeline naming :data:`SPEC_SCHEMA_FILE` in the spec's directory, so an editor completes
    and checks it offline. Raises :class:`SpecError` for a name a spec cannot have."""
    if not name_ok(name):
        raise SpecError(f"NAME: expected {NAME_RULE}, found {quote(name)}")
    lines = _shipped(STARTER).read_text("utf-8").splitlines(keepends=True)
    out = [f"# yaml-language-server: $schema=./{SPEC_SCHEMA_FILE}\n",
           f"# {name}.yaml: the shipped {STARTER} spec, renamed by llkgen init. Build it with:  "
           f"llkgen make --config {name}.yaml\n"]
    for line in lines[1:]:
        if line.startswith(f"name: {STARTER} "):
            line = _with_value(line, STARTER, name)
        elif line.lstrip().startswith(f"path: output/{STARTER}.json "):
            line = _with_value(line, f"output/{STARTER}.json", f"output/{name}.json")
        out.append(line)
    text = "".join(out)
    parse_spec(text, source=f"{name}.yaml")  # the starter is a valid spec, or this is a bug
    return text


def write_spec_schema(directory: str | os.PathLike) -> str:
    """Write the spec schema (``llkgen schema spec``) to :data:`SPEC_SCHEMA_FILE` in ``directory``,
    atomically, for the modeline of the specs there; an identical file is left alone. Returns its
    path. Raises :class:`~llkgen.errors.OutputError` when a different file (or anything else) is
    there, which is never overwritten, or when the file cannot be written."""
    from llkgen.errors import OutputError
    from llkgen.files import write_text_atomic
    from llkgen.formats.schemas import schema_text

    path = os.path.join(os.fspath(directory), SPEC_SCHEMA_FILE)
    text = schema_text("spec")
    data = text.encode("utf-8")
    if not os.path.lexists(path):
        write_text_atomic(path, text)
        return path
    same = False
    try:  # the size first: a named pipe or a huge file there is never read
        if os.path.isfile(path) and os.path.getsize(path) == len(data):
            with open(path, "rb") as f:
                same = f.read() == data
    except OSError:
        pass
    if not same:
        raise OutputError(f"{path}: already exists and is not this llkgen's spec schema: expected that schema "
                          f"or no file (to update it: llkgen schema spec > {path}; or choose another --out)")
    return path


def _with_value(line: str, old: str, new: str) -> str:
    """``line`` with the value ``old`` replaced by ``new``, its comment kept in its column."""
    code, comment = line.split(" #", 1)
    code = code.rstrip().replace(old, new)
    return f"{code.ljust(len(line.split(' #', 1)[0]))} #{comment}"
