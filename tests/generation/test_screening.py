"""Ramps that aim: the screening of :func:`llkgen.analysis.difficulty.screen` and the steering of
:mod:`llkgen.generation.steer`, as ``make`` uses them for a level with a score window.

What must hold: a screening settles only where its numbers say (outside or inside by
``SCREEN_SE`` of its standard errors), plays the same runs a measurement would, and judges all
five models from its first round; a candidate it settles outside is never measured again nor
kept; a kept level's numbers are its own attempt's fresh measurement, a guard band inside the
window; the steering is a function of the level's seed (any ``--jobs``); and aiming costs fewer
playthroughs than drawing blindly. The statistical claims on the kept numbers (no winner's
curse, the shipped ramp re-graded) are in tests/analysis/test_difficulty.py, and hold with aiming on."""

from __future__ import annotations

import math

import numpy as np
import pytest

import llkgen.analysis.difficulty as difficulty
import llkgen.generation.generator as generator
from llkgen.analysis.difficulty import (
    SCREEN_BATCH,
    SCREEN_PRECISION,
    SCREEN_SE,
    Settled,
    measure,
    screen,
    screening_se,
)
from llkgen.analysis.ladder import MODELS
from llkgen.analysis.players import clear_rate
from llkgen.game.board import Board, Rules
from llkgen.generation.generator import FIRST_STREAM, FRESH_STREAM, candidate_streams, generate_level
from llkgen.generation.spec import parse_spec
from llkgen.generation.steer import MAX_SWAPS, PATIENCE, PRIOR_STEP, Steering, aim, swapped
from llkgen.jobs.pack import generate_pack

from specs import tiny_spec

#: The 2x8 trap of tests/analysis/test_difficulty.py: its true score is about 34.5.
TRAP = [[4, 3, 1, 4, 2, 3, 2, 3], [1, 4, 2, 1, 2, 3, 1, 4]]
NO_BORDER = Rules(border=False)

#: A tiny ramp whose targets most deals miss: the screening and the steering have work to do.
RAMP = {"ramp": "{over: score, from: 20, to: 35, tolerance: 8}", "grading": "{precision: 3}",
        "generator": "{strategy: shuffle, max_attempts: 400}"}


def _spec(**kw):
    return parse_spec(tiny_spec(**kw))


@pytest.mark.parametrize("window", [(0.0, 20.0), (28.0, 42.0), (32.0, 37.0), (45.0, 100.0), (30.0, None)])
def test_a_screening_settles_only_where_its_numbers_say(window):
    board = Board.from_grid(TRAP)
    low, high = window
    seen = set()
    for stream in range(30):
        s = screen(board, NO_BORDER, 3, window, stream=stream, precision=1.5)
        d = s.difficulty
        runs = {m: d.rates[m].runs for m in MODELS}
        cleared = {m: d.rates[m].cleared for m in MODELS}
        margin = SCREEN_SE * screening_se(cleared, runs)
        seen.add(s.settled)
        # Every model played from the first round: no model is guessed at 0 to 100%.
        assert all(r >= SCREEN_BATCH for r in runs.values())
        if s.settled == Settled.OUTSIDE:
            assert (low is not None and d.score + margin < low) or (high is not None and d.score - margin > high)
            assert d.settled_outside and not s.inside
        elif s.settled == Settled.INSIDE:
            assert (low is None or d.score - margin >= low) and (high is None or d.score + margin <= high)
            assert s.inside
        else:
            assert d.se <= SCREEN_PRECISION and d.complete
            assert s.inside == ((low is None or d.score >= low) and (high is None or d.score <= high))
        # The runs are the numbers a measurement plays on that stream.
        for m in MODELS:
            assert d.rates[m] == clear_rate(m, board, NO_BORDER, 3, stream=stream, min_runs=runs[m],
                                            max_runs=runs[m])
    if window == (0.0, 20.0):
        assert seen == {Settled.OUTSIDE}  # far above it
    if window == (28.0, 42.0):
        assert Settled.INSIDE in seen


