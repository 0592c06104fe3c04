"""The ``llkgen`` command line: a thin layer over the library.

Each command parses its arguments, calls one library function and formats the result.
Errors in the user's input become ``Error: ...`` on stderr with exit code 1, never a traceback.
Every help text ends with an example that runs as printed for someone who installed the wheel
and ran the examples before it (``init``, then ``make``), in any directory.

One module per group of commands, each option declared on its command with its help
(:mod:`~llkgen.cli.options` declares the ones several commands share):
:mod:`~llkgen.cli.level` (``show``, ``moves``, ``hint``, ``reshuffle``, ``replay``, ``solve``:
one level's board), :mod:`~llkgen.cli.make` (``init``, ``make``, ``merge``),
:mod:`~llkgen.cli.render` (``render``, ``view``), :mod:`~llkgen.cli.verify`,
:mod:`~llkgen.cli.grade` (``grade``, ``calibrate``) and :mod:`~llkgen.cli.schema`;
:mod:`~llkgen.cli.root` puts them in one Typer app. What the commands print, apart from Typer,
is :mod:`llkgen.console`. Only this package names flags; the library names its arguments.
"""

from __future__ import annotations

from llkgen.cli.level import Engine
from llkgen.cli.root import app, main

__all__ = ["Engine", "app", "main"]
