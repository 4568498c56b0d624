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
from collections.abc import Collection, Iterable
from typing import Any

from ek.grammar.reprs import short_repr
from ek.grammar.strings import UNSHOWN_CHARACTERS

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
    ident = name if _is_plain_identifier(name) else _escaped(name)
    if keyword.iskeyword(ident) or keyword.issoftkeyword(ident) or ident in RESERVED:
        ident += "_"
    return ident


#: What :func:`safe_identifier` adds ``_`` to.
_SUFFIXED = frozenset(keyword.kwlist) | frozenset(keyword.softkwlist) | RESERVED


def is_own_safe_identifier(name: str) -> bool:
    """Whether ``safe_identifier(name) == name``, without building it (a property of every BFCL question
    asks): a plain ASCII identifier (:func:`_is_plain_identifier`) that is no keyword, soft keyword or
    reserved name. Any other name is changed by :func:`_escaped` (a character replaced, an ``x`` put in
    front, an empty name made ``x``) or gets a ``_``. tests/grammar/test_grammar_fast_paths.py holds it to
    ``safe_identifier``.

    >>> is_own_safe_identifier("city"), is_own_safe_identifier("from"), is_own_safe_identifier("max-n")
    (True, False, False)
    """
    return _is_plain_identifier(name) and name not in _SUFFIXED


#: An ASCII identifier that starts with a letter: :func:`_escaped` gives it back as it is.
_PLAIN_IDENTIFIER = re.compile(r"[A-Za-z][A-Za-z0-9_]*")


def _is_plain_identifier(name: str) -> bool:
    """Fast path of :func:`safe_identifier`: a name that is already an ASCII identifier not starting
    with ``_`` or a digit (most tool and argument names) skips :func:`_escaped`'s walk over its
    characters. Safe because that walk keeps such a name's every character and adds no ``x``.

    What :data:`_PLAIN_IDENTIFIER` matches, asked of the string's own methods (a regex match costs a
    match object; this is called for every tool and argument name of every BFCL question): an ASCII
    string is an identifier exactly when it matches ``[A-Za-z_][A-Za-z0-9_]*``, and not starting with
    ``_`` leaves ``[A-Za-z][A-Za-z0-9_]*`` (an empty name is no identifier). A ``str`` subclass, which
    may redefine those methods, takes the regex. tests/grammar/test_grammar_fast_paths.py holds the two
    to each other.
    """
    if type(name) is str:
        return name.isascii() and name.isidentifier() and name[0] != "_"
    return _PLAIN_IDENTIFIER.fullmatch(name) is not None


#: An ASCII character :func:`_escaped` replaces with ``_``: not a letter, a digit or ``_``.
_NOT_IDENTIFIER_ASCII = re.compile(r"[^A-Za-z0-9_]")


def _escaped(name: str) -> str:
    """``name`` with every character that is not an ASCII letter, digit or ``_`` replaced (``_``, or
    ``_u00e9`` beyond ASCII), and an ``x`` in front when it would start with ``_`` or a digit.

    Fast path for an ASCII name (``math.hypot``, ``max-results``: BFCL's dotted names): its replacements
    made by one substitution in C instead of a step per character. Safe because an ASCII character is a
    letter or a digit for ``str.isalnum`` exactly when it is in ``[A-Za-z0-9]``.
    """
    if name.isascii():
        ident = _NOT_IDENTIFIER_ASCII.sub("_", name) or "x"
        return "x" + ident if ident[0] == "_" or ident[0].isdigit() else ident
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
    return ident


#: What a name may not hold: control characters (NUL, ESC, DEL, C1), line and paragraph separators,
#: and the bidirectional overrides that make text display in another order than it reads.
_NOT_IN_NAMES = re.compile(f"[{UNSHOWN_CHARACTERS}]")


def unfit_character(name: str) -> str | None:
    """The first character a name may not hold (a control character, a line separator, a bidi override),
    as ``U+001B``; None when there is none. Such a name would reach terminals, file names and tool-call
    APIs that either refuse it or let it rewrite what is displayed.

    >>> unfit_character("search_flights"), unfit_character("a\\x00b"), unfit_character("a\\u202eb")
    (None, 'U+0000', 'U+202E')
    """
    if type(name) is str and name.isascii() and name.isprintable():
        # fast path: every character a name may not hold is an ASCII control character (not printable) or
        # not ASCII, so a printable ASCII name (most tool and argument names) holds none, without a search
        return None
    found = _NOT_IN_NAMES.search(name)
    return None if found is None else f"U+{ord(found.group()):04X}"


_PATH_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def path_segment(name: str) -> str:
    """How an argument name shows in a violation path: ``.name`` for ASCII identifiers, else ``["quoted"]``.

    >>> path_segment("origin"), path_segment("max-results")
    ('.origin', '["max-results"]')
    """
    if type(name) is str and name.isascii() and name.isidentifier():
        # fast path: an ASCII string is an identifier exactly when it matches _PATH_IDENT below, so this
        # says what the regex says without a match object (gold checks and violations ask it per argument)
        return "." + name
    if _PATH_IDENT.fullmatch(name):
        return "." + name
    return "[" + json.dumps(name, ensure_ascii=False) + "]"


def key_segment(name: object) -> str:
    """The path segment for an object key: ``.name`` for identifiers, else ``["quoted"]``; a key that is not a
    string (a mapping handed in from Python) shows by :func:`~ek.grammar.reprs.short_repr`.

    >>> key_segment("origin"), key_segment("max-results"), key_segment(3)
    ('.origin', '["max-results"]', '[3]')
    """
    if isinstance(name, str):
        return path_segment(name)
    return "[" + short_repr(name) + "]"


def unknown_keys(keys: Iterable[Any], known: Collection[Any]) -> list[Any]:
    """The keys that are not ``known``, in the order violations list them: sorted by how they show
    (:func:`~ek.grammar.reprs.short_repr`), so the output is stable whatever order they came in.

    >>> unknown_keys(["zz", "a", 3, "b"], {"a"})
    ['b', 'zz', 3]
    """
    return sorted([k for k in keys if k not in known], key=short_repr)
