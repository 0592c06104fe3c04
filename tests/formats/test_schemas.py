"""The shipped JSON Schemas: self-contained, so plain jsonschema checks llkgen's own output against
them offline with no registry; the shared vocabulary and its copies; the level file as the anchor
of the vocabulary; :func:`llkgen.formats.schemas.validate`; and ``llkgen schema``.

(tests/cli/test_json_outputs.py runs every command's ``--json`` against its schema.)"""

from __future__ import annotations

import json
import re
from pathlib import Path

import jsonschema
import pytest

import llkgen
from llkgen.errors import EXIT_USAGE, LevelFormatError
from llkgen.formats.level import level_to_json
from llkgen.formats.schemas import (
    FILE_SCHEMAS,
    OUTPUT_SCHEMAS,
    VOCABULARY,
    SchemaError,
    schema,
    schema_names,
    schema_text,
    validate,
)
from llkgen.generation.spec import parse_spec
from llkgen.jobs.make import make_pack

from cli_runner import run_cli_in_process
from specs import tiny_spec

SCHEMA_DIR = Path(llkgen.__file__).resolve().parent / "schemas"
SPEC = tiny_spec(name="sch", seed=9, count=2, rules="{gravity: down}", generator=None,
                 difficulty="{playthroughs: 8}", export=None)


def plain(name: str) -> jsonschema.protocols.Validator:
    """A validator of the schema file as a user would load it: its JSON alone, no registry."""
    obj = json.loads((SCHEMA_DIR / f"{name}.schema.json").read_text("utf-8"))
    cls = jsonschema.validators.validator_for(obj)
    cls.check_schema(obj)
    return cls(obj)


@pytest.fixture(scope="module")
def made(tmp_path_factory) -> dict[tuple[str, str], Path]:
    """The spec made nested and flat, as one pack file and as the files layout."""
    out = {}
    for grid in ("nested", "flat"):
        for layout in ("pack", "files"):
            tmp = tmp_path_factory.mktemp(f"{grid}-{layout}")
            text = SPEC + f"export: {{grid: {grid}, layout: {layout}}}\n"
            out[grid, layout] = make_pack(parse_spec(text, "sch.yaml").with_overrides(out=tmp / "sch.json"),
                                          jobs=1).path
    return out


def refs(node: object) -> list[str]:
    if isinstance(node, dict):
        own = [node["$ref"]] if "$ref" in node else []
        return own + [r for v in node.values() for r in refs(v)]
    if isinstance(node, list):
        return [r for v in node for r in refs(v)]
    return []


def body(name: str) -> dict:
    """What a schema says itself: without its header and the copies under ``$defs``."""
    return {k: v for k, v in schema(name).items() if k not in ("$schema", "$id", "$comment", "$defs")}


NAMES = ("level", "level-flat", "pack", "pack-files", "packdir", "spec", "vocabulary", "moves", "move-labels", "hint",
         "reshuffle", "replay", "solve", "make-report", "merge-report", "verify-report", "grade-report", "calibration")
ALL = ", ".join(NAMES)


def test_names_and_files():
    assert schema_names() == NAMES == (*FILE_SCHEMAS, VOCABULARY, *OUTPUT_SCHEMAS)
    shipped = sorted(p.name for p in SCHEMA_DIR.glob("*.schema.json"))
    assert shipped == sorted(f"{n}.schema.json" for n in schema_names())
    for name in schema_names():
        assert schema_text(name) == (SCHEMA_DIR / f"{name}.schema.json").read_text("utf-8")
        assert schema(name) == json.loads(schema_text(name)) and schema(name) is not schema(name)


