"""Start-up benchmark: the CPU time (user + system) of ``llkgen --help``, ``show``, ``solve`` and
``hint`` on a small level, each as a whole process, against a bare ``python -c 'import typer'``
timed in the same run; then, module by module, where each command's import time goes.

The target (issue 32): each command at most 1.5x a bare ``import typer``. The rows between them
say what part of a command llkgen can act on:

* ``import typer, typer._adapters``: Typer 0.29 coerces every argument and option through a
  pydantic ``TypeAdapter``, built when the command line is parsed, so every command but a bare
  ``llkgen --help`` imports pydantic (and pydantic's plugin loader, importlib.metadata);
* ``typer app, 1 command``: the smallest Typer app with a command like ``show``; its ratio is
  the floor of any Typer command, which no import of llkgen's can lower;
* ``import llkgen.cli``: Typer plus llkgen's own modules (and the standard library ones they
  import), the part llkgen decides;
* ``import numpy``: what ``hint`` and ``moves --classify`` leave out (only a reshuffle uses it).

CPU time, not wall time: on a shared machine the wall clock counts other processes' work. The
commands run in turn, round after round, so a drift in the machine's speed affects them alike;
each ratio is the median of the per-round ratios to that round's ``import typer``, with its
quartiles. Every child reads compiled bytecode, as an installed package does (pip compiles it):
they share a bytecode cache in a temporary directory (``PYTHONPYCACHEPREFIX``) that the warm-up
round fills, whatever ``PYTHONDONTWRITEBYTECODE`` says.

The second table runs each command five times more under ``python -X importtime`` and adds up the
modules it imports beyond ``import typer``'s, by the package that asked for them: a standard
library module counts for the nearest package above it in the import tree (``importlib.metadata``
under pydantic is pydantic's). It gives each group's share of the import wall time: the split,
not the total (wall time stretches on a busy machine; the first table's CPU times do not).

    python benchmarks/startup_bench.py [--runs 20] [--level LEVEL]
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import textwrap
from collections import Counter
from pathlib import Path

#: A command's CPU time / a bare ``python -c 'import typer'``'s, at most (issue 32).
TARGET = 1.5
#: The smallest Typer app with a command like ``show``: one command, one argument, printed.
TYPER_ONE_COMMAND = textwrap.dedent("""\
    import typer
    app = typer.Typer(add_completion=False, rich_markup_mode=None)
    @app.callback()
    def root() -> None:
        pass
    @app.command()
    def show(level: str = typer.Argument(..., metavar="LEVEL")) -> None:
        typer.echo(level)
    app()
""")
#: Runs of each command under ``-X importtime`` for the second table (the least of each group).
IMPORT_RUNS = 5
#: The ratios are taken against this row.
TYPER = "python -c 'import typer'"
#: The commands the target applies to.
TARGETED = ("llkgen --help", "llkgen show LEVEL", "llkgen solve LEVEL", "llkgen hint LEVEL")
#: The packages the second table names; any other third-party module counts as "other".
GROUPS = ("llkgen", "typer", "pydantic", "pydantic_core", "annotated_types", "typing_inspection",
          "typing_extensions", "rich", "numpy", "ortools", "yaml", "click", "shellingham", "annotated_doc")


def console_script() -> str:
    """The installed ``llkgen`` script beside this interpreter, else the one on PATH."""
    here = Path(sys.executable).parent / ("llkgen.exe" if os.name == "nt" else "llkgen")
    found = str(here) if here.exists() else shutil.which("llkgen")
    if found is None:
        sys.exit("startup_bench: no llkgen console script found: pip install -e . first")
    return found


def child_env(cache: Path) -> dict[str, str]:
    """The environment of every timed process: compiled bytecode in ``cache``, as installed."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPYCACHEPREFIX"] = str(cache)
    return env


