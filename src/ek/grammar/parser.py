"""Schema text -> syntax tree, with syntax errors in words a user understands.

The Lark LALR parser is built once per process from ``ek.lark``. On a syntax
error the parser resumes at the next top-level statement, so one run reports
the first error of every broken statement rather than only the first overall.
"""

from __future__ import annotations

import contextlib
import functools
import gc
import math
import re
import threading
from collections.abc import Iterator
from importlib import resources
from typing import Any

from lark import Lark, Token, Transformer
from lark.exceptions import UnexpectedCharacters, UnexpectedEOF, UnexpectedInput, UnexpectedToken

from ek.grammar.diagnostics import Diagnostic, SchemaError, did_you_mean
from ek.grammar.model import Location
from ek.grammar.strings import EscapeError, decode_pattern, decode_string, parse_number
from ek.grammar.syntax import (
    ArgSyn,
    BodySyn,
    CompareSyn,
    DocSyn,
    FileSyn,
    HeaderSyn,
    Lit,
    Num,
    OptionSyn,
    PatternSyn,
    RangeSyn,
    ToolSyn,
    TypeDeclSyn,
    TypeSyn,
)

#: At most this many syntax errors are reported for one file.
MAX_SYNTAX_ERRORS = 50

_DECL_START = re.compile(r"(tool|type|grammar)\b")


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
    return Lark(grammar, parser="lalr", lexer="contextual", maybe_placeholders=True, transformer=_BUILDER)


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
        _BUILDER.begin(filename)
        try:
            decls = lark_parser().parse(chunk)  # type: ignore[assignment]  # the builder returns a list
            break
        except UnexpectedInput as exc:
            diag = _syntax_diagnostic(exc, filename, lines)
            diagnostics.append(diag)
            resume = _resume_line(lines, diag.line, diag.column, start_line)
            if resume is None or len(diagnostics) >= MAX_SYNTAX_ERRORS:
                break
            start_line = resume
    if diagnostics:
        raise SchemaError(diagnostics, text)
    assert decls is not None
    return FileSyn(filename, tuple(decls), tuple(_BUILDER.token_errors))


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


# --- friendly syntax errors ---------------------------------------------------

_WORDS = {
    "NAME": "a name",
    "NUMBER": "a number",
    "STRING": "a quoted string",
    "LONG_STRING": 'a """doc string"""',
    "PATTERN": "a /regex/",
    "_NL": "end of line",
    "$END": "end of file",
}

_TYPE_HINT = "str, int, float, bool, date, datetime, any, enum(...), list[...], { ... } or a declared type name"
_POLICY_HINT = "fold, exact, bfcl, tol(X), unordered or ignore"


def _word(terminal: str) -> str:
    if terminal in _WORDS:
        return _WORDS[terminal]
    term = lark_parser().get_terminal(terminal) if terminal in _terminal_names() else None
    if term is not None and term.pattern.type == "str":
        return f"'{term.pattern.value}'"
    return terminal.lower()


@functools.cache
def _terminal_names() -> frozenset[str]:
    return frozenset(t.name for t in lark_parser().terminals)


def _describe_token(tok: Token) -> str:
    if tok.type == "$END":
        return "end of file"
    if tok.type == "_NL":
        return "end of line"
    value = str(tok.value)
    return repr(value if len(value) <= 30 else value[:27] + "...")


def _previous(exc: UnexpectedToken) -> Any:
    state = getattr(exc, "state", None) or getattr(getattr(exc, "interactive_parser", None), "parser_state", None)
    stack = getattr(state, "value_stack", None) or []
    return stack[-1] if stack else None


def _prev_text(prev: Any) -> str | None:
    if isinstance(prev, Token):
        return str(prev.value)
    if _is_name(prev):
        return prev[0]
    return None


def _is_name(value: Any) -> bool:
    """A reduced ``name`` rule: ``(text, Location)``."""
    return isinstance(value, tuple) and len(value) == 2 and isinstance(value[1], Location)


def _accepted(exc: UnexpectedToken) -> set[str]:
    """What the parser really accepts here (LALR's merged states over-report ``exc.expected``)."""
    expected = set(exc.expected)
    interactive = getattr(exc, "interactive_parser", None)
    if interactive is not None:
        try:
            expected = set(interactive.accepts())
        except Exception:  # pragma: no cover - fall back to Lark's own (wider) set
            pass
    return expected - {"$END"} if exc.token.type != "$END" else expected


