"""The solvability verifier: :func:`verify` ``(board, rules, budget) -> Verdict``.

Each technique is a module of its own; :mod:`llkgen.verifier.portfolio` chains them, cheapest
first, and is the only module that knows their order:

* :mod:`~llkgen.verifier.verdict`: verdicts as values, budgets;
* :mod:`~llkgen.verifier.lock`: the lock test, a sound proof that tiles can never be removed;
* :mod:`~llkgen.verifier.maxflow`: Dinic's max-flow, and :mod:`~llkgen.verifier.pairing_check`,
  the sound pairing proof built on it;
* :mod:`~llkgen.verifier.pairing`: the exact search without gravity;
* :mod:`~llkgen.verifier.movesearch`: the exact search under gravity;
* :mod:`~llkgen.verifier.cpsat`: the CP-SAT model;
* :mod:`~llkgen.verifier.baseline`: the benchmarks' plain yardstick.
"""

from llkgen.verifier.portfolio import ENGINES, WitnessRejected, root_lock, verify
from llkgen.verifier.verdict import SOLVABLE, UNKNOWN, UNSOLVABLE, Budget, Verdict

__all__ = ["verify", "root_lock", "Budget", "Verdict", "SOLVABLE", "UNSOLVABLE", "UNKNOWN", "ENGINES",
           "WitnessRejected"]
