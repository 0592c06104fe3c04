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
    from importlib.util import find_spec

    return find_spec("llkgen.verifier._gravity_search") is not None


def version_line() -> str:
    """``llkgen --version``: the version, which search core runs (compiled or pure Python) and
    whether the C gravity search is built (it decides long searches under gravity: their node
    counts and witnesses differ without it, their verdicts never)."""
    c = "with" if native_gravity_search() else "without"
    return f"llkgen {__version__} (search core: {search_core()}, {c} the C gravity search)"
