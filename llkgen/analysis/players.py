"""Model players: how reliably does a player of a given skill clear a board?

Each model plays a board from the start, one removable pair at a time, until the board is
cleared (``True``) or no pair is removable while tiles remain (``False``: a dead end). The
levels are certified solvable, so a dead end is always the player's mistake. The models, weak
to strong (:data:`MODELS`), and why each sits where it does:

* ``random``: uniform over the removable pairs -- no skill at all, the floor of the ladder.
* ``nearest``: the pair whose two tiles are closest, by the Manhattan distance between their
  cells (a cheap proxy for the shortest link path; :func:`llkgen.game.path.find_path` per
  move would cost far more), ties uniformly -- a human's first habit: play what is under the
  eye. Above ``random`` by intent (it is the model of a habit, not of foresight); it does no
  look-ahead, so on some boards it does no better than ``random``, or worse.
* ``lookahead`` (1-ply): never plays a move after which no pair is removable while tiles
  remain, unless every move does; uniform among the others -- the first model that sees a
  dead end one move away.
* ``careful``: ``lookahead``'s choices, preferring a pair that removes the last two tiles of
  its type (uniform among those), else uniform among the rest -- above ``lookahead`` because a
  completing pair can never hurt without gravity (any clearing order still works with that
  pair played first, since removing tiles only opens paths), so it plays safe moves more often.
* ``deep`` (2-ply): keeps the moves after which some reply does not dead-end (the position is
  cleared, or has a move after which a pair is still removable); falls back to
  ``lookahead``'s set, then to all moves -- sees a dead end two moves away.

:func:`clear_rate` measures one model's clear rate as an :class:`Estimate`, adaptively (batches
of ``min_runs`` playthroughs until the standard error is at most ``target_se``, or
``max_runs``, or a deadline); :func:`clear_rates` measures several on one shared
:class:`~llkgen.game.playout.Playout`; :func:`tier` names the weakest model that clears a
board reliably, or :data:`HINT` when none does.

Reproducibility: playthrough ``k`` of ``model`` draws from ``numpy.random.default_rng(
SeedSequence(seed, spawn_key=(PLAYERS_KEY, stream, MODELS.index(model), k)))``, so an
estimate is a pure function of its arguments (a ``deadline`` aside: it can only stop a
measurement early, at a batch boundary), raising ``max_runs`` keeps the first runs unchanged,
and different ``stream`` values are independent re-measurements.

How a choice is made, cheaply: the models that filter (``lookahead``, ``careful``, ``deep``)
draw one random permutation of the removable pairs (in :meth:`Playout.moves` order) and take
the first acceptable pair in it -- which is uniform among the acceptable pairs -- so usually
only one or two candidates are checked per step. "Is a pair removable after playing
``(p, q)``" costs, without gravity, one scan of the current pair set (a pair not touching ``p``
or ``q`` stays removable, since removing tiles never blocks a path); only when every pair
touches ``p`` or ``q``, and always under gravity, is it a ``Playout.copy()`` plus one
``remove()`` (the copy is O(board cells), the removal a few table updates). ``deep`` checks
a candidate with one copy and then that same test on the replies, stopping at the first good
one (without gravity: no copy at all when two disjoint pairs survive the move).

Speed, playthroughs per second (``play`` on a shared Playout), measured on the first level of
the shipped specs (``llkgen.generate(spec, count=1).levels[0]``), 256 runs per cell, on a noisy
2-core machine -- read the ratios, not the numbers; the clear rate of those runs in brackets:

=========  ==================  ==================  ==================
model      medium 8x12         gravity 8x12 down   hard 10x16
=========  ==================  ==================  ==================
random     770/s  (0.61)       610/s  (0.41)       1020/s (0.16)
nearest    650/s  (1.00)       690/s  (0.33)        670/s (0.54)
lookahead  690/s  (0.62)       340/s  (0.38)        790/s (0.23)
careful    640/s  (0.64)       305/s  (0.64)        760/s (0.24)
deep       560/s  (0.62)       170/s  (0.41)        630/s (0.24)
=========  ==================  ==================  ==================

Without gravity the filtering models cost 10-30% over ``random`` (the survivor scan almost
always settles a candidate); under gravity every candidate is a copy and a removal, so
``lookahead``/``careful`` run at about half of ``random``'s speed and ``deep`` at a quarter.

What the numbers say about the ladder (a property of these levels, not a law): on boards
without gravity, a dead end is rarely one or two moves away -- the traps are deeper -- so
``lookahead``, ``careful`` and ``deep`` clear only a little more often than ``random``;
``nearest`` is close to deterministic (distance ties are rare) and tends to clear a level
every time or never (1.00 on five of the first six medium levels, 0.00 on the sixth), so it is
often *above* the filtering models. Under gravity ``careful`` is the clear step up.
"""

