"""The optional compiled accelerator; everything else about the package is in pyproject.toml.

llkgen is pure Python. A wheel, or a regular ``pip install .``, also compiles its search core
with mypyc: the same source files, compiled to C extension modules that Python imports in
their place. They give the same verdicts, the same witnesses and the same node counts as the
pure Python they come from (``tests/project/test_package.py`` holds the two to that on a wheel built
here, and docs/benchmarks.md gives the speed-up). Nothing is compiled when:

* the install is editable (``pip install -e .``): a compiled module would shadow its source
  file, and an edit to the source would silently not take effect;
* ``LLKGEN_PURE=1`` is set, or ``LLKGEN_NO_MYPYC=1`` (which keeps the two C modules below:
  they compile in seconds, where mypyc takes about a minute; the GitHub Action installs so).
  Any non-empty value counts, ``0`` included, as it always has for ``LLKGEN_PURE``;
* mypyc or a C compiler is missing or fails: the build goes on in pure Python, and says so in
  a banner on stderr, at the failure and again as the build's last words (pip shows a
  successful build's log only with ``-v``; ``llkgen --version`` always tells which core runs).

A wheel with the compiled core is a platform wheel (``cp311-cp311-linux_x86_64``, which
``auditwheel repair`` turns into a ``manylinux`` one; cibuildwheel does that for every
platform, see ``[tool.cibuildwheel]`` in pyproject.toml). A wheel without it is pure Python
and tagged ``py3-none-any``, whether ``LLKGEN_PURE=1`` asked for that or the compile failed:
a failed compile drops every compiled module, so no wheel holds half a core.

Two modules are written in C rather than compiled from Python: the move search under gravity
(``llkgen/verifier/_gravity_search.c``; ``llkgen/verifier/native.py`` says why and when it
runs) and the model players that measure difficulty (``llkgen/analysis/_players.c``;
``llkgen/analysis/native_players.py``). They share the padded board and the link test in
``llkgen/_native/`` (``board.h``, ``links.h``); ``LLKGEN_CHECK=1`` builds them with their
``assert``s on (:func:`checked`). They have no Python source to shadow, so they are built by
editable installs too, and only ``LLKGEN_PURE=1`` leaves them out. Without them the Python
code they stand in for runs alone, with the same results.

The benchmark's frozen baseline search (``llkgen/verifier/baseline.py``) is never compiled: it
is the yardstick.
"""

from __future__ import annotations

import atexit
import os
import runpy
import sys
from pathlib import Path

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

try:
    from setuptools.command.bdist_wheel import bdist_wheel  # setuptools >= 70.1
except ImportError:  # an older setuptools, outside the isolated build pyproject.toml asks for
    from wheel.bdist_wheel import bdist_wheel

#: The modules of the search core: the working board and every search on it.
ACCELERATED = [
    "llkgen/game/grid.py",
    "llkgen/game/gravity.py",
    "llkgen/game/playout.py",
    "llkgen/analysis/players.py",
    "llkgen/verifier/lock.py",
    "llkgen/verifier/pairing.py",
    "llkgen/verifier/movesearch.py",
    "llkgen/verifier/reach.py",
    "llkgen/verifier/gravlock.py",
]


def accelerator() -> list:
    building = any(cmd in sys.argv for cmd in ("bdist_wheel", "build_ext", "build", "install"))
    skipped = os.environ.get("LLKGEN_PURE") or os.environ.get("LLKGEN_NO_MYPYC")
    if not building or "editable_wheel" in sys.argv or skipped:
        return []
    try:
        from mypyc.build import mypycify

        # The build environment holds no stubs for the dependencies (ortools, numpy, yaml):
        # those imports type as Any, which changes nothing in the compiled modules.
        modules = mypycify([*ACCELERATED, "--ignore-missing-imports"], opt_level="3", group_name="llkgen")
    except (Exception, SystemExit) as e:  # no mypyc, or it refuses a module: stay pure Python
        fallback(f"mypyc could not compile the search core: {e!r}")
        return []
    for ext in modules:
        ext.optional = True  # a failed C compile leaves the pure Python module in place
    return modules


def native() -> list:
    """The modules written in C (:data:`NATIVE`), unless ``LLKGEN_PURE`` is set (module docstring)."""
    if os.environ.get("LLKGEN_PURE"):
        return []
    shared = [f"llkgen/_native/{h}" for h in ("board.h", "links.h", "check.h")]
    return [Extension(name, [source], depends=shared, optional=True, **checked())
            for name, source in (("llkgen.verifier._gravity_search", "llkgen/verifier/_gravity_search.c"),
                                 ("llkgen.analysis._players", "llkgen/analysis/_players.c"))]