def cpu(argv: list[str], env: dict[str, str]) -> float:
    """The CPU seconds (user + system) the process ``argv`` took, exit code unchecked: ``solve``
    and ``hint`` exit 3 or 4 on some boards, and ``show`` with no level exits 2."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env, check=False)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def write_level(folder: Path) -> str:
    """A one-level pack in ``folder``, named as ``llkgen show`` takes it: ``PACK.json#ID``."""
    from llkgen.formats.level import Level, Pack, pack_to_json, write_json_atomic
    from llkgen.game.board import Board

    board = Board.from_text("1 5 7 10 9 9 6 2\n11 1 5 2 8 12 3 11\n12 6 5 1 10 12 10 8\n"
                            "4 11 7 7 10 2 12 3\n4 3 8 4 9 3 4 6\n8 5 9 6 7 11 1 2")
    path = folder / "bench.json"
    write_json_atomic(path, pack_to_json(Pack("bench", [Level(board, id="bench-1")])))
    return f"{path}#bench-1"


def commands(script: str, folder: Path, level: str) -> dict[str, list[str]]:
    py = sys.executable
    (folder / "typer_one_command.py").write_text(TYPER_ONE_COMMAND, "utf-8")
    rows = {
        "python -c pass": [py, "-c", "pass"],
        TYPER: [py, "-c", "import typer"],
    }
    if importlib.util.find_spec("typer._adapters") is not None:  # Typer's pydantic coercion (0.29)
        rows["import typer, typer._adapters"] = [py, "-c", "import typer, typer._adapters"]
    rows |= {
        "typer app, 1 command (floor)": [py, str(folder / "typer_one_command.py"), "show", level],
        "import llkgen.cli": [py, "-c", "import llkgen.cli"],
        "python -c 'import numpy'": [py, "-c", "import numpy"],  # what hint does not import
        "llkgen --version": [script, "--version"],
        "llkgen --help": [script, "--help"],
        "llkgen show LEVEL": [script, "show", level],
        "llkgen solve LEVEL": [script, "solve", level],
        "llkgen hint LEVEL": [script, "hint", level],
    }
    return rows


def quartiles(xs: list[float]) -> tuple[float, float, float]:
    q1, q2, q3 = statistics.quantiles(xs, n=4) if len(xs) > 1 else (xs[0],) * 3
    return q1, q2, q3


def time_table(rows: dict[str, list[str]], runs: int,
               env: dict[str, str]) -> tuple[dict[str, float], dict[str, float]]:
    """Time ``rows`` in turn, ``runs`` rounds after one warm-up; print the table and return each
    row's median CPU seconds and its median ratio to ``import typer``."""
    times: dict[str, list[float]] = {name: [] for name in rows}
    for argv in rows.values():  # warm-up: the file cache, and the bytecode cache written
        cpu(argv, env)
    for _ in range(runs):
        for name, argv in rows.items():
            times[name].append(cpu(argv, env))
    print(f"{'command':<32} {'CPU ms':>8} {'(q1 - q3)':>15} {'x import typer':>15} {'(q1 - q3)':>13}")
    medians, ratios = {}, {}
    for name, ts in times.items():
        per_round = [t / b for t, b in zip(ts, times[TYPER])]
        t1, t2, t3 = quartiles(ts)
        r1, r2, r3 = quartiles(per_round)
        medians[name], ratios[name] = t2, r2
        mark = "" if name not in TARGETED else "  met" if r2 <= TARGET else "  over"
        print(f"{name:<32} {t2 * 1e3:>8.1f} {f'({t1 * 1e3:.0f} - {t3 * 1e3:.0f})':>15} {r2:>15.2f} "
              f"{f'({r1:.2f} - {r3:.2f})':>13}{mark}")
    print(f"({runs} rounds, the commands in turn; CPU time of the whole process; median and quartiles. "
          f"Target: at most {TARGET}x import typer.)")
    return medians, ratios


def explain(cpu: dict[str, float], ratios: dict[str, float]) -> None:
    """Where a command's CPU goes beyond ``import typer``, from the table's medians."""
    floor = ratios["typer app, 1 command (floor)"]

    def ms(a: str, b: str) -> str:
        return f"{(cpu[a] - cpu[b]) * 1e3:+.0f} ms"

    print()
    if "import typer, typer._adapters" in cpu:
        print(f"Typer's argument coercion (pydantic): {ms('import typer, typer._adapters', TYPER)}; "
              f"a 1-command Typer app costs {floor:.2f}x import typer, so no command that takes an "
              f"argument can meet {TARGET}x with this Typer")
    print(f"llkgen's own modules (import llkgen.cli - import typer): {ms('import llkgen.cli', TYPER)}; "
          f"llkgen show - the 1-command app: {ms('llkgen show LEVEL', 'typer app, 1 command (floor)')} "
          "(its modules, and Typer building 14 commands instead of 1)")


