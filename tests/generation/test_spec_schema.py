"""The spec's JSON Schema (llkgen/schemas/spec.schema.json) against the spec reader
(:mod:`llkgen.generation.spec`): every shipped spec and every ``llkgen init`` spec matches it, the
specs the reader refuses for a type, a key or a range it refuses too, its keys, enums, integer
ranges and defaults are the ones the reader uses, and ``llkgen init`` writes it beside the spec
that names it in its first line.

An editor's yaml-language-server validates with draft-07 semantics in older releases, so the
schema keeps to keywords that mean the same in draft-07 and 2020-12, and every table below is
checked by a draft-07 validator as well."""

from __future__ import annotations

import copy
import inspect
import json
import os
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import jsonschema
import pytest
import yaml

import llkgen
import llkgen.generation.spec as reader
from llkgen.analysis.ladder import MODELS, TIERS
from llkgen.errors import EXIT_FAILED, OutputError, SpecError
from llkgen.formats.schemas import validate
from llkgen.generation.checker import MISSING, Checker
from llkgen.generation.limits import SPECS_PACKAGE, shipped_specs, specs_dir
from llkgen.generation.spec import parse_spec
from llkgen.generation.starter import SPEC_SCHEMA_FILE, starter_spec, write_spec_schema
from llkgen.generation.strictyaml import load_yaml

from cli_runner import run_cli_in_process
from paths import CONFIGS

SCHEMA_PATH = Path(llkgen.__file__).resolve().parent / "schemas" / "spec.schema.json"
SCHEMA: dict[str, Any] = json.loads(SCHEMA_PATH.read_text("utf-8"))
LATEST = jsonschema.Draft202012Validator(SCHEMA)
DRAFT7 = jsonschema.Draft7Validator(SCHEMA)

#: How yaml-language-server finds the modeline and its schema (services/modelineUtil.ts).
MODELINE = re.compile(r"^#\s+(?:yaml-language-server\s*:|\$schema:)")
MODELINE_SCHEMA = re.compile(r"\$schema(?:=|:\s*)(\S+)")

#: Keywords that mean the same in draft-07 and 2020-12 (no $defs, prefixItems, dependentRequired,
#: unevaluated*): the schema uses no others.
PORTABLE = {"$schema", "$id", "title", "description", "examples", "default", "type", "enum", "const",
            "properties", "required", "additionalProperties", "propertyNames", "minProperties", "items",
            "minItems", "maxItems", "minimum", "maximum", "multipleOf", "pattern", "if", "then", "else",
            "not", "anyOf", "allOf"}

#: The smallest spec; the tables below change it.
BASE: dict[str, Any] = {"name": "t", "board": {"rows": 2, "cols": 3}, "tiles": {"types": 3, "copies": 2}}
#: Every section present and not null, so the reader checks every section (a score ramp, so no
#: difficulty.score).
FULL = """\
name: full
seed: 7
count: 3
board:
  rows: 3
  cols: 4
  layout: |
    ####
    #XX#
    ####
rules: {border: false, gravity: left}
tiles: {types: 5, copies: 2}
generator: {strategy: constructive, max_attempts: 9}
difficulty:
  initial_moves: [1, null]
  random_clear_rate: [0.1, 1]
  verify_nodes: [null, 900]
  playthroughs: 8
  tier: [nearest, careful]
  clear_rate: {careful: [0.2, 0.9], deep: null}
verify: {nodes: 1000}
grading: {enabled: true, precision: 1, rate_precision: 0.02, max_runs: 8192}
ramp: {over: score, from: 10, to: 40, tolerance: 2.5}
export: {path: out/full, solutions: false, grid: flat, layout: files}
"""
DROP = object()


def as_json(text: str) -> Any:
    """The spec as JSON data, which is what an editor checks: YAML read as the reader reads it,
    mapping keys turned into strings."""
    data, _ = load_yaml(text, "t.yaml")
    return json.loads(json.dumps(data))


def changed(changes: dict[str, Any], base: dict[str, Any] = BASE) -> Any:
    """``base`` with each dotted key path set (:data:`DROP`: removed); ``$`` replaces the whole document."""
    if "$" in changes:
        return changes["$"]
    doc = copy.deepcopy(base)
    for dotted, value in changes.items():
        *parents, last = dotted.split(".")
        node = doc
        for key in parents:
            node = node.setdefault(key, {})
        if value is DROP:
            del node[last]
        else:
            node[last] = value
    return doc


def dump(doc: Any) -> str:
    return yaml.safe_dump(doc, sort_keys=False, allow_unicode=True)


def where(path: Any) -> str:
    return ".".join(str(p) for p in path)


def schema_errors(instance: Any) -> set[str]:
    """The key paths the schema finds fault with (``""``: the top level)."""
    return {where(e.absolute_path) for e in LATEST.iter_errors(instance)}


def objects(node: dict[str, Any], path: tuple[str, ...] = ()) -> Iterator[tuple[tuple[str, ...], dict[str, Any]]]:
    """Every object schema with named properties, by key path: the sections a spec can have."""
    if "properties" in node:
        yield path, node
        for key, sub in node["properties"].items():
            yield from objects(sub, path + (key,))


def leaves(node: dict[str, Any], path: tuple[str, ...] = ()) -> Iterator[tuple[tuple[str, ...], dict[str, Any]]]:
    """Every value schema that is not a section, by key path; ``[]`` stands for any item of an
    array, ``*`` for the value of any key of a free mapping (tiles.distribution)."""
    for key, sub in node.get("properties", {}).items():
        p = path + (key,)
        if "properties" in sub:
            yield from leaves(sub, p)
            continue
        yield p, sub
        if isinstance(sub.get("items"), dict):
            yield p + ("[]",), sub["items"]
        if isinstance(sub.get("additionalProperties"), dict):
            yield p + ("*",), sub["additionalProperties"]


