"""What a designer or a game asks about a board beyond "can it be cleared": which moves lose
(:mod:`~llkgen.analysis.advice`), how hard it is (:mod:`~llkgen.analysis.grading`,
:mod:`~llkgen.analysis.metrics`) and why a dead board is dead (:mod:`~llkgen.analysis.explain`)."""
