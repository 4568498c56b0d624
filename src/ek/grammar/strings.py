"""String, regex and number literals of the DSL: decoded by hand, never evaluated.

Schema text is data. These helpers turn literal tokens into Python values and
back (for the printer) without ``eval`` or ``ast.literal_eval``.
"""

from __future__ import annotations

import inspect
import keyword
import math
import re

_SIMPLE_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "0": "\0", '"': '"', "\\": "\\", "/": "/", "'": "'"}
_HEX_ESCAPES = {"x": 2, "u": 4, "U": 8}
_ENCODE = {"\\": "\\\\", '"': '\\"', "\n": "\\n", "\t": "\\t", "\r": "\\r", "\0": "\\0"}

_TRAILING_SPACE = re.compile(r"[ \t\f]+(?=\n|$)")

#: A name that may be written without quotes.
BARE_NAME = re.compile(r"[^\W\d]\w*")


_SURROGATE = re.compile("[\ud800-\udfff]")


def lone_surrogate(text: str) -> int | None:
    """Where ``text`` holds a UTF-16 surrogate (a half of a character, which no UTF-8 file can hold), or None.

    >>> lone_surrogate("caf\\u00e9"), lone_surrogate("ab\\udc00")
    (None, 2)
    """
    found = _SURROGATE.search(text)
    return None if found is None else found.start()


class EscapeError(ValueError):
    """A bad escape sequence; ``offset`` is its position inside the token text."""

    def __init__(self, message: str, offset: int) -> None:
        super().__init__(message)
        self.offset = offset


def decode_escapes(body: str, base: int = 0) -> str:
    r"""Decode the backslash escapes of a string literal's body.

    >>> decode_escapes(r'a\"b\n\u00e9'), decode_escapes(r'\ud83d\ude00') == "\U0001f600"
    ('a"b\né', True)
    """
    if "\\" not in body:
        return body
    out: list[str] = []
    i, n = 0, len(body)
    while i < n:
        ch = body[i]
        if ch != "\\":
            out.append(ch)
            i += 1
            continue
        if i + 1 >= n:
            raise EscapeError("a string cannot end with a lone backslash", base + i)
        esc = body[i + 1]
        if esc in _SIMPLE_ESCAPES:
            out.append(_SIMPLE_ESCAPES[esc])
            i += 2
        elif esc in _HEX_ESCAPES:
            width = _HEX_ESCAPES[esc]
            digits = body[i + 2 : i + 2 + width]
            if len(digits) != width or not all(c in "0123456789abcdefABCDEF" for c in digits):
                raise EscapeError(f"'\\{esc}' needs exactly {width} hex digits", base + i)
            code = int(digits, 16)
            if code > 0x10FFFF:
                raise EscapeError(f"'\\{esc}{digits}' is not a Unicode code point", base + i)
            i += 2 + width
            if 0xD800 <= code <= 0xDFFF:  # UTF-16 halves: a high one followed by a low one is one character
                low = body[i + 2 : i + 6] if body[i : i + 2] == "\\u" else ""
                if code <= 0xDBFF and len(low) == 4 and all(c in "0123456789abcdefABCDEF" for c in low) \
                        and 0xDC00 <= int(low, 16) <= 0xDFFF:
                    code = 0x10000 + ((code - 0xD800) << 10) + (int(low, 16) - 0xDC00)
                    i += 6
                else:
                    raise EscapeError(f"'\\{esc}{digits}' is a lone UTF-16 surrogate, not a character "
                                      f"(write \\U0001f600, or a complete pair like \\ud83d\\ude00)",
                                      base + i - 2 - width)
            out.append(chr(code))
        elif esc == "\n":  # a backslash-newline inside a long string joins the lines
            i += 2
        else:
            raise EscapeError(f"unknown escape '\\{esc}' in string", base + i)
    return "".join(out)


