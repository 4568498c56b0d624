"""Optional dependencies (the extras of ``pip install 'ek[...]'``): what to tell a user whose import failed.

An optional import fails in two ways that need different advice: the package is not installed (install the
extra), or it is installed but one of its own imports fails (a package it needs and did not declare, a
broken install: installing the extra again may not help, and the name of what is missing is the clue).
Ray Data on Python 3.13 is the second kind: it imports ``typing_extensions`` without requiring it.

>>> try:
...     import ek_no_such_package
... except ImportError as exc:
...     print(import_failure(exc, "ek_no_such_package", "this needs it: pip install 'ek[demo]'"))
this needs it: pip install 'ek[demo]'
"""

from __future__ import annotations


def import_failure(exc: ImportError, package: str, hint: str) -> str:
    """The message for ``exc``, raised while importing the optional ``package`` whose extra ``hint`` names.

    ``hint`` alone when ``package`` itself is missing; when something else failed (a module ``package``
    imports, or ``package`` failing as it loads), which one and why, after the hint.
    """
    missing = exc.name or ""
    if isinstance(exc, ModuleNotFoundError) and missing.partition(".")[0] == package:
        return hint
    return f"{hint} ({package} is installed, but importing it failed: {exc})"


__all__ = ["import_failure"]
