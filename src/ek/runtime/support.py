"""Helpers that generated modules call on their slow (error) paths and for date checks.

Kept tiny and stable: a generated module written by an older ``ek gen`` must
keep working, which is what ``GENERATOR_VERSION`` promises.
"""

from __future__ import annotations

import datetime as _dt
from collections.abc import Mapping
from typing import Any

from ek.grammar.fits import is_date, is_datetime  # noqa: F401 - the runtime's date checks; ek.grammar.fits owns them
from ek.grammar.names import path_segment
from ek.runtime.violation import Violation, short_repr

#: The parsers behind the ``date`` and ``datetime`` checks (bound once; generated code imports them).
date_fromisoformat = _dt.date.fromisoformat
datetime_fromisoformat = _dt.datetime.fromisoformat

#: The characters at offsets 4, 7, 10 and 13 of an extended ISO datetime (``value[4:14:3]``);
#: read by modules of generator version 1.
DATETIME_SEPARATORS = frozenset({"--T:", "--t:", "-- :"})


def key_segment(name: object) -> str:
    """The path segment for an object key: ``.name`` for identifiers, else ``["quoted"]``.

    Names are written by :func:`ek.grammar.names.path_segment` (the code
    generator precomputes the same segments); other keys show by ``repr``.

    >>> key_segment("origin"), key_segment("max-results"), key_segment(3)
    ('.origin', '["max-results"]', '[3]')
    """
    if isinstance(name, str):
        return path_segment(name)
    return "[" + short_repr(name) + "]"


def unknown_keys(
    errors: list[Violation], mapping: Mapping[Any, Any], known: frozenset[str], path: str | tuple[object, ...]
) -> None:
    """Report every key of ``mapping`` that the schema does not declare (sorted, for stable output).

    ``path`` is text, or pieces (literals and list indexes) as generated code passes them.
    """
    prefix = path if isinstance(path, str) else "".join(map(str, path))
    extra = [k for k in mapping if k not in known]
    for key in sorted(extra, key=short_repr):
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
