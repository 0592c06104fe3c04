"""A fixed verifier workload, for counting instructions: the figure docs/benchmarks.md tracks in
"What each step bought".

The workload: 3 seeded 10x16 boards, 3 of 18x8 and 3 of 8x12 with gravity down, the boards of
``benchmarks/verify_bench.py`` (``random_board(name, i)`` for i = 0, 1, 2), each decided to the
end with no budget by ``verify(board, Rules(True, gravity), Budget(nodes=None, seconds=None))``.
It prints each board's verdict, stage and node count, so two runs can be checked to have
searched the same trees; instruction counts do not move with machine load, so they compare
commits that were never run side by side.

The figure is the instructions of the whole process minus those of the imports alone
(``--imports-only`` imports everything the workload imports and stops). Run both under
callgrind, from a directory outside the repository when measuring an installed (compiled)
build, so that the installed package is the one imported::

    /usr/bin/valgrind --tool=callgrind --callgrind-out-file=/tmp/cg.work.out \\
        python benchmarks/instructions_bench.py
    /usr/bin/valgrind --tool=callgrind --callgrind-out-file=/tmp/cg.imports.out \\
        python benchmarks/instructions_bench.py --imports-only

Each prints ``==PID== Collected : N`` on stderr; the workload's figure is the first N minus the
second. ``callgrind_annotate /tmp/cg.work.out | head -40`` shows where they went (for the
compiled core, the C functions of the extension module and of CPython). ``--sets`` and
``--boards`` narrow the workload for a quick look; the figures in the docs use the defaults.
"""

from __future__ import annotations

import argparse
import importlib.util
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
if importlib.util.find_spec("llkgen") is None:  # not installed: use the source tree
    sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))

from verify_bench import SETS, random_board  # noqa: E402

import llkgen.game.grid  # noqa: E402
from llkgen.game.board import Rules  # noqa: E402
from llkgen.verifier import Budget, verify  # noqa: E402

WORKLOAD = ("10x16", "18x8", "8x12-down")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--imports-only", action="store_true", help="import everything, run nothing")
    ap.add_argument("--sets", default=",".join(WORKLOAD), help="comma-separated set names")
    ap.add_argument("--boards", type=int, default=3, help="boards per set (i = 0 .. n-1)")
    args = ap.parse_args(argv)
    if args.imports_only:
        return 0
    core = "pure Python" if llkgen.game.grid.__file__.endswith(".py") else "compiled"
    print(f"core: {core} ({Path(llkgen.game.grid.__file__).parents[2]})")
    total = 0
    for name in args.sets.split(","):
        gravity = SETS[name][3]
        for i in range(args.boards):
            board = random_board(name, i)
            v = verify(board, Rules(True, gravity), Budget(nodes=None, seconds=None))
            nodes = int(v.stats.get("nodes", 0))
            total += nodes
            print(f"{name}/{i}: {v.status} stage={v.stats.get('stage')} nodes={nodes}")
    print(f"total nodes: {total}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
