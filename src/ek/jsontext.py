"""The text ``json.dumps`` writes in the two layouts ek uses, written faster.

:func:`dumps_indented` is ``json.dumps(value, indent=2, ensure_ascii=False,
default=repr)``: every JSON file ek writes for people (``--json`` reports,
``ek compare --json``). With ``indent``, :mod:`json` takes its pure-Python
encoder, a chain of generators yielding each bracket, key and value: 12 ms for
the JSON report of a 1,000-line BFCL run (740 tools). This writes the same
characters, handing every run of scalar values to the C encoder in one call.

Why the text is the same: the indented encoder writes an item of a container at
depth ``d`` as ``"\\n" + "  " * (d + 1)`` then the item, items separated by
``","``, the closing bracket after ``"\\n" + "  " * d``; keys and scalars as the
plain encoder writes them (strings by the same ``encode_basestring``, numbers by
``int.__repr__`` and ``float.__repr__``, ``NaN``/``Infinity``, anything else by
``default``). A plain (``indent=None``) encoder whose item separator is
``",\\n" + "  " * (d + 1)`` writes a container that holds no container exactly
so, bar the newline after its opening bracket and before its closing one, which
are added around it. A container holding containers is walked here, its runs of
scalar items written by that encoder; anything unusual (a key that is not a
``str``, a ``dict`` or ``list`` subclass, a tuple) is written by ``json.dumps``
itself, its newlines indented to its depth: every newline of indented JSON is
between items (a newline inside a string is written ``\\n``), so that is exact.

:func:`dumps_compact` is ``json.dumps(value, ensure_ascii=False)`` of acyclic
data: how an alignment shows a value (:func:`ek.scorer.alignment.show`), 1,700
times for the HTML report's 200 alignments, where ``json.dumps`` built an
encoder (and, for a number or a container, a C encoder) at every call.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from typing import Any

#: One indentation step (``indent=2``).
_STEP = "  "

#: The containers the encoder walks into (``isinstance``, as :mod:`json` tests); anything else is a scalar.
_CONTAINERS = (dict, list, tuple)

#: The types of scalars JSON writes as they are: a container holding only these is written in one call.
_SCALARS = frozenset({str, int, float, bool, type(None)})

#: Functions writing a container without containers as the indented encoder writes it at each depth.
_RUN_ENCODERS: list[Callable[[Any], str]] = []


def _plain_encoder(item_separator: str, default: Callable[[Any], Any]) -> Callable[[Any], str]:
    """``JSONEncoder(ensure_ascii=False, separators=(item_separator, ": "), default=default).encode`` for acyclic
    values, made once: :mod:`json`'s C encoder itself when there is one (``c_make_encoder``, what ``encode``
    builds anew at every call, with a dict of the containers it is in to find a cycle: a third of the time)."""
    make = json.encoder.c_make_encoder
    if make is None:
        return json.JSONEncoder(ensure_ascii=False, default=default, separators=(item_separator, ": ")).encode
    encode = make(None, default, json.encoder.encode_basestring, None, ": ", item_separator, False, False, True)
    return lambda value: "".join(encode(value, 0))


def _run_encoder(depth: int) -> Callable[[Any], str]:
    """The plain encoder whose item separator starts the next item of a container at ``depth``; made once a
    depth. Its values hold no container (``default`` is ``repr``: a string), so no cycle."""
    while len(_RUN_ENCODERS) <= depth:
        _RUN_ENCODERS.append(_plain_encoder(",\n" + _STEP * (len(_RUN_ENCODERS) + 1), repr))
    return _RUN_ENCODERS[depth]


#: ``json.dumps(value, ensure_ascii=False)``'s encoder, made once (a value JSON cannot hold: its TypeError).
_COMPACT = _plain_encoder(", ", json.JSONEncoder().default)

#: The text of the scalars whose JSON text is a constant.
_CONSTANT_TEXT = {None: "null", True: "true", False: "false"}

#: The largest finite float: the encoder writes a float inside these bounds by ``float.__repr__``.
_FINITE_MAX = sys.float_info.max
_FINITE_MIN = -sys.float_info.max


def dumps_compact(value: Any) -> str:
    """Exactly ``json.dumps(value, ensure_ascii=False)``, for a value without cycles (JSON has none).

    A scalar is written directly: a ``str`` by the ``encode_basestring`` the encoder calls, an ``int`` and
    a finite ``float`` by the ``int.__repr__`` and ``float.__repr__`` it calls, ``None`` and the bools as
    their constants; anything else (containers, NaN, infinities, subclasses) by the C encoder, made once.

    >>> dumps_compact({"q": ["é", 1.5, None]}), dumps_compact(True)
    ('{"q": ["é", 1.5, null]}', 'true')
    """
    kind = type(value)
    if kind is str:
        return json.encoder.encode_basestring(value)
    if kind is int:
        return int.__repr__(value)
    if kind is float and _FINITE_MIN <= value <= _FINITE_MAX:
        return float.__repr__(value)
    if value is None or kind is bool:
        return _CONSTANT_TEXT[value]
    return _COMPACT(value)


def dumps_indented(value: Any) -> str:
    """Exactly ``json.dumps(value, indent=2, ensure_ascii=False, default=repr)``.

    >>> dumps_indented({"a": [1, {"b": None}], "c": "x\\ny", "d": {}}) == json.dumps(
    ...     {"a": [1, {"b": None}], "c": "x\\ny", "d": {}}, indent=2, ensure_ascii=False, default=repr)
    True
    """
    out: list[str] = []
    _write(value, 0, out)
    return "".join(out)


def _slow(value: Any, depth: int, out: list[str]) -> None:
    """``value`` written by :mod:`json`'s own indented encoder, its lines indented to ``depth``."""
    text = json.dumps(value, indent=2, ensure_ascii=False, default=repr)
    out.append(text.replace("\n", "\n" + _STEP * depth) if depth else text)


