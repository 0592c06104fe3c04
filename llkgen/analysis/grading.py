"""Difficulty measured exactly: seeded playthroughs that only ever play safe moves, labelling
every available move on the way with :class:`llkgen.analysis.advice.Labeller`.

At each step of a playthrough every removable pair is labelled ``safe``, ``fatal`` or
``unknown`` (the labeller's node budget ran out), and the player picks one of the safe moves
uniformly at random. :func:`grade` reports, over all steps of all playthroughs:

* ``fatal_share``: the mean, over steps, of the share of available moves that are fatal;
* ``trap_steps``: the mean number of steps per playthrough at which some move is fatal;
* ``choices``: the mean number of available moves per step;
* ``link_turns``: the mean number of turns (0, 1 or 2) in the links played;
* ``unknown_share``: the mean share of moves left unknown, counted apart from both.

Playthrough ``k`` draws from ``numpy.random.default_rng(SeedSequence(seed, spawn_key=(GRADE_KEY,
k)))`` and every limit is a node count, so a grade is a pure function of its inputs.

What keeps it cheap, on top of the labeller's own shortcuts (a known witness makes its pairs
safe for free; see :mod:`llkgen.analysis.advice`):

* A pool of witnesses is carried from step to step (without gravity; under gravity only the
  played move's own witness carries over): after a move ``m``, a known witness that contains
  ``m`` becomes, without ``m``, a witness for the next board; one that pairs ``m``'s tiles
  with others is re-paired and replayed greedily (:func:`llkgen.analysis.advice.greedy_order`).
* Without gravity a fatal pair stays fatal for the rest of the playthrough, while its two
  tiles remain: if the board after the pair ``q`` cannot be cleared, neither can it after
  ``q`` and a move ``m`` -- otherwise play ``m`` then the rest, on a board that ``q``'s removal
  only made emptier. So each fatal pair is proved once.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

import numpy as np

from llkgen.analysis.advice import FATAL, SAFE, UNDECIDED, Labeller, Order, RawLabel, greedy_order, repartnered
from llkgen.game.board import Board, Cell, Gravity, Rules
from llkgen.game.path import Move, removable_pairs
from llkgen.game.referee import play
from llkgen.verifier import Budget

#: The first spawn key of the grading playthroughs' seeds, so they never share a stream with
#: the random playthroughs of ``random_clear_rate`` (spawn key ``(k,)``).
GRADE_KEY = 1 << 20

#: Witnesses carried from step to step (the oldest are dropped first).
POOL = 16

#: Default playthroughs and per-verification node budget of a grading.
PLAYTHROUGHS = 2
GRADE_NODES = 20_000


@dataclass(frozen=True)
class Grade:
    """The exact difficulty metrics of one board (see the module docstring). ``steps`` counts
    labelled steps, ``stalled`` the playthroughs that met a board with no move proved safe
    (only possible when budgets run out, or when the board cannot be cleared),
    ``verifications`` the verifier calls made."""

    fatal_share: float
    trap_steps: float
    choices: float
    link_turns: float
    unknown_share: float
    steps: int
    stalled: int
    verifications: int

    def metrics(self) -> dict:
        """The metrics a level stores, rounded to 4 decimals (``difficulty`` is added by
        :func:`difficulty_score`)."""
        out = asdict(self)
        return {k: round(out[k], 4) for k in ("fatal_share", "trap_steps", "choices", "link_turns",
                                                "unknown_share")}


def _key(a: Cell, b: Cell) -> tuple[Cell, Cell]:
    return (a, b) if a < b else (b, a)


def _after(pool: list[Order], m: tuple[Cell, Cell], board: Board, rules: Rules) -> list[Order]:
    """The witnesses of ``pool`` carried over to ``board``, the board after playing ``m``
    (see the module docstring): without gravity, a witness that has ``m`` as a pair, without
    it; one that pairs ``m``'s tiles with others, with those partners paired together and
    put in order by :func:`llkgen.analysis.advice.greedy_order` (kept only if that clears the board).
    Under gravity nothing carries over."""
    if rules.gravity != Gravity.NONE:
        return []
    out = []
    for order in pool:
        pairs, swapped = repartnered(order, *m)
        carried = greedy_order(board, rules, pairs) if swapped else pairs
        if carried is not None:
            out.append(carried)
    return out


def grade(board: Board, rules: Rules, *, playthroughs: int = PLAYTHROUGHS, nodes: int = GRADE_NODES,
          seed: int = 0, witness: Order | None = None) -> Grade:
    """Play ``playthroughs`` seeded safe playthroughs of ``board`` and measure them.
    ``witness`` is an optional removal order known to clear ``board`` (a verifier's certified
    witness): it seeds the witness pool, so labelling starts with its pairs known safe."""
    budget = Budget(nodes=nodes)
    steps = stalled = verifications = 0
    fatal_sum = unknown_sum = choices_sum = 0.0
    traps = turns = played = 0
    for k in range(playthroughs):
        rng = np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(GRADE_KEY, k)))
        current = board
        pool: list[Order] = [list(witness)] if witness else []
        fatal: dict[tuple[Cell, Cell], RawLabel] = {}
        while not current.is_cleared():
            moves = removable_pairs(current, rules)
            raw, spent = _label(current, rules, budget, moves, pool, fatal)
            verifications += spent
            n = len(moves)
            n_fatal = sum(r.label == FATAL for r in raw)
            steps += 1
            choices_sum += n
            if n:
                fatal_sum += n_fatal / n
                unknown_sum += sum(r.label == UNDECIDED for r in raw) / n
            traps += n_fatal > 0
            safe = [i for i, r in enumerate(raw) if r.label == SAFE]
            if not safe:
                stalled += 1
                break
            i = safe[int(rng.integers(len(safe)))]
            m: Move = moves[i]
            turns += len(m.path) - 2
            played += 1
            chosen = raw[i].order
            assert chosen is not None  # a safe label carries its witness
            current = play(current, rules, m.a, m.b)
            pool = [chosen] + _after(pool, (m.a, m.b), current, rules)[:POOL - 1]
    return Grade(
        fatal_share=fatal_sum / steps if steps else 0.0,
        trap_steps=traps / playthroughs,
        choices=choices_sum / steps if steps else 0.0,
        link_turns=turns / played if played else 0.0,
        unknown_share=unknown_sum / steps if steps else 0.0,
        steps=steps, stalled=stalled, verifications=verifications,
    )


def _label(board: Board, rules: Rules, budget: Budget, moves: list[Move], pool: list[Order],
           fatal: dict) -> tuple[list[RawLabel], int]:
    """Labels for ``moves``: pairs already proved fatal this playthrough (gravity none) keep
    their label; the rest go to a :class:`Labeller` seeded with every witness of ``pool``.
    Returns the labels and the verifications spent."""
    labeller = Labeller(board, rules, budget)
    todo = [i for i, m in enumerate(moves) if _key(m.a, m.b) not in fatal]
    sub = [moves[i] for i in todo]
    got = labeller.label(sub, pool[0] if pool else None, extra=pool[1:])
    pool[1:1] = labeller.found  # newest after the first, so the cap keeps them
    out: list[RawLabel | None] = [fatal.get(_key(m.a, m.b)) for m in moves]
    for i, r in zip(todo, got):
        out[i] = r
        if r.label == FATAL and rules.gravity == Gravity.NONE:
            fatal[_key(moves[i].a, moves[i].b)] = r
    return [r for r in out if r is not None], labeller.verifications


#: The difficulty score's parts: ``(metric, weight)``. Each part is scaled to 0..1 by
#: :func:`score_parts`; the score is 100 x the weighted sum. Calibrated on the shipped specs
#: (docs/difficulty.md shows the distributions).
WEIGHTS = (
    ("random_clear_rate", 35),
    ("fatal_share", 15),
    ("trap_steps", 5),
    ("choices", 5),
    ("link_turns", 5),
    ("pairs", 35),
)

#: Where a part saturates: a fatal share of 10% or more, traps at a quarter of the steps, 100
#: pairs; fewer than 2 choices a step is the hardest, 10 or more the easiest.
FATAL_FULL = 0.10
TRAPS_FULL = 0.25
PAIRS_FULL = 100
CHOICES_EASY, CHOICES_HARD = 10.0, 2.0


def _clamp(x: float) -> float:
    return 0.0 if x < 0 else 1.0 if x > 1 else x


def score_parts(metrics: dict, pairs: int) -> dict[str, float]:
    """Each part of the score on 0..1, 1 the hardest: ``1 - random_clear_rate``; the fatal
    share over :data:`FATAL_FULL`; the share of steps with a trap (``trap_steps / pairs``)
    over :data:`TRAPS_FULL`; how far ``choices`` is below :data:`CHOICES_EASY`, down to
    :data:`CHOICES_HARD`; ``link_turns / 2``; and the level's length, ``pairs`` over
    :data:`PAIRS_FULL`."""
    return {
        "random_clear_rate": _clamp(1.0 - metrics["random_clear_rate"]),
        "fatal_share": _clamp(metrics["fatal_share"] / FATAL_FULL),
        "trap_steps": _clamp(metrics["trap_steps"] / max(pairs, 1) / TRAPS_FULL),
        "choices": _clamp((CHOICES_EASY - metrics["choices"]) / (CHOICES_EASY - CHOICES_HARD)),
        "link_turns": _clamp(metrics["link_turns"] / 2),
        "pairs": _clamp(pairs / PAIRS_FULL),
    }


def difficulty_score(metrics: dict, pairs: int) -> float:
    """The single difficulty number, 0..100 rounded to one decimal: 100 x the weighted sum of
    :func:`score_parts` with :data:`WEIGHTS`. ``metrics`` holds ``random_clear_rate`` and the
    :class:`Grade` metrics; ``pairs`` is the level's tile count / 2."""
    parts = score_parts(metrics, pairs)
    return round(sum(w * parts[k] for k, w in WEIGHTS), 1)


def score_bounds(random_clear_rate: float, pairs: int) -> tuple[float, float]:
    """The lowest and highest score a level can get once its random clear rate and size are
    known, before the (costlier) grading: the graded parts range over 0..1. The generator
    rejects a candidate whose bounds miss the score window without grading it."""
    known = {"random_clear_rate": _clamp(1.0 - random_clear_rate), "pairs": _clamp(pairs / PAIRS_FULL)}
    fixed = sum(w * known[k] for k, w in WEIGHTS if k in known)
    free = sum(w for k, w in WEIGHTS if k not in known)
    return round(fixed, 1), round(fixed + free, 1)
