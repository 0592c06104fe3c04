"""The ``llkgen`` console script and ``python -m llkgen``: answers ``llkgen --version`` at
once, with no command-line framework imported, and hands every other command line to
:func:`llkgen.cli.main`.

Typer (its click, and the pydantic it coerces every argument through) costs several times an
interpreter's own start-up (benchmarks/startup_bench.py), and a version check should not pay
it. So this module imports nothing but the standard library's import machinery, and tells
which search core runs without importing it.

It also owns what the command prints last: standard output. A write error there (a full disk
under ``> file``, an I/O error) is one ``Error:`` line on stderr and exit 1, wherever the write
happened, the flush at exit included; a closed pipe ends the command quietly, as Click does.

And the process's last moments: once its last exit function has run, the interpreter puts
back the default action of every signal it handled, and a Ctrl-C then killed a finished run
by SIGINT, with no message (tests/execution/test_workers.py's 40 Ctrl-Cs at random points of ``make``). So
the exit function that runs last (registered first, before any module that registers one)
ignores Ctrl-C and SIGTERM: nothing is left to stop or to wait for, and the process ends with
the code it already has. Before that, :func:`llkgen.console.run_app` handles them.
"""

from __future__ import annotations

import atexit
import errno
import os
import sys
from typing import TYPE_CHECKING, Any, TextIO

if TYPE_CHECKING:
    from collections.abc import Iterable

from llkgen._version import version_line


def main() -> None:
    """Print :func:`version_line` for ``llkgen --version``; run :func:`llkgen.cli.main` on
    anything else. A write error on standard output: one ``Error:`` line, exit 1."""
    atexit.register(_ignore_late_signals)  # the first registered runs last
    stdout = sys.stdout = _Watched(sys.stdout)
    try:
        try:
            _run()
        finally:  # the output still buffered: its write error shows here, not at exit
            stdout.flush()
    except OSError as e:
        if stdout.failed is not e:
            raise
        _silence_stdout()
        if e.errno != errno.EPIPE:  # a reader that went away wants no message
            print(f"Error: cannot write to standard output: {e.strerror or e}", file=sys.stderr, flush=True)
        sys.exit(1)


def _run() -> None:
    if sys.argv[1:] == ["--version"]:
        print(version_line())
        return
    from llkgen.cli import main as cli_main

    cli_main()


def _ignore_late_signals() -> None:
    """Ignore Ctrl-C and SIGTERM for the rest of the exit: only the interpreter's own teardown
    is left, with no thread to join and no process to wait for (standard output was flushed
    by :func:`main`)."""
    import signal  # here, for cost: its enums take a millisecond that ``--version`` need not pay

    for name in ("SIGINT", "SIGTERM"):
        if hasattr(signal, name):
            signal.signal(getattr(signal, name), signal.SIG_IGN)


class _Watched:
    """Standard output, unchanged but for one thing: it remembers the write error it raised
    (``failed``), so an error from any other file is never mistaken for it. (Asking the stream
    afterwards cannot tell: a failed flush drops what it held, and the next flush succeeds.)"""

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream
        self.failed: OSError | None = None

    def write(self, text: str) -> int:
        try:
            return self.stream.write(text)
        except OSError as e:
            self.failed = e
            raise

    def writelines(self, lines: Iterable[str]) -> None:
        # Through write, line by line: the stream's own writelines would raise its error past
        # this wrapper, unremembered (verify writes its reports so).
        for line in lines:
            self.write(line)

    def flush(self) -> None:
        try:
            self.stream.flush()
        except OSError as e:
            self.failed = e
            raise

    def __getattr__(self, name: str) -> Any:
        return getattr(self.stream, name)


def _silence_stdout() -> None:
    """Point standard output at the null device, so the interpreter's own flush at exit
    cannot print the same error again as a traceback."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.__stdout__.fileno() if sys.__stdout__ is not None else 1)
    except (OSError, ValueError):  # no file descriptor to replace: nothing will flush to it
        pass