def decode_string(token: str) -> str:
    """The value of a ``"..."`` or ``\"\"\"...\"\"\"`` token.

    Long strings are doc strings: their indentation is cleaned like Python's.

    >>> decode_string('"math.hypot"')
    'math.hypot'
    >>> decode_string('\"\"\"Cancel.\\n    Cannot be undone.\"\"\"')
    'Cancel.\\nCannot be undone.'
    >>> decode_string('\"\"\"Cancel.  \\n        \"\"\"')
    'Cancel.'
    """
    if token.startswith('"""'):
        return clean_doc(decode_escapes(token[3:-3], 3))
    return decode_escapes(token[1:-1], 1)


def clean_doc(text: str) -> str:
    """Python's docstring cleaning, and no spaces at line ends (invisible, and fmt could not keep them).

    >>> clean_doc("Doc   \\n        more\\t\\n        ")
    'Doc\\nmore'
    """
    return inspect.cleandoc(_TRAILING_SPACE.sub("", inspect.cleandoc(text)))


#: The characters no schema text shows as themselves (a regular expression's character-class body): control
#: characters (C0, DEL, C1), line and paragraph separators, and the bidi controls that make text display in
#: another order than it reads. Written raw they would reach a terminal (``ek diff``, ``ek fmt``) or an editor
#: as commands, or hide what the file says. The one set: names may not hold them
#: (:func:`ek.grammar.names.unfit_character`), comments may not but for a tab (:mod:`ek.grammar.comments`),
#: and strings write them as escapes (:func:`encode_string`).
UNSHOWN_CHARACTERS = "\x00-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069"

#: :data:`UNSHOWN_CHARACTERS` but a tab (a terminal shows it as space): what schema text shown as it is may not
#: hold, a diagnostic's source line (:mod:`ek.grammar.diagnostics`) and a comment (:mod:`ek.grammar.comments`).
UNSHOWN_BUT_TAB = re.compile(f"(?!\t)[{UNSHOWN_CHARACTERS}]")

#: What a written string spells as an escape, never as itself: :data:`UNSHOWN_CHARACTERS` and UTF-16 halves.
_UNSHOWN = re.compile(f"[{UNSHOWN_CHARACTERS}\ud800-\udfff]")


def encode_string(value: str) -> str:
    r"""A one-line ``"..."`` literal that decodes back to ``value``.

    >>> encode_string('say "hi"\n')
    '"say \\"hi\\"\\n"'
    """
    return '"' + _ESCAPED.sub(_escape, value) + '"'


#: The characters of :data:`UNSHOWN_CHARACTERS` that ``json.dumps(..., ensure_ascii=False)`` writes as
#: themselves: DEL, C1, the separators and the bidi controls. Not C0: inside a string JSON escapes it, and
#: outside one it is the layout's newlines and spaces.
_UNSHOWN_IN_JSON = re.compile(f"(?![\\x00-\\x1f])[{UNSHOWN_CHARACTERS}]")


def json_shown(text: str) -> str:
    r"""JSON text (``json.dumps(..., ensure_ascii=False)``'s) with every character of :data:`UNSHOWN_CHARACTERS`
    written as its ``\uXXXX`` escape: what ``ek export``, ``ek diff --json`` and ``ek lint --json`` print, so
    that schema text never reaches a terminal or an editor as commands (C1 controls) or in another order than
    it reads (bidi controls). Lossless: any JSON reader gives the same strings back. Safe on the whole text:
    outside its strings, JSON text holds none of those characters.

    >>> json_shown('{"doc": "evil\u202etxt"}')
    '{"doc": "evil\\u202etxt"}'
    """
    return _UNSHOWN_IN_JSON.sub(_unicode_escape, text)


def _unicode_escape(found: re.Match[str]) -> str:
    return f"\\u{ord(found.group()):04x}"


#: Every character :func:`encode_string` writes as an escape: the quote, the backslash and :data:`_UNSHOWN`.
_ESCAPED = re.compile('["\\\\' + _UNSHOWN.pattern[1:])