def test_a_whole_screening_stops_at_its_own_precision_and_judges_against_the_guard_band():
    # A screening that settles neither way stops at SCREEN_PRECISION, not at the spec's 1.5 (the
    # fresh measurement judges such an edge case anyway), and sends the candidate on only if its
    # score lies inside the window narrowed by the fresh measurement's guard band. The trap's
    # true score (about 35) sits near the top of this window, inside it but outside its band.
    board = Board.from_grid(TRAP)
    window, band = (28.0, 36.0), 1.5
    full = measure(board, NO_BORDER, 3, precision=1.5)
    whole = [s for s in (screen(board, NO_BORDER, 3, window, stream=k, precision=1.5, band=band)
                         for k in range(30)) if s.settled == Settled.MEASURED]
    assert len(whole) >= 5
    for s in whole:
        d = s.difficulty
        assert 1.5 < d.se <= SCREEN_PRECISION and d.runs < full.runs
        assert s.inside == (window[0] + band <= d.score <= window[1] - band)
    # Some lie inside the window but outside its band: sent on without the band, not with it.
    assert any(window[0] <= s.difficulty.score <= window[1] and not s.inside for s in whole)


def test_the_predictive_stop_settles_outside_sooner_and_never_inside():
    # measure(predictive=True) settles a score outside its window by the spread of where it can
    # still end, sqrt(se^2 - precision^2), which is below its se: it stops at the same look as the
    # plain stop or sooner, and never stops a measurement whose score is inside the window.
    board = Board.from_grid(TRAP)  # true score about 35
    for window in ((0.0, 32.0), (38.0, 100.0), (30.0, 40.0)):
        plain = [measure(board, NO_BORDER, 3, stream=k, precision=1.5, window=window) for k in range(20)]
        early = [measure(board, NO_BORDER, 3, stream=k, precision=1.5, window=window, predictive=True)
                 for k in range(20)]
        assert all(e.runs <= p.runs for e, p in zip(early, plain))
        for e in early:
            assert not e.settled_outside or not window[0] <= e.score <= window[1]
            assert e.settled_outside or e.complete
        if window != (30.0, 40.0):
            assert sum(e.runs for e in early) < 0.85 * sum(p.runs for p in plain)
            assert sum(e.settled_outside for e in early) > sum(p.settled_outside for p in plain)


def test_a_screened_candidate_is_judged_against_the_band_and_measured_fresh_by_the_predictive_stop(monkeypatch):
    # make passes the guard band to the screening and the predictive stop to the fresh
    # measurement of a screened candidate (and only to that one).
    spec = _spec(count=2, **RAMP)
    bands, fresh = [], []
    real_screen, real_measure = generator.screen, generator.measure

    def spy_screen(play, rules, seed, window, **kw):
        bands.append(kw.get("band", 0.0))
        return real_screen(play, rules, seed, window, **kw)

    def spy_measure(play, rules, seed, **kw):
        fresh.append(kw.get("predictive", False))
        return real_measure(play, rules, seed, **kw)

    monkeypatch.setattr(generator, "screen", spy_screen)
    monkeypatch.setattr(generator, "measure", spy_measure)
    for i in range(spec.count):
        generate_level(spec, i)
    assert bands and set(bands) == {generator.AIMED_GUARD_SE * spec.grading.precision}
    assert fresh and all(fresh)


