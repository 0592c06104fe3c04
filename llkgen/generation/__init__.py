"""Making levels: the designer's spec (:mod:`~llkgen.generation.spec`, read by
:mod:`~llkgen.generation.strictyaml`) and the generator that turns it into certified levels
(:mod:`~llkgen.generation.generator`)."""
