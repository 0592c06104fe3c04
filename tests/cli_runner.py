"""Run the CLI in this process, for tests that check exit codes and output without the
cost of a subprocess."""

from __future__ import annotations

import signal
import sys


def run_cli_in_process(argv, monkeypatch, capsys) -> tuple[int, str, str]:
    """Run ``llkgen.cli.main`` in this process on ``argv``: ``(exit code, stdout, stderr)``.
    An exception other than SystemExit propagates: that is a traceback."""
    from llkgen.cli import main

    monkeypatch.setattr(sys, "argv", ["llkgen", *argv])
    monkeypatch.setenv("COLUMNS", "200")
    capsys.readouterr()
    # The CLI turns Ctrl-C and SIGTERM into its own stop; in this process they stay pytest's.
    handlers = {s: signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM)}
    try:
        main()
        code = 0
    except SystemExit as e:
        code = e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
    finally:
        for s, handler in handlers.items():
            signal.signal(s, handler)
    out, err = capsys.readouterr()
    return code, out, err
