"""Turning schema names (any string) into safe Python identifiers for generated code.

Schema names stay data; only the result of :func:`safe_identifier` ever
appears as an identifier in generated source. The result is always ASCII
(so Unicode look-alikes that NFKC-normalise to the same identifier cannot
sneak in), never a keyword, never starts with an underscore (no name mangling,
no dunders, no attrs private-name stripping) and never a digit.
"""

from __future__ import annotations

import json
import keyword
import re

#: Identifiers generated code reserves for itself inside classes and functions.
RESERVED = frozenset({"self", "cls", "args", "errors", "value", "path"})


def safe_identifier(name: str) -> str:
    """A deterministic ASCII identifier for ``name``.

    >>> safe_identifier("search_flights")
    'search_flights'
    >>> safe_identifier("math.hypot"), safe_identifier("from"), safe_identifier("max-results")
    ('math_hypot', 'from_', 'max_results')
    >>> safe_identifier("__class__"), safe_identifier("2fa"), safe_identifier("café")
    ('x__class__', 'x2fa', 'caf_u00e9')
    """
    out: list[str] = []
    for ch in name:
        if ch.isascii() and (ch.isalnum() or ch == "_"):
            out.append(ch)
        elif ch.isascii():
            out.append("_")
        else:
            out.append(f"_u{ord(ch):04x}")
    ident = "".join(out) or "x"
    if ident[0] == "_" or ident[0].isdigit():
        ident = "x" + ident
    if keyword.iskeyword(ident) or keyword.issoftkeyword(ident) or ident in RESERVED:
        ident += "_"
    return ident


_PATH_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def path_segment(name: str) -> str:
    """How an argument name shows in a violation path: ``.name`` for ASCII identifiers, else ``["quoted"]``.

    >>> path_segment("origin"), path_segment("max-results")
    ('.origin', '["max-results"]')
    """
    if _PATH_IDENT.fullmatch(name):
        return "." + name
    return "[" + json.dumps(name, ensure_ascii=False) + "]"
