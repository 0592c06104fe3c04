"""The house, held to its plan: every import under ``llkgen/`` goes down the wings of STYLE.md
("The house"), no two modules import each other round a cycle, the house is :data:`LAYERS`
wings tall, and no module is over :data:`MAX_LINES` lines.

**The graph.** Every module under ``llkgen/`` is parsed with :mod:`ast` (nothing is imported),
and every ``import llkgen...`` / ``from llkgen... import ...`` in it is an edge to the module it
names: ``from llkgen.formats import level`` names ``llkgen.formats.level``, ``from
llkgen.verifier import verify`` the package face ``llkgen.verifier``. Three kinds count alike:

* module-level imports;
* imports under ``if TYPE_CHECKING:``: the types a module names in its annotations (the
  real ones, not look-alikes) are a dependency a reader and mypy follow, and go down too;
* function-level imports. STYLE.md allows them for cost (``llkgen.cli``'s commands import
  their jobs only when they run, so that ``llkgen show`` does not pay for ``make``) or for an
  optional extra (``llkgen.execution`` imports the Dask back end only for ``--scheduler``).
  Either way the function depends on what it imports, so the edge counts: a function-level
  import is never a way round the house. (``llkgen.execution.dask_cluster``'s version probe
  runs on remote machines and imports ``llkgen._version`` there: a downward edge too.)

**The wings.** A module's wing is the package or top-level module under ``llkgen/`` that holds
it; :data:`HOUSE` lists them bottom to top in STYLE.md's order, the wings of one step side by
side. ``console.py`` (what the command line prints), ``entry.py`` and ``__main__.py`` (the
console script in front of it) are the command line's, with the ``cli`` package. An import is
*upward* when it names a wing of a later step, *sideways* when it names another wing of the
same step; both must be 0.

**Layers.** The number of top-level modules and packages under ``llkgen/`` on the longest
chain of imports between them that does not go up the house: how many floors a call can cross
on its way down. A top-level module counts on its own, so the console script is two floors
above the command line (``__main__.py`` runs ``entry.py``, which starts ``cli``), and
``console.py`` one below it. One of today's longest chains: ``__main__`` -> ``entry`` ->
``cli`` -> ``console`` -> ``generation`` -> ``analysis`` -> ``formats`` -> ``files`` ->
``errors`` (``cli`` -> ``jobs`` -> ``render`` -> ``analysis`` is as long): 9. It was 10 while
``formats`` held the commands' JSON vocabulary, which imports the verifier's verdicts
(``formats`` -> ``verifier`` -> ``game``). Run with ``-s`` to see the figures.
"""

from __future__ import annotations

import ast
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from paths import ROOT

PACKAGE = ROOT / "llkgen"

#: STYLE.md's house, bottom to top; the wings of one step side by side. ``outputs`` (the
#: commands' JSON vocabulary) prints the analysis' values and is printed with by the jobs and
#: the command line, so it stands beside ``generation`` and ``render``.
HOUSE: list[tuple[str, ...]] = [
    ("errors", "text", "_version"),
    ("game", "files", "execution"),
    ("verifier",),
    ("formats",),
    ("analysis",),
    ("generation", "render", "outputs"),
    ("jobs",),
    ("api",),
    ("cli", "__init__"),
]
#: Top-level modules that belong to another wing: the command line's printing and its
#: console script.
PART_OF = {"console": "cli", "entry": "cli", "__main__": "cli"}
#: The height of the house, at most: the longest chain of imports, counted in top-level modules
#: and packages.
LAYERS = 9
#: STYLE.md, "Sizes": a module over 600 lines is a question.
MAX_LINES = 600


@dataclass(frozen=True)
class Import:
    source: str  # the importing module, e.g. "llkgen.jobs.make"
    target: str  # the module imported
    kind: str  # "module", "typing" (under TYPE_CHECKING) or "function"
    line: int


