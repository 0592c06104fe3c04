"""The tests' own layout: one folder per wing of the house (``tests/<wing>/test_<subject>.py``)
and one for the project as a whole, each a subject's tests; shared helpers as modules beside
``conftest.py``, never in another test module.

pytest imports a test module by its file name (the default ``prepend`` import mode), so two
wings may not both have a ``test_x.py``; and a test module imported by another would run its
tests twice, or not at all when run alone."""

from __future__ import annotations

import ast

from paths import ROOT, TESTS

#: The wings of llkgen/ (STYLE.md's house, bottom to top) and ``project`` (the docs, the
#: package, the GitHub Action, the pre-commit hook: what no wing holds).
WINGS = ("game", "files", "execution", "verifier", "formats", "analysis", "generation", "render", "jobs",
         "api", "cli", "project")


def _test_modules():
    return sorted(TESTS.rglob("test_*.py"))


def test_every_test_module_is_in_a_wing_folder():
    misplaced = [p.relative_to(ROOT).as_posix() for p in _test_modules()
                 if p.parent.parent != TESTS or p.parent.name not in WINGS]
    assert not misplaced, f"test modules outside tests/<wing>/ ({', '.join(WINGS)}): {misplaced}"
    assert {p.parent.name for p in _test_modules()} == set(WINGS)


def test_the_wings_are_the_packages_of_llkgen():
    packages = {p.parent.name for p in (ROOT / "llkgen").glob("*/__init__.py") if not p.parent.name.startswith("_")}
    assert packages <= set(WINGS), packages - set(WINGS)


def test_test_module_names_are_unique():
    names = [p.name for p in _test_modules()]
    assert len(names) == len(set(names)), sorted({n for n in names if names.count(n) > 1})


def test_no_test_module_imports_another():
    culprits = []
    for path in _test_modules():
        for node in ast.walk(ast.parse(path.read_text("utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                names = [node.module]
            elif isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            else:
                continue
            culprits += [f"{path.relative_to(ROOT)}: {n}" for n in names if n.split(".")[-1].startswith("test_")]
    assert not culprits, culprits
