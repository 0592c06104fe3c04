"""The exact grading held to the brute-force oracle, the score's formula, and grading in specs.

On small seeded boards in every gravity mode, :func:`llkgen.analysis.grading.grade` must give exactly
the metrics of the same seeded playthroughs replayed with labels from the oracle (a move is
safe when the oracle clears the board after it, fatal otherwise): the grader's shortcuts may
only save work, never change a label.
"""

from __future__ import annotations

import random

import numpy as np
import pytest

from llkgen.analysis.grading import GRADE_KEY, WEIGHTS, difficulty_score, grade, score_bounds, score_parts
from llkgen.errors import GenerationError, SpecError
from llkgen.game.board import Board, Rules
from llkgen.generation.generator import generate_level
from llkgen.generation.spec import parse_spec

import oracle as O
from strategies import grid_text, seeded_cases


def oracle_grade(grid, border: bool, gravity: str, playthroughs: int, seed: int) -> dict:
    steps = traps = turns = played = 0
    fatal_sum = choices = 0.0
    for k in range(playthroughs):
        rng = np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(GRADE_KEY, k)))
        g = grid
        while not O.is_cleared(g):
            pairs = O.oracle_pairs(g, border)
            safe = [p for p in pairs if O.brute_solve(O.apply_move(g, *p, gravity), border, gravity)]
            steps += 1
            choices += len(pairs)
            if pairs:
                fatal_sum += (len(pairs) - len(safe)) / len(pairs)
            traps += len(safe) < len(pairs)
            if not safe:
                break
            a, b = safe[int(rng.integers(len(safe)))]
            corners = O.best_path(g, a, b, border)[2]
            turns += len(O.corners_of(corners)) - 2
            played += 1
            g = O.apply_move(g, a, b, gravity)
    return {"fatal_share": fatal_sum / steps if steps else 0.0, "trap_steps": traps / playthroughs,
            "choices": choices / steps if steps else 0.0, "link_turns": turns / played if played else 0.0}


@pytest.mark.parametrize("seed,count", [(51, 500), (52, 250)])
def test_grade_matches_oracle_playthroughs(seed, count):
    kw = {} if seed == 51 else dict(min_fill=1.0, max_tiles=12, max_types=2, copies=(4, 6))
    graded_fatal = 0
    for grid, border, gravity in seeded_cases(seed, count, **kw):
        settled = O.oracle_gravity(grid, gravity)
        if not O.brute_solve(settled, border, gravity):
            continue
        rules = Rules(border=border, gravity=gravity)
        got = grade(Board.from_grid(settled), rules, playthroughs=2, nodes=200_000, seed=9)
        want = oracle_grade(settled, border, gravity, 2, 9)
        where = f"\n{grid_text(settled)}\nborder={border} gravity={gravity}"
        assert got.unknown_share == 0 and got.stalled == 0, where
        for key, value in want.items():
            assert getattr(got, key) == pytest.approx(value, abs=1e-12), f"{key}{where}"
        graded_fatal += got.fatal_share > 0
    assert graded_fatal > 20, graded_fatal  # the sweep must meet fatal moves to mean anything


def test_grade_with_a_witness_gives_the_same_metrics():
    for grid, border, gravity in seeded_cases(53, 200, min_fill=1.0):
        solution = O.brute_solution(grid, border, gravity)
        if solution is None:
            continue
        board, rules = Board.from_grid(grid), Rules(border=border, gravity=gravity)
        plain = grade(board, rules, seed=4, nodes=200_000)
        seeded = grade(board, rules, seed=4, nodes=200_000, witness=solution)
        assert plain.metrics() == seeded.metrics(), grid_text(grid)


def test_grade_is_deterministic_and_counts_unknowns_apart():
    grid = [[1, 2, 3, 1], [2, 3, 1, 2], [3, 1, 2, 3]]
    board = Board.from_grid(grid)
    assert grade(board, Rules(), seed=3) == grade(board, Rules(), seed=3)
    tiny = grade(board, Rules(border=False), nodes=1, seed=3)
    assert 0 <= tiny.unknown_share <= 1 and tiny.fatal_share + tiny.unknown_share <= 1