@pytest.mark.parametrize("screened", [True, False])
@pytest.mark.parametrize("inside", [0.6, 0.9, 1.1])
def test_a_screened_candidate_is_kept_by_the_aimed_guard_and_others_by_the_full_one(monkeypatch, screened, inside):
    # A fresh score `inside` of its standard errors inside the window's low bound: a screened
    # candidate's (a score window that aims) is judged against AIMED_GUARD_SE, any other's
    # against GUARD_SE. The two are both 1 as shipped; the aimed one is set apart here (as
    # benchmarks/ramp_bench.py --guards does) so that judging both paths alike, or swapping the
    # two constants, changes at least one outcome.
    monkeypatch.setattr(generator, "AIMED_GUARD_SE", 0.75)
    assert generator.AIMED_GUARD_SE < 0.9 < generator.GUARD_SE < 1.1
    spec = _spec(count=1, difficulty="{score: [20, 60], playthroughs: 8}", grading="{precision: 3}")
    run = generator._Attempts(spec, 0)
    board = Board.from_grid(TRAP)
    run.candidate = generator.Candidate(board, None, generator.Playout(board, run.rules), screened=screened)
    rates = {m: difficulty.Estimate.of(16, 32) for m in MODELS}
    se = 2.0
    score = 20.0 + inside * se
    first = difficulty.Difficulty(rates, 40.0, se, "random", FIRST_STREAM)  # unscreened: passes its first look
    fresh = difficulty.Difficulty(rates, score, se, "random", 99)
    monkeypatch.setattr(generator, "measure", lambda *a, stream, **kw: first if stream == FIRST_STREAM else fresh)
    rejected = run.ladder()
    guard = generator.AIMED_GUARD_SE if screened else generator.GUARD_SE
    assert (rejected is None) == (inside >= guard), (screened, inside, rejected)


def test_a_screening_far_from_its_window_costs_one_round():
    board = Board.from_grid(TRAP)
    s = screen(board, NO_BORDER, 1, (90.0, 100.0), precision=1.5)
    full = measure(board, NO_BORDER, 1, precision=1.5)
    assert s.settled == Settled.OUTSIDE and s.difficulty.runs == len(MODELS) * SCREEN_BATCH < full.runs / 5


def _spied(monkeypatch):
    """Record every screening and every measurement ``make`` runs, with their streams."""
    screens, measures = [], []
    real_screen, real_measure = generator.screen, generator.measure

    def spy_screen(play, rules, seed, window, **kw):
        s = real_screen(play, rules, seed, window, **kw)
        screens.append((play, kw["stream"], s))
        return s

    def spy_measure(play, rules, seed, **kw):
        d = real_measure(play, rules, seed, **kw)
        measures.append((play, kw["stream"], d))
        return d

    monkeypatch.setattr(generator, "screen", spy_screen)
    monkeypatch.setattr(generator, "measure", spy_measure)
    return screens, measures


def test_a_candidate_screened_out_is_never_measured_again_nor_kept(monkeypatch):
    spec = _spec(count=4, **RAMP)
    screens, measures = _spied(monkeypatch)
    for i in range(spec.count):
        screens.clear()
        measures.clear()
        lv = generate_level(spec, i)
        window = spec.targets(i)["difficulty"]
        out = [play for play, _, s in screens if not s.inside]
        assert out, "the ramp's window rejects most tiny deals: some must be screened out"
        assert all(play is not p for play in out for p, _, _ in measures)  # never measured again
        assert all(play.g != p.g or play is p for play in out for p, _, _ in measures[-1:])
        # Only screened-in candidates are measured, each once, on its own attempt's fresh stream,
        # and the kept level is the last of them, a guard band inside its window.
        assert len(measures) == sum(s.inside for _, _, s in screens)
        fresh = [stream for _, stream, _ in measures]
        assert len(set(fresh)) == len(fresh) and not {FIRST_STREAM, FRESH_STREAM} & set(fresh)
        kept = measures[-1][2]
        assert lv.players is not None and lv.players["stream"] == candidate_streams(lv.attempts)[1] == fresh[-1]
        assert lv.metrics["difficulty"] == round(kept.score, 2)
        assert window.contains(kept.score, generator.AIMED_GUARD_SE * kept.se)
        # Every attempt screens on its own stream, never the fresh stream of another.
        streams = [stream for _, stream, _ in screens]
        assert streams == [candidate_streams(a)[0] for a in range(1, len(streams) + 1)]
        assert not set(streams) & set(fresh)


def test_candidate_streams_are_disjoint_from_each_other_and_from_the_first_two():
    seen = [s for a in range(1, 500) for s in candidate_streams(a)]
    assert len(set(seen)) == len(seen) and min(seen) > max(FIRST_STREAM, FRESH_STREAM, 1000)


