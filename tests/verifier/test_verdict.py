"""Outcomes are typed values (llkgen/verifier/verdict.py, llkgen/analysis/advice.py): a frozen
Verdict whose evidence matches its status, a Proof whose JSON is the dict a proof always was,
and closed sets that are StrEnums with a doc comment per member."""

from __future__ import annotations

import dataclasses
import inspect
import json

import pytest

import llkgen
from llkgen.analysis.advice import Hint, HintStatus, Label
from llkgen.game.path import Move
from llkgen.verifier.verdict import Argument, Engine, Limit, Proof, Status, Verdict

# A board with no ring to link through: the lock test proves all four tiles stuck.
LOCKED = [[1, 2], [2, 1]]
NO_BORDER = {"border": False}


@pytest.mark.parametrize("enum", [Status, Limit, Engine, Argument, Label, HintStatus])
def test_each_member_of_a_closed_set_has_a_doc_comment(enum):
    lines = inspect.getsource(enum).splitlines()
    for member in enum:
        at = next(i for i, line in enumerate(lines) if line.strip().startswith(f"{member.name} = "))
        assert lines[at - 1].strip().startswith("#:"), f"{enum.__name__}.{member.name} has no #: comment"
        assert json.dumps(member) == json.dumps(member.value)  # the JSON is the plain word


def test_a_proof_writes_the_dict_a_proof_was_and_reads_as_it():
    verdict = llkgen.verify(LOCKED, NO_BORDER)
    proof = verdict.proof
    assert verdict.status == Status.UNSOLVABLE and verdict.limit is None
    assert isinstance(proof, Proof) and proof.argument == Argument.LOCK_TEST
    assert proof.to_json() == {"argument": "lock-test", "locked": [[0, 0], [0, 1], [1, 0], [1, 1]]}
    assert verdict.to_json()["proof"] == proof.to_json()
    assert (proof["argument"], proof.get("locked"), proof.get("tiles"), dict(proof)) == (
        "lock-test", [[0, 0], [0, 1], [1, 0], [1, 1]], None, proof.to_json())
    nested = Proof(Argument.BOARD_UNSOLVABLE, board=proof)
    assert nested.to_json() == {"argument": "board-unsolvable", "board": proof.to_json()}
    parts = dataclasses.replace(Proof(Argument.REACH_PAIRING, type=3, tiles=((0, 0),)), component=((0, 0), (0, 1)))
    assert list(parts.to_json()) == ["argument", "type", "tiles", "component"]


def test_a_proof_without_its_evidence_is_refused():
    with pytest.raises(ValueError, match="lock-test proof needs locked"):
        Proof(Argument.LOCK_TEST)
    with pytest.raises(ValueError, match="needs engine, nodes"):
        Proof(Argument.EXHAUSTIVE_SEARCH)


def test_an_unknown_verdict_names_its_limit_and_its_json_is_unchanged():
    verdict = llkgen.verify([[1, 2, 1, 2], [2, 1, 2, 1]], None, llkgen.Budget(seconds=0))
    assert (verdict.status, verdict.proof, verdict.limit) == ("unknown", None, Limit.SECONDS)
    assert verdict.to_json()["proof"] == {"budget": "seconds"}


def test_a_verdict_is_frozen_and_its_evidence_matches_its_status():
    verdict = llkgen.verify([[1, 1]])
    with pytest.raises(dataclasses.FrozenInstanceError):
        verdict.reason = "changed"  # type: ignore[misc]
    proof = Proof(Argument.GRAVITY_LOCK, locked=((0, 0),))
    move = Move((0, 0), (0, 1), [(0, 0), (0, 1)])
    for status, kw in [(Status.UNSOLVABLE, {}), (Status.UNKNOWN, {}), (Status.SOLVABLE, {"proof": proof}),
                       (Status.UNKNOWN, {"proof": proof, "limit": Limit.NODES}),
                       (Status.UNSOLVABLE, {"proof": proof, "moves": [move]})]:
        with pytest.raises(ValueError, match="carries a witness only when solvable"):
            Verdict(status, **kw)


def test_the_verifier_gives_each_verdict_its_own_stats():
    first = llkgen.verify([[1, 2, 0, 2], [-1, 0, 0, 1], [3, 0, 0, 3]])
    second = llkgen.verify([[1, 2, 0, 2], [-1, 0, 0, 1], [3, 0, 0, 3]])
    assert first.stats is not second.stats
    assert first.stats.keys() == second.stats.keys() and "time_ms" in first.stats


def test_a_hint_speaks_one_vocabulary():
    assert {s: s.verdict for s in HintStatus} == {
        HintStatus.MOVE: "solvable", HintStatus.CLEARED: "solvable", HintStatus.DEAD: "unsolvable",
        HintStatus.UNDECIDED: "unknown"}
    dead = llkgen.hint(LOCKED, NO_BORDER)
    assert (dead.status, dead.verdict, dead.exit_code, dead.proof.argument) == (
        HintStatus.DEAD, Status.UNSOLVABLE, 3, Argument.LOCK_TEST)
    with pytest.raises(ValueError):
        Hint(HintStatus.DEAD, None, [], None, "no proof")
    with pytest.raises(ValueError):
        Hint(HintStatus.UNDECIDED, None, [], dead.proof, "a proof, no limit")
    labels = llkgen.classify_moves([[1, 1, 2, 2]], NO_BORDER)
    assert {(x.move.a, x.move.b): x.label for x in labels} == {((0, 0), (0, 1)): Label.SAFE,
                                                              ((0, 2), (0, 3)): Label.SAFE}


def test_the_engine_names_are_the_enum():
    from llkgen.verifier import ENGINES

    assert ENGINES == tuple(e.value for e in Engine) == ("auto", "search", "cpsat", "baseline")
