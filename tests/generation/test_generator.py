"""Generators, metrics and the fast playout engine.

The playout engine is checked move by move against the plain definition (``removable_pairs``
plus the referee), on random boards under every rule set; the generators are checked for
their guarantees (certified, replayable, within the difficulty targets, deterministic per
level seed) and for the give-up message.
"""

from __future__ import annotations

import multiprocessing
import random
import time

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from llkgen.analysis import native_players
from llkgen.analysis.metrics import RANDOM_CLEAR_KEY, clear_rate_within, initial_moves, random_clear_rate
from llkgen.analysis.players import PlayRng
from llkgen.errors import GenerationError, LlkgenError
from llkgen.game.board import Board, Rules
from llkgen.game.path import removable_pairs
from llkgen.game.playout import Playout, random_playthrough
from llkgen.game.referee import play, replay
from llkgen.generation.generator import construct, deal, generate_level, level_seed
from llkgen.generation.spec import parse_spec
from llkgen.jobs.pack import generate_pack
from llkgen.verifier import Budget, verify

from strategies import cases, equivalence, random_case


def spec_text(**sections: str) -> str:
    base = {
        "name": "name: t",
        "seed": "seed: 7",
        "count": "count: 3",
        "board": "board: {rows: 4, cols: 6}",
        "rules": "rules: {border: true, gravity: none}",
        "tiles": "tiles: {types: 6, copies: 4}",
        "generator": "generator: {strategy: shuffle, max_attempts: 50}",
        "difficulty": "difficulty: {playthroughs: 8}",
        "verify": "verify: {nodes: 20000}",
    }
    base.update(sections)
    return "\n".join(base.values()) + "\n"


def make_spec(**sections: str):
    return parse_spec(spec_text(**sections), "t.yaml")


# -- the playout engine against the plain definition --------------------------------------------
def plain_playthrough(board: Board, rules: Rules, rng) -> tuple[bool, list]:
    """The definition of a random playthrough, written plainly."""
    moves = []
    while board.tile_count:
        options = removable_pairs(board, rules)
        if not options:
            return False, moves
        m = options[int(rng.integers(len(options)))]
        moves.append((m.a, m.b))
        board = play(board, rules, m.a, m.b)
    return True, moves


