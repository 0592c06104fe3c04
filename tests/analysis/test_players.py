"""The model players of :mod:`llkgen.analysis.players`: seeding, legality, the standard error
and adaptive stopping, the ladder, and tiers."""

from __future__ import annotations

import math

import numpy as np
import pytest

import llkgen
from llkgen.analysis import players
from llkgen.analysis.players import (
    HINT,
    MODELS,
    PLAYERS_KEY,
    PYTHON_MAX_PAIRS,
    Estimate,
    PlayRng,
    TooBigForPlayers,
    candidate_pairs,
    clear_rate,
    clear_rates,
    play,
    tier,
)
from llkgen.errors import LlkgenError
from llkgen.game.board import Board, Rules
from llkgen.game.construct import play_forward
from llkgen.game.path import removable_pairs
from llkgen.game.playout import Playout
from llkgen.game.referee import replay

from strategies import seeded_cases

#: Every model clears it: three adjacent pairs and one more.
EASY = [[1, 1, 2, 2], [3, 3, 4, 4]]
#: No border, no gravity; solvable (found by a search over random deals, checked by the
#: tests' brute-force oracle in test_trap_board_is_solvable). Random play clears it about a
#: quarter of the time, lookahead about half, careful always: a completing pair is the way out.
TRAP = [[4, 3, 1, 4, 2, 3, 2, 3], [1, 4, 2, 1, 2, 3, 1, 4]]
NO_BORDER = Rules(border=False)


def seeded(seed: int, stream: int, model: str, k: int) -> PlayRng:
    """The documented generator of run ``k``."""
    state = np.random.SeedSequence(seed, spawn_key=(PLAYERS_KEY, stream, MODELS.index(model))).generate_state(
        1, np.uint64)
    return PlayRng(int(state[0]), k)


@pytest.fixture(scope="module")
def shipped():
    """The first level of the shipped medium and gravity specs."""
    return [llkgen.generate(name, count=1).levels[0] for name in ("medium", "gravity")]


def test_trap_board_is_solvable():
    from oracle import brute_solve

    assert brute_solve(TRAP, False, "none")


def test_players_key_is_its_own():
    from llkgen.analysis.audit import AUDIT_KEY
    from llkgen.analysis.metrics import RANDOM_CLEAR_KEY

    # make's levels spawn (i,); the random clear rate draws from (RANDOM_CLEAR_KEY,).
    assert PLAYERS_KEY == 2 << 20 and len({AUDIT_KEY, PLAYERS_KEY, RANDOM_CLEAR_KEY}) == 3


# -- determinism ------------------------------------------------------------------------------

@pytest.mark.parametrize("model", MODELS)
def test_same_seed_same_estimate(model):
    board = Board.from_grid(TRAP)
    a = clear_rate(model, board, NO_BORDER, 7, stream=0, max_runs=64)
    b = clear_rate(model, Playout(board, NO_BORDER), NO_BORDER, 7, stream=0, max_runs=64)
    assert a == b
    # clear_rates gives each model the estimate clear_rate gives alone
    assert clear_rates(board, NO_BORDER, 7, max_runs=64, models=(model,))[model] == a


def test_runs_follow_the_documented_seeds_and_streams_differ():
    board = Board.from_grid(TRAP)
    start = Playout(board, NO_BORDER)
    n = 64
    for model in ("random", "lookahead"):  # rates strictly between 0.2 and 0.8 on TRAP
        runs = {s: [play(model, start, seeded(3, s, model, k)) for k in range(n)] for s in (0, 1)}
        est = clear_rate(model, board, NO_BORDER, 3, stream=0, min_runs=n, max_runs=n)
        assert est.cleared == sum(runs[0]) and est.runs == n
        assert 0.2 <= est.rate <= 0.8
        # independent streams: not the same run sequence (equal by chance: < 2^-30 here)
        assert runs[0] != runs[1]
    # and the models themselves draw from distinct keys
    assert seeded(3, 0, "random", 0).below(1 << 62) != seeded(3, 0, "lookahead", 0).below(1 << 62)
    # and the runs of one model differ
    assert seeded(3, 0, "random", 0).below(1 << 62) != seeded(3, 0, "random", 1).below(1 << 62)


