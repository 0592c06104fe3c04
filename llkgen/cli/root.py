"""The root of the command line: the Typer app, ``--version``, and every command in the order
``llkgen --help`` lists them (:data:`COMMANDS`), each from the module of its group."""

from __future__ import annotations

import typer

from llkgen._version import version_line
from llkgen.cli import grade, level, make, render, schema, verify
from llkgen.console import example_kept_whole, run_app
from llkgen.errors import EXIT_CODES_HELP

app = typer.Typer(
    name="llkgen",
    help="Generate Lianliankan (Onet / Shisen-Sho) level packs and certify that every board "
    "can be cleared.\n\n" + EXIT_CODES_HELP,
    no_args_is_help=True,
    add_completion=True,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
    context_settings={"help_option_names": ["-h", "--help"]},
)


def _print_version(value: bool) -> None:
    if value:
        typer.echo(version_line())
        raise typer.Exit()


@app.callback()
def _root(
    version: bool = typer.Option(False, "--version", callback=_print_version, is_eager=True,
                                 help="Print llkgen's version and exit."),
) -> None:
    pass


#: Every command, in the order ``llkgen --help`` lists them: start a pack, look at one level,
#: draw levels, make and check packs, measure them.
COMMANDS = (make.init, level.show, level.moves, level.hint, level.reshuffle, level.replay, level.solve,
            render.render, render.view, make.make, make.merge, verify.verify, grade.grade, schema.schema,
            grade.calibrate)
for _command in COMMANDS:
    # Every example runs as printed, on a terminal of any width (tests/cli/test_cli_help.py).
    _command.__doc__ = example_kept_whole(_command.__doc__)
    app.command()(_command)


def main() -> None:
    """The ``llkgen`` console script: runs the Typer app and turns library errors and signals
    into the documented messages and exit codes (:func:`llkgen.console.run_app`)."""
    run_app(app)
