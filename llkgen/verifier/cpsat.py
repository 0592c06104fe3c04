"""A CP-SAT model of the elimination order (``gravity: none`` only).

CP-SAT handles only ``gravity: none``: with gravity tiles move, the cells a path crosses are no
longer fixed, and nothing below holds. :func:`solve_cpsat` raises ``ValueError`` under gravity;
the portfolio skips this engine there.

The model
---------
*Pairs.* For every two tiles ``i < j`` of one type we enumerate the *shapes* joining them: every
polyline of at most three straight segments, i.e. horizontal-vertical-horizontal through any
column and vertical-horizontal-vertical through any row of the padded board (straight and
one-turn lines are the degenerate cases), whose interior avoids walls (and the ring when
``border`` is off). A shape is summed up by the set of *tile* cells its interior crosses
(:meth:`llkgen.game.lines.Lines.tile_sets`, the enumeration the flow pairing check shares);
initially empty cells stay empty forever without gravity, so only those tiles matter. Of these
sets we keep the inclusion-minimal ones (a shape whose tiles are a superset of another's is
never needed). A pair with no shape can never link and gets no variable.

*Lock probing* (``build_model(probe=True)``, the default). Before any variable exists, a pair
``P = (i, j)`` is dropped when the lock test (:mod:`llkgen.verifier.lock`) locks some tile once
``i`` and ``j`` may only pair with each other; passes repeat until nothing changes (see
:func:`_probe_pairs`). This is what decides most unsolvable full boards: CP-SAT alone learns
the same facts only through slowly rising time bounds.

*Variables.* ``x[P]`` (pair ``P`` is removed together), ``s[P,k]`` (pair ``P`` uses its
``k``-th shape), ``t[i]`` in ``[0, n/2 - 1]`` (the step at which tile ``i`` goes) and, per pair
``P`` and tile ``y`` on some but not every shape of ``P``, ``b[y,P]`` ("y goes before P").

*Constraints.*

1. every tile has exactly one partner: ``sum x[P] over P containing i == 1``;
2. a chosen pair picks exactly one shape: ``sum_k s[P,k] == x[P]``;
3. partners go together: ``x[P] => t[i] == t[j]``;
4. precedence: ``s[P,k] => b[y,P]`` for ``y`` in shape ``k``, and ``b[y,P] => t[y] < t[i]``;
   a tile on *every* shape of ``P`` (the mandatory set) gets ``x[P] => t[y] < t[i]`` directly, a
   redundant cut that propagates before any shape is chosen;
5. two-cycle cut: ``P`` is *blocked by* ``Q`` when every shape of ``P`` crosses a tile of
   ``Q``; if each blocks the other, ``not x[P] or not x[Q]`` (implied by 4, but learnt only
   slowly through the time bounds);
6. symmetry breaking: a pair with a shape crossing no tile (then that is its only minimal
   shape) goes at step 0: ``x[P] => t[i] == 0``.

*Search.* One worker, ``FIXED_SEARCH`` on ``t`` (lowest minimum first, smallest value), i.e.
"the tile that can go earliest goes now", and no LP relaxation.

Decoding sorts the chosen pairs by ``t`` (ties broken by the cells, row-major); ties never
matter, because precedence between pairs is always strict.

Why ``INFEASIBLE`` proves the board unsolvable (the model is exact, not a relaxation)
-------------------------------------------------------------------------------------
Take any real clearing sequence ``m_0, ..., m_{K-1}``. Its pairs survive lock probing (a pair
is dropped only when no solution uses it). Set ``x[P] = 1`` for its pairs and ``t`` = the
index of the move removing each tile. Move ``m_k`` was legal, so some polyline of at most two
turns joined its tiles with every interior cell empty at that moment: no wall, no ring cell
when ``border`` is off, and every tile cell it crosses removed by an earlier move, i.e. at a
step ``< k``. That polyline is one of the enumerated shapes (the enumeration takes every
column and every row for the middle segment, so it holds every polyline of at most three
segments), and some kept minimal shape has a subset of its tiles; choose it and set
``b[y,P] = 1`` exactly for its tiles. Constraints 1-4 hold. For 6, move every pair whose
chosen shape crosses no tile to step 0: such a pair waits for nobody, and lowering its time
only helps the constraints in which its tiles precede others; 1-4 still hold. Constraint 5 is
implied by 4. So every solvable board has a feasible model, and INFEASIBLE means no clearing
sequence exists. (Lock probing leans on the soundness argument of :mod:`llkgen.verifier.lock`;
``tests/verifier/test_cpsat.py`` sweeps the model with probing off as well, against brute force.)

Conversely (why a FEASIBLE answer is a real solution): sorting by ``t``, each pair's chosen
shape crosses only tiles with a smaller ``t``, all already removed (each tile exactly once, by
1), the pair's own tiles are still present, and the other interior cells are empty from the
start and not walls; so the shape is a legal path at that moment and ``replay`` accepts the
order. The callers replay it anyway (:func:`llkgen.verifier.verify`, the tests).

Determinism and budgets
-----------------------
One worker, a fixed ``random_seed`` and a deterministic-time limit make a run reproducible on
any machine: with a node budget alone, building the model (shapes, probing) reads no clock and
CP-SAT stops on its deterministic clock. A wall-clock limit is only used when the caller asks
for seconds or passes a deadline, and then the verdict can depend on machine load. Then the
whole of :func:`solve_cpsat` holds it: model building reads the clock between pairs and probes,
ortools is not even imported for the last second, CP-SAT is started only if its start-up
(loading and presolve, which do not read its time limit) fits in what is left, and it gets
only that. ``stats["stopped_by"]`` says which budget ended an ``unknown``.

ortools is imported only inside the functions that build or solve a model, so importing this
module (and :mod:`llkgen.verifier`) costs nothing when CP-SAT does not run.
"""

