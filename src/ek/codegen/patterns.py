"""Specialising simple regexes into ``str`` method calls, which beat ``re`` several times over.

Only patterns whose meaning is certain are specialised; everything else keeps
``re.fullmatch`` from the module's compiled-pattern table.
"""

from __future__ import annotations

import re

#: character class -> condition on the whole string (all chars in the class, string non-empty).
_CLASSES: dict[str, str] = {
    "[A-Z]": "{v}.isascii() and {v}.isalpha() and {v}.isupper()",
    "[a-z]": "{v}.isascii() and {v}.isalpha() and {v}.islower()",
    "[A-Za-z]": "{v}.isascii() and {v}.isalpha()",
    "[a-zA-Z]": "{v}.isascii() and {v}.isalpha()",
    "[0-9]": "{v}.isascii() and {v}.isdecimal()",
    "\\d": "{v}.isdecimal()",
    "[A-Za-z0-9]": "{v}.isascii() and {v}.isalnum()",
    "[a-zA-Z0-9]": "{v}.isascii() and {v}.isalnum()",
}

_SHAPE = re.compile(r"(\[[A-Za-z0-9-]+\]|\\d)(\{(\d+)\}|\{(\d+),(\d+)\}|\+)")


def specialise(pattern: str, var: str) -> str | None:
    """A boolean expression equal to ``re.fullmatch(pattern, var) is not None``, or ``None``.

    >>> specialise("[A-Z]{3}", "v")
    'len(v) == 3 and v.isascii() and v.isalpha() and v.isupper()'
    >>> specialise("\\\\d+", "s"), specialise("[A-Z]{3}|x", "v")
    ('s.isdecimal()', None)
    """
    m = _SHAPE.fullmatch(pattern)
    if m is None or m.group(1) not in _CLASSES:
        return None
    cond = _CLASSES[m.group(1)].format(v=var)
    if m.group(3) is not None:
        n = int(m.group(3))
        if n == 0:
            return None
        return f"len({var}) == {n} and {cond}"
    if m.group(4) is not None:
        lo, hi = int(m.group(4)), int(m.group(5))
        if lo == 0 or lo > hi:
            return None
        return f"{lo} <= len({var}) <= {hi} and {cond}"
    return cond  # "+": the str methods are False on "", which is what "+" needs
