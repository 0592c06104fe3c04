"""Advice for a game in progress: which moves lose, a hint that never does, and a reshuffle
that can be cleared.

Every answer is a value with its evidence, like a :class:`~llkgen.verifier.Verdict`:

* a move is ``safe`` only with a witness -- a removal order that clears the board after the
  move, replayed by :func:`llkgen.game.referee.replay`;
* ``fatal`` only with a sound proof that the board after the move can never be cleared (the
  verifier's lock test or complete search, or a proof that the board is already dead);
* otherwise ``unknown``, naming the budget that ran out.

What makes labelling every move cheap (:class:`Labeller`):

* If the board itself is proven unsolvable, every move is fatal: a move that left a
  clearable board would make the board before it clearable too.
* The first move of any witness is safe, with the rest of the witness as its certificate.
* Without gravity, *every* pair of a witness that is removable right now is safe: play it
  first and then the rest in their order. A move only empties cells, and emptier cells can
  only open paths, so each later move still has the path it had.
* A move proved safe adds its own witness (the move, then the witness after it), whose
  removable pairs are safe in turn; so on boards without gravity most safe moves cost no
  search at all. The rest are decided one by one by :func:`llkgen.verifier.verify` on the board
  after the move (whose lock test catches most fatal moves at once).

``budget.nodes`` is the node budget of *each* verification, so a whole classification costs
at most ``(moves + 1) x budget.nodes`` search nodes, and node budgets keep it deterministic.
A budget of seconds alone (``Budget(seconds=S)``, which has no node limit) gives each
verification :data:`~llkgen.verifier.verdict.DEFAULT_NODES`: its seconds bound the whole call,
and one hard verification should not take all of them.
``budget.seconds`` (or a ``deadline``) is a wall-clock limit for the *whole* call of
:func:`classify_moves`, :func:`hint` or :func:`reshuffle`: the deadline is checked between
verifications, each verification gets only the time left (so it stops at the deadline too), and
whatever it leaves undecided is ``unknown`` (for a reshuffle, a :class:`ReshuffleError` with
exit code 4), its ``limit`` :attr:`~llkgen.verifier.verdict.Limit.SECONDS`. No time at all (``seconds=0``) decides
nothing that needs a search. A clock makes the answer machine-dependent.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum

from llkgen.game.board import Board, Cell, Gravity, Rules
from llkgen.game.path import Move, removable_pairs
from llkgen.game.referee import Table, play, replay
from llkgen.verifier import SOLVABLE, UNSOLVABLE, Budget, Verdict, WitnessRejected, verify
from llkgen.verifier.verdict import (
    ADVICE_NODES,
    DEFAULT_NODES,
    UNKNOWN,
    Argument,
    Limit,
    OutOfBudget,
    Proof,
    Status,
)

__all__ = ["Label", "HintStatus", "SAFE", "FATAL", "UNDECIDED", "MoveLabel", "Hint",
           "classify_moves", "hint", "ADVICE_BUDGET"]


class Label(StrEnum):
    """What playing a move does to the board: a :class:`MoveLabel`'s ``label``. A
    ``StrEnum``, so the JSON (``"label": "safe"``) is its value."""

    #: The board after the move can still be cleared: the label's ``witness`` clears it, replayed.
    SAFE = "safe"
    #: The board after the move can never be cleared: the label's ``proof`` shows it.
    FATAL = "fatal"
    #: Undecided: the label's ``limit`` names the budget that ran out.
    UNKNOWN = "unknown"


#: The labels' words, for code that keys or compares by word (the CLI's summary counts; a
#: ``Label`` equals its word, so ``x.label == SAFE`` holds either way). Typed ``str`` so that
#: a ``dict`` keyed by them is a ``dict[str, int]``; this module labels with :class:`Label`.
SAFE: str = Label.SAFE
FATAL: str = Label.FATAL
UNDECIDED: str = Label.UNKNOWN

#: The default budget of each verification behind a label: a few milliseconds on most boards.
ADVICE_BUDGET = Budget(nodes=ADVICE_NODES)

Order = list[tuple[Cell, Cell]]


# -- values -----------------------------------------------------------------------------------
# The values hold moves and boards; llkgen.outputs turns them into the JSON the commands
# print (label_json, hint_json, reshuffled_level), one vocabulary for the library and the CLI.
@dataclass(frozen=True)
class MoveLabel:
    """One removable pair and what playing it does: ``label`` is :attr:`Label.SAFE` (``witness``
    clears the board after it, replayed), :attr:`Label.FATAL` (``proof`` shows the board after it
    can never be cleared) or :attr:`Label.UNKNOWN` (``limit`` names the budget that ran out); the
    other evidence is empty. Its JSON (:func:`llkgen.outputs.label_json`) writes the
    proof or the limit as a verdict's ``proof``."""

    move: Move
    label: Label
    witness: list[Move]
    proof: Proof | None
    reason: str
    limit: Limit | None = None


