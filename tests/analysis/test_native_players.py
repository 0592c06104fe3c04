"""The model players in C (llkgen/analysis/_players.c, through llkgen.analysis.native_players)
against the Python players they stand in for.

A level's clear rates, score and tier must not depend on whether the C players are built, so
they must make the same choices from the same random numbers. Every test here holds a C
playthrough to the Python one move by move: every model, every gravity, border on and off,
walls, unsettled starts, odd type counts and boards with many types, and the shipped specs'
levels. Every recorded move list is replayed by the referee. The seeded sweeps check that both
outcomes occur; the same check under Hypothesis shrinks a failure to a small board, one model
and one run, and reproduces it.
"""

from __future__ import annotations

import random
import shutil
import signal

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import llkgen
from llkgen.analysis import native_players, players
from llkgen.analysis.difficulty import measure
from llkgen.analysis.players import MODELS, PlayRng, clear_rate, model_base, play, playthroughs
from llkgen.game.board import Board, Gravity, Rules
from llkgen.game.gravity import apply_gravity as dropped
from llkgen.game.playout import Playout
from llkgen.game.referee import replay

from strategies import drawn, dropped_board, equivalence, seeded_cases
from timing import Timed

needs_native = pytest.mark.skipif(not native_players.AVAILABLE,
                                  reason="the C players are not built (no C compiler)")


def test_the_c_players_are_built_wherever_a_c_compiler_is():
    """Not a skip in disguise: where a compiler is, the tests below must run."""
    if not native_players.AVAILABLE and (shutil.which("cc") or shutil.which("gcc")):
        pytest.fail("llkgen.analysis._players is not built, though a C compiler is here: "
                    "reinstall (pip install -e .) and read the build log")


def _same(board: Board, rules: Rules, model: str, base: int, k: int) -> bool:
    """Play run ``k`` in Python and in C; assert the same outcome and moves, and that the moves
    replay. Returns whether it cleared."""
    start = Playout(board, rules)
    moves: list = []
    cleared = play(model, start, PlayRng(base, k), record=moves)
    got = native_players.play(start, MODELS.index(model), base, k)
    assert got == (cleared, moves), (model, board, rules, base, k)
    result = replay(board, rules, moves)
    assert result.ok and result.cleared == cleared
    return cleared


@needs_native
@pytest.mark.parametrize("seed", range(4))
def test_c_and_python_players_make_the_same_moves(seed):
    rng = random.Random(f"players/{seed}")
    cleared = failed = 0
    for _ in range(150):
        board, rules = dropped_board(rng, 9, 12, gravities=list(Gravity), odd=0.05,
                                     scales=(1, 1, 7, 1000), more_types=True)
        for model in MODELS:
            if _same(board, rules, model, rng.getrandbits(64), rng.randrange(1000)):
                cleared += 1
            else:
                failed += 1
    # both outcomes are exercised
    assert cleared > 100 and failed > 100, (cleared, failed)


@needs_native
@equivalence(150)
@given(case=drawn(dropped_board, 9, 12, gravities=list(Gravity), odd=0.05, scales=(1, 1, 7, 1000), more_types=True),
       model=st.sampled_from(MODELS), base=st.integers(0, 2**64 - 1), k=st.integers(0, 999))
def test_c_and_python_players_make_the_same_moves_on_drawn_boards(case, model, base, k):
    board, rules = case
    _same(board, rules, model, base, k)


