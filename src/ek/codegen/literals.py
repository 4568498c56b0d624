"""Python source literals for schema data: the only way schema content enters generated code.

Everything goes through ``repr`` of plain values, so a docstring holding
``\"\"\"; import os`` stays a string. Output is deterministic (dict order kept,
floats as shortest round-trip ``repr``; non-finite floats as ``float('inf')``).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from ek.grammar.strings import lone_surrogate


class LiteralError(TypeError):
    """A value that cannot be written as a plain Python literal."""



def py_literal(value: Any, mark: Callable[[str], str] | None = None) -> str:
    """Source text that evaluates to an equal value of the same type.

    ``mark``: writes each ``str`` inside ``value`` instead (after checking it can be written): how a
    validator's module is planned as a shape whose strings are filled in later
    (:func:`ek.codegen.emitter.plan_tool_validator`); the rest is written as without it.

    >>> print(py_literal({"a": (1, 2.5, None), "b": ['x"y', True]}))
    {'a': (1, 2.5, None), 'b': ['x"y', True]}
    >>> py_literal((1,)), py_literal(float("-inf")), py_literal(frozenset({"b", "a"}))
    ('(1,)', "float('-inf')", "frozenset({'a', 'b'})")
    >>> py_literal(("a", 1), mark=lambda s: s.upper())
    '(A, 1)'
    """
    if type(value) is str:  # first: most literals are names and messages
        if not value.isascii() and lone_surrogate(value) is not None:  # not text: no UTF-8 file can hold it
            raise LiteralError(f"{value[:40]!r} holds a lone UTF-16 surrogate, which is not text")
        return repr(value) if mark is None else mark(value)
    if value is None or value is True or value is False or type(value) is int:
        return repr(value)
    if type(value) is float:
        if math.isfinite(value):
            return repr(value)
        return f"float({repr(value)!r})"
    if mark is None and type(value) in _CONTAINERS and _plain(value):
        return repr(value)  # the same text, in C: what follows, for containers of plain values only
    if type(value) is tuple:
        inner = ", ".join(py_literal(v, mark) for v in value)
        return f"({inner},)" if len(value) == 1 else f"({inner})"
    if type(value) is list:
        return "[" + ", ".join(py_literal(v, mark) for v in value) + "]"
    if type(value) is dict:
        return "{" + ", ".join(f"{py_literal(k, mark)}: {py_literal(v, mark)}" for k, v in value.items()) + "}"
    if type(value) is frozenset:
        if not value:
            return "frozenset()"
        return "frozenset({" + ", ".join(py_literal(v, mark) for v in sorted(value, key=repr)) + "})"
    raise LiteralError(f"cannot write {type(value).__name__} value {value!r} as a literal")


_CONTAINERS = (tuple, list, dict)
_SCALAR_TYPES = frozenset({str, int, bool, type(None)})


def _plain(value: Any) -> bool:
    """True if ``repr(value)`` is :func:`py_literal`'s text: tuples, lists and dicts (nested) of ASCII
    strings, ints, finite floats, bools and None. (``repr`` of a set, of a subclass, of a non-finite float
    or of a string with a lone surrogate is not, so those go the long way, which writes or refuses them.)"""
    stack = [value]
    pop, push = stack.pop, stack.extend
    containers, scalars, isfinite = _CONTAINERS, _SCALAR_TYPES, math.isfinite
    while stack:
        item = pop()
        kind = type(item)
        if kind in scalars:
            if kind is str and not item.isascii():
                return False
        elif kind is float:
            if not isfinite(item):
                return False
        elif kind in containers:
            if kind is dict:
                push(item.keys())
                push(item.values())
            else:
                push(item)
        else:
            return False
    return True


def py_literal_block(value: Any, levels: int = 1, indent: str = "") -> str:
    """Like :func:`py_literal`, but the outer ``levels`` of dicts/tuples/lists put one item per line.

    Generated tables stay readable and diff one tool per line.

    >>> print(py_literal_block({"a": (1, 2), "b": {}}, levels=2))
    {
        'a': (
            1,
            2,
        ),
        'b': {},
    }
    """
    if levels <= 0 or not isinstance(value, (dict, tuple, list)) or not value:
        return py_literal(value)
    inner = indent + "    "
    if isinstance(value, dict):
        items = [f"{inner}{py_literal(k)}: {py_literal_block(v, levels - 1, inner)}," for k, v in value.items()]
        open_, close = "{", "}"
    else:
        items = [f"{inner}{py_literal_block(v, levels - 1, inner)}," for v in value]
        open_, close = ("(", ")") if isinstance(value, tuple) else ("[", "]")
    return open_ + "\n" + "\n".join(items) + "\n" + indent + close
