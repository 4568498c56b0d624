"""Names a package exports but loads on first use, for start-up speed (``import ek`` stays cheap).

>>> get, names = lazy_exports("demo", {}, {"dumps": "json"})
>>> get("dumps").__name__, names()
('dumps', ['dumps'])
"""

from __future__ import annotations

import importlib
import importlib.util
from collections.abc import Callable, Mapping, MutableMapping
from typing import Any


def lazy_exports(package: str, namespace: MutableMapping[str, Any], exports: Mapping[str, str]
                 ) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """A module-level ``__getattr__`` and ``__dir__`` for ``package``: ``exports`` maps each name to the module
    that defines it; a name is imported the first time it is asked for, then kept in ``namespace``.
    ``dir()`` lists the package's ``__all__`` (or the exported names)."""

    def __getattr__(name: str) -> Any:
        module = exports.get(name)
        if module is None:
            # a submodule asked for as an attribute (``ek.codegen.emitter`` after ``import ek.codegen``), as an
            # eager package that imported it would have it: imported now
            if _is_submodule(namespace, package, name):
                return importlib.import_module(f"{package}.{name}")
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(module), name)
        namespace[name] = value
        return value

    def __dir__() -> list[str]:
        return list(namespace.get("__all__", sorted(exports)))

    return __getattr__, __dir__


def _is_submodule(namespace: Mapping[str, Any], package: str, name: str) -> bool:
    """Whether ``name`` names a submodule of ``package`` (a package: it has ``__path__``; a module using
    :func:`lazy_exports` has none). Dunder names are never looked up: tools probe them on every module."""
    if "__path__" not in namespace or not name.isidentifier() or name.startswith("__"):
        return False
    try:
        return importlib.util.find_spec(f"{package}.{name}") is not None
    except (ImportError, ValueError):
        return False
