"""Time limits for tests that bound a run, scaled by how busy this machine is *now*.

A ``--budget`` is a promise about the command's own run: past its deadline it stops within a
short overrun of work (a check of the clock, a result written). That overrun is CPU work, and
on a shared machine CPU work takes as much wall time as the scheduler gives it: at load 30 on
2 cores a process gets about a fifteenth of a core, and 0.3 s of CPU is 4.5 s of wall time.
So a fixed margin either flakes under load or is too loose to catch anything idle.

This module scales margins the way CPython's ``test.support`` scales ``SHORT_TIMEOUT``, but by
a measurement rather than a setting: :func:`slowdown` runs a short busy loop and divides the
wall time it took by the CPU time it got. Idle that is 1; it is the factor by which anything
CPU-bound is stretched at this moment. :class:`Timed` measures it before and after the timed
call and keeps the larger, so a burst of load during the call is not missed by a probe taken
in a quiet moment.

Only a few tests may assert on wall-clock time, and only through this module: the in-process
budget tests (budget + :data:`MARGIN` x slowdown, measured from the call's start, never the
interpreter's) and one real-process check per command (:func:`startup` adds the measured start-up
of a bare ``llkgen`` import).

A deadline a test wants to run out at a known point, not at a time, is better faked:
:class:`FakeClock` replaces the ``time`` a module reads.
"""

from __future__ import annotations

import subprocess
import sys
import time
import types
from dataclasses import dataclass, field

#: CPU seconds the probe spins for: long enough that the scheduler's time slices (a few ms)
#: average out, short enough to take before and after every timed call (0.03 s idle).
PROBE_CPU_SECONDS = 0.03

#: The overrun, in CPU-bound seconds at slowdown 1, that a budgeted call may take past its
#: deadline before a test calls it a failure. The documented bar is 0.5 s; the rest is the
#: flake guard for what a probe cannot see (a page-in, a garbage collection).
MARGIN = 1.5


def slowdown() -> float:
    """How many times longer than its CPU time a CPU-bound stretch of this process takes now:
    wall time over CPU time of a short busy loop, at least 1."""
    wall, cpu = time.perf_counter(), time.process_time()
    n = 0
    while time.process_time() - cpu < PROBE_CPU_SECONDS:
        n += sum(range(2000))
    spent = time.process_time() - cpu
    return max(1.0, (time.perf_counter() - wall) / spent)


@dataclass
class Timed:
    """``with Timed() as t: call()``, then ``assert t.seconds < t.limit(budget), t``: the wall
    time of the call, measured in this process, and the machine's slowdown around it."""

    seconds: float = 0.0
    load: float = 1.0
    started: float = field(default=0.0, repr=False)

    def __enter__(self) -> Timed:
        self.load = slowdown()
        self.started = time.perf_counter()
        return self

    def __exit__(self, *exc: object) -> None:
        self.seconds = time.perf_counter() - self.started
        self.load = max(self.load, slowdown())

    def limit(self, budget: float, margin: float = MARGIN) -> float:
        """The most a call given ``budget`` seconds may take here: the budget is kept by a
        wall clock, so it does not scale; the overrun past it is CPU work, so it does."""
        return budget + margin * self.load


def startup() -> float:
    """Wall seconds a fresh interpreter takes to import the CLI, measured now: what a
    subprocess's wall time includes before its command's clock starts."""
    started = time.perf_counter()
    subprocess.run([sys.executable, "-c", "import llkgen.cli"], check=True, timeout=600)
    return time.perf_counter() - started


@dataclass
class TimedProcess(Timed):
    """:class:`Timed` for a call that starts an ``llkgen`` process: the start-up, measured
    before and after the call (the larger), is allowed on top of the scaled limit, and counts
    twice (the process imports more than the CLI, and exits)."""

    start_up: float = 0.0

    def __enter__(self) -> TimedProcess:
        self.start_up = startup()
        super().__enter__()
        return self

    def __exit__(self, *exc: object) -> None:
        super().__exit__(*exc)
        self.start_up = max(self.start_up, startup())

    def limit(self, budget: float, margin: float = MARGIN) -> float:
        return super().limit(budget, margin) + 2 * self.start_up


class FakeClock:
    """A ``perf_counter`` that moves only when read: each read adds ``step`` seconds. Install
    it with :meth:`install` as the ``time`` of the modules that compute and check a deadline,
    and a budget of ``B`` seconds runs out after about ``B / step`` reads, whatever the load."""

    def __init__(self, step: float) -> None:
        self.now, self.step = 0.0, step

    def perf_counter(self) -> float:
        self.now += self.step
        return self.now

    def install(self, monkeypatch, *modules: types.ModuleType) -> None:
        """Give each of ``modules`` a ``time`` whose ``perf_counter`` is this clock (the rest
        of the real ``time`` module is kept)."""
        fake = types.SimpleNamespace(**{k: getattr(time, k) for k in dir(time) if not k.startswith("_")})
        fake.perf_counter = self.perf_counter
        for module in modules:
            monkeypatch.setattr(module, "time", fake)


#: How long a test waits for a process or a page before calling it hung: a guard against a
#: hang, never a bound on speed (a command that takes 2 s idle takes 30 s at load 30, and must
#: not fail for it).
HANG_SECONDS = 600