def checked() -> dict:
    """With ``LLKGEN_CHECK`` set (any non-empty value), the C modules are built with their
    ``assert``s on: ``LLKGEN_CHECK`` defined and ``NDEBUG`` (which Python's compiler flags set)
    undefined (``llkgen/_native/check.h``). A debugging build: the gravity search runs about 1.4
    times slower, the model players several times (they also compare every updated move list
    with a fresh one). Without it the asserts compile out."""
    if not os.environ.get("LLKGEN_CHECK"):
        return {}
    return {"define_macros": [("LLKGEN_CHECK", "1")], "undef_macros": ["NDEBUG"]}


def fallback(reason: str) -> None:
    """Say, loudly, that this build is pure Python: now, and again as the build's last words."""
    lines = [
        "llkgen: WARNING: building WITHOUT the compiled search core; this build is pure Python.",
        f"llkgen: {reason}",
        "llkgen: llkgen works the same but its searches run several times slower.",
        "llkgen: For the compiled core, install a C compiler (and Python's headers) and build again;",
        "llkgen: set LLKGEN_PURE=1 to ask for pure Python and silence this warning.",
    ]
    bar = "!" * min(100, max(len(line) for line in lines))
    banner = "\n".join(["", bar, *lines, bar, ""])
    print(banner, file=sys.stderr, flush=True)
    atexit.register(print, banner, file=sys.stderr, flush=True)
    atexit.register(tell_the_terminal, banner)


def tell_the_terminal(banner: str) -> None:
    """pip keeps a successful build's output to itself (it shows it with ``-v``): when stderr is
    captured, write the banner to the terminal the build was started from, if there is one."""
    if sys.stderr.isatty():
        return  # the banner is on the terminal already
    try:
        with open("CON" if os.name == "nt" else "/dev/tty", "w") as tty:
            tty.write(banner + "\n")
    except OSError:
        pass  # no terminal (CI, a pipe): the build log holds the banner


#: The modules written in C, each optional on its own.
NATIVE = ("llkgen.verifier._gravity_search", "llkgen.analysis._players")


class BuildExt(build_ext):
    """build_ext that keeps the compiled core whole or not at all: when a module of it fails to
    compile (no C compiler, or one that refuses mypyc's output), the modules that did compile
    are removed too, the distribution is left with no extension modules (so the wheel is pure
    Python), and :func:`fallback` says so. The modules written in C (:data:`NATIVE`) stand
    alone: when only they failed, the compiled core is kept and the build says which it goes
    without."""

    failed: list[str] = []

    def build_extension(self, ext) -> None:
        try:
            super().build_extension(ext)
        except Exception as e:
            BuildExt.failed.append(f"{ext.name}: {e}")
            raise  # an optional extension: build_ext warns and goes on

    def run(self) -> None:
        super().run()
        failed = {f.split(":")[0] for f in self.failed}
        if failed and failed <= set(NATIVE):
            self.distribution.ext_modules = [e for e in self.distribution.ext_modules or [] if e.name not in failed]
            print(f"llkgen: WARNING: {', '.join(sorted(failed))} did not build ({self.failed[0][:200]}); "
                  "llkgen runs its Python code in its place (the gravity search, the model players), with "
                  "the same verdicts and numbers, slower.", file=sys.stderr, flush=True)
            return
        if self.failed and self.distribution.ext_modules:
            for ext in self.extensions:
                path = self.get_ext_fullpath(ext.name)
                if os.path.exists(path):
                    os.remove(path)
            self.distribution.ext_modules = []
            first = self.failed[0] if len(self.failed[0]) <= 200 else self.failed[0][:200] + " ..."
            fallback(f"{len(self.failed)} of {len(self.extensions)} compiled modules failed to build, first {first}")


class BdistWheel(bdist_wheel):
    """bdist_wheel that decides pure or platform after the build, not before: a build whose
    compile failed (see :class:`BuildExt`) is tagged ``py3-none-any``, not a platform."""

    def run(self) -> None:
        if not self.skip_build:
            self.run_command("build")
            self.root_is_pure = not (self.distribution.has_ext_modules() or self.distribution.has_c_libraries())
        super().run()


HERE = Path(__file__).resolve().parent
# The long description PyPI shows, made by pypi_readme.py from README.md (run, not imported: this
# directory is not on sys.path in an isolated build).
readme = runpy.run_path(str(HERE / "pypi_readme.py"))["readme"]
setup(ext_modules=accelerator() + native(), cmdclass={"build_ext": BuildExt, "bdist_wheel": BdistWheel},
      **readme(HERE))
