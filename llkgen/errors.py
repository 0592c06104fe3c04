"""llkgen's own error types.

Every problem with user input (a level file, a pack, a spec, a moves file) or with an output
path the user gave is raised as a subclass of :class:`LlkgenError`. The CLI turns these into
``Error: ...`` on stderr with exit code 1 and never shows a traceback; anything else escaping
is a bug.
"""

from __future__ import annotations

from collections.abc import Iterable

#: The command line's exit codes, the one place they are defined (``llkgen --help`` lists them).
EXIT_OK = 0  # done; solvable; every level certified
EXIT_FAILED = 1  # invalid input, or a level that failed its check
EXIT_USAGE = 2  # a usage error (bad flag or argument)
EXIT_UNSOLVABLE = 3  # proved unsolvable
EXIT_UNKNOWN = 4  # a budget ran out before a verdict
#: The codes as ``llkgen --help`` lists them (130 and 143: see :mod:`llkgen.console`).
EXIT_CODES_HELP = (
    "Exit codes: 0 ok / solvable; 1 invalid input or failed check; 2 usage error; "
    "3 unsolvable; 4 unknown (a budget ran out); 130 interrupted (Ctrl-C); 143 terminated."
)


class LlkgenError(ValueError):
    """Base class for errors the user can act on. Carries the CLI exit code, and the names of
    the call's arguments that its message names (``arguments``)."""

    exit_code = EXIT_FAILED
    #: The arguments of the call that the message names, each by its name in the library
    #: (``count: expected ...``, ``rerun with resume``): a program reads the names it passed.
    #: The command line, which took them as flags, names its flags instead (``--count``,
    #: ``--resume``: :func:`llkgen.console.with_flags`). Each is named once in the message.
    arguments: tuple[str, ...] = ()

    def __init__(self, *args: object, arguments: Iterable[str] = ()) -> None:
        super().__init__(*args)
        if arguments:  # kept in the instance's __dict__, which pickling carries across processes
            self.arguments = tuple(arguments)


class LevelFormatError(LlkgenError):
    """A level, pack or moves file is malformed: the message names the file, the place and
    what was expected versus found."""


class SpecError(LlkgenError):
    """A YAML generator spec is malformed: the message names the file and the key path."""


class GenerationError(LlkgenError):
    """The generator could not produce a certified level within its attempt budget."""


class UsageError(LlkgenError):
    """Options that cannot go together, found after parsing: a usage error, exit code 2."""

    exit_code = EXIT_USAGE


class OutputError(LlkgenError):
    """An output file or directory cannot be written: the message names it and says why."""


class BudgetExhausted(LlkgenError):
    """A wall-clock budget (a ``budget`` of seconds) ran out before the work was done: the run
    stopped at its deadline, wrote nothing, and the message says how far it got. Exit code 4,
    as for any budget that runs out before a verdict."""

    exit_code = EXIT_UNKNOWN


def budget_text(seconds: float | None) -> str:
    """How a message names the wall-clock budget a deadline came from: ``the budget of 5 s``,
    the ``budget`` argument (``the time budget`` when the number is not known)."""
    return "the time budget" if seconds is None else f"the budget of {seconds:g} s"


def budget_arguments(seconds: float | None) -> tuple[str, ...]:
    """:attr:`LlkgenError.arguments` of a message that names :func:`budget_text` ``(seconds)``:
    the ``budget`` argument when it has a number, else none."""
    return () if seconds is None else ("budget",)
