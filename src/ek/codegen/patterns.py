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


def _condition(atom: str, var: str) -> str | None:
    """True iff every character of ``var`` is in ``atom``'s class (``var`` known non-empty)."""
    if atom == "\\d":
        return f"{var}.isdecimal()"  # re's \d on str is Unicode Nd, exactly str.isdecimal
    if not (atom.startswith("[") and atom.endswith("]")):
        return None
    chars = _class_chars(atom[1:-1])
    if not chars:
        return None
    return f"not {var}.strip({py_literal(chars)})"  # strip removes everything iff every char is in the class


@functools.lru_cache(maxsize=1024)  # a pattern recurs in every tool that uses its type (an Airport)
def specialise(pattern: str, var: str) -> str | None:
    r"""A boolean expression equal to ``re.fullmatch(pattern, var) is not None``, or ``None``.

    Handles one character class (ASCII ranges and literals, or ``\\d``) with ``{n}``,
    ``{m,n}`` or ``+``; everything else keeps the compiled regex.

    >>> specialise("[A-Z]{3}", "v")
    "len(v) == 3 and not v.strip('ABCDEFGHIJKLMNOPQRSTUVWXYZ')"
    >>> specialise("\\d+", "s"), specialise("[A-Z]{3}|x", "v"), specialise("[^a]+", "v")
    ('s.isdecimal()', None, None)
    """
    m = _SHAPE.fullmatch(pattern)
    if m is None:
        return None
    cond = _condition(m.group(1), var)
    if cond is None:
        return None
    if m.group(3) is not None:
        n = int(m.group(3))
        return f"len({var}) == {n} and {cond}" if n > 0 else None
    if m.group(4) is not None:
        lo, hi = int(m.group(4)), int(m.group(5))
        if lo == 0 or lo > hi:
            return None
        return f"{lo} <= len({var}) <= {hi} and {cond}"
    return cond if atom_is_digit(m.group(1)) else f"len({var}) > 0 and {cond}"  # "+": at least one character


def atom_is_digit(atom: str) -> bool:
    return atom == "\\d"  # str.isdecimal() is already False on ""