from __future__ import annotations

import sys
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Sequence

from llkgen.game.board import WALL, Board, Cell, Gravity, Rules
from llkgen.game.grid import Grid, Pair
from llkgen.game.lines import Lines
from llkgen.verifier.lock import locked_tiles
from llkgen.verifier.verdict import SOLVABLE, UNKNOWN, UNSOLVABLE, Budget, Limit, OutOfBudget

if TYPE_CHECKING:  # ortools costs 0.4-0.8 s to import: only the functions that solve load it
    from ortools.sat.python import cp_model

__all__ = ["build_model", "solve_model", "solve_cpsat", "budget_limits", "pair_shapes",
           "CpsatHandles", "CpsatResult", "NODES_PER_DET_SECOND", "DEFAULT_SEED",
           "STARTUP_PER_CONSTRUCT_SECOND", "ORTOOLS_IMPORT_SECONDS", "cpsat_suits"]

#: How ``Budget.nodes`` becomes a CP-SAT deterministic limit: ``nodes / NODES_PER_DET_SECOND``
#: deterministic seconds, so the default 200 000 nodes give 200. Measured on full 10x16 boards
#: (a shared 2-core machine, so ratios only): one deterministic second of this model's search
#: took 6-10 CPU seconds, 1000 pairing-search nodes 12-25; the ratio only keeps the two
#: budgets of the same order.
NODES_PER_DET_SECOND = 1000
DEFAULT_SEED = 0

#: CP-SAT reads its time limit only between phases: loading the model and presolving it can
#: outlast a short limit (a 0.5 s limit took 3 s on a full 8x10 board with 2 types x 40).
#: That start-up grows with the model, like the Python time that made the model's variables
#: and constraints: measured, 0.12-0.17 of it at a 1 ms limit and up to about 0.4 with the
#: presolve, on 8x10, 12x12 and 16x16 boards. So :func:`solve_cpsat` starts CP-SAT only when
#: the time left is at least this multiple of that construction time, and otherwise returns
#: unknown at once. Re-measure if the solver parameters change.
STARTUP_PER_CONSTRUCT_SECOND = 1.0

