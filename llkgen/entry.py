"""The ``llkgen`` console script and ``python -m llkgen``: answers ``llkgen --version`` at
once, with no command-line framework imported, and hands every other command line to
:func:`llkgen.cli.main`.

Typer (with click and rich) costs several times an interpreter's own start-up, and a version
check should not pay it. So this module imports nothing but the standard library's import
machinery, and tells which search core runs without importing it.
"""

from __future__ import annotations

import sys


def search_core() -> str:
    """``"compiled"`` when the search core imports as a compiled extension module (a wheel
    built with mypyc, see setup.py), else ``"pure Python"``. Found without importing it: the
    module's spec names the file the import would load."""
    from importlib.util import find_spec

    spec = find_spec("llkgen.game.grid")
    origin = (spec.origin or "") if spec is not None else ""
    return "pure Python" if origin.endswith(".py") else "compiled"


def version_line() -> str:
    """``llkgen --version``: the version and which search core runs (compiled or pure Python)."""
    from llkgen._version import __version__

    return f"llkgen {__version__} (search core: {search_core()})"


def main() -> None:
    """Print :func:`version_line` for ``llkgen --version``; run :func:`llkgen.cli.main` on
    anything else."""
    if sys.argv[1:] == ["--version"]:
        print(version_line())
        return
    from llkgen.cli import main as cli_main

    cli_main()
