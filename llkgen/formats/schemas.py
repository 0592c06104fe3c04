"""The JSON Schemas llkgen ships (``llkgen/schemas/<name>.schema.json``), and a check against them.

There is one for each file llkgen reads or writes (:data:`FILE_SCHEMAS`) and one for each kind
of document its commands print with ``--json`` (:data:`OUTPUT_SCHEMAS`: a document whose
``format`` is ``llkgen.<kind>/<n>`` follows ``<kind>.schema.json``). ``vocabulary.schema.json``
defines the shapes they share -- a cell, a move, a path, a solution, a verdict, a proof, a
budget (:mod:`llkgen.outputs`) -- once.

Each schema is self-contained: what it takes from another one is copied under its ``$defs`` (a
schema's body under its name, a shared shape under the vocabulary's name for it) and referred
to as ``#/$defs/...``, so any JSON Schema 2020-12 validator checks a file against it offline,
with no registry and nothing fetched::

    jsonschema.validate(json.load(open("pack.json")), schema("pack"))

(A ``$ref`` to another file would need a registry that maps its URI to the file, which plain
``jsonschema`` does not build: so the copies, which tests/formats/test_schemas.py keeps equal.)

:func:`validate` does that and returns the errors as text. It needs ``jsonschema``, which is
not one of llkgen's dependencies (``pip install jsonschema``); :func:`schema` does not.
"""

from __future__ import annotations

from collections.abc import Iterator
from functools import cache
from importlib import import_module, resources
from typing import Any

from llkgen.errors import LlkgenError
from llkgen.formats.level import parse_json

#: The schemas of files: a nested level, a flat level, a pack (of levels of either shape), the
#: ``index.json`` of the ``files`` layout and of a pack directory, and a YAML spec.
FILE_SCHEMAS = ("level", "level-flat", "pack", "pack-files", "packdir", "spec")
#: The schemas of what the commands print with ``--json``, named after the kind of their
#: ``format`` (``llkgen.<kind>/<n>``).
OUTPUT_SCHEMAS = ("moves", "move-labels", "hint", "reshuffle", "replay", "solve", "make-report", "merge-report",
                  "verify-report", "grade-report", "calibration")
#: The shapes every document shares, which the other schemas copy.
VOCABULARY = "vocabulary"
#: Every shipped schema, in the order ``llkgen schema`` lists them.
SCHEMAS = (*FILE_SCHEMAS, VOCABULARY, *OUTPUT_SCHEMAS)
#: The longest error message :func:`validate` returns (a value quoted in one is cut short).
MESSAGE_CHARS = 300


class SchemaError(LlkgenError):
    """An unknown schema name, or :func:`validate` without ``jsonschema`` installed."""


def schema_names() -> tuple[str, ...]:
    """The names :func:`schema` and :func:`validate` take, in the order ``llkgen schema`` lists them."""
    return SCHEMAS


def _check_name(name: str) -> None:
    if name not in SCHEMAS:
        raise SchemaError(f"schema: expected one of {', '.join(SCHEMAS)}, found {name!r}")


@cache
def schema_text(name: str) -> str:
    """The shipped file of schema ``name``, as its bytes decode."""
    _check_name(name)
    return resources.files("llkgen").joinpath("schemas", f"{name}.schema.json").read_text("utf-8")


def schema(name: str) -> dict[str, Any]:
    """Schema ``name`` of :data:`SCHEMAS` as a new dict (the caller may change it). Unknown
    names raise :class:`SchemaError`."""
    obj = parse_json(schema_text(name), f"llkgen/schemas/{name}.schema.json")  # read as strictly as any JSON
    assert isinstance(obj, dict), "a shipped schema is an object"
    return obj


@cache
def validator(name: str) -> Any:
    """A ``jsonschema`` validator of schema ``name``, built once (needs ``jsonschema``)."""
    _check_name(name)
    try:  # imported by name: jsonschema ships no type hints, and llkgen does not depend on it
        jsonschema = import_module("jsonschema")
    except ImportError:
        raise SchemaError("validating against a schema needs jsonschema, which llkgen does not install: "
                          "pip install jsonschema") from None
    obj = schema(name)
    return jsonschema.validators.validator_for(obj)(obj)


def _causes(error: Any) -> Iterator[Any]:
    """``error`` itself, or for a ``oneOf`` none of whose branches matched (a pack's level, nested
    or flat) the errors of the branch that came closest: the fewest errors, the first of equals.
    A flat level with a bad cell is told about that cell, not that it lacks a ``grid``."""
    if not error.context:
        yield error
        return
    branches: dict[object, list[Any]] = {}
    for e in error.context:
        branches.setdefault(e.relative_schema_path[0], []).append(e)
    for e in min(branches.values(), key=len):
        yield from _causes(e)


def _message(error: Any) -> str:
    """``$.levels[0].grid[1][2]: -2 is less than the minimum of -1``: where, then what."""
    text = f"{error.json_path}: {error.message}"
    return text if len(text) <= MESSAGE_CHARS else text[:MESSAGE_CHARS - 3] + "..."


def validate(obj: object, name: str) -> list[str]:
    """The ways ``obj`` (parsed JSON) breaks schema ``name``, one readable line each, in the
    schema's order; empty when it is valid. Needs ``jsonschema`` (:class:`SchemaError` says
    how to install it). The schemas cannot say everything llkgen checks when it loads a file
    (e.g. every tile type occurs an even number of times); :mod:`llkgen.formats.load` does."""
    return [_message(c) for e in validator(name).iter_errors(obj) for c in _causes(e)]
