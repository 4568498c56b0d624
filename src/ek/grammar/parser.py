"""Schema text -> syntax tree: the shared Lark parser and error recovery.

The Lark LALR parser is built once per process from ``ek.lark``. On a syntax
error the parser resumes at the next top-level statement, so one run reports
the first error of every broken statement rather than only the first overall.
"""

from __future__ import annotations

import contextlib
import functools
import gc
import re
from collections.abc import Iterator
from importlib import resources
from typing import Any

from lark import Lark
from lark.exceptions import UnexpectedInput

from ek.grammar.builder import BUILDER
from ek.grammar.diagnostics import Diagnostic, SchemaError
from ek.grammar.syntax import FileSyn
from ek.grammar.syntax_errors import syntax_diagnostic
from ek.limits import SYNTAX_ERRORS_REPORTED

MAX_SYNTAX_ERRORS = SYNTAX_ERRORS_REPORTED

_DECL_START = re.compile(r"(tool|type|grammar)\b(?![ \t]*[:?])")  # not `type: str`, an argument


@contextlib.contextmanager
def gc_paused() -> Iterator[None]:
    """Pause the cyclic garbage collector while a file is read.

    Parsing allocates many small objects that all stay alive; without this,
    each full collection walks the growing heap and parse time grows faster
    than the file. Nothing built here forms reference cycles worth collecting.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


@functools.cache
def lark_parser() -> Lark:
    """The one LALR parser of the DSL (built on first use, then shared).

    The syntax builder runs inside the parser (no parse tree is built). Lark's
    ``cache=True`` would save ~0.1 s per process but loads a pickle from the
    shared temp directory, which another local user could plant; not worth it.
    """
    grammar = resources.files("ek.grammar").joinpath("ek.lark").read_text(encoding="utf-8")
    return Lark(grammar, parser="lalr", lexer="contextual", maybe_placeholders=True, transformer=BUILDER)


def normalize(text: str) -> str:
    """Unify line endings and drop a byte-order mark; positions refer to the result."""
    if text.startswith("\ufeff"):
        text = text[1:]
    return text.replace("\r\n", "\n").replace("\r", "\n")


def parse_syntax(text: str, filename: str = "<string>") -> FileSyn:
    """Parse normalized ``text`` into a :class:`FileSyn`; raise :class:`SchemaError` on syntax errors."""
    lines = text.split("\n")
    diagnostics: list[Diagnostic] = []
    start_line = 1
    decls: list[Any] | None = None
    while True:
        chunk = "\n" * (start_line - 1) + "\n".join(lines[start_line - 1 :]) + "\n"
        BUILDER.begin(filename)
        try:
            decls = lark_parser().parse(chunk)  # type: ignore[assignment]  # the builder returns a list
            break
        except UnexpectedInput as exc:
            diag = syntax_diagnostic(exc, filename, lines, lark_parser())
            diagnostics.append(diag)
            resume = _resume_line(lines, diag.line, diag.column, start_line)
            if resume is None or len(diagnostics) >= MAX_SYNTAX_ERRORS:
                break
            start_line = resume
    if diagnostics:
        raise SchemaError(diagnostics, text)
    assert decls is not None
    return FileSyn(filename, tuple(decls), tuple(BUILDER.token_errors))


def too_deep(filename: str, text: str) -> SchemaError:
    """The error for types nested beyond what the parser's recursion can follow."""
    return SchemaError([Diagnostic(filename, 1, 1, "types are nested too deeply to read")], text)


def _resume_line(lines: list[str], error_line: int, error_column: int, start_line: int) -> int | None:
    """The next line after ``error_line`` that starts a top-level statement, or None."""
    first = max(error_line, start_line) + 1
    if error_line > start_line and error_column == 1 and _DECL_START.match(lines[error_line - 1]):
        first = error_line  # the error *is* the start of the next statement (e.g. a missing '}')
    for number in range(first, len(lines) + 1):
        if _DECL_START.match(lines[number - 1]):
            return number
    return None
