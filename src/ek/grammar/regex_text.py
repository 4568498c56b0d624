"""Part of a regex's parse tree written back as regex text, to show a user which part a message is about.

``re``'s parser keeps no source offsets and folds some forms (``a|ab`` is
parsed as ``a(?:|b)``, ``a|b`` as ``[ab]``), so the text is the parser's
reading of the part: it matches what the part matches, and is cut short
past :data:`MAX_SHOWN` characters.
"""

from __future__ import annotations

import importlib
from typing import Any

_c: Any = importlib.import_module("re._constants")

MAX_SHOWN = 60

_CATEGORY_TEXT = {
    _c.CATEGORY_DIGIT: r"\d", _c.CATEGORY_NOT_DIGIT: r"\D", _c.CATEGORY_WORD: r"\w",
    _c.CATEGORY_NOT_WORD: r"\W", _c.CATEGORY_SPACE: r"\s", _c.CATEGORY_NOT_SPACE: r"\S",
}
_AT_TEXT = {
    _c.AT_BEGINNING: "^", _c.AT_BEGINNING_STRING: r"\A", _c.AT_END: "$", _c.AT_END_STRING: r"\Z",
    _c.AT_BOUNDARY: r"\b", _c.AT_NON_BOUNDARY: r"\B",
}
_SPECIAL = set(r".^$*+?{}[]\|()")
_CLASS_SPECIAL = set(r"\]^-[")
_ESCAPES = {9: r"\t", 10: r"\n", 11: r"\v", 12: r"\f", 13: r"\r"}


def shown(items: Any) -> str:
    """``items`` (a sequence of ``(op, av)``) as regex text, shortened to :data:`MAX_SHOWN` characters.

    >>> import re._parser as parser
    >>> shown(parser.parse(r"(a+)+b")), shown(parser.parse(r"[^@\\s]{2,}\\.\\d?"))
    ('(a+)+b', '[^@\\\\s]{2,}\\\\.\\\\d?')
    """
    text = _seq(items)
    return text if len(text) <= MAX_SHOWN else text[: MAX_SHOWN - 3] + "..."


def shown_item(op: Any, av: Any) -> str:
    """One item as regex text, shortened like :func:`shown`."""
    return shown([(op, av)])


def _char(code: int, special: set[str]) -> str:
    if code in _ESCAPES:
        return _ESCAPES[code]
    ch = chr(code)
    if ch in special:
        return "\\" + ch
    if not ch.isprintable() or code > 0xFFFF:
        return f"\\x{code:02x}" if code < 0x100 else (f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}")
    return ch


def _seq(items: Any) -> str:
    """A sequence; an alternation inside it is grouped (``a(?:b|c)``), a whole one is not (``b|c``)."""
    items = list(items)
    if len(items) == 1:
        return _item(*items[0])
    return "".join(f"(?:{_item(op, av)})" if op is _c.BRANCH else _item(op, av) for op, av in items)


def _item(op: Any, av: Any) -> str:
    if op is _c.LITERAL:
        return _char(av, _SPECIAL)
    if op is _c.NOT_LITERAL:
        return f"[^{_char(av, _CLASS_SPECIAL)}]"
    if op is _c.ANY:
        return "."
    if op is _c.IN:
        return _charset(av)
    if op is _c.BRANCH:
        return "|".join(_seq(alternative) for alternative in av[1])
    if op is _c.SUBPATTERN:
        group, add, remove, body = av
        inner = _seq(body)
        if group is not None:
            return f"({inner})"
        flags = _flag_letters(add) + (f"-{_flag_letters(remove)}" if remove else "")
        return f"(?{flags}:{inner})"
    if op is _c.ATOMIC_GROUP:
        return f"(?>{_seq(av)})"
    if op in (_c.MAX_REPEAT, _c.MIN_REPEAT, _c.POSSESSIVE_REPEAT):
        lo, hi, body = av
        inner = _seq(body)
        if not (len(body) == 1 and (body[0][0] in (_c.LITERAL, _c.NOT_LITERAL, _c.ANY, _c.IN, _c.SUBPATTERN))):
            inner = f"(?:{inner})"
        suffix = {_c.MIN_REPEAT: "?", _c.POSSESSIVE_REPEAT: "+"}.get(op, "")
        return inner + _quantifier(lo, hi) + suffix
    if op is _c.AT:
        return _AT_TEXT.get(av, "")
    if op in (_c.ASSERT, _c.ASSERT_NOT):
        direction, body = av
        kind = ("=" if op is _c.ASSERT else "!") if direction == 1 else ("<=" if op is _c.ASSERT else "<!")
        return f"(?{kind}{_seq(body)})"
    if op is _c.GROUPREF:
        return f"\\{av}"
    if op is _c.GROUPREF_EXISTS:
        group, yes, no = av
        return f"(?({group}){_seq(yes)}" + (f"|{_seq(no)}" if no else "") + ")"
    return "?"  # pragma: no cover - every construct of re is above


def _quantifier(lo: int, hi: int) -> str:
    unbounded = hi == _c.MAXREPEAT
    if (lo, unbounded) == (0, True):
        return "*"
    if (lo, unbounded) == (1, True):
        return "+"
    if (lo, hi) == (0, 1):
        return "?"
    if unbounded:
        return f"{{{lo},}}"
    return f"{{{lo}}}" if lo == hi else f"{{{lo},{hi}}}"


def _charset(items: Any) -> str:
    if len(items) == 1 and items[0][0] is _c.CATEGORY:
        return _CATEGORY_TEXT.get(items[0][1], "")
    out = []
    for kind, value in items:
        if kind is _c.NEGATE:
            out.append("^")
        elif kind is _c.LITERAL:
            out.append(_char(value, _CLASS_SPECIAL))
        elif kind is _c.RANGE:
            out.append(f"{_char(value[0], _CLASS_SPECIAL)}-{_char(value[1], _CLASS_SPECIAL)}")
        elif kind is _c.CATEGORY:
            out.append(_CATEGORY_TEXT.get(value, ""))
    return "[" + "".join(out) + "]"


def _flag_letters(flags: int) -> str:
    letters = [("i", _c.SRE_FLAG_IGNORECASE), ("m", _c.SRE_FLAG_MULTILINE), ("s", _c.SRE_FLAG_DOTALL),
               ("x", _c.SRE_FLAG_VERBOSE), ("a", _c.SRE_FLAG_ASCII), ("u", _c.SRE_FLAG_UNICODE)]
    return "".join(letter for letter, bit in letters if flags & bit)
