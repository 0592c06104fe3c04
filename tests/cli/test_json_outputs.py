"""Every ``--json`` output of every command, run for real and checked against its shipped schema.

Each command runs in-process through ``llkgen.cli.main`` (the console script's own code path,
see cli_runner.py) on boards chosen to reach each outcome: solvable, unsolvable, unknown, a
dead board, a failed replay, a failing and an invalid file. Every document must start with
``"format": "llkgen.<kind>/<n>"``, its kind must be one the command declares
(:data:`llkgen.cli.options.COMMAND_OUTPUTS`), and it must validate against the schema file of that
kind as a user would load it: its JSON alone, no registry, with the network cut off.

A command that gains ``--json`` without a declared kind and a schema fails
:func:`test_every_json_flag_has_a_declared_kind_and_schema`.
"""

from __future__ import annotations

import json
import re
import socket
from pathlib import Path

import jsonschema
import pytest
from typer.main import get_command

import llkgen
from llkgen.cli import app
from llkgen.cli.options import COMMAND_OUTPUTS
from llkgen.formats.schemas import OUTPUT_SCHEMAS, schema_names
from llkgen.game.referee import replay

from cli_runner import run_cli_in_process
from paths import DATA
from plays import calibration_fixture
from specs import tiny_spec

SCHEMA_DIR = Path(llkgen.__file__).resolve().parent / "schemas"
DEMO = DATA / "demo.json"
NO_BORDER = {"border": False, "gravity": "none"}
GOOD_SOLUTION = [[[0, 1], [0, 3]], [[0, 0], [1, 3]], [[2, 0], [2, 3]]]


def _level(grid: list[list[int]], rules: dict | None = None, **extra: object) -> dict:
    return {"format": "llkgen.level/1", "rows": len(grid), "cols": len(grid[0]), "grid": grid,
            "rules": rules or {"border": True, "gravity": "none"}, **extra}


DEMO_LEVEL = json.loads(DEMO.read_text("utf-8"))
LEVELS = {
    "demo.json": DEMO_LEVEL,
    # Taking the left pair of 1s walls in the 2s: one safe move, one fatal.
    "mixed.json": _level([[1, 1, 2], [1, 2, 1]], NO_BORDER),
    # No pair can be removed: every tile is locked (the lock test proves it).
    "dead.json": _level([[1, 2], [2, 1]], NO_BORDER),
    # One pair can be removed, and then the 2s and 3s block each other.
    "doomed.json": _level([[1, 1], [2, 3], [3, 2]], NO_BORDER),
    # A wall between the only two tiles: no arrangement can ever be cleared.
    "walled.json": _level([[1, -1, 1]], NO_BORDER),
    "cleared.json": _level([[0, 0]]),
    "bad-step.json": [GOOD_SOLUTION[0], GOOD_SOLUTION[0]],
    "partial.json": [GOOD_SOLUTION[2]],
    "malformed-move.json": [GOOD_SOLUTION[0], [[0, 0]]],
    # verify: a stored solution that fails (exit 1), an unsolvable level (exit 3)
    "fails/level.json": {**DEMO_LEVEL, "solution": [GOOD_SOLUTION[0], GOOD_SOLUTION[0]]},
    "fails/broken.json": "{",
    "stuck/level.json": _level([[1, 2], [2, 1]], NO_BORDER),
}


@pytest.fixture(scope="module")
def work(tmp_path_factory) -> Path:
    """The levels above, and a tiny pack made whole (``tiny.json``) and in two shards."""
    from llkgen.generation.spec import parse_spec
    from llkgen.jobs.make import make_pack
    from llkgen.jobs.shards import Shard

    d = tmp_path_factory.mktemp("json-outputs")
    for name, obj in LEVELS.items():
        (d / name).parent.mkdir(exist_ok=True)
        (d / name).write_text(obj if isinstance(obj, str) else json.dumps(obj), "utf-8")
    (d / "tiny.yaml").write_text(tiny_spec(count=2), "utf-8")
    spec = parse_spec(tiny_spec(count=2), "tiny.yaml").with_overrides(out=d / "tiny.json")
    make_pack(spec, jobs=1)
    for k in (0, 1):
        part = Shard.parse(f"{k}/2")
        make_pack(spec.with_overrides(out=d / f"tiny.shard-{k}-of-2.jsonl"), jobs=1, shard=part)
    calibration_fixture(d)  # cal.json and plays.csv
    return d


