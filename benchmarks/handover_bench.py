"""The handover to the C gravity search under a node budget: what each way of handing over decides.

The move search (:class:`~llkgen.verifier.movesearch.MoveSearch`) runs in Python for
:data:`~llkgen.verifier.movesearch.NATIVE_AFTER` nodes, then hands the board to the C search of
:mod:`llkgen.verifier.native`, which starts over from the root. The promise: under the same node
budget, a build with the C search decides at least every board pure Python decides. Three ways,
side by side on the same boards and budgets:

* ``split``: the C search gets what is left of the budget, and its result is the verdict;
* ``root``: the C search gets the whole budget, and its result (with its own count) is the verdict;
* ``resume`` (what :class:`MoveSearch` does): the C search gets the whole budget; if it runs out,
  the Python search goes on where it paused, to the same budget.

``pure`` is ``auto`` with the C search switched off (``verify_bench.verdict``'s ``auto-python``).
The boards are the gravity boards of ``../shared/real-boards/all.jsonl`` that pass the handover
(pure Python, at the largest budget, runs past ``NATIVE_AFTER`` nodes). A row is one budget:
the boards each way decides, and whether its decided set contains pure's (``⊇``). CPU seconds
(``time.process_time``) summed over the boards.

    python benchmarks/handover_bench.py --corpus ../shared/real-boards/all.jsonl
    python benchmarks/handover_bench.py --corpus ../shared/real-boards/all.jsonl --budgets 2000,5000,20000 --list
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from pathlib import Path

from gravity_pruning_bench import REAL, real_boards  # this folder: the corpus loader
from verify_bench import verdict as engine_verdict  # this folder: auto-python is pure Python

from llkgen.verifier import Budget, native
from llkgen.verifier.movesearch import NATIVE_AFTER, MoveSearch
from llkgen.verifier.verdict import OutOfBudget

BUDGETS = (2000, 3000, 5000, 7500, 10_000, 15_000, 20_000)
DECIDED = ("solvable", "unsolvable")


def _split(self: MoveSearch) -> native.NativeResult:
    """The C search with what is left of the budget, its count added to the Python's."""
    left = None if self.budget.nodes is None else self.budget.nodes - self.nodes
    result = native.search(self.board, self.rules, left, self.deadline)
    self.native_result = result
    self.nodes += result.nodes
    if result.status not in DECIDED:
        raise OutOfBudget(result.status)
    return result


def _root(self: MoveSearch) -> native.NativeResult:
    """The C search with the whole budget; its count replaces the Python's; no resuming."""
    result = native.search(self.board, self.rules, self.budget.nodes, self.deadline)
    self.native_result = result
    self.nodes = result.nodes
    if result.status not in DECIDED:
        raise OutOfBudget(result.status)
    return result


WAYS: dict[str, Callable | None] = {"split": _split, "root": _root, "resume": None}


def run(board, rules, nodes: int, way: str) -> tuple[str, int, float]:
    """(status, nodes, CPU seconds) of ``auto`` under ``way`` (or ``pure``) at ``nodes``."""
    t0 = time.process_time()
    if way == "pure":
        v = engine_verdict(board, rules, Budget(nodes=nodes), "auto-python")
    else:
        hand_over = MoveSearch._hand_over
        patch = WAYS[way]
        if patch is not None:
            MoveSearch._hand_over = patch  # type: ignore[method-assign]
        try:
            v = engine_verdict(board, rules, Budget(nodes=nodes), "auto")
        finally:
            MoveSearch._hand_over = hand_over  # type: ignore[method-assign]
    return str(v.status), int(v.stats.get("nodes", 0)), time.process_time() - t0


def handover_boards(corpus: Path, largest: int) -> list:
    """The corpus's gravity boards on which pure Python runs past the handover at ``largest``."""
    out = []
    for ident, board, rules in real_boards(corpus):
        status, nodes, _ = run(board, rules, largest, "pure")
        if nodes > NATIVE_AFTER or status not in DECIDED:
            out.append((ident, board, rules))
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--budgets", default=",".join(str(b) for b in BUDGETS), help="node budgets")
    ap.add_argument("--corpus", type=Path, default=REAL, help=f"the real boards (default {REAL})")
    ap.add_argument("--list", action="store_true", help="print each board's result")
    args = ap.parse_args()
    if not native.AVAILABLE:
        raise SystemExit("the C gravity search is not built here: nothing to compare")
    budgets = [int(b) for b in args.budgets.split(",")]
    boards = handover_boards(args.corpus, max(budgets))
    print(f"{len(boards)} boards pass the handover ({NATIVE_AFTER} nodes) at {max(budgets):,} nodes")
    ways = ["pure", *WAYS]
    print("| node budget | " + " | ".join(f"{w} decided" for w in ways) + " | "
          + " | ".join(f"{w} ⊇ pure" for w in WAYS) + " | " + " | ".join(f"{w} CPU s" for w in ways) + " |")
    print("|---:|" + "---:|" * len(ways) + "---|" * len(WAYS) + "---:|" * len(ways))
    for nodes in budgets:
        decided: dict[str, set[str]] = {w: set() for w in ways}
        cpu = dict.fromkeys(ways, 0.0)
        for ident, board, rules in boards:
            for way in ways:
                status, count, seconds = run(board, rules, nodes, way)
                assert count <= nodes, f"{ident} {way}: {count} nodes past a budget of {nodes}"
                cpu[way] += seconds
                if status in DECIDED:
                    decided[way].add(ident)
                if args.list:
                    print(f"  {nodes} {ident} {way} {status} {count} {seconds:.3f}")
        print(f"| {nodes:,} | " + " | ".join(str(len(decided[w])) for w in ways) + " | "
              + " | ".join("yes" if decided[w] >= decided["pure"] else
                           f"no (lost {', '.join(sorted(decided['pure'] - decided[w]))})" for w in WAYS)
              + " | " + " | ".join(f"{cpu[w]:.2f}" for w in ways) + " |", flush=True)


if __name__ == "__main__":
    main()
