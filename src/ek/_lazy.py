"""Names a package exports but loads on first use, for start-up speed (``import ek`` stays cheap).

>>> get, names = lazy_exports("demo", {}, {"dumps": "json"})
>>> get("dumps").__name__, names()
('dumps', ['dumps'])
"""

from __future__ import annotations

import importlib
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
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(module), name)
        namespace[name] = value
        return value

    def __dir__() -> list[str]:
        return list(namespace.get("__all__", sorted(exports)))

    return __getattr__, __dir__
