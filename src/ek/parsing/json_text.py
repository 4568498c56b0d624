"""Strict JSON decoding: limits first, then ``json.loads`` with every lenient corner closed.

Rejected with a reason: ``NaN``/``Infinity`` (not JSON, and never equal to
themselves), numbers that overflow to infinity (``1e400``), integers past
Python's int-string conversion limit, and duplicate keys in one object
(which would otherwise silently keep the last value).
"""

from __future__ import annotations

import json
import math
import re
from typing import Any

from ek.parsing.errors import ParseError, line_col
from ek.parsing.limits import Limits, check_text
from ek.parsing.values import long_int_reason
from ek.strictjson import DuplicateKeyError, unique_keys


class _Rejected(Exception):
    """Raised inside ``json`` hooks, which know no position; turned into a ParseError."""


def _duplicate(exc: DuplicateKeyError) -> str:
    return f"duplicate key {exc.key!r:.80} in a JSON object"


#: How the reason for ``NaN``, ``Infinity`` or ``-Infinity`` in JSON text ends (:func:`not_json`).
_NON_FINITE = "is not accepted: NaN and infinities are not JSON numbers"


def _constant(name: str) -> Any:
    raise _Rejected(f"{name} {_NON_FINITE}")


def not_json(error: ParseError) -> bool:
    """Whether ``error`` (from :func:`loads`) says the text is no JSON at all: its syntax, or ``NaN`` and the
    infinities, which JSON's grammar has no words for; not a limit passed or content refused (a key twice).

    >>> def refused(text):
    ...     try:
    ...         loads(text, Limits())
    ...     except ParseError as error:
    ...         return not_json(error)
    >>> refused('[1, -Infinity]'), refused('{"a": 1, "a": 2}'), refused('[1,')
    (True, False, True)
    """
    return error.reason.startswith("invalid JSON") or error.reason.endswith(_NON_FINITE)


def _float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise _Rejected(f"number {text[:40]} is too large for a float")
    return value


# One decoder, built once: json.loads would build a new one per call when given hooks.
_DECODER = json.JSONDecoder(object_pairs_hook=unique_keys, parse_constant=_constant, parse_float=_float)
#: Its scanner (C), called directly by :func:`plain_object`.
_SCAN_ONCE = _DECODER.scan_once


def loads(text: str, limits: Limits, fmt: str = "json", path: str | None = None) -> Any:
    """Decode JSON ``text`` strictly; errors carry line and column (or ``path`` for embedded JSON).

    >>> loads('{"a": [1, 2.5, null]}', Limits())
    {'a': [1, 2.5, None]}
    >>> loads('{"a": 1, "a": 2}', Limits())
    Traceback (most recent call last):
    ...
    ek.parsing.errors.ParseError: json: line 1, column 10: duplicate key 'a' in a JSON object
    """
    try:
        check_text(text, limits, fmt)
    except ParseError as exc:
        if path is None:
            raise
        inner = f" (line {exc.position[0]}, column {exc.position[1]})" if isinstance(exc.position, tuple) else ""
        raise exc.moved(f"{path}{inner}", fmt) from None
    try:
        return _DECODER.decode(text)
    except DuplicateKeyError as exc:
        found = duplicate_position(text)
        if found is not None and path:
            raise ParseError(_duplicate(exc), f"{path} (line {found[0]}, column {found[1]})", fmt) from None
        raise ParseError(_duplicate(exc), found or path, fmt) from None
    except _Rejected as exc:
        raise ParseError(str(exc), path, fmt) from None
    except json.JSONDecodeError as exc:
        where = f"{path} (line {exc.lineno}, column {exc.colno})" if path else (exc.lineno, exc.colno)
        if ends_inside(text, exc):
            raise ParseError(f"invalid JSON: {exc.msg} (the output ends inside this JSON value: cut short?)",
                             where, fmt, cut_short=True) from None
        raise ParseError(f"invalid JSON: {exc.msg}", where, fmt) from None
    except ValueError as exc:  # int-string conversion limit on huge integers
        raise ParseError(long_int_reason(exc), path, fmt) from None
    except RecursionError:  # unreachable after check_text; kept so it can never escape
        raise ParseError("JSON nests too deeply", path, fmt) from None


