"""What a conversion could not carry over: each a JSON path and a message, never dropped silently."""

from __future__ import annotations

import re

import attrs

_DOTTABLE = re.compile(r"[A-Za-z_$][\w$]*")


@attrs.frozen
class Issue:
    """One thing a schema says that the target cannot (``warning``), or that stops a tool (``error``)."""

    path: str
    message: str
    severity: str = "warning"

    def __str__(self) -> str:
        return f"{self.path}: {self.severity}: {self.message}"


class Issues:
    """An append-only list of :class:`Issue` that conversions report into."""

    def __init__(self) -> None:
        self.items: list[Issue] = []

    def warn(self, path: str, message: str) -> None:
        self.items.append(Issue(path, message, "warning"))

    def error(self, path: str, message: str) -> None:
        self.items.append(Issue(path, message, "error"))


def child(path: str, key: str | int) -> str:
    """The JSON path of ``key`` under ``path``.

    >>> child("$.tools[0]", "parameters"), child("$", 3), child("$.p", "max-results"), child("$.x", "$ref")
    ('$.tools[0].parameters', '$[3]', "$.p['max-results']", '$.x.$ref')
    """
    if isinstance(key, int):
        return f"{path}[{key}]"
    if type(key) is str and key.isascii() and key.isidentifier():
        # fast path: an ASCII identifier (``parameters``, most property names) is dottable, as the regex
        # below would say ([A-Za-z_][A-Za-z0-9_]* is inside [A-Za-z_$][\w$]*), without a match object
        return f"{path}.{key}"
    if _DOTTABLE.fullmatch(key):
        return f"{path}.{key}"
    return f"{path}[{key!r}]"
