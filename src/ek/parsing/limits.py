"""Size and nesting limits, checked before any parser gets a chance to recurse.

``ast.parse`` and ``json.loads`` recurse on nested brackets; a 100k-deep
``[[[[...`` would raise ``RecursionError`` or ``MemoryError`` inside them. The
bracket scan here is iterative, skips string literals and comments, and stops
at the first bracket past the limit with its line and column.
"""

from __future__ import annotations

import re

import attrs

from ek.limits import OUTPUT_MAX_DEPTH, OUTPUT_MAX_SIZE
from ek.parsing.errors import ParseError, line_col

DEFAULT_MAX_SIZE = OUTPUT_MAX_SIZE
DEFAULT_MAX_DEPTH = OUTPUT_MAX_DEPTH


def _positive(instance: object, attribute: "attrs.Attribute[int]", value: int) -> None:
    if not isinstance(value, int) or isinstance(value, bool) or value < 1:
        raise ValueError(f"{attribute.name} must be a positive int, got {value!r}")


@attrs.frozen
class Limits:
    """How big (characters, or units for decoded objects) and how deep an output may be."""

    max_size: int = attrs.field(default=DEFAULT_MAX_SIZE, validator=_positive)
    max_depth: int = attrs.field(default=DEFAULT_MAX_DEPTH, validator=_positive)


DEFAULT_LIMITS = Limits()

# String literals (Python and JSON: the same escaping rule for finding their
# end), comments, and brackets. Possessive quantifiers keep an unterminated
# megabyte string linear instead of backtracking.
_TOKENS = re.compile(
    r'"""(?:[^"\\]++|\\.|"(?!""))*+"""'
    r"|'''(?:[^'\\]++|\\.|'(?!''))*+'''"
    r'|"(?:[^"\\\n]++|\\.)*+"'
    r"|'(?:[^'\\\n]++|\\.)*+'"
    r"|#[^\n]*+"
    r"|[\[({]|[\])}]",
    re.S,
)
_OPEN = frozenset("[({")
_CLOSE = frozenset("])}")


def check_text(text: str, limits: Limits, fmt: str) -> None:
    """Raise :class:`ParseError` if ``text`` is too long or nests brackets too deeply.

    >>> check_text("f(x=[[1]])", Limits(max_depth=3), "python")
    >>> check_text("f(x=[[1]])", Limits(max_depth=2), "python")
    Traceback (most recent call last):
    ...
    ek.parsing.errors.ParseError: python: line 1, column 6: nesting deeper than 2 brackets (limit max_depth=2)
    """
    size = len(text)
    if size > limits.max_size:
        raise ParseError(
            f"output has {size:,} characters, more than the limit of {limits.max_size:,} (max_size)",
            None,
            fmt,
        )
    limit = limits.max_depth
    if size <= limit or text.count("[") + text.count("(") + text.count("{") <= limit:
        return  # too few characters, or brackets, to nest past the limit, whatever the strings hold
    depth = 0
    for match in _TOKENS.finditer(text):
        token = match.group()
        if token in _OPEN:
            depth += 1
            if depth > limit:
                raise ParseError(
                    f"nesting deeper than {limit} brackets (limit max_depth={limit})",
                    line_col(text, match.start()),
                    fmt,
                )
        elif token in _CLOSE:
            depth = max(depth - 1, 0)
