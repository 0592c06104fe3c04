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

Reproducibility: playthrough ``k`` of ``model`` on ``stream`` draws from :class:`PlayRng`
``(base, k)``, a SplitMix64 generator, where ``base`` is the first 64-bit word of
``numpy.random.SeedSequence(seed, spawn_key=(PLAYERS_KEY, stream, model index))``
(:func:`model_base`). So an estimate is a pure function of its arguments (a ``deadline``
aside: it can only stop a measurement early, at a batch boundary), raising ``max_runs`` keeps
the first runs unchanged, and different ``stream`` values are independent re-measurements.

How a choice is made, cheaply: ``random`` and ``nearest`` draw ``below(n)`` once (``nearest``
only to break a tie); the models that filter (``lookahead``, ``careful``, ``deep``) draw the
removable pairs (in :meth:`Playout.moves` order) into a random order one at a time and judge
each as it comes -- so the first acceptable pair is uniform among the acceptable ones, and
usually only one or two are judged. "Is a pair removable after playing ``(p, q)``" costs,
without gravity, one scan of the current pair set (a pair not touching ``p`` or ``q`` stays
removable, since removing tiles never blocks a path), and under gravity, on a settled board,
one scan for a pair clear of the cells the move shifts (:class:`Shifts`); only when there is
none is it a ``Playout.copy()`` plus one ``remove()``. ``deep`` checks a candidate with one
copy and then that same test on the replies, stopping at the first good one (no copy at all
when two pairs survive the move and each other, as above).

Where it runs: :func:`playthroughs`, which every measurement calls, plays in C
(:mod:`llkgen.analysis.native_players`) wherever that is built, and here otherwise. The C
players make the same choices from the same numbers -- that is why the generator is written
out (:class:`PlayRng`) rather than numpy's -- so a level's numbers do not depend on the
build. Measured on the first level of the shipped specs, 400 playthroughs a model (a noisy
2-core machine: read the ratios), the C players took 22-41 us a playthrough on medium 8x12,
42-89 us on gravity 8x12 and 61-79 us on hard 10x16: 7 to 17 times less than this module
compiled by mypyc (270-650 us, and 520-2,300 us under gravity, where every candidate is a
copy and a removal). Since they update their moves after each move without gravity, as
:class:`Playout` does here, medium takes 13-30 us and hard 30-43 us (docs/difficulty.md,
"Cost").

