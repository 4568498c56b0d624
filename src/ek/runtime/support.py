"""Helpers that generated modules call on their slow (error) paths and for date checks.

Kept tiny and stable: a generated module written by an older ``ek gen`` must
keep working, which is what ``GENERATOR_VERSION`` promises.
"""

from __future__ import annotations

import datetime as _dt
import re
from collections.abc import Mapping
from typing import Any

from ek.runtime.violation import Violation

_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_DATE_SHAPE = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}")
_DATETIME_SHAPE = re.compile(
    r"[0-9]{4}-[0-9]{2}-[0-9]{2}[Tt ][0-9]{2}:[0-9]{2}(:[0-9]{2}([.,][0-9]{1,6})?)?"
    r"([Zz]|[+-][0-9]{2}(:?[0-9]{2})?)?"
)


def key_segment(name: object) -> str:
    """The path segment for an object key: ``.name`` for identifiers, else ``["quoted"]``.

    >>> key_segment("origin"), key_segment("max-results"), key_segment(3)
    ('.origin', '["max-results"]', '[3]')
    """
    if isinstance(name, str):
        if _IDENT.fullmatch(name):
            return "." + name
        import json

        return "[" + json.dumps(name, ensure_ascii=False) + "]"
    return "[" + repr(name) + "]"


def is_date(value: str) -> bool:
    """True for an ISO calendar date ``YYYY-MM-DD`` that exists.

    >>> is_date("2024-02-29"), is_date("2023-02-29"), is_date("20240101"), is_date("2024-01-01\\n")
    (True, False, False, False)
    """
    if len(value) != 10 or not _DATE_SHAPE.fullmatch(value):
        return False
    try:
        _dt.date.fromisoformat(value)
    except ValueError:
        return False
    return True


def is_datetime(value: str) -> bool:
    """True for an ISO 8601 date and time (``T`` or space separator, optional zone).

    >>> is_datetime("2024-05-01T09:30:00Z"), is_datetime("2024-05-01 09:30+02:00")
    (True, True)
    >>> is_datetime("2024-05-01"), is_datetime("2024-05-01T25:00")
    (False, False)
    """
    if not _DATETIME_SHAPE.fullmatch(value):
        return False
    try:
        _dt.datetime.fromisoformat(value)
    except ValueError:
        return False
    return True


def type_name(value: object) -> str:
    """A short JSON-ish name of a value's type for messages (``None`` -> ``null``)."""
    if value is None:
        return "null"
    return type(value).__name__


def unknown_keys(errors: list[Violation], mapping: Mapping[Any, Any], known: frozenset[str], path: str) -> None:
    """Report every key of ``mapping`` that the schema does not declare (sorted, for stable output)."""
    extra = [k for k in mapping if k not in known]
    for key in sorted(extra, key=repr):
        errors.append(Violation(path + key_segment(key), "unknown argument"))


def not_an_object(path: str, value: object) -> list[Violation]:
    """The single violation for arguments that are not a mapping at all."""
    return [Violation(path, "expected an object, got " + type_name(value))]


def short(value: object, limit: int = 60) -> str:
    """``repr(value)`` cut to ``limit`` characters, for messages about bad values.

    >>> short("x" * 100, 10)
    "'xxxxxx..."
    """
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."