#: Importing ``ortools.sat.python.cp_model`` takes 0.4-0.8 s (it pulls in numpy and pandas).
#: A deadline closer than this is not worth the import: :func:`build_model` stops instead.
ORTOOLS_IMPORT_SECONDS = 1.0
_CP_MODEL = "ortools.sat.python.cp_model"



@dataclass
class CpsatHandles:
    """What :func:`solve_model` needs to read a solution back: tile cells, pair literals
    and tile times, in a fixed order."""

    cells: list[Cell]
    pairs: list[Pair]  # tile indices, i < j, in the order of ``x``
    x: list[cp_model.IntVar]
    t: list[cp_model.IntVar]
    shapes: list[list[frozenset[int]]]  # per pair, the minimal crossed-tile sets
    stats: dict = field(default_factory=dict)
    #: wall-clock seconds spent making the CP-SAT variables and constraints (not the shapes
    #: nor the probing): what :func:`solve_cpsat` scales to foresee CP-SAT's start-up cost
    construct_seconds: float = 0.0


@dataclass
class CpsatResult:
    """``status`` is ``solvable``/``unsolvable``/``unknown``; ``order`` the removal order
    (cells) when solvable, else None; ``stats`` the solver's deterministic counters."""

    status: str
    order: list[tuple[Cell, Cell]] | None
    stats: dict


def pair_shapes(lines: Lines, pa: int, pb: int, tile_index: dict[int, int]) -> list[frozenset[int]]:
    """The inclusion-minimal sets of tiles (indices via ``tile_index``) crossed by the
    polylines of at most two turns joining padded cells ``pa`` and ``pb`` that avoid walls,
    sorted by (size, sorted members). Empty list: the pair can never link.

    The lines are :meth:`llkgen.game.lines.Lines.tile_sets`; a line whose tiles include another
    line's is never needed (whenever it is clear, so is the other), hence minimality."""
    minimal: list[int] = []
    for m in sorted(lines.tile_sets(pa, pb), key=int.bit_count):
        if not any(k & m == k for k in minimal):
            minimal.append(m)
    sets = []
    for m in minimal:
        members = []
        while m:
            low = m & -m
            members.append(tile_index[low.bit_length() - 1])
            m ^= low
        sets.append(frozenset(members))
    return sorted(sets, key=lambda s: (len(s), sorted(s)))


