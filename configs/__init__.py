"""The example specs. Installed as the package data ``llkgen.specs`` (see pyproject.toml), so
``llkgen make --config easy`` and ``llkgen init`` find them without a source checkout."""