from __future__ import annotations

import time
from typing import Iterable

import numpy as np

from llkgen.analysis.estimate import Estimate, standard_error  # re-exported here
from llkgen.analysis.ladder import HINT, MODELS, RELIABLY  # weak -> strong; re-exported here
from llkgen.game.board import Board, Cell, Rules
from llkgen.game.playout import Pair, Playout

#: The first spawn key of the players' seeds, distinct from the random playthroughs of
#: :mod:`llkgen.analysis.metrics` (spawn key ``(k,)``) and from
#: the audit's (:data:`llkgen.analysis.audit.AUDIT_KEY`, ``3 << 20``).
PLAYERS_KEY = 2 << 20


# -- checks on a position -----------------------------------------------------------------------

def _survivor(links: Iterable[Pair], p: int, q: int) -> Pair | None:
    """A pair of ``links`` touching neither ``p`` nor ``q``."""
    for pr in links:
        a, b = pr
        if a != p and a != q and b != p and b != q:
            return pr
    return None


def _alive_after(pl: Playout, p: int, q: int) -> bool:
    """Whether the position after playing ``(p, q)`` is cleared or has a removable pair.
    Without gravity a pair not touching ``p`` or ``q`` survives the move (one scan of the pair
    set); otherwise it is played on a copy."""
    if pl.left == 2:
        return True
    if not pl.grid.lines and _survivor(pl.links, p, q) is not None:
        return True
    c = pl.copy()
    c.remove(p, q)
    return bool(c.links)


def _deep_after(pl: Playout, p: int, q: int) -> bool:
    """Whether after ``(p, q)`` the position is cleared or some reply keeps it alive (the
    2-ply test). Without gravity two disjoint surviving pairs settle it with no copy."""
    if pl.left == 2:
        return True
    if not pl.grid.lines:
        first = _survivor(pl.links, p, q)
        if first is not None:
            a, b = first
            for pr in pl.links:
                x, y = pr
                if (x != p and x != q and y != p and y != q
                        and x != a and x != b and y != a and y != b):
                    return True
    c = pl.copy()
    c.remove(p, q)
    if c.left == 0:
        return True
    return any(_alive_after(c, a, b) for a, b in c.links)


def _completes(pl: Playout, pair: Pair) -> bool:
    """Whether ``pair`` removes the last two tiles of its type."""
    return len(pl.by_type[pl.g[pair[0]]]) == 2


# -- choosing a move --------------------------------------------------------------------------

def _choose(model: str, pl: Playout, moves: list[Pair], rng: np.random.Generator) -> Pair:
    """The move ``model`` plays from ``pl``; ``moves`` is ``pl.moves()``, not empty."""
    n = len(moves)
    if model == "random":
        return moves[int(rng.integers(n))]
    if model == "nearest":
        R, C = pl.grid.R, pl.grid.C
        best: list[Pair] = []
        low = 1 << 30
        for pr in moves:
            a, b = pr
            d = abs(R[a] - R[b]) + abs(C[a] - C[b])
            if d < low:
                low, best = d, [pr]
            elif d == low:
                best.append(pr)
        return best[int(rng.integers(len(best)))] if len(best) > 1 else best[0]
    order = [moves[i] for i in rng.permutation(n).tolist()] if n > 1 else moves
    if model == "lookahead":
        for pr in order:
            if _alive_after(pl, *pr):
                return pr
        return order[0]
    if model == "careful":
        rest = []
        for pr in order:
            if _completes(pl, pr):
                if _alive_after(pl, *pr):
                    return pr
            else:
                rest.append(pr)
        for pr in rest:
            if _alive_after(pl, *pr):
                return pr
        return order[0]
    if model == "deep":
        fallback = None
        for pr in order:
            if _alive_after(pl, *pr):
                if _deep_after(pl, *pr):
                    return pr
                if fallback is None:
                    fallback = pr
        return order[0] if fallback is None else fallback
    raise ValueError(f"model: expected one of {', '.join(MODELS)}, found {model!r}")


