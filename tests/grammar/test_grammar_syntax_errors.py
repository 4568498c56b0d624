"""Syntax errors speak the user's words, point at the token, and several are reported at once."""

from __future__ import annotations

import re

import pytest

from ek.grammar import SchemaError, parse

HEAD = "grammar g 1\n"

CASES = [
    ("missing colon", HEAD + "tool t {\n    x int\n}\n", 3, 7, "expected ':' after argument name 'x', got 'int'"),
    ("missing type", HEAD + "tool t {\n    x:\n}\n", 3, 7, "expected a type (str, int, float, bool, date, datetime, any, enum(...), list[...], { ... } or a declared type name), got end of line"),
    ("missing tool name", HEAD + "tool {\n}\n", 2, 6, "expected a tool name after 'tool', got '{'"),
    ("missing brace", HEAD + "tool t\n", 2, 7, "expected '{' to open the body of tool 't' (or 'weight N' before it), got end of line"),
    ("weight without number", HEAD + "tool t weight {\n}\n", 2, 15, "expected a number after 'weight', got '{'"),
    ("missing policy", HEAD + "tool t {\n    x: int compare\n}\n", 3, 19, "expected a compare policy after 'compare' (fold, exact, bfcl, tol(X), unordered or ignore), got end of line"),
    ("missing default", HEAD + "tool t {\n    x: int =\n}\n", 3, 13, "expected a default value after '=' (a number, \"string\", name, [list] or {object}), got end of line"),
    ("two args on a line", HEAD + "tool t { x: int y: int }\n", 2, 17, "unexpected 'y' in argument 'x'; expected a [range], a /regex/, '?', '= DEFAULT', 'importance N', 'compare POLICY', a doc string or end of line"),
    ("after options", HEAD + "tool t {\n    speed: float compare tol 0.1\n}\n", 3, 30, "unexpected '0.1' in argument 'speed'; expected '= DEFAULT', 'importance N', 'compare POLICY', a doc string or end of line"),
    ("unterminated string", HEAD + 'tool t {\n    "doc\n}\n', 3, 5, 'unterminated string: a "..." string must close on the same line (use """...""" for more lines)'),
    ("unterminated long doc", HEAD + 'tool t {\n    """Doc\n    x: int\n}\n', 3, 5, 'unterminated """doc string""": no closing """ before the end of the file'),
    ("unterminated long doc after a closed one", HEAD + 'type A = int """a"""\ntool t {\n  """Doc\n}\n', 4, 3, 'unterminated """doc string""": no closing """ before the end of the file'),
    ("list without brackets", HEAD + "tool t {\n    x: list(str)\n}\n", 3, 12, "expected '[' after 'list' (write list[TYPE]), got '('"),
    ("list without item", HEAD + "tool t {\n    x: list\n}\n", 3, 12, "expected '[' after 'list' (write list[TYPE]), got end of line"),
    ("empty enum", HEAD + "tool t {\n    x: enum()\n}\n", 3, 13, "expected an enum member (a name, \"quoted string\" or integer), got ')'"),
    ("enum of lists", HEAD + "tool t {\n    x: enum([1], 2)\n}\n", 3, 13, "expected an enum member (a name, \"quoted string\" or integer), got '['"),
    # The message is about the keyword, so it points there, not at the word after it (docs/dsl.md).
    ("unclosed body before a tool", HEAD + "tool t {\n    x: int\n\ntool u {}\n", 5, 1, "expected '}' before 'tool': the body above is not closed"),
    ("unclosed body before a type", HEAD + "tool t {\n    x: int\n  type A = str\n", 4, 3, "expected '}' before 'type': the body above is not closed"),
    ("unclosed body at eof", HEAD + "tool t {\n    x: int\n", 3, 11, "unexpected end of file: a '{' is not closed with '}'"),
    ("missing grammar name", "grammar\n", 1, 8, "expected the grammar name after 'grammar', got end of line"),
    ("missing version", "grammar g\n", 1, 10, "expected a version number after the grammar name, got end of line"),
    ("stray statement", HEAD + "tol t {\n}\n", 2, 1, "expected 'grammar', 'type' or 'tool' at the start of a statement, got 'tol'"),
    ("type without equals", HEAD + "type X int\n", 2, 8, "expected '=' after the type name, got 'int'"),
    ("bad range", HEAD + "tool t {\n    x: int [1-9]\n}\n", 3, 14, "expected a range like [1..9], [1..] or [..9], got '-9'"),
    ("single quotes", HEAD + "tool t {\n    x: str = 'a'\n}\n", 3, 14, 'strings are written in double quotes: "..."'),
    ("stray character", HEAD + "tool t {\n    x: int $\n}\n", 3, 12, "unexpected character '$'"),
]


