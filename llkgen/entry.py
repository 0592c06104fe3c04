"""The ``llkgen`` console script and ``python -m llkgen``: answers ``llkgen --version`` at
once, with no command-line framework imported, and hands every other command line to
:func:`llkgen.cli.main`.

Typer (its click, and the pydantic it coerces every argument through) costs several times an
interpreter's own start-up (benchmarks/startup_bench.py), and a version check should not pay
it. So this module imports nothing but the standard library's import machinery, and tells
which search core runs without importing it.
"""

from __future__ import annotations

import sys

from llkgen._version import version_line


def main() -> None:
    """Print :func:`version_line` for ``llkgen --version``; run :func:`llkgen.cli.main` on
    anything else."""
    if sys.argv[1:] == ["--version"]:
        print(version_line())
        return
    from llkgen.cli import main as cli_main

    cli_main()
