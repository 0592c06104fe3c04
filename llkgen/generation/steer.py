"""Steering a level's candidates towards its score window, so that a ramp aims instead of
drawing deals blindly.

Why: a shuffled deal's score spreads over the whole scale. On the shipped ramp's board
(8x12, 24 types x 4), 150 deals measured 0 at the 5th percentile, 28 at the median, 60 at the
75th and 97 at the 95th, so a window 10 points wide takes about one deal in ten, and a
blind ramp about 20 candidates a kept level.

The construction's parameter is how many tiles of the candidate closest to the target so far
are swapped to make the next one (a swap exchanges two side-by-side tiles of different types).
Measured on that board, children of deals scoring 15 to 75, scores at precision 2: one swap of
neighbours moves the score by a median of 5.6 points (correlation 0.83 with the parent, 32
children of 8 deals), where one swap of any two tiles moves it by 11.6 (0.43, 40 of 10): a
local swap is the smaller step. Over several swaps of any two tiles the median move grew about
as the square root of the swaps (4.8, 7.9, 15 points at 1, 2, 4 swaps, from deals of any
score), until a child is as far from its parent as an unrelated deal (correlation 0.37 at 8).
A child's score is heavy-tailed around its parent's all the same (a fifth of them move by more
than 20 points): one swap can make or break a lock.

The fit, as the run goes: the step of one swap is the median of ``|child - parent| /
sqrt(swaps)`` over the children screened so far in this level, with :data:`PRIOR_STEP` counted
as :data:`PRIOR_WEIGHT` of them. The next candidate is the closest so far with ``ceil((d /
step)^2)`` swaps, ``d`` its distance from the target: a child then lands about as far from
its parent as the parent is from the target, on either side. Beyond :data:`MAX_SWAPS` it is a
new deal instead: a child that far is no nearer than one; so is the next candidate after
:data:`PATIENCE` in a row that came no closer. Scores are the screenings'
(:func:`llkgen.analysis.difficulty.screen`), coarse where it stopped early, corrected by a
fresh measurement where there is one (:meth:`Steering.remeasured`): enough to steer.

Determinism: the swaps draw from the level's generator (the one that deals), and the scores
are functions of the candidates and the level's seed, so a level is still a function of
``(spec, index)`` at any ``--jobs``.

What it does not do: steer a ``constructive`` level (a swap would break the construction's
claimed order) or a target other than a score window (a tier, a clear-rate or predicted
clear-rate window): those draw as before.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Callable

import numpy as np

from llkgen.game.board import Board

#: The step of one swap, in score points, before this level has measured any: the median
#: measured on the shipped ramp's board for a swap of neighbours (module docstring).
PRIOR_STEP = 5.6
#: How many children the prior counts as.
PRIOR_WEIGHT = 3
#: The most swaps a child gets; further from the target, a new deal (module docstring).
MAX_SWAPS = 6
#: After this many candidates in a row that come no closer, the closest so far is dropped and a
#: new deal starts the search again. Without it a run can stay on one board whose score was
#: measured low by chance: one level of the shipped ramp made 60 children of a board screened
#: at 36 (target 25) whose children scored 45 to 50. On the shipped ramp (72 levels, ladder
#: playthroughs per kept level in full measurements) 3 gave 2.65, 6 gave 2.52, 10 gave 2.30.
PATIENCE = 10


def aim(low: float | None, high: float | None) -> float:
    """The score a window aims at: its centre, an open side taken at 0 or 100."""
    return ((0.0 if low is None else low) + (100.0 if high is None else high)) / 2


def swapped(board: Board, swaps: int, rng: np.random.Generator) -> Board:
    """``board`` with ``swaps`` pairs of neighbouring tiles of different types exchanged, each
    drawn from ``rng``: a pair of side-by-side tile cells uniformly among those whose types
    differ. Types, walls and empty cells keep their counts and places; a board with no such
    pair is returned as it is."""
    rows, cols = board.rows, board.cols
    cells = list(board.cells)
    for _ in range(swaps):
        pairs = [(i, j) for i, v in enumerate(cells) if v > 0
                 for j in ((i + 1) if (i + 1) % cols else -1, i + cols) if 0 <= j < rows * cols
                 and cells[j] > 0 and cells[j] != v]
        if not pairs:
            break
        a, b = pairs[int(rng.integers(len(pairs)))]
        cells[a], cells[b] = cells[b], cells[a]
    return Board(rows, cols, tuple(cells))


@dataclass
class Steering:
    """The fit of one level's run: the candidate closest to ``target`` so far, and how far the
    children measured so far moved from their parents (module docstring)."""

    target: float
    best: Board | None = None
    best_score: float = math.nan
    #: ``|child - parent| / sqrt(swaps)`` of each child screened.
    steps: list[float] = field(default_factory=list)
    #: The parent and swaps of the candidate being made (``None``: a new deal).
    _pending: tuple[float, int] | None = None
    #: Candidates since the closest so far that came no closer.
    _misses: int = 0

    def step(self) -> float:
        """The fitted step of one swap: the median of the children's and the prior's."""
        return float(np.median(self.steps + [PRIOR_STEP] * PRIOR_WEIGHT))

    def swaps(self) -> int:
        """The swaps the next candidate gets from the closest so far; 0: a new deal."""
        if self.best is None:
            return 0
        k = math.ceil((abs(self.best_score - self.target) / self.step()) ** 2)
        return max(1, k) if k <= MAX_SWAPS else 0

    def next_board(self, deal: Callable[[], Board], rng: np.random.Generator) -> Board:
        """The next candidate: a new ``deal()`` when :meth:`swaps` says so, else the closest so
        far with that many swaps drawn from ``rng``."""
        k = self.swaps()
        if k == 0 or self.best is None:
            self._pending = None
            return deal()
        self._pending = (self.best_score, k)
        return swapped(self.best, k, rng)

    def record(self, board: Board, score: float) -> None:
        """The screened score of the candidate :meth:`next_board` made last."""
        if self._pending is not None:
            parent, k = self._pending
            self.steps.append(abs(score - parent) / math.sqrt(k))
            self._pending = None
        if self.best is None or abs(score - self.target) < abs(self.best_score - self.target):
            self.best, self.best_score, self._misses = board, score, 0
        else:
            self._misses += 1
            if self._misses >= PATIENCE:  # stuck: start again from a new deal
                self.best, self.best_score, self._misses = None, math.nan, 0

    def remeasured(self, board: Board, score: float) -> None:
        """A precise score of a candidate already recorded (its fresh measurement, on a stream
        of its own: steering by it cannot select a kept level's numbers). When that candidate
        is the closest so far, its score is corrected, and a closer one may take its place."""
        if board is self.best:
            self.best_score = score


__all__ = ["PRIOR_STEP", "PRIOR_WEIGHT", "MAX_SWAPS", "Steering", "aim", "swapped"]