def test_play_does_not_change_start():
    board = Board.from_grid(TRAP)
    start = Playout(board, NO_BORDER)
    before = (list(start.g), set(start.links), start.left)
    for model in MODELS:
        play(model, start, PlayRng(0, 0))
    assert (list(start.g), set(start.links), start.left) == before


# -- legality ---------------------------------------------------------------------------------

def _check_replays(board: Board, rules: Rules, model: str, seed: int) -> None:
    moves: list = []
    cleared = play(model, Playout(board, rules), PlayRng(seed, 0), record=moves)
    result = replay(board, rules, moves)
    assert result.ok, (model, board, rules, result)
    assert result.cleared == cleared
    if not cleared:  # a dead end: the final board has tiles and no move
        assert not result.final.is_cleared() and not removable_pairs(result.final, rules)


@pytest.mark.parametrize("model", MODELS)
def test_moves_are_legal_on_shipped_levels(model, shipped):
    for level in shipped:
        for seed in range(3):
            _check_replays(level.board, level.rules, model, seed)


@pytest.mark.parametrize("model", MODELS)
def test_moves_are_legal_on_random_small_boards(model):
    # every gravity and both border settings, walls and odd shapes; solvable or not
    for grid, border, gravity in seeded_cases(11, 40):
        board = Board.from_grid(grid)
        _check_replays(board, Rules(border=border, gravity=gravity), model, 0)


# -- the standard error and adaptive stopping -------------------------------------------------

def test_standard_error_formula():
    for cleared, runs in ((0, 32), (32, 32), (16, 32), (3, 100), (0, 1)):
        p = (cleared + 2) / (runs + 4)
        e = Estimate.of(cleared, runs)
        assert e.se == pytest.approx(math.sqrt(p * (1 - p) / (runs + 4)))
        assert e.se > 0 and e.rate == cleared / runs
    assert Estimate.of(0, 32).se == pytest.approx(math.sqrt((2 / 36) * (34 / 36) / 36))
    assert Estimate.of(5, 10).to_json() == {"rate": 0.5, "se": round(math.sqrt(0.25 / 14), 4),
                                            "runs": 10}


def test_adaptive_stopping_reaches_target():
    board = Board.from_grid(TRAP)
    for model in ("random", "lookahead"):
        est = clear_rate(model, board, NO_BORDER, 1, target_se=0.05, min_runs=32)
        assert est.se <= 0.05 and est.runs % 32 == 0 and est.runs > 32
        # the batch before did not reach it: a prefix of the same runs
        before = clear_rate(model, board, NO_BORDER, 1, target_se=0.05, min_runs=32,
                            max_runs=est.runs - 32)
        assert before.runs == est.runs - 32 and before.se > 0.05
    # an easy board is settled after one batch
    easy = clear_rate("random", Board.from_grid(EASY), NO_BORDER, 1)
    assert (easy.runs, easy.cleared, easy.rate) == (32, 32, 1.0) and easy.se <= 0.05


def test_adaptive_stopping_at_max_runs_and_deadline():
    board = Board.from_grid(EASY)
    est = clear_rate("random", board, NO_BORDER, 1, target_se=0.001, min_runs=32, max_runs=100)
    assert est.runs == 100 and est.cleared == 100 and est.se > 0.001
    late = clear_rate("random", board, NO_BORDER, 1, target_se=0.001, min_runs=32, deadline=0.0)
    assert late.runs == 32  # one batch, then the deadline stops it
    with pytest.raises(ValueError):
        clear_rate("random", board, NO_BORDER, 1, min_runs=64, max_runs=32)
    with pytest.raises(ValueError):
        clear_rate("expert", board, NO_BORDER, 1)


# -- the ladder -------------------------------------------------------------------------------