@pytest.mark.parametrize(("schema", "line", "column", "message"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_syntax_error_messages(schema, line, column, message):
    with pytest.raises(SchemaError) as info:
        parse(schema, "s.ek")
    diag = info.value.diagnostics[0]
    assert (diag.line, diag.column) == (line, column)
    assert diag.message.startswith(message)


@pytest.mark.parametrize("schema", [c[1] for c in CASES], ids=[c[0] for c in CASES])
def test_no_lark_token_names_leak(schema):
    with pytest.raises(SchemaError) as info:
        parse(schema, "s.ek")
    assert not re.search(r"\b(RBRACE|LBRACE|COLON|LSQB|RSQB|LPAR|RPAR|_NL|\$END|__ANON\w*|NAME|NUMBER|STRING|Token)\b", str(info.value))


def test_recovers_to_report_errors_in_later_statements():
    text = HEAD + (
        "tool a {\n"
        "    x int\n"      # 3
        "}\n"
        "tool b {\n"
        "    y: int = \n"  # 6
        "}\n"
        "tool c {\n"
        "    z: str\n"
        "}\n"
        "tool d weight {\n"  # 11
        "}\n"
    )
    with pytest.raises(SchemaError) as info:
        parse(text, "s.ek")
    assert [d.line for d in info.value.diagnostics] == [3, 6, 11]


def test_recovery_skips_arguments_named_like_keywords_at_the_line_start():
    """``type: str`` written flush left inside a body is an argument, not the next statement to resume at."""
    text = HEAD + "tool a {\nx int\ntype: str\ntool: int\ngrammar : int\n}\ntool b {\n    y: = 1\n}\n"
    with pytest.raises(SchemaError) as info:
        parse(text, "s.ek")
    assert [d.line for d in info.value.diagnostics] == [3, 9]


def test_unclosed_body_is_named_at_the_next_statement():
    text = HEAD + "tool a {\n    x: int\n\ntool b {\n    y: int\n}\n"
    with pytest.raises(SchemaError) as info:
        parse(text, "s.ek")
    first = info.value.diagnostics[0]
    assert first.line == 5 and "the body above is not closed" in first.message


def test_caret_underlines_the_whole_token():
    with pytest.raises(SchemaError) as info:
        parse(HEAD + "tool t {\n    x integer\n}\n", "s.ek")
    assert str(info.value).endswith("        x integer\n          ^^^^^^^")


@pytest.mark.parametrize(
    ("schema", "hint"),
    [
        (HEAD + "tol t {\n}\n", "tool"),
        (HEAD + "tool t {\n    x: int importnce 2\n}\n", "importance"),
        (HEAD + "tool t {\n    x: str compre exact\n}\n", "compare"),
        (HEAD + "tool t wieght 2 {\n}\n", "weight"),
    ],
)
def test_misspelt_keywords_get_a_suggestion(schema, hint):
    with pytest.raises(SchemaError) as info:
        parse(schema, "s.ek")
    diag = info.value.diagnostics[0]
    assert diag.suggestion == hint
    assert diag.message.endswith(f"; did you mean '{hint}'?")


def test_an_unclosed_body_underlines_the_keyword_it_names():
    with pytest.raises(SchemaError) as info:
        parse(HEAD + "tool t {\n    x: int\n\ntool u {}\n", "s.ek")
    assert str(info.value).splitlines()[1:3] == ["    tool u {}", "    ^^^^"]
