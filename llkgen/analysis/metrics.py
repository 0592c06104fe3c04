"""Difficulty metrics, computed for every generated level.

* ``initial_moves``: the number of pairs removable on the starting board
  (``len(removable_pairs(board, rules))``).
* ``random_clear_rate``: the fraction of ``n`` random playthroughs that clear the board, each
  choosing uniformly among the pairs removable at every step. Playthrough ``k`` draws from
  ``numpy.random.default_rng(SeedSequence(seed, spawn_key=(k,)))``, so the value is a pure
  function of ``(board, rules, n, seed)`` -- the same on every machine and in every worker
  process -- and raising ``n`` keeps the first playthroughs unchanged.
* ``verify_nodes``: the search nodes the verifier spent (``verdict.stats["nodes"]``); a count,
  not a time, so it is deterministic. It measures the certifying search, which the
  construction order guides on constructive levels, so it says little about how hard a level
  plays; the ``difficulty`` score, the tier and the model players' clear rates are in
  :mod:`llkgen.analysis.difficulty`.

Lower ``initial_moves`` and ``random_clear_rate`` mean harder.

``initial_moves`` and the clear rates take the board or a :class:`~llkgen.game.playout.Playout`
of it, so that a caller measuring both (the generator) builds the working board once. Neither
changes a Playout it is given: ``initial_moves`` only counts its pairs, and every playthrough
plays a copy (:func:`~llkgen.game.playout.random_playthrough`), which is what the rate did with
the Playout it built itself -- so the numbers, and the random draws, are the same either way.
"""

from __future__ import annotations

import numpy as np

from llkgen.game.board import Board, Rules
from llkgen.game.playout import Playout, random_playthrough
from llkgen.verifier import Verdict


def _playout(board: Board | Playout, rules: Rules) -> Playout:
    """``board`` itself if it is a Playout (of the starting position, under ``rules``), else a
    new one."""
    return board if isinstance(board, Playout) else Playout(board, rules)


def initial_moves(board: Board | Playout, rules: Rules) -> int:
    """Pairs removable right now; equals ``len(removable_pairs(board, rules))``."""
    return len(_playout(board, rules).links)


def random_clear_rate(board: Board | Playout, rules: Rules, playthroughs: int = 32, seed: int = 0) -> float:
    """Fraction of ``playthroughs`` seeded uniform-random playthroughs that clear the board."""
    rate = clear_rate_within(board, rules, playthroughs, seed)
    assert rate is not None
    return rate


def clear_rate_within(board: Board | Playout, rules: Rules, playthroughs: int = 32, seed: int = 0,
                      low: float | None = None, high: float | None = None) -> float | None:
    """:func:`random_clear_rate` if it lies in ``[low, high]`` (``None``: unbounded), else
    ``None`` -- returned as soon as the playthroughs so far settle that the rate is outside,
    which is what makes difficulty filtering cheap. Never returns an estimate: a number
    returned is the exact rate over all ``playthroughs``."""
    if type(playthroughs) is not int or playthroughs < 1:
        raise ValueError(f"playthroughs: expected an integer >= 1, found {playthroughs!r}")
    template = _playout(board, rules)
    if template.left == 0:
        cleared, n = playthroughs, playthroughs
    else:
        cleared = 0
        for k in range(playthroughs):
            rng = np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(k,)))
            cleared += random_playthrough(template, rules, rng, record=False)[0]
            left = playthroughs - k - 1
            if (high is not None and cleared / playthroughs > high) or (
                low is not None and (cleared + left) / playthroughs < low
            ):
                return None
        n = playthroughs
    rate = cleared / n
    if (low is not None and rate < low) or (high is not None and rate > high):
        return None
    return rate


def verify_nodes(verdict: Verdict) -> int:
    """The verifier's effort on a board: search nodes, a deterministic count."""
    return int(verdict.stats.get("nodes", 0))
