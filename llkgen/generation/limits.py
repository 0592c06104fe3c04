"""What the command line knows of specs before it reads one: the bounds of ``--count`` and
``--seed``, the names of the shipped specs (``make --config``'s help lists them), and when a
file name stands for one of them (:func:`shipped_fallback`).

A module of its own, with nothing but the standard library, so that ``llkgen show`` and every
other command that reads no spec do not import the spec reader (its YAML parser, its checks):
:mod:`llkgen.generation.spec` and :mod:`~llkgen.generation.spec_model` take these from here.
"""

from __future__ import annotations

import os
from importlib import import_module
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from importlib.resources.abc import Traversable

# The two bounds the CLI overrides share with the file (Spec.with_overrides checks them).
MAX_COUNT = 1_000_000
MAX_SEED = 2**63 - 1

#: The package holding the example specs (``configs/`` in a source checkout).
SPECS_PACKAGE = "llkgen.specs"
#: The spec ``llkgen init`` copies: the one whose comments explain every key.
STARTER = "easy"


def specs_dir() -> Traversable | Path:
    """Where the shipped specs are: the package :data:`SPECS_PACKAGE` of an install (the
    wheel's ``llkgen/specs/``, or an editable install's mapping of ``configs/``), else the
    ``configs/`` of the source tree this module is in.

    The fallback is for a source tree that shadows an installed llkgen (an unpacked sdist whose
    tests run against the installed wheel: ``python -m pytest`` puts the tree first on the
    path). That tree's ``llkgen/`` has no ``specs``: the package exists only as pyproject's
    mapping of ``configs/``, which ``configs/easy.yaml`` keeps its place for."""
    from importlib import resources  # for cost: see shipped_specs

    try:
        return resources.files(SPECS_PACKAGE)
    except ModuleNotFoundError:
        configs = Path(__file__).resolve().parents[2] / "configs"
        if not configs.is_dir():
            raise
        return configs


def shipped_specs() -> list[str]:
    """The names of the example specs shipped with llkgen, sorted (``easy``, ``hard``, ...)."""
    # Every command pays for this (make's help lists the names), so the package's folder is
    # listed as it is: importing importlib.resources and listing through it costs a tenth of
    # a bare ``import typer`` (benchmarks/startup_bench.py, "import llkgen.cli"). Only a package
    # that is not a folder on disk (imported from a zip) needs it, and a source tree that
    # shadows the install has no such package at all (:func:`specs_dir`).
    try:
        names = [n for folder in import_module(SPECS_PACKAGE).__path__ for n in os.listdir(folder)]
    except (OSError, ModuleNotFoundError):
        names = [f.name for f in specs_dir().iterdir()]
    return sorted(n[: -len(".yaml")] for n in names if n.endswith(".yaml"))


#: The endings of a spec file's name: ``easy.yaml`` names the shipped spec ``easy`` when no such
#: file exists (:func:`shipped_fallback`).
SPEC_SUFFIXES = (".yaml", ".yml")


def shipped_fallback(ref: str) -> str | None:
    """The shipped spec a file name stands for when the file does not exist: ``easy`` for
    ``easy.yaml`` (or ``easy.yml``) with no such file here, so the design's own example,
    ``llkgen make --config easy.yaml``, works in an empty directory. None when ``ref`` exists,
    names no shipped spec, or has a folder part: ``configs/easy.yaml`` and ``./easy.yaml`` name
    a file, which must exist (a path someone typed out is never replaced by another file)."""
    stem, suffix = os.path.splitext(ref)
    if suffix not in SPEC_SUFFIXES or os.path.dirname(ref) or os.path.lexists(ref):
        return None
    return stem if stem in shipped_specs() else None