class HintStatus(StrEnum):
    """What :func:`hint` found, in a word: a :class:`Hint`'s ``status``. Each word stands for
    one verdict on the board (:attr:`verdict`, the word the hint's JSON writes), so the hint
    and the verifier speak of one outcome in one vocabulary."""

    #: A move after which the board can still be cleared: the hint's ``move`` and ``witness``.
    MOVE = "move"
    #: No tile is left: solvable, with no move and an empty witness.
    CLEARED = "cleared"
    #: The board can never be cleared: the hint's ``proof``.
    DEAD = "dead"
    #: Undecided: the hint's ``limit`` names the budget that ran out.
    UNDECIDED = "undecided"

    @property
    def verdict(self) -> Status:
        """The verdict on the board: ``solvable`` for a move or no tile left, ``unsolvable``
        when dead, ``unknown`` when undecided."""
        return {HintStatus.DEAD: UNSOLVABLE, HintStatus.UNDECIDED: UNKNOWN}.get(self, SOLVABLE)

    @property
    def exit_code(self) -> int:
        """``llkgen hint``'s exit code, the verdict's: 0 solvable, 3 unsolvable, 4 unknown."""
        return self.verdict.exit_code


@dataclass(frozen=True)
class Hint:
    """What :func:`hint` found, a verdict on the board with its evidence, as a
    :class:`~llkgen.verifier.Verdict` has: ``status`` is :attr:`HintStatus.MOVE` (``move``
    can be played safely, and ``witness`` clears the board after it, replayed),
    :attr:`HintStatus.CLEARED` (no tile left: no ``move``, an empty ``witness``),
    :attr:`HintStatus.DEAD` (``proof`` shows the board can never be cleared) or
    :attr:`HintStatus.UNDECIDED` (``limit`` names the budget that ran out); ``verdict`` is
    the :class:`Status` it stands for, the word its JSON writes. Building a hint whose
    evidence does not match its status raises ``ValueError``."""

    status: HintStatus
    move: Move | None
    witness: list[Move]
    proof: Proof | None
    reason: str
    limit: Limit | None = None

    def __post_init__(self) -> None:
        ok = {HintStatus.MOVE: self.move is not None,
              HintStatus.CLEARED: self.move is None and not self.witness,
              HintStatus.DEAD: self.proof is not None,
              HintStatus.UNDECIDED: self.limit is not None}[self.status]
        if not ok or (self.status != HintStatus.DEAD and self.proof is not None) \
                or (self.status != HintStatus.UNDECIDED and self.limit is not None):
            raise ValueError(f"a {self.status} hint carries a move only for a move, a proof only when dead "
                             "and a limit only when undecided")

    @property
    def verdict(self) -> Status:
        """The verdict on the board this hint stands for: ``solvable``, ``unsolvable`` or
        ``unknown``."""
        return self.status.verdict

    @property
    def exit_code(self) -> int:
        """``llkgen hint``'s exit code, the verdict's: 0 solvable, 3 unsolvable, 4 unknown."""
        return self.status.exit_code


# -- the clock --------------------------------------------------------------------------------
def whole_call_deadline(budget: Budget, deadline: float | None = None) -> float | None:
    """The ``time.perf_counter()`` value a whole call must stop at: the earlier of ``deadline``
    and ``budget.seconds`` from now; ``None`` when neither is set."""
    own = None if budget.seconds is None else time.perf_counter() + budget.seconds
    if own is None or deadline is None:
        return own if deadline is None else deadline
    return min(own, deadline)


