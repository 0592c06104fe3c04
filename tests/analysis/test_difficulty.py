"""The difficulty of :mod:`llkgen.analysis.difficulty` and how ``make`` keeps it: the score and
its error, the adaptive runs, the early stop, the tier, the fresh re-measurement of levels kept
for a target, and the spec keys that ask for them.

The statistical claims are tested with independent seed streams: the reported standard error
must match the scatter of re-measurements, and a level kept for a window must not be biased
towards it when measured again.

Then the claims about the ladder's numbers as the commands use them: the seed streams ``make``,
``llkgen grade`` and the random clear-rate filter draw from are disjoint; a window the run cap
cannot resolve is refused; the give-up message reports whole measurements only; the shipped ramp
holds when re-graded; the reported error matches the scatter of re-measurements on shipped
levels; and one known limitation (xfail strict: it starts passing when it is lifted): a kept
score is still pulled towards its window. Their board is :data:`TRAP`: its true score is about
34.5 (random clears 28%, nearest and lookahead 50%, careful and deep always; 4096 runs a model;
the mean of 300 measurements at precision 1.5 is 34.47)."""

from __future__ import annotations

import math
import re
import statistics

import numpy as np
import pytest

import llkgen
import llkgen.generation.generator as generator
from llkgen.analysis import native_players
from llkgen.analysis.audit import AUDIT_KEY, audit_seed, regrade
from llkgen.analysis.difficulty import (
    FIRST_STREAM,
    FRESH_STREAM,
    measure,
    score_of,
)
from llkgen.analysis.ladder import MODELS, RELIABLY, TIERS
from llkgen.analysis.metrics import RANDOM_CLEAR_KEY
from llkgen.analysis.players import PLAYERS_KEY, Estimate, PlayRng, clear_rate, model_base, run_rng, tier
from llkgen.errors import GenerationError, SpecError
from llkgen.game.board import Board, Rules
from llkgen.game.playout import Playout
from llkgen.generation.generator import (
    Candidate,
    InternalError,
    _Attempts,
    candidate_streams,
    generate_level,
    level_seed,
)
from llkgen.generation.spec import load_spec_ref, parse_spec, spec_from_dict

from specs import tiny_spec

#: No border, no gravity: random play clears it about a quarter of the time, careful always
#: (see tests/analysis/test_players.py).
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
    # Screened (a score window): the fresh measurement is on the kept attempt's own stream.
    spec = _spec(count=2, difficulty="{score: [0, 40], playthroughs: 8}", grading="{precision: 3}")
    for i in range(2):
        lv = generate_level(spec, i)
        stream = candidate_streams(lv.attempts)[1]
        fresh = measure(lv.board, lv.rules, lv.seed, stream=stream, precision=3.0, window=(0.0, 40.0))
        assert lv.players == fresh.players_json() and lv.players["stream"] == stream
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


# -- the ladder's numbers as make and grade use them --------------------------------------------


def _state(seed: int, key: tuple[int, ...]) -> tuple[int, ...]:
    return tuple(int(x) for x in np.random.SeedSequence(seed, spawn_key=key).generate_state(4))


def test_make_grade_and_the_filter_draw_from_disjoint_seed_streams():
    # make: level seed -> the deal (no spawn key), the random clear-rate filter (RANDOM_CLEAR_KEY,), the ladder
    # (PLAYERS_KEY, stream, model, k) on streams 0 and 1. grade: audit_seed(seed, id) -> the
    # ladder on stream 0 of that seed. No two of them may share a generator.
    seed = level_seed(3, 0)
    states = {("deal",): tuple(int(x) for x in np.random.SeedSequence(seed).generate_state(4))}
    states[("filter",)] = _state(seed, (RANDOM_CLEAR_KEY,))
    # The ladder's playthroughs draw from a per-model base word (the first of the state of
    # (PLAYERS_KEY, stream, model)) and the run number: PlayRng(base, k).
    for stream in (FIRST_STREAM, FRESH_STREAM):
        for i, m in enumerate(MODELS):
            states[("make", stream, m)] = _state(seed, (PLAYERS_KEY, stream, i))
            base = int(np.random.SeedSequence(seed, spawn_key=(PLAYERS_KEY, stream, i)).generate_state(
                1, np.uint64)[0])
            assert model_base(seed, stream, m) == base
            for k in range(4):
                # run_rng is exactly this generator
                assert run_rng(seed, stream, m, k).below(1 << 60) == PlayRng(base, k).below(1 << 60)
    for grade_seed in (0, 1, 3):
        lseed = audit_seed(grade_seed, "tiny-1")
        assert lseed != seed
        for i, m in enumerate(MODELS):
            states[("grade", grade_seed, m)] = _state(lseed, (PLAYERS_KEY, FIRST_STREAM, i))
    assert len(set(states.values())) == len(states)
    # within one base, the runs' first draws differ
    base = model_base(seed, FIRST_STREAM, "random")
    assert len({PlayRng(base, k).below(1 << 62) for k in range(256)}) == 256
    # The three spawn keys' first words differ.
    assert len({RANDOM_CLEAR_KEY, PLAYERS_KEY, AUDIT_KEY}) == 3
    assert FIRST_STREAM != FRESH_STREAM


