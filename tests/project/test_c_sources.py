"""The C sources under ``llkgen/`` keep their shape: no function over 100 lines, a shared board
rather than one per module, and asserts on the invariants their head comments state
(``llkgen/_native/check.h``). Read from the text; nothing is compiled here."""

from __future__ import annotations

import re
from pathlib import Path

from paths import ROOT

LLKGEN = ROOT / "llkgen"
#: The longest a C function may be, from its signature's first line to its closing brace.
MAX_FUNCTION_LINES = 100


def c_sources() -> list[Path]:
    return sorted(p for p in LLKGEN.rglob("*") if p.suffix in (".c", ".h"))


def functions(text: str) -> list[tuple[str, int]]:
    """Each function's name and length in lines. The sources are in one style: a definition's
    body opens with a ``{`` alone at the start of a line, after its signature, and closes with
    a ``}`` at the start of a line. A struct's or an array's closing ``};`` is not a function's."""
    lines = text.splitlines()
    found = []
    for i, line in enumerate(lines):
        if line != "{":
            continue
        start = i - 1  # the signature, which may run over several lines
        while start > 0 and not re.match(r"[A-Za-z_]", lines[start]):
            start -= 1
        name = re.search(r"(\w+)\s*\(", lines[start])
        end = next(j for j in range(i + 1, len(lines)) if lines[j].startswith("}"))
        assert lines[end] == "}", f"a function's closing brace alone on its line: {lines[end]!r}"
        found.append((name.group(1) if name else lines[start], end - start + 1))
    return found


def test_the_length_check_sees_every_function():
    """The check below can fail: it finds the functions of a source, and their lengths."""
    text = "static int f(int a,\n             int b)\n{\n    return a + b;\n}\n\nstatic void g(void)\n{\n}\n"
    assert functions(text) == [("f", 5), ("g", 3)]
    found = {name for path in c_sources() for name, _ in functions(path.read_text(encoding="utf-8"))}
    assert {"gs_search", "compact_line", "linked", "game_read", "play", "moves_after_gravity"} <= found


def test_no_c_function_is_over_100_lines():
    long = [f"{path.relative_to(ROOT)}: {name}, {n} lines"
            for path in c_sources() for name, n in functions(path.read_text(encoding="utf-8"))
            if n > MAX_FUNCTION_LINES]
    assert long == []


def test_the_board_is_defined_once():
    """One padded board for both modules (``llkgen/_native/board.h``), with the link rule beside
    it; each module includes it and defines no board, line table or compaction of its own."""
    sources = {p.relative_to(LLKGEN).as_posix(): p.read_text(encoding="utf-8") for p in c_sources()}
    games = [name for name, text in sources.items() if re.search(r"\}\s*Game;", text)]
    assert games == ["_native/board.h"]
    for name in ("verifier/_gravity_search.c", "analysis/_players.c"):
        assert '#include "../_native/board.h"' in sources[name]
        assert not re.search(r"^static[^\n(]*\b(compact_line|game_read|build_lines)\(", sources[name], re.M)
    # every header is shared: included by both modules (directly or through board.h)
    assert all(name.startswith("_native/") for name in sources if name.endswith(".h"))


def test_the_c_states_its_invariants_in_asserts():
    """Every source asserts, through check.h (which decides whether the asserts are compiled)."""
    for path in c_sources():
        text = path.read_text(encoding="utf-8")
        if path.name == "check.h":
            continue
        assert re.search(r"\bassert\(", text), path
        assert '#include "check.h"' in text or "_native/board.h" in text, path