def _escape(found: re.Match[str]) -> str:
    ch = found.group()
    return _ENCODE.get(ch) or f"\\u{ord(ch):04x}"


def encode_doc(value: str, indent: str) -> str:
    """A doc string literal: ``\"\"\"`` with indented lines when multi-line and clean, else ``"..."``."""
    if "\n" in value and _long_ok(value):
        lines = value.split("\n")
        body = "\n".join([lines[0]] + [(indent + line) if line else "" for line in lines[1:]])
        return '"""' + body + '"""'
    return encode_string(value)


def _long_ok(value: str) -> bool:
    """Whether ``value`` reads back as itself from a triple-quoted literal: the decoder cleans a doc
    (:func:`clean_doc`, which also drops spaces at line ends), so only a value already clean may be written so."""
    if '"""' in value or "\\" in value or value.endswith('"') or clean_doc(value) != value:
        return False
    return _UNSHOWN.search(value.replace("\n", "")) is None


def decode_pattern(token: str) -> str:
    r"""The regex inside a ``/.../`` token: ``\/`` stands for ``/``, other escapes stay for ``re``.

    >>> decode_pattern(r'/a\/b\d/')
    'a/b\\d'
    """
    body = token[1:-1]
    out: list[str] = []
    i = 0
    while i < len(body):
        if body[i] == "\\" and i + 1 < len(body):
            out.append("/" if body[i + 1] == "/" else body[i : i + 2])
            i += 2
        else:
            out.append(body[i])
            i += 1
    return "".join(out)


def encode_pattern(pattern: str) -> str:
    r"""A ``/.../`` token for ``pattern`` (the inverse of :func:`decode_pattern`).

    >>> encode_pattern('a/b\\d')
    '/a\\/b\\d/'
    """
    pattern = escape_unshown(pattern)
    out: list[str] = []
    i = 0
    while i < len(pattern):
        ch = pattern[i]
        if ch == "\\" and i + 1 < len(pattern):
            out.append(ch + pattern[i + 1])
            i += 2
            continue
        out.append("\\/" if ch == "/" else "\\\\" if ch == "\\" else ch)
        i += 1
    return "/" + "".join(out) + "/"


def shown_pattern(pattern: str, limit: int = 80) -> str:
    """``/pattern/`` as a message quotes it: cut to ``limit`` characters (a schema may hold a long one).

    >>> shown_pattern("[A-Z]{3}"), shown_pattern("a" * 100, 10)
    ('/[A-Z]{3}/', '/aaaaa.../')
    """
    text = encode_pattern(pattern)
    return text if len(text) <= limit else text[: limit - 4] + ".../"


def escape_unshown(pattern: str) -> str:
    r"""``pattern`` with each character a terminal would act on (:data:`UNSHOWN_BUT_TAB`: raw CR and LF, other
    control characters, line separators, bidi controls) written as its regex escape, which ``re`` reads as the
    same pattern: ``\r``, ``\n``, ``\xHH``, ``\uHHHH`` (a DSL ``/regex/`` fits on one line and shows as it reads).

    >>> escape_unshown("a\rb"), escape_unshown("a\\\nb"), escape_unshown("a\\\\\n"), escape_unshown("a\x1b\u202eb\t")
    ('a\\rb', 'a\\nb', 'a\\\\\\n', 'a\\x1b\\u202eb\t')
    """
    if UNSHOWN_BUT_TAB.search(pattern) is None:
        return pattern
    out: list[str] = []
    i = 0
    while i < len(pattern):
        ch = pattern[i]
        if ch == "\\" and i + 1 < len(pattern):
            nxt = pattern[i + 1]  # an escaped character: a backslash then a character means the character itself
            out.append(_regex_escape(nxt) if UNSHOWN_BUT_TAB.match(nxt) else ch + nxt)
            i += 2
            continue
        out.append(_regex_escape(ch) if UNSHOWN_BUT_TAB.match(ch) else ch)
        i += 1
    return "".join(out)