def _trap_attempts(window: str) -> tuple[_Attempts, Board, Playout]:
    """make's attempts at level 0 of a spec with this score window at precision 3, set to play
    the trap board without border (the caller puts it in as the candidate)."""
    spec = parse_spec(tiny_spec(count=1, difficulty=f"{{score: {window}, playthroughs: 8}}",
                                grading="{precision: 3}"))
    run = _Attempts(spec, 0)
    run.rules = NO_BORDER
    board = Board.from_grid(TRAP)
    return run, board, Playout(board, NO_BORDER)


# -- a known limitation (xfail strict: it starts passing when lifted) -----------------------------

@pytest.mark.xfail(strict=True, reason="the fresh measurement must also lie in the window (as the spec "
                                       "promises), so the kept value is truncated to it: biased into it")
def test_a_kept_score_is_an_unselected_sample_of_its_board():
    # One board whose true score (34.5) sits at the low edge of the window [34, 46] (the
    # narrowest window precision 3 allows). make's ladder stage runs on it with 300 level seeds;
    # each kept score is compared with a third measurement on an unrelated stream. If the kept
    # value were an independent sample given the board (the module docstring's claim), the
    # differences would average 0; keeping the fresh value only when it lands a guard band inside
    # the window pulls it up (here: +3.7 points, about 1.3 se, over the 30 seeds that kept it).
    run, board, play = _trap_attempts("[34, 46]")
    diffs = []
    for seed in range(300):
        run.seed = seed
        run.candidate = Candidate(board, None, play)
        if run.ladder() is None:
            kept = run.candidate.difficulty
            assert kept is not None and kept.stream == FRESH_STREAM
            third = measure(play, NO_BORDER, seed, stream=7, precision=3.0)
            diffs.append(kept.score - third.score)
    assert len(diffs) >= 15
    bound = 3 * statistics.stdev(diffs) / math.sqrt(len(diffs))
    assert abs(statistics.fmean(diffs)) <= bound, (statistics.fmean(diffs), bound, len(diffs))


def test_a_kept_score_lies_a_guard_band_inside_its_window(monkeypatch):
    # The trap board's true score (34.5) sits inside [28, 46] but near its low edge. Every kept
    # level's fresh score must lie GUARD_SE of its own standard errors inside the window; some
    # fresh scores that land inside the window but not inside the band must be turned down.
    assert generator.GUARD_SE == 1.0
    run, board, play = _trap_attempts("[28, 46]")
    fresh_scores = []
    original = generator.measure

    def spy(*args, **kw):
        d = original(*args, **kw)
        if kw.get("stream") == FRESH_STREAM:
            fresh_scores.append(d)
        return d

    monkeypatch.setattr(generator, "measure", spy)
    kept = banded_out = 0
    for seed in range(80):
        run.seed = seed
        run.candidate = Candidate(board, None, play)
        fresh_scores.clear()
        if run.ladder() is None:
            d = run.candidate.difficulty
            assert d is not None and 28 + d.se <= d.score <= 46 - d.se, (seed, d.score, d.se)
            kept += 1
        elif fresh_scores and 28 <= fresh_scores[0].score < 28 + fresh_scores[0].se:
            banded_out += 1  # inside the window, not inside the band: rejected
    assert kept >= 20 and banded_out >= 3, (kept, banded_out)


def test_a_window_the_run_cap_cannot_resolve_is_refused():
    # precision 0.5 lets a window of width 2 through, but 32 runs a model give a score se of
    # about 3.2 points at these rates: the window is 0.3 se wide on each side.
    text = tiny_spec(count=1, difficulty="{score: [20, 22], playthroughs: 8}",
                     grading="{precision: 0.5, max_runs: 32}")
    with pytest.raises(SpecError, match="that grading.max_runs leaves at worst"):
        parse_spec(text)
    # The cap is what makes it unmeasurable: 32 runs leave the score an error far above 0.5.
    d = measure(Board.from_grid(TRAP), NO_BORDER, 1, precision=0.5, max_runs=32)
    assert d.se > 2 * 0.5
    parse_spec(text.replace("max_runs: 32", "max_runs: 65536"))  # enough runs: accepted


