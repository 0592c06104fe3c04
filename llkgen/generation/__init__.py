"""Making levels: the designer's spec (:mod:`~llkgen.generation.spec_model` holds its values,
:mod:`~llkgen.generation.spec` reads and checks it, with :mod:`~llkgen.generation.strictyaml`)
and the generator that turns it into certified levels (:mod:`~llkgen.generation.generator`), one
level at a time. Nothing here knows about executors: running the levels in parallel, and
shaping each as a pack holds it, is :mod:`llkgen.jobs.pack`'s."""
