"""The top-level library API (``import llkgen``): docs/api.md's examples, the lazy import, the
``llkgen.verify`` / ``llkgen.generation.generator`` name clash, and the errors bad arguments raise."""

from __future__ import annotations

import inspect
import json
import pickle
import subprocess
import sys
import textwrap

import pytest

import llkgen
from llkgen.errors import LevelFormatError, LlkgenError, SpecError

from docs_blocks import fenced_blocks, marked_block
from paths import ROOT
from timing import HANG_SECONDS

DOCS = ROOT / "docs" / "api.md"
GRID = [[1, 2, 0, 2], [-1, 0, 0, 1], [3, 0, 0, 3]]
TINY = {"name": "tiny", "seed": 7, "count": 2, "board": {"rows": 4, "cols": 4},
        "tiles": {"types": 4, "copies": 4}}


def _python(code: str) -> subprocess.CompletedProcess:
    """``code`` run by a fresh interpreter, so nothing imported here leaks into it."""
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True,
                          timeout=HANG_SECONDS)


# -- docs/api.md ------------------------------------------------------------------------------
def _doc_blocks() -> list[str]:
    return fenced_blocks(DOCS, "python")


def test_the_docs_have_examples_that_assert():
    blocks = _doc_blocks()
    assert len(blocks) >= 6
    assert sum(b.count("assert ") for b in blocks) >= 20