What the numbers say about the ladder (a property of these levels, not a law): on boards
without gravity, a dead end is rarely one or two moves away -- the traps are deeper -- so
``lookahead``, ``careful`` and ``deep`` clear only a little more often than ``random``;
``nearest`` is close to deterministic (distance ties are rare) and tends to clear a level
every time or never, so it is often *above* the filtering models. Under gravity ``careful``
is the clear step up.
"""

from __future__ import annotations

import time
from typing import Callable, Iterable

import numpy as np

from llkgen.analysis import native_players
from llkgen.analysis.estimate import Estimate, standard_error  # re-exported here
from llkgen.analysis.ladder import HINT, MODELS, RELIABLY  # weak -> strong; re-exported here
from llkgen.errors import LlkgenError
from llkgen.game.board import WALL, Board, Cell, Rules
from llkgen.game.playout import Pair, Playout

#: The first spawn key of the players' seeds, distinct from the random playthroughs of
#: :mod:`llkgen.analysis.metrics` (spawn key ``(k,)``) and from
#: the audit's (:data:`llkgen.analysis.audit.AUDIT_KEY`, ``3 << 20``).
PLAYERS_KEY = 2 << 20


# -- checks on a position -----------------------------------------------------------------------

class Shifts:
    """Under gravity, which cells a removal can change: per padded cell, its gravity line
    (``-1`` off every line), its place in the line from the gravity side, and the last place of
    its run (before the next wall outwards). On a settled board removing the tile at ``x``
    changes only the cells from ``x`` outwards to the end of its run: each takes the tile beyond
    it, and the run's top tile leaves its cell empty. No cell fills that was empty, so a pair
    clear of those cells is still a removable pair after the removal."""

    __slots__ = ("line", "place", "top")

    def __init__(self, pl: Playout):
        g, n = pl.g, len(pl.g)
        self.line = [-1] * n
        self.place = [0] * n
        self.top = [0] * n
        for k, cells in enumerate(pl.grid.lines):
            top = len(cells) - 1
            for i in range(len(cells) - 1, -1, -1):
                c = cells[i]
                self.line[c], self.place[c], self.top[c] = k, i, top
                if g[c] == WALL:  # walls never move: the table holds for the whole game
                    top = i - 1

    def changes(self, x: int, c: int) -> bool:
        """Whether removing the tile at ``x`` can change cell ``c`` (settled board)."""
        return self.line[c] == self.line[x] and self.place[x] <= self.place[c] <= self.top[x]


def _untouched(shifts: Shifts | None, pr: Pair, p: int, q: int) -> bool:
    """Whether pair ``pr`` is surely still removable after ``(p, q)``: without gravity
    (``shifts`` None) when it shares no tile with it, since removing tiles never blocks a path;
    under gravity, on a settled board only, when it is clear of the cells the removal shifts."""
    a, b = pr
    if shifts is None:
        return a != p and a != q and b != p and b != q
    ch = shifts.changes
    return not (ch(p, a) or ch(q, a) or ch(p, b) or ch(q, b))


def _shortcuts_hold(pl: Playout, shifts: Shifts | None) -> bool:
    """Whether :func:`_untouched` holds on ``pl``: no gravity, or a settled board with its
    :class:`Shifts`."""
    return not pl.grid.lines or (shifts is not None and pl.grid.settled)


#: :func:`_deep_after`'s shortcut tries this many first replies that the move leaves in place.
DEEP_REPLIES_TRIED = 8


def _alive_after(pl: Playout, p: int, q: int, shifts: Shifts | None = None) -> bool:
    """Whether the position after playing ``(p, q)`` is cleared or has a removable pair: one
    the move leaves in place (:func:`_untouched`, one scan of the pair set), or else played out
    on a copy."""
    if pl.left == 2:
        return True
    if _shortcuts_hold(pl, shifts) and any(_untouched(shifts, pr, p, q) for pr in pl.links):
        return True
    c = pl.copy()
    c.remove(p, q)
    return bool(c.links)


def _deep_after(pl: Playout, p: int, q: int, shifts: Shifts | None = None) -> bool:
    """Whether after ``(p, q)`` the position is cleared or some reply keeps it alive (the
    2-ply test): a reply the move leaves in place and a pair that neither touches settle it
    with no copy; else it is played out."""
    if pl.left == 2:
        return True
    if _shortcuts_hold(pl, shifts):
        tried = 0
        for reply in pl.links:
            if tried == DEEP_REPLIES_TRIED:
                break
            if not _untouched(shifts, reply, p, q):
                continue
            tried += 1
            if any(_untouched(shifts, pr, p, q) and _untouched(shifts, pr, *reply) for pr in pl.links):
                return True
    c = pl.copy()
    c.remove(p, q)
    if c.left == 0:
        return True
    return any(_alive_after(c, a, b, shifts) for a, b in c.links)


def _completes(pl: Playout, pair: Pair) -> bool:
    """Whether ``pair`` removes the last two tiles of its type."""
    return len(pl.by_type[pl.g[pair[0]]]) == 2


# -- choosing a move --------------------------------------------------------------------------

def _choose(model: str, pl: Playout, moves: list[Pair], rng: "PlayRng", shifts: Shifts | None = None) -> Pair:
    """The move ``model`` plays from ``pl``; ``moves`` is ``pl.moves()`` (sorted), not empty.
    ``_players.c`` makes the same choices with the same draws: keep the two in step.
    ``shifts`` (under gravity) only makes the tests cheaper, never changes their answers."""
    n = len(moves)
    if model == "random":
        return moves[rng.below(n)]
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
        return best[rng.below(len(best))] if len(best) > 1 else best[0]
    if model not in ("lookahead", "careful", "deep"):
        raise ValueError(f"model: expected one of {', '.join(MODELS)}, found {model!r}")
    # The candidates in a uniformly random order, drawn one at a time (Fisher-Yates, stopping
    # as soon as one is taken): position i draws below(n - i), except the last.
    order = list(moves)
    rest: list[Pair] = []
    fallback: Pair | None = None
    for i in range(n):
        if n - i > 1:
            j = i + rng.below(n - i)
            order[i], order[j] = order[j], order[i]
        pr = order[i]
        if model == "lookahead":
            if _alive_after(pl, *pr, shifts):
                return pr
        elif model == "careful":
            if _completes(pl, pr):
                if _alive_after(pl, *pr, shifts):
                    return pr
            else:
                rest.append(pr)
        elif _alive_after(pl, *pr, shifts):  # deep
            if _deep_after(pl, *pr, shifts):
                return pr
            if fallback is None:
                fallback = pr
    for pr in rest:  # careful: no completing pair was safe
        if _alive_after(pl, *pr, shifts):
            return pr
    return order[0] if fallback is None else fallback


def _check_model(model: str) -> None:
    if model not in MODELS:
        raise ValueError(f"model: expected one of {', '.join(MODELS)}, found {model!r}")


def play(model: str, start: Playout, rng: "PlayRng",
         record: list[tuple[Cell, Cell]] | None = None) -> bool:
    """One playthrough of ``model`` from a copy of ``start`` (``start`` is not changed), in
    Python: ``True`` if the board is cleared. ``record``, if given, gets the ``(cell_a,
    cell_b)`` of every move played appended (board coordinates, for
    :func:`llkgen.game.referee.replay`)."""
    _check_model(model)
    pl = start.copy()
    shifts = Shifts(pl) if pl.grid.lines and model in ("lookahead", "careful", "deep") else None
    while pl.left:
        moves = pl.moves()
        if not moves:
            return False
        p, q = _choose(model, pl, moves, rng, shifts)
        if record is not None:
            record.append(pl.cells((p, q)))
        pl.remove(p, q)
    return True


# -- the playthroughs' random numbers ---------------------------------------------------------

_MASK = (1 << 64) - 1
#: SplitMix64's increment (2^64 / the golden ratio, odd).
GAMMA = 0x9E3779B97F4A7C15


def mix64(z: int) -> int:
    """SplitMix64's output function: a bijection of 64-bit words that scatters every input bit."""
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK
    return z ^ (z >> 31)