#: name -> (argv, exit code). ``tiny.json#tiny-1`` is a 4x6 board that one search node cannot
#: decide; ``--budget 0`` decides nothing that needs a search.
CASES: dict[str, tuple[list[str], int]] = {
    "moves": (["moves", "demo.json", "--json"], 0),
    "moves-ring": (["moves", "tiny.json#tiny-1", "--json"], 0),
    "moves-dead": (["moves", "dead.json", "--json"], 3),
    "moves-cleared": (["moves", "cleared.json", "--json"], 0),
    "classify": (["moves", "mixed.json", "--classify", "--json"], 0),
    "classify-doomed": (["moves", "doomed.json", "--classify", "--json"], 3),
    "classify-dead": (["moves", "dead.json", "--classify", "--json"], 3),
    "classify-cleared": (["moves", "cleared.json", "--classify", "--json"], 0),
    "classify-unknown": (["moves", "mixed.json", "--classify", "--budget", "0", "--json"], 4),
    "hint": (["hint", "demo.json", "--json"], 0),
    "hint-dead": (["hint", "dead.json", "--json"], 3),
    "hint-unknown": (["hint", "tiny.json#tiny-1", "--nodes", "1", "--json"], 4),
    "hint-cleared": (["hint", "cleared.json", "--json"], 0),
    "reshuffle": (["reshuffle", "dead.json", "--seed", "1", "--json"], 0),
    "reshuffle-unsolvable": (["reshuffle", "walled.json", "--seed", "0", "--json"], 3),
    "reshuffle-unknown": (["reshuffle", "mixed.json", "--seed", "0", "--budget", "0", "--json"], 4),
    "replay": (["replay", "demo.json", "--json"], 1),  # demo.json stores no solution: the document says so
    "replay-ok": (["replay", "tiny.json#tiny-2", "--json"], 0),
    "replay-bad-step": (["replay", "demo.json", "bad-step.json", "--json"], 1),
    "replay-partial": (["replay", "demo.json", "partial.json", "--json"], 1),
    "replay-malformed": (["replay", "demo.json", "malformed-move.json", "--json"], 1),
    "solve": (["solve", "demo.json", "--json"], 0),
    "solve-unsolvable": (["solve", "dead.json", "--json"], 3),
    "solve-unknown": (["solve", "tiny.json#tiny-1", "--nodes", "1", "--json"], 4),
    "make": (["make", "--config", "tiny.yaml", "--out", "again.json", "--jobs", "1", "--json"], 0),
    "make-shard": (["make", "--config", "tiny.yaml", "--shard", "1/2", "--out", "s.jsonl", "--jobs", "1",
                    "--json", "-q"], 0),
    "merge": (["merge", "tiny.shard-0-of-2.jsonl", "tiny.shard-1-of-2.jsonl", "--out", "merged.json", "--json"], 0),
    "verify": (["verify", "tiny.json", "demo.json", "--jobs", "1", "--json"], 0),
    "verify-failing": (["verify", "fails", "--jobs", "1", "--json"], 1),
    "verify-unsolvable": (["verify", "stuck", "--jobs", "1", "--json"], 3),
    "verify-out-of-time": (["verify", "tiny.json", "--budget", "0", "--json"], 4),
    "grade": (["grade", "tiny.json#tiny-1", "--jobs", "1", "--json"], 0),
    "grade-out-of-time": (["grade", "tiny.json", "--budget", "0", "--json"], 4),
    "calibrate": (["calibrate", "cal.json", "plays.csv", "--json"], 0),
}


def _plain_validator(kind: str) -> jsonschema.protocols.Validator:
    """The schema file of ``kind`` as a user loads it: its JSON alone, no registry."""
    obj = json.loads((SCHEMA_DIR / f"{kind}.schema.json").read_text("utf-8"))
    cls = jsonschema.validators.validator_for(obj)
    cls.check_schema(obj)
    return cls(obj)


