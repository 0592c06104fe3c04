"""``llkgen schema``: the JSON Schema of every file llkgen reads or writes and of every
document its commands print with ``--json``."""

from __future__ import annotations

from typing import Optional

import typer


def schema(
    name: Optional[str] = typer.Argument(
        None, metavar="NAME", help="A name llkgen schema lists: the file llkgen/schemas/NAME.schema.json."),
) -> None:
    """Print the JSON Schema of a file or a --json document of llkgen's, or without NAME the names.

    Each one is self-contained: any JSON Schema validator checks a file against it offline,
    with no registry and nothing fetched. They are the files in llkgen/schemas/.

    Example: llkgen schema pack
    """
    from llkgen.formats.schemas import schema_names, schema_text

    if name is not None and name not in schema_names():
        raise typer.BadParameter(f"expected one of {', '.join(schema_names())}, found {name!r}", param_hint="NAME")
    typer.echo("\n".join(schema_names()) if name is None else schema_text(name), nl=name is None)
