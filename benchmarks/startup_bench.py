"""Start-up benchmark: how long ``llkgen --version`` takes as a whole process, against a bare
interpreter (``python -c pass``) timed in the same run.

``llkgen --version`` is answered by :mod:`llkgen.entry` before any command-line framework is
imported; ``llkgen --help`` (the whole Typer app) is timed too, to show what that saves. The
commands run in turn, round after round, so a machine whose speed drifts affects them alike;
the table gives each command's median wall time and its ratio to the bare interpreter.

    python benchmarks/startup_bench.py [--runs 20]
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path


def console_script() -> str:
    """The installed ``llkgen`` script beside this interpreter, else the one on PATH."""
    here = Path(sys.executable).parent / ("llkgen.exe" if os.name == "nt" else "llkgen")
    found = str(here) if here.exists() else shutil.which("llkgen")
    if found is None:
        sys.exit("startup_bench: no llkgen console script found: pip install -e . first")
    return found


def wall(argv: list[str]) -> float:
    started = time.perf_counter()
    subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=20, help="timed runs of each command (after one warm-up)")
    args = parser.parse_args()
    script = console_script()
    commands = {
        "python -c pass (baseline)": [sys.executable, "-c", "pass"],
        "llkgen --version": [script, "--version"],
        "python -m llkgen --version": [sys.executable, "-m", "llkgen", "--version"],
        "llkgen --help (the whole CLI)": [script, "--help"],
    }
    times: dict[str, list[float]] = {name: [] for name in commands}
    for argv in commands.values():  # warm-up: the file cache, the .pyc files
        wall(argv)
    for _ in range(args.runs):
        for name, argv in commands.items():
            times[name].append(wall(argv))
    base = statistics.median(times["python -c pass (baseline)"])
    print(f"{'command':<32} {'median ms':>10} {'min ms':>8} {'max ms':>8} {'x baseline':>11}")
    for name, ts in times.items():
        med = statistics.median(ts)
        print(f"{name:<32} {med * 1e3:>10.1f} {min(ts) * 1e3:>8.1f} {max(ts) * 1e3:>8.1f} {med / base:>11.2f}")
    print(f"({args.runs} runs of each command, in turn; wall time of the whole process)")


if __name__ == "__main__":
    main()