def _errors_offline(validator: jsonschema.protocols.Validator, doc: object, monkeypatch) -> list[str]:
    """``validator``'s errors on ``doc``, with every way to open a socket refusing (the command
    itself ran before: its worker processes may talk over socket pairs)."""
    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError("a schema tried to reach the network")

    with monkeypatch.context() as m:
        m.setattr(socket, "socket", refuse)
        m.setattr(socket, "create_connection", refuse)
        return [f"{e.json_path}: {e.message}" for e in validator.iter_errors(doc)]


@pytest.fixture(scope="module")
def outputs() -> dict[str, tuple[str, dict]]:
    """name -> (command, parsed document), filled as the cases run."""
    return {}


@pytest.mark.parametrize("name", list(CASES))
def test_every_json_output_validates_against_its_schema(name, work, outputs, monkeypatch, capsys):
    argv, expected = CASES[name]
    monkeypatch.chdir(work)
    code, out, err = run_cli_in_process(argv, monkeypatch, capsys)
    assert code == expected, (out[-800:], err)
    assert "Traceback" not in err
    doc = json.loads(out)  # one document, nothing else on stdout
    assert list(doc)[0] == "format"
    found = re.fullmatch(r"llkgen\.([a-z-]+)/([1-9][0-9]*)", doc["format"])
    assert found, doc["format"]
    kind = found.group(1)
    assert kind in COMMAND_OUTPUTS[argv[0]], (argv[0], kind)
    validator = _plain_validator(kind)
    assert validator.schema["properties"]["format"]["const"] == doc["format"]
    errors = _errors_offline(validator, doc, monkeypatch)
    assert errors == [], errors
    outputs[name] = (argv[0], doc)


def test_every_command_and_kind_was_run(outputs):
    if len(outputs) < len(CASES) - 1:
        pytest.skip("needs every case of the test above (run the module whole)")
    seen = {(cmd, doc["format"].split(".", 1)[1].split("/")[0]) for cmd, doc in outputs.values()}
    declared = {(cmd, kind) for cmd, kinds in COMMAND_OUTPUTS.items() for kind in kinds}
    assert seen == declared


def test_every_json_flag_has_a_declared_kind_and_schema():
    commands = get_command(app).commands  # type: ignore[attr-defined]
    with_json = {name for name, cmd in commands.items()
                 if any("--json" in p.opts for p in cmd.params)}
    assert with_json == set(COMMAND_OUTPUTS), "declare the kind in llkgen.cli.options.COMMAND_OUTPUTS"
    kinds = {kind for ks in COMMAND_OUTPUTS.values() for kind in ks}
    assert kinds == set(OUTPUT_SCHEMAS) and kinds <= set(schema_names())
    for kind in kinds:
        assert (SCHEMA_DIR / f"{kind}.schema.json").is_file(), kind
    for name in with_json:  # the help names the schema
        option = next(p for p in commands[name].params if "--json" in p.opts)
        assert f"llkgen schema {COMMAND_OUTPUTS[name][0]}" in (option.help or ""), name


# -- one vocabulary: what the documents say, checked against the referee ------------------------
def _case(outputs, name: str) -> dict:
    if name not in outputs:
        pytest.skip(f"needs the case {name} of the test above")
    return outputs[name][1]


def _board(work: Path, ref: str):
    if "#" in ref:
        file, _, wanted = ref.partition("#")
        return next(lv for lv in llkgen.load_pack(work / file).levels if lv.id == wanted)
    return llkgen.load_level(work / ref)


@pytest.mark.parametrize("name", ["moves", "moves-ring", "classify", "hint"])
def test_a_path_joins_the_two_tiles_of_its_move(outputs, name):
    doc = _case(outputs, name)
    drawn = doc["moves"] if "moves" in doc else [doc]
    assert drawn
    for d in drawn:
        assert d["path"][0] == d["move"][0] and d["path"][-1] == d["move"][1]


