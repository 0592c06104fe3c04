"""What a designer or a game asks about a board beyond "can it be cleared": which moves lose
(:mod:`~llkgen.analysis.advice`), how hard it is (:mod:`~llkgen.analysis.difficulty` with the model
players of :mod:`~llkgen.analysis.players`, :mod:`~llkgen.analysis.metrics`, and re-measured by
:mod:`~llkgen.analysis.audit`), how a studio's own players fare on it
(:mod:`~llkgen.analysis.calibration`, fitted to their play data) and why a dead board is dead
(:mod:`~llkgen.analysis.explain`)."""
