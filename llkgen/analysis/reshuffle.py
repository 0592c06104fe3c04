"""``reshuffle``: a board's tiles rearranged into a board certified solvable, the move a game
offers when its player is stuck. It uses the advice's clock and budgets
(:mod:`llkgen.analysis.advice`), and the same verifier as every level."""

from __future__ import annotations

from dataclasses import dataclass

from llkgen.analysis.advice import (
    ADVICE_BUDGET,
    Order,
    TimedRng,
    out_of_time,
    pairs_of,
    per_verification,
    whole_call_deadline,
    within,
)
from llkgen.errors import LlkgenError
from llkgen.game.board import EMPTY, Board, Rules
from llkgen.game.construct import play_forward
from llkgen.game.gravity import apply_gravity
from llkgen.game.path import Move
from llkgen.verifier import SOLVABLE, UNSOLVABLE, Budget, Verdict, WitnessRejected, verify
from llkgen.verifier.verdict import Limit, OutOfBudget

__all__ = ["Reshuffled", "ReshuffleError", "reshuffle", "RESHUFFLE_ATTEMPTS"]

#: Candidate arrangements :func:`reshuffle` builds before it gives up.
RESHUFFLE_ATTEMPTS = 32


class ReshuffleError(LlkgenError):
    """No certified arrangement was found. ``exit_code`` follows ``llkgen solve``: 3 when it is
    proven that no arrangement can be cleared, 4 when the attempts ran out."""

    def __init__(self, message: str, proven: bool):
        super().__init__(message)
        self.proven = proven
        self.exit_code = 3 if proven else 4


@dataclass(frozen=True)
class Reshuffled:
    """A rearrangement of a board's tiles and its replayed witness. ``attempts`` counts the
    candidate arrangements built, this one included."""

    board: Board
    witness: list[Move]
    attempts: int
    seed: int


def reshuffle(board: Board, rules: Rules, seed: int = 0, budget: Budget = ADVICE_BUDGET,
              attempts: int = RESHUFFLE_ATTEMPTS, *, deadline: float | None = None) -> Reshuffled:
    """The tiles on ``board`` rearranged over the cells they occupy -- walls, empty cells and
    type counts kept -- into a board certified solvable, with its replayed witness. The same
    ``(board, rules, seed, budget)`` always gives the same result, as long as no clock is set.
    Under gravity the board is settled first, so the result is settled too.

    Candidates are built by forward play (:func:`llkgen.game.construct.play_forward`), so they are
    clearable by construction, and then certified by :func:`verify` like any level. When the
    forward play gets stuck, the question is settled exactly on the *one-type board*: the same
    cells, every tile of one type. Whether two cells link depends only on which cells are
    occupied, so a removal order that clears some arrangement clears the one-type board too;
    and a removal order that clears the one-type board clears the arrangement that gives its
    pairs the types, any types, two tiles at a time. So if the verifier proves the one-type
    board unsolvable, no arrangement can be cleared: :class:`ReshuffleError` with exit code 3.
    If it clears it, its pairs get the board's types in a seeded random order. After
    ``attempts`` candidates, or once ``budget.seconds`` or ``deadline`` (a
    ``time.perf_counter()`` value) has passed, whichever comes first: :class:`ReshuffleError`
    with exit code 4. ``budget.nodes`` bounds each verification. Arguments are trusted:
    programs call :func:`llkgen.api.reshuffle`, which checks them."""
    deadline = whole_call_deadline(budget, deadline)
    each = per_verification(budget)
    start = apply_gravity(board, rules.gravity)
    if start.is_cleared():
        return Reshuffled(start, [], 0, seed)
    # numpy's import costs more CPU than Typer's (benchmarks/startup_bench.py): only a reshuffle
    # draws from it, so ``llkgen hint`` and ``moves --classify`` do not pay it.
    import numpy as np

    rng = np.random.default_rng(np.random.SeedSequence(seed))
    draw = rng if deadline is None else TimedRng(rng, deadline)
    stuck = unknown = 0
    one_type: Verdict | None = None
    for attempt in range(1, attempts + 1):
        try:
            if out_of_time(deadline):
                raise OutOfBudget(Limit.SECONDS)
            built = play_forward(_dealt(start, draw), rules, draw)
        except OutOfBudget:
            raise ReshuffleError(f"the time budget ran out after {attempt - 1} of {attempts} attempts ({stuck} got "
                                 f"stuck while being built, {unknown} were left unknown by the verifier); try a "
                                 "bigger budget", proven=False) from None
        if built is None:
            stuck += 1
            if one_type is not None:
                continue
            one_type = verify(_one_type(start), rules, within(each, deadline))
            if one_type.status == UNSOLVABLE:
                raise ReshuffleError(
                    f"no arrangement of the {start.tile_count} tiles left can be cleared: even with every tile "
                    f"of one type, {one_type.reason}", proven=True)
            if one_type.status != SOLVABLE:
                continue
            built = _typed(start, rules.gravity, pairs_of(one_type.moves), rng)
        candidate, order = built
        v = verify(candidate, rules, within(each, deadline), hint=order)
        if v.status == SOLVABLE:
            return Reshuffled(candidate, v.moves, attempt, seed)
        if v.status == UNSOLVABLE:
            raise WitnessRejected(f"internal error: the verifier calls a constructed board unsolvable: {v.reason}")
        unknown += 1
    raise ReshuffleError(f"no arrangement was certified in {attempts} attempts ({stuck} got stuck while "
                         f"being built, {unknown} were left unknown by the verifier); try another seed "
                         "or a bigger budget", proven=False)