def plain_object(text: str, limits: Limits) -> dict[str, Any] | None:
    """Fast path of :func:`loads` for JSON text that should hold an object (a call's arguments): the object,
    or None wherever :func:`loads` would raise or give something other than an object, and for blank text;
    the caller then reads it the general way (for the error, at its path, or for what blank text means).

    What it skips: building the error (its message, line and column), and the two Python calls and
    whitespace matches ``decode`` wraps around the decoder's scanner when the value fills the text (no
    whitespace around it, as arguments are saved). Safe: the same limits check and the same strict decoder
    (its scanner, with its hooks), so an object given back is exactly what :func:`loads` gives; any other
    text is decoded the standard way.

    >>> plain_object('{"x": [1, 2.5]}', Limits()), plain_object('{"x": 1, "x": 2}', Limits()), plain_object("[1]", Limits())
    ({'x': [1, 2.5]}, None, None)
    >>> plain_object(' {"x": 1}\\n', Limits()), plain_object('{"x": 1} 2', Limits())
    ({'x': 1}, None)
    """
    if not text.strip():
        return None
    try:
        check_text(text, limits, "json")
        try:
            value, end = _SCAN_ONCE(text, 0)
        except StopIteration:  # no value at the start (whitespace first, or not JSON): decode says which
            end = -1
        if end != len(text):
            value = _DECODER.decode(text)
    except (ParseError, _Rejected, ValueError, RecursionError):  # (json.JSONDecodeError is a ValueError)
        return None
    return value if type(value) is dict else None


def ends_inside(text: str, error: json.JSONDecodeError) -> bool:
    """Whether the decoder stopped because ``text`` ended inside a value (a string, array or object left
    open), not at a wrong character: the mark of a completion cut short by ``max_tokens``."""
    if error.msg.startswith("Unterminated string"):
        return True
    tail = text[error.pos:].rstrip()
    # nothing left, or only the start of a number (``3.``, ``1e``) or of a literal (``tru``, ``nul``)
    return not tail or all(c in _NUMBER_CHARS for c in tail) or any(w.startswith(tail) for w in _LITERALS)


_NUMBER_CHARS = frozenset("0123456789.eE+-")
_LITERALS = ("true", "false", "null")


_JSON_TOKENS = re.compile(r'"(?:[^"\\]++|\\.)*+"|[{}\[\]:,]')


def duplicate_position(text: str) -> tuple[int, int] | None:
    """Where the first repeated key of an object is (only called once a duplicate was found).

    >>> duplicate_position('{"a": 1,\\n "b": {"a": 2, "a": 3}}')
    (2, 16)
    """
    stack: list[set[str] | None] = []  # one key set per open object, None per open array
    previous: re.Match[str] | None = None
    for match in _JSON_TOKENS.finditer(text):
        token = match.group()
        if token == "{":
            stack.append(set())
        elif token == "[":
            stack.append(None)
        elif token in "}]":
            if stack:
                stack.pop()
        elif token == ":" and previous is not None and previous.group().startswith('"') and stack and \
                stack[-1] is not None:
            key = json.loads(previous.group())
            if key in stack[-1]:
                return line_col(text, previous.start())
            stack[-1].add(key)
        previous = match
    return None


def decode_at(text: str, start: int, limits: Limits, fmt: str) -> tuple[Any, int]:
    """Decode one JSON value at ``text[start:]`` (after whitespace); return it and where it ends.

    The caller has size- and depth-checked ``text`` as a whole. Errors carry
    line and column in ``text``; a value that runs to the end of the text
    unfinished is reported as cut short (a completion stopped by ``max_tokens``).

    >>> decode_at('name[ARGS]{"a": 1} tail', 10, Limits(), "mistral")
    ({'a': 1}, 18)
    >>> decode_at('x {"a": [1, ', 2, Limits(), "mistral")
    Traceback (most recent call last):
    ...
    ek.parsing.errors.ParseError: mistral: line 1, column 3: the output ends inside this JSON value (cut short, e.g. by max_tokens?)
    """
    pos = start
    while pos < len(text) and text[pos] in " \t\r\n":
        pos += 1
    try:
        return _DECODER.raw_decode(text, pos)
    except DuplicateKeyError as exc:
        raise ParseError(_duplicate(exc), line_col(text, pos), fmt) from None
    except _Rejected as exc:
        raise ParseError(str(exc), line_col(text, pos), fmt) from None
    except json.JSONDecodeError as exc:
        if ends_inside(text, exc):
            raise ParseError("the output ends inside this JSON value (cut short, e.g. by max_tokens?)",
                             line_col(text, pos), fmt, cut_short=True) from None
        raise ParseError(f"invalid JSON: {exc.msg}", line_col(text, exc.pos), fmt) from None
    except ValueError as exc:
        raise ParseError(long_int_reason(exc), line_col(text, pos), fmt) from None
    except RecursionError:
        raise ParseError("JSON nests too deeply", line_col(text, pos), fmt) from None
