"""Why a dead board is dead, for a designer: which tiles block each locked tile from ever
linking (minimum vertex cuts, by max-flow), and the pairing proof if there is one.

Nothing here decides a verdict: it explains one the verifier reached. Gravity ``none`` only:
under gravity tiles move, so a cut of cells says nothing.
"""

from __future__ import annotations

import dataclasses
import time

from llkgen.formats.level import cells_json, move_json
from llkgen.game.board import EMPTY, WALL, Board, Cell, Gravity, Rules
from llkgen.verifier.maxflow import INF, FlowNetwork
from llkgen.verifier.pairing_check import PairingAnalysis
from llkgen.verifier.verdict import OutOfBudget, Verdict


def require_tile(board: Board, cell: Cell, name: str) -> Cell:
    rc = tuple(cell) if isinstance(cell, (tuple, list)) else ()
    if len(rc) != 2 or not all(type(x) is int for x in rc) or not board.in_bounds(rc) \
            or board[rc] <= 0:
        raise ValueError(f"{name}: expected a tile cell on the {board.rows}x{board.cols} "
                         f"board, found {cell!r}")
    return rc

class GridNetwork:
    """The board as a node-split flow network: cell i has nodes 2i (in) and 2i+1 (out).

    Cells are numbered on the board framed by the ring, ``(r + 1) * (cols + 2) + c + 1``.
    in -> out costs 1 for a tile and INF for an empty cell or (border) ring cell; walls,
    and the ring without border, get no arcs, so no path can use them.  Neighbours are
    joined out -> in with INF, so every finite cut consists of tiles only.
    """

    def __init__(self, board: Board, rules: Rules):
        self.w = w = board.cols + 2
        self.net = FlowNetwork(2 * w * (board.rows + 2))
        lo = -1 if rules.border else 0
        free = {}
        for r in range(lo, board.rows - lo):
            for c in range(lo, board.cols - lo):
                v = board[r, c] if board.in_bounds((r, c)) else EMPTY
                if v != WALL:
                    free[(r, c)] = v
        for (r, c), v in free.items():
            i = self.index((r, c))
            self.net.add_edge(2 * i, 2 * i + 1, 1 if v > 0 else INF)
            for n in ((r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1)):
                if n in free:
                    self.net.add_edge(2 * i + 1, 2 * self.index(n), INF)

    def index(self, cell: Cell) -> int:
        return (cell[0] + 1) * self.w + cell[1] + 1

    def bottleneck(self, a: Cell, b: Cell) -> tuple[Cell, ...] | None:
        res = self.net.max_flow(2 * self.index(a) + 1, 2 * self.index(b))
        if res.value >= INF:
            return ()
        if res.value == 0:
            return None
        cut = (divmod(u // 2, self.w) for u, _, _ in res.cut_edges)
        return tuple(sorted((r - 1, c - 1) for r, c in cut))

def bottleneck(board: Board, rules: Rules, a: Cell, b: Cell) -> tuple[Cell, ...] | None:
    """A smallest set of tiles at least one of which must be removed before ``a`` and ``b``
    can ever link (gravity ``none`` only; other gravities raise ``ValueError``).

    Returns the cells sorted row-major; ``()`` when a path of empty (or ring) cells already
    joins them (they may still need more than two turns); ``None`` when walls alone separate
    them, so no removals ever let them link.

    Soundness: any linking line is a 4-connected path whose inner cells are empty at that
    moment.  The cut meets every path from ``a`` to ``b`` through non-wall cells, and all its
    cells are tiles, so one of them must be gone by then; without gravity tiles never move,
    so "gone" means removed.  Minimal by max-flow/min-cut (Menger): that many tile-disjoint
    paths exist.  Of all minimum cuts it returns the one nearest ``a`` (deterministic).
    """
    if rules.gravity != Gravity.NONE:
        raise ValueError(f"bottleneck needs gravity 'none', found {rules.gravity!r}: tiles move")
    a, b = require_tile(board, a, "a"), require_tile(board, b, "b")
    if a == b:
        raise ValueError(f"a and b must differ, both are {a}")
    return GridNetwork(board, rules).bottleneck(a, b)

def explain_locked(board: Board, rules: Rules, locked_cells, *,
                   deadline: float | None = None) -> dict:
    """For a designer: what keeps each locked tile from linking, as JSON-ready data.

    For every locked tile, the partner of its type with the smallest ``bottleneck`` (ties:
    row-major) and that cut, as ``{"pair": [locked, partner], "bottleneck": [cell, ...]}`` (the
    pair shaped as a move, :func:`llkgen.formats.level.move_json`); per type, the union of those cuts as
    ``blockers``: ``{"type", "blockers", "pairs"}``.  A cut is ``[]`` when the pair is already
    joined by free cells and ``null`` when walls separate it.
    ``proof`` is ``pairing_check``'s proof, if any.  Under gravity nothing is computed and
    ``applicable`` is false.  Raises ``ValueError`` if a locked cell is not a tile.

    ``complete`` is true when every locked tile was explained and the pairing check ran to
    the end.  Past ``deadline`` (a ``time.perf_counter()`` value) it stops and returns what it
    has: the types whose every locked tile was explained, ``proof`` null, ``complete`` false
    and ``reason`` saying so.  The clock is read before each cut (one max-flow: about 0.1 s
    on a 64x64 board) and throughout the pairing check.
    """
    if rules.gravity != Gravity.NONE:
        return {"applicable": False, "complete": True,
                "reason": f"gravity {rules.gravity!r} moves tiles", "types": [], "proof": None}
    locked = sorted({require_tile(board, cell, "locked cell") for cell in locked_cells})
    kinds = sorted({board[cell] for cell in locked})

    def stopped(done: list) -> dict:
        return {"applicable": True, "complete": False,
                "reason": f"time budget ran out: {len(done)} of {len(kinds)} locked types "
                          "explained, no pairing proof", "types": done, "proof": None}

    def late() -> bool:
        return deadline is not None and time.perf_counter() > deadline

    if late():
        return stopped([])
    grid = GridNetwork(board, rules)
    by_type = board.types()
    out: list[dict] = []
    for kind in kinds:
        pairs: list[dict] = []
        blockers: set[Cell] = set()
        for a in (cell for cell in locked if board[cell] == kind):
            options = []
            for b in by_type[kind]:
                if b != a:
                    if late():
                        return stopped(out)
                    options.append((grid.bottleneck(a, b), b))
            cut, b = min(options, key=lambda o: (o[0] is None, len(o[0] or ()), o[0] or (), o[1]))
            blockers.update(cut or ())
            pairs.append({"pair": move_json(a, b), "bottleneck": None if cut is None else cells_json(cut)})
        out.append({"type": kind, "blockers": cells_json(sorted(blockers)), "pairs": pairs})
    try:
        pairing = PairingAnalysis(board, rules, deadline)
        pairing.derive()
        proof = pairing.matching_proof()
    except OutOfBudget:
        return {**stopped(out), "reason": "time budget ran out during the pairing check: "
                                          "every locked type explained, no pairing proof"}
    return {"applicable": True, "complete": True, "reason": "", "types": out,
            "proof": None if proof is None else proof.to_json()}


def explain_verdict(verdict: Verdict, board: Board, rules: Rules, seconds: float | None = None) -> Verdict:
    """Add the designer's explanation to an ``unsolvable`` verdict whose proof names locked
    tiles (gravity ``none``): the proof's ``bottlenecks``, the :func:`explain_locked` types,
    and its ``bottlenecks_incomplete``, the reason, when the time ran out first.
    ``seconds`` is the whole budget the caller gave the verification: the explanation gets
    what the verifier left of it (its ``time_ms`` says how much it used). Returns a new
    verdict; any other verdict is returned as it is."""
    proof = verdict.proof
    if proof is None or not proof.locked or rules.gravity != Gravity.NONE:
        return verdict
    deadline = None if seconds is None else (
        time.perf_counter() + max(0.0, seconds - verdict.stats.get("time_ms", 0.0) / 1000))
    explained = explain_locked(board, rules, proof.locked, deadline=deadline)
    proof = dataclasses.replace(proof, bottlenecks=tuple(explained["types"]),
                                bottlenecks_incomplete=None if explained["complete"] else explained["reason"])
    return dataclasses.replace(verdict, proof=proof)
