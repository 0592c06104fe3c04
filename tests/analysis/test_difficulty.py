"""The difficulty of :mod:`llkgen.analysis.difficulty` and how ``make`` keeps it: the score and
its error, the adaptive runs, the early stop, the tier, the fresh re-measurement of levels kept
for a target, and the spec keys that ask for them.

The statistical claims are tested with independent seed streams: the reported standard error
must match the scatter of re-measurements, and a level kept for a window must not be biased
towards it when measured again."""

from __future__ import annotations

import math
import statistics

import pytest

from llkgen.analysis.difficulty import (
    FIRST_STREAM,
    FRESH_STREAM,
    measure,
    score_of,
)
from llkgen.analysis.ladder import MODELS, RELIABLY, TIERS
from llkgen.analysis.players import Estimate, clear_rate, tier
from llkgen.errors import SpecError
from llkgen.game.board import Board, Rules
from llkgen.generation.generator import InternalError, generate_level
from llkgen.generation.spec import parse_spec, spec_from_dict

from specs import tiny_spec

#: No border, no gravity: random play clears it about a quarter of the time, careful always
#: (see tests/test_players.py).
TRAP = [[4, 3, 1, 4, 2, 3, 2, 3], [1, 4, 2, 1, 2, 3, 1, 4]]
NO_BORDER = Rules(border=False)


def test_score_is_the_mean_fail_rate_with_independent_errors():
    rates = {m: Estimate.of(c, 64) for m, c in zip(MODELS, (16, 64, 32, 48, 8))}
    score, se = score_of(rates)
    assert score == pytest.approx(100 * sum(1 - c / 64 for c in (16, 64, 32, 48, 8)) / 5)
    assert se == pytest.approx(100 * math.sqrt(sum(e.se ** 2 for e in rates.values())) / 5)


def test_a_measurement_is_its_models_estimates_on_their_own_streams():
    board = Board.from_grid(TRAP)
    d = measure(board, NO_BORDER, 7, stream=3, precision=4.0)
    for m in MODELS:
        alone = clear_rate(m, board, NO_BORDER, 7, stream=3, min_runs=d.rates[m].runs, max_runs=d.rates[m].runs)
        assert alone == d.rates[m]
    assert (d.score, d.se) == score_of(d.rates) and d.tier == tier(d.rates, RELIABLY)
    assert d.complete and d.se <= 4.0 and not d.settled_outside
    assert measure(board, NO_BORDER, 7, stream=3, precision=4.0) == d
    assert measure(board, NO_BORDER, 7, stream=4, precision=4.0) != d


@pytest.mark.parametrize("precision", [1.0, 2.5, 6.0])
def test_precision_is_reached_and_costs_runs(precision):
    d = measure(Board.from_grid(TRAP), NO_BORDER, 1, precision=precision)
    assert d.complete and d.se <= precision
    assert all(e.runs % 32 == 0 for e in d.rates.values())
    if precision < 6:
        assert d.runs > measure(Board.from_grid(TRAP), NO_BORDER, 1, precision=6.0).runs


def test_max_runs_caps_every_model():
    d = measure(Board.from_grid(TRAP), NO_BORDER, 1, precision=0.25, max_runs=64)
    assert d.complete and d.se > 0.25 and all(e.runs == 64 for e in d.rates.values())


def test_a_clear_rate_target_is_measured_to_its_own_precision():
    d = measure(Board.from_grid(TRAP), NO_BORDER, 2, precision=10.0, rate_se={"lookahead": 0.03})
    assert d.rates["lookahead"].se <= 0.03 < d.rates["random"].se


def test_the_reported_error_matches_the_scatter_of_re_measurements():
    # 40 independent streams of one board: the sd of their scores must agree with the mean
    # reported se (for 40 samples the sample sd is within about +-25% of the true sd at 2 sigma).
    board = Board.from_grid(TRAP)
    runs = [measure(board, NO_BORDER, 11, stream=s, precision=3.0) for s in range(40)]
    sd = statistics.stdev(d.score for d in runs)
    se = statistics.fmean(d.se for d in runs)
    assert 0.6 * se <= sd <= 1.3 * se, (sd, se)


def test_early_stop_outside_a_window_and_never_inside():
    board = Board.from_grid(TRAP)
    full = measure(board, NO_BORDER, 5, precision=1.0)
    far = measure(board, NO_BORDER, 5, precision=1.0, window=(full.score + 30, None))
    assert far.settled_outside and not far.complete and far.runs < full.runs
    near = measure(board, NO_BORDER, 5, precision=1.0, window=(full.score - 10, full.score + 10))
    assert near == full