def _dealt(board: Board, rng) -> Board:
    """``board``'s tiles dealt at random over the cells they occupy. Forward play needs a
    fresh deal to start from: every pair it removes is one type, and it writes that type back,
    so from the player's own board it gives that board back whenever it clears it unstuck."""
    cells = list(board.cells)
    spots = [i for i, v in enumerate(cells) if v > 0]
    tiles = [cells[i] for i in spots]
    for i, k in zip(spots, rng.permutation(len(tiles))):
        cells[i] = tiles[int(k)]
    return Board(board.rows, board.cols, tuple(cells))


def _one_type(board: Board) -> Board:
    """``board`` with every tile of type 1: the same occupancy, so the same links."""
    return Board(board.rows, board.cols, tuple(1 if v > 0 else v for v in board.cells))


def _typed(start: Board, gravity: str, order: Order, rng) -> tuple[Board, Order]:
    """``start``'s tiles dealt onto the pairs of ``order`` (a removal order that clears the
    one-type board of ``start``) in a random order, each pair's two cells getting one type.
    Under gravity the pairs' cells are where their tiles *started*: the order is replayed on
    occupancy, following each tile."""
    counts: dict[int, int] = {}
    for v in start.cells:
        if v > 0:
            counts[v] = counts.get(v, 0) + 1
    pair_types = [t for t in sorted(counts) for _ in range(counts[t] // 2)]
    shuffled = [pair_types[int(k)] for k in rng.permutation(len(pair_types))]
    origins = _origins(start, gravity, order)
    cells = [EMPTY if v > 0 else v for v in start.cells]
    for (a, b), t in zip(origins, shuffled):
        cells[a] = cells[b] = t
    return Board(start.rows, start.cols, tuple(cells)), order


def _origins(start: Board, gravity: str, order: Order) -> list[tuple[int, int]]:
    """For each move of ``order`` on ``start``, the row-major cells where its two tiles
    started. Each tile carries its starting cell as its value, so gravity carries it along."""
    ids = Board(start.rows, start.cols,
                tuple(i + 1 if v > 0 else v for i, v in enumerate(start.cells)))
    out = []
    for a, b in order:
        out.append((ids[a] - 1, ids[b] - 1))
        ids = apply_gravity(ids.set_cells({a: EMPTY, b: EMPTY}), gravity)
    return out