def _ladder_runs(spec, monkeypatch, aim_on: bool) -> int:
    played = [0]
    real = difficulty.playthroughs

    def counted(model, start, seed, stream, k0, k1):
        played[0] += k1 - k0
        return real(model, start, seed, stream, k0, k1)

    monkeypatch.setattr(difficulty, "playthroughs", counted)
    monkeypatch.setattr(generator, "AIM", aim_on)
    for i in range(spec.count):
        generate_level(spec, i)
    return played[0]


def test_aiming_costs_fewer_playthroughs_than_drawing_blindly(monkeypatch):
    # On the tiny ramp (4 levels), blind drawing measures every candidate with the whole
    # ladder; screening and steering must cut that clearly (measured: about a third).
    spec = _spec(count=4, **RAMP)
    blind = _ladder_runs(spec, monkeypatch, False)
    aimed = _ladder_runs(spec, monkeypatch, True)
    assert aimed < 0.7 * blind, (aimed, blind)


def test_steering_is_a_function_of_the_level_seed():
    spec = _spec(count=4, **RAMP)
    one = [generate_level(spec, i) for i in range(spec.count)]
    assert [generate_level(spec, i) for i in range(spec.count)] == one
    assert generate_pack(spec, jobs=2) == one


def test_steering_makes_children_of_the_closest_candidate(monkeypatch):
    # Some candidates must be swapped children: with the steering removed, none is.
    spec = _spec(count=4, **RAMP)
    children = []
    real = generator.Steering.next_board

    def spy(self, deal, rng):
        k = self.swaps()
        board = real(self, deal, rng)
        children.append(k)
        return board

    monkeypatch.setattr(generator.Steering, "next_board", spy)
    for i in range(spec.count):
        generate_level(spec, i)
    assert any(k > 0 for k in children) and children.count(0) >= spec.count


def test_a_swapped_board_keeps_its_cells_and_types():
    board = Board.from_grid([[1, 2, -1, 3], [3, 0, 2, 1]])
    rng = np.random.default_rng(1)
    for k in (1, 2, 5):
        b = swapped(board, k, rng)
        assert sorted(b.cells) == sorted(board.cells)
        assert [v <= 0 for v in b.cells] == [v <= 0 for v in board.cells]
        assert [i for i, v in enumerate(b.cells) if v == -1] == [2]
    assert swapped(board, 1, np.random.default_rng(2)) != board  # a swap of two types changes it
    one = Board.from_grid([[1, 1], [1, 1]])
    assert swapped(one, 3, rng) == one  # one type: nothing to swap


def test_the_fit_sets_how_many_swaps_the_next_candidate_gets():
    s = Steering(target=aim(20.0, 30.0))
    assert s.target == 25.0 and aim(None, 40.0) == 20.0 and aim(60.0, None) == 80.0
    assert s.swaps() == 0  # nothing measured yet: a new deal
    board = Board.from_grid(TRAP)
    s.record(board, 25.0 + PRIOR_STEP * math.sqrt(1.9))  # under two prior steps (squared) away: two swaps
    assert s.swaps() == 2
    s.record(Board.from_grid(TRAP), 90.0)  # further: not the closest, changes nothing
    assert s.best is board and s.swaps() == 2
    far = Steering(target=25.0)
    far.record(board, 25.0 + PRIOR_STEP * math.sqrt(MAX_SWAPS + 1))
    assert far.swaps() == 0  # too far for a child: a new deal
    # Children that move the score far per swap widen the fitted step, so fewer swaps follow.
    s = Steering(target=25.0)
    s.record(board, 35.0)
    before = s.swaps()
    for _ in range(5):
        s.next_board(lambda: board, np.random.default_rng(0))
        s.record(Board.from_grid(TRAP), 35.0 + 40.0)
    assert s.step() > PRIOR_STEP and s.swaps() < before
    # A closest one whose candidates keep coming no closer is given up for a new deal.
    s = Steering(target=25.0)
    s.record(board, 27.0)
    for i in range(PATIENCE):
        assert s.best is board and s.swaps() >= 1
        s.next_board(lambda: board, np.random.default_rng(i))
        s.record(Board.from_grid(TRAP), 40.0)
    assert s.best is None and s.swaps() == 0
