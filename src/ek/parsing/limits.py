"""Size and nesting limits, checked before any parser gets a chance to recurse.

``ast.parse`` and ``json.loads`` recurse on nested brackets; a 100k-deep
``[[[[...`` would raise ``RecursionError`` or ``MemoryError`` inside them. The
bracket scan here is iterative, skips string literals and comments, and stops
at the first bracket past the limit with its line and column. The token count
of Python text (:func:`python_tokens_past`) bounds what ``ast.parse`` holds: it
skips strings the same way and stops at the first token past its limit.
"""

from __future__ import annotations

import re
import sys

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

# The characters that may start a token of the bracket scan: a bracket, a string's quote, a comment's ``#``.
_SPECIAL = re.compile(r"[][(){}\"'#]")
# Each string's body (Python and JSON: the same escaping rule for finding its end), read from just after its
# opening quotes: it stops where the closing quotes are (the string ends there) or where the string cannot go
# on (a line break for a one-line string, or the end): then no string starts at that quote. Possessive
# quantifiers: an unterminated megabyte string is read once, without backtracking.
_BODIES = {
    '"""': re.compile(r'(?:[^"\\]++|\\.|"(?!""))*+', re.S),
    "'''": re.compile(r"(?:[^'\\]++|\\.|'(?!''))*+", re.S),
    '"': re.compile(r'(?:[^"\\\n]++|\\.)*+', re.S),
    "'": re.compile(r"(?:[^'\\\n]++|\\.)*+", re.S),
}
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
    deepest = first_past_depth(text, limit)
    if deepest is not None:
        raise ParseError(f"nesting deeper than {limit} brackets (limit max_depth={limit})", line_col(text, deepest),
                         fmt)


def first_past_depth(text: str, limit: int) -> int | None:
    """Where the first bracket nesting deeper than ``limit`` opens in ``text``, brackets inside string literals
    (Python's four quotings, JSON's) and ``#`` comments not counted; None if there is none. A closing bracket
    with none open is ignored.

    Read left to right, a token at a time: a bracket; a comment, to the end of its line; a string, from its
    opening quote(s) to its closing ones (a triple quote first, then a single one, as Python tries them). A
    quote with no closing one on its line (a triple quote: in the rest of the text) starts no string: it is
    read as a character, and the scan goes on after it, brackets counted.

    Linear on any text: once the body of a string opened at ``p`` runs to its stop ``s`` unclosed, no string
    of that quoting opens before ``s`` either (such a quote between them is escaped in that body, so the body
    from just after it is the same body's tail, which stops at ``s`` unclosed too); later quotes of that kind
    before ``s`` are skipped without reading their body again. Without that, a text of ``\\"`` repeated was
    read to its end from each quote: 17 s for 80 kB.

    >>> first_past_depth("f(x=[[1]])", 2), first_past_depth("f(x='[[[[')", 2), first_past_depth('f("\\\\"[[[[', 3)
    (5, None, 7)
    """
    return _bracket_scan(text, limit)[0]


def open_brackets(text: str) -> int:
    """How many brackets are open at the end of ``text``, read as :func:`first_past_depth` reads it.

    >>> open_brackets("[f(x='a)'"), open_brackets("f(x=1) and g(")
    (2, 1)
    """
    return _bracket_scan(text, sys.maxsize)[1]


def _bracket_scan(text: str, limit: int) -> tuple[int | None, int]:
    """:func:`first_past_depth`'s scan: where the nesting first goes past ``limit`` (None if nowhere, and then
    the scan reads the whole text) and the depth where the scan stopped."""
    depth = 0
    pos = 0
    #: per quoting, where its strings may open again: one that opens before this index runs unclosed
    unclosed = dict.fromkeys(_BODIES, 0)
    search = _SPECIAL.search
    while True:
        found = search(text, pos)
        if found is None:
            return None, depth
        i = found.start()
        char = text[i]
        if char in _OPEN:
            depth += 1
            if depth > limit:
                return i, depth
            pos = i + 1
        elif char in _CLOSE:
            if depth:
                depth -= 1
            pos = i + 1
        elif char == "#":
            line_end = text.find("\n", i)
            pos = len(text) if line_end < 0 else line_end
        else:
            pos = _string_end(text, i, char, unclosed)