def test_tier_is_the_weakest_reliable_model():
    def rates(*cleared):
        return {m: Estimate.of(c, 100) for m, c in zip(MODELS, cleared)}

    assert tier(rates(80, 100, 100, 100, 100), RELIABLY) == "random"
    assert tier(rates(20, 79, 90, 10, 10), RELIABLY) == "lookahead"
    assert tier(rates(0, 0, 0, 0, 0), RELIABLY) == "hint" == TIERS[-1]
    d = measure(Board.from_grid(TRAP), NO_BORDER, 1, precision=3.0)
    assert d.tier == "careful" and d.rates["careful"].rate == 1.0


def test_players_json_and_metrics_round():
    d = measure(Board.from_grid(TRAP), NO_BORDER, 1, precision=3.0)
    assert d.metrics() == {"difficulty": round(d.score, 2), "difficulty_se": round(d.se, 2)}
    pj = d.players_json()
    assert pj["tier"] == d.tier and pj["stream"] == FIRST_STREAM and list(pj["clear_rates"]) == list(MODELS)


# -- make: targets and the fresh re-measurement -------------------------------------------------

def _spec(**kw):
    return parse_spec(tiny_spec(**kw))


def test_a_level_without_targets_keeps_its_one_measurement():
    spec = _spec(count=1)
    lv = generate_level(spec, 0)
    d = measure(lv.board, lv.rules, lv.seed, stream=FIRST_STREAM, precision=spec.grading.precision)
    assert lv.metrics["difficulty"] == round(d.score, 2) and lv.players == d.players_json()
    assert lv.metrics["pairs"] == lv.board.tile_count // 2


def test_a_level_kept_for_a_window_keeps_its_fresh_measurement():
    spec = _spec(count=2, difficulty="{score: [0, 40], playthroughs: 8}", grading="{precision: 3}")
    for i in range(2):
        lv = generate_level(spec, i)
        fresh = measure(lv.board, lv.rules, lv.seed, stream=FRESH_STREAM, precision=3.0, window=(0.0, 40.0))
        assert lv.players == fresh.players_json() and lv.players["stream"] == FRESH_STREAM
        assert lv.metrics["difficulty"] == round(fresh.score, 2) and 0 <= fresh.score <= 40


def test_kept_scores_are_not_biased_towards_their_window():
    # The winner's curse: keeping the measurement that selected a level biases it into the
    # window. The kept (fresh) score is an independent sample: measured once more on an
    # unrelated stream, the differences average out to zero within their error.
    spec = _spec(count=8, difficulty="{score: [15, 45], playthroughs: 8}", grading="{precision: 3}",
                 generator="{strategy: shuffle, max_attempts: 400}")
    diffs, ses = [], []
    for i in range(spec.count):
        lv = generate_level(spec, i)
        again = measure(lv.board, lv.rules, lv.seed, stream=7, precision=3.0)
        diffs.append(again.score - lv.metrics["difficulty"])
        ses.append(math.hypot(again.se, lv.metrics["difficulty_se"]))
    bound = 3 * math.sqrt(sum(s * s for s in ses)) / len(ses)
    assert abs(statistics.fmean(diffs)) <= bound, (diffs, bound)


def test_tier_and_clear_rate_targets_hold_on_the_kept_measurement():
    spec = _spec(count=2, difficulty="{tier: [random, nearest], clear_rate: {random: [0.5, 1.0]}, playthroughs: 8}")
    for i in range(2):
        lv = generate_level(spec, i)
        assert lv.players["tier"] in ("random", "nearest")
        assert lv.players["clear_rates"]["random"]["rate"] >= 0.5 and lv.players["stream"] == FRESH_STREAM


@pytest.mark.parametrize("sections", [
    {"difficulty": "{score: [15, 45], playthroughs: 8}", "grading": "{precision: 3}"},
    {"difficulty": "{tier: [random, nearest], clear_rate: {random: [0.5, 1.0]}, playthroughs: 8}"},
    {"ramp": "{over: score, from: 20, to: 35, tolerance: 8}", "grading": "{precision: 3}"},
    {"ramp": "{over: tier, from: random, to: nearest}"},
])
def test_grading_before_certifying_keeps_the_same_levels(sections, monkeypatch):
    # With a ladder target, make grades a candidate before certifying it: every stage is a
    # function of the candidate, so the first candidate they all pass, and every number kept
    # with it, is the same in either order. Only the cost changes.
    import llkgen.generation.generator as generator

    spec = _spec(count=4, generator="{strategy: shuffle, max_attempts: 400}", **sections)
    first = [generate_level(spec, i) for i in range(spec.count)]
    monkeypatch.setattr(generator, "GRADE_FIRST", False)
    after = [generate_level(spec, i) for i in range(spec.count)]
    assert first == after
    assert [list(lv.metrics) for lv in first] == [list(lv.metrics) for lv in after]
    assert sum(lv.attempts for lv in first) > spec.count  # the targets rejected candidates


