"""Where the tests find the checkout: this folder, its fixture data, the repository's root and
the shipped specs. Test modules sit a folder below (``tests/<wing>/``), so none of them counts
parents from its own ``__file__``; they import these names instead."""

from __future__ import annotations

from pathlib import Path

#: tests/, where the helper modules and ``conftest.py`` live.
TESTS = Path(__file__).resolve().parent
#: tests/data/, the fixture boards and packs.
DATA = TESTS / "data"
#: The repository's root (the checkout, or an unpacked sdist).
ROOT = TESTS.parent
#: The shipped specs, configs/ at the root.
CONFIGS = ROOT / "configs"
