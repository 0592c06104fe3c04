"""The long-running jobs behind the commands: ``make`` (:mod:`~llkgen.jobs.make`), its shards and
resume journal, ``verify``'s re-certification of level files (:mod:`~llkgen.jobs.check`),
``grade`` (:mod:`~llkgen.jobs.grade`) and ``calibrate``, which fits a pack to play data
(:mod:`~llkgen.jobs.calibrate`)."""
