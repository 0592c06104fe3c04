"""What the command line knows of specs before it reads one: the bounds of ``--count`` and
``--seed``, and the names of the shipped specs (``make --config``'s help lists them).

A module of its own, with nothing but the standard library, so that ``llkgen show`` and every
other command that reads no spec do not import the spec reader (its YAML parser, its checks):
:mod:`llkgen.generation.spec` and :mod:`~llkgen.generation.spec_model` take these from here.
"""

from __future__ import annotations

from importlib import resources
from importlib.resources.abc import Traversable
from pathlib import Path

# The two bounds the CLI overrides share with the file (Spec.with_overrides checks them).
MAX_COUNT = 1_000_000
MAX_SEED = 2**63 - 1

#: The package holding the example specs (``configs/`` in a source checkout).
SPECS_PACKAGE = "llkgen.specs"
#: The spec ``llkgen init`` copies: the one whose comments explain every key.
STARTER = "easy"


def specs_dir() -> Traversable:
    """Where the shipped specs are: the package :data:`SPECS_PACKAGE` of an install (the
    wheel's ``llkgen/specs/``, or an editable install's mapping of ``configs/``), else the
    ``configs/`` of the source tree this module is in.

    The fallback is for a source tree that shadows an installed llkgen (an unpacked sdist whose
    tests run against the installed wheel: ``python -m pytest`` puts the tree first on the
    path). That tree's ``llkgen/`` has no ``specs``: the package exists only as pyproject's
    mapping of ``configs/``, which ``configs/easy.yaml`` keeps its place for."""
    try:
        return resources.files(SPECS_PACKAGE)
    except ModuleNotFoundError:
        configs = Path(__file__).resolve().parents[2] / "configs"
        if not configs.is_dir():
            raise
        return configs


def shipped_specs() -> list[str]:
    """The names of the example specs shipped with llkgen, sorted (``easy``, ``hard``, ...)."""
    return sorted(f.name[: -len(".yaml")] for f in specs_dir().iterdir() if f.name.endswith(".yaml"))