def _token_message(exc: UnexpectedToken) -> str:
    """A sentence for an unexpected token, from what the parser expected and what came before."""
    expected = _accepted(exc)
    got = _describe_token(exc.token)
    prev = _previous(exc)
    prev_text = _prev_text(prev)
    prev_kind = prev.type if isinstance(prev, Token) else ("name" if _is_name(prev) else None)

    if exc.token.type == "$END":
        if "RBRACE" in expected:
            return "unexpected end of file: a '{' is not closed with '}'"
        return "unexpected end of file"
    if expected == {"COLON"}:
        if prev_text in ("tool", "type", "grammar"):
            return f"expected '}}' before '{prev_text}': the body above is not closed"
        if prev_kind == "name" or prev_kind in ("NAME", "STRING"):
            return f"expected ':' after argument name {prev_text!r}, got {got}"
        return f"expected ':', got {got}"
    if "ENUM" in expected and "LIST" in expected:
        return f"expected a type ({_TYPE_HINT}), got {got}"
    if prev_kind == "TOOL":
        return f"expected a tool name after 'tool', got {got}"
    if prev_kind == "GRAMMAR":
        return f"expected the grammar name after 'grammar', got {got}"
    if prev_kind == "TYPE":
        return f"expected a type name after 'type', got {got}"
    if prev_kind == "COMPARE":
        return f"expected a compare policy after 'compare' ({_POLICY_HINT}), got {got}"
    if prev_kind in ("WEIGHT", "IMPORTANCE"):
        return f"expected a number after '{prev_text}', got {got}"
    if prev_kind == "EQUAL" and "NUMBER" in expected:
        return f"expected a default value after '=' (a number, \"string\", name, [list] or {{object}}), got {got}"
    if expected == {"NUMBER"}:  # weight and importance are handled above: this is the header
        return f"expected a version number after the grammar name, got {got}"
    if expected == {"EQUAL"}:
        return f"expected '=' after the type name, got {got}"
    if "LBRACE" in expected and "WEIGHT" in expected:
        return f"expected '{{' to open the body of tool {prev_text!r} (or 'weight N' before it), got {got}"
    if expected == {"LBRACE"}:
        return f"expected '{{' to open the tool body, got {got}"
    if {"GRAMMAR", "TOOL", "TYPE"} <= expected:
        return f"expected 'grammar', 'type' or 'tool' at the start of a statement, got {got}"
    if "_NL" in expected and ("IMPORTANCE" in expected or "COMPARE" in expected):
        return (
            f"unexpected {got} after the argument's type; expected '?', '= DEFAULT', 'importance N', "
            f"'compare POLICY', a doc string or end of line"
        )
    if "_NL" in expected and exc.token.type != "_NL" and expected <= {"_NL", "RBRACE", "STRING", "LONG_STRING"}:
        return f"unexpected {got}: put one statement or argument per line"
    if expected <= {"NAME", "STRING", "LONG_STRING", "RBRACE", "_NL"} and "RBRACE" in expected:
        return f"expected an argument name or '}}', got {got}"
    if "__ANON_0" in expected or prev_kind == "LSQB" and "NUMBER" in expected:
        return f"expected a range like [1..9], [1..] or [..9], got {got}"
    words = sorted(_word(t) for t in expected)
    return f"unexpected {got}; expected " + (words[0] if len(words) == 1 else "one of " + ", ".join(words))


def _syntax_diagnostic(exc: UnexpectedInput, filename: str, lines: list[str]) -> Diagnostic:
    line = getattr(exc, "line", None)
    column = getattr(exc, "column", None)
    length = 1
    suggestion = None
    if isinstance(exc, UnexpectedToken):
        message = _token_message(exc)
        tok = exc.token
        suggestion = _keyword_hint(exc)
        if suggestion:
            message += f"; did you mean '{suggestion}'?"
        if tok.type != "$END" and tok.type != "_NL" and tok.end_line == tok.line and tok.end_column:
            length = tok.end_column - tok.column
    elif isinstance(exc, UnexpectedCharacters):
        char = exc.char
        if char == '"':
            message = "unterminated string: a \"...\" string must close on the same line (use \"\"\"...\"\"\" for more lines)"
        elif char == "/":
            message = "unterminated or empty /regex/: it must close on the same line"
        else:
            message = f"unexpected character {char!r}"
            allowed = {t for t in (exc.allowed or ()) if t != "$END"}
            if allowed:
                message += "; expected " + ", ".join(sorted(_word(t) for t in allowed))
    elif isinstance(exc, UnexpectedEOF):  # pragma: no cover - LALR reports EOF as an UnexpectedToken
        message = "unexpected end of file"
    else:  # pragma: no cover
        message = str(exc).splitlines()[0]
    if not isinstance(line, int) or line < 1:
        line = len(lines)
        column = len(lines[-1]) + 1 if lines else 1
    if line > len(lines):
        line, column = len(lines), len(lines[-1]) + 1
    return Diagnostic(filename, line, int(column or 1), message, suggestion=suggestion, length=length)