def modules(root: Path = PACKAGE) -> dict[str, Path]:
    """Every module under ``root``, by dotted name (a package by its own name)."""
    found = {}
    for path in sorted(root.rglob("*.py")):
        parts = list(path.relative_to(root.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        found[".".join(parts)] = path
    return found


def _resolve(name: str, known: dict[str, Path]) -> str:
    while name not in known and "." in name:
        name = name.rpartition(".")[0]
    return name


def _targets(node: ast.Import | ast.ImportFrom, package: str, known: dict[str, Path]) -> list[str]:
    """The modules of the package an import statement in ``package`` names."""
    if isinstance(node, ast.Import):
        return [_resolve(a.name, known) for a in node.names if a.name.split(".")[0] == "llkgen"]
    base = node.module or ""
    if node.level:  # relative: from the package, up level - 1
        up = package.split(".")[: len(package.split(".")) - node.level + 1]
        base = ".".join([*up, *([node.module] if node.module else [])])
    if base.split(".")[0] != "llkgen":
        return []
    return [f"{base}.{a.name}" if f"{base}.{a.name}" in known else _resolve(base, known) for a in node.names]


def _visit(node: ast.AST, kind: str, name: str, package: str, known: dict[str, Path], found: list[Import]) -> None:
    for child in ast.iter_child_nodes(node):
        if isinstance(child, (ast.Import, ast.ImportFrom)):
            found.extend(Import(name, t, kind, child.lineno) for t in _targets(child, package, known))
        elif isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            _visit(child, "function", name, package, known, found)
        elif kind == "module" and isinstance(child, ast.If) and "TYPE_CHECKING" in ast.unparse(child.test):
            for part in child.body:
                _visit(ast.Module(body=[part], type_ignores=[]), "typing", name, package, known, found)
            for part in child.orelse:
                _visit(ast.Module(body=[part], type_ignores=[]), kind, name, package, known, found)
        else:
            _visit(child, kind, name, package, known, found)


def imports(known: dict[str, Path]) -> list[Import]:
    """Every import of a module of the package, by every module in ``known``."""
    found: list[Import] = []
    for name, path in known.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        _visit(ast.parse(path.read_text("utf-8"), str(path)), "module", name, package, known, found)
    return [i for i in found if i.source != i.target]


def wing(module: str) -> str:
    """The wing a module belongs to: its package or top-level module under ``llkgen/``."""
    parts = module.split(".")
    top = parts[1] if len(parts) > 1 else "__init__"
    return PART_OF.get(top, top)


def step(w: str) -> int:
    """The wing's step in :data:`HOUSE`, from 0 at the bottom."""
    for i, wings in enumerate(HOUSE):
        if w in wings:
            return i
    raise AssertionError(f"llkgen/{w}: a wing STYLE.md's house does not name: add it to HOUSE in its place")


@dataclass
class House:
    """What the checks find in a graph of imports."""

    upward: list[Import]
    sideways: list[Import]
    cycles: list[list[str]]
    chain: list[str]  # the longest chain of top-level modules and packages, top first

    @property
    def layers(self) -> int:
        return len(self.chain)


def survey(edges: list[Import], names: Iterable[str]) -> House:
    upward = [e for e in edges if step(wing(e.target)) > step(wing(e.source))]
    sideways = [e for e in edges if wing(e.target) != wing(e.source) and step(wing(e.target)) == step(wing(e.source))]
    return House(upward, sideways, _cycles(edges, names), _longest_chain(edges))


def _cycles(edges: list[Import], names: Iterable[str]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan, iteratively)."""
    graph: dict[str, set[str]] = defaultdict(set)
    for e in edges:
        graph[e.source].add(e.target)
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for root in names:
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            v, children = work[-1]
            for w in children:
                if w not in index:
                    index[w] = low[w] = len(index)
                    stack.append(w)
                    on_stack.add(w)
                    work.append((w, iter(sorted(graph[w]))))
                    break
                if w in on_stack:
                    low[v] = min(low[v], index[w])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[v])
                if low[v] == index[v]:
                    component = []
                    while True:
                        w = stack.pop()
                        on_stack.discard(w)
                        component.append(w)
                        if w == v:
                            break
                    if len(component) > 1:
                        found.append(sorted(component))
    return found


def floor(module: str) -> str:
    """The top-level module or package under ``llkgen/`` that holds ``module``: the unit that
    :data:`LAYERS` counts (``console``, ``entry`` and ``__main__`` each count as one)."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "__init__"


def _longest_chain(edges: list[Import]) -> list[str]:
    """The longest chain of top-level modules and packages along the imports that do not go
    up the house (all of them, when none does)."""
    down: dict[str, set[str]] = defaultdict(set)
    for e in edges:
        if floor(e.source) != floor(e.target) and step(wing(e.target)) <= step(wing(e.source)):
            down[floor(e.source)].add(floor(e.target))

    @cache
    def chain(f: str, seen: frozenset[str] = frozenset()) -> tuple[str, ...]:
        assert f not in seen, f"a cycle between top-level modules through {f}: {sorted(seen)}"
        below = [chain(x, seen | {f}) for x in sorted(down[f])]
        return (f, *max(below, key=len, default=()))

    floors = {floor(e.source) for e in edges} | {floor(e.target) for e in edges}
    return list(max((chain(f) for f in sorted(floors)), key=len, default=()))


def _where(e: Import) -> str:
    return f"{e.source} -> {e.target} ({e.kind}-level, line {e.line})"


# -- the tests --------------------------------------------------------------------------------------
KNOWN = modules()
EDGES = imports(KNOWN)


def test_every_module_is_in_a_wing_of_the_house():
    for name in KNOWN:
        step(wing(name))


def test_no_import_goes_up_or_sideways_and_none_goes_round():
    house = survey(EDGES, KNOWN)
    function_level = [e for e in EDGES if e.kind == "function"]
    print(f"\nimport graph of llkgen/: {len(KNOWN)} modules, {len(EDGES)} imports "
          f"({len(function_level)} function-level, {sum(e.kind == 'typing' for e in EDGES)} under TYPE_CHECKING); "
          f"{house.layers} layers ({' -> '.join(house.chain)}); {len(house.upward)} upward, "
          f"{len(house.sideways)} sideways, {len(house.cycles)} cycles")
    assert [_where(e) for e in house.upward] == [], "upward imports: move the code up to the wing that needs it"
    assert [_where(e) for e in house.sideways] == [], "imports between wings of one step"
    assert house.cycles == [], "modules that import each other round a cycle"
    assert house.layers <= LAYERS, f"the house is {house.layers} wings tall: {' -> '.join(house.chain)}"


def test_no_module_is_over_600_lines():
    sizes = {name: len(path.read_text("utf-8").splitlines()) for name, path in KNOWN.items()}
    largest = max(sizes, key=sizes.__getitem__)
    print(f"\nlargest module: {largest}, {sizes[largest]} lines")
    assert {n: s for n, s in sizes.items() if s > MAX_LINES} == {}


def test_the_checks_can_fail():
    """An upward import, a sideways one and a cycle, each added to the real graph, are found."""
    up = Import("llkgen.game.board", "llkgen.jobs.make", "function", 1)
    side = Import("llkgen.render.svg", "llkgen.generation.spec", "module", 1)
    back = Import("llkgen.verifier.verdict", "llkgen.verifier.portfolio", "typing", 1)
    house = survey([*EDGES, up, side, back], KNOWN)
    assert up in house.upward and side in house.sideways
    assert any({"llkgen.verifier.verdict", "llkgen.verifier.portfolio"} <= set(c) for c in house.cycles)
    taller = survey([*EDGES, Import("llkgen.game.board", "llkgen.files", "module", 1)], KNOWN)
    assert taller.layers == survey(EDGES, KNOWN).layers + 1  # game now stands on files


def test_the_parser_sees_each_kind_of_import(tmp_path):
    root = tmp_path / "llkgen"
    (root / "sub").mkdir(parents=True)
    (root / "__init__.py").write_text("")
    (root / "errors.py").write_text("")
    (root / "sub" / "__init__.py").write_text("")
    (root / "sub" / "a.py").write_text(
        "from typing import TYPE_CHECKING\n"
        "from llkgen import errors\n"
        "from . import b\n"
        "if TYPE_CHECKING:\n    import llkgen.sub.c\n"
        "def f():\n    from llkgen.sub.b import thing\n")
    (root / "sub" / "b.py").write_text("")
    (root / "sub" / "c.py").write_text("")
    known = modules(root)
    found = {(e.target, e.kind) for e in imports(known) if e.source == "llkgen.sub.a"}
    assert found == {("llkgen.errors", "module"), ("llkgen.sub.b", "module"), ("llkgen.sub.c", "typing"),
                     ("llkgen.sub.b", "function")}