def _probe_pairs(grid: Grid, pos: Sequence[int], pairs: Sequence[Pair],
                 deadline: float | None = None) -> list[int]:
    """Indices of the ``pairs`` that survive lock probing, in order.

    Pair ``P = (i, j)`` is dropped when the lock test (:mod:`llkgen.verifier.lock`) locks some
    tile once ``i`` and ``j`` may only pair with each other and no other tile may pair with
    them. The lock test is sound for any partner restriction that every real solution of the
    branch obeys, and every solution that uses ``P`` obeys this one; so no solution uses ``P``.
    Dropped pairs leave the partner lists of later probes, which stays sound for the same
    reason (no solution uses them); passes repeat until nothing changes. Restricting partners
    only ever locks more, so the pairs left are the same whatever the order of the probes.

    Cost, not result:

    * if the unrestricted lock test already locks a tile, every probe would, so every pair
      goes at once;
    * each probe replays the unrestricted test's deletion order as its hint
      (:func:`~llkgen.verifier.lock.locked_tiles`), and its partner lists differ from the shared
      ones only around ``i`` and ``j``;
    * a probe that passed is not run again while its deletion order uses no dropped pair: that
      order is still a valid one under the narrower lists, and the fixpoint is unique, so the
      probe would pass again.

    Measured on six 8x10 to 12x12 boards with 2-4 types and 0-30% walls (CPU, best of two,
    alternating with the plain version that rebuilt every partner list from scratch and ran
    every probe on every pass): model building 2.2-6.7x faster, e.g. 2 types x 56 with 20%
    walls, 2316 pairs, 2324 lock tests instead of 6952.

    Past ``deadline`` it raises ``OutOfBudget(Limit.SECONDS)``."""
    alive = list(pos)
    live = list(range(len(pairs)))
    base: dict[int, list[int]] = {p: [] for p in pos}
    pair_of: dict[tuple[int, int], int] = {}
    for k, (i, j) in enumerate(pairs):
        base[pos[i]].append(pos[j])
        base[pos[j]].append(pos[i])
        pair_of[pos[i], pos[j]] = pair_of[pos[j], pos[i]] = k
    root: list = []
    if locked_tiles(grid, alive, base, order=root, deadline=deadline):
        return []
    uses = [-1] * len(pairs)  # pairs the last passing probe's deletion order used, as a mask
    dropped = 0
    changed = True
    while changed:
        changed = False
        for k in list(live):
            if uses[k] >= 0 and not uses[k] & dropped:
                continue
            _check_clock(deadline)  # a replayed probe never reaches the lock test's own check
            i, j = pairs[k]
            pi, pj = pos[i], pos[j]
            partners = dict(base)
            partners[pi], partners[pj] = [pj], [pi]
            for q in base[pi] + base[pj]:
                if q != pi and q != pj:
                    partners[q] = [r for r in partners[q] if r != pi and r != pj]
            order: list = []
            if locked_tiles(grid, alive, partners, hint=root, order=order, deadline=deadline):
                live.remove(k)
                base[pi].remove(pj)
                base[pj].remove(pi)
                dropped |= 1 << k
                changed = True
            else:
                mask = 0
                for p, q, _ in order:
                    mask |= 1 << pair_of[p, q]
                uses[k] = mask
    return live


def _check_clock(deadline: float | None) -> None:
    if deadline is not None and time.perf_counter() > deadline:
        raise OutOfBudget(Limit.SECONDS)


def _add_hint(model: cp_model.CpModel, cells: list[Cell], pairs: list[Pair],
              shapes: list[list[frozenset[int]]], x: list, t: list, shape_lits: list[list],
              befores: list[dict], hint: Sequence[tuple[Cell, Cell]]) -> None:
    """Hint the assignment a removal order (or its prefix) implies, made consistent with the
    model: the longest prefix whose every move has a shape crossing only tiles removed
    before it, with earliest-start times (0 with no crossed tile, else one more than the
    latest crossed tile; what constraint 6 wants) and the pairs clashing with it hinted false.
    CP-SAT drops hints that conflict, so an inconsistent hint would be wasted."""
    index = {c: i for i, c in enumerate(cells)}
    pair_index = {pr: k for k, pr in enumerate(pairs)}
    when: dict[int, int] = {}
    chosen: set[int] = set()
    for a, b in hint:
        ia, ib = index.get((a[0], a[1])), index.get((b[0], b[1]))
        if ia is None or ib is None or ia in when or ib in when:
            break
        k = pair_index.get((min(ia, ib), max(ia, ib)))
        if k is None:
            break
        usable = [(max((when[y] + 1 for y in sh), default=0), m)
                  for m, sh in enumerate(shapes[k]) if all(y in when for y in sh)]
        if not usable:
            break
        step, m = min(usable)
        when[ia] = when[ib] = step
        chosen.add(k)
        model.add_hint(x[k], True)
        model.add_hint(t[ia], step)
        model.add_hint(t[ib], step)
        for m2, lit in enumerate(shape_lits[k]):
            model.add_hint(lit, m2 == m)
        for y, lit in befores[k].items():
            model.add_hint(lit, y in shapes[k][m])
    for k, (i, j) in enumerate(pairs):
        if (i in when or j in when) and k not in chosen:
            model.add_hint(x[k], False)


