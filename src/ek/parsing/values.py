"""Argument values from already-decoded objects, checked and made JSON-like.

A caller may hand ek a dict built in Python rather than decoded from JSON. Its
values are accepted when they are what JSON or a Python literal could have
said: ``str``, ``int``, finite ``float``, ``bool``, ``None``, lists (tuples
become lists) and dicts with ``str`` keys. Anything else (sets, bytes,
objects, NaN) is a :class:`ParseError` at its JSON path.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from typing import Any

from ek.limits import MAX_INT_DIGITS
from ek.parsing.errors import ParseError
from ek.parsing.limits import Limits

_DIGITS = MAX_INT_DIGITS
_BIG_INT = 10**_DIGITS
_NEG_BIG_INT = -_BIG_INT  # computed once: negating a 4300-digit int per value would cost more than the check


def int_too_long(value: int) -> bool:
    """True for an int with more than :data:`MAX_INT_DIGITS` decimal digits (``str`` would raise on it).

    >>> int_too_long(10 ** 4299), int_too_long(-(10 ** 4300)), int_too_long(0x1 << 20_000)
    (False, True, True)
    """
    return not _NEG_BIG_INT < value < _BIG_INT


def long_int_reason(error: BaseException | None = None) -> str:
    """Why such an integer is refused; ``error``: Python's own ValueError, whose digit count is kept.

    >>> long_int_reason()
    "an integer of more than 4300 digits, past Python's int/str conversion limit"
    >>> try:
    ...     int("9" * 5000)
    ... except ValueError as exc:
    ...     long_int_reason(exc)
    "an integer of 5000 digits, more than Python's int/str conversion limit (4300 digits)"
    """
    found = re.search(r"value has ([0-9]{1,12}) digits", str(error)) if error is not None else None
    if found:
        return (f"an integer of {found.group(1)} digits, more than Python's int/str conversion limit "
                f"({MAX_INT_DIGITS} digits)")
    return f"an integer of more than {MAX_INT_DIGITS} digits, past Python's int/str conversion limit"


class _Budget:
    """Counts size units (one per value, plus string lengths) against ``max_size``."""

    __slots__ = ("left", "limit")

    def __init__(self, limit: int) -> None:
        self.left = limit
        self.limit = limit

    def spend(self, units: int, path: str, fmt: str) -> None:
        self.left -= units
        if self.left < 0:
            raise ParseError(f"output is larger than the limit of {self.limit:,} units (max_size)", path, fmt)


def plain_args(args: object, path: str, limits: Limits, fmt: str) -> dict[str, Any]:
    """Check a decoded argument mapping and return it as a plain ``dict``.

    >>> plain_args({"x": (1, 2.5), "y": {"k": None}}, "$", Limits(), "json")
    {'x': [1, 2.5], 'y': {'k': None}}
    >>> plain_args({"x": {1, 2}}, "$.arguments", Limits(), "json")
    Traceback (most recent call last):
    ...
    ek.parsing.errors.ParseError: json: $.arguments.x: a set is not a JSON-like value (accepted: str, int, float, bool, None, list, dict)
    """
    if not isinstance(args, Mapping):
        raise ParseError(f"arguments must be an object (mapping), got {type(args).__name__}", path, fmt)
    budget = _Budget(limits.max_size)
    return _mapping(args, path, 1, limits.max_depth, budget, fmt)


def already_plain(args: object, limits: Limits) -> bool:
    """Whether ``plain_args(args, ...)`` would return a dict equal to ``args`` and raise nothing.

    A read-only walk of the same rules, for callers that only read the
    arguments (the BFCL checker): exact ``dict``/``list``/``str``/``int``/
    ``float``/``bool``/``None``, string keys, finite floats, ints within
    :data:`MAX_INT_DIGITS`, nesting and size units counted as ``plain_args``
    counts them. It builds no copy and no JSON path (paths are only for
    errors); it stops as soon as the size budget is spent. False means
    "call ``plain_args``", which converts (a tuple, an IntEnum) or raises the
    error at its path.

    >>> already_plain({"x": [1, 2.5], "y": {"k": None}}, Limits())
    True
    >>> already_plain({"x": (1, 2)}, Limits()), already_plain({"x": float("nan")}, Limits())
    (False, False)
    >>> already_plain({"x": [[1]]}, Limits(max_depth=2)), already_plain({"x": "abc"}, Limits(max_size=5))
    (False, True)
    """
    return type(args) is dict and _plain_mapping(args, 1, limits.max_depth, limits.max_size) >= 0


def calls_already_plain(calls: list[tuple[str, Any]], limits: Limits) -> bool:
    """Whether :func:`already_plain` holds for the ``args`` of every ``(name, args)`` in ``calls``.

    One call for a whole output rather than one per call: each mapping's
    top level is walked here, as :func:`_plain_mapping` walks it (the same
    rules, the same units spent; its nested values through
    :func:`_plain_value`), without the two function calls per mapping that
    dominate for the few flat arguments a call usually has.

    >>> calls_already_plain([("f", {"x": 1}), ("g", {"y": ["a", 2.5]})], Limits())
    True
    >>> calls_already_plain([("f", {"x": 1}), ("g", {"y": float("nan")})], Limits())
    False
    """
    limit, size = limits.max_depth, limits.max_size
    for _, args in calls:
        if type(args) is not dict:
            return False
        left = size - len(args)  # the one unit each key spends, at once
        for key, item in args.items():
            if type(key) is not str:
                return False
            kind = type(item)
            if kind is str:
                left -= len(key) + len(item)
            elif kind is bool or item is None or (kind is int and _NEG_BIG_INT < item < _BIG_INT):
                left -= len(key)
            elif kind is float:
                if not -_INF < item < _INF:
                    return False
                left -= len(key) + 1
            else:
                left = _plain_value(item, 1, limit, left - len(key))
                if left < 0:  # -1: not plain (or the units spent): stop before the next value
                    return False
        if left < 0:  # units only go down: spent past the limit here is spent past it after any value
            return False
    return True


_INF = float("inf")


def _plain_mapping(value: dict[Any, Any], depth: int, limit: int, left: int) -> int:
    """Size units ``left`` after ``value`` (as :func:`_mapping` spends them), or -1 if it is not plain."""
    for key, item in value.items():
        if type(key) is not str:
            return -1
        left -= 1 + len(key)
        kind = type(item)
        if kind is str:
            left -= len(item)
        elif kind is bool or item is None or (kind is int and _NEG_BIG_INT < item < _BIG_INT):
            pass
        elif kind is float:  # inline too (as _plain_value spends it): a number is the next most common value
            if not -_INF < item < _INF:
                return -1
            left -= 1
        else:
            left = _plain_value(item, depth, limit, left)
        if left < 0:
            return -1
    return left


def _plain_value(value: Any, depth: int, limit: int, left: int) -> int:
    """Size units ``left`` after ``value`` (as :func:`_value` spends them), or -1 if it is not plain."""
    kind = type(value)
    if kind is str:
        return left - 1 - len(value)
    if kind is float:
        return left - 1 if -_INF < value < _INF else -1  # NaN compares false: not plain, like the infinities
    if kind is int:
        return left - 1 if _NEG_BIG_INT < value < _BIG_INT else -1
    if kind is bool or value is None:
        return left - 1
    if kind is not list and kind is not dict or depth >= limit:
        return -1
    left -= 1
    if kind is dict:
        return _plain_mapping(value, depth + 1, limit, left)
    for item in value:
        kind = type(item)
        if kind is str:  # scalars inline, each spending what _plain_value spends on it: lists are mostly of them
            left -= 1 + len(item)
        elif kind is bool or item is None or (kind is int and _NEG_BIG_INT < item < _BIG_INT) \
                or (kind is float and -_INF < item < _INF):
            left -= 1
        else:
            left = _plain_value(item, depth + 1, limit, left)
        if left < 0:
            return -1
    return left


def _mapping(value: Mapping[Any, Any], path: str, depth: int, limit: int, budget: _Budget, fmt: str) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, item in value.items():
        if type(key) is not str:
            if not isinstance(key, str):
                raise ParseError(f"object keys must be strings, got {type(key).__name__} {key!r:.60}", path, fmt)
            key = str(key)
        budget.left -= 1 + len(key)
        kind = type(item)
        if kind is str:  # the common case, kept inline
            budget.left -= len(item)
            out[key] = item
        elif kind is bool or item is None or (kind is int and _NEG_BIG_INT < item < _BIG_INT):
            out[key] = item
        else:
            out[key] = _value(item, _sub(path, key), depth, limit, budget, fmt)
        if budget.left < 0:
            budget.spend(0, _sub(path, key), fmt)
    return out


def _sub(path: str, key: str) -> str:
    return f"{path}.{key}" if key.isidentifier() else f"{path}[{key!r}]"


def _value(value: Any, path: str, depth: int, limit: int, budget: _Budget, fmt: str) -> Any:
    kind = type(value)
    if kind is str:
        budget.spend(1 + len(value), path, fmt)
        return value
    if kind is int and not _NEG_BIG_INT < value < _BIG_INT:
        raise ParseError(long_int_reason(), path, fmt)
    if value is None or kind is bool or kind is int:
        budget.spend(1, path, fmt)
        return value
    if kind is float:
        if not math.isfinite(value):
            raise ParseError(f"{value!r} is not accepted: NaN and infinities are not JSON numbers", path, fmt)
        budget.spend(1, path, fmt)
        return value
    if kind is list or kind is tuple or kind is dict or isinstance(value, (list, tuple, Mapping)):
        if depth >= limit:
            raise ParseError(f"nesting deeper than {limit} levels (limit max_depth={limit})", path, fmt)
        budget.spend(1, path, fmt)
        if isinstance(value, Mapping):
            return _mapping(value, path, depth + 1, limit, budget, fmt)
        return [_value(item, f"{path}[{i}]", depth + 1, limit, budget, fmt) for i, item in enumerate(value)]
    if isinstance(value, (str, int, float)):  # subclasses (an IntEnum, a str subclass): their plain value
        base = str if isinstance(value, str) else bool if isinstance(value, bool) else int \
            if isinstance(value, int) else float
        return _value(base(value), path, depth, limit, budget, fmt)
    raise ParseError(
        f"a {type(value).__name__} is not a JSON-like value (accepted: str, int, float, bool, None, list, dict)",
        path,
        fmt,
    )
