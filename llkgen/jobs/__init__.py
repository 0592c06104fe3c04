"""The long-running jobs behind the commands: ``make`` (:mod:`~llkgen.jobs.make`), its shards and
resume journal, and ``verify``'s re-certification of level files (:mod:`~llkgen.jobs.check`)."""