def test_the_give_up_message_reports_measured_scores(monkeypatch):
    # Every candidate misses [88, 100]; most are screened out after a round or two. The range
    # of "measured scores" in the message must be that of the candidates' real scores (their
    # full measurements), not of screenings stopped early.
    spec = parse_spec(tiny_spec(count=1, difficulty="{score: [88, 100], playthroughs: 8}",
                                grading="{precision: 3}", generator="{strategy: shuffle, max_attempts: 12}"))
    real = []
    original, screen = generator.measure, generator.screen

    def spy(*args, **kw):
        d = original(*args, **kw)
        real.append(original(*args, **{**kw, "window": None}).score)
        return d

    def spy_screen(play, rules, seed, window, **kw):
        s = screen(play, rules, seed, window, **kw)
        real.append(original(play, rules, seed, stream=kw["stream"], precision=kw["precision"],
                             max_runs=kw["max_runs"]).score)
        return s

    monkeypatch.setattr(generator, "measure", spy)
    monkeypatch.setattr(generator, "screen", spy_screen)
    with pytest.raises(GenerationError) as info:
        generate_level(spec, 0)
    message = str(info.value)
    ranged = re.search(r"measured scores ranged (\d+\.\d)\.\.(\d+\.\d)", message)
    if ranged is not None:
        low, high = map(float, ranged.groups())
        assert min(real) - 0.05 <= low and high <= max(real) + 0.05, (low, high, min(real), max(real))
    # The early stops are counted as what they are, without a score.
    assert re.search(r"\d+ screened out early, settled more than 1 standard error outside", message), message


# -- the shipped ramp, re-graded ------------------------------------------------------------------

@pytest.mark.skipif(not native_players.AVAILABLE, reason="the C players are not built: the ramp would take minutes")
def test_the_shipped_ramp_holds_when_re_graded():
    # The target: re-graded with fresh seeds (what llkgen grade does), at least 90% of the
    # shipped ramp's levels land within its tolerance of their targets; docs/difficulty.md
    # measures 95% over eight packs. 24 re-grades of one pack are too few to hold 90% exactly
    # (a pack at 95% misses 3 or more of 24 one time in nine), so this holds them to 20 of 24:
    # a change that let the winner's curse back in (17 of 36 landed inside once) fails it.
    pack = llkgen.generate("ramp")
    spec = load_spec_ref("ramp")
    ramp = spec.ramp
    assert ramp is not None and spec.count == len(pack.levels) == 12
    within = 0
    for i, level in enumerate(pack.levels):
        target = ramp.start + (ramp.end - ramp.start) * i / (spec.count - 1)
        kept, kept_se = level.extra["metrics"]["difficulty"], level.extra["metrics"]["difficulty_se"]
        # A score ramp aims: its kept fresh score lies AIMED_GUARD_SE of its se inside the window.
        assert abs(kept - target) <= ramp.tolerance - generator.AIMED_GUARD_SE * kept_se + 0.01
        for seed in (1, 2):
            fresh = regrade(level, seed, precision=spec.grading.precision).difficulty
            within += abs(fresh.score - target) <= ramp.tolerance
    assert within >= 20, within


# -- the reported error on shipped levels ---------------------------------------------------------

@pytest.mark.skipif(not native_players.AVAILABLE, reason="the C players are not built: this would take minutes")
@pytest.mark.parametrize("name", ["medium", "gravity"])
def test_the_reported_error_matches_the_scatter_on_shipped_levels(name):
    # docs/difficulty.md, "Is the reported error honest?": six measurements of a shipped level
    # on six streams scatter as much as their reported se says (ratio 0.96 on medium, 0.99 on
    # gravity, over 40 levels). Here 8 levels (today 0.82 and 0.95): the ratio must lie within
    # 0.7 to 1.35. That catches gross faults only: streams that shared draws (no scatter: 0), or
    # an error some 30-40% too small or too big. A se that left out one model of five is not
    # caught here (0.87-1.07); test_score_is_the_mean_fail_rate_with_independent_errors holds
    # the formula itself.
    spec = load_spec_ref(name).with_overrides(count=8)
    variances, reported = [], []
    for i in range(8):
        lv = generate_level(spec, i)
        start = Playout(lv.board, lv.rules)
        ms = [measure(start, lv.rules, lv.seed, stream=100 + s, precision=spec.grading.precision) for s in range(6)]
        variances.append(statistics.variance(d.score for d in ms))
        reported.append(statistics.fmean(d.se ** 2 for d in ms))
    ratio = math.sqrt(statistics.fmean(variances) / statistics.fmean(reported))
    assert 0.7 <= ratio <= 1.35, ratio
