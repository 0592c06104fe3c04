"""The arguments and options several commands share, each declared once with its help: a
LEVEL, ``--json``, ``-q``, ``--budget``, ``--nodes``, ``--jobs`` and ``--scheduler``. A
command's own options are declared on the command itself, their help beside them.

Each shared one is a type to annotate a parameter with (``quiet: Quiet = False``), or, where the
help names the command (``--json``) or adds to a shared beginning (``--budget``), a function
that gives the option. tests/cli/test_cli.py holds sibling commands to these texts.
"""

from __future__ import annotations

from typing import Annotated, Any, Optional

import typer

from llkgen.verifier import verdict

#: The kinds (``llkgen.<kind>/<n>``, ``llkgen schema <kind>``) of what each command prints with
#: ``--json``: the one table of them. tests/cli/test_json_outputs.py fails for a command that gains
#: ``--json`` without an entry here, and for a kind without its schema.
COMMAND_OUTPUTS: dict[str, tuple[str, ...]] = {
    "moves": ("moves", "move-labels"),
    "hint": ("hint",),
    "reshuffle": ("reshuffle",),
    "replay": ("replay",),
    "solve": ("solve",),
    "make": ("make-report",),
    "merge": ("merge-report",),
    "verify": ("verify-report",),
    "grade": ("grade-report",),
    "calibrate": ("calibration",),
}


def json_help(command: str) -> str:
    """The ``--json`` help of ``command``, naming the schema of what it prints."""
    first, *others = COMMAND_OUTPUTS[command]
    also = f" ({', '.join(others)} with --classify)" if others else ""
    return f"Print one JSON document on stdout instead of text; llkgen schema {first}{also} describes it."


def json_flag(command: str) -> Any:
    """``--json`` of ``command``."""
    return typer.Option("--json", help=json_help(command))


#: A LEVEL argument.
LevelRef = Annotated[str, typer.Argument(
    metavar="LEVEL", help="A llkgen.level/1 JSON file, or PACK.json#ID for one level of a pack.")]

#: ``-q`` where it means no more than this (``verify -q`` still lists what failed: its own text).
QUIET_HELP = "Print nothing but errors and failures (the --json document is printed as usual)."
Quiet = Annotated[bool, typer.Option("--quiet", "-q", help=QUIET_HELP)]

#: ``--nodes``: a budget of search nodes, deterministic, so the answer is the same on every machine.
NODES_HELP = "Search-node budget of each verification (deterministic: the same answer on every machine)."
Nodes = Annotated[int, typer.Option("--nodes", min=1, help=NODES_HELP)]

#: The largest ``--budget``, in seconds: the library's own limit (its comment says why).
MAX_BUDGET_SECONDS = verdict.MAX_BUDGET_SECONDS


def budget_problem(seconds: float | None) -> str | None:
    """What is wrong with ``--budget SECONDS`` (``None``: nothing); every command's
    ``--budget`` is checked here."""
    if seconds is None or 0 <= seconds <= MAX_BUDGET_SECONDS:  # False for nan
        return None
    return f"expected a number of seconds from 0 to {MAX_BUDGET_SECONDS:,}, found {seconds!r}"


def budget_seconds(value: Optional[float]) -> Optional[float]:
    """Every ``--budget``: a finite number of seconds up to the documented maximum, else exit 2."""
    problem = budget_problem(value)
    if problem is not None:
        raise typer.BadParameter(problem)
    return value


#: How every ``--budget SECONDS`` begins: a limit on the whole command, never on a part of it.
BUDGET_HELP = f"Wall-clock limit in seconds for the whole command (0: no time; at most {MAX_BUDGET_SECONDS:,})"
#: ``--budget`` of the commands that answer about one board: ``moves --classify``, ``hint``,
#: ``reshuffle``, ``solve``.
WHOLE_BUDGET_HELP = f"{BUDGET_HELP}; what it leaves undecided is unknown, exit 4. Makes the answer machine-dependent."
#: ``--budget`` of the commands that write nothing unless they finish: ``make``, ``merge``, ``view``.
WRITE_BUDGET_HELP = f"{BUDGET_HELP}; when it runs out nothing is written (exit 4)."


def budget_flag(help: str) -> Any:
    """``--budget SECONDS``, checked by :func:`budget_seconds`; ``help`` begins with
    :data:`BUDGET_HELP` and says what the command does when it runs out."""
    return typer.Option("--budget", metavar="SECONDS", min=0.0, callback=budget_seconds, help=help)


#: ``--jobs`` of ``verify`` and ``grade``; ``make`` adds what it guarantees.
JOBS_HELP = "Worker processes (default: the number of cores)."
Jobs = Annotated[Optional[int], typer.Option("--jobs", min=1, help=JOBS_HELP)]

#: ``--scheduler`` of ``make`` and ``verify``.
Scheduler = Annotated[Optional[str], typer.Option(
    "--scheduler", metavar="local|ADDRESS",
    help="Run on a Dask cluster: 'local' (a local cluster of --jobs worker processes) or a scheduler address "
         "such as tcp://HOST:8786. Needs: pip install 'llkgen[dask]'.")]
