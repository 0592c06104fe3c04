"""Claims about the ladder's difficulty numbers, checked against what the code does: the seed
streams ``make``, ``llkgen grade`` and the random clear-rate filter draw from are disjoint; a
window the run cap cannot resolve is refused; the give-up message reports whole measurements
only; the shipped ramp holds when re-graded; the reported error matches the scatter of
re-measurements on shipped levels; and one known limitation (xfail strict: it starts passing when it is lifted): a kept
score is still pulled towards its window.

Every test is seeded. The board is the 2x8 trap of tests/test_difficulty.py: its true score is
about 34.5 (random clears 28%, nearest and lookahead 50%, careful and deep always; 4096 runs a
model; the mean of 300 measurements at precision 1.5 is 34.47)."""

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
from llkgen.analysis.difficulty import FIRST_STREAM, FRESH_STREAM, measure
from llkgen.analysis.ladder import MODELS
from llkgen.analysis.metrics import RANDOM_CLEAR_KEY
from llkgen.analysis.players import PLAYERS_KEY, PlayRng, model_base, run_rng
from llkgen.errors import GenerationError, SpecError
from llkgen.game.board import Board, Rules
from llkgen.game.playout import Playout
from llkgen.generation.generator import Candidate, _Attempts, generate_level, level_seed
from llkgen.generation.spec import load_spec_ref, parse_spec

from specs import tiny_spec

TRAP = [[4, 3, 1, 4, 2, 3, 2, 3], [1, 4, 2, 1, 2, 3, 1, 4]]
NO_BORDER = Rules(border=False)


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
        kept = level.extra["metrics"]["difficulty"]
        assert abs(kept - target) <= ramp.tolerance - level.extra["metrics"]["difficulty_se"] + 0.01
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
