"""Why ``llkgen.verify(...)`` and ``llkgen.generate(...)`` can be called although
``llkgen.verify`` is a subpackage and ``llkgen.generate`` a module.

The clash: when Python imports a submodule it binds it on its parent package,
``setattr(llkgen, "verify", <module llkgen.verify>)``, after the package's own code has run.
So a top-level *function* named ``verify`` would be replaced by the module as soon as anything
imported ``llkgen.verify`` -- and, the other way round, keeping the function would change what
``import llkgen.verify as m``, ``import llkgen.verify.pairing as p``, ``from llkgen import
generate`` or ``monkeypatch.setattr("llkgen.verify.X", ...)`` give, since all of those read the
attribute of the parent first.

The way out taken here: the attribute stays the module, as the import system wants, and the
module itself is callable. :func:`make_callable` sets the module's class to
:class:`CallableModule` (assigning ``__class__`` of a module to a ``ModuleType`` subclass is
supported since Python 3.5, for exactly this kind of customisation). Calling the module calls
the function of the same name in :mod:`llkgen.api`, which checks its arguments and then calls
the library. So ``llkgen.verify(board)`` works whatever was imported before or after it, and
every way of reaching the module keeps working unchanged.

What it costs, and how each cost is met:

* ``llkgen.verify`` is a module, not a function: ``inspect.signature`` would see ``*args,
  **kwargs``, so :attr:`CallableModule.__signature__` gives the function's signature.
* A module cannot be pickled, so ``pool.map(llkgen.verify, boards)`` would fail;
  :meth:`CallableModule.__reduce__` pickles it as "import this module by name".
* Type checkers cannot call a module: ``llkgen/__init__.py`` declares the two names as the
  :mod:`llkgen.api` functions for them, so ``llkgen.verify(board)`` type-checks; reaching the
  module's contents through that name (``llkgen.verify.Budget``) works at run time but a type
  checker rejects it -- write ``from llkgen.verify import Budget``, as the library does.
"""

from __future__ import annotations

import importlib
import sys
from types import ModuleType
from typing import Any, Callable


class CallableModule(ModuleType):
    """A module that, when called, calls :mod:`llkgen.api`'s function named like the last part
    of the module's name (``llkgen.verify`` -> :func:`llkgen.api.verify`)."""

    def _api_function(self) -> Callable[..., Any]:
        from llkgen import api

        return getattr(api, self.__name__.rpartition(".")[2])

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self._api_function()(*args, **kwargs)

    @property
    def __signature__(self) -> Any:
        import inspect

        return inspect.signature(self._api_function())

    def __reduce__(self) -> tuple[Callable[[str], ModuleType], tuple[str]]:
        return importlib.import_module, (self.__name__,)


def make_callable(module_name: str) -> None:
    """Make the module ``module_name`` (already in ``sys.modules``) a :class:`CallableModule`.
    Called once, at the end of each such module's own code."""
    sys.modules[module_name].__class__ = CallableModule
