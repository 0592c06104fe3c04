"""ortools is imported only when CP-SAT runs: not by ``import llkgen.verify``, not by the
default engine.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap


def _run(code: str) -> str:
    out = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True,
                         text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    return out.stdout


# --------------------------------------------------------------------------- lazy ortools


def test_cpsat_module_imports_without_ortools():
    out = _run("""
        import sys
        import llkgen.verify.cpsat
        print("ortools" in sys.modules)
    """)
    assert out.split() == ["False"]


def test_auto_never_imports_ortools_and_cpsat_still_runs():
    """NOTE: this needs ``llkgen/verify/__init__.py`` to import ``cpsat`` without ortools (on
    this branch ``cpsat`` imports ortools only inside its solving functions, so the eager
    ``from llkgen.verify.cpsat import solve_cpsat`` there is harmless); once ``__init__``
    imports it lazily this keeps holding."""
    out = _run("""
        import sys
        from llkgen.board import Board, Rules
        from llkgen.verify import verify
        board = Board.from_text("1 2 2 1\\n3 . . 3")
        print(verify(board, Rules(), engine="auto").status, "ortools" in sys.modules)
        print(verify(board, Rules(), engine="cpsat").status, "ortools" in sys.modules)
    """)
    assert out.split() == ["solvable", "False", "solvable", "True"]
