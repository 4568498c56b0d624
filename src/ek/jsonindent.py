"""The text of ``json.dumps(value, indent=2, ensure_ascii=False, default=repr)``, written faster.

Every JSON file ek writes for people (``--json`` reports, ``ek compare --json``)
has that layout. With ``indent``, :mod:`json` takes its pure-Python encoder, a
chain of generators yielding each bracket, key and value: 12 ms for the JSON
report of a 1,000-line BFCL run (740 tools). :func:`dumps_indented` writes the
same characters, handing every run of scalar values to the C encoder in one call.

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
"""

from __future__ import annotations

import json
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


def _run_encoder(depth: int) -> Callable[[Any], str]:
    """A plain encoder whose item separator starts the next item of a container at ``depth``.

    :mod:`json`'s C encoder itself when there is one (``c_make_encoder``, what ``JSONEncoder.encode`` builds
    anew at every call: a third of the time here), made once per depth; else ``JSONEncoder.encode``."""
    while len(_RUN_ENCODERS) <= depth:
        separator = ",\n" + _STEP * (len(_RUN_ENCODERS) + 1)
        make = json.encoder.c_make_encoder
        if make is None:
            _RUN_ENCODERS.append(json.JSONEncoder(ensure_ascii=False, default=repr,
                                                  separators=(separator, ": ")).encode)
        else:  # markers None: no check for cycles (the walk above the runs would recurse on one first)
            encode = make(None, repr, json.encoder.encode_basestring, None, ": ", separator, False, False, True)
            _RUN_ENCODERS.append(lambda value, encode=encode: "".join(encode(value, 0)))
    return _RUN_ENCODERS[depth]


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


__all__ = ["dumps_indented"]