class PlayRng:
    """The random numbers of one playthrough: SplitMix64 from ``mix64(base + (k + 1) *
    GAMMA)``, and ``below(n)`` is ``(next * n) >> 64``. It is written out here, and the same
    in ``_players.c``, so that a playthrough makes the same choices in C and in Python, and a
    level's numbers do not depend on the build. (The bias of the multiply-shift is below
    ``n / 2**64``.)"""

    __slots__ = ("state",)

    def __init__(self, base: int, k: int):
        self.state = mix64((base + (k + 1) * GAMMA) & _MASK)

    def below(self, n: int) -> int:
        """A uniform integer in ``[0, n)``, ``n >= 1``."""
        self.state = (self.state + GAMMA) & _MASK
        return (mix64(self.state) * n) >> 64


def seed_word(seed: int, *spawn_key: int) -> int:
    """The first 64-bit word of ``SeedSequence(seed, spawn_key=spawn_key)``: the base of a set of
    playthroughs (:class:`PlayRng`)."""
    return int(np.random.SeedSequence(seed, spawn_key=spawn_key).generate_state(1, np.uint64)[0])


def model_base(seed: int, stream: int, model: str) -> int:
    """The 64-bit base of ``model``'s playthroughs on ``stream``: the first word of
    ``SeedSequence(seed, spawn_key=(PLAYERS_KEY, stream, model index))``."""
    return seed_word(seed, PLAYERS_KEY, stream, MODELS.index(model))


def run_rng(seed: int, stream: int, model: str, k: int) -> PlayRng:
    """The generator of playthrough ``k`` of ``model`` on ``stream`` (see the module docstring)."""
    return PlayRng(model_base(seed, stream, model), k)


