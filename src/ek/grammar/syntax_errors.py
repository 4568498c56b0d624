"""Lark's syntax errors in a user's words: what was expected, after what, never token names.

Messages are chosen from the parser's *real* acceptable next tokens (LALR's
merged states over-report ``exc.expected``) and from the value just before the
error, so "x int" reads "expected ':' after argument name 'x'".
"""

from __future__ import annotations

from typing import Any

from lark import Lark, Token
from lark.exceptions import (
    UnexpectedCharacters,
    UnexpectedEOF,
    UnexpectedInput,
    UnexpectedToken,
)

from ek.grammar.diagnostics import Diagnostic, did_you_mean
from ek.grammar.model import Location

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


def _word(terminal: str, parser: Lark) -> str:
    """A terminal in words: ``NAME`` -> "a name", ``COLON`` -> "':'"."""
    if terminal in _WORDS:
        return _WORDS[terminal]
    literals = {t.name: t.pattern.value for t in parser.terminals if t.pattern.type == "str"}
    if terminal in literals:
        return f"'{literals[terminal]}'"
    return terminal.lower()


def _describe_token(tok: Token) -> str:
    if tok.type == "$END":
        return "end of file"
    if tok.type == "_NL":
        return "end of line"
    value = str(tok.value)
    return repr(value if len(value) <= 30 else value[:27] + "...")


#: What may follow an argument's type, in the order an argument line is written.
_ARG_OPTIONS = (
    ("LSQB", "a [range]"),
    ("PATTERN", "a /regex/"),
    ("QMARK", "'?'"),
    ("EQUAL", "'= DEFAULT'"),
    ("IMPORTANCE", "'importance N'"),
    ("COMPARE", "'compare POLICY'"),
    ("STRING", "a doc string"),
    ("_NL", "end of line"),
)


def _stack(exc: UnexpectedToken) -> list[Any]:
    state = getattr(exc, "state", None) or getattr(getattr(exc, "interactive_parser", None), "parser_state", None)
    return list(getattr(state, "value_stack", None) or [])


def _previous(exc: UnexpectedToken) -> Any:
    stack = _stack(exc)
    return stack[-1] if stack else None


def _current_argument(exc: UnexpectedToken) -> str | None:
    """The name of the argument being read: the last reduced name followed by ':' on the stack."""
    stack = _stack(exc)
    for index in range(len(stack) - 2, -1, -1):
        after = stack[index + 1]
        if _is_name(stack[index]) and isinstance(after, Token) and after.type == "COLON":
            return str(stack[index][0])
    return None


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


#: Words that start a top-level statement; one read as an argument name means the body above is not closed.
_STATEMENT_KEYWORDS = ("tool", "type", "grammar")


def _statement_keyword_in_body(exc: UnexpectedToken) -> tuple[int, int, int] | None:
    """Where a statement keyword was read as an argument name (``tool u {}`` inside an open body): line, column
    and length of the keyword, or None. The error token is the word after it, but the mistake is before it."""
    if _accepted(exc) != {"COLON"}:
        return None
    prev = _previous(exc)
    if isinstance(prev, Token) and str(prev.value) in _STATEMENT_KEYWORDS:
        line, column = prev.line, prev.column
    elif _is_name(prev) and prev[0] in _STATEMENT_KEYWORDS:
        line, column = prev[1].line, prev[1].column
    else:
        return None
    if not isinstance(line, int) or not isinstance(column, int):
        return None
    return line, column, len(str(prev.value if isinstance(prev, Token) else prev[0]))


def _token_message(exc: UnexpectedToken, parser: Lark) -> str:
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
        if _statement_keyword_in_body(exc) is not None:
            return f"expected '}}' before '{prev_text}': the body above is not closed"
        if prev_kind == "name" or prev_kind in ("NAME", "STRING"):
            return f"expected ':' after argument name {prev_text!r}, got {got}"
        return f"expected ':', got {got}"
    if "ENUM" in expected and "LIST" in expected:
        return f"expected a type ({_TYPE_HINT}), got {got}"
    if prev_kind == "LIST":
        return f"expected '[' after 'list' (write list[TYPE]), got {got}"
    if {"NAME", "STRING", "_NL"} <= expected <= {"NAME", "STRING", "NUMBER", "_NL", "RPAR"} and prev_kind in (
            "LPAR", "COMMA"):
        return 'expected an enum member (a name, "quoted string" or integer), got ' + got
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
        arg = _current_argument(exc)
        where = f"in argument {arg!r}" if arg is not None else "after an argument's type"
        options = [word for terminal, word in _ARG_OPTIONS if terminal in expected]
        return f"unexpected {got} {where}; expected " + ", ".join(options[:-1]) + " or " + options[-1]
    if "_NL" in expected and exc.token.type != "_NL" and expected <= {"_NL", "RBRACE", "STRING", "LONG_STRING"}:
        return f"unexpected {got}: put one statement or argument per line"
    if expected <= {"NAME", "STRING", "LONG_STRING", "RBRACE", "_NL"} and "RBRACE" in expected:
        return f"expected an argument name or '}}', got {got}"
    if "__ANON_0" in expected or prev_kind == "LSQB" and "NUMBER" in expected:
        return f"expected a range like [1..9], [1..] or [..9], got {got}"
    words = sorted(_word(t, parser) for t in expected)
    return f"unexpected {got}; expected " + (words[0] if len(words) == 1 else "one of " + ", ".join(words))


def syntax_diagnostic(exc: UnexpectedInput, filename: str, lines: list[str], parser: Lark) -> Diagnostic:
    """One diagnostic for a Lark error, worded from what the parser accepts at that point."""
    line = getattr(exc, "line", None)
    column = getattr(exc, "column", None)
    length = 1
    suggestion = None
    if isinstance(exc, UnexpectedToken):
        message = _token_message(exc, parser)
        tok = exc.token
        suggestion = _keyword_hint(exc)
        if suggestion:
            message += f"; did you mean '{suggestion}'?"
        if tok.type != "$END" and tok.type != "_NL" and tok.end_line == tok.line and tok.end_column:
            length = tok.end_column - tok.column
        keyword = _statement_keyword_in_body(exc)
        if keyword is not None:  # the message is about that keyword, so the caret goes under it
            line, column, length = keyword
    elif isinstance(exc, UnexpectedCharacters):
        char = exc.char
        text = lines[line - 1] if isinstance(line, int) and 1 <= line <= len(lines) else ""
        if char == '"' and isinstance(column, int) and column >= 3 and text[column - 3 : column].startswith('"""'):
            # The lexer read '""' as an empty string, then failed on the third quote.
            message = 'unterminated """doc string""": no closing """ before the end of the file'
            column -= 2
            length = 3
        elif char == '"':
            message = "unterminated string: a \"...\" string must close on the same line (use \"\"\"...\"\"\" for more lines)"
        elif char == "'":
            message = "strings are written in double quotes: \"...\""
        elif char == "/":
            message = "unterminated or empty /regex/: it must close on the same line"
        else:
            message = f"unexpected character {char!r}"
            allowed = {t for t in (exc.allowed or ()) if t != "$END"}
            if allowed:
                message += "; expected " + ", ".join(sorted(_word(t, parser) for t in allowed))
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