def test_witnesses_and_solutions_replay(outputs, work):
    hint = _case(outputs, "hint")
    demo = llkgen.load_level(work / "demo.json")
    assert replay(demo.board, demo.rules, [hint["move"], *hint["witness"]]).cleared
    solve = _case(outputs, "solve")
    done = replay(demo.board, demo.rules, solve["solution"])
    assert done.cleared and [[list(p) for p in path] for path in done.paths] == solve["paths"]
    mixed = llkgen.load_level(work / "mixed.json")
    for label in _case(outputs, "classify")["moves"]:
        after = replay(mixed.board, mixed.rules, [label["move"], *(label["witness"] or [])])
        assert after.cleared == (label["label"] == "safe")
    new = _case(outputs, "reshuffle")["level"]
    level = llkgen.load_level(_written(work, "reshuffled.json", new))
    assert replay(level.board, level.rules, new["solution"]).cleared


def _written(work: Path, name: str, obj: dict) -> Path:
    (work / name).write_text(json.dumps(obj), "utf-8")
    return work / name


def test_one_verdict_field_and_value_set(outputs):
    verdicts = {name: _case(outputs, name)["verdict"] for name in
                ("hint", "hint-dead", "hint-unknown", "hint-cleared", "solve", "solve-unsolvable", "solve-unknown",
                 "reshuffle", "reshuffle-unsolvable", "reshuffle-unknown")}
    assert set(verdicts.values()) == {"solvable", "unsolvable", "unknown"}
    assert [verdicts[n] for n in ("hint-dead", "solve-unsolvable", "reshuffle-unsolvable")] == ["unsolvable"] * 3
    assert [verdicts[n] for n in ("hint-unknown", "solve-unknown", "reshuffle-unknown")] == ["unknown"] * 3
    for name in ("hint-unknown", "solve-unknown"):
        assert _case(outputs, name)["proof"] == {"budget": "nodes"}


def test_a_proofs_bottlenecks_pair_tiles_as_a_move(outputs, work):
    proof = _case(outputs, "solve-unsolvable")["proof"]
    board = llkgen.load_level(work / "dead.json").board
    locked = {tuple(c) for c in proof["locked"]}
    assert [t["type"] for t in proof["bottlenecks"]] == [1, 2]
    for t in proof["bottlenecks"]:
        assert {tuple(p["pair"][0]) for p in t["pairs"]} == {c for c in locked if board[c] == t["type"]}
        for p in t["pairs"]:
            assert set(p) == {"pair", "bottleneck"} and board[tuple(p["pair"][1])] == t["type"]
            # without the ring, each pair of a type is cut off by the two tiles of the other
            others = sorted(list(c) for c in locked if board[c] != t["type"])
            assert p["bottleneck"] == t["blockers"] == others


def test_verify_reports_the_replay_as_a_boolean_and_the_check_apart(outputs):
    ok = _case(outputs, "verify")
    by_label = {lv["label"]: lv for lv in ok["levels"]}
    stored = by_label["tiny.json#tiny-1"]
    assert (stored["check"], stored["verdict"], stored["method"], stored["replayed"]) == \
        ("ok", "solvable", "replay", True)
    assert stored["solution_moves"] == 12 and stored["budget"] == {"nodes": 20000, "seconds": None}
    plain = by_label["demo.json"]
    assert (plain["method"], plain["replayed"], plain["solution_moves"]) == ("search", None, None)
    failing = _case(outputs, "verify-failing")
    [bad] = failing["levels"]
    assert (bad["check"], bad["verdict"], bad["replayed"], bad["solution_moves"]) == ("failed", "unknown", False, 2)
    assert [(Path(f["file"]).name, f["check"]) for f in failing["files"]] == [("broken.json", "invalid")]
    late = _case(outputs, "verify-out-of-time")
    assert [f["check"] for f in late["files"]] == ["unknown"] and late["exit_code"] == 4
    unsolvable = _case(outputs, "verify-unsolvable")["levels"][0]
    assert (unsolvable["check"], unsolvable["verdict"]) == ("unsolvable", "unsolvable")


def test_replay_counts_are_not_named_moves(outputs):
    ok = _case(outputs, "replay-ok")
    assert (ok["given"], ok["applied"], ok["tiles_left"], ok["error"]) == (12, 12, 0, None)
    bad = _case(outputs, "replay-bad-step")
    assert (bad["given"], bad["applied"], bad["error_index"], bad["reason"]) == (2, 1, 1, "cell [0, 1] is empty")
    assert bad["error"] == "move 1: cell [0, 1] is empty"
