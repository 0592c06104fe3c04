"""The long-running jobs behind the commands: a pack made in memory on an executor
(:mod:`~llkgen.jobs.pack`, what :func:`llkgen.generate` returns), ``make``
(:mod:`~llkgen.jobs.make`), its shards and resume journal, ``verify``'s re-certification of
level files (:mod:`~llkgen.jobs.check`), ``grade`` (:mod:`~llkgen.jobs.grade`) and
``calibrate``, which fits a pack to play data (:mod:`~llkgen.jobs.calibrate`)."""
