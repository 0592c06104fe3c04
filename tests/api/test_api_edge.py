"""The front door checks (llkgen/api.py): every function ``llkgen`` exports, given an argument of
a type it never takes, raises ``LlkgenError`` naming that argument -- never a ``TypeError`` or
``AttributeError`` from inside the library, which trusts its arguments.

The wrong values are drawn by hypothesis (derandomized: a failure shrinks to a small value and
reproduces), one argument at a time, the others valid. A function added to ``llkgen.__all__``
without a row in :data:`CALLS` fails :func:`test_every_exported_function_is_checked_here`.
"""

from __future__ import annotations

import inspect
import math
import re
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import llkgen
from llkgen.formats.level import Level, Pack

BOARD = [[1, 1]]
LEVEL = Level(llkgen.Board.from_grid(BOARD), llkgen.Rules(), "one")

#: Values of every common type; each argument's strategy keeps those it never takes.
ANYTHING = st.one_of(
    st.none(), st.booleans(), st.integers(), st.floats(allow_nan=True), st.complex_numbers(), st.text(max_size=8),
    st.binary(max_size=8), st.lists(st.integers(), max_size=3), st.tuples(st.integers()),
    st.dictionaries(st.text(max_size=3), st.integers(), max_size=2), st.sets(st.integers(), max_size=2),
    st.builds(object), st.just(LEVEL.board), st.just(LEVEL))


def _not(*kinds: type):
    """Values of none of ``kinds``; a bool is taken only where ``bool`` is listed, never as an int."""
    def taken(v: object) -> bool:
        return isinstance(v, kinds) and (bool in kinds or not isinstance(v, bool))

    return ANYTHING.filter(lambda v: not taken(v))


def _bad_int(low: int):
    """What an integer argument of at least ``low`` never takes: no int, or one below ``low``."""
    return st.one_of(_not(int), st.integers(max_value=low - 1))


#: Lists that are no board: rows that are no lists, cells that are no ints, nothing at all.
BAD_GRIDS = st.one_of(
    st.just([]), st.just([[]]),
    st.lists(st.one_of(st.text(max_size=3), st.none(), st.floats()), min_size=1, max_size=3),
    st.lists(st.lists(st.one_of(st.text(max_size=3), st.none(), st.floats(), st.booleans()), min_size=1,
                      max_size=3), min_size=1, max_size=3))
BAD_BOARDS = st.one_of(_not(llkgen.Board, list, tuple), BAD_GRIDS)
BAD_RULES = st.one_of(
    _not(llkgen.Rules, dict, type(None)),
    st.fixed_dictionaries({"border": _not(bool)}),
    st.fixed_dictionaries({"gravity": ANYTHING.filter(lambda v: v not in tuple(llkgen.Gravity))}),
    st.fixed_dictionaries({"borders": st.booleans()}))
BAD_BUDGETS = st.one_of(
    _not(llkgen.Budget, int, type(None)), st.integers(max_value=0),
    st.builds(llkgen.Budget, nodes=st.one_of(st.integers(max_value=0), st.floats(), st.text(max_size=2))),
    st.builds(lambda s: llkgen.Budget(seconds=s),
              st.one_of(st.floats().filter(lambda s: not 0 <= s <= 1_000_000), st.text(max_size=2),
                        st.booleans())))
#: No list of moves: a set is one (any iterable is), a string, bytes or a mapping is not.
BAD_MOVE_LISTS = st.one_of(_not(list, tuple, set, type(None)), st.text(max_size=4), st.binary(max_size=4),
                           st.dictionaries(st.text(max_size=2), st.integers()))
BAD_HINTS = st.one_of(BAD_MOVE_LISTS, st.lists(st.one_of(st.integers(), st.text(max_size=3), st.just([[0, 0]]),
                                                         st.just([[0, 0], [0, "1"]])), min_size=1, max_size=3))
BAD_PATHS = st.one_of(_not(str), st.just("a\0b"))

#: Each exported function: valid arguments by name, and for each argument, what it never takes.
CALLS = {
    "verify": ({"board": BOARD, "rules": None, "budget": None, "engine": "auto", "hint": None},
               {"board": BAD_BOARDS, "rules": BAD_RULES, "budget": BAD_BUDGETS,
                "engine": ANYTHING.filter(lambda v: v not in tuple(llkgen.Engine)), "hint": BAD_HINTS}),
    "generate": ({"spec": "easy", "count": 1, "seed": 0, "jobs": 1},
                 {"spec": _not(str, dict, Path), "count": _bad_int(1).filter(lambda v: v is not None),
                  "seed": _bad_int(0).filter(lambda v: v is not None), "jobs": _bad_int(1)}),
    "hint": ({"board": BOARD, "rules": None, "budget": None},
             {"board": BAD_BOARDS, "rules": BAD_RULES, "budget": BAD_BUDGETS}),
    "classify_moves": ({"board": BOARD, "rules": None, "budget": None},
                       {"board": BAD_BOARDS, "rules": BAD_RULES, "budget": BAD_BUDGETS}),
    "reshuffle": ({"board": BOARD, "rules": None, "seed": 0, "budget": None, "attempts": None},
                  {"board": BAD_BOARDS, "rules": BAD_RULES, "seed": _bad_int(0), "budget": BAD_BUDGETS,
                   "attempts": _bad_int(1).filter(lambda v: v is not None)}),
    "replay": ({"board": BOARD, "rules": None, "moves": []},
               {"board": BAD_BOARDS, "rules": BAD_RULES, "moves": st.one_of(BAD_MOVE_LISTS, st.none())}),
    "removable_pairs": ({"board": BOARD, "rules": None}, {"board": BAD_BOARDS, "rules": BAD_RULES}),
    "load_level": ({"path": "level.json"}, {"path": BAD_PATHS}),
    "load_pack": ({"path": "pack.json"}, {"path": BAD_PATHS}),
    "load_spec": ({"path": "spec.yaml"}, {"path": BAD_PATHS}),
    "parse_spec": ({"text": "name: t\nboard: {rows: 2, cols: 4}\ntiles: {types: 2}\n", "source": "<string>"},
                   {"text": _not(str, bytes, bytearray), "source": _not(str)}),
    "level_to_json": ({"level": LEVEL, "grid": "nested"},
                      {"level": st.one_of(_not(Level), st.builds(Level, board=_not(llkgen.Board)),
                                          st.builds(Level, board=st.just(LEVEL.board), rules=_not(llkgen.Rules)),
                                          st.builds(Level, board=st.just(LEVEL.board), id=_not(str, type(None)))),
                       "grid": ANYTHING.filter(lambda v: v not in ("nested", "flat"))}),
    "pack_to_json": ({"pack": Pack("p", [LEVEL]), "grid": "nested"},
                     {"pack": st.one_of(_not(Pack), st.builds(Pack, name=_not(str), levels=st.just([])),
                                        st.builds(Pack, name=st.just("p"), levels=st.lists(_not(Level), min_size=1,
                                                                                              max_size=2))),
                      "grid": ANYTHING.filter(lambda v: v not in ("nested", "flat"))}),
    "write_json_atomic": ({"path": "out.json", "obj": {"a": [1]}},
                          {"path": BAD_PATHS,
                           "obj": st.one_of(st.builds(object), st.sets(st.integers(), max_size=2), st.binary(),
                                            st.complex_numbers(), st.just({(1, 2): 3}), st.just([LEVEL]))}),
}