def _sample_levels() -> list[tuple[Board, Rules]]:
    """Six levels of the shipped medium spec and four hard-spec-shaped boards (10x16, 40 types
    of 4, border) made solvable by construction -- the hard spec's own generator, minus its
    slow certification and difficulty filter."""
    out = [(lv.board, lv.rules) for lv in llkgen.generate("medium", count=6).levels]
    rules = Rules(border=True)
    for seed in range(4):
        rng = np.random.default_rng(seed)
        tiles = [t for t in range(1, 41) for _ in range(4)]
        cells = [int(t) for t in rng.permutation(tiles)]
        start = Board.from_grid([cells[r * 16:(r + 1) * 16] for r in range(10)])
        made = play_forward(start, rules, rng)
        assert made is not None
        out.append((made[0], rules))
    return out


def test_ladder_on_average():
    # A property of this sample of levels, not a law: a model that filters moves can lose on
    # a particular board where luck favours random play. On the mean over ten levels, with
    # 64 runs each, careful >= lookahead >= random should hold within a few standard errors.
    models = ("random", "lookahead", "careful")
    sums = {m: 0.0 for m in models}
    var = {m: 0.0 for m in models}
    levels = _sample_levels()
    for board, rules in levels:
        rates = clear_rates(board, rules, 5, min_runs=64, max_runs=64, models=models)
        for m in models:
            sums[m] += rates[m].rate
            var[m] += rates[m].se ** 2
    n = len(levels)
    mean = {m: sums[m] / n for m in models}
    se = {m: math.sqrt(var[m]) / n for m in models}  # levels measured independently
    for weak, strong in (("random", "lookahead"), ("lookahead", "careful")):
        tolerance = 3 * math.hypot(se[weak], se[strong])
        assert mean[strong] >= mean[weak] - tolerance, (mean, se)


# -- tiers ------------------------------------------------------------------------------------

def test_tier_easy_board_is_random():
    rates = clear_rates(Board.from_grid(EASY), NO_BORDER, 0)
    assert all(e.rate == 1.0 for e in rates.values())
    assert tier(rates) == "random"


def test_tier_trap_board_needs_a_careful_player():
    rates = clear_rates(Board.from_grid(TRAP), NO_BORDER, 0)
    assert rates["random"].rate < 0.5 and rates["careful"].rate >= 0.8
    assert MODELS.index(tier(rates)) >= MODELS.index("lookahead")


def test_tier_rules():
    def est(rate: float) -> Estimate:
        return Estimate.of(round(rate * 100), 100)

    assert tier({m: est(0.1) for m in MODELS}) == HINT
    assert tier({}) == HINT
    assert tier({"random": est(0.5), "nearest": est(0.9), "deep": est(1.0)}) == "nearest"
    assert tier({"random": est(0.8)}) == "random"
    assert tier({"random": est(0.5), "deep": est(0.6)}, reliably=0.6) == "deep"
    assert players.MODELS == ("random", "nearest", "lookahead", "careful", "deep")


def test_the_python_players_refuse_a_board_with_too_many_same_type_pairs():
    # 63 a side: past the C players' 62, so in every build these are the Python players; one
    # type, so every same-type pair is a candidate at every step (a playthrough ran past 300 s)
    cells = [1] * (63 * 63 - 1) + [0]
    start = Playout(Board(63, 63, tuple(cells)), Rules(border=True, gravity="down"))
    assert candidate_pairs(start) == 3968 * 3967 // 2 > PYTHON_MAX_PAIRS
    with pytest.raises(TooBigForPlayers, match=r"63x63 board with 7,870,528 same-type pairs") as e:
        players.playthroughs("random", start, 0, 0, 0, 1)
    assert isinstance(e.value, LlkgenError) and "62 a side" in str(e.value)
    # four tiles a type: far below the limit at the largest size the format takes
    four = Playout(Board(64, 64, tuple(1 + k // 4 for k in range(64 * 64))), Rules())
    assert candidate_pairs(four) == 1024 * 6