def _write(value: Any, depth: int, out: list[str]) -> None:
    kind = type(value)
    if kind is dict:
        _write_dict(value, depth, out)
    elif kind is list:
        _write_list(value, depth, out)
    else:  # a scalar, a tuple or a subclass: rare in what ek writes
        _slow(value, depth, out)


def _flat(text: str, depth: int) -> str:
    """A container without containers, written by :func:`_run_encoder` at ``depth``, as indented JSON."""
    return text[0] + "\n" + _STEP * (depth + 1) + text[1:-1] + "\n" + _STEP * depth + text[-1]


def _write_dict(value: dict[Any, Any], depth: int, out: list[str]) -> None:
    """A dict: each run of scalar items in one call of the C encoder, each container walked."""
    if not value:
        out.append("{}")
        return
    encode = _run_encoder(depth)
    if _SCALARS.issuperset(map(type, value.values())):  # no container (the common case): one call
        out.append(_flat(encode(value), depth))
        return
    inner = "\n" + _STEP * (depth + 1)
    mark = len(out)
    run: dict[Any, Any] = {}
    first = True
    for key, item in value.items():
        if type(item) in _SCALARS or not isinstance(item, _CONTAINERS):
            run[key] = item
            continue
        if type(key) is not str:  # a number, bool or None key before a container: json's own rules, not restated
            del out[mark:]
            _slow(value, depth, out)
            return
        if run:
            out.append(("{" if first else ",") + inner + encode(run)[1:-1])
            run = {}
            first = False
        out.append(("{" if first else ",") + inner + json.encoder.encode_basestring(key) + ": ")
        first = False
        _write(item, depth + 1, out)
    if run:
        out.append(("{" if first else ",") + inner + encode(run)[1:-1])
    out.append("\n" + _STEP * depth + "}")


def _write_list(value: list[Any], depth: int, out: list[str]) -> None:
    """A list: each run of scalar items in one call of the C encoder, each container walked."""
    if not value:
        out.append("[]")
        return
    encode = _run_encoder(depth)
    if _SCALARS.issuperset(map(type, value)):
        out.append(_flat(encode(value), depth))
        return
    inner = "\n" + _STEP * (depth + 1)
    start = 0
    first = True
    for at, item in enumerate(value):
        if type(item) in _SCALARS or not isinstance(item, _CONTAINERS):
            continue
        if at > start:
            out.append(("[" if first else ",") + inner + encode(value[start:at])[1:-1])
            first = False
        out.append(("[" if first else ",") + inner)
        first = False
        _write(item, depth + 1, out)
        start = at + 1
    if start < len(value):
        out.append(("[" if first else ",") + inner + encode(value[start:])[1:-1])
    out.append("\n" + _STEP * depth + "]")


__all__ = ["dumps_compact", "dumps_indented"]