def _check_model(model: str) -> None:
    if model not in MODELS:
        raise ValueError(f"model: expected one of {', '.join(MODELS)}, found {model!r}")


def play(model: str, start: Playout, rng: np.random.Generator,
         record: list[tuple[Cell, Cell]] | None = None) -> bool:
    """One playthrough of ``model`` from a copy of ``start`` (``start`` is not changed):
    ``True`` if the board is cleared. ``record``, if given, gets the ``(cell_a, cell_b)`` of
    every move played appended (board coordinates, for :func:`llkgen.game.referee.replay`)."""
    _check_model(model)
    pl = start.copy()
    while pl.left:
        moves = pl.moves()
        if not moves:
            return False
        p, q = _choose(model, pl, moves, rng)
        if record is not None:
            record.append(pl.cells((p, q)))
        pl.remove(p, q)
    return True


# -- measuring --------------------------------------------------------------------------------

def run_rng(seed: int, stream: int, model: str, k: int) -> np.random.Generator:
    """The generator of playthrough ``k`` of ``model`` on ``stream`` (see the module docstring)."""
    return np.random.default_rng(
        np.random.SeedSequence(seed, spawn_key=(PLAYERS_KEY, stream, MODELS.index(model), k)))


def _check_runs(target_se: float, min_runs: int, max_runs: int) -> None:
    if type(min_runs) is not int or min_runs < 1:
        raise ValueError(f"min_runs: expected an integer >= 1, found {min_runs!r}")
    if type(max_runs) is not int or max_runs < min_runs:
        raise ValueError(f"max_runs: expected an integer >= min_runs ({min_runs}), found {max_runs!r}")
    if not target_se > 0:
        raise ValueError(f"target_se: expected a number > 0, found {target_se!r}")


def _measure(model: str, start: Playout, seed: int, stream: int, target_se: float,
             min_runs: int, max_runs: int, deadline: float | None) -> Estimate:
    runs = cleared = 0
    while True:
        for k in range(runs, min(runs + min_runs, max_runs)):
            cleared += play(model, start, run_rng(seed, stream, model, k))
        runs = min(runs + min_runs, max_runs)
        if (standard_error(cleared, runs) <= target_se or runs >= max_runs
                or (deadline is not None and time.perf_counter() > deadline)):
            return Estimate.of(cleared, runs)


def clear_rate(model: str, board: Board | Playout, rules: Rules, seed: int, *, stream: int = 0,
               target_se: float = 0.05, min_runs: int = 32, max_runs: int = 1024,
               deadline: float | None = None) -> Estimate:
    """``model``'s clear rate on ``board`` (or a Playout of it, which is not changed):
    playthroughs in batches of ``min_runs`` until the standard error is at most
    ``target_se``, ``max_runs`` are done, or ``time.perf_counter()`` has passed ``deadline``
    (checked between batches, so at least one batch runs). Seeds: see the module docstring."""
    _check_model(model)
    _check_runs(target_se, min_runs, max_runs)
    start = board if isinstance(board, Playout) else Playout(board, rules)
    return _measure(model, start, seed, stream, target_se, min_runs, max_runs, deadline)


def clear_rates(board: Board | Playout, rules: Rules, seed: int, *, stream: int = 0,
                target_se: float = 0.05, min_runs: int = 32, max_runs: int = 1024,
                deadline: float | None = None, models: Iterable[str] = MODELS) -> dict[str, Estimate]:
    """:func:`clear_rate` of each of ``models``, on one shared Playout of ``board``; each
    estimate equals the one :func:`clear_rate` gives alone. A passed ``deadline`` leaves the
    remaining models one batch each."""
    models = tuple(models)
    for m in models:
        _check_model(m)
    _check_runs(target_se, min_runs, max_runs)
    start = board if isinstance(board, Playout) else Playout(board, rules)
    return {m: _measure(m, start, seed, stream, target_se, min_runs, max_runs, deadline)
            for m in models}


def tier(rates: dict[str, Estimate], reliably: float = RELIABLY) -> str:
    """The weakest model, in :data:`MODELS` order, whose rate in ``rates`` is at least
    ``reliably``; :data:`HINT` if none (models missing from ``rates`` are skipped)."""
    for m in MODELS:
        est = rates.get(m)
        if est is not None and est.rate >= reliably:
            return m
    return HINT


__all__ = ["MODELS", "HINT", "PLAYERS_KEY", "Estimate", "standard_error", "play", "run_rng", "clear_rate",
           "clear_rates", "tier"]
