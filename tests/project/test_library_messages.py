"""Library messages name arguments and keys; only the command line names flags (STYLE.md, "The
front door checks"). A program that calls ``make_pack(spec, resume=True)`` reads "rerun with
resume", and ``llkgen make --resume`` prints "rerun with --resume": the error carries the
names of the arguments its message names (:attr:`llkgen.errors.LlkgenError.arguments`), and
the command line names them as its flags (:func:`llkgen.console.with_flags`)."""

from __future__ import annotations

import ast
import pickle
import re
from pathlib import Path

import pytest

from llkgen.console import with_flags
from llkgen.errors import BudgetExhausted, LlkgenError, SpecError, budget_arguments, budget_text
from llkgen.generation.spec import load_spec_ref

from paths import ROOT

PACKAGE = ROOT / "llkgen"
#: The command line's own modules, which name its flags.
COMMAND_LINE = ("cli", "console", "entry")
#: Strings outside the command line that name a command line on purpose, not a caller's
#: argument: the starter spec's first comment says how to build it, and a file that is not a
#: shard says which command writes one.
NAMES_A_COMMAND = (" spec, renamed by llkgen init. Build it with:  llkgen make --config ",
                   " header (a file from llkgen make --shard), found ")
FLAG = re.compile(r"(?<![\w-])--[a-z]")


def _strings(path: Path) -> list[tuple[int, str]]:
    """The string constants of a module, but its docstrings."""
    tree = ast.parse(path.read_text("utf-8"))
    docs = {id(node.body[0].value) for node in ast.walk(tree)
            if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
            and node.body and isinstance(node.body[0], ast.Expr) and isinstance(node.body[0].value, ast.Constant)}
    return [(node.lineno, node.value) for node in ast.walk(tree)
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docs]


def test_no_library_message_names_a_flag():
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        if Path(path.relative_to(PACKAGE).parts[0]).stem in COMMAND_LINE:
            continue
        found += [f"{path.relative_to(PACKAGE.parent)}:{line}: {text!r}" for line, text in _strings(path)
                  if FLAG.search(text) and text not in NAMES_A_COMMAND]
    assert found == [], "name the argument; the command line names its flag (LlkgenError.arguments)"


def test_an_override_names_its_argument_and_the_command_line_its_flag():
    with pytest.raises(SpecError) as caught:
        load_spec_ref("easy").with_overrides(count=0)
    assert str(caught.value).startswith("count: expected an integer in 1..")
    assert with_flags(str(caught.value), caught.value.arguments).startswith("--count: expected an integer in 1..")


def test_a_budget_is_named_by_its_argument():
    assert budget_text(5) == "the budget of 5 s" and budget_arguments(5) == ("budget",)
    assert budget_text(None) == "the time budget" and budget_arguments(None) == ()
    e = BudgetExhausted(f"resume.yaml: {budget_text(1.5)} ran out (rerun with resume to keep going)",
                        arguments=(*budget_arguments(1.5), "resume"))
    assert with_flags(str(e), e.arguments) == \
        "resume.yaml: the --budget of 1.5 s ran out (rerun with --resume to keep going)"


def test_only_the_first_naming_and_only_a_whole_word_becomes_a_flag():
    text = "scheduler: cannot reach the Dask scheduler at 'tcp://budget:1' for /tmp/scheduler/x.json"
    assert with_flags(text, ("scheduler", "budget")) == \
        "--scheduler: cannot reach the Dask scheduler at 'tcp://budget:1' for /tmp/scheduler/x.json"
    assert with_flags("the time budget ran out", ()) == "the time budget ran out"


def test_the_names_cross_processes_with_the_error():
    e = pickle.loads(pickle.dumps(LlkgenError("resume: no journal", arguments=("resume",))))
    assert (str(e), e.arguments) == ("resume: no journal", ("resume",))
    assert LlkgenError("plain").arguments == ()
