"""JSON Schema string ``format`` s that ``.ek`` keeps as a regex, and back: the one table both directions read.

``date`` and ``date-time`` have types of their own (``date``, ``datetime``).
``email``, ``uuid`` and ``uri`` have none; a ``str`` carrying exactly the
regex below means that format, so ``ek import`` writes the regex and
``ek export`` writes the ``format`` back (not the regex): the round trip is
stable both ways and the generated validator checks the value.

Each regex is a chain of character classes that cannot overlap where they
meet, so a full match runs in time linear in the value (``re`` never has a
second way to split it); ``tests/interop/test_interop_formats.py`` checks
that :func:`ek.grammar.regexes.pattern_problem` agrees. They are deliberately
liberal approximations of the RFCs: a value the format allows is never
rejected, some it does not allow pass.
"""

from __future__ import annotations

#: ``format`` -> the full-match regex a ``str`` gets for it.
FORMAT_PATTERNS: dict[str, str] = {
    # RFC 5321 Mailbox, approximated: one "@" between two non-empty runs without spaces or "@".
    "email": r"[^\s@]+@[^\s@]+",
    # RFC 4122 string form: 8-4-4-4-12 hex digits, either case.
    "uuid": r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}",
    # RFC 3986 URI (absolute), approximated: a scheme, ":" and no whitespace after it.
    "uri": r"[A-Za-z][A-Za-z0-9+.-]*:\S*",
}

_BY_PATTERN = {pattern: fmt for fmt, pattern in FORMAT_PATTERNS.items()}


def format_of(pattern: str | None) -> str | None:
    """The ``format`` a ``str`` regex stands for, or None when it is an ordinary regex.

    >>> format_of(FORMAT_PATTERNS["uuid"]), format_of("[A-Z]{3}"), format_of(None)
    ('uuid', None, None)
    """
    return None if pattern is None else _BY_PATTERN.get(pattern)
