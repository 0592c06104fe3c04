"""Boards that are solvable by construction: play forward, then write the types back.

:func:`play_forward` starts from any board, plays random removable pairs until no tile is
left -- reshuffling the remaining tiles among the cells they occupy whenever no pair is
removable -- and then writes each removed pair's type back into the two cells where those
tiles *started*. Why the removal order then replays on the rewritten board: which cells are
occupied after each move depends only on which cells were emptied (gravity moves tiles by
occupancy, never by type), and whether two cells link depends only on occupancy; so the same
cell moves are legal paths on both boards, and on the rewritten board the two tiles of move
``k`` are exactly the two that carry move ``k``'s type.

The rewritten board keeps the start's walls, empty cells and type counts (each removed pair
carries one type twice), so the generator (a random deal) and :func:`llkgen.analysis.reshuffle.reshuffle`
(the tiles still on a player's board) share it. The order is only *claimed* to clear the
board: callers replay it through the referee and certify the board with the verifier.
"""

from __future__ import annotations

from llkgen.game.board import EMPTY, Board, Cell, Rules
from llkgen.game.playout import Playout

#: Consecutive reshuffles tried when the forward play is stuck before it gives up on that
#: start. A reshuffle only has to give one linkable pair of cells equal types. Measured on
#: the shipped hard and gravity specs: about 1.5 reshuffles per whole construction (30 boards
#: each), so the cap only matters on layouts where the remaining tiles can never link.
MAX_RESHUFFLES = 64

Order = list[tuple[Cell, Cell]]


def play_forward(start: Board, rules: Rules, rng) -> tuple[Board, Order] | None:
    """A board with ``start``'s occupancy and type counts, built as the module docstring
    says, and its claimed removal order; ``None`` when the play got stuck with tiles that no
    reshuffle could pair. ``rng`` is a numpy Generator: the result is a function of
    ``(start, rules)`` and the generator's state."""
    play = Playout(start, rules, track=True)
    order: Order = []
    origins: list[tuple[int, int, int]] = []  # (start cell a, start cell b, type)
    while play.left:
        options = play.moves()
        tries = 0
        while not options:
            if tries == MAX_RESHUFFLES or not play.any_cells_link():
                return None
            play.reshuffle(rng)
            options = play.moves()
            tries += 1
        p, q = options[int(rng.integers(len(options)))]
        assert play.ident is not None  # track=True keeps it
        origins.append((play.ident[p], play.ident[q], play.g[p]))
        order.append(play.cells((p, q)))
        play.remove(p, q)
    cells = [EMPTY if v > 0 else v for v in start.cells]
    for a, b, t in origins:
        cells[a] = cells[b] = t
    return Board(start.rows, start.cols, tuple(cells)), order