def full_deal(rows: int, cols: int, types: int, seed: int) -> Board:
    tiles = [t for t in range(1, types + 1) for _ in range(rows * cols // types)]
    np.random.default_rng(seed).shuffle(tiles)
    return Board(rows, cols, tuple(int(t) for t in tiles))


def _follow(grid, border: bool, gravity: str, k: int) -> int:
    """A playout played to its end by random moves (``default_rng(k)``), its moves compared
    with ``removable_pairs`` at every step. Returns the number of moves."""
    board, rules = Board.from_grid(grid), Rules(border, gravity)
    p = Playout(board, rules)
    pick = np.random.default_rng(k)
    steps = 0
    while True:
        want = [(m.a, m.b) for m in removable_pairs(board, rules)]
        assert [p.cells(m) for m in p.moves()] == want, (grid, border, gravity)
        if not want:
            return steps
        i = int(pick.integers(len(want)))
        p.remove(*p.moves()[i])
        board = play(board, rules, *want[i])
        steps += 1


def test_playout_moves_match_removable_pairs_at_every_step():
    rng = random.Random(5)
    steps = 0
    for k in range(400):
        steps += _follow(*random_case(rng), k)
    assert steps > 800  # the boards were not all stuck at once


@equivalence(100)
@given(case=cases(max_tiles=16), k=st.integers(0, 2**32 - 1))
def test_playout_moves_match_removable_pairs_on_drawn_boards(case, k):
    """The check above under Hypothesis: a failure shrinks to a small board."""
    _follow(*case, k)


@pytest.mark.parametrize("gravity", ["none", "down", "left"])
@pytest.mark.parametrize("border", [True, False])
def test_random_playthrough_equals_plain_definition_on_big_boards(gravity, border):
    rules = Rules(border, gravity)
    for seed in range(2):
        board = full_deal(8, 10, 20, seed)
        for k in range(3):
            fast = random_playthrough(board, rules, np.random.default_rng(k))
            slow = plain_playthrough(board, rules, np.random.default_rng(k))
            assert fast == slow


def test_playout_on_a_constructed_board_follows_every_move():
    # Constructed boards are played much further than random deals: longer move sequences.
    spec = make_spec(board="board: {rows: 8, cols: 10}", tiles="tiles: {types: 20, copies: 4}")
    board, _ = construct(spec, np.random.default_rng(3))
    for k in range(4):
        fast = random_playthrough(board, spec.rules, np.random.default_rng(k))
        assert fast == plain_playthrough(board, spec.rules, np.random.default_rng(k))


def test_initial_moves_counts_removable_pairs():
    rng = random.Random(9)
    for _ in range(200):
        grid, border, gravity = random_case(rng)
        board, rules = Board.from_grid(grid), Rules(border, gravity)
        assert initial_moves(board, rules) == len(removable_pairs(board, rules))


# -- metrics ------------------------------------------------------------------------------------
class Draws:
    """A :class:`PlayRng` behind numpy's ``integers(n)``, for :func:`plain_playthrough`."""

    def __init__(self, rng: PlayRng):
        self.rng = rng

    def integers(self, n: int) -> int:
        return self.rng.below(n)


@pytest.mark.parametrize("in_c", [True, False])
def test_random_clear_rate_is_the_plain_fraction_and_seeded(in_c, monkeypatch):
    if not in_c:
        monkeypatch.setattr(native_players, "_players", None)
    board, rules = full_deal(4, 6, 6, 2), Rules()
    base = int(np.random.SeedSequence(11, spawn_key=(RANDOM_CLEAR_KEY,)).generate_state(1, np.uint64)[0])
    outcomes = [plain_playthrough(board, rules, Draws(PlayRng(base, k)))[0] for k in range(10)]
    assert 0 < sum(outcomes) < 10, "pick a board whose rate is strictly between 0 and 1"
    want = sum(outcomes) / 10
    assert random_clear_rate(board, rules, 10, seed=11) == want
    assert random_clear_rate(board, rules, 10, seed=11) == want  # no hidden state


@pytest.mark.parametrize("in_c", [True, False])
def test_clear_rate_within_returns_the_exact_rate_or_none(in_c, monkeypatch):
    # in Python the playthroughs stop once the rate is settled outside; in C they all run
    if not in_c:
        monkeypatch.setattr(native_players, "_players", None)
    board, rules = full_deal(6, 8, 12, 4), Rules()
    rate = random_clear_rate(board, rules, 16, seed=3)
    assert 0 < rate < 1, "pick a board whose rate is strictly between 0 and 1"
    assert clear_rate_within(board, rules, 16, 3, rate, rate) == rate
    assert clear_rate_within(board, rules, 16, 3, None, None) == rate
    assert clear_rate_within(board, rules, 16, 3, rate + 1e-9, None) is None
    assert clear_rate_within(board, rules, 16, 3, None, rate - 1e-9) is None
    with pytest.raises(ValueError):
        random_clear_rate(board, rules, 0)


def test_metrics_on_a_playout_equal_the_board_and_leave_it_unplayed():
    # The generator builds one Playout per candidate and hands it to every metric.
    board, rules = full_deal(6, 8, 12, 1), Rules()
    play = Playout(board, rules)
    before = play.moves()
    assert initial_moves(play, rules) == initial_moves(board, rules)
    assert random_clear_rate(play, rules, 16, seed=3) == random_clear_rate(board, rules, 16, seed=3)
    rate = random_clear_rate(board, rules, 16, seed=3)
    assert clear_rate_within(play, rules, 16, 3, rate + 1e-9, None) is None
    assert play.moves() == before and play.left == board.tile_count


# -- seeds --------------------------------------------------------------------------------------
def test_level_seed_is_the_spawned_child_and_fits_javascript():
    children = np.random.SeedSequence(42).spawn(5)
    for i, child in enumerate(children):
        assert level_seed(42, i) == int(child.generate_state(1, np.uint64)[0]) >> 11
        assert 0 <= level_seed(42, i) < 2**53
    assert len({level_seed(42, i) for i in range(100)}) == 100
    assert level_seed(42, 0) != level_seed(43, 0)


def test_adding_levels_keeps_the_existing_ones():
    small = generate_pack(make_spec(count="count: 2"), jobs=1)
    large = generate_pack(make_spec(count="count: 4"), jobs=1)
    assert large[:2] == small


def test_same_levels_with_a_process_pool():
    spec = make_spec(count="count: 3")
    assert generate_pack(spec, jobs=2) == generate_pack(spec, jobs=1)


def _late_and_early_failures(spec, index):
    """Level 2 (index 1) fails late, level 4 (index 3) at once: a pool sees level 4 first."""
    if index == 1:
        time.sleep(1.0)
    if index in (1, 3):
        raise GenerationError(f"level {index + 1} failed")
    return generate_level(spec, index)


@pytest.mark.skipif(multiprocessing.get_start_method() != "fork", reason="patches the workers by forking")
def test_a_failing_pack_fails_on_the_same_level_at_any_jobs(monkeypatch):
    import llkgen.generation.generator as generate

    monkeypatch.setattr(generate, "generate_level", _late_and_early_failures)
    spec = make_spec(count="count: 5")
    for jobs in (1, 3):
        with pytest.raises(GenerationError, match="^level 2 failed$"):
            generate_pack(spec, jobs=jobs)


# -- shuffle ------------------------------------------------------------------------------------
def test_deal_uses_the_layout_and_the_multiset():
    spec = make_spec(
        board="board:\n  rows: 3\n  cols: 4\n  layout: |\n    ##X#\n    #..#\n    ###X\n",
        tiles="tiles: {distribution: {1: 4, 2: 2, 3: 2}}",
    )
    board = deal(spec, np.random.default_rng(0))
    assert board.grid()[0][2] == board.grid()[2][3] == -1 and board.grid()[1][1:3] == [0, 0]
    assert sorted(v for v in board.cells if v > 0) == [1, 1, 1, 1, 2, 2, 3, 3]


def test_shuffle_levels_are_certified_and_within_targets():
    spec = make_spec(
        difficulty="difficulty: {initial_moves: [4, null], random_clear_rate: [0.25, 1.0], playthroughs: 8}")
    for lv in generate_pack(spec, jobs=1):
        assert lv.certificate["verdict"] == "solvable"
        assert "time_ms" not in lv.certificate["stats"]
        result = replay(lv.board, lv.rules, lv.solution)
        assert result.ok and result.cleared
        assert lv.metrics["initial_moves"] >= 4 and lv.metrics["random_clear_rate"] >= 0.25
        assert lv.metrics["random_clear_rate"] == random_clear_rate(lv.board, lv.rules, 8, lv.seed)
        assert lv.metrics["verify_nodes"] == verify(lv.board, lv.rules, Budget(nodes=20000)).stats["nodes"]
        assert lv == generate_level(spec, lv.index)


def test_shuffle_gives_up_saying_why():
    spec = make_spec(difficulty="difficulty: {initial_moves: [1000, null]}",
                     generator="generator: {max_attempts: 5}")
    with pytest.raises(GenerationError) as info:
        generate_level(spec, 0)
    msg = str(info.value)
    assert isinstance(info.value, LlkgenError) and msg.startswith("t.yaml: level 1 of 3")
    assert "5 attempts" in msg
    assert "0 proved unsolvable, 0 unknown" in msg
    assert "5 outside the difficulty range (initial_moves not in [1000, null]: 5)" in msg


def test_shuffle_counts_unknown_and_unsolvable_deals():
    # 9 types x 4 on a borderless 6x6 board: some deals are locked (unsolvable), and a
    # one-node budget leaves the rest undecided.
    spec = make_spec(board="board: {rows: 6, cols: 6}", rules="rules: {border: false}",
                     tiles="tiles: {types: 9, copies: 4}", verify="verify: {nodes: 1}",
                     generator="generator: {max_attempts: 30}")
    with pytest.raises(GenerationError) as info:
        generate_level(spec, 0)
    msg = str(info.value)
    counts = {what: int(msg.split(f" {what}")[0].rsplit(" ", 1)[-1]) for what in ("proved unsolvable", "unknown")}
    assert counts["proved unsolvable"] > 0 and counts["unknown"] > 0
    assert counts["proved unsolvable"] + counts["unknown"] == 30


# -- constructive -------------------------------------------------------------------------------
@pytest.mark.parametrize("gravity", ["none", "down", "up", "left", "right"])
def test_constructive_order_replays_under_every_gravity(gravity):
    spec = make_spec(
        board="board:\n  rows: 5\n  cols: 6\n  layout: |\n    ##.###\n    #X####\n    ######\n    ###X##\n    ###.##\n",
        rules=f"rules: {{border: true, gravity: {gravity}}}",
        tiles="tiles: {distribution: {1: 4, 2: 4, 3: 4, 4: 4, 5: 4, 6: 6}}",
    )
    rng = np.random.default_rng(1)
    for _ in range(5):
        built = construct(spec, rng)
        assert built is not None
        board, order = built
        assert sorted(board.cells) == sorted(deal(spec, np.random.default_rng(0)).cells)
        result = replay(board, spec.rules, order)
        assert result.ok and result.cleared, result.describe()


def test_constructive_reshuffles_when_stuck():
    # Without a border a full 2x4 board of four types often deals no removable pair at all;
    # construction must still finish by reshuffling.
    spec = make_spec(board="board: {rows: 2, cols: 4}", rules="rules: {border: false}",
                     tiles="tiles: {types: 4, copies: 2}")
    rng = np.random.default_rng(0)
    stuck_starts = 0
    for _ in range(30):
        state = rng.bit_generator.state
        start = deal(spec, rng)
        stuck_starts += not removable_pairs(start, spec.rules)
        rng.bit_generator.state = state
        board, order = construct(spec, rng)
        assert replay(board, spec.rules, order).cleared
    assert stuck_starts > 0


def test_constructive_gives_up_when_tiles_can_never_link():
    # Two tiles walled off from each other, no border: no reshuffle can help.
    spec = make_spec(board="board:\n  rows: 1\n  cols: 3\n  layout: |\n    #X#\n",
                     rules="rules: {border: false}", tiles="tiles: {types: 1, copies: 2}",
                     generator="generator: {strategy: constructive, max_attempts: 3}")
    with pytest.raises(GenerationError, match="3 could not be built \\(stuck"):
        generate_level(spec, 0)


def test_constructive_levels_are_certified():
    spec = make_spec(generator="generator: {strategy: constructive}",
                     rules="rules: {border: true, gravity: down}", count="count: 2")
    for lv in generate_pack(spec, jobs=1):
        assert lv.certificate["verdict"] == "solvable"
        assert lv.certificate["method"] == lv.certificate["stats"]["stage"] != ""
        assert replay(lv.board, lv.rules, lv.solution).cleared
