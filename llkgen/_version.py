"""llkgen's version, in a module of its own so that any part of the package can name it without
importing the package's face; and the ``--version`` line, which needs nothing but the standard
library (see :mod:`llkgen.entry`)."""

from __future__ import annotations

__version__ = "0.1.0"


def search_core() -> str:
    """``"compiled"`` when the search core imports as a compiled extension module (a wheel
    built with mypyc, see setup.py), else ``"pure Python"``. Found without importing it: the
    module's spec names the file the import would load."""
    from importlib.util import find_spec

    spec = find_spec("llkgen.game.grid")
    origin = (spec.origin or "") if spec is not None else ""
    return "pure Python" if origin.endswith(".py") else "compiled"


def native_gravity_search() -> bool:
    """Whether the C move search under gravity (``llkgen/verifier/_gravity_search.c``, see
    :mod:`llkgen.verifier.native`) is built here; found, like the core, without importing it."""
    return _built("llkgen.verifier._gravity_search")


def native_players() -> bool:
    """Whether the C model players (``llkgen/analysis/_players.c``, see
    :mod:`llkgen.analysis.native_players`) are built here."""
    return _built("llkgen.analysis._players")


def _built(module: str) -> bool:
    from importlib.util import find_spec

    return find_spec(module) is not None


def version_line() -> str:
    """``llkgen --version``: the version, which search core runs (compiled or pure Python),
    whether the C gravity search is built (it decides long searches under gravity: their node
    counts and witnesses differ without it, their verdicts never), and whether the C model
    players are (they make grading several times faster; the numbers are the same without)."""
    search = "with" if native_gravity_search() else "without"
    play = "with" if native_players() else "without"
    return (f"llkgen {__version__} (search core: {search_core()}, {search} the C gravity search, "
            f"{play} the C model players)")