def test_score_parts_weights_and_bounds():
    assert sum(w for _, w in WEIGHTS) == 100
    rng = random.Random(5)
    for _ in range(2000):
        m = {"random_clear_rate": rng.random(), "fatal_share": rng.random() * 0.3,
             "trap_steps": rng.random() * 40, "choices": rng.random() * 15, "link_turns": rng.random() * 2}
        pairs = rng.randint(1, 200)
        score = difficulty_score(m, pairs)
        low, high = score_bounds(m["random_clear_rate"], pairs)
        assert 0 <= low <= score <= high <= 100
        assert all(0 <= v <= 1 for v in score_parts(m, pairs).values())
    easiest = {"random_clear_rate": 1.0, "fatal_share": 0.0, "trap_steps": 0, "choices": 20, "link_turns": 0}
    assert difficulty_score(easiest, 0) == 0
    hardest = {"random_clear_rate": 0.0, "fatal_share": 1.0, "trap_steps": 500, "choices": 1, "link_turns": 2}
    assert difficulty_score(hardest, 500) == 100


TINY = """
name: tiny
seed: 3
count: 4
board: {rows: 4, cols: 6}
tiles: {types: 6, copies: 4}
generator: {max_attempts: 300}
"""


def test_generated_levels_carry_the_graded_metrics():
    spec = parse_spec(TINY)
    lv = generate_level(spec, 0)
    m = lv.metrics
    for key in ("fatal_share", "trap_steps", "choices", "link_turns", "unknown_share", "difficulty"):
        assert key in m
    assert m["difficulty"] == difficulty_score(m, lv.board.tile_count // 2)
    off = parse_spec(TINY + "grading: {playthroughs: 0}\n")
    assert "difficulty" not in generate_level(off, 0).metrics


def test_ramp_puts_each_level_in_its_window():
    spec = parse_spec(TINY + "ramp: {from: 10, to: 40, tolerance: 8}\n")
    for i in range(spec.count):
        window = spec.targets(i)["difficulty"]
        assert window.low == pytest.approx(max(0, 10 + 30 * i / 3 - 8))
        assert window.contains(generate_level(spec, i).metrics["difficulty"])


def test_unreachable_score_window_says_what_was_graded():
    text = TINY.replace("generator: {max_attempts: 300}", "generator: {max_attempts: 40}")
    with pytest.raises(GenerationError, match=r"difficulty not in \[99, 100\]: 40"):
        generate_level(parse_spec(text + "difficulty: {score: [99, 100]}\n"), 0)
    # A window the cheap bound cannot rule out: the candidates are graded, and the message
    # says which scores they got, so the designer can widen the window sensibly.
    with pytest.raises(GenerationError, match=r"the graded scores ranged \d"):
        generate_level(parse_spec(text + "difficulty: {score: [30, 30.01]}\n"), 0)


@pytest.mark.parametrize("extra,message", [
    ("ramp: {from: 10}\n", 'missing required key "to"'),
    ("ramp: {from: 10, to: 120}\n", "ramp.to: expected a number in 0..100"),
    ("ramp: {from: 10, to: 20, tolarance: 3}\n", 'did you mean "tolerance"'),
    ("ramp: {from: 10, to: 20}\ndifficulty: {score: [1, 2]}\n", "either ramp or difficulty.score"),
    ("difficulty: {score: [50, 10]}\n", "min <= max"),
    ("grading: {playthroughs: -1}\n", "grading.playthroughs: expected an integer in 0..1000"),
    ("grading: {playthroughs: 0}\ndifficulty: {score: [10, 20]}\n", "needs the exact grading"),
])
def test_bad_grading_keys_are_clear_errors(extra, message):
    with pytest.raises(SpecError, match=message.replace("(", r"\(").replace("[", r"\[").replace(".", r"\.")):
        parse_spec(TINY + extra)