@pytest.mark.parametrize("name", NAMES)
def test_every_schema_is_a_valid_2020_12_schema(name):
    obj = schema(name)
    assert obj["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    assert obj["$id"] == f"https://llkgen.example/schemas/{name}.schema.json"
    jsonschema.Draft202012Validator.check_schema(obj)
    if name in OUTPUT_SCHEMAS:  # the format names the kind, the kind names the file
        assert re.fullmatch(rf"llkgen\.{re.escape(name)}/[1-9][0-9]*", obj["properties"]["format"]["const"])
        assert obj["required"][0] == "format"


@pytest.mark.parametrize("name", NAMES)
def test_every_reference_stays_inside_its_own_file(name):
    obj = schema(name)
    for ref in refs(obj):
        assert ref.startswith("#/$defs/"), f"{name}: {ref} points outside the file"
        target: object = obj
        for part in ref[2:].split("/"):
            assert isinstance(target, dict) and part in target, f"{name}: {ref} does not resolve"
            target = target[part]


@pytest.mark.parametrize("name", NAMES)
def test_the_copies_under_defs_equal_their_own_files(name):
    # Edit a schema's own file, then copy its body (no $schema, $id, $comment, $defs) to every
    # $defs that holds it; edit a shared shape in vocabulary.schema.json, then copy it to every
    # $defs that holds it. Any other $defs entry is the schema's own.
    shared = schema(VOCABULARY)["$defs"]
    for other, copy in schema(name).get("$defs", {}).items():
        if other in schema_names():
            assert copy == body(other), f"{name}: $defs/{other} differs from its file"
        elif name != VOCABULARY and other in shared:
            assert copy == shared[other], f"{name}: $defs/{other} differs from vocabulary.schema.json's"
    # What a copied schema refers to under its own $defs comes along, unchanged.
    for other in set(schema(name).get("$defs", {})) & set(schema_names()):
        for key, value in schema(other).get("$defs", {}).items():
            assert schema(name)["$defs"].get(key) == value, f"{name}: $defs/{key} differs from {other}'s"
    if name in ("pack-files", "packdir"):  # what they share with a pack, written out
        for key in ("generator", "seed"):
            assert schema(name)["properties"][key] == schema("pack")["properties"][key]


def test_plain_jsonschema_validates_every_shape_with_no_registry(made):
    for grid in ("nested", "flat"):
        level_schema = "level" if grid == "nested" else "level-flat"
        pack = json.loads(made[grid, "pack"].read_bytes())
        plain("pack").validate(pack)
        jsonschema.validate(pack, json.loads((SCHEMA_DIR / "pack.schema.json").read_text("utf-8")))
        for level in pack["levels"]:
            plain(level_schema).validate(level)
            assert validate(level, level_schema) == []
        assert validate(pack, "pack") == []
        files = made[grid, "files"]
        index = json.loads((files / "index.json").read_bytes())
        plain("pack-files").validate(index)
        assert validate(index, "pack-files") == []
        assert [e["file"] for e in index["levels"]] == sorted(p.name for p in files.iterdir() if p.name != "index.json")
        for entry in index["levels"]:
            level = json.loads((files / entry["file"]).read_bytes())
            plain(level_schema).validate(level)
            assert validate(level, level_schema) == []


def test_a_pack_directorys_index_follows_its_schema(made, tmp_path, monkeypatch, capsys):
    import llkgen.jobs.make as export
    from llkgen.formats.packdir import pack_index_from_json, write_pack_dir

    monkeypatch.setattr(export, "PACK_FILE_MAX", 1)  # so two levels make a pack directory
    for grid in ("nested", "flat"):
        text = SPEC + f"export: {{grid: {grid}}}\n"
        path = make_pack(parse_spec(text, "sch.yaml").with_overrides(out=tmp_path / grid / "sch.json"), jobs=1).path
        index = json.loads((path / "index.json").read_bytes())
        assert index["format"] == "llkgen.packdir/1" and index["count"] == 2
        plain("packdir").validate(index)
        assert validate(index, "packdir") == []
    # several parts, a level without an id (null in ids), the pack's own keys kept
    levels = json.loads(made["nested", "pack"].read_bytes())["levels"]
    path = write_pack_dir(tmp_path / "parts", {"name": "p", "generator": "llkgen 0", "seed": 3},
                          [levels[0], {k: v for k, v in levels[1].items() if k != "id"}], per_file=1)
    index = json.loads((path / "index.json").read_bytes())
    assert len(index["files"]) == 2 and index["ids"][1] is None
    plain("packdir").validate(index)
    # what the schema refuses, the reader refuses too
    part = index["files"][0]
    for bad in ({**index, "format": "llkgen.pack/1"}, {**index, "files": [{**part, "path": "../x.jsonl"}]},
                {**index, "files": [{**part, "path": ".hidden.jsonl"}]}, {**index, "ids": [1, None]},
                {**index, "files": [{**part, "count": 0}]}, {k: v for k, v in index.items() if k != "ids"}):
        assert not plain("packdir").is_valid(bad), bad
        with pytest.raises(LevelFormatError):
            pack_index_from_json(bad)
    code, out, err = run_cli_in_process(["schema", "packdir"], monkeypatch, capsys)
    assert (code, out, err) == (0, (SCHEMA_DIR / "packdir.schema.json").read_text("utf-8"), "")


def _json_type(node: dict, defs: dict) -> set[str]:
    """The JSON types a property's schema allows, null aside, through ``$ref`` and ``anyOf``."""
    if "$ref" in node:
        return _json_type(defs[node["$ref"].split("/")[-1]], defs)
    if "anyOf" in node:
        return set().union(*(_json_type(n, defs) for n in node["anyOf"]))
    if "enum" in node or "const" in node:
        return {type(v).__name__.replace("str", "string") for v in node.get("enum", [node.get("const")])} - {"NoneType"}
    kinds = node.get("type", [])
    return set([kinds] if isinstance(kinds, str) else kinds) - {"null"}


def test_a_key_with_two_meanings_tells_them_apart_by_its_type():
    # outputs.py's vocabulary: path is a drawn line (a list) or a file (a string); budget is the
    # limits (an object) or, in a proof, the one that ran out (a string). Nothing else.
    found: dict[str, dict[str, set[str]]] = {"path": {}, "budget": {}}

    def walk(node: object, where: str, defs: dict) -> None:
        if isinstance(node, dict):
            for key, sub in (node.get("properties") or {}).items():
                if key in found:
                    for kind in _json_type(sub, defs):
                        found[key].setdefault(kind, set()).add(where)
            for key, sub in node.items():
                walk(sub, f"{where}/{key}", defs)
        elif isinstance(node, list):
            for sub in node:
                walk(sub, where, defs)

    for name in schema_names():
        walk(schema(name), name, schema(name).get("$defs", {}))
    assert {k: sorted(v) for k, v in found.items()} == {"path": ["array", "string"], "budget": ["object", "string"]}
    assert all("/proof" in where for where in found["budget"]["string"])
    assert all("/proof" not in where for where in found["budget"]["object"])


def test_the_shapes_stay_apart(made):
    flat = json.loads(made["flat", "pack"].read_bytes())["levels"][0]
    nested = json.loads(made["nested", "pack"].read_bytes())["levels"][0]
    assert not plain("level").is_valid(flat) and not plain("level-flat").is_valid(nested)
    assert not plain("level-flat").is_valid(flat | {"grid": nested["grid"]})
    assert plain("pack").is_valid({"format": "llkgen.pack/1", "name": "p", "levels": [flat, nested]})


def test_validate_names_what_is_wrong(made):
    pack = json.loads(made["flat", "pack"].read_bytes())
    del pack["name"]
    pack["seed"] = -1
    pack["levels"][0]["rows"] = 0
    pack["levels"][1]["cells"][3] = "x"
    assert validate(pack, "pack") == [
        "$: 'name' is a required property",
        "$.seed: -1 is less than the minimum of 0",
        # a flat level is told about its own fields, not that it lacks a nested grid
        "$.levels[0].rows: 0 is less than the minimum of 1",
        "$.levels[1].cells[3]: 'x' is not of type 'integer'",
    ]
    nested = json.loads(made["nested", "files"].joinpath("sch-1.json").read_bytes())
    errors = validate(nested | {"rules": {"gravity": "sideways"}}, "level")
    assert len(errors) == 1 and errors[0].startswith("$.rules.gravity: 'sideways' is not one of")
    assert validate([], "pack-files") == ["$: [] is not of type 'object'"]
    huge = validate({"format": "llkgen.pack/1", "name": "p", "levels": [{"grid": [[1] * 60] * 60}]}, "pack")
    assert huge and all(len(e) <= 300 for e in huge)


def test_unknown_names_and_a_missing_jsonschema(monkeypatch):
    for call in (lambda: schema("levels"), lambda: validate({}, "levels")):
        with pytest.raises(SchemaError, match=f"expected one of {ALL}, found 'levels'"):
            call()
    import llkgen.formats.schemas as module

    module.validator.cache_clear()
    monkeypatch.setitem(__import__("sys").modules, "jsonschema", None)  # import jsonschema now fails
    try:
        with pytest.raises(SchemaError, match=r"pip install jsonschema"):
            validate({}, "level")
    finally:
        module.validator.cache_clear()


def test_cli_prints_and_lists_the_schemas(monkeypatch, capsys):
    code, out, err = run_cli_in_process(["schema"], monkeypatch, capsys)
    assert (code, out, err) == (0, "".join(f"{n}\n" for n in NAMES), "")
    for name in schema_names():
        code, out, err = run_cli_in_process(["schema", name], monkeypatch, capsys)
        assert code == 0 and err == ""
        assert out == (SCHEMA_DIR / f"{name}.schema.json").read_text("utf-8")  # the file, byte for byte
        assert json.loads(out) == schema(name)


def test_cli_refuses_an_unknown_name(monkeypatch, capsys):
    code, out, err = run_cli_in_process(["schema", "packs"], monkeypatch, capsys)
    assert code == EXIT_USAGE and out == ""
    flat = " ".join(err.translate({ord(ch): " " for ch in "│╭╮╰╯─"}).split())  # rich's box, unwrapped
    assert f"expected one of {ALL}, found 'packs'" in flat
    assert "Traceback" not in err


# -- one vocabulary, anchored in the level file -------------------------------------------------
def _bare(node: dict) -> dict:
    return {k: v for k, v in node.items() if k != "description"}


def test_the_vocabulary_is_the_level_files_own_shapes():
    shared = schema(VOCABULARY)["$defs"]
    level = schema("level")["properties"]
    # A move in any document is a move of a level's solution, and a verdict its certificate's.
    assert _bare(shared["cell"]) == _bare(level["solution"]["items"]["items"])
    move = plain("moves").schema["$defs"]["move"]
    assert {k: v for k, v in _bare(level["solution"]["items"]).items() if k != "items"} == \
        {k: v for k, v in _bare(move).items() if k != "items"}
    assert shared["verdict"]["enum"] == level["certificate"]["properties"]["verdict"]["enum"]
    assert set(shared["budget"]["properties"]) >= set(level["certificate"]["properties"]["budget"]["properties"])
    solution = plain("solve")
    for moves in ([], [[[0, 1], [0, 3]]], [[[63, 0], [0, 63]]]):
        assert plain("level").is_valid({"format": "llkgen.level/1", "rows": 1, "cols": 1, "grid": [[0]],
                                        "solution": moves})
        assert solution.is_valid({**_solvable(), "solution": moves})
    for bad in ([[[0, 1]]], [[[0, 1], [0, -1]]], [[[0, 1], [0, 64]]], [{"a": [0, 1], "b": [0, 3]}], "replays"):
        assert not plain("level").is_valid({"format": "llkgen.level/1", "rows": 1, "cols": 1, "grid": [[0]],
                                            "solution": bad})
        assert not solution.is_valid({**_solvable(), "solution": bad})


def _solvable() -> dict:
    return {"format": "llkgen.solve/1", "verdict": "solvable", "reason": "r", "solution": [], "paths": [],
            "proof": None, "stats": {"nodes": 0}, "budget": {"nodes": 1, "seconds": None}}


def test_the_old_shapes_are_refused():
    # verify-report/1's level: "status", and "solution" as a string; budget and seconds apart.
    level = {"label": "a.json", "file": "a.json", "check": "ok", "verdict": "solvable", "method": "replay",
             "stage": "", "nodes": 0, "budget": {"nodes": 200000, "seconds": None}, "replayed": True,
             "solution_moves": 3, "detail": "solvable"}
    report = {"format": "llkgen.verify-report/2", "exit_code": 0,
              "summary": {"ok": 1, "unsolvable": 0, "unknown": 0, "failed": 0, "invalid_files": 0,
                          "skipped_files": 0, "levels": 1, "files": 1, "certified_by": {"replay": 1, "search": 0}},
              "levels": [level], "files": []}
    assert plain("verify-report").is_valid(report)
    for old in ({"status": "ok"}, {"solution": "replays"}, {"budget": 200000}, {"seconds": None}):
        level_v1 = {k: v for k, v in level.items() if k not in ("check", "replayed")} | old
        assert not plain("verify-report").is_valid(report | {"levels": [level_v1]}), old
    assert not plain("verify-report").is_valid(report | {"format": "llkgen.verify-report/1"})
    assert not plain("verify-report").is_valid(report | {"levels": [level | {"check": "invalid"}]})
    # moves/hint before: a move was {"a", "b", "path"}, the hint's result a "status".
    old_move = {"a": [0, 1], "b": [0, 3], "path": [[0, 1], [0, 3]]}
    assert not plain("moves").is_valid({"format": "llkgen.moves/1", "moves": [old_move], "tiles_left": 2})
    assert plain("moves").is_valid({"format": "llkgen.moves/1", "tiles_left": 2,
                                    "moves": [{"move": [[0, 1], [0, 3]], "path": [[0, 1], [-1, 1], [-1, 3], [0, 3]]}]})
    hint = {"format": "llkgen.hint/1", "verdict": "unsolvable", "move": None, "path": None, "witness": None,
            "proof": {"argument": "lock-test", "locked": [[0, 0], [1, 1]]}, "reason": "r",
            "budget": {"nodes": 20000, "seconds": None}}
    assert plain("hint").is_valid(hint)
    assert not plain("hint").is_valid(hint | {"status": "dead"})
    assert not plain("hint").is_valid(hint | {"proof": None})  # unsolvable comes with its proof
    assert not plain("hint").is_valid(hint | {"verdict": "solvable", "proof": None, "witness": None})
    # solve's proof: what blocks a locked tile named the pair as "a" and "b".
    pairs = {"type": 1, "blockers": [[0, 1], [1, 0]],
             "pairs": [{"pair": [[0, 0], [1, 1]], "bottleneck": [[0, 1], [1, 0]]},
                       {"pair": [[1, 1], [0, 0]], "bottleneck": None}]}
    dead = {"format": "llkgen.solve/1", "verdict": "unsolvable", "reason": "r", "solution": None, "paths": None,
            "proof": {"argument": "lock-test", "locked": [[0, 0], [1, 1]], "bottlenecks": [pairs]},
            "stats": {"nodes": 0}, "budget": {"nodes": 1, "seconds": None}}
    assert plain("solve").is_valid(dead)
    old_pair = {"a": [0, 0], "b": [1, 1], "bottleneck": [[0, 1], [1, 0]]}
    for bad in ({**pairs, "pairs": [old_pair]}, {**pairs, "pairs": [{"pair": [[0, 0]], "bottleneck": []}]}):
        assert not plain("solve").is_valid(dead | {"proof": dead["proof"] | {"bottlenecks": [bad]}}), bad
    # replay/1 counted the moves given as "moves".
    replay = {"format": "llkgen.replay/2", "ok": True, "cleared": True, "given": 3, "applied": 3, "tiles_left": 0,
              "error_index": None, "reason": None, "error": None}
    assert plain("replay").is_valid(replay)
    assert not plain("replay").is_valid({**{k: v for k, v in replay.items() if k != "given"}, "moves": 3})


#: JSON Schema's keywords (draft 2020-12, with the annotation ones) that llkgen's schemas may use.
KEYWORDS = {
    "$schema", "$id", "$ref", "$defs", "$comment", "title", "description", "default", "examples",
    "deprecated", "readOnly", "writeOnly", "type", "enum", "const", "properties", "required",
    "additionalProperties", "patternProperties", "propertyNames", "minProperties", "maxProperties",
    "items", "prefixItems", "contains", "minItems", "maxItems", "uniqueItems", "minimum", "maximum",
    "exclusiveMinimum", "exclusiveMaximum", "multipleOf", "minLength", "maxLength", "pattern", "format",
    "oneOf", "anyOf", "allOf", "not", "if", "then", "else", "dependentRequired", "unevaluatedProperties",
}


def _subschemas(node: dict, path: str):
    """Every schema object under ``node`` (itself included), with its JSON pointer."""
    yield path, node
    for key in ("properties", "$defs", "patternProperties"):
        for name, sub in node.get(key, {}).items():
            yield from _subschemas(sub, f"{path}/{key}/{name}")
    for key in ("items", "additionalProperties", "not", "if", "then", "else", "contains", "propertyNames"):
        if isinstance(node.get(key), dict):
            yield from _subschemas(node[key], f"{path}/{key}")
    for key in ("oneOf", "anyOf", "allOf", "prefixItems"):
        for i, sub in enumerate(node.get(key, [])):
            yield from _subschemas(sub, f"{path}/{key}/{i}")


@pytest.mark.parametrize("path", sorted(SCHEMA_DIR.glob("*.schema.json")), ids=lambda p: p.name)
def test_every_key_of_a_schema_is_a_keyword(path):
    """A key that is not a keyword is ignored by every validator: a property written one level
    too high (beside ``properties`` instead of inside it) would check nothing, silently."""
    for where, node in _subschemas(json.loads(path.read_text("utf-8")), "#"):
        assert set(node) <= KEYWORDS, f"{path.name} {where}: not keywords: {sorted(set(node) - KEYWORDS)}"


def test_a_level_metric_of_the_wrong_kind_is_refused():
    pack = llkgen.generate(parse_spec(SPEC, "sch.yaml"), count=1)
    level = level_to_json(pack.levels[0])
    assert not list(plain("level").iter_errors(level))
    for key, bad in (("pairs", 2.5), ("difficulty", 120), ("difficulty_se", -1)):
        wrong = {**level, "metrics": {**level["metrics"], key: bad}}
        assert list(plain("level").iter_errors(wrong)), key
