"""``llkgen init``'s starting point: a new spec, the shipped starter renamed and commented, and
the spec's JSON Schema written beside it for editors."""

from __future__ import annotations

import os

from llkgen.errors import SpecError
from llkgen.generation.limits import STARTER
from llkgen.generation.spec import NAME_RULE, name_ok, parse_spec, shipped_spec_file
from llkgen.generation.strictyaml import quote

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
    lines = shipped_spec_file(STARTER).read_text("utf-8").splitlines(keepends=True)
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
                          f"or no file (to update it: llkgen schema spec > {path}; or choose another out)",
                          arguments=("out",))
    return path


def _with_value(line: str, old: str, new: str) -> str:
    """``line`` with the value ``old`` replaced by ``new``, its comment kept in its column."""
    code, comment = line.split(" #", 1)
    code = code.rstrip().replace(old, new)
    return f"{code.ljust(len(line.split(' #', 1)[0]))} #{comment}"


__all__ = ["SPEC_SCHEMA_FILE", "starter_spec", "write_spec_schema"]