# One token of Python text as :func:`python_tokens_past` counts them, after any whitespace: a comment (not
# counted), a number, a word (a name, or a string's prefix), a quote (a string follows) or any other
# character (an operator: ``**`` counts as two). A number is never longer than Python's tokenizer reads it
# (its alternatives are tokenize's ``Number``, tried in its order): what Python reads as two tokens (``0123``,
# ``1if``, ``1_a``) may not count as one. Every quantifier is possessive: no backtracking, linear on any text.
_DIGITS = r"[0-9](?:_?+[0-9])*+"
_EXPONENT = r"[eE][-+]?+" + _DIGITS
_PY_TOKEN = re.compile(
    r"\s*+(?:(\#[^\n]*+)"
    r"|(0[xX](?:_?+[0-9a-fA-F])++|0[bB](?:_?+[01])++|0[oO](?:_?+[0-7])++"
    rf"|(?:{_DIGITS}\.(?:{_DIGITS})?+(?:{_EXPONENT})?+|{_DIGITS}{_EXPONENT}|{_DIGITS}(?=[jJ])"
    r"|[1-9](?:_?+[0-9])*+|0(?:_?+0)*+)[jJ]?+)"
    r"""|(\w++)|(['"])|([^\s\w'"\#]))""")
#: String prefixes that make a string Python parses the inside of (an f-string's, from 3.14 a t-string's fields).
_FIELD_PREFIX = re.compile(r"[rRbBuU]?[fFtT][rRbBuU]?")


def python_tokens_past(text: str, limit: int) -> bool:
    """Whether ``text`` has more than ``limit`` tokens as Python's parser reads them, each string one token
    however long, counted generously (``**`` or ``1.5e-3 + 2`` may count a token or two more) and never
    fewer: a text under the limit costs ``ast.parse`` at most the memory of that many tokens. An f-string's
    fields are Python, and from 3.12 may hold strings in the f-string's own quotes, so from the first one on
    every character counts as a token (ek refuses f-strings anyway). Strings are delimited as
    :func:`first_past_depth` finds them (a quote not closed on its line, or a triple quote not closed at all,
    is one character). Stops at the first token past ``limit``: time in proportion to it, not to ``text``.

    >>> python_tokens_past("f(x='a, b', y=[1.5e-3, 2])  # 15 tokens", 15), python_tokens_past("f(x='a, b', y=[1])", 10)
    (False, True)
    >>> python_tokens_past('f"" ' + ", 1" * 6 + ' ""', 20), python_tokens_past('"" ' + ", 1" * 6 + ' ""', 20)
    (True, False)
    """
    count = 0
    pos = 0
    unclosed = dict.fromkeys(_BODIES, 0)
    prefix, word_end = "", -1  # the last word and where it ended: a quote there makes it the string's prefix
    match = _PY_TOKEN.match
    while count <= limit:
        found = match(text, pos)
        if found is None:
            return False  # only whitespace to the end
        pos = found.end()
        comment, _, word, quote, _ = found.groups()
        if comment is not None:
            continue
        count += 1
        if word is not None:
            prefix, word_end = word, pos
        elif quote is not None:
            start = pos - 1
            if start == word_end and _FIELD_PREFIX.fullmatch(prefix):
                return count + len(text) - pos > limit
            pos = _string_end(text, start, quote, unclosed)
    return True


def _string_end(text: str, i: int, char: str, unclosed: dict[str, int]) -> int:
    """Where the string whose quote ``char`` is at ``i`` ends (past its closing quotes), a triple quote tried
    first as Python does; ``i + 1`` if no string opens there. ``unclosed``: per quoting, where its strings may
    open again (see :func:`first_past_depth`), updated."""
    triple = char * 3
    if i >= unclosed[triple] and text.startswith(triple, i):
        stop = _BODIES[triple].match(text, i + 3).end()
        if text.startswith(triple, stop):
            return stop + 3
        unclosed[triple] = stop
    if i >= unclosed[char]:
        stop = _BODIES[char].match(text, i + 1).end()
        if text.startswith(char, stop):
            return stop + 1
        unclosed[char] = stop
    return i + 1
