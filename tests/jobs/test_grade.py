"""``llkgen grade``: levels measured afresh, with their errors, beside what the pack stores."""

from __future__ import annotations

import json
import math

import pytest

import llkgen
from llkgen.analysis.audit import audit_seed, regrade
from llkgen.analysis.ladder import TIERS
from llkgen.analysis.metrics import random_clear_rate

from cli_runner import run_cli_in_process
from specs import tiny_spec


@pytest.fixture(scope="module")
def pack_path(tmp_path_factory):
    path = tmp_path_factory.mktemp("grade") / "tiny.json"
    pack = llkgen.generate(tiny_spec(count=2))
    llkgen.write_json_atomic(path, llkgen.pack_to_json(pack))
    return path


@pytest.fixture
def cli(monkeypatch, capsys):
    return lambda *argv: run_cli_in_process([str(a) for a in argv], monkeypatch, capsys)


def _report(cli, *argv):
    code, out, err = cli("grade", *argv, "--json", "--jobs", "1")
    assert code == 0, err
    return json.loads(out)


def test_report_shape_errors_and_stored_values(cli, pack_path):
    rep = _report(cli, pack_path)
    assert rep["format"] == "llkgen.grade-report/2" and rep["seed"] == 0 and rep["precision"] == 1.5
    stored = json.loads(pack_path.read_text())["levels"]
    assert [lv["id"] for lv in rep["levels"]] == [lv["id"] for lv in stored]
    for lv, old in zip(rep["levels"], stored):
        assert lv["status"] == "measured"
        assert lv["pairs"] == sum(x > 0 for row in old["grid"] for x in row) // 2 == old["metrics"]["pairs"]
        rates = lv["players"]["clear_rates"]
        assert lv["random_clear_rate"] == rates["random"]
        assert set(rates) == {"random", "nearest", "lookahead", "careful", "deep"}
        assert all(e["se"] > 0 and e["runs"] >= 32 for e in rates.values())
        assert lv["tier"] == lv["players"]["tier"] and lv["tier"] in TIERS
        d = lv["difficulty"]
        assert 0 < d["se"] <= 1.5 and 0 <= d["value"] <= 100
        assert d["runs"] == sum(e["runs"] for e in rates.values())
        # the score is 100 x the mean fail rate of the models
        assert d["value"] == pytest.approx(100 * sum(1 - e["rate"] for e in rates.values()) / 5, abs=0.02)
        # stored beside fresh, and the drift between them, judged with both errors
        assert lv["stored"]["difficulty"] == old["metrics"]["difficulty"]
        assert lv["stored"]["difficulty_se"] == old["metrics"]["difficulty_se"]
        assert lv["stored"]["random_clear_rate"] == old["metrics"]["random_clear_rate"]
        assert lv["stored"]["tier"] == old["players"]["tier"]
        assert lv["stored"]["random_clear_runs"] == old["metrics"]["random_clear_runs"] == 8  # the spec's playthroughs
        drift = lv["drift"]["difficulty"]
        assert drift["value"] == pytest.approx(d["value"] - old["metrics"]["difficulty"], abs=0.02)
        assert drift["se"] == pytest.approx(math.hypot(d["se"], old["metrics"]["difficulty_se"]), abs=0.01)
        assert drift["moved"] == (abs(drift["value"]) > 2 * drift["se"])
    assert rep["summary"]["measured"] == 2 and rep["summary"]["not_measured"] == 0


def test_same_seed_same_report_and_another_seed_other_runs(cli, pack_path):
    first = _report(cli, pack_path, "--seed", "5")
    assert _report(cli, pack_path, "--seed", "5") == first
    code, out, _ = cli("grade", pack_path, "--seed", "5", "--json", "--jobs", "2")
    assert code == 0 and json.loads(out)["levels"] == first["levels"]  # the same at any --jobs
    other = _report(cli, pack_path, "--seed", "6")
    assert [lv["seed"] for lv in other["levels"]] != [lv["seed"] for lv in first["levels"]]
    assert other["levels"] != first["levels"]


def test_a_level_alone_is_measured_as_in_its_pack(cli, pack_path, tmp_path):
    whole = _report(cli, pack_path, "--seed", "3")["levels"][1]
    ref = _report(cli, f"{pack_path}#{whole['id']}", "--seed", "3")["levels"]
    assert [_measured(lv) for lv in ref] == [_measured(whole)]
    level = json.loads(pack_path.read_text())["levels"][1]
    (tmp_path / "one.json").write_text(json.dumps(level))
    alone = _report(cli, tmp_path / "one.json", "--seed", "3")["levels"]
    assert [_measured(lv) for lv in alone] == [_measured(whole)]


def _measured(lv: dict) -> dict:
    """A level of the report without where it was found."""
    return {k: v for k, v in lv.items() if k not in ("label", "index")}


