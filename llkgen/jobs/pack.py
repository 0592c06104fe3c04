"""A pack made in memory: its levels generated on an executor, each shaped as the pack file
holds it. :func:`llkgen.generate` returns :func:`build_pack` of :func:`generate_pack`;
``llkgen make`` (:mod:`llkgen.jobs.make`) sends :func:`~llkgen.generation.generator.generate_level`
to the same executors, one record at a time, and writes each :func:`level_of` as it comes.

The levels are the generator's (:mod:`llkgen.generation.generator`), which knows nothing of
executors or packs; here they are run in parallel and given their place in a pack: an id, the
pack's seed and the keys a level file carries.
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import closing
from functools import partial

import llkgen.generation.generator as generate
from llkgen._version import __version__
from llkgen.execution.base import Executor, ProcessExecutor
from llkgen.formats.level import Level, Pack
from llkgen.generation.generator import GeneratedLevel
from llkgen.generation.spec import Spec
from llkgen.jobs.spool import pack_level_id


def level_id(spec: Spec, index: int) -> str:
    """``<name>-<index + 1>`` (:func:`~llkgen.jobs.spool.pack_level_id`, which records read back are held to)."""
    return pack_level_id(spec.name, index)


def level_of(spec: Spec, lv: GeneratedLevel) -> Level:
    """The generated level ``lv`` as the pack of ``spec`` holds it: its id, ``seed``,
    ``metrics``, ``certificate``, the ladder's ``players`` when it was measured, and its
    ``solution`` unless ``export.solutions`` is false."""
    extra: dict = {"seed": lv.seed, "metrics": dict(lv.metrics), "certificate": lv.certificate}
    if lv.players is not None:
        extra["players"] = lv.players
    if spec.export.solutions:
        extra["solution"] = lv.solution
    return Level(lv.board, lv.rules, level_id(spec, lv.index), extra)


def build_pack(spec: Spec, levels: list[GeneratedLevel]) -> Pack:
    """The pack object for generated ``levels`` (in index order)."""
    return Pack(spec.name, [level_of(spec, lv) for lv in levels],
                {"generator": f"llkgen {__version__}", "seed": spec.seed})


def generate_pack(spec: Spec, jobs: int = 1,
                  on_level: Callable[[GeneratedLevel], None] | None = None,
                  executor: Executor | None = None) -> list[GeneratedLevel]:
    """All ``spec.count`` levels, in order, made on ``executor`` (default: a process pool of
    ``jobs`` workers, see :mod:`llkgen.execution.base`). Each level depends only on
    ``(spec, index)``, so the result is the same on every executor. ``on_level`` is called
    with each level in index order as it is made, e.g. to advance a progress bar. A
    :class:`~llkgen.errors.GenerationError` stops the run and is raised: the first failing
    level's, as with ``jobs=1``; the workers are then ended at once."""
    if executor is None:
        if type(jobs) is not int or jobs < 1:
            raise ValueError(f"jobs: expected an integer >= 1, found {jobs!r}")
        executor = ProcessExecutor(min(jobs, spec.count))
    levels: list[GeneratedLevel] = []
    # closing(): if on_level raises, the generator is closed at once and its workers with it.
    # generate.generate_level, looked up as it runs, as make_record does: a test that patches
    # the generator's function patches both.
    with closing(executor.imap_ordered(partial(generate.generate_level, spec), range(spec.count))) as made:
        for lv in made:
            levels.append(lv)
            if on_level is not None:
                on_level(lv)
    return levels
