"""Names of a package imported on first use (a module ``__getattr__``, PEP 562): a package
whose submodules need pandas can still be imported fast for the names that do not."""
from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Iterable, Mapping
from typing import Any

__all__ = ["lazy_names"]


def lazy_names(package: str, where: Mapping[str, str], submodules: Iterable[str] = ()
               ) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """``(__getattr__, __dir__)`` for ``package``: ``package.name`` imports ``where[name]``
    (a submodule) on first use and keeps the value; a name of ``submodules`` is that module.

    Parameters
    ----------
    package : str
        The package's ``__name__``.
    where : mapping
        Public name -> the submodule (relative, without the dot) that defines it.
    submodules : iterable of str
        Submodules reachable as attributes without an import.

    Returns
    -------
    tuple
        The package's ``__getattr__`` and ``__dir__``.

    Examples
    --------
    >>> import balance.montecarlo as mc
    >>> mc.__getattr__("run").__module__
    'balance.montecarlo.engine'
    """
    namespace = sys.modules[package].__dict__
    modules = frozenset(submodules)

    def __getattr__(name: str) -> Any:
        if name in modules:
            return importlib.import_module(f".{name}", package)
        if name in where:
            value = getattr(importlib.import_module(f".{where[name]}", package), name)
            namespace[name] = value
            return value
        raise AttributeError(f"module {package!r} has no attribute {name!r}")

    def __dir__() -> list[str]:
        return sorted(set(namespace) | set(where) | modules)

    return __getattr__, __dir__
