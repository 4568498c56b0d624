"""Schema text -> syntax tree: the shared Lark parser and error recovery.

The Lark LALR parser is built once per process from ``ek.lark`` (its tables cached on disk). A text is
read with its tables by :mod:`ek.grammar.fastparse` first (the same result, without Lark's per-token
machinery); only a text with a syntax error is parsed by Lark itself, whose exception says where. On a syntax
error the parser resumes at the next top-level statement, so one run reports
the first error of every broken statement rather than only the first overall.
"""

from __future__ import annotations

import contextlib
import functools
import gc
import hashlib
import importlib.util
import io
import pickle
import re
import sys
from collections.abc import Iterator
from importlib import resources
from pathlib import Path
from typing import Any

import lark
from lark import Lark
from lark.exceptions import UnexpectedInput
from lark.grammar import Rule
from lark.lexer import TerminalDef

from ek.atomicfile import write_bytes_atomic
from ek.grammar.builder import BUILDER
from ek.grammar.diagnostics import Diagnostic, SchemaError
from ek.grammar.fastparse import parse_fast
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


#: How the DSL's parser is built; part of the key of its cached tables.
_LARK_OPTIONS: dict[str, Any] = {"parser": "lalr", "lexer": "contextual", "maybe_placeholders": True}


@functools.cache
def lark_parser() -> Lark:
    """The one LALR parser of the DSL (built on first use, then shared).

    The syntax builder runs inside the parser (no parse tree is built). Building the LALR tables
    takes ~0.17 s; :func:`_cached_tables` keeps them next to this package's bytecode, so later
    processes load them in a few milliseconds.
    """
    grammar = resources.files("ek.grammar").joinpath("ek.lark").read_text(encoding="utf-8")
    cache = _tables_path(grammar)
    cached = _cached_tables(cache)
    if cached is not None:
        return cached
    parser = Lark(grammar, **_LARK_OPTIONS, transformer=BUILDER)
    if cache is not None and not sys.dont_write_bytecode:
        _save_tables(parser, cache)
    return parser


def _tables_path(grammar: str) -> Path | None:
    """Where the parser's tables are cached: the ``__pycache__`` folder of this module's bytecode
    (``sys.pycache_prefix`` respected), named by a digest of everything they are built from (the
    grammar's text, Lark's version and options, Python's version), so a change of any makes a new
    file instead of reading a stale one. None when this module has no file (a zip import).

    Why a pickle is safe to load from there, unlike Lark's own ``cache=True`` (a file in the shared
    temp folder, which another local user could plant): whoever can write this package's
    ``__pycache__`` can already replace its bytecode, so reading it trusts no one new."""
    if not __file__ or not Path(__file__).is_file():  # pragma: no cover - imported from a zip
        return None
    digest = hashlib.sha256(
        "\0".join([grammar, lark.__version__, repr(sorted(_LARK_OPTIONS.items())), sys.version]).encode("utf-8")
    ).hexdigest()[:20]
    return Path(importlib.util.cache_from_source(__file__)).parent / f"ek.lark.{digest}.pickle"


def _cached_tables(path: Path | None) -> Lark | None:
    """The parser loaded from ``path``, with the builder attached; None when there is no usable file
    (missing, unreadable, or written by a Lark that reads differently: it is then rebuilt)."""
    if path is None:
        return None
    try:
        data = path.read_bytes()
    except OSError:
        return None
    try:
        return Lark.__new__(Lark)._load(io.BytesIO(data), transformer=BUILDER)  # Lark.load takes no transformer
    except Exception:  # noqa: BLE001 - any failure to read a cache means: build the parser instead
        return None


def _save_tables(parser: Lark, path: Path) -> None:
    """Write the parser's tables (not the builder: it is attached when loaded) to ``path`` in one step,
    so a process reading it at the same time sees no file or a whole one. A folder that cannot be
    written (a read-only install) only means every process builds the parser."""
    data, memo = parser.memo_serialize([TerminalDef, Rule])
    data["options"] = {name: value for name, value in data["options"].items() if name != "transformer"}
    try:
        write_bytes_atomic(path, pickle.dumps({"data": data, "memo": memo}, protocol=pickle.HIGHEST_PROTOCOL))
    except OSError:
        pass


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
        decls = parse_fast(lark_parser(), chunk)  # Lark's parse, its per-token machinery left out
        if decls is not None:
            break
        BUILDER.begin(filename)  # a syntax error: Lark's parse says which (escape errors are found again)
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
