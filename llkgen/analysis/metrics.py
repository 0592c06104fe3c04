"""Difficulty metrics, computed for every generated level.

* ``initial_moves``: the number of pairs removable on the starting board
  (``len(removable_pairs(board, rules))``).
* ``random_clear_rate``: the fraction of ``n`` random playthroughs that clear the board, each
  choosing uniformly among the pairs removable at every step: the ladder's ``random`` model
  (:mod:`llkgen.analysis.players`). Playthrough ``k`` draws from ``PlayRng(base, k)``, with
  ``base`` the first word of ``SeedSequence(seed, spawn_key=(RANDOM_CLEAR_KEY,))``, so the value
  is a pure function of ``(board, rules, n, seed)`` -- the same on every machine, in every
  worker process and whether or not the C players are built -- and raising ``n`` keeps the
  first playthroughs unchanged.
* ``verify_nodes``: the search nodes the verifier spent (``verdict.stats["nodes"]``); a count,
  not a time, so it is deterministic. It measures the certifying search, which the
  construction order guides on constructive levels, so it says little about how hard a level
  plays; the ``difficulty`` score, the tier and the model players' clear rates are in
  :mod:`llkgen.analysis.difficulty`.

Lower ``initial_moves`` and ``random_clear_rate`` mean harder.

``initial_moves`` and the clear rates take the board or a :class:`~llkgen.game.playout.Playout`
of it, so that a caller measuring both (the generator) builds the working board once. Neither
changes a Playout it is given: ``initial_moves`` only counts its pairs, and every playthrough
plays a copy of it (or, in C, of its cells) -- so the numbers, and the random draws, are the
same either way.
"""

from __future__ import annotations

from llkgen.analysis.players import runs_from, seed_word
from llkgen.game.board import Board, Rules
from llkgen.game.playout import Playout
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
    n = playthroughs
    if template.left == 0:
        cleared = n
    else:
        def settled(cleared: int, k: int) -> bool:  # outside whatever the runs after k do
            return ((high is not None and cleared / n > high)
                    or (low is not None and (cleared + n - k - 1) / n < low))

        # A count cut short by settled() is outside the range: the checks below reject it.
        cleared = runs_from("random", template, random_clear_base(seed), 0, n, stop=settled)
    rate = cleared / n
    if (low is not None and rate < low) or (high is not None and rate > high):
        return None
    return rate


#: The spawn key of the random clear rate's playthroughs under a level's seed: apart from the
#: ladder's (:data:`llkgen.analysis.players.PLAYERS_KEY`) and the audit's.
RANDOM_CLEAR_KEY = 1 << 20


def random_clear_base(seed: int) -> int:
    """The 64-bit base of the random clear rate's playthroughs (see the module docstring)."""
    return seed_word(seed, RANDOM_CLEAR_KEY)


def verify_nodes(verdict: Verdict) -> int:
    """The verifier's effort on a board: search nodes, a deterministic count."""
    return int(verdict.stats.get("nodes", 0))