def out_of_time(deadline: float | None) -> bool:
    """Whether ``deadline`` (a ``time.perf_counter()`` value, ``None`` for none) has passed: the
    test :func:`llkgen.execution.base.out_of_time` makes, written here because ``llkgen hint``
    must not load the executors (tests/cli/test_cli_imports.py)."""
    return deadline is not None and time.perf_counter() >= deadline


def within(budget: Budget, deadline: float | None) -> Budget:
    """The budget of one verification inside a call bounded by ``deadline``: ``budget``'s
    nodes, and the time left (0 once it has passed, which the verifier answers with
    ``unknown`` at once); without a deadline, ``budget`` itself."""
    if deadline is None:
        return budget
    return Budget(nodes=budget.nodes, seconds=max(0.0, deadline - time.perf_counter()))


def per_verification(budget: Budget) -> Budget:
    """The node budget of each verification of a call given ``budget`` (module docstring)."""
    alone = budget.nodes is None and budget.seconds is not None
    return Budget(nodes=DEFAULT_NODES if alone else budget.nodes)


class TimedRng:
    """A numpy random Generator that raises ``OutOfBudget(Limit.SECONDS)`` when drawn from at or
    past ``deadline``; every draw is otherwise the wrapped generator's, so the numbers, and
    what is built from them, are the same. :func:`~llkgen.game.construct.play_forward` draws
    once per move it plays (and once per reshuffle), so its draws are where a forward play
    stops on time: one on a 64x64 board under gravity takes 20 s."""

    def __init__(self, rng, deadline: float):
        self._rng, self._deadline = rng, deadline

    def __getattr__(self, name: str):
        if time.perf_counter() >= self._deadline:
            raise OutOfBudget(Limit.SECONDS)
        return getattr(self._rng, name)


# -- labelling --------------------------------------------------------------------------------
@dataclass
class RawLabel:
    """A label before its witness is replayed: ``order`` clears the board after the move."""

    label: Label
    order: Order | None
    proof: Proof | None
    reason: str
    limit: Limit | None = None


def pairs_of(order: list[Move]) -> Order:
    """The cells of each move of ``order``: a removal order without its paths."""
    return [(m.a, m.b) for m in order]


