"""The optional compiled accelerator; everything else about the package is in pyproject.toml.

llkgen is pure Python. A wheel, or a regular ``pip install .``, also compiles its search core
with mypyc: the same source files, compiled to C extension modules that Python imports in
their place. They give the same verdicts, the same witnesses and the same node counts as the
pure Python they come from (``tests/test_package.py`` holds the two to that on a wheel built
here, and docs/benchmarks.md gives the speed-up). Nothing is compiled when:

* the install is editable (``pip install -e .``): a compiled module would shadow its source
  file, and an edit to the source would silently not take effect;
* ``LLKGEN_PURE=1`` is set;
* mypyc or a C compiler is missing or fails: the build goes on in pure Python.

The benchmark's frozen baseline search (``llkgen/verifier/baseline.py``) is never compiled: it
is the yardstick.
"""

from __future__ import annotations

import os
import sys

from setuptools import setup

#: The modules of the search core: the working board and every search on it.
ACCELERATED = [
    "llkgen/game/grid.py",
    "llkgen/game/gravity.py",
    "llkgen/game/playout.py",
    "llkgen/verifier/lock.py",
    "llkgen/verifier/pairing.py",
    "llkgen/verifier/movesearch.py",
]


def accelerator() -> list:
    building = any(cmd in sys.argv for cmd in ("bdist_wheel", "build_ext", "build", "install"))
    if not building or "editable_wheel" in sys.argv or os.environ.get("LLKGEN_PURE"):
        return []
    try:
        from mypyc.build import mypycify

        # The build environment holds no stubs for the dependencies (ortools, numpy, yaml):
        # those imports type as Any, which changes nothing in the compiled modules.
        modules = mypycify([*ACCELERATED, "--ignore-missing-imports"], opt_level="3", group_name="llkgen")
    except (Exception, SystemExit) as e:  # no mypyc, or it refuses a module: stay pure Python
        print(f"llkgen: building without the compiled accelerator: {e!r}", file=sys.stderr)
        return []
    for ext in modules:
        ext.optional = True  # a failed C compile leaves the pure Python module in place
    return modules


setup(ext_modules=accelerator())
