"""Where the shipped specs are found (:func:`llkgen.generation.limits.specs_dir`), in an install
and in a source tree that shadows one."""

from __future__ import annotations

from importlib import resources
from pathlib import Path

import llkgen.generation.limits as limits
from llkgen.generation.spec import load_spec_ref, shipped_spec_file

from paths import CONFIGS


def test_the_specs_of_a_source_tree_that_shadows_the_install(monkeypatch):
    """The tests of an unpacked sdist run against the installed wheel, with the tree's own
    ``llkgen/`` first on the path: it has no ``llkgen.specs`` (only pyproject maps it, to
    ``configs/``), and collecting test_json_outputs.py and test_spec_schema.py failed with
    ModuleNotFoundError. The specs are then the tree's ``configs/``."""
    real = resources.files

    def shadowed(package):
        if package == limits.SPECS_PACKAGE:
            raise ModuleNotFoundError(f"No module named {package!r}")
        return real(package)

    monkeypatch.setattr(resources, "files", shadowed)
    assert Path(str(limits.specs_dir())) == CONFIGS
    assert limits.shipped_specs() == sorted(p.stem for p in CONFIGS.glob("*.yaml"))
    assert "easy" in limits.shipped_specs()
    assert shipped_spec_file("easy").read_text("utf-8") == (CONFIGS / "easy.yaml").read_text("utf-8")
    assert load_spec_ref("easy").name == "easy"


def test_the_specs_of_an_install_are_the_package():
    assert sorted(f.name for f in limits.specs_dir().iterdir() if f.name.endswith(".yaml")) == \
        sorted(f.name for f in resources.files(limits.SPECS_PACKAGE).iterdir() if f.name.endswith(".yaml"))