class Labeller:
    """Labels the removable pairs of one board, using the shortcuts in the module docstring.
    ``known`` is a removal order already proven to clear the board (or ``None``), ``dead`` the
    proof that the board cannot be cleared (or ``None``); ``extra`` more witnesses, used like
    ``known``. ``verifications`` counts the :func:`verify` calls made, for the benchmark;
    ``found`` holds the witnesses for the board that labelling found (each a safe move, then
    the witness after it). ``budget`` bounds each verification; ``deadline`` (a
    ``time.perf_counter()`` value), if given, the whole labelling: each verification gets the
    time left, and a move still unlabelled when it passes is ``unknown``."""

    def __init__(self, board: Board, rules: Rules, budget: Budget, deadline: float | None = None):
        self.board, self.rules, self.budget = board, rules, budget
        self.deadline = deadline
        self.verifications = 0
        self.found: list[Order] = []

    def label(self, moves: list[Move], known: Order | None = None,
              dead: Verdict | None = None, extra: Sequence[Order] = ()) -> list[RawLabel]:
        out: list[RawLabel | None] = [None] * len(moves)
        if dead is not None:
            proof = Proof(Argument.BOARD_UNSOLVABLE, board=dead.proof)
            reason = f"the board is already unsolvable, so no move can save it: {dead.reason}"
            return [RawLabel(Label.FATAL, None, proof, reason) for _ in moves]
        index = {(m.a, m.b): i for i, m in enumerate(moves)}
        for order in ([known] if known is not None else []) + list(extra):
            self._credit(order, index, out)
        for i, m in enumerate(moves):
            if out[i] is not None:
                continue
            if out_of_time(self.deadline):
                out[i] = RawLabel(Label.UNKNOWN, None, None, "the time budget ran out before this move was checked",
                                  Limit.SECONDS)
                continue
            after = play(self.board, self.rules, m.a, m.b)
            repaired = self._repair(after, m, [known, *extra] if known is not None else list(extra))
            if repaired is not None:
                out[i] = _safe(repaired, "a witness with this pair's tiles re-partnered clears the board after it")
                found = [(m.a, m.b), *repaired]
                self.found.append(found)
                self._credit(found, index, out)
                continue
            self.verifications += 1
            v = verify(after, self.rules, within(self.budget, self.deadline))
            if v.status == SOLVABLE:
                out[i] = _safe(pairs_of(v.moves), "the witness clears the board after this move")
                found = [(m.a, m.b), *pairs_of(v.moves)]
                self.found.append(found)
                self._credit(found, index, out)
            elif v.status == UNSOLVABLE:
                out[i] = RawLabel(Label.FATAL, None, v.proof, f"after this move: {v.reason}")
            else:
                out[i] = RawLabel(Label.UNKNOWN, None, None, f"after this move: {v.reason}", v.limit)
        return [x for x in out if x is not None]

    def _repair(self, after: Board, m: Move, witnesses: Sequence[Order]) -> Order | None:
        """Without gravity, a removal order for ``after`` made from a known witness that pairs
        ``m``'s two tiles with other partners ``x`` and ``y``: the witness's pairs, with those
        two replaced by ``(x, y)`` (:func:`repartnered`), played greedily through the referee's
        own move check (:func:`greedy_order`). On full boards most safe moves that
        no witness contains are such swaps of partners, and this costs a replay or two
        instead of a search. (A failed repair is *not* handed to the search as a hint: on
        10x16 boards that made it follow the wrong prefix for seconds, where without a hint
        it took 40 ms.)"""
        if self.rules.gravity != Gravity.NONE:
            return None
        for order in witnesses:
            candidate = greedy_order(after, self.rules, repartnered(order, m.a, m.b)[0])
            if candidate is not None:
                return candidate
        return None

    def _credit(self, order: Order, index: dict, out: list) -> None:
        """Mark safe the pairs of ``order`` (a witness for the board) that can go first."""
        spots = range(len(order)) if self.rules.gravity == Gravity.NONE else range(min(1, len(order)))
        for k in spots:
            a, b = order[k]
            i = index.get((a, b) if a < b else (b, a))
            if i is not None and out[i] is None:
                out[i] = _safe(order[:k] + order[k + 1:],
                               "this pair belongs to a witness and can be played first" if k else
                               "the witness starts with this move")


def repartnered(order: Order, a: Cell, b: Cell) -> tuple[Order, bool]:
    """The pairs of ``order`` (a witness) once the tiles ``a`` and ``b`` are removed together:
    ``(order without (a, b), False)`` if it pairs them already; otherwise the two pairs
    holding them, ``(a, x)`` and ``(b, y)``, give way to ``(x, y)``, placed where the later of
    them stood, and the flag is True (the pairs then need a new order: :func:`greedy_order`)."""
    spots = [k for k, (p, q) in enumerate(order) if p in (a, b) or q in (a, b)]
    if len(spots) == 1:
        return order[:spots[0]] + order[spots[0] + 1:], False
    (p1, q1), (p2, q2) = order[spots[0]], order[spots[1]]
    x = q1 if p1 in (a, b) else p1
    y = q2 if p2 in (a, b) else p2
    pairs = [p for k, p in enumerate(order) if k not in spots]
    pairs.insert(spots[1] - 1, (x, y))
    return pairs, True


