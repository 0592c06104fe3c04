"""Where a batch of independent calls runs. :mod:`~llkgen.execution.base` states the contract
every back end keeps and holds the two local ones; :mod:`~llkgen.execution.dask_cluster` runs
the same calls on a Dask cluster. Nothing here knows about levels."""

from __future__ import annotations

from llkgen.execution.base import Executor, ProcessExecutor


def make_executor(jobs: int, scheduler: str | None = None) -> Executor:
    """The executor for ``--jobs`` and ``--scheduler``: a process pool of ``jobs`` workers, or,
    with ``scheduler`` (``"local"`` or a scheduler address such as ``tcp://host:8786``), a
    Dask cluster. Raises :class:`~llkgen.execution.base.SchedulerError` when ``distributed``
    is not installed."""
    if scheduler is None:
        return ProcessExecutor(jobs)
    # Imported here, not above: ``distributed`` is an optional extra and costs seconds to import.
    from llkgen.execution.dask_cluster import DaskExecutor

    return DaskExecutor(scheduler, jobs)