def keywords(node: Any) -> Iterator[str]:
    """The keywords of every subschema of ``node``."""
    if not isinstance(node, dict):
        return
    yield from node
    for key in ("properties",):
        for sub in node.get(key, {}).values():
            yield from keywords(sub)
    for key in ("additionalProperties", "items", "propertyNames", "if", "then", "else", "not"):
        yield from keywords(node.get(key))
    for key in ("anyOf", "allOf"):
        for sub in node.get(key, []):
            yield from keywords(sub)


def types_of(node: dict[str, Any]) -> list[str]:
    t = node.get("type", [])
    return t if isinstance(t, list) else [t]


# -- the schema itself ---------------------------------------------------------------------------------
def test_the_schema_is_self_contained_2020_12_and_portable_to_draft_07():
    jsonschema.Draft202012Validator.check_schema(SCHEMA)
    jsonschema.Draft7Validator.check_schema(SCHEMA)
    assert SCHEMA["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    assert SCHEMA["$id"] == "https://llkgen.example/schemas/spec.schema.json"
    assert "$ref" not in SCHEMA_PATH.read_text("utf-8")  # nothing to fetch, nothing to resolve
    assert set(keywords(SCHEMA)) <= PORTABLE, set(keywords(SCHEMA)) - PORTABLE
    # A designer hovering any key is told what it means.
    for path, node in [*objects(SCHEMA), *leaves(SCHEMA)]:
        if path and path[-1] not in ("[]", "*"):
            assert node.get("description"), f"{where(path)} has no description"


# -- what the reader accepts, the schema accepts -------------------------------------------------------
def shipped_texts() -> Iterator[Any]:
    for path in sorted(CONFIGS.glob("*.yaml")):
        yield pytest.param(path.read_text("utf-8"), id=f"configs/{path.name}")
    for name in shipped_specs():
        text = specs_dir().joinpath(f"{name}.yaml").read_text("utf-8")
        yield pytest.param(text, id=f"{SPECS_PACKAGE}:{name}")
    for name in ("levels", "castle", "my-levels.v2", "a" * 100):
        yield pytest.param(starter_spec(name), id=f"init {name[:20]}")
    yield pytest.param(FULL, id="full")


@pytest.mark.parametrize("text", list(shipped_texts()))
def test_every_shipped_and_init_spec_matches_the_schema(text):
    spec = parse_spec(text)
    for instance in (as_json(text), json.loads(json.dumps(spec.to_dict()))):  # as written, and normalised
        assert sorted(map(str, LATEST.iter_errors(instance))) == []
        assert DRAFT7.is_valid(instance)


def test_the_configs_are_the_shipped_specs():
    assert sorted(p.stem for p in CONFIGS.glob("*.yaml")) == shipped_specs()


GOOD = [
    ("null-sections", {"rules": None, "generator": None, "difficulty": None, "verify": None, "grading": None,
                       "ramp": None, "export": None}),
    ("open-windows", {"difficulty": {"initial_moves": [None, None], "random_clear_rate": [0, 1],
                                     "verify_nodes": [0, None], "score": [None, 100]}}),
    ("null-window", {"difficulty.initial_moves": None, "difficulty.score": None}),
    ("layout-trailing-space-and-blank-lines", {"board.layout": "#.#   \n#X#\n\n  \n", "tiles.types": 2}),
    ("layout-folded-as-string", {"board.layout": "###\n###"}),
    ("distribution", {"tiles": {"distribution": {1: 4, 9999: 2}}}),
    ("distribution-json-keys", {"tiles": {"distribution": {"1": 4, "2": 2}}}),
    ("ramp-alone", {"ramp": {"from": 60, "to": 25}}),
    ("ramp-with-null-score", {"ramp": {"from": 0, "to": 100, "tolerance": 0.5}, "difficulty.score": None,
                              "grading.precision": 0.25, "grading.max_runs": 8192}),
    ("score-ramp-with-tier", {"ramp": {"over": "score", "from": 10, "to": 90}, "difficulty.tier": "careful"}),
    ("tier-ramp", {"ramp": {"over": "tier", "from": "random", "to": "hint"}, "difficulty.score": [10, 90]}),
    ("tier-ramp-null-tier", {"ramp": {"over": "tier", "from": "deep", "to": "nearest"}, "difficulty.tier": None}),
    ("rate-ramp", {"ramp": {"over": "clear_rate.deep", "from": 0.9, "to": 0.3}, "difficulty.score": [10, 90]}),
    ("rate-ramp-other-model", {"ramp": {"over": "clear_rate.deep", "from": 0, "to": 1, "tolerance": 1},
                               "difficulty.clear_rate.careful": [0.2, 0.9]}),
    ("score-with-default-grading", {"difficulty.score": [30, 60]}),
    ("tier-one", {"difficulty.tier": "hint"}),
    ("tier-list", {"difficulty.tier": ["random", "deep", "random"]}),
    ("clear-rate-windows", {"difficulty.clear_rate": {m: [None, 1] for m in MODELS}}),
    ("clear-rate-null-windows-without-grading", {"difficulty.clear_rate": {"careful": None}, "grading.enabled": False}),
    ("clear-rate-null", {"difficulty.clear_rate": None, "difficulty.tier": None, "grading.enabled": False}),
    ("grading-all", {"grading": {"enabled": True, "precision": 50, "rate_precision": 0.5, "max_runs": 32}}),
    ("files-at-most", {"count": 100_000, "export.layout": "files"}),
    ("pack-beyond-files", {"count": 1_000_000, "export.layout": "pack"}),
    ("files-null-export", {"count": 1_000_000, "export": None}),
    ("top-seed", {"seed": 2**63 - 1}),
    ("grading-off", {"grading.enabled": False}),
]


@pytest.mark.parametrize("changes", [c for _, c in GOOD], ids=[i for i, _ in GOOD])
def test_specs_the_reader_accepts_match_the_schema(changes):
    text = dump(changed(changes))
    parse_spec(text)
    instance = as_json(text)
    assert sorted(map(str, LATEST.iter_errors(instance))) == []
    assert DRAFT7.is_valid(instance)


# -- what the reader refuses, the schema refuses -------------------------------------------------------
RAMP = {"from": 10, "to": 20}
#: (id, changes to BASE, what the reader's message says, where the schema finds the fault).
BAD: list[tuple[str, dict[str, Any], str, str]] = [
    ("document-empty", {"$": None}, "found an empty document", ""),
    ("document-list", {"$": [1, 2]}, "at the top level, found a list", ""),
    ("document-string", {"$": "name"}, "at the top level", ""),
    ("top-unknown-key", {"seeds": 1}, 'unknown key "seeds" at seeds', ""),
    ("name-missing", {"name": DROP}, 'missing required key "name"', ""),
    ("name-number", {"name": 5}, "name: expected a file-name-safe name", "name"),
    ("name-hidden", {"name": ".hid"}, "name: expected a file-name-safe name", "name"),
    ("name-dash", {"name": "-x"}, "name: expected a file-name-safe name", "name"),
    ("name-space", {"name": "a b"}, "name: expected a file-name-safe name", "name"),
    ("name-slash", {"name": "a/b"}, "name: expected a file-name-safe name", "name"),
    ("name-too-long", {"name": "a" * 101}, "name: expected a file-name-safe name", "name"),
    ("seed-negative", {"seed": -1}, "seed: expected an integer in 0..", "seed"),
    ("seed-too-big", {"seed": 2**63}, "seed: expected an integer in 0..", "seed"),
    ("seed-string", {"seed": "1"}, "seed: expected an integer", "seed"),
    ("seed-fraction", {"seed": 1.5}, "seed: expected an integer", "seed"),
    ("seed-null", {"seed": None}, "seed: expected an integer", "seed"),
    ("count-zero", {"count": 0}, "count: expected an integer in 1..1000000", "count"),
    ("count-too-big", {"count": 1_000_001}, "count: expected an integer in 1..1000000", "count"),
    ("count-boolean", {"count": True}, "count: expected an integer", "count"),
    ("board-missing", {"board": DROP}, 'missing required key "board"', ""),
    ("board-null", {"board": None}, "board: expected a mapping", "board"),
    ("board-list", {"board": [2, 3]}, "board: expected a mapping", "board"),
    ("board-unknown-key", {"board.colls": 3}, 'unknown key "colls" at board.colls', "board"),
    ("cols-missing", {"board.cols": DROP}, 'missing required key "cols" in board', "board"),
    ("rows-zero", {"board.rows": 0}, "board.rows: expected an integer in 1..64", "board.rows"),
    ("rows-65", {"board.rows": 65}, "board.rows: expected an integer in 1..64", "board.rows"),
    ("rows-string", {"board.rows": "2"}, "board.rows: expected an integer", "board.rows"),
    ("cols-fraction", {"board.cols": 3.5}, "board.cols: expected an integer", "board.cols"),
    ("layout-number", {"board.layout": 5}, "board.layout: expected a multi-line string", "board.layout"),
    ("layout-list", {"board.layout": ["###", "###"]}, "board.layout: expected a multi-line string", "board.layout"),
    ("layout-letter", {"board.layout": "###\nO##\n"}, 'expected "#" (tile cell), "." (empty) or "X" (wall)',
     "board.layout"),
    ("layout-indented-row", {"board.layout": "###\n ##\n"}, 'expected "#" (tile cell)', "board.layout"),
    ("layout-blank-row", {"board.layout": "###\n\n###\n"}, "board.layout: expected 2 lines", "board.layout"),
    ("layout-empty", {"board.layout": ""}, "board.layout: expected 2 lines", "board.layout"),
    ("rules-list", {"rules": ["down"]}, "rules: expected a mapping", "rules"),
    ("rules-unknown-key", {"rules.gravty": "down"}, 'unknown key "gravty" at rules.gravty', "rules"),
    ("border-number", {"rules.border": 1}, "rules.border: expected true or false", "rules.border"),
    ("border-string", {"rules.border": "yes"}, "rules.border: expected true or false", "rules.border"),
    ("gravity-sideways", {"rules.gravity": "sideways"}, "rules.gravity: expected one of none, down", "rules.gravity"),
    ("gravity-boolean", {"rules.gravity": False}, "rules.gravity: expected one of", "rules.gravity"),
    ("gravity-capital", {"rules.gravity": "Down"}, 'did you mean "down"?', "rules.gravity"),
    ("tiles-missing", {"tiles": DROP}, 'missing required key "tiles"', ""),
    ("tiles-null", {"tiles": None}, 'tiles: expected a mapping with "types"', "tiles"),
    ("tiles-number", {"tiles": 6}, "tiles: expected a mapping", "tiles"),
    ("tiles-unknown-key", {"tiles.type": 3}, 'unknown key "type" at tiles.type', "tiles"),
    ("tiles-neither", {"tiles.types": DROP}, 'tiles: expected "types" (with optional "copies") or "distribution", '
     "found neither", "tiles"),
    ("tiles-both", {"tiles.distribution": {1: 2, 2: 2, 3: 2}}, "found both", "tiles"),
    ("tiles-copies-and-distribution", {"tiles": {"copies": 2, "distribution": {1: 6}}}, "found both", "tiles"),
    ("types-zero", {"tiles.types": 0}, "tiles.types: expected an integer in 1..2048", "tiles.types"),
    ("types-too-many", {"tiles.types": 2049}, "tiles.types: expected an integer in 1..2048", "tiles.types"),
    ("types-null", {"tiles.types": None}, "tiles.types: expected an integer", "tiles.types"),
    ("copies-odd", {"tiles.copies": 3}, "tiles.copies: expected an even integer in 2..4096", "tiles.copies"),
    ("copies-zero", {"tiles.copies": 0}, "tiles.copies: expected an even integer", "tiles.copies"),
    ("copies-too-many", {"tiles.copies": 4098}, "tiles.copies: expected an even integer", "tiles.copies"),
    ("copies-null", {"tiles.copies": None}, "tiles.copies: expected an even integer", "tiles.copies"),
    ("distribution-empty", {"tiles": {"distribution": {}}}, "tiles.distribution: expected a non-empty mapping",
     "tiles.distribution"),
    ("distribution-list", {"tiles": {"distribution": [2, 2, 2]}}, "tiles.distribution: expected a non-empty",
     "tiles.distribution"),
    ("distribution-type-0", {"tiles": {"distribution": {0: 2, 1: 4}}}, "expected type ids in 1..9999",
     "tiles.distribution"),
    ("distribution-type-10000", {"tiles": {"distribution": {10000: 2, 1: 4}}}, "expected type ids in 1..9999",
     "tiles.distribution"),
    ("distribution-word-key", {"tiles": {"distribution": {"one": 2, 2: 4}}}, "expected type ids in 1..9999",
     "tiles.distribution"),
    ("distribution-odd", {"tiles": {"distribution": {1: 3, 2: 3}}}, "tiles.distribution.1: expected an even count",
     "tiles.distribution.1"),
    ("distribution-string-count", {"tiles": {"distribution": {1: "6"}}}, "tiles.distribution.1: expected an even",
     "tiles.distribution.1"),
    ("generator-unknown-key", {"generator.strategies": "shuffle"}, 'unknown key "strategies"', "generator"),
    ("strategy-unknown", {"generator.strategy": "random"}, "generator.strategy: expected one of shuffle, constructive",
     "generator.strategy"),
    ("max-attempts-zero", {"generator.max_attempts": 0}, "generator.max_attempts: expected an integer in 1..",
     "generator.max_attempts"),
    ("max-attempts-too-many", {"generator.max_attempts": 1_000_001}, "generator.max_attempts: expected an integer",
     "generator.max_attempts"),
    ("difficulty-list", {"difficulty": [1, 2]}, "difficulty: expected a mapping", "difficulty"),
    ("difficulty-unknown-key", {"difficulty.initial_move": [1, None]}, 'did you mean "initial_moves"?', "difficulty"),
    ("window-one-bound", {"difficulty.initial_moves": [1]}, "difficulty.initial_moves: expected [min, max]",
     "difficulty.initial_moves"),
    ("window-three-bounds", {"difficulty.verify_nodes": [0, 1, 2]}, "difficulty.verify_nodes: expected [min, max]",
     "difficulty.verify_nodes"),
    ("window-string", {"difficulty.initial_moves": "6+"}, "difficulty.initial_moves: expected [min, max]",
     "difficulty.initial_moves"),
    ("window-mapping", {"difficulty.score": {"min": 1}}, "difficulty.score: expected [min, max]", "difficulty.score"),
    ("moves-fraction", {"difficulty.initial_moves": [1.5, None]}, "difficulty.initial_moves[0]: expected an integer",
     "difficulty.initial_moves.0"),
    ("moves-negative", {"difficulty.initial_moves": [-1, None]}, "difficulty.initial_moves[0]: expected",
     "difficulty.initial_moves.0"),
    ("nodes-boolean", {"difficulty.verify_nodes": [None, True]}, "difficulty.verify_nodes[1]: expected",
     "difficulty.verify_nodes.1"),
    ("rate-above-1", {"difficulty.random_clear_rate": [0, 1.5]}, "difficulty.random_clear_rate[1]: expected a number "
     "in 0..1", "difficulty.random_clear_rate.1"),
    ("rate-negative", {"difficulty.random_clear_rate": [-0.1, 1]}, "difficulty.random_clear_rate[0]: expected",
     "difficulty.random_clear_rate.0"),
    ("rate-string", {"difficulty.random_clear_rate": ["0.5", 1]}, "difficulty.random_clear_rate[0]: expected",
     "difficulty.random_clear_rate.0"),
    ("score-negative", {"difficulty.score": [-1, 50]}, "difficulty.score[0]: expected a number in 0..100",
     "difficulty.score.0"),
    ("score-above-100", {"difficulty.score": [50, 101]}, "difficulty.score[1]: expected a number in 0..100",
     "difficulty.score.1"),
    ("playthroughs-zero", {"difficulty.playthroughs": 0}, "difficulty.playthroughs: expected an integer in 1..100000",
     "difficulty.playthroughs"),
    ("playthroughs-too-many", {"difficulty.playthroughs": 100_001}, "difficulty.playthroughs: expected an integer",
     "difficulty.playthroughs"),
    ("verify-unknown-key", {"verify.node": 5}, 'did you mean "nodes"?', "verify"),
    ("verify-nodes-zero", {"verify.nodes": 0}, "verify.nodes: expected an integer in 1..1000000000", "verify.nodes"),
    ("verify-nodes-fraction", {"verify.nodes": 1000.5}, "verify.nodes: expected an integer", "verify.nodes"),
    ("verify-nodes-too-many", {"verify.nodes": 10**9 + 1}, "verify.nodes: expected an integer", "verify.nodes"),
    ("grading-list", {"grading": [True]}, "grading: expected a mapping", "grading"),
    ("grading-unknown-key", {"grading.precison": 1}, 'did you mean "precision"?', "grading"),
    ("grading-retired-playthroughs", {"grading.playthroughs": 2}, "grading.playthroughs: no longer a spec key",
     "grading"),
    ("grading-retired-nodes", {"grading.nodes": 20000}, "grading.nodes: no longer a spec key", "grading"),
    ("grading-enabled-string", {"grading.enabled": "no"}, "grading.enabled: expected true or false",
     "grading.enabled"),
    ("precision-too-fine", {"grading.precision": 0.2}, "grading.precision: expected a number in 0.25..50",
     "grading.precision"),
    ("precision-string", {"grading.precision": "1.5"}, "grading.precision: expected a number", "grading.precision"),
    ("rate-precision-too-coarse", {"grading.rate_precision": 0.6}, "grading.rate_precision: expected a number in "
     "0.005..0.5", "grading.rate_precision"),
    ("max-runs-below-a-batch", {"grading.max_runs": 31}, "grading.max_runs: expected an integer in 32..1048576",
     "grading.max_runs"),
    ("max-runs-fraction", {"grading.max_runs": 64.5}, "grading.max_runs: expected an integer", "grading.max_runs"),
    ("tier-unknown", {"difficulty.tier": "expert"}, "difficulty.tier: expected a tier: one of random, nearest",
     "difficulty.tier"),
    ("tier-number", {"difficulty.tier": 3}, "difficulty.tier: expected a tier", "difficulty.tier"),
    ("tier-empty-list", {"difficulty.tier": []}, "difficulty.tier: expected a tier name or a non-empty list",
     "difficulty.tier"),
    ("tier-list-unknown", {"difficulty.tier": ["random", "pro"]}, "difficulty.tier[1]: expected a tier",
     "difficulty.tier"),
    ("clear-rate-list", {"difficulty.clear_rate": [0.5, 1]}, "difficulty.clear_rate: a [min, max] window is on the "
     "players' predicted clear rate and needs difficulty.calibration", "difficulty.clear_rate"),
    ("clear-rate-unknown-model", {"difficulty.clear_rate": {"carefull": [0, 1]}}, 'did you mean "careful"?',
     "difficulty.clear_rate"),
    ("clear-rate-above-1", {"difficulty.clear_rate": {"careful": [0.2, 1.2]}},
     "difficulty.clear_rate.careful[1]: expected a number in 0..1", "difficulty.clear_rate.careful.1"),
    ("clear-rate-one-bound", {"difficulty.clear_rate": {"deep": [0.5]}}, "difficulty.clear_rate.deep: expected "
     "[min, max]", "difficulty.clear_rate.deep"),
    ("ramp-list", {"ramp": [10, 20]}, "ramp: expected a mapping", "ramp"),
    ("ramp-unknown-key", {"ramp": {"form": 10, "to": 20}}, 'unknown key "form" at ramp.form', "ramp"),
    ("ramp-missing-to", {"ramp": {"from": 10}}, 'missing required key "to" in ramp', "ramp"),
    ("ramp-from-above-100", {"ramp": {"from": 101, "to": 20}}, "ramp.from: expected a number in 0..100", "ramp.from"),
    ("ramp-to-negative", {"ramp": {"from": 10, "to": -1}}, "ramp.to: expected a number in 0..100", "ramp.to"),
    ("ramp-from-string", {"ramp": {"from": "10", "to": 20}}, "ramp.from: expected a number", "ramp.from"),
    ("ramp-tolerance-small", {"ramp": {**RAMP, "tolerance": 0.4}}, "ramp.tolerance: expected a number in 0.5..100",
     "ramp.tolerance"),
    ("ramp-tolerance-null", {"ramp": {**RAMP, "tolerance": None}}, "ramp.tolerance: expected a number",
     "ramp.tolerance"),
    ("ramp-over-unknown", {"ramp": {**RAMP, "over": "difficulty"}}, "ramp.over: expected one of score, tier, "
     "clear_rate.random", "ramp.over"),
    ("ramp-over-null", {"ramp": {**RAMP, "over": None}}, "ramp.over: expected one of", "ramp.over"),
    ("score-ramp-of-tiers", {"ramp": {"from": "random", "to": "deep"}}, "ramp.from: expected a number in 0..100",
     "ramp.from"),
    ("tier-ramp-of-numbers", {"ramp": {"over": "tier", "from": 1, "to": 3}}, "ramp.from: expected a tier: one of",
     "ramp.from"),
    ("tier-ramp-unknown-tier", {"ramp": {"over": "tier", "from": "random", "to": "pro"}}, "ramp.to: expected a tier",
     "ramp.to"),
    ("tier-ramp-with-tolerance", {"ramp": {"over": "tier", "from": "random", "to": "deep", "tolerance": 1}},
     "ramp.tolerance: not allowed with over: tier", "ramp"),
    ("rate-ramp-above-1", {"ramp": {"over": "clear_rate.careful", "from": 0.2, "to": 1.5}},
     "ramp.to: expected a number in 0..1", "ramp.to"),
    ("rate-ramp-tolerance-above-1", {"ramp": {"over": "clear_rate.careful", "from": 0.2, "to": 0.8, "tolerance": 2}},
     "ramp.tolerance: expected a number in 0.005..1", "ramp.tolerance"),
    ("rate-ramp-of-tiers", {"ramp": {"over": "clear_rate.deep", "from": "random", "to": 0.5}},
     "ramp.from: expected a number in 0..1", "ramp.from"),
    ("ramp-and-score", {"ramp": RAMP, "difficulty.score": [0, 50]}, "ramp: expected either ramp or difficulty.score",
     "difficulty.score"),
    ("score-ramp-named-and-score", {"ramp": {**RAMP, "over": "score"}, "difficulty.score": [None, 50]},
     "ramp: expected either ramp or difficulty.score", "difficulty.score"),
    ("tier-ramp-and-tier", {"ramp": {"over": "tier", "from": "random", "to": "deep"}, "difficulty.tier": "careful"},
     "ramp: expected either a tier ramp or difficulty.tier", "difficulty.tier"),
    ("ramp-without-grading", {"ramp": RAMP, "grading.enabled": False}, "grading.enabled: expected true, found false",
     "grading.enabled"),
    ("tier-ramp-without-grading", {"ramp": {"over": "tier", "from": "random", "to": "deep"}, "grading.enabled": False},
     "grading.enabled: expected true", "grading.enabled"),
    ("score-without-grading", {"difficulty.score": [None, None], "grading.enabled": False},
     "grading.enabled: expected true", "grading.enabled"),
    ("tier-without-grading", {"difficulty.tier": ["deep"], "grading.enabled": False}, "grading.enabled: expected true",
     "grading.enabled"),
    ("clear-rate-without-grading", {"difficulty.clear_rate": {"careful": [0.2, None], "deep": None},
                                    "grading.enabled": False}, "grading.enabled: expected true", "grading.enabled"),
    ("export-unknown-key", {"export.paht": "x.json"}, 'did you mean "path"?', "export"),
    ("path-empty", {"export.path": ""}, "export.path: expected a non-empty file path", "export.path"),
    ("path-blank", {"export.path": "   "}, "export.path: expected a non-empty file path", "export.path"),
    ("path-nul", {"export.path": "a\0b.json"}, "export.path: expected a non-empty file path", "export.path"),
    ("path-null", {"export.path": None}, "export.path: expected a non-empty file path", "export.path"),
    ("path-number", {"export.path": 5}, "export.path: expected a non-empty file path", "export.path"),
    ("solutions-string", {"export.solutions": "yes"}, "export.solutions: expected true or false", "export.solutions"),
    ("grid-unknown", {"export.grid": "flat2"}, "export.grid: expected one of nested, flat", "export.grid"),
    ("export-layout-unknown", {"export.layout": "dir"}, "export.layout: expected one of pack, files", "export.layout"),
    ("files-too-many", {"count": 100_001, "export.layout": "files"}, "expected at most 100000 levels for layout files",
     "count"),
]


@pytest.mark.parametrize(("changes", "message", "at"), [c[1:] for c in BAD], ids=[c[0] for c in BAD])
def test_specs_the_reader_refuses_the_schema_refuses_at_the_same_key(changes, message, at):
    text = dump(changed(changes))
    with pytest.raises(SpecError) as info:
        parse_spec(text, "t.yaml")
    assert message in str(info.value)
    instance = as_json(text)
    assert at in schema_errors(instance), sorted(map(str, LATEST.iter_errors(instance)))
    assert not DRAFT7.is_valid(instance)


def test_the_tables_name_different_specs():
    ids = [c[0] for c in BAD] + [c[0] for c in GOOD]
    assert len(ids) == len(set(ids))
    assert len({dump(changed(c[1])) for c in BAD}) == len(BAD)


#: What the schema leaves to the reader, as its description says: sizes that depend on other
#: values, min <= max, and an integer written with a decimal point (JSON has one number type).
BEYOND: list[tuple[str, dict[str, Any], str]] = [
    ("layout-row-count", {"board.layout": "###\n###\n###\n"}, "board.layout: expected 2 lines (board.rows), found 3"),
    ("layout-row-width", {"board.layout": "###\n##\n"}, "expected 3 characters (board.cols)"),
    ("tile-total", {"tiles.types": 2}, "tiles: expected 6 tiles to fill the 2x3 board, found 4"),
    ("window-order", {"difficulty.initial_moves": [5, 2]}, "expected min <= max"),
    ("integer-as-float", {"seed": 1.0}, "seed: expected an integer"),
    ("window-within-precision", {"difficulty.score": [40, 42]}, "difficulty.score: expected a window at least 6 wide"),
    ("rate-window-within-precision", {"difficulty.clear_rate.deep": [0.5, 0.55]},
     "difficulty.clear_rate.deep: expected a window at least 0.12 wide"),
    ("ramp-within-precision", {"ramp": {**RAMP, "tolerance": 2}}, "ramp.tolerance: expected at least 2 x "
     "grading.precision = 3"),
    ("rate-ramp-and-window", {"ramp": {"over": "clear_rate.careful", "from": 0.2, "to": 0.8},
                              "difficulty.clear_rate.careful": [0.1, 0.9]},
     "ramp: expected either a ramp over clear_rate.careful or difficulty.clear_rate.careful"),
]


@pytest.mark.parametrize(("changes", "message"), [c[1:] for c in BEYOND], ids=[c[0] for c in BEYOND])
def test_what_only_llkgen_make_checks(changes, message):
    text = dump(changed(changes))
    with pytest.raises(SpecError, match=re.escape(message)):
        parse_spec(text, "t.yaml")
    assert LATEST.is_valid(as_json(text))
    claims = SCHEMA["description"]
    assert all(words in claims for words in ("line count and widths", "tile total", "min <= max",
                                              "tolerance against grading.precision", "difficulty.clear_rate"))


# -- ranges, from the schema's own bounds --------------------------------------------------------------
def layout_of(cells: int) -> dict[str, Any]:
    """A 64x64 board with ``cells`` tile cells, the others empty."""
    flat = "#" * cells + "." * (64 * 64 - cells)
    return {"rows": 64, "cols": 64, "layout": "".join(flat[r * 64:(r + 1) * 64] + "\n" for r in range(64))}


def spec_with(path: tuple[str, ...], value: Any) -> dict[str, Any]:
    """BASE with the leaf at ``path`` set to ``value``, the board and tiles made to fit it, and
    the required keys of every section on the way filled in from the schema's examples."""
    pair = min(max(value, 1), 64) if isinstance(value, int) else 1
    if path == ("board", "rows"):
        return changed({"board": {"rows": value, "cols": 2}, "tiles": {"types": 1, "copies": 2 * pair}})
    if path == ("board", "cols"):
        return changed({"board": {"rows": 2, "cols": value}, "tiles": {"types": 1, "copies": 2 * pair}})
    if path == ("tiles", "types"):
        return changed({"board": layout_of(2 * min(max(value, 1), 2048)), "tiles": {"types": value, "copies": 2}})
    if path in (("tiles", "copies"), ("tiles", "distribution", "*")):
        cells = min(max(value, 1), 4096)
        tiles = {"types": 1, "copies": value} if path[1] == "copies" else {"distribution": {1: value}}
        return changed({"board": layout_of(cells), "tiles": tiles})
    doc = copy.deepcopy(BASE)
    node, section = doc, SCHEMA
    for i, key in enumerate(path):
        if key == "[]":
            return changed({where(path[:i]): [value, None]})
        section = section["properties"][key]
        if i == len(path) - 1:
            node[key] = value
        else:
            node = node.setdefault(key, {})
            for required in section.get("required", []):
                node.setdefault(required, section["properties"][required]["examples"][0])
    return doc


def probes(node: dict[str, Any]) -> list[tuple[Any, bool]]:
    """``(value, inside)`` on each side of each numeric bound of a leaf, and an odd count."""
    step = 1 if "integer" in types_of(node) else 0.25
    lo, hi = node["minimum"], node.get("maximum")
    out = [(lo, True), (lo - step, False)]
    out += [(hi, True), (hi + step, False)] if hi is not None else [(10**9, True)]
    if node.get("multipleOf"):
        out.append((lo + 1, False))
    return out


NUMBERS = [(path, node) for path, node in leaves(SCHEMA) if {"integer", "number"} & set(types_of(node))]


@pytest.mark.parametrize(("path", "value"), [pytest.param(path, value, id=f"{where(path)}={value}")
                                             for path, node in NUMBERS for value, _ in probes(node)])
def test_the_reader_and_the_schema_agree_at_every_bound(path, value):
    # A bound a condition tightens (a score ramp's tolerance) is refused by both.
    text = dump(spec_with(path, value))
    instance = as_json(text)
    try:
        parse_spec(text)
        accepted = True
    except SpecError:
        accepted = False
    assert LATEST.is_valid(instance) == accepted == DRAFT7.is_valid(instance), sorted(map(str, LATEST.iter_errors(
        instance)))
    if not accepted:
        errors = schema_errors(instance)
        at = where(p for p in path if p != "[]")
        assert at in errors or f"{at}.0" in errors or (path[-1] == "*" and f"{where(path[:-1])}.1" in errors), errors


@pytest.mark.parametrize(("path", "node"), NUMBERS, ids=[where(p) for p, _ in NUMBERS])
def test_the_bounds_of_the_schema_are_the_readers(path, node):
    # Unless a condition tightens it, every bound is one the reader accepts, just beyond it one it refuses.
    conditional = ("ramp", "tolerance")
    for value, inside in probes(node):
        try:
            parse_spec(dump(spec_with(path, value)))
            accepted = True
        except SpecError:
            accepted = False
        assert accepted == inside or (path == conditional and value == node["minimum"]), (where(path), value)


# -- the reader's tables are the schema's --------------------------------------------------------------
@pytest.fixture
def reader_calls(monkeypatch) -> dict[str, dict[tuple, tuple]]:
    """What the reader checks while it reads :data:`FULL`, recorded from its checker: each
    section's keys and required keys, each integer's and number's bounds and default, each
    choice's options and default, each boolean's default."""
    calls: dict[str, dict[tuple, tuple]] = {"section": {}, "integer": {}, "choice": {}, "boolean": {}, "number": {}}
    def record(kind: str, wrapped: Any) -> Any:
        signature = inspect.signature(wrapped)

        def spy(*args, **kwargs):
            bound = signature.bind(*args, **kwargs)
            bound.apply_defaults()
            a = bound.arguments
            if kind == "section":
                calls[kind][tuple(a["path"])] = (tuple(a["keys"]), tuple(a["required"]))
            else:
                bounds = (tuple(a["options"]),) if kind == "choice" else () if kind == "boolean" else (a["lo"], a["hi"])
                calls[kind][(*a["path"], a["key"])] = (*bounds, a["default"])
            return wrapped(*args, **kwargs)
        return spy

    with monkeypatch.context() as patch:
        for kind in ("section", "integer", "choice", "boolean", "number"):
            patch.setattr(Checker, kind, record(kind, getattr(Checker, kind)))
        parse_spec(FULL, "full.yaml")
    return calls


def test_the_sections_and_their_keys_are_the_readers(reader_calls):
    sections = reader_calls["section"]
    assert sections[()][0] == reader._TOP_KEYS
    schema_sections = dict(objects(SCHEMA))
    # A section only the schema has, or one FULL leaves out: add it to the reader, or to FULL.
    assert sorted(sections) == sorted(schema_sections), "the sections differ: update the schema (or FULL)"
    for path, (keys, required) in sections.items():
        node = schema_sections[path]
        lacks, extra = sorted(set(keys) - set(node["properties"])), sorted(set(node["properties"]) - set(keys))
        assert not lacks and not extra, f"{where(path) or 'top level'}: the schema lacks {lacks}, has extra {extra}"
        assert sorted(node.get("required", [])) == sorted(required), f"{where(path)}: required keys differ"
        assert node["additionalProperties"] is False, f"{where(path)}: the reader refuses unknown keys"


def test_the_scalars_are_the_readers(reader_calls):
    schema_leaves = dict(leaves(SCHEMA))
    missing = object()
    for path, (lo, hi, default) in reader_calls["integer"].items():
        node = schema_leaves[path]
        assert "integer" in types_of(node), where(path)
        assert (node["minimum"], node.get("maximum")) == (lo, hi), where(path)
        assert node.get("default", missing) == (missing if default is MISSING else default), where(path)
    for path, (options, default) in reader_calls["choice"].items():
        node = schema_leaves[path]
        assert (node["enum"], node["default"]) == (list(options), default), where(path)
    for path, (default,) in reader_calls["boolean"].items():
        node = schema_leaves[path]
        assert (types_of(node), node["default"]) == (["boolean"], default), where(path)
    for path, (lo, hi, default) in reader_calls["number"].items():
        node = schema_leaves[path]
        if path[0] == "ramp":  # its bounds depend on ramp.over: the bound tests check them
            continue
        assert (types_of(node), node["minimum"], node["maximum"], node["default"]) == (["number"], lo, hi, default)
    # Every integer, number, enum and boolean of the schema is one the reader checked that way, or
    # one of the few it checks by hand (the tile counts: even).
    by_hand = {("tiles", "copies"), ("tiles", "distribution", "*")}
    for path, node in schema_leaves.items():
        if "enum" in node:
            assert path in reader_calls["choice"], where(path)
        elif types_of(node) == ["boolean"]:
            assert path in reader_calls["boolean"], where(path)
        elif types_of(node) == ["integer"]:
            assert path in reader_calls["integer"] or path in by_hand, where(path)
        elif types_of(node) == ["number"]:
            assert path in reader_calls["number"], where(path)


def test_the_windows_tiers_and_models_are_the_readers():
    difficulty = SCHEMA["properties"]["difficulty"]["properties"]
    # clear_rate is a window too: on the predicted clear rate, beside a calibration
    assert {k for k, v in difficulty.items() if "array" in types_of(v)} == {*reader.METRICS, "score", "clear_rate"}
    assert list(difficulty["clear_rate"]["properties"]) == list(MODELS)
    one, many, _ = difficulty["tier"]["anyOf"]
    tier_ramp = SCHEMA["properties"]["ramp"]["allOf"][2]
    assert tier_ramp["if"]["properties"]["over"]["const"] == reader.RAMP_TIER
    assert one["enum"] == many["items"]["enum"] == tier_ramp["then"]["properties"]["from"]["enum"] == list(TIERS)


def defaults_of(data: Any, path: tuple[str, ...] = ()) -> Iterator[tuple[tuple[str, ...], Any]]:
    if isinstance(data, dict):
        for key, value in data.items():
            yield from defaults_of(value, path + (str(key),))
    else:
        yield path, data


def test_the_defaults_are_the_readers():
    # What the reader fills in for keys left out, against the schema's defaults, both ways.
    written = {("name",), ("board", "rows"), ("board", "cols"), ("tiles", "types"), ("ramp", "from"),
               ("ramp", "to"), ("export", "path")}
    text = "name: d\nboard: {rows: 4, cols: 3}\ntiles: {types: 3}\nramp: {from: 25, to: 60}\n"
    filled = dict(defaults_of(parse_spec(text).to_dict()))
    declared = {path: node["default"] for path, node in leaves(SCHEMA) if "default" in node}
    assert {p: v for p, v in filled.items() if p not in written} == declared
    assert filled[("export", "path")] == "output/d.json" and "output/NAME.json" in \
        SCHEMA["properties"]["export"]["properties"]["path"]["description"]


def test_llkgen_schema_spec_prints_it_and_validate_reads_it(monkeypatch, capsys):
    code, out, err = run_cli_in_process(["schema", "spec"], monkeypatch, capsys)
    assert (code, err) == (0, "") and out == SCHEMA_PATH.read_text("utf-8")
    assert validate(as_json(FULL), "spec") == []
    assert validate(as_json(dump(changed({"difficulty.tier": "pro", "board.colls": 3}))), "spec") == [
        "$.board: Additional properties are not allowed ('colls' was unexpected)",
        "$.difficulty.tier: 'pro' is not one of ['random', 'nearest', 'lookahead', 'careful', 'deep', 'hint']",
    ]


# -- llkgen init: the modeline and the schema beside the spec ------------------------------------------
def modeline_target(spec: Path) -> Path:
    """The file an editor's yaml-language-server loads for ``spec``: its modeline's ``$schema``,
    relative to the spec's directory."""
    first = spec.read_text("utf-8").splitlines()[0]
    assert MODELINE.match(first), first
    found = MODELINE_SCHEMA.search(first)
    assert found is not None
    target = found.group(1)
    assert not target.startswith(("http:", "https:", "file:")) and not os.path.isabs(target), target
    return spec.parent / target


def test_starter_spec_opens_with_the_modeline():
    text = starter_spec("castle")
    assert text.splitlines()[0] == f"# yaml-language-server: $schema=./{SPEC_SCHEMA_FILE}"
    assert [bool(MODELINE.match(line)) for line in text.splitlines()].count(True) == 1
    assert text.splitlines()[1].startswith("# castle.yaml: ") and "llkgen make --config castle.yaml" in text


def test_write_spec_schema_writes_the_schema_and_never_clobbers(tmp_path):
    where_to = tmp_path / "new" / "dir"
    path = Path(write_spec_schema(where_to))
    assert path == where_to / SPEC_SCHEMA_FILE
    assert path.read_bytes() == SCHEMA_PATH.read_bytes()
    assert sorted(p.name for p in where_to.iterdir()) == [SPEC_SCHEMA_FILE]  # no temporary file left
    before = path.stat()
    assert write_spec_schema(where_to) == os.fspath(path)  # the same schema: left alone
    after = path.stat()
    assert (after.st_ino, after.st_mtime_ns) == (before.st_ino, before.st_mtime_ns)
    for other in (SCHEMA_PATH.read_bytes().replace(b"llkgen spec", b"llkgen spex"), b"{}\n", b""):
        path.write_bytes(other)
        with pytest.raises(OutputError, match=rf"^{re.escape(str(path))}: already exists and is not this llkgen's "
                                              r"spec schema: .*llkgen schema spec > "):
            write_spec_schema(where_to)
        assert path.read_bytes() == other
    path.unlink()
    path.mkdir()
    with pytest.raises(OutputError, match="already exists"):
        write_spec_schema(where_to)
    assert path.is_dir()


def test_init_writes_the_schema_the_modeline_names(tmp_path, monkeypatch, capsys):
    out = tmp_path / "specs"
    code, _, err = run_cli_in_process(["init", "castle", "--out", str(out)], monkeypatch, capsys)
    assert (code, err) == (0, "")
    spec = out / "castle.yaml"
    target = modeline_target(spec)
    assert target.resolve() == (out / SPEC_SCHEMA_FILE).resolve()
    assert target.read_bytes() == SCHEMA_PATH.read_bytes()  # what `llkgen schema spec` prints
    schema = json.loads(target.read_text("utf-8"))
    jsonschema.Draft202012Validator(schema).validate(as_json(spec.read_text("utf-8")))
    # A second spec in the same directory shares the schema, which stays as it was.
    before = target.stat().st_mtime_ns
    code, _, err = run_cli_in_process(["init", "keep", "--out", str(out)], monkeypatch, capsys)
    assert (code, err) == (0, "") and target.stat().st_mtime_ns == before
    assert sorted(p.name for p in out.iterdir()) == ["castle.yaml", "keep.yaml", SPEC_SCHEMA_FILE]


def test_init_refuses_a_different_schema_file_and_writes_nothing(tmp_path, monkeypatch, capsys):
    (tmp_path / SPEC_SCHEMA_FILE).write_text("{}\n")
    code, out, err = run_cli_in_process(["init", "castle", "--out", str(tmp_path)], monkeypatch, capsys)
    assert (code, out) == (EXIT_FAILED, "")
    assert f"{tmp_path / SPEC_SCHEMA_FILE}: already exists" in " ".join(err.split())
    assert sorted(p.name for p in tmp_path.iterdir()) == [SPEC_SCHEMA_FILE]
    assert (tmp_path / SPEC_SCHEMA_FILE).read_text() == "{}\n"
