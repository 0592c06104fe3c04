"""What each quick command imports: nothing it does not use. ``llkgen show``, ``moves``,
``replay``, ``solve``, ``hint`` and ``--help`` start in a fraction of the time the whole
library would take (benchmarks/startup_bench.py measures it); these sets are what keeps it so.

No time is measured here: the commands run in one fresh interpreter, lightest first, and after
each the modules it loaded are compared with what it may load."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

from paths import DATA

DEMO = str(DATA / "demo.json")

#: What no command below imports: the number and solver libraries, the optional extras, the
#: spec reader, the model players, the executors, the jobs and the renderers.
NEVER = ("numpy", "ortools", "rich", "yaml", "jsonschema", "distributed", "dask",
         "llkgen.generation.spec", "llkgen.generation.spec_model", "llkgen.generation.strictyaml",
         "llkgen.analysis.players", "llkgen.analysis.difficulty", "llkgen.execution", "llkgen.jobs",
         "llkgen.render")
#: What the commands that only read a level also leave alone: the verifier and the analysis.
READ_ONLY_NEVER = (*NEVER, "llkgen.verifier.portfolio", "llkgen.verifier.cpsat", "llkgen.analysis")
#: Each command line, in the order they run, and what it may not have imported by its end. A
#: command's set covers the ones before it, so each is at least as strict as the next.
COMMANDS = [
    (["--help"], (*READ_ONLY_NEVER, "pydantic")),  # --help is answered before any argument is coerced
    (["show", DEMO], READ_ONLY_NEVER),
    (["moves", DEMO], READ_ONLY_NEVER),
    (["replay", DEMO, str(DATA / "demo.moves.json")], READ_ONLY_NEVER),
    (["solve", DEMO], (*NEVER, "llkgen.analysis.advice")),
    (["hint", DEMO], NEVER),
    (["moves", DEMO, "--classify"], NEVER),
]

CHILD = textwrap.dedent("""\
    import contextlib, io, json, sys
    from llkgen.entry import main

    for argv in json.loads(sys.argv[1]):
        sys.argv = ["llkgen", *argv]
        with contextlib.redirect_stdout(io.StringIO()):
            try:
                main()
            except SystemExit as e:
                code = e.code
            else:
                code = 0
        print(json.dumps([code, sorted(sys.modules)]))
""")


def loaded(name: str, modules: list[str]) -> bool:
    return any(m == name or m.startswith(name + ".") for m in modules)


def test_each_quick_command_imports_only_what_it_uses():
    r = subprocess.run([sys.executable, "-c", CHILD, json.dumps([argv for argv, _ in COMMANDS])],
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    runs = [json.loads(line) for line in r.stdout.splitlines()]
    assert len(runs) == len(COMMANDS)
    for (argv, never), (code, modules) in zip(COMMANDS, runs):
        assert code == 0, argv
        assert [m for m in never if loaded(m, modules)] == [], argv
        # pydantic, when it is there, is Typer's: it coerces arguments through it (Typer 0.29)
        assert not loaded("pydantic", modules) or "typer._adapters" in modules, argv
