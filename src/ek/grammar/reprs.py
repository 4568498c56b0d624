"""How a message shows a value: ``repr``, bounded, and never raising.

A violation's reason shows the bad value (``must be in [1..9], got 12``), and an
unknown key shows in its path (``$[3]``). The value can be anything a caller
passed: an int past Python's 4300-digit int/str limit (which ``repr`` refuses), a
list holding one, an object whose ``__repr__`` raises. One owner for both sides of
ek that write these messages: :mod:`ek.grammar.fits` (lint, import, and the
runtime's interpreted validators) and the generated validators (through
:mod:`ek.runtime.violation`, which re-exports these names), so both write the
same text for the same value.
"""

from __future__ import annotations


def short_repr(value: object, limit: int = 80) -> str:
    """``repr(value)``, at most ``limit`` characters (bad values can be huge); never raises.

    >>> short_repr("x" * 100)[-3:], short_repr(10 ** 5000)
    ('xxx', '<int of 16610 bits>')
    """
    return safe_repr(value)[:limit]


def safe_repr(value: object) -> str:
    """``repr(value)``, which never raises: an int past Python's 4300-digit int/str limit (which ``repr``
    refuses) shows as ``<int of N bits>``, inside lists, tuples and dicts too; a broken ``__repr__`` as
    ``<T object>``.

    >>> safe_repr({"x": [1, 1 << 20_000]})
    "{'x': [1, <int of 20001 bits>]}"
    """
    try:
        return repr(value)
    except Exception:  # noqa: BLE001 - an int past the 4300-digit str limit, a broken __repr__: anything
        pass
    if isinstance(value, int):
        return f"<int of {value.bit_length()} bits>"
    try:
        if type(value) is list:
            return "[" + ", ".join(map(safe_repr, value)) + "]"
        if type(value) is tuple:
            return "(" + ", ".join(map(safe_repr, value)) + ("," if len(value) == 1 else "") + ")"
        if type(value) is dict:
            return "{" + ", ".join(f"{safe_repr(k)}: {safe_repr(v)}" for k, v in value.items()) + "}"
    except RecursionError:
        pass
    return f"<{type(value).__name__} object>"