@needs_native
@pytest.mark.parametrize("seed", range(2))
def test_the_c_players_moves_after_a_move_are_listed_afresh(seed):
    # Boards of 64 tiles or more have their moves updated after each move in C rather than
    # listed again: without gravity around the two emptied cells (moves_after), under gravity
    # around the cells the move changed (moves_after_gravity; an unsettled start's first move
    # lists them afresh); Python updates its own (Playout.remove). Bigger boards than above, 2
    # to 18 tiles a type, walls, both borders, every gravity, unsettled starts: the same moves,
    # move by move.
    rng = random.Random(f"incremental/{seed}")
    sizes = 0
    for i in range(20):
        rows, cols = rng.randint(10, 20), rng.randint(10, 20)
        cells = [0] * (rows * cols)
        room = list(range(rows * cols))
        rng.shuffle(room)
        walls = rng.choice([0, 0, rows * cols // 8])
        for p in room[:walls]:
            cells[p] = -1
        free = room[walls:]
        n = int(len(free) * rng.choice([1.0, 0.8])) // 2 * 2
        copies = rng.choice([2, 4, 6, 18])
        types = max(1, n // copies)
        tiles = [1 + j // 2 % types for j in range(n)]
        rng.shuffle(tiles)
        for p, t in zip(free, tiles):
            cells[p] = t
        board = Board(rows, cols, tuple(cells))
        assert board.tile_count >= 64
        sizes += board.tile_count
        rules = Rules(border=i % 3 != 0, gravity=list(Gravity)[i % len(Gravity)])
        for model in MODELS:
            _same(board, rules, model, rng.getrandbits(64), rng.randrange(100))
    assert sizes > 20 * 100


@needs_native
@pytest.mark.parametrize("types", [1, 2, 3])
def test_the_c_players_moves_under_gravity_on_boards_of_few_types(types):
    # Many tiles of a type: the boards where every same-type pair is a candidate and listing the
    # moves afresh at each step cost the most (a full 48x48 board of one type, 4.4 s a
    # playthrough). A removal shifts tiles of the same type into the cells it changes, so most
    # of those cells keep their type and most moves stay; the rest are found again.
    rng = random.Random(f"few-types/{types}")
    for i in range(8):
        rows, cols = rng.randint(8, 13), rng.randint(8, 13)
        n = rows * cols // 2 * 2 if i % 2 else rows * cols * 3 // 4 // 2 * 2
        tiles = [1 + j // 2 % types for j in range(n)] + [0] * (rows * cols - n)
        rng.shuffle(tiles)
        if i % 4 == 3:  # walls: runs split, odd counts
            for _ in range(3):
                tiles[rng.randrange(len(tiles))] = -1
        gravity = [Gravity.DOWN, Gravity.UP, Gravity.LEFT, Gravity.RIGHT][i % 4]
        board = Board(rows, cols, tuple(tiles))
        if i % 3:
            board = dropped(board, gravity)
        for model in MODELS:
            _same(board, Rules(border=i % 3 != 1, gravity=gravity), model, rng.getrandbits(64), rng.randrange(100))


@needs_native
def test_c_and_python_players_agree_on_the_shared_small_cases():
    for i, (grid, border, gravity) in enumerate(seeded_cases(21, 200)):
        board = Board.from_grid(grid)
        for model in MODELS:
            _same(board, Rules(border=border, gravity=gravity), model, i * 7919, i)


@needs_native
def test_c_and_python_players_agree_on_shipped_levels():
    levels = [lv for name in ("medium", "gravity") for lv in llkgen.generate(name, count=2).levels]
    for i, lv in enumerate(levels):
        for model in MODELS:
            base = model_base(i, 0, model)
            for k in range(3):
                _same(lv.board, lv.rules, model, base, k)


@needs_native
def test_counts_and_measurements_do_not_depend_on_the_c_players(monkeypatch):
    board = llkgen.generate("gravity", count=1).levels[0]
    start = Playout(board.board, board.rules)
    with_c = {m: playthroughs(m, start, 5, 0, 3, 40) for m in MODELS}
    est_c = clear_rate("careful", board.board, board.rules, 5, max_runs=64)
    level_c = measure(board.board, board.rules, 5, precision=6.0)
    monkeypatch.setattr(native_players, "_players", None)
    assert native_players.runner(start) is None
    assert {m: playthroughs(m, start, 5, 0, 3, 40) for m in MODELS} == with_c
    assert clear_rate("careful", board.board, board.rules, 5, max_runs=64) == est_c
    assert measure(board.board, board.rules, 5, precision=6.0) == level_c


@needs_native
def test_the_c_players_refuse_bad_arguments():
    c = native_players._players
    cells = [1, 1, 2, 2]
    with pytest.raises(ValueError):
        c.playthroughs(0, 4, cells, 0, 1, 0, 0, 0, 1)  # no rows
    with pytest.raises(ValueError):
        c.playthroughs(63, 1, [0] * 63, 0, 1, 0, 0, 0, 1)  # too tall
    with pytest.raises(ValueError):
        c.playthroughs(1, 4, cells[:3], 0, 1, 0, 0, 0, 1)  # too few cells
    with pytest.raises(ValueError):
        c.playthroughs(1, 4, [1, 1, -2, 0], 0, 1, 0, 0, 0, 1)  # below a wall
    with pytest.raises(ValueError):
        c.playthroughs(1, 4, cells, 5, 1, 0, 0, 0, 1)  # no such gravity
    with pytest.raises(ValueError):
        c.playthroughs(1, 4, cells, 0, 1, 5, 0, 0, 1)  # no such model
    with pytest.raises(ValueError):
        c.playthroughs(1, 4, cells, 0, 1, 0, -1, 0, 1)  # base below 0
    with pytest.raises(ValueError):
        c.playthroughs(1, 4, cells, 0, 1, 0, 1 << 64, 0, 1)  # base too big
    with pytest.raises(ValueError):
        c.playthroughs(1, 4, cells, 0, 1, 0, 0, 2, 1)  # k1 < k0
    with pytest.raises(TypeError):
        c.playthroughs(1, 4, ["a"] * 4, 0, 1, 0, 0, 0, 1)
    assert c.playthroughs(1, 4, cells, 0, 1, 0, (1 << 64) - 1, 0, 10) == 10


def test_play_rng_is_splitmix64():
    # SplitMix64's published first outputs from state 0 (Vigna's reference), through PlayRng's
    # definition: a start of mix64(base + (k + 1) * GAMMA) with base = -GAMMA mod 2^64 and k = 0
    # is mix64(0), and each draw adds GAMMA first.
    rng = PlayRng(0, 0)
    rng.state = 0
    words = [rng.below(1 << 64) for _ in range(3)]
    assert words == [0xE220A8397B1DCDAF, 0x6E789E6AA1B965F4, 0x06C45D188009454F]
    # below(n) stays in [0, n) and is close to uniform
    rng = PlayRng(12345, 6)
    counts = np.bincount([rng.below(6) for _ in range(60_000)], minlength=6)
    assert counts.min() > 9_500 and counts.max() < 10_500


def test_python_players_fall_back_when_the_board_is_too_wide(monkeypatch):
    # 1 x 70: wider than the C players' 62 columns: the Python players play it.
    board = Board(1, 70, tuple([1, 1] * 35))
    start = Playout(board, Rules())
    assert native_players.runner(start) is None
    assert playthroughs("random", start, 0, 0, 0, 4) == 4
    assert players.clear_rate("nearest", board, Rules(), 0, max_runs=32).rate == 1.0


@needs_native
def test_the_c_modules_copy_the_cells_before_reading_them():
    # An element whose __index__ empties the list must not make the C code read past it.
    from llkgen.verifier import native

    class Shrinks:
        def __init__(self, cells: list):
            self.cells = cells

        def __index__(self) -> int:
            self.cells.clear()
            return 1

    cells: list = []
    cells[:] = [Shrinks(cells)] + [1] * 399
    assert native_players._players.playthroughs(20, 20, cells, 0, 1, 0, 0, 0, 1) in (0, 1)
    if native.AVAILABLE:
        cells[:] = [Shrinks(cells)] + [1] * 399
        native._gravity_search.search(20, 20, cells, 1, 1, 10, 1.0, 1)


def test_boards_the_c_players_cannot_read_go_to_python():
    huge = Board(1, 2, (1 << 63, 1 << 63))  # a type past a C long long
    start = Playout(huge, Rules())
    assert native_players.runner(start) is None and native_players.play(start, 0, 0, 0) is None
    assert playthroughs("random", start, 0, 0, 0, 3) == 3


class _Interrupted(Exception):
    pass


@needs_native
@pytest.mark.skipif(not hasattr(signal, "setitimer"), reason="needs a POSIX interval timer")
def test_a_batch_stops_at_a_signal_between_runs():
    # A long batch (a dense 40 x 40 board, the deep model, 5,000 runs of about 3-5 ms): a signal
    # handler that raises must end it within a few runs, as Ctrl-C does, not at its end (the
    # handler would still raise then, but after 15 s or more).
    rng = random.Random(3)
    cells = [t for t in range(1, 101) for _ in range(16)]
    rng.shuffle(cells)

    def stop(signum, frame):
        raise _Interrupted

    previous = signal.signal(signal.SIGALRM, stop)
    try:
        with Timed() as t:  # the timer starts after Timed's probe of the load, not during it
            signal.setitimer(signal.ITIMER_REAL, 0.2)
            with pytest.raises(_Interrupted):
                native_players._players.playthroughs(40, 40, cells, 0, 1, 4, 0, 0, 5000)
        assert t.seconds < t.limit(0.2, 2.8), t
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
    # and the module still plays afterwards
    assert native_players._players.playthroughs(1, 4, [1, 1, 2, 2], 0, 1, 0, 0, 0, 5) == 5
