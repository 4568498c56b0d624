"""String canonicalizers: how two string values are brought to a comparable form.

A canonicalizer is any ``str -> str`` callable. Three are built in and can be
selected by name: ``"fold"`` (the default), ``"exact"`` and ``"bfcl"``.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable

from ek.limits import CANON_CACHE_ENTRIES, CANON_CACHE_MAX_CHARS

Canonicalizer = Callable[[str], str]

_WHITESPACE_RUN = re.compile(r"\s+")
# BFCL's standardisation drops these characters before a lower-case compare.
_BFCL_DROPPED = re.compile(r"[ ,./\-_*^]")


def _keep(forms: dict[str, str], text: str, form: str) -> None:
    """Keep a short string's canonical form (long ones are not kept: :data:`ek.limits.CANON_CACHE_MAX_CHARS`).

    A full cache is emptied and refilled: the forms of the strings met since are kept, at the cost of
    one pass over a dict, where a least-recently-used cache would pay on every hit.
    """
    if len(text) <= CANON_CACHE_MAX_CHARS and len(form) <= CANON_CACHE_MAX_CHARS:
        if len(forms) >= CANON_CACHE_ENTRIES:
            forms.clear()
        forms[text] = form


#: Folded forms of short strings (corpora and RL groups repeat the same strings; folding is pure).
_FOLDED: dict[str, str] = {}


def fold(text: str) -> str:
    """Unicode-normalise (NFKC), case-fold, fold whitespace runs to one space, strip the ends.

    NFKC makes the same text in two encodings equal (``"e\\u0301"`` and ``"é"``)
    and also its compatibility forms: full-width letters, ligatures, ``℃``;
    so ``"x²"`` folds to ``"x2"`` (use ``compare exact`` where that matters).
    Case folding is Unicode's default, language-independent one: ``İ`` folds
    to ``i`` plus a combining dot (U+0307), never to a plain ``i``, as fold
    keeps accents. NFKC is applied again after case folding, so the result is
    normalised and ``fold(fold(x)) == fold(x)``.

    >>> fold("  New\\tYORK  city ")
    'new york city'
    >>> fold("Straße") == fold("STRASSE"), fold("ＮＹＣ") == fold("nyc"), fold("Cafe\\u0301") == fold("Café")
    (True, True, True)
    >>> fold("İstanbul") == fold("i\\u0307stanbul"), fold("İstanbul") == fold("istanbul")
    (True, False)
    """
    folded = _FOLDED.get(text)
    if folded is None:
        folded = _fold(text)
        _keep(_FOLDED, text, folded)
    return folded


fold.cache_clear = _FOLDED.clear  # type: ignore[attr-defined]  # as lru_cache's: benchmarks start from a cold cache


def _fold(text: str) -> str:
    if text.isascii():  # ASCII is already NFKC, and its case folding is lower()
        return _WHITESPACE_RUN.sub(" ", text.lower()).strip()
    folded = unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", text).casefold())
    return _WHITESPACE_RUN.sub(" ", folded).strip()


def exact(text: str) -> str:
    """No change: strings must be identical.

    >>> exact(" A ")
    ' A '
    """
    return text


#: BFCL-standardised forms of short strings.
_STANDARDISED: dict[str, str] = {}


def bfcl(text: str) -> str:
    """BFCL's string standardisation: drop spaces and ``,./-_*^``, lower-case, ``'`` -> ``"``.

    >>> bfcl("San Francisco, CA") == bfcl("san-francisco ca")
    True
    """
    form = _STANDARDISED.get(text)
    if form is None:
        form = _BFCL_DROPPED.sub("", text).lower().replace("'", '"')
        _keep(_STANDARDISED, text, form)
    return form


bfcl.cache_clear = _STANDARDISED.clear  # type: ignore[attr-defined]


CANONICALIZERS: dict[str, Canonicalizer] = {"fold": fold, "exact": exact, "bfcl": bfcl}

#: The canonicalizer used when none is given.
default_canonicalizer: Canonicalizer = fold


def get_canonicalizer(spec: str | Canonicalizer | None) -> Canonicalizer:
    """Resolve a canonicalizer given by name, as a callable, or ``None`` (the default).

    >>> get_canonicalizer("exact") is exact
    True
    >>> get_canonicalizer("lower")
    Traceback (most recent call last):
    ...
    ValueError: unknown canonicalizer 'lower'; choose one of: bfcl, exact, fold, or pass a str -> str callable
    """
    if spec is None:
        return default_canonicalizer
    if isinstance(spec, str):
        try:
            return CANONICALIZERS[spec]
        except KeyError:
            names = ", ".join(sorted(CANONICALIZERS))
            raise ValueError(
                f"unknown canonicalizer {spec!r}; choose one of: {names}, or pass a str -> str callable"
            ) from None
    if callable(spec):
        return spec
    raise TypeError(f"canonicalizer must be a name or a str -> str callable, got {type(spec).__name__}")
