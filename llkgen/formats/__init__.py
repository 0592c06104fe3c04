"""llkgen's files: one level's codec (:mod:`~llkgen.formats.level`), the flat shape, packs, the two
pack-directory layouts, and :mod:`~llkgen.formats.load`, the one place that picks a reader by a
file's ``format``."""