def test_every_example_in_docs_api_runs_in_order(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    namespace: dict = {}
    for i, block in enumerate(_doc_blocks()):
        exec(compile(block, f"{DOCS.name} python block {i + 1}", "exec"), namespace)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["one.json", "tiny.json", "tiny.yaml"]


# -- the names ----------------------------------------------------------------------------------
def test_every_top_level_name_resolves_and_is_listed():
    assert set(llkgen.__all__) == {"__version__", *llkgen._LAZY}
    for name in llkgen.__all__:
        assert getattr(llkgen, name) is not None, name
        assert name in dir(llkgen)
    assert llkgen.Budget is __import__("llkgen.verifier", fromlist=["Budget"]).Budget
    assert issubclass(llkgen.ReshuffleError, llkgen.LlkgenError)


def test_an_unknown_name_is_an_attribute_error():
    with pytest.raises(AttributeError, match="no attribute 'verfiy'"):
        llkgen.verfiy  # noqa: B018


def test_import_llkgen_loads_nothing_heavy():
    out = _python("""
        import sys
        import llkgen
        print(sorted(m for m in sys.modules if m.split(".")[0] in ("llkgen", "numpy", "ortools", "yaml")))
        llkgen.Board, llkgen.Rules, llkgen.LlkgenError, llkgen.load_level
        print("numpy" in sys.modules, "ortools" in sys.modules)
    """)
    assert out.returncode == 0, out.stderr
    first, second = out.stdout.splitlines()
    assert first == "['llkgen', 'llkgen._version']"
    assert second == "False False"


#: What ``import llkgen.cli`` must not import: ``llkgen show`` and the other cheap commands pay
#: for every module the CLI imports up front (benchmarks/startup_bench.py times it). The commands
#: that need these import them themselves.
CLI_NEVER_IMPORTS = ("numpy", "ortools", "yaml", "rich", "llkgen.generation.spec", "llkgen.generation.spec_model",
                     "llkgen.generation.strictyaml", "llkgen.verifier.portfolio", "llkgen.verifier.cpsat",
                     "llkgen.verifier.pairing", "llkgen.verifier.movesearch", "llkgen.verifier.lock",
                     "llkgen.game.path", "llkgen.game.grid", "llkgen.game.referee", "llkgen.analysis", "llkgen.jobs")


def test_import_llkgen_cli_loads_nothing_heavy():
    out = _python(f"""
        import sys
        import llkgen.cli
        never = {CLI_NEVER_IMPORTS!r}
        print(sorted(m for m in sys.modules if m in never or m.startswith(tuple(n + "." for n in never))))
        from llkgen.verifier import Budget, verify
        import llkgen.verifier as verifier
        assert verifier.ENGINES and verify and Budget is verifier.Budget
        assert set(verifier.__all__) == set(verifier._LAZY) and set(verifier.__all__) <= set(dir(verifier))
    """)
    assert out.returncode == 0, out.stderr
    assert out.stdout.splitlines() == ["[]"]


# -- the front door: plain functions, whatever was imported first ------------------------------
CALLS = """
    import llkgen
    v = llkgen.verify([[1, 2, 0, 2], [-1, 0, 0, 1], [3, 0, 0, 3]])
    assert v.status == "solvable", v
    pack = llkgen.generate({"name": "t", "board": {"rows": 2, "cols": 2}, "tiles": {"types": 1, "copies": 4}})
    assert [lv.id for lv in pack.levels] == ["t-1"]
"""
SUBMODULES = """
    from llkgen.verifier import Budget, verify
    from llkgen.generation.generator import generate_level
    import llkgen.verifier as verifier
    import llkgen.verifier.pairing as pairing
    import llkgen.generation.generator as generator
    assert verifier.Budget is Budget and verifier.verify is verify and generator.generate_level is generate_level
    assert pairing.PairingSearch
"""
ORDERS = {
    "submodules first": SUBMODULES + CALLS,
    "calls first": CALLS + SUBMODULES + CALLS,
    "from llkgen import": """
        from llkgen import generate, verify
        assert verify([[1, 1]]).status == "solvable"
        assert generate("easy", count=1).levels[0].id == "easy-1"
    """,
}


@pytest.mark.parametrize("order", sorted(ORDERS))
def test_verify_and_generate_work_whatever_was_imported_first(order):
    out = _python(ORDERS[order])
    assert out.returncode == 0, out.stderr


@pytest.mark.parametrize("name", ["verify", "generate", "hint", "classify_moves", "reshuffle"])
def test_the_front_door_is_plain_functions_that_pickle(name):
    fn = getattr(llkgen, name)
    assert inspect.isfunction(fn) and fn is getattr(llkgen.api, name)
    assert pickle.loads(pickle.dumps(fn)) is fn


# -- verify -------------------------------------------------------------------------------------
def test_verify_takes_a_grid_a_rules_mapping_and_a_node_count():
    v = llkgen.verify(GRID, {"border": True, "gravity": "down"}, 1000, engine="search")
    assert v.status == "solvable"
    assert llkgen.replay(llkgen.Board.from_grid(GRID), llkgen.Rules(gravity="down"), v.solution).cleared


def test_verify_fills_in_the_library_budget_and_passes_the_hint_on(monkeypatch):
    import llkgen.verifier as verifier

    seen = []
    real = verifier.verify
    monkeypatch.setattr(verifier, "verify", lambda *a, **k: seen.append((a[2], k)) or real(*a, **k))
    llkgen.verify(GRID)
    llkgen.verify(GRID, hint=[[[2, 0], [2, 3]]])
    assert seen == [(llkgen.Budget(), {"engine": "auto", "hint": None}),
                    (llkgen.Budget(), {"engine": "auto", "hint": [((2, 0), (2, 3))]})]


@pytest.mark.parametrize("call, error, message", [
    (lambda: llkgen.verify("1 2\n2 1"), LlkgenError, "board: expected a llkgen Board or a list of rows, found str"),
    (lambda: llkgen.verify([[1, 2], [2]]), LevelFormatError, "ragged rows"),
    (lambda: llkgen.verify([[1, 2]]), LevelFormatError, "even"),
    (lambda: llkgen.verify(GRID, "none"), LlkgenError, "rules: expected a llkgen Rules or a mapping, found str"),
    (lambda: llkgen.verify(GRID, {"gravity": "north"}), LevelFormatError, "rules.gravity"),
    (lambda: llkgen.verify(GRID, {"wrap": True}), LlkgenError, "found wrap"),
    (lambda: llkgen.verify(GRID, budget=2.5), LlkgenError, "budget: expected a llkgen Budget or a node count"),
    (lambda: llkgen.verify(GRID, budget=llkgen.Budget(nodes=0)), LlkgenError, "budget.nodes"),
    (lambda: llkgen.verify(GRID, engine="fast"), LlkgenError, "engine: expected one of auto, search"),
    (lambda: llkgen.verify(GRID, hint=5), LlkgenError, "hint: expected a list of moves"),
    (lambda: llkgen.verify(GRID, hint=[[[0, 1]]]), LlkgenError, r"hint\[0\]: expected a move"),
    (lambda: llkgen.verify(GRID, hint=[[[0, 1], [0, "3"]]]), LlkgenError, r"hint\[0\]: expected integer"),
])
def test_verify_refuses_bad_arguments_with_a_clear_error(call, error, message):
    with pytest.raises(error, match=message):
        call()


# -- generate -----------------------------------------------------------------------------------
def test_generate_gives_the_pack_make_writes(tmp_path):
    from llkgen.formats.level import pack_to_json
    from llkgen.generation.spec import spec_from_dict
    from llkgen.jobs.make import make_pack

    out = tmp_path / "tiny.json"
    make_pack(spec_from_dict({**TINY, "export": {"path": str(out)}}), jobs=1)
    assert pack_to_json(llkgen.generate(TINY)) == json.loads(out.read_text("utf-8"))


def test_generate_accepts_every_form_of_spec(tmp_path):
    text = "name: tiny\nseed: 7\ncount: 2\nboard: {rows: 4, cols: 4}\ntiles: {types: 4, copies: 4}\n"
    path = tmp_path / "tiny.yaml"
    path.write_text(text, "utf-8")
    want = llkgen.generate(TINY)
    assert llkgen.generate(text) == want
    assert llkgen.generate(path) == want
    assert llkgen.generate(str(path)) == want
    assert llkgen.generate(llkgen.load_spec(path)) == want


def test_generate_overrides_count_and_seed():
    two = llkgen.generate(TINY)
    assert llkgen.generate(TINY, count=1).levels == two.levels[:1]
    other = llkgen.generate(TINY, seed=8)
    assert other.extra["seed"] == 8 and other.levels != two.levels


def test_generate_leaves_out_solutions_when_the_spec_says_so():
    pack = llkgen.generate({**TINY, "export": {"path": "x.json", "solutions": False}})
    assert all("solution" not in lv.extra and "certificate" in lv.extra for lv in pack.levels)


@pytest.mark.parametrize("call, error, message", [
    (lambda: llkgen.generate(42), LlkgenError, "spec: expected a Spec, a mapping, YAML text"),
    (lambda: llkgen.generate(["easy"]), LlkgenError, "found list"),
    (lambda: llkgen.generate("no-such.yaml"), SpecError, "no-such.yaml"),
    (lambda: llkgen.generate("nosuchname"), SpecError, "no shipped spec of that name"),
    (lambda: llkgen.generate({**TINY, "colour": 1}), SpecError, 'unknown key "colour"'),
    (lambda: llkgen.generate("name: x\nboard: [\n"), SpecError, "<string>"),
    (lambda: llkgen.generate(TINY, count=0), LlkgenError, r"count: expected an integer in 1\.\.1000000, found 0"),
    (lambda: llkgen.generate(TINY, count=True), LlkgenError, "count: expected an integer"),
    (lambda: llkgen.generate(TINY, seed=-1), LlkgenError, "seed: expected an integer in 0"),
    (lambda: llkgen.generate(TINY, jobs=0), LlkgenError, "jobs: expected an integer >= 1, found 0"),
    (lambda: llkgen.generate(TINY, jobs="2"), LlkgenError, "jobs: expected an integer >= 1"),
])
def test_generate_refuses_bad_arguments_with_a_clear_error(call, error, message):
    with pytest.raises(error, match=message):
        call()


def test_the_readme_library_example_runs(tmp_path, monkeypatch):
    block = marked_block("readme-library", "python")
    monkeypatch.chdir(tmp_path)
    namespace: dict = {}
    exec(compile(block, "README.md From Python", "exec"), namespace)
    assert namespace["verdict"].status == "solvable"
    assert [lv.id for lv in namespace["pack"].levels] == ["easy-1", "easy-2", "easy-3"]
    assert namespace["move"].status == "move"