def build_model(board: Board, rules: Rules, *, probe: bool = True,
                hint: Sequence[tuple[Cell, Cell]] | None = None,
                deadline: float | None = None) -> tuple[cp_model.CpModel, CpsatHandles]:
    """The exact elimination-order model of ``board`` (see the module docstring), and the
    handles to decode it. ``probe`` drops pairs that lock probing rules out (sound; off, the
    model is the bare encoding, which the tests sweep too). ``hint``, a removal order (full or
    a prefix), becomes solution hints (see :func:`_add_hint`); hints steer the search and never
    change feasibility: no hinted value is ever fixed. Past ``deadline`` (a
    ``time.perf_counter()`` value) it raises ``OutOfBudget(Limit.SECONDS)``: the clock is read
    once per pair of tiles and per probe, so the overrun is one lock test at most. ortools is
    imported only once the pure-Python part (shapes, probing) is done, and not at all when
    less than :data:`ORTOOLS_IMPORT_SECONDS` are left for it."""
    if rules.gravity != Gravity.NONE:
        raise ValueError(f"the CP-SAT model handles only gravity none, found {rules.gravity!r}")
    grid = Grid(board, rules)
    lines = Lines(grid)
    cells = board.tiles()
    n = len(cells)
    pos = [grid.pos(c) for c in cells]
    tile_index = {p: i for i, p in enumerate(pos)}

    pairs: list[Pair] = []
    shapes: list[list[frozenset[int]]] = []
    by_type: dict[int, list[int]] = {}
    for i, p in enumerate(pos):
        by_type.setdefault(grid.g[p], []).append(i)
    for tiles in by_type.values():
        for a in range(len(tiles)):
            for b in range(a + 1, len(tiles)):
                _check_clock(deadline)
                i, j = tiles[a], tiles[b]
                sh = pair_shapes(lines, pos[i], pos[j], tile_index)
                if sh:
                    pairs.append((i, j))
                    shapes.append(sh)
    order = sorted(range(len(pairs)), key=lambda k: pairs[k])
    pairs = [pairs[k] for k in order]
    shapes = [shapes[k] for k in order]
    probed_out = 0
    if probe:
        keep = _probe_pairs(grid, pos, pairs, deadline)
        probed_out = len(pairs) - len(keep)
        pairs = [pairs[k] for k in keep]
        shapes = [shapes[k] for k in keep]

    if deadline is not None and _CP_MODEL not in sys.modules:
        _check_clock(deadline - ORTOOLS_IMPORT_SECONDS)
    from ortools.sat.python import cp_model

    construct_start = time.perf_counter()
    model = cp_model.CpModel()
    horizon = max(0, n // 2 - 1)
    t = [model.new_int_var(0, horizon, f"t{i}") for i in range(n)]
    x = [model.new_bool_var(f"x{i}_{j}") for i, j in pairs]
    incident: list[list[int]] = [[] for _ in range(n)]
    for k, (i, j) in enumerate(pairs):
        incident[i].append(k)
        incident[j].append(k)
    for i in range(n):
        model.add_exactly_one(x[k] for k in incident[i])  # an empty sum makes the model infeasible

    mandatory: list[frozenset[int]] = []
    shape_lits: list[list[cp_model.IntVar]] = []
    befores: list[dict[int, cp_model.IntVar]] = []
    precedence_count = 0
    for k, (i, j) in enumerate(pairs):
        _check_clock(deadline)
        sh = shapes[k]
        model.add(t[i] == t[j]).only_enforce_if(x[k])
        must = frozenset.intersection(*sh)
        mandatory.append(must)
        shape_lits.append([])
        befores.append({})
        if not sh[0]:
            model.add(t[i] == 0).only_enforce_if(x[k])
            continue
        for y in sorted(must):
            model.add(t[y] + 1 <= t[i]).only_enforce_if(x[k])
            precedence_count += 1
        if len(sh) == 1:
            continue
        lits = [model.new_bool_var(f"s{k}_{m}") for m in range(len(sh))]
        model.add(sum(lits) == x[k])
        shape_lits[k] = lits
        before = befores[k]
        for y in sorted(frozenset.union(*sh) - must):
            first = model.new_bool_var(f"b{y}_{k}")
            model.add(t[y] + 1 <= t[i]).only_enforce_if(first)
            before[y] = first
            precedence_count += 1
        for lit, s in zip(lits, sh):
            for y in sorted(s - must):
                model.add_implication(lit, before[y])

    # Two-cycle cuts: P is *blocked by* Q when every shape of P crosses a tile of Q; two pairs
    # blocked by each other can never both be played (whichever goes first is blocked).
    cuts = 0
    blocked_by: list[set[int]] = []
    for sh in shapes:
        _check_clock(deadline)
        near: set[int] = set()
        for y in sh[0]:  # a blocker meets every shape, the first one too
            near.update(incident[y])
        blockers = set()
        for q in sorted(near):
            qi, qj = pairs[q]
            if all(qi in s or qj in s for s in sh):
                blockers.add(q)
        blocked_by.append(blockers)
    for k in range(len(pairs)):
        for q in sorted(blocked_by[k]):
            if q > k and k in blocked_by[q]:
                model.add_bool_or([x[k].Not(), x[q].Not()])
                cuts += 1

    # Branch like a player: the tile that can go earliest goes at its earliest step. On full
    # 8x12 boards this found witnesses in about 0.3 deterministic seconds where CP-SAT's
    # default search (with or without the LP) ran out of 5.
    model.add_decision_strategy(t, cp_model.CHOOSE_LOWEST_MIN, cp_model.SELECT_MIN_VALUE)

    if hint:
        _add_hint(model, cells, pairs, shapes, x, t, shape_lits, befores, hint)

    handles = CpsatHandles(cells, pairs, x, t, shapes, {
        "tiles": n, "pairs": len(pairs), "shapes": sum(len(s) for s in shapes),
        "precedences": precedence_count, "cycle_cuts": cuts, "probed_out": probed_out,
    })
    handles.construct_seconds = time.perf_counter() - construct_start
    return model, handles


def solve_model(model: cp_model.CpModel, handles: CpsatHandles, *, max_time: float | None = None,
                deterministic_limit: float | None = 10.0, seed: int = DEFAULT_SEED,
                workers: int = 1) -> CpsatResult:
    """Solve a model from :func:`build_model`.

    OPTIMAL/FEASIBLE -> ``solvable`` with the removal order (cells, sorted by time); INFEASIBLE
    -> ``unsolvable`` (sound: the model is exact, see the module docstring); UNKNOWN ->
    ``unknown`` (a limit was hit, never read as unsolvable), with ``stats["stopped_by"]``
    ``"nodes"`` when the deterministic limit was reached and ``"time"`` otherwise (the
    wall-clock ``max_time``); MODEL_INVALID raises ``RuntimeError`` (a bug in
    :func:`build_model`). With ``workers=1`` and no ``max_time`` the result is reproducible."""
    from ortools.sat.python import cp_model

    solver = cp_model.CpSolver()
    params = solver.parameters
    params.num_workers = workers
    params.random_seed = seed
    params.search_branching = cp_model.FIXED_SEARCH  # follow the model's decision strategy
    params.linearization_level = 0  # the LP relaxation of precedences only slowed the search
    # Light presolve: on full boards CP-SAT's probing and symmetry detection cost 2-3 CPU
    # seconds that the deterministic clock hardly counts, and did not shorten the search
    # (measured on 8x12 and 10x16 boards: witnesses 1.3-3x sooner in CPU time without them).
    params.cp_model_probing_level = 0
    params.symmetry_level = 0
    params.max_presolve_iterations = 1
    if deterministic_limit is not None:
        params.max_deterministic_time = deterministic_limit
    if max_time is not None:
        params.max_time_in_seconds = max_time
    status = solver.solve(model)
    proto = model.proto
    stats = {
        "cpsat_status": solver.status_name(status),
        "branches": solver.num_branches,
        "conflicts": solver.num_conflicts,
        "deterministic_time": round(solver.deterministic_time, 3),
        "vars": len(proto.variables),
        "constraints": len(proto.constraints),
        **handles.stats,
    }
    if status in (cp_model.OPTIMAL, cp_model.FEASIBLE):
        chosen = [k for k, lit in enumerate(handles.x) if solver.boolean_value(lit)]
        cells = handles.cells
        key = {k: (solver.value(handles.t[handles.pairs[k][0]]), handles.pairs[k]) for k in chosen}
        chosen.sort(key=key.__getitem__)
        order = [(cells[handles.pairs[k][0]], cells[handles.pairs[k][1]]) for k in chosen]
        return CpsatResult(SOLVABLE, order, stats)
    if status == cp_model.INFEASIBLE:
        return CpsatResult(UNSOLVABLE, None, stats)
    if status == cp_model.MODEL_INVALID:
        raise RuntimeError(f"internal error: invalid CP-SAT model: {model.validate()}")
    # UNKNOWN says only that some limit was hit. The deterministic clock, when it is the one
    # that ran out, has reached its limit; otherwise it was the wall clock.
    hit_det = deterministic_limit is not None and solver.deterministic_time >= deterministic_limit
    stats["stopped_by"] = "nodes" if hit_det or max_time is None else "time"
    return CpsatResult(UNKNOWN, None, stats)


def budget_limits(budget: Budget) -> tuple[float | None, float | None]:
    """``(deterministic seconds, wall-clock seconds)`` for a :class:`Budget`:
    ``nodes / NODES_PER_DET_SECOND`` deterministic seconds, and ``seconds`` as given."""
    det = None if budget.nodes is None else budget.nodes / NODES_PER_DET_SECOND
    return det, budget.seconds


def solve_cpsat(board: Board, rules: Rules, budget: Budget = Budget(), *,
                hint: Sequence[tuple[Cell, Cell]] | None = None,
                seed: int = DEFAULT_SEED,
                deadline: float | None = None) -> tuple[str, list[tuple[Cell, Cell]] | None, dict]:
    """Decide ``board`` (``gravity: none`` only) with the CP-SAT model.

    Returns ``(status, order, stats)``: ``("solvable", order, ...)`` with a removal order of
    cell pairs that ``replay`` accepts (callers replay it; so do the tests),
    ``("unsolvable", None, ...)`` when CP-SAT proves the exact model infeasible, and
    ``("unknown", None, ...)`` when a budget ran out, ``stats["stopped_by"]`` saying which:
    ``"nodes"`` (the deterministic limit) or ``"time"`` (the seconds). ``stats`` also holds
    ``cpsat_status`` (``"NOT_RUN"`` when time ran out before CP-SAT could start),
    ``branches``, ``conflicts``, ``deterministic_time``, ``vars``, ``constraints`` and model
    sizes, all deterministic.

    The clock: ``deadline`` (a ``time.perf_counter()`` value) and ``budget.seconds`` (counted
    from this call), whichever comes first, bound the whole call: model building and lock
    probing read the clock (see :func:`build_model`), CP-SAT starts only if its start-up fits
    (:data:`STARTUP_PER_CONSTRUCT_SECOND`) and gets only the time left. Measured on five boards
    with 0.5-10 s budgets, the call returned between 1.7 s before and 0.31 s after the
    deadline. ``budget.nodes`` becomes the
    deterministic limit (:func:`budget_limits`); with no seconds and no deadline the verdict is
    the same on every machine. Raises ``ValueError`` under gravity."""
    if rules.gravity != Gravity.NONE:
        raise ValueError(f"the CP-SAT model handles only gravity none, found {rules.gravity!r}")
    if board.is_cleared():
        return SOLVABLE, [], {"cpsat_status": "TRIVIAL", "branches": 0, "conflicts": 0,
                              "deterministic_time": 0.0, "vars": 0, "constraints": 0}
    if budget.seconds is not None:
        own = time.perf_counter() + budget.seconds
        deadline = own if deadline is None else min(deadline, own)
    det, _ = budget_limits(budget)
    not_run = {"cpsat_status": "NOT_RUN", "stopped_by": "time", "branches": 0, "conflicts": 0,
               "deterministic_time": 0.0}
    try:
        model, handles = build_model(board, rules, hint=hint, deadline=deadline)
    except OutOfBudget:
        return UNKNOWN, None, not_run
    left = None if deadline is None else deadline - time.perf_counter()
    if left is not None and left < STARTUP_PER_CONSTRUCT_SECOND * handles.construct_seconds:
        return UNKNOWN, None, {**not_run, **handles.stats}
    result = solve_model(model, handles, max_time=left, deterministic_limit=det, seed=seed)
    return result.status, result.order, result.stats


#: :func:`cpsat_suits`' thresholds; see its docstring for the measurements behind them.
SUITS_MIN_WALL_SHARE = 0.2
SUITS_MAX_TYPES = 4
SUITS_MAX_PAIRS = 3200


def cpsat_suits(board: Board, rules: Rules) -> bool:
    """Whether CP-SAT is worth a second opinion on ``board`` after the search: a cheap,
    deterministic test of board features only (no search, no clock). ``auto`` routes on it.

    True when gravity is none, at least :data:`SUITS_MIN_WALL_SHARE` of the cells are walls,
    the tiles are of at most :data:`SUITS_MAX_TYPES` types, and the same-type pairs number at
    most :data:`SUITS_MAX_PAIRS`. Measured with ``benchmarks/cpsat_bench.py`` (5 s a board
    and engine, 204 seeded boards in two runs; ``docs/benchmarks.md``, "CP-SAT against the search", has the tables):

    * walls >= 20% with 2-4 types (12x12, 20-30% walls, 108 boards): the search alone
      decided 95; handing the rest of the same 5 s over to CP-SAT, worked out per board from
      the two engines' CPU times, decided 103. On the 13 boards the
      search left unknown, CP-SAT with 20 s decided 10. On the boards both decided CP-SAT's
      median was 4-33x the search's in every class, hence the search goes first.
    * walls of 10-15% (28 boards, 4 types): the search decided 26, CP-SAT nothing the search
      did not, and neither of the 2 left unknown in 20 s. Without walls (full and half-full
      8x10 and 10x16 boards with 2-4 types, 40 boards) CP-SAT decided 8, all of them also
      the search's; on the 3 of 40 random 10x16 boards (40 types) the search left unknown,
      CP-SAT decided none in 20 s.
    * 6 types at 20% walls (20 boards): the search decided 19, CP-SAT 3, all also the
      search's, and not the one left in 20 s.
    * the pair bound is a cost bound: building the model took about 1 ms of CPU per
      same-type pair (3.3 s for 3080 pairs), so above 3200 building alone would take most
      of a 5 s budget. No class above it was measured.

    Re-measure when the model, the search or these thresholds change.
    """
    if rules.gravity != Gravity.NONE:
        return False
    counts: dict[int, int] = {}
    walls = 0
    for v in board.cells:
        if v > 0:
            counts[v] = counts.get(v, 0) + 1
        elif v == WALL:
            walls += 1
    if not counts or walls < SUITS_MIN_WALL_SHARE * len(board.cells):
        return False
    pairs = sum(c * (c - 1) // 2 for c in counts.values())
    return len(counts) <= SUITS_MAX_TYPES and pairs <= SUITS_MAX_PAIRS
