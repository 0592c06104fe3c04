"""The shipped JSON Schemas: self-contained, so plain jsonschema checks llkgen's own output against
them offline with no registry; :func:`llkgen.formats.schemas.validate`; and ``llkgen schema``."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest

import llkgen
from llkgen.errors import EXIT_USAGE
from llkgen.formats.schemas import SchemaError, schema, schema_names, schema_text, validate
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


def test_names_and_files():
    assert schema_names() == ("level", "level-flat", "pack", "pack-files")
    shipped = sorted(p.name for p in SCHEMA_DIR.glob("*.schema.json"))
    assert shipped == sorted(f"{n}.schema.json" for n in schema_names())
    for name in schema_names():
        assert schema_text(name) == (SCHEMA_DIR / f"{name}.schema.json").read_text("utf-8")
        assert schema(name) == json.loads(schema_text(name)) and schema(name) is not schema(name)


@pytest.mark.parametrize("name", ["level", "level-flat", "pack", "pack-files"])
def test_every_reference_stays_inside_its_own_file(name):
    obj = schema(name)
    for ref in refs(obj):
        assert ref.startswith("#/$defs/"), f"{name}: {ref} points outside the file"
        target: object = obj
        for part in ref[2:].split("/"):
            assert isinstance(target, dict) and part in target, f"{name}: {ref} does not resolve"
            target = target[part]


@pytest.mark.parametrize("name", ["level", "level-flat", "pack", "pack-files"])
def test_the_copies_under_defs_equal_their_own_files(name):
    # Edit a schema's own file, then copy its body (no $schema, $id, $comment, $defs) to every
    # $defs that holds it.
    for other, copy in schema(name).get("$defs", {}).items():
        assert other in schema_names() and copy == body(other), f"{name}: $defs/{other} differs from its file"
    if name == "pack-files":  # what it shares with a pack, written out
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
        with pytest.raises(SchemaError, match="expected one of level, level-flat, pack, pack-files, found 'levels'"):
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
    assert (code, out, err) == (0, "level\nlevel-flat\npack\npack-files\n", "")
    for name in schema_names():
        code, out, err = run_cli_in_process(["schema", name], monkeypatch, capsys)
        assert code == 0 and err == ""
        assert out == (SCHEMA_DIR / f"{name}.schema.json").read_text("utf-8")  # the file, byte for byte
        assert json.loads(out) == schema(name)


def test_cli_refuses_an_unknown_name(monkeypatch, capsys):
    code, out, err = run_cli_in_process(["schema", "packs"], monkeypatch, capsys)
    assert code == EXIT_USAGE and out == ""
    assert "expected one of level, level-flat, pack, pack-files, found 'packs'" in " ".join(err.split())
    assert "Traceback" not in err