def imported(argv: list[str], env: dict[str, str]) -> list[tuple[str, int, int]]:
    """``(module, self µs, depth)`` for each module ``argv`` imports, in ``-X importtime``'s order
    (a module's imports are listed before it, one level deeper)."""
    if not argv[0].endswith(("python", "python3", "python.exe")) and argv[0] != sys.executable:
        argv = [sys.executable, "-m", "llkgen", *argv[1:]]  # the console script runs llkgen.entry too
    r = subprocess.run([argv[0], "-X", "importtime", *argv[1:]], capture_output=True, text=True, env=env,
                       check=False)
    out = []
    for line in r.stderr.splitlines():
        m = re.match(r"import time:\s+(\d+) \|\s+\d+ \|( *)(\S+)", line)
        if m:
            out.append((m.group(3), int(m.group(1)), len(m.group(2)) // 2))
    return out


def owners(mods: list[tuple[str, int, int]]) -> dict[str, str]:
    """Each module's group: its own package if :data:`GROUPS` names it, "other" for another
    third-party one, else (the standard library) its importer's group, "stdlib" at the top."""
    group: dict[str, str] = {}
    above: dict[int, str] = {}  # depth -> the group of the module being read at that depth
    for name, _, depth in reversed(mods):  # importtime lists a module after its imports
        top = name.split(".")[0]
        if top in GROUPS:
            mine = top
        elif top in sys.stdlib_module_names or top.startswith("_"):
            mine = above.get(depth - 1, "stdlib")
        else:
            mine = "other"
        group[name] = above[depth] = mine
    return group


def split_table(rows: dict[str, list[str]], env: dict[str, str]) -> None:
    """The modules each llkgen command imports beyond ``import typer``'s, by group, in ms."""
    base = {name for name, _, _ in imported(rows[TYPER], env)}
    names = [n for n in rows if n.startswith("llkgen ") and n != "llkgen --version"]
    table: dict[str, Counter[str]] = {}
    for name in names:
        rounds: list[Counter[str]] = []
        for _ in range(IMPORT_RUNS):
            mods = imported(rows[name], env)
            group = owners(mods)
            count: Counter[str] = Counter()
            for mod, us, _ in mods:
                if mod not in base:
                    count[group.get(mod, "stdlib")] += us
            rounds.append(count)
        # the least disturbed of the runs, group by group: a busy machine only ever adds time
        table[name] = Counter({g: min(c[g] for c in rounds) for g in set().union(*rounds)})
    cols = [g for g in (*GROUPS, "other", "stdlib") if any(table[n][g] for n in names)]
    print()
    print("Import time beyond `import typer`'s modules: % by the package that imports them, total in ms")
    print(f"{'command':<22}" + "".join(f"{c[:12]:>13}" for c in cols) + f"{'total ms':>10}")
    for name in names:
        total = sum(table[name].values())
        print(f"{name:<22}" + "".join(f"{100 * table[name][c] / total:>12.0f}%" for c in cols)
              + f"{total / 1e3:>10.1f}")
    print(f"(the least of {IMPORT_RUNS} runs each under python -X importtime; a standard-library module counts "
          "for the package that imported it)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=20, help="timed rounds (after one warm-up)")
    parser.add_argument("--level", help="the LEVEL the commands read (default: a 6x8 board written here)")
    args = parser.parse_args()
    script = console_script()
    with tempfile.TemporaryDirectory(prefix="llkgen-startup-") as tmp:
        folder = Path(tmp)
        env = child_env(folder / "pycache")
        rows = commands(script, folder, args.level or write_level(folder))
        explain(*time_table(rows, args.runs, env))
        split_table(rows, env)


if __name__ == "__main__":
    main()
