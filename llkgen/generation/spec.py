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

import os
import re
from typing import Any

from llkgen.errors import SpecError
from llkgen.files import read_bounded
from llkgen.formats.shapes import FILES_LAYOUT_MAX, GRID_SHAPES, LAYOUTS, GridShape, Layout
from llkgen.game.board import GRAVITIES, MAX_SIDE, MAX_TYPE, Gravity, Rules
from llkgen.generation.checker import Checker
from llkgen.generation.limits import shipped_specs, specs_dir
from llkgen.generation.spec_model import (
    LAYOUT_EMPTY,
    LAYOUT_TILE,
    LAYOUT_WALL,
    MAX_COUNT,
    MAX_SEED,
    METRICS,
    RAMP_PREDICTED,
    RAMP_SCORE,
    RAMP_TIER,
    STRATEGIES,
    BoardSpec,
    DifficultySpec,
    ExportSpec,
    GeneratorSpec,
    MetricRange,
    Spec,
    TilesSpec,
    VerifySpec,
    is_int,
)
from llkgen.generation.spec_targets import check_difficulty, check_grading, check_measurable, check_ramp
from llkgen.generation.strictyaml import KeyIndex, describe, fmt_path, load_yaml, quote
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
    "shipped_spec_file",
    "spec_from_dict",
    "LAYOUT_TILE",
    "LAYOUT_EMPTY",
    "LAYOUT_WALL",
    "STRATEGIES",
    "METRICS",
]

MAX_ATTEMPTS = 1_000_000
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


def _check_board(ck: Checker, value: Any) -> BoardSpec:
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


def _check_rules(ck: Checker, value: Any) -> Rules:
    path = ("rules",)
    m = ck.section(value, path, ("border", "gravity"))
    return Rules(
        border=ck.boolean(m, path, "border", True),
        gravity=Gravity(ck.choice(m, path, "gravity", GRAVITIES, "none")),
    )


def _check_tiles(ck: Checker, value: Any, tile_cells: int, cells_desc: str) -> TilesSpec:
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


def _check_export(ck: Checker, value: Any, name: str, count: int) -> ExportSpec:
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
    ck = Checker(source, _index or KeyIndex())
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
    difficulty = check_difficulty(ck, m.get("difficulty"))
    vm = ck.section(m.get("verify"), ("verify",), ("nodes",))
    verify = VerifySpec(
        nodes=ck.integer(vm, ("verify",), "nodes", 1, MAX_VERIFY_NODES, default=DEFAULT_NODES)
    )
    grading = check_grading(ck, m.get("grading"))
    ramp = check_ramp(ck, m.get("ramp"))
    if ramp is not None and ramp.over == RAMP_SCORE and difficulty.score is not None:
        ck.fail_at(("ramp",), "ramp: expected either ramp or difficulty.score, found both: the ramp "
                   "sets each level's score window")
    if ramp is not None and ramp.over == RAMP_TIER and difficulty.tier is not None:
        ck.fail_at(("ramp",), "ramp: expected either a tier ramp or difficulty.tier, found both: the ramp "
                   "sets each level's tier")
    if ramp is not None and ramp.over.startswith("clear_rate.") and ramp.over[11:] in dict(difficulty.clear_rate):
        ck.fail_at(("ramp",), f"ramp: expected either a ramp over {ramp.over} or difficulty.{ramp.over}, "
                   "found both: the ramp sets each level's window")
    if ramp is not None and ramp.over == RAMP_PREDICTED and difficulty.predicted is not None:
        ck.fail_at(("ramp",), "ramp: expected either a ramp over predicted_clear_rate or a difficulty.clear_rate "
                   "window, found both: the ramp sets each level's window")
    check_measurable(ck, difficulty, grading, ramp)
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

# SPECS_PACKAGE, STARTER, specs_dir and shipped_specs live in llkgen.generation.limits, for the CLI.


def shipped_spec_file(name: str) -> Any:
    """The shipped spec ``name``'s file, inside the package."""
    return specs_dir().joinpath(f"{name}.yaml")


def load_spec_ref(ref: str | os.PathLike) -> Spec:
    """:func:`load_spec` for a file; for a bare name with no file of that name (no directory
    part, no ``.yaml``), the shipped spec of that name, so ``llkgen make --config easy`` works
    anywhere -- also beside a directory of that name (a folder ``ramp/`` of a studio's ramp
    levels does not hide the shipped ``ramp``). Raises :class:`SpecError` naming both
    possibilities when neither exists."""
    text = os.fspath(ref)
    bare = text and os.sep not in text and "/" not in text and not text.endswith((".yaml", ".yml"))
    if not bare or (os.path.lexists(text) and not (os.path.isdir(text) and text in shipped_specs())):
        return load_spec(text)
    names = shipped_specs()
    if text not in names:
        raise SpecError(f"{text}: no such file, and no shipped spec of that name: expected a YAML "
                        f"file or one of {', '.join(names)}")
    resource = shipped_spec_file(text)
    return parse_spec(resource.read_bytes(), source=str(resource))