def greedy_order(board: Board, rules: Rules, pairs: Order, rematch: bool = True) -> Order | None:
    """Without gravity, a removal order that clears ``board``, found greedily from the tile
    pairs ``pairs``; ``None`` if this finds none (which proves nothing when ``rematch``).

    It sweeps ``pairs`` in their order, removing every pair that the referee's own move check
    (:class:`llkgen.game.referee.Table`) accepts, until none is left
    or a sweep removes nothing. For a fixed set of pairs that is complete: a removal only
    empties cells, so a pair that links stays linkable, and removing it early never stops
    another; if any order of these pairs clears the board, the sweeps do. When the sweeps are
    stuck and ``rematch`` is set, the stuck pairs are hopeless as they are, so it re-pairs
    the stuck tiles of one type -- the first other matching in which some new pair links now
    -- and sweeps on; it gives up when no re-pairing helps.

    The order returned clears the board because ``pairs`` must cover it: every tile of
    ``board`` in exactly one pair, each pair two tiles of one type. Pairs that do not (a tile
    left out or used twice, a wall or an empty cell, two types) raise ``ValueError``, as does
    gravity (a removal moves tiles, so the pairs' cells no longer name them)."""
    if rules.gravity != Gravity.NONE:
        raise ValueError(f"greedy_order: expected gravity none, found gravity {rules.gravity!r}")
    _check_cover(board, pairs)
    table = Table(board, rules)
    order: Order = []
    pending = list(pairs)
    while pending:
        stuck = []
        for p in pending:
            if table.check(p)[0] is not None:
                table.play(*p)
                order.append(p)
            else:
                stuck.append(p)
        if len(stuck) == len(pending):
            if not rematch:
                return None
            swapped = _rematch(table, stuck)
            if swapped is None:
                return None
            stuck = swapped
        pending = stuck
    return order


def _check_cover(board: Board, pairs: Order) -> None:
    """Raise ``ValueError`` unless ``pairs`` holds every tile of ``board`` exactly once, two
    tiles of one type to a pair. Sweeping and re-pairing then only ever remove two tiles of
    one type, so an order that removes every pair leaves no tile."""
    seen: set[Cell] = set()
    for a, b in pairs:
        for c in (a, b):
            if not board.in_bounds(c) or board[c] <= 0:
                raise ValueError(f"greedy_order: pair {[list(a), list(b)]} holds {list(c)}, which is no tile")
            if c in seen:
                raise ValueError(f"greedy_order: tile {list(c)} is in more than one pair")
            seen.add(c)
        if board[a] != board[b]:
            raise ValueError(f"greedy_order: pair {[list(a), list(b)]} joins types {board[a]} and {board[b]}")
    if len(seen) != board.tile_count:
        raise ValueError(f"greedy_order: the pairs hold {len(seen)} of the board's {board.tile_count} tiles")


def _rematch(table: Table, stuck: Order) -> Order | None:
    """``stuck`` with the pairs of one type re-paired so that some new pair links now, or
    ``None``. Types are tried in order of first appearance; within a type, every other
    perfect matching of its stuck tiles of up to three pairs."""
    by_type: dict[int, list[int]] = {}
    for k, (a, _) in enumerate(stuck):
        by_type.setdefault(table.g[table.pos(a)], []).append(k)
    for spots in by_type.values():
        if not 2 <= len(spots) <= 3:
            continue
        tiles = [c for k in spots for c in stuck[k]]
        for matching in _matchings(tiles):
            if set(map(frozenset, matching)) == {frozenset(stuck[k]) for k in spots}:
                continue
            if any(table.check(p)[0] is not None for p in matching):
                rest = [p for k, p in enumerate(stuck) if k not in spots]
                return list(matching) + rest
    return None


def _matchings(tiles: list[Cell]) -> list[list[tuple[Cell, Cell]]]:
    """Every perfect matching of ``tiles`` (an even number of cells)."""
    if not tiles:
        return [[]]
    first, rest = tiles[0], tiles[1:]
    out = []
    for i, other in enumerate(rest):
        for tail in _matchings(rest[:i] + rest[i + 1:]):
            out.append([(first, other), *tail])
    return out


def _safe(order: Order, reason: str) -> RawLabel:
    return RawLabel(Label.SAFE, order, None, reason)


def _replayed(board: Board, rules: Rules, order: Order) -> list[Move]:
    """``order`` as moves with paths, once the referee has accepted it on ``board``."""
    result = replay(board, rules, order)
    if not (result.ok and result.cleared):
        raise WitnessRejected(f"internal error: a safe move's witness was refused: {result.describe()}")
    return [Move(a, b, path) for (a, b), path in zip(order, result.paths)]


