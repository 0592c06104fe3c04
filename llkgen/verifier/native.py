"""The move search under gravity in C: the optional native search the move search hands over to.

:class:`~llkgen.verifier.movesearch.MoveSearch` runs in Python (compiled by mypyc in a regular
install) with every proof it has: the safe clearings from the top, reach pairing, the lock test
at its root, raced move orders and restarts. On the boards those do not decide quickly (random
full boards under gravity, mostly dead, whose refutation has to visit millions of positions)
what counts is how many positions a second it can visit. ``_gravity_search.c`` is the same
complete depth-first search, written for that alone: tiles as 16-bit cells, each row's and
column's empty cells as one 64-bit mask, a link test of a few bit operations with no object
made, and dead positions kept by the set of tiles removed in a hash table of plain words. The
source argues each part.

Why C, measured: the compiled Python search visits about 75,000 nodes a second on a full 10x16
board under gravity (13 us a node; building the move list is about half of it, and making that
list incremental, as :class:`~llkgen.game.playout.Playout` does, bought nothing: 26 us against
26 us a step); the C search takes 0.45 to 0.6 us a node, about a twenty-fifth of that.
``docs/benchmarks.md`` ("The verifier under gravity") has the sets: on the
eight random 10x16 and 12x18 gravity sets, 20 boards of 120 are left unknown at 10 s, against
44 without it.

It is sound on its own, and tested so (``tests/verifier/test_native_gravity.py``, against the brute-force
oracle on thousands of small boards in every direction, border on and off, with walls, and
unsettled starts): "unsolvable" only when the search has tried every move at every position it
reached (its dead-position table and the safe clearings it plays are argued in the C source);
"solvable" only with a removal order, which :func:`llkgen.verifier.verify` replays through the
referee like every witness.

It is optional. Without a C compiler, or with ``LLKGEN_PURE=1``, it is not built and the
Python search goes on alone: the same verdicts wherever both decide, but on a board that runs
past the handover, a different witness or node count. Under a node budget a build with it
decides every board the Python search alone decides: it gets the whole budget from the root,
and when that runs out the Python search goes on where it paused
(:class:`~llkgen.verifier.movesearch.MoveSearch` argues it; ``tests/verifier/test_handover.py`` holds
it on the real boards past the handover). So the node counts of a board past the handover
depend on whether it is built (:data:`AVAILABLE`, which ``llkgen --version`` reports);
``make``'s verifications stop far below the handover, so its packs do not.
"""

from __future__ import annotations

import importlib
import time
from dataclasses import dataclass
from typing import Any

from llkgen.game.board import Board, Cell, Gravity, Rules
from llkgen.verifier.verdict import Limit, Status


def _load() -> Any:
    try:
        return importlib.import_module("llkgen.verifier._gravity_search")
    except ImportError:  # not built: a pure Python install
        return None


_gravity_search = _load()

#: Whether the C search is built and importable here.
AVAILABLE = _gravity_search is not None

#: The largest board side it takes: a padded row or column must fit in 64 bits.
MAX_SIDE = 62
#: The C search's tile identities are 16-bit.
MAX_TILES = 32_000
#: The memory cap of its table of dead positions, in MiB. Past it the table stops growing:
#: later dead positions are searched again when met, which costs time, never a verdict. A
#: 10-second search of a full 10x16 board records about 4 million positions (24 bytes each).
TABLE_MIB = 256

_GRAVITY = {Gravity.DOWN: 1, Gravity.UP: 2, Gravity.LEFT: 3, Gravity.RIGHT: 4}


@dataclass(frozen=True)
class NativeResult:
    """What the C search concluded: ``status`` is :data:`~llkgen.verifier.verdict.SOLVABLE`
    (``moves`` holds the removal order, cells as on the board at each move),
    :data:`~llkgen.verifier.verdict.UNSOLVABLE` (every reachable position was searched), or
    the :class:`~llkgen.verifier.verdict.Limit` that ran out: a search that stopped has no
    verdict of its own to report, only the limit, so one field names the outcome (both
    enums compare and print as the extension's words). ``recorded`` counts the dead
    positions in its table at the end."""

    status: Status | Limit
    nodes: int
    moves: list[tuple[Cell, Cell]] | None
    recorded: int


def suits(board: Board, rules: Rules) -> bool:
    """Whether the C search is built and takes this board: gravity, sides of at most
    :data:`MAX_SIDE` cells and at most :data:`MAX_TILES` tiles."""
    return (AVAILABLE and rules.gravity in _GRAVITY and board.rows <= MAX_SIDE and board.cols <= MAX_SIDE
            and board.tile_count <= MAX_TILES)


def search(board: Board, rules: Rules, nodes: int | None, deadline: float | None, *,
           table_mib: int = TABLE_MIB, dive: int | None = None, turn: int = 64) -> NativeResult:
    """Search ``board`` under ``rules`` in C, for at most ``nodes`` nodes (None: no limit) and
    until ``time.perf_counter()`` reaches ``deadline`` (None: no limit). Raises
    ``ValueError`` for a board it does not take (see :func:`suits`).

    For the tests: ``table_mib=0`` keeps the table at its first 1,024 slots (so it fills and
    stops recording); ``dive`` is the first order's head start (default: half the tiles plus
    8) and ``turn`` the nodes of each turn of the race, so that small boards reach the race
    and the restarts."""
    if not suits(board, rules):
        raise ValueError("the native gravity search takes boards with gravity, at most "
                         f"{MAX_SIDE} rows and columns and {MAX_TILES} tiles, when built")
    seconds = -1.0 if deadline is None else max(0.0, deadline - time.perf_counter())
    status, count, moves, recorded = _gravity_search.search(
        board.rows, board.cols, board.cells, _GRAVITY[Gravity(rules.gravity)], rules.border,
        -1 if nodes is None else max(0, nodes), seconds, table_mib, -1 if dive is None else dive, turn)
    return NativeResult(_OUTCOMES[status], count,
                        None if moves is None else [(tuple(a), tuple(b)) for a, b in moves], recorded)


#: The extension's words for its outcome (its interface is these strings), as typed values.
_OUTCOMES: dict[str, Status | Limit] = {"solvable": Status.SOLVABLE, "unsolvable": Status.UNSOLVABLE,
                                        "nodes": Limit.NODES, "seconds": Limit.SECONDS}


__all__ = ["AVAILABLE", "MAX_SIDE", "MAX_TILES", "TABLE_MIB", "NativeResult", "suits", "search"]
