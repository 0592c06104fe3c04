"""The solvability verifier: :func:`verify` ``(board, rules, budget) -> Verdict``.

Each technique is a module of its own; :mod:`llkgen.verifier.portfolio` chains them, cheapest
first, and is the only module that knows their order:

* :mod:`~llkgen.verifier.verdict`: verdicts as values with typed evidence (a :class:`Proof`
  or the :class:`Limit` that ran out), budgets, the engines;
* :mod:`~llkgen.verifier.lock`: the lock test, a sound proof that tiles can never be removed;
* :mod:`~llkgen.verifier.maxflow`: Dinic's max-flow, and :mod:`~llkgen.verifier.pairing_check`,
  the sound pairing proof built on it;
* :mod:`~llkgen.verifier.pairing`: the exact search without gravity;
* :mod:`~llkgen.verifier.movesearch`: the exact search under gravity, with
  :mod:`~llkgen.verifier.components` (wall-bounded sub-games, union-find) and
  :mod:`~llkgen.verifier.reach` (types gravity can never pair), both sound proofs, and
  :mod:`~llkgen.verifier.native`, the same search in C that it hands long searches to;
* :mod:`~llkgen.verifier.cpsat`: the CP-SAT model;
* :mod:`~llkgen.verifier.baseline`: the benchmarks' plain yardstick.

Every name listed in ``__all__`` is loaded on first use (PEP 562), as in :mod:`llkgen`: so
importing :mod:`~llkgen.verifier.verdict` (its constants, :class:`Budget`) does not import the
whole portfolio, and the CLI's cheap commands do not pay for the engines.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

#: Each name this package offers and the module that defines it.
_LAZY = {
    "verify": "llkgen.verifier.portfolio",
    "root_lock": "llkgen.verifier.portfolio",
    "ENGINES": "llkgen.verifier.portfolio",
    "WitnessRejected": "llkgen.verifier.portfolio",
    "Budget": "llkgen.verifier.verdict",
    "Verdict": "llkgen.verifier.verdict",
    "SOLVABLE": "llkgen.verifier.verdict",
    "UNSOLVABLE": "llkgen.verifier.verdict",
    "UNKNOWN": "llkgen.verifier.verdict",
    "Proof": "llkgen.verifier.verdict",
    "Argument": "llkgen.verifier.verdict",
    "Limit": "llkgen.verifier.verdict",
    "Engine": "llkgen.verifier.verdict",
}

__all__ = ["verify", "root_lock", "Budget", "Verdict", "SOLVABLE", "UNSOLVABLE", "UNKNOWN", "ENGINES",
           "WitnessRejected", "Proof", "Argument", "Limit", "Engine"]


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'llkgen.verifier' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_LAZY})


if TYPE_CHECKING:
    from llkgen.verifier.portfolio import ENGINES, WitnessRejected, root_lock, verify
    from llkgen.verifier.verdict import SOLVABLE, UNKNOWN, UNSOLVABLE, Argument, Budget, Engine, Limit, Proof, Verdict
