"""Making levels: the designer's spec (:mod:`~llkgen.generation.spec_model` holds its values,
:mod:`~llkgen.generation.spec` reads and checks it, with :mod:`~llkgen.generation.strictyaml`)
and the generator that turns it into certified levels (:mod:`~llkgen.generation.generator`)."""
