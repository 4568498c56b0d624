"""Small building blocks for generated source: indented lines and JSON-path expressions."""

from __future__ import annotations

from collections.abc import Callable

import attrs

from ek.grammar.names import path_segment

_INDENTS = tuple("    " * n for n in range(32))


class Lines:
    """Indented source lines, built with ``line`` and ``block`` context managers.

    >>> code = Lines()
    >>> with code.block("if x:"):
    ...     code.line("y = 1")
    >>> print(code.text())
    if x:
        y = 1
    """

    def __init__(self, level: int = 0, mark: str = "") -> None:
        self.lines: list[str] = []
        self.level = level
        self._fresh: dict[str, int] = {}
        self._mark = mark  # written around each fresh name (``\x01v3\x01``), for whoever wants to find them

    def line(self, text: str) -> None:
        try:
            indent = _INDENTS[self.level]
        except IndexError:  # deeper than the table holds
            indent = "    " * self.level
        self.lines.append(indent + text)

    def block(self, header: str) -> Lines:
        """``header`` (``if x:``), then what is written inside the ``with`` one level deeper."""
        try:
            indent = _INDENTS[self.level]
        except IndexError:
            indent = "    " * self.level
        self.lines.append(indent + header)
        return self

    def fresh(self, prefix: str) -> str:
        """A new local variable name (``v0``, ``v1`` ...), unique within this body (between marks, if given)."""
        n = self._fresh.get(prefix, 0)
        self._fresh[prefix] = n + 1
        return f"{self._mark}{prefix}{n}{self._mark}"

    def text(self) -> str:
        return "\n".join(self.lines)

    # The ``with`` of :meth:`block` is the object itself: no generator (``contextlib.contextmanager`` costs twice
    # as much, and a thousand-tool module opens tens of thousands of blocks), and no helper object holding it
    # back (a reference cycle, which kept every validator's lines until the collector found them).
    def __enter__(self) -> None:
        self.level += 1

    def __exit__(self, *exc: object) -> None:
        self.level -= 1


@attrs.frozen
class PathExpr:
    """A JSON-path-like location as a Python expression: literal pieces and loop indexes.

    >>> PathExpr.root().key("items").index("i0").key("max-results").code()
    '(\\'$.items[\\', i0, \\']["max-results"]\\')'
    """

    parts: tuple[tuple[str, str], ...]  # ("lit", text) and ("var", name), no two literals in a row

    @classmethod
    def root(cls) -> PathExpr:
        return cls((("lit", "$"),))

    def _then(self, text: str) -> tuple[tuple[str, str], ...]:
        last = self.parts[-1]
        if last[0] == "lit":
            return self.parts[:-1] + (("lit", last[1] + text),)
        return self.parts + (("lit", text),)

    def key(self, name: str) -> PathExpr:
        return PathExpr(self._then(path_segment(name)))

    def index(self, var: str) -> PathExpr:
        return PathExpr(self._then("[") + (("var", var), ("lit", "]")))

    @property
    def is_static(self) -> bool:
        """True when the location has no list index in it (a constant)."""
        return len(self.parts) == 1

    def text(self) -> str:
        """The location for messages, list indexes shown as ``[*]``.

        >>> PathExpr.root().key("a").index("i0").key("b").text()
        '$.a[*].b'
        """
        if len(self.parts) == 1:  # a constant (no list index): its one piece is the text
            return self.parts[0][1]
        return "".join(text if kind == "lit" else "*" for kind, text in self.parts)

    def code(self) -> str:
        """The location as an expression: a ``str`` literal when static, else a tuple of pieces
        (literals and loop indexes) that ``ek.runtime.Violation`` joins only when its path is read.

        >>> PathExpr.root().key("a").code(), PathExpr.root().key("a").index("i0").code()
        ("'$.a'", "('$.a[', i0, ']')")
        """
        return self.code_with(repr)

    def code_with(self, literal: Callable[[str], str]) -> str:
        """:meth:`code`, each literal piece written by ``literal``."""
        if len(self.parts) == 1:
            return literal(self.parts[0][1])
        return "(" + ", ".join([literal(text) if kind == "lit" else text for kind, text in self.parts]) + ")"