def test_a_construction_that_does_not_replay_is_caught_before_the_ladder(monkeypatch):
    # The construction's order is replayed by the referee before the ladder grades the
    # candidate, so a faulty construction raises even where the ladder would reject every
    # candidate (a window no tiny board reaches).
    import llkgen.generation.generator as generator

    real = generator.construct

    def faulty(spec, rng):
        built = real(spec, rng)
        return None if built is None else (built[0], built[1][::-1])

    monkeypatch.setattr(generator, "construct", faulty)
    spec = _spec(count=1, generator="{strategy: constructive, max_attempts: 20}",
                 difficulty="{score: [88, 100], playthroughs: 8}", grading="{precision: 3}")
    with pytest.raises(InternalError, match="does not replay"):
        generate_level(spec, 0)


def test_a_tier_ramp_gives_each_level_its_tier():
    spec = _spec(count=3, ramp="{over: tier, from: random, to: random}")
    assert [generate_level(spec, i).players["tier"] for i in range(3)] == ["random"] * 3
    spec = _spec(count=5, ramp="{over: tier, from: random, to: hint}")
    assert [spec.tiers(i, TIERS) for i in range(5)] == [("random",), ("nearest",), ("careful",), ("deep",), ("hint",)]


def test_grading_off_writes_no_score():
    lv = generate_level(_spec(count=1, grading="{enabled: false}"), 0)
    assert lv.players is None and "difficulty" not in lv.metrics and lv.metrics["pairs"] == 12


# -- the spec keys ------------------------------------------------------------------------------

@pytest.mark.parametrize(("overrides", "message"), [
    ({"grading": "{playthroughs: 2}"}, "grading.playthroughs: no longer a spec key"),
    ({"grading": "{nodes: 20000}"}, "grading.nodes: no longer a spec key"),
    ({"grading": "{precision: 0}"}, "expected a number in 0.25..50"),
    ({"grading": "{max_runs: 8}"}, "expected an integer in 32.."),
    ({"difficulty": "{tier: expert}"}, "expected a tier: one of random, nearest, lookahead, careful, deep, hint"),
    ({"difficulty": "{tier: []}"}, "a tier name or a non-empty list"),
    ({"difficulty": "{clear_rate: {carefull: [0, 1]}}"}, 'did you mean "careful"'),
    ({"difficulty": "{clear_rate: {careful: [0, 2]}}"}, "a number in 0..1 or null"),
    ({"difficulty": "{score: [20, 22]}"}, "difficulty.score: expected a window at least 6 wide"),
    ({"difficulty": "{clear_rate: {careful: [0.5, 0.55]}}"}, "at least 0.12 wide"),
    ({"ramp": "{from: 10, to: 50, tolerance: 2}"}, "ramp.tolerance: expected at least 2 x grading.precision = 3"),
    ({"ramp": "{from: 10, to: 50, tolerance: 2}", "grading": "{precision: 1}"}, None),
    ({"ramp": "{over: clear_rate.careful, from: 0.9, to: 0.3, tolerance: 0.04}"}, "grading.rate_precision = 0.06"),
    ({"ramp": "{over: tier, from: random, to: hint, tolerance: 1}"}, "not allowed with over: tier"),
    ({"ramp": "{over: tier, from: random, to: expert}"}, "expected a tier"),
    ({"ramp": "{over: score, from: 10, to: 50}", "difficulty": "{score: [0, 50]}"}, "either ramp or difficulty.score"),
    ({"ramp": "{over: tier, from: random, to: hint}", "difficulty": "{tier: random}"}, "either a tier ramp"),
    ({"ramp": "{over: clear_rate.carefull, from: 0.1, to: 0.5}"}, 'did you mean "clear_rate.careful"'),
    ({"difficulty": "{tier: careful}", "grading": "{enabled: false}"}, "grading.enabled: expected true"),
])
def test_spec_keys_and_their_errors(overrides, message):
    text = tiny_spec(**overrides)
    if message is None:
        parse_spec(text)
        return
    with pytest.raises(SpecError) as err:
        parse_spec(text)
    assert message in str(err.value)


def test_new_keys_round_trip_through_to_dict():
    for kw in ({"difficulty": "{tier: [nearest, careful], clear_rate: {careful: [0.2, 0.8]}}"},
               {"ramp": "{over: tier, from: nearest, to: hint}"},
               {"ramp": "{over: clear_rate.careful, from: 0.9, to: 0.3, tolerance: 0.1}",
                "grading": "{precision: 2, rate_precision: 0.04, max_runs: 256}"}):
        spec = _spec(**kw)
        assert spec_from_dict(spec.to_dict()) == spec