def classify_moves(board: Board, rules: Rules, budget: Budget = ADVICE_BUDGET, *,
                   deadline: float | None = None) -> list[MoveLabel]:
    """Label every pair removable on ``board`` right now, in :func:`removable_pairs` order:
    ``safe`` with a replayed witness for the board after it, ``fatal`` with a sound proof, or
    ``unknown``. ``budget.nodes`` bounds each verification; ``budget.seconds`` and
    ``deadline`` (a ``time.perf_counter()`` value) the whole call (see the module docstring).
    Arguments are trusted: programs call :func:`llkgen.api.classify_moves`, which checks them."""
    deadline = whole_call_deadline(budget, deadline)
    each = per_verification(budget)  # the time is the deadline's, handed out by within
    moves = removable_pairs(board, rules)
    if not moves:
        return []
    root = verify(board, rules, within(each, deadline))
    labeller = Labeller(board, rules, each, deadline)
    raw = labeller.label(moves, pairs_of(root.moves) if root.status == SOLVABLE else None,
                         root if root.status == UNSOLVABLE else None)
    out = []
    for m, r in zip(moves, raw):
        if r.order is not None and out_of_time(deadline):
            # Safe needs its witness replayed (a long one on a big board), and the time is
            # gone: say so rather than overrun the budget.
            out.append(MoveLabel(m, Label.UNKNOWN, [], None,
                                 "the time budget ran out before this move's witness was replayed", Limit.SECONDS))
            continue
        witness = _replayed(play(board, rules, m.a, m.b), rules, r.order) if r.order is not None else []
        out.append(MoveLabel(m, r.label, witness, r.proof, r.reason, r.limit))
    return out


# -- hints ------------------------------------------------------------------------------------
def _turns(m: Move) -> int:
    return len(m.path) - 2


def _length(m: Move) -> int:
    return sum(abs(p[0] - q[0]) + abs(p[1] - q[1]) for p, q in zip(m.path, m.path[1:]))


def hint(board: Board, rules: Rules, budget: Budget = ADVICE_BUDGET, *, deadline: float | None = None) -> Hint:
    """A move after which ``board`` can still be cleared, with the replayed witness for the
    board after it (verdict ``solvable``); or ``unsolvable`` with the proof that nothing can
    clear it; or ``unknown``. A board with no tile left is ``solvable`` with no move.

    The move comes from one verification, within ``budget`` and before ``deadline`` (a
    ``time.perf_counter()`` value), whichever is earlier. Without gravity every pair of the
    witness that is removable now is safe (see the module docstring), and the hint is the one a
    player spots most easily: the fewest turns, then the shortest line. Under gravity it is the
    witness's first move. Arguments are trusted: programs call :func:`llkgen.api.hint`, which
    checks them."""
    if board.is_cleared():
        return Hint(HintStatus.CLEARED, None, [], None, "the board has no tiles")
    deadline = whole_call_deadline(budget, deadline)
    v = verify(board, rules, within(per_verification(budget), deadline))
    if v.status == UNSOLVABLE:
        return Hint(HintStatus.DEAD, None, [], v.proof, f"no move can clear the board: {v.reason}")
    if v.status != SOLVABLE:
        return Hint(HintStatus.UNDECIDED, None, [], None, v.reason, v.limit)
    order = pairs_of(v.moves)
    now = {(m.a, m.b): m for m in removable_pairs(board, rules)}
    spots = range(len(order)) if rules.gravity == Gravity.NONE else range(1)
    ready = [(k, now[(a, b) if a < b else (b, a)]) for k in spots for a, b in [order[k]]
             if ((a, b) if a < b else (b, a)) in now]
    k, move = min(ready, key=lambda km: (_turns(km[1]), _length(km[1]), km[0]))
    witness = _replayed(play(board, rules, move.a, move.b), rules, order[:k] + order[k + 1:])
    return Hint(HintStatus.MOVE, move, witness, None,
                f"after this move the board can still be cleared ({len(witness)} more moves)")


# -- reshuffles -------------------------------------------------------------------------------
