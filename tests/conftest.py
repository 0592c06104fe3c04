"""Set-up shared by every test module.

The tests live in one folder per wing (``tests/verifier/test_lock_tables.py``; ``pytest
tests/verifier`` runs one wing) and ``tests/project/`` for the docs and the package. The helpers
beside this file (``oracle``, ``strategies``, ``paths``, ``demo_pack``, ``browser``, ...) are plain
modules imported by name. This directory is put on ``sys.path`` here, once, so those imports work
from any wing, under any pytest import mode, from a checkout or from an unpacked sdist, without
each test module guessing how it was imported.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parent
if str(TESTS) not in sys.path:
    sys.path.insert(0, str(TESTS))


@pytest.fixture(scope="session")
def schema_validator():
    """``schema_validator("level" | "level-flat" | "pack" | "pack-files")``: the jsonschema
    validator of the shipped schema (:func:`llkgen.formats.schemas.validator`: each schema is
    self-contained, so no registry), checked to be a valid schema itself."""
    from llkgen.formats.schemas import validator as shipped

    def validator(name: str):
        v = shipped(name)
        v.check_schema(v.schema)
        return v

    return validator


@pytest.fixture(scope="module")
def browser_context(tmp_path_factory: pytest.TempPathFactory):
    """A headless Chromium context (Debian's binary, never a downloaded one)."""
    from browser import CHROMIUM, CHROMIUM_ARGS

    sync_api = pytest.importorskip("playwright.sync_api")
    with sync_api.sync_playwright() as pw:
        ctx = pw.chromium.launch_persistent_context(
            str(tmp_path_factory.mktemp("chromium-profile")), executable_path=CHROMIUM,
            args=CHROMIUM_ARGS, headless=True, viewport={"width": 1200, "height": 900})
        yield ctx
        ctx.close()



@pytest.fixture
def tiny_spec():
    """``tiny_spec(**overrides)``: the tests' one small spec as YAML text (see tests/specs.py)."""
    from specs import tiny_spec as build

    return build


@pytest.fixture
def fail_level(monkeypatch):
    """``fail_level(index)``: from then on, making level ``index`` (0-based) of any pack raises
    ``GenerationError("boom")`` and every other level is made as before. Returns the real
    ``generate_level``, for a test that puts it back."""
    import llkgen.generation.generator as generate
    from llkgen.errors import GenerationError

    original = generate.generate_level

    def fail_at(index: int):
        def flaky(s, i):
            if i == index:
                raise GenerationError("boom")
            return original(s, i)

        monkeypatch.setattr(generate, "generate_level", flaky)
        return original

    return fail_at
