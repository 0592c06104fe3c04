"""The ladder in order (:mod:`llkgen.analysis.ladder`): :data:`STRENGTH` is a permutation of the
models, a level's profile follows it, its tier in that order is the weakest model from which
every stronger one clears reliably, and the breaks are exactly the pairs where a weaker model
clears reliably and a stronger one does not -- held to a brute-force reading of the definition
on every profile of rates from a small grid. Re-grading spreads no more than the issue allows."""

from __future__ import annotations

import itertools
import statistics

import pytest

from llkgen.analysis import native_players
from llkgen.analysis.audit import regrade
from llkgen.analysis.ladder import HINT, MODELS, RELIABLY, STRENGTH, profile
from llkgen.formats.level import Level
from llkgen.generation.generator import generate_level
from llkgen.generation.spec import load_spec_ref


def test_strength_orders_every_model_once():
    assert sorted(STRENGTH) == sorted(MODELS)


def oracle(rates: dict[str, float]) -> tuple[str, set[tuple[str, str]]]:
    """The definition read literally: try each model weak to strong (then hint), and every pair."""
    tier = next((m for i, m in enumerate(STRENGTH) if all(rates[s] >= RELIABLY for s in STRENGTH[i:])), HINT)
    breaks = {(w, s) for i, w in enumerate(STRENGTH) for s in STRENGTH[i + 1:]
              if rates[w] >= RELIABLY > rates[s]}
    return tier, breaks


@pytest.mark.parametrize("values", list(itertools.product((0.2, 0.8, 1.0), repeat=len(MODELS))))
def test_profile_against_the_definition(values):
    rates = dict(zip(MODELS, values))
    p = profile(rates)
    tier, breaks = oracle(rates)
    assert p.ordered_tier == tier and set(p.breaks) == breaks and p.monotone == (not breaks)
    assert [m for m, _ in p.rates] == list(STRENGTH)
    assert ("not monotone" in p.text()) == bool(breaks)


def test_the_text_names_the_model_that_fails_and_the_weaker_ones_that_do_not():
    p = profile({"random": 0.9, "nearest": 0.6, "lookahead": 0.95, "careful": 0.97, "deep": 0.9})
    assert p.text() == ("not monotone: nearest 0.60 is not reliable where weaker random, lookahead, deep, careful "
                        "are; tier in strength order hint")


@pytest.mark.skipif(not native_players.AVAILABLE, reason="the C players are not built: this would take minutes")
@pytest.mark.parametrize("name", ["medium", "gravity"])
def test_re_grading_spreads_less_than_two_points(name):
    # Issue 30's standing claim: a level re-graded with new seeds moves by a median sd of at
    # most 2 points (measured 1.44 on medium and 1.18 on gravity over 132 levels, 4 seeds each).
    # Six levels, four seeds each: the median of six sds sits well inside 2 if the claim holds
    # (a precision setting ignored, or streams that doubled the error, would fail it).
    spec = load_spec_ref(name).with_overrides(count=6)
    sds = []
    for i in range(6):
        lv = generate_level(spec, i)
        level = Level(lv.board, lv.rules, f"{name}-{i}", {"metrics": lv.metrics})
        sds.append(statistics.stdev(regrade(level, seed, precision=spec.grading.precision).difficulty.score
                                    for seed in range(4)))
    assert statistics.median(sds) <= 2.0, sds