def test_text_lines_and_summary(cli, pack_path):
    code, out, _ = cli("grade", pack_path, "--jobs", "1")
    lines = out.splitlines()
    assert code == 0 and len(lines) == 3
    assert "difficulty" in lines[0] and "±" in lines[0] and "(stored " in lines[0] and "tier " in lines[0]
    assert lines[-1].startswith("graded 2 of 2 levels with seed 0") and "moved by more than 2 SE" in lines[-1]
    assert cli("grade", pack_path, "-q", "--jobs", "1")[1] == ""


def test_budget_zero_measures_nothing_exit_4(cli, pack_path):
    code, out, _ = cli("grade", pack_path, "--budget", "0", "--json")
    rep = json.loads(out)
    assert code == 4
    assert [lv["status"] for lv in rep["levels"]] == ["not measured"] * 2
    assert rep["summary"]["not_measured"] == 2
    code, out, _ = cli("grade", pack_path, "--budget", "0")
    assert code == 4 and "not measured" in out and "ran out" in out.splitlines()[-1]


@pytest.mark.parametrize("argv", [["missing.json"], ["{pack}#nope"], ["{bad}"]])
def test_bad_input_is_one_error_exit_1(cli, pack_path, tmp_path, argv):
    bad = tmp_path / "bad.json"
    bad.write_text('{"format": "llkgen.level/1", "rows": 1}')
    code, out, err = cli("grade", *[a.format(pack=pack_path, bad=bad) for a in argv])
    assert code == 1 and err.startswith("Error: ") and "Traceback" not in err


def test_fresh_random_rate_agrees_with_a_big_independent_measurement(pack_path):
    # A level a random player fails often enough that a rate is worth checking.
    levels = llkgen.load_pack(pack_path).levels
    best = None
    for i, lv in enumerate(levels):
        audit = regrade(lv, 11, index=i)
        if best is None or abs(audit.random_clear_rate.rate - 0.5) < abs(best[1].random_clear_rate.rate - 0.5):
            best = (lv, audit)
    assert best is not None
    lv, audit = best
    big = random_clear_rate(lv.board, lv.rules, playthroughs=2000, seed=987654)
    fresh = audit.random_clear_rate
    se = math.hypot(fresh.se, math.sqrt(max(big * (1 - big), 0.25 / 2000) / 2000))
    assert abs(fresh.rate - big) <= 4 * se, (fresh, big)


def test_seeds_are_the_levels_own_and_never_makes():
    assert audit_seed(0, "a") == audit_seed(0, "a")
    assert len({audit_seed(0, "a"), audit_seed(1, "a"), audit_seed(0, "b"), audit_seed(0, "0")}) == 4


@pytest.mark.parametrize("runs", [8, 32, 500, None])
def test_the_random_clear_rate_drift_is_judged_at_the_runs_make_stored(runs):
    """``make`` records how many playthroughs its random clear rate took
    (``metrics.random_clear_runs``, the spec's ``difficulty.playthroughs``); the drift's error
    uses that count, and a level that does not record it is taken to have make's default, 32."""
    level = llkgen.generate(tiny_spec(count=1)).levels[0]
    metrics = dict(level.extra["metrics"])
    metrics["random_clear_rate"] = 0.5
    if runs is None:
        metrics.pop("random_clear_runs")
    else:
        metrics["random_clear_runs"] = runs
    level.extra["metrics"] = metrics
    audit = regrade(level, 3)
    fresh = audit.random_clear_rate
    n = runs or 32
    assert audit.drift["random_clear_rate"].se == pytest.approx(
        math.hypot(fresh.se, math.sqrt(_agresti_var(round(fresh.rate * n), n))))


def _agresti_var(k: int, n: int) -> float:
    """Agresti-Coull's variance of a rate from ``k`` of ``n``, written out apart from the library."""
    z2 = 4.0
    p = (k + z2 / 2) / (n + z2)
    return p * (1 - p) / (n + z2)


def test_budget_bounds_the_whole_grade_in_process(cli, tmp_path):
    """``grade --budget S`` keeps its promise from the command's own start: the levels it did
    not reach are "not measured", exit 4, and the call ends within the budget plus the scaled
    overrun (tests/timing.py). The pack is many times the budget's work at any speed this suite
    runs at: 36 medium levels at a precision of 0.5 points take about 6 s of CPU here, against a
    budget of 0.3 s."""
    from timing import Timed

    path = tmp_path / "many.json"
    llkgen.write_json_atomic(path, llkgen.pack_to_json(llkgen.generate("medium", count=36)))
    with Timed() as t:
        code, out, err = cli("grade", path, "--budget", "0.3", "--precision", "0.5", "--json", "--jobs", "1")
    rep = json.loads(out)
    assert code == 4, err
    statuses = [lv["status"] for lv in rep["levels"]]
    assert "not measured" in statuses and len(statuses) == 36
    assert t.seconds < t.limit(0.3), t
