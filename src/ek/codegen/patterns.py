"""Specialising simple regexes into ``str`` method calls, which beat ``re`` several times over.

Only patterns whose meaning is certain are specialised; everything else keeps
``re.fullmatch`` from the module's compiled-pattern table.
"""

from __future__ import annotations

import functools
import re

from ek.codegen.literals import py_literal

_SHAPE = re.compile(r"(\[[^\]\\]+\]|\\d)(\{(\d+)\}|\{(\d+),(\d+)\}|\+)")


def _class_chars(body: str) -> str | None:
    """The characters of a bracket class like ``A-Za-z0-9_-``, or None if it is not that simple."""
    chars: list[str] = []
    i = 0
    while i < len(body):
        if i + 2 < len(body) and body[i + 1] == "-":
            lo, hi = body[i], body[i + 2]
            if not (lo.isascii() and hi.isascii() and lo.isalnum() and hi.isalnum() and lo <= hi):
                return None
            chars.extend(chr(c) for c in range(ord(lo), ord(hi) + 1))
            i += 3
        else:
            if body[i] in "^[\\&~|":
                return None
            chars.append(body[i])
            i += 1
    return "".join(sorted(set(chars)))


_UPPER = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
_LOWER = _UPPER.lower()
_DIGITS = "0123456789"

#: Classes that ``str`` predicates test exactly once ``isascii()`` holds (O(1) in CPython: a flag of the
#: string); each is False on "". Cheaper than ``strip`` (a mask built per call, then a search of the
#: class per character), above all on a miss: ``"jfk"`` fails ``isupper`` at once.
_PREDICATES = {
    _UPPER: "{v}.isupper() and {v}.isalpha()",  # ASCII letters, every cased one upper
    _LOWER: "{v}.islower() and {v}.isalpha()",
    "".join(sorted(_UPPER + _LOWER)): "{v}.isalpha()",
    "".join(sorted(_DIGITS + _UPPER + _LOWER)): "{v}.isalnum()",
    _DIGITS: "{v}.isdecimal()",
}


def _condition(atom: str, var: str, ascii_known: bool = False) -> tuple[str, bool] | None:
    """An expression True iff every character of ``var`` is in ``atom``'s class (``var`` known non-empty),
    and whether it is also False on "". ``ascii_known``: ``var`` is known to be an ASCII str, and only a
    class of :data:`_PREDICATES` is specialised (its test then skips ``isascii()``)."""
    if atom == "\\d":
        return None if ascii_known else (f"{var}.isdecimal()", True)  # re's \d on str is Unicode Nd, exactly str.isdecimal
    if not (atom.startswith("[") and atom.endswith("]")):
        return None
    chars = _class_chars(atom[1:-1])
    if not chars:
        return None
    predicate = _PREDICATES.get(chars)
    if predicate is not None:
        test = predicate.format(v=var)
        return (test if ascii_known else f"{var}.isascii() and {test}"), True
    if ascii_known:
        return None
    return f"not {var}.strip({py_literal(chars)})", False  # strip removes everything iff every char is in the class


@functools.lru_cache(maxsize=1024)  # a pattern recurs in every tool that uses its type (an Airport)
def specialise(pattern: str, var: str) -> str | None:
    r"""A boolean expression equal to ``re.fullmatch(pattern, var) is not None``, or ``None``.

    Handles one character class (ASCII ranges and literals, or ``\\d``) with ``{n}``,
    ``{m,n}`` or ``+``; everything else keeps the compiled regex.

    >>> specialise("[A-Z]{3}", "v")
    'len(v) == 3 and v.isascii() and v.isupper() and v.isalpha()'
    >>> specialise("[a-c_-]{2,8}", "v")
    "2 <= len(v) <= 8 and not v.strip('-_abc')"
    >>> specialise("\\d+", "s"), specialise("[A-Z]{3}|x", "v"), specialise("[^a]+", "v")
    ('s.isdecimal()', None, None)
    """
    return _specialise(pattern, var, False)


@functools.lru_cache(maxsize=1024)
def specialise_ascii(pattern: str, var: str) -> str | None:
    r"""For a pattern of one ASCII letter or digit class (``[A-Z]{3}``, ``[a-z]+``, ``[0-9]{4}`` ...): an
    expression that, for an ASCII ``str`` in ``var``, equals ``re.fullmatch(pattern, var) is not None``;
    else ``None``. Such a pattern matches only ASCII text, so a validator asks ``str.isascii(var)`` first,
    which is also its type check (a ``TypeError`` for anything but a ``str``).

    >>> specialise_ascii("[A-Z]{3}", "v"), specialise_ascii("\\d+", "v"), specialise_ascii("[a-c]+", "v")
    ('len(v) == 3 and v.isupper() and v.isalpha()', None, None)
    """
    return _specialise(pattern, var, True)


def _specialise(pattern: str, var: str, ascii_known: bool) -> str | None:
    m = _SHAPE.fullmatch(pattern)
    if m is None:
        return None
    found = _condition(m.group(1), var, ascii_known)
    if found is None:
        return None
    cond, false_on_empty = found
    if m.group(3) is not None:
        n = int(m.group(3))
        return f"len({var}) == {n} and {cond}" if n > 0 else None
    if m.group(4) is not None:
        lo, hi = int(m.group(4)), int(m.group(5))
        if lo == 0 or lo > hi:
            return None
        return f"{lo} <= len({var}) <= {hi} and {cond}"
    return cond if false_on_empty else f"len({var}) > 0 and {cond}"  # "+": at least one character