#: The most candidate pairs (same-type pairs, linkable or not: the sum over types of
#: ``n (n - 1) / 2``) a board may have for the players here: every one is a candidate move,
#: tested at every step of a playthrough. Measured, one playthrough of
#: ``random`` on a full board of one type under gravity down, border on: 16x16 (32,640 pairs)
#: 0.12 s, 24x24 (165,600) 0.69 s, 63x63 (7,870,528) over 300 s; a measurement plays at
#: least 160. The C players (:mod:`llkgen.analysis.native_players`, sides up to 62) take any
#: board: on 62x62 of one type, 0.55-1.5 s a playthrough. So where they do not run (a board of
#: 63 or 64 a side, or an install without them) a board past this is refused, rather than left
#: to run for hours; a board of 4 tiles a type is far below it at any size (64x64: 6,144).
PYTHON_MAX_PAIRS = 200_000


def candidate_pairs(start: Playout) -> int:
    """How many same-type pairs ``start``'s board has, linkable or not."""
    counts: dict[int, int] = {}
    g = start.grid.g
    for p in start.grid.cells:
        if g[p] > 0:
            counts[g[p]] = counts.get(g[p], 0) + 1
    return sum(n * (n - 1) // 2 for n in counts.values())


class TooBigForPlayers(LlkgenError):
    """A board with more candidate pairs than the players here take (:data:`PYTHON_MAX_PAIRS`)."""


def check_python_size(start: Playout) -> None:
    """Raise :class:`TooBigForPlayers` for a board past :data:`PYTHON_MAX_PAIRS`."""
    pairs = candidate_pairs(start)
    if pairs > PYTHON_MAX_PAIRS:
        grid = start.grid
        where = (f"the C players take at most {native_players.MAX_SIDE} a side"
                 if max(grid.rows, grid.cols) > native_players.MAX_SIDE else "the C players are not built here")
        raise TooBigForPlayers(
            f"a {grid.rows}x{grid.cols} board with {pairs:,} same-type pairs is too big for the model players "
            f"in Python ({where}): they take at most {PYTHON_MAX_PAIRS:,}, as a playthrough's cost grows with "
            "every pair of a type; use fewer tiles of each type")


def playthroughs(model: str, start: Playout, seed: int, stream: int, k0: int, k1: int) -> int:
    """How many of playthroughs ``k0 .. k1 - 1`` of ``model`` on ``stream`` clear ``start``."""
    return runs_from(model, start, model_base(seed, stream, model), k0, k1)


def runs_from(model: str, start: Playout, base: int, k0: int, k1: int, *,
              stop: Callable[[int, int], bool] | None = None) -> int:
    """How many of the playthroughs ``PlayRng(base, k)``, ``k0 <= k < k1``, of ``model`` clear
    ``start``: in C when :mod:`llkgen.analysis.native_players` takes the board, else here. Both
    give the same count (``tests/analysis/test_native_players.py`` holds them to the same moves).
    ``stop(cleared, k)``, if given, may end the Python loop after playthrough ``k`` (its count so
    far is returned); the C players, many times faster, play them all, so a caller must read
    the count as a bound when it stopped."""
    _check_model(model)
    fast = native_players.runner(start)
    if fast is not None:
        return fast(MODELS.index(model), base, k0, k1)
    if k1 > k0:
        check_python_size(start)
    cleared = 0
    for k in range(k0, k1):
        cleared += play(model, start, PlayRng(base, k))
        if stop is not None and stop(cleared, k):
            break
    return cleared


# -- measuring --------------------------------------------------------------------------------

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
        cleared += playthroughs(model, start, seed, stream, runs, min(runs + min_runs, max_runs))
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


__all__ = ["MODELS", "HINT", "PLAYERS_KEY", "Estimate", "standard_error", "play", "PlayRng", "GAMMA", "mix64",
           "seed_word", "model_base", "run_rng", "playthroughs", "runs_from", "clear_rate",
           "clear_rates", "tier", "PYTHON_MAX_PAIRS", "candidate_pairs", "TooBigForPlayers", "check_python_size"]
