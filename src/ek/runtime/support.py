"""Helpers that generated modules call on their slow (error) paths, for date checks, and to build their
classes on first use (:func:`lazy_module`, for generator 4; generator 5 on: :mod:`ek.runtime.classes`).

Kept tiny and stable: a generated module written by an older ``ek gen`` must
keep working, which is what ``GENERATOR_VERSION`` promises.
"""

from __future__ import annotations

import datetime as _dt
import json
import threading
from collections.abc import Callable, Mapping
from typing import Any

from ek._lazy import lazy_exports
from ek.grammar.names import key_segment as key_segment  # re-exported: the path segment of an object key
from ek.grammar.names import unknown_keys as extra_keys
from ek.runtime.violation import Violation, short_repr

# The runtime's date checks (``is_date``, ``is_datetime``; ek.grammar.fits owns them) load on first use: no
# generated module of today calls them (their checks are inlined), and importing fits means importing the
# regex engine, which a module's import must not pay for.
__getattr__, _ = lazy_exports(__name__, {}, {"is_date": "ek.grammar.fits", "is_datetime": "ek.grammar.fits"})

#: The parsers behind the ``date`` and ``datetime`` checks (bound once; generated code imports them).
date_fromisoformat = _dt.date.fromisoformat
datetime_fromisoformat = _dt.datetime.fromisoformat

#: ``str.isascii`` unbound: a generated validator's type check and first step for a pattern of ASCII letters
#: or digits (``TypeError`` for anything but a ``str``; called on a ``str`` subclass, it is ``str``'s own test).
str_isascii = str.isascii

def enum_miss(value: object, members: frozenset[str | int]) -> bool:
    """Whether ``value`` is no member of an enum of ``members``, as :mod:`ek.grammar.fits` decides it (a ``str`` or
    an ``int``, never a ``bool``, equal to a member): the rare path of a generated check, for a value that is not
    exactly a ``str`` or an ``int`` (a subclass that defines ``__eq__`` cannot be hashed, so no set lookup can
    answer for it) or that the set lookup did not find.

    >>> class Word(str):
    ...     def __eq__(self, other): return str.__eq__(self, other)
    >>> enum_miss(Word("celsius"), frozenset({"celsius"})), enum_miss(True, frozenset({1})), enum_miss([1], frozenset())
    (False, True, True)
    """
    if isinstance(value, bool) or not isinstance(value, (str, int)):
        return True
    return not any(member == value for member in members)


#: A table a module (generator 5 on) holds as JSON text: cost weights, importances, compare policies.
json_table = json.loads

#: The characters at offsets 4, 7, 10 and 13 of an extended ISO datetime (``value[4:14:3]``);
#: read by modules of generator version 1.
DATETIME_SEPARATORS = frozenset({"--T:", "--t:", "-- :"})


def unknown_keys(
    errors: list[Violation], mapping: Mapping[Any, Any], known: frozenset[str], path: str | tuple[object, ...]
) -> None:
    """Report every key of ``mapping`` that the schema does not declare (in :func:`ek.grammar.names.unknown_keys`
    order, which :mod:`ek.grammar.fits` reports them in too).

    ``path`` is text, or pieces (literals and list indexes) as generated code passes them.
    """
    prefix = path if isinstance(path, str) else "".join(map(str, path))
    for key in extra_keys(mapping, known):
        errors.append(Violation(prefix + key_segment(key), "unknown argument"))


def not_an_object(path: str, value: object) -> list[Violation]:
    """The single violation for arguments that are not a mapping at all."""
    return [Violation(path, "expected an object, got " + type(value).__name__)]


def short(value: object, limit: int = 60) -> str:
    """``repr(value)`` cut to ``limit`` characters, for messages about bad values.

    >>> short("x" * 100, 10)
    "'xxxxxx..."
    """
    text = short_repr(value, limit + 1)
    return text if len(text) <= limit else text[: limit - 3] + "..."


_ClassBuilders = Mapping[str, "tuple[Callable[[], type], tuple[str, ...]]"]


def grammar_from_table(table: Any, source_path: str | None = None) -> Any:
    """:func:`ek.runtime.tables.grammar_from_table`, imported when a module's ``GRAMMAR`` is first asked for
    (it needs the grammar model), not when the module is imported. ``table``: the table, or (generator 5
    on) the same as JSON text, decoded here."""
    from ek.runtime.tables import grammar_from_table as from_table

    return from_table(json.loads(table) if isinstance(table, str) else table, source_path=source_path)


def lazy_attributes(namespace: dict[str, Any], load: Callable[[str], type], class_names: Callable[[], Any],
                    tool_classes: Callable[[], Mapping[str, str]], values: Mapping[str, Callable[[], Any]],
                    lock: threading.RLock) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """The module-level ``__getattr__`` and ``__dir__`` that build a generated module's classes on first use,
    whatever the classes are built from (:func:`lazy_module`, generator 4; :func:`ek.runtime.classes.lazy_classes`,
    generator 5 on).

    ``load(name)`` builds a class (and the classes it needs) into ``namespace``, under ``lock``;
    ``class_names()`` are the classes there are; ``TOOLS`` maps each real tool name to its class, in
    ``tool_classes()`` order (tool name -> class name); each of ``values`` (``GRAMMAR``) is made once.
    Whatever is built is kept in ``namespace``, so it is the same object every time; ``dir()`` lists it all.
    """
    module_name = namespace.get("__name__")

    def __getattr__(name: str) -> Any:
        with lock:
            if name in namespace:
                return namespace[name]
            if name == "TOOLS":
                value: Any = {tool: load(cls) for tool, cls in tool_classes().items()}
            elif name in values:
                value = values[name]()
            elif not name.startswith("__") and name in class_names():
                return load(name)
            else:
                raise AttributeError(f"module {module_name!r} has no attribute {name!r}")
            namespace[name] = value
            return value

    def __dir__() -> list[str]:
        with lock:
            return sorted({*namespace, *class_names(), "TOOLS", *values})

    return __getattr__, __dir__


def lazy_module(namespace: dict[str, Any], classes: _ClassBuilders, tool_classes: Mapping[str, str],
                **values: Callable[[], Any]) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """The module-level ``__getattr__`` and ``__dir__`` of a generated module of generator 4.

    Building a thousand attrs classes is most of what importing a large module used to cost, and the
    scorer only needs validators. So each class is built the first time it is asked for
    (``module.Name``, ``from module import Name``, pickle), together with the classes its methods build
    (``classes``: name -> (builder, those names)); ``TOOLS`` (real tool name -> class, in
    ``tool_classes`` order) builds every tool's class; each of ``values`` (``GRAMMAR``) is made once
    (:func:`lazy_attributes`). Thread-safe.
    """

    def load(name: str) -> type:
        cls = namespace.get(name)
        if cls is None:
            build, needs = classes[name]
            cls = build()
            cls.__qualname__ = name  # built inside a function; pickle finds it by this name
            namespace[name] = cls
            for other in needs:  # its _build calls them by their global names
                load(other)
        return cls  # type: ignore[no-any-return]

    return lazy_attributes(namespace, load, lambda: classes, lambda: tool_classes, values, threading.RLock())