_KEYWORDS = ("grammar", "type", "tool", "weight", "importance", "compare", "enum", "list")


def _keyword_hint(exc: UnexpectedToken) -> str | None:
    """A misspelt keyword (``tol``, ``importnce``) where the parser expected that keyword."""
    if exc.token.type != "NAME":
        return None
    wanted = [k for k in _KEYWORDS if k.upper() in _accepted(exc)]
    return did_you_mean(str(exc.token), wanted) if wanted else None


# --- tokens -> syntax tree, during the parse ---------------------------------------


class _SyntaxBuilder(Transformer):
    """Builds :mod:`ek.grammar.syntax` nodes as the LALR parser reduces rules (no parse tree).

    One instance serves every parse; the file name and the escape errors of the
    parse in progress live in thread-local state, set by :func:`parse_syntax`.
    """

    def __init__(self) -> None:
        super().__init__()
        self._state = threading.local()

    def begin(self, filename: str) -> None:
        self._state.filename = filename
        self._state.errors = []

    @property
    def filename(self) -> str:
        return self._state.filename

    @property
    def token_errors(self) -> list[tuple[Location, str]]:
        return self._state.errors

    # helpers
    def _tok_loc(self, tok: Token) -> Location:
        # Lark's error probing (``accepts()``) feeds position-less tokens: default to 1.
        return Location(self._state.filename, tok.line or 1, tok.column or 1, tok.end_line, tok.end_column)

    def _span(self, first: Any, last: Any) -> Location:
        a = self._as_loc(first)
        b = self._as_loc(last)
        return Location(self._state.filename, a.line, a.column, b.end_line, b.end_column)

    def _as_loc(self, part: Any) -> Location:
        """The location of a token, a reduced ``name`` (text, loc), a Location or a syntax node."""
        if isinstance(part, Token):
            return self._tok_loc(part)
        if isinstance(part, tuple):
            return part[1]
        return part if isinstance(part, Location) else part.loc

    def _string(self, tok: Token) -> str:
        try:
            return decode_string(str(tok))
        except EscapeError as err:
            start = self._tok_loc(tok)
            column = start.column + err.offset if start.line == tok.end_line else start.column
            loc = Location(self._state.filename, start.line, column, start.line, column + 2)
            self._state.errors.append((loc, str(err)))
            return str(tok)[1:-1]

    def _number(self, tok: Token) -> int | float:
        try:
            value = parse_number(str(tok))
        except ValueError:  # more digits than Python converts
            value = math.inf
        if isinstance(value, float) and not math.isfinite(value):
            self._state.errors.append((self._tok_loc(tok), f"number {str(tok)[:20]!r} is too large"))
            return 1  # reported once here; a placeholder that trips no further check
        return value

    def _num(self, tok: Token) -> Num:
        return Num(self._number(tok), str(tok), self._tok_loc(tok))

    # top level
    def start(self, children: list[Any]) -> list[Any]:
        return children

    def header(self, children: list[Any]) -> HeaderSyn:
        keyword, (name, _), number = children
        return HeaderSyn(name, self._num(number), self._span(keyword, number))

    def name(self, children: list[Token]) -> tuple[str, Location]:
        tok = children[0]
        value = self._string(tok) if tok.type == "STRING" else str(tok)
        return value, self._tok_loc(tok)

    def type_decl(self, children: list[Any]) -> TypeDeclSyn:
        keyword, name_tok, type_syn, *rest = children
        constraints = tuple(c for c in rest if isinstance(c, (RangeSyn, PatternSyn)))
        doc = next((c for c in rest if isinstance(c, DocSyn)), None)
        last = rest[-1] if rest else type_syn
        return TypeDeclSyn(str(name_tok), self._tok_loc(name_tok), type_syn, constraints, doc, self._span(keyword, last))

    def tool_decl(self, children: list[Any]) -> ToolSyn:
        keyword, (name, name_loc), *rest = children
        weight = next((c for c in rest if isinstance(c, Num)), None)
        body = rest[-1]
        return ToolSyn(name, name_loc, weight, body, self._span(keyword, body))

    def weight(self, children: list[Token]) -> Num:
        return self._num(children[0])

    def body(self, children: list[Any]) -> BodySyn:
        items = tuple(c for c in children[1:-1] if c is not None)
        return BodySyn(items, self._span(children[0], children[-1]))

    def doc(self, children: list[Token]) -> DocSyn:
        return DocSyn(self._string(children[0]), self._tok_loc(children[0]))

    # arguments
    def arg(self, children: list[Any]) -> ArgSyn:
        (name, name_loc), type_syn, *rest = children
        return ArgSyn(
            name=name,
            name_loc=name_loc,
            type=type_syn,
            constraints=tuple(c for c in rest if isinstance(c, (RangeSyn, PatternSyn))),
            optional=next((c for c in rest if isinstance(c, Location)), None),
            options=tuple(c for c in rest if isinstance(c, OptionSyn)),
            doc=next((c for c in rest if isinstance(c, DocSyn)), None),
            loc=self._span(name_loc, rest[-1] if rest else type_syn),
        )

    def optional(self, children: list[Token]) -> Location:
        return self._tok_loc(children[0])

    def default(self, children: list[Any]) -> OptionSyn:
        return OptionSyn("default", children[1], self._span(children[0], children[1]))

    def importance(self, children: list[Token]) -> OptionSyn:
        return OptionSyn("importance", self._num(children[1]), self._span(children[0], children[1]))

    def compare(self, children: list[Any]) -> OptionSyn:
        keyword, name_tok = children[0], children[1]
        args = children[2] if len(children) > 2 else None
        policy = CompareSyn(str(name_tok), args[0] if args else None, self._tok_loc(name_tok))
        return OptionSyn("compare", policy, self._span(keyword, args[1] if args else name_tok))

    def compare_args(self, children: list[Any]) -> tuple[tuple[Lit, ...], Token]:
        return tuple(c for c in children[:-1] if c is not None), children[-1]

    # types
    def named_type(self, children: list[Token]) -> TypeSyn:
        return TypeSyn("name", self._tok_loc(children[0]), name=str(children[0]))

    def enum_type(self, children: list[Any]) -> TypeSyn:
        return TypeSyn("enum", self._span(children[0], children[-1]), members=tuple(children[1:-1]))

    def member(self, children: list[Token]) -> tuple[str, Location]:
        tok = children[0]
        return (self._string(tok) if tok.type == "STRING" else str(tok)), self._tok_loc(tok)

    def list_type(self, children: list[Any]) -> TypeSyn:
        return TypeSyn("list", self._span(children[0], children[-1]), item=children[1])

    def object_type(self, children: list[Any]) -> TypeSyn:
        return TypeSyn("object", children[0].loc, body=children[0])

    def constraint(self, children: list[Any]) -> RangeSyn | PatternSyn:
        child = children[0]
        if isinstance(child, Token):
            return PatternSyn(decode_pattern(str(child)), self._tok_loc(child))
        return child

    def range(self, children: list[Any]) -> RangeSyn:
        open_tok, lo, hi, close_tok = children
        return RangeSyn(
            self._num(lo) if lo is not None else None,
            self._num(hi) if hi is not None else None,
            self._span(open_tok, close_tok),
        )

    # literals
    def number_lit(self, children: list[Token]) -> Lit:
        return Lit("number", self._number(children[0]), self._tok_loc(children[0]))

    def string_lit(self, children: list[Token]) -> Lit:
        return Lit("string", self._string(children[0]), self._tok_loc(children[0]))

    def name_lit(self, children: list[Token]) -> Lit:
        return Lit("name", str(children[0]), self._tok_loc(children[0]))

    def list_lit(self, children: list[Any]) -> Lit:
        items = tuple(c for c in children[1:-1] if c is not None)
        return Lit("list", items, self._span(children[0], children[-1]))

    def object_lit(self, children: list[Any]) -> Lit:
        pairs = tuple(c for c in children[1:-1] if c is not None)
        return Lit("object", pairs, self._span(children[0], children[-1]))

    def pair(self, children: list[Any]) -> tuple[str, Location, Lit]:
        (key, key_loc), value = children
        return key, key_loc, value


_BUILDER = _SyntaxBuilder()