def _regex_escape(ch: str) -> str:
    r"""The regex escape of one character: ``\r``, ``\n``, ``\xHH`` or ``\uHHHH``."""
    code = ord(ch)
    if ch in "\r\n":
        return "\\r" if ch == "\r" else "\\n"
    return f"\\x{code:02x}" if code <= 0xFF else f"\\u{code:04x}"


def unshown_description(ch: str) -> str:
    r"""How a message names a character of :data:`UNSHOWN_CHARACTERS`.

    >>> unshown_description("\x1b"), unshown_description("\u202e")
    ('the control character U+001B', 'the bidi control U+202E')
    """
    code = ord(ch)
    what = "bidi control" if 0x202A <= code <= 0x202E or 0x2066 <= code <= 0x2069 else "control character"
    return f"the {what} U+{code:04X}"


def parse_number(text: str) -> int | float:
    """An int when written without a fraction or exponent, else a float.

    >>> parse_number("3"), parse_number("-0.5"), parse_number("1e3")
    (3, -0.5, 1000.0)
    """
    if "." in text or "e" in text or "E" in text:
        return float(text)
    return int(text)


def reads_as_zero(text: str) -> bool:
    """Whether a number's text has a digit other than 0 before its exponent yet reads as ``0.0``: past the
    smallest float (about 5e-324), ``float("1e-400")`` is 0, and a tolerance or bound of it would silently be 0.

    >>> reads_as_zero("-1.5e-400"), reads_as_zero("0.000E-9"), reads_as_zero("5e-324"), reads_as_zero("0")
    (True, False, False, False)
    """
    try:
        if float(text) != 0:
            return False
    except (ValueError, OverflowError):
        return False
    return any(ch in "123456789" for ch in text.lower().partition("e")[0])


def to_float(value: int | float) -> float | None:
    """``value`` as a float, or None for an int past the largest float (about 1.8e308), which
    ``float()`` refuses with an OverflowError.

    >>> to_float(3), to_float(10 ** 400)
    (3.0, None)
    """
    try:
        return float(value)
    except OverflowError:
        return None


def is_finite(value: int | float) -> bool:
    """Every int, and a float that is not infinite or NaN (``math.isfinite`` overflows on a huge int).

    >>> is_finite(10 ** 400), is_finite(float("inf")), is_finite(0.5)
    (True, False, True)
    """
    return isinstance(value, int) or math.isfinite(value)


def format_number(value: int | float) -> str:
    """The literal the parser reads back as ``value`` (floats keep a fraction or exponent).

    >>> format_number(3), format_number(3.0), format_number(0.001), format_number(1e300)
    ('3', '3.0', '0.001', '1e+300')
    """
    if isinstance(value, bool):
        raise ValueError("booleans are not numbers in the DSL")
    if isinstance(value, float):
        if not math.isfinite(value):
            raise ValueError(f"{value!r} cannot be written in the DSL")
        return repr(value)
    return str(int(value))


def format_weight(value: float) -> str:
    """Weights and importances are floats in the model; print ``3`` for ``3.0``.

    >>> format_weight(3.0), format_weight(0.5)
    ('3', '0.5')
    """
    if isinstance(value, float) and value.is_integer() and abs(value) < 1e16:
        return str(int(value))
    return format_number(value)


def format_member(member: str | int) -> str:
    """An enum member as written in a schema: an integer as a number, text as :func:`format_name` writes it.

    >>> format_member(3), format_member("3"), format_member("celsius")
    ('3', '"3"', 'celsius')
    """
    return str(member) if isinstance(member, int) else format_name(member)


def format_name(name: str) -> str:
    """A name as written in a schema: bare when it is an identifier-like word, else quoted.

    Python keywords are quoted too (``"from"``), as the DSL reference writes them.

    >>> format_name("search"), format_name("math.hypot"), format_name("from")
    ('search', '"math.hypot"', '"from"')
    """
    if BARE_NAME.fullmatch(name) and not keyword.iskeyword(name):
        return name
    return encode_string(name)