def _cases() -> list[tuple[str, str]]:
    return [(name, arg) for name, (_, wrong) in CALLS.items() for arg in wrong]


def test_every_exported_function_is_checked_here():
    exported = {name for name in llkgen.__all__ if inspect.isfunction(getattr(llkgen, name))}
    assert exported == set(CALLS)
    for name, (valid, wrong) in CALLS.items():
        fn = getattr(llkgen, name)
        assert fn.__module__ == "llkgen.api", f"llkgen.{name} does not go through llkgen.api"
        params = list(inspect.signature(fn).parameters)
        assert params == list(valid) == list(wrong), name


@pytest.mark.parametrize("name, arg", _cases())
def test_a_wrong_argument_is_refused_by_name(name, arg, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # the valid paths are relative: nothing is written anywhere else
    valid, wrong = CALLS[name]
    fn = getattr(llkgen, name)

    @settings(derandomize=True, database=None, max_examples=40, deadline=None,
              suppress_health_check=[HealthCheck.filter_too_much, HealthCheck.too_slow])
    @given(value=wrong[arg])
    def refused(value):
        with pytest.raises(llkgen.LlkgenError) as caught:
            fn(**{**valid, arg: value})
        message = str(caught.value)
        assert re.match(rf"{re.escape(arg)}\b", message), (arg, value, message)

    refused()
    assert list(tmp_path.iterdir()) == []  # refused before anything was written


def test_the_valid_arguments_of_the_table_work(tmp_path, monkeypatch):
    """The table's valid arguments are valid, so each refusal above is the wrong argument's."""
    monkeypatch.chdir(tmp_path)
    for name, (valid, _) in CALLS.items():
        if name in ("load_level", "load_pack", "load_spec", "generate"):
            continue  # files that do not exist, and a whole pack: checked on their own below
        getattr(llkgen, name)(**valid)
    written = llkgen.write_json_atomic("level.json", llkgen.level_to_json(LEVEL))
    assert llkgen.load_level(str(written)).board == LEVEL.board
    assert [lv.board for lv in llkgen.load_pack(llkgen.write_json_atomic("pack.json", llkgen.pack_to_json(
        Pack("p", [LEVEL])))).levels] == [LEVEL.board]


def test_a_grid_is_a_board_for_the_game_functions_too():
    result = llkgen.replay([[1, 1]], None, [])
    assert (result.ok, result.cleared, result.final.tile_count) == (True, False, 2)
    assert llkgen.replay(((1, 1),), {"border": False}, [[[0, 0], [0, 1]]]).cleared
    assert [(m.a, m.b) for m in llkgen.removable_pairs([[1, 1]], llkgen.Rules())] == [((0, 0), (0, 1))]


def test_the_library_refuses_the_seconds_the_cli_refuses():
    from llkgen.verifier.verdict import MAX_BUDGET_SECONDS

    for seconds in (MAX_BUDGET_SECONDS * 1.000001, 1e10, math.inf, -0.5, math.nan):
        with pytest.raises(llkgen.LlkgenError, match=r"^budget\.seconds: expected a number from 0 to 1,000,000"):
            llkgen.verify(BOARD, None, llkgen.Budget(seconds=seconds))
    assert llkgen.verify(BOARD, None, llkgen.Budget(seconds=MAX_BUDGET_SECONDS)).status == "solvable"


def test_the_engine_is_an_enum_or_its_value():
    for engine in (*llkgen.Engine, *(e.value for e in llkgen.Engine)):
        assert llkgen.verify(BOARD, engine=engine).status == "solvable"


def test_a_float_json_cannot_hold_is_refused_before_anything_is_written(tmp_path):
    # Python's json writes NaN and Infinity, which JSON parsers in game engines refuse.
    for value in (math.nan, math.inf, -math.inf):
        with pytest.raises(llkgen.LlkgenError, match=r"^obj: expected JSON data .*Out of range float"):
            llkgen.write_json_atomic(tmp_path / "x.json", {"levels": [{"difficulty": value}]})
    assert list(tmp_path.iterdir()) == []
