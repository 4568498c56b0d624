"""Every semantic error class of the DSL: the line, column and message a user sees."""

from __future__ import annotations

import re

import pytest

from ek.grammar import Diagnostic, SchemaError, parse

HEAD = "grammar g 1\n"


def errors(text: str) -> tuple[Diagnostic, ...]:
    with pytest.raises(SchemaError) as info:
        parse(text, "s.ek")
    return info.value.diagnostics


def only(text: str) -> Diagnostic:
    diags = errors(text)
    assert len(diags) == 1, [d.message for d in diags]
    return diags[0]


CASES = [
    # (id, schema, line, column, message)
    ("unknown type", HEAD + "tool t {\n    x: strng\n}\n", 3, 8, "unknown type 'strng'; did you mean 'str'?"),
    ("undeclared type", HEAD + "tool t {\n    x: Airport\n}\n", 3, 8, "unknown type 'Airport'"),
    ("unknown item type", HEAD + "tool t {\n    x: list[flaot]\n}\n", 3, 13, "unknown type 'flaot'; did you mean 'float'?"),
    ("alias suggestion", HEAD + "type Airport = str\ntool t {\n    x: Airprot\n}\n", 4, 8, "unknown type 'Airprot'; did you mean 'Airport'?"),
    ("duplicate tool", HEAD + "tool t {\n}\ntool t {\n}\n", 4, 6, "duplicate tool 't' (first declared at line 2)"),
    ("duplicate argument", HEAD + "tool t {\n    x: int\n    x: str\n}\n", 4, 5, "duplicate argument 'x' in tool 't' (first at line 3)"),
    ("duplicate object field", HEAD + "tool t {\n    o: {\n        a: int\n        a: int\n    }\n}\n", 5, 9, "duplicate argument 'a' in object (first at line 4)"),
    ("duplicate type", HEAD + "type A = str\ntype A = int\n", 3, 6, "duplicate type 'A' (first declared at line 2)"),
    ("default type", HEAD + "tool t {\n    x: int = \"a\"\n}\n", 3, 14, "default 'a' does not fit type int"),
    ("default float for int", HEAD + "tool t {\n    x: int = 1.5\n}\n", 3, 14, "default 1.5 does not fit type int"),
    ("default bool", HEAD + "tool t {\n    x: bool = yes\n}\n", 3, 15, "default 'yes' does not fit type bool"),
    ("unquoted str default", HEAD + "tool t {\n    x: str = abc\n}\n", 3, 14, 'a str default must be quoted: "abc"'),
    ("default range", HEAD + "tool t {\n    x: int [1..9] = 12\n}\n", 3, 21, "default 12 is outside the range [1..9]"),
    ("default length", HEAD + "tool t {\n    x: str [2..] = \"a\"\n}\n", 3, 20, "default 'a' has length 1, which is outside the range [2..]"),
    ("default alias pattern", HEAD + "type Code = str /[A-Z]{3}/\ntool t {\n    x: Code = \"abc\"\n}\n", 4, 15, "default 'abc' does not match /[A-Z]{3}/"),
    ("default list item", HEAD + "tool t {\n    x: list[int] = [1, \"x\"]\n}\n", 3, 24, "default 'x' does not fit type int"),
    ("default date", HEAD + "tool t {\n    x: date = \"2024-13-01\"\n}\n", 3, 15, "default '2024-13-01' is not an ISO date YYYY-MM-DD"),
    ("default object field", HEAD + "tool t {\n    o: {\n        a: int?\n    } = {b: 1}\n}\n", 5, 10, "unknown field 'b' in default"),
    ("inverted range", HEAD + "tool t {\n    x: int [9..1]\n}\n", 3, 12, "inverted range [9..1]: the lower bound is greater than the upper bound"),
    ("invalid regex", HEAD + "tool t {\n    x: str /(ab/\n}\n", 3, 12, "invalid regex /(ab/: missing ), unterminated subpattern at position 0"),
    ("regex on int", HEAD + "tool t {\n    x: int /a/\n}\n", 3, 12, "a /regex/ applies to str only, not int"),
    ("range on bool", HEAD + "tool t {\n    x: bool [1..2]\n}\n", 3, 13, "a [range] applies to int, float, str and list, not bool"),
    ("fractional length", HEAD + "tool t {\n    x: str [1.5..2]\n}\n", 3, 13, "a length bound must be a non-negative integer, got 1.5"),
    ("enum default", HEAD + "tool t {\n    x: enum(a, b) = c\n}\n", 3, 21, "default 'c' is not a member of enum(a, b)"),
    ("enum default hint", HEAD + "tool t {\n    u: enum(celsius, fahrenheit) = celsus\n}\n", 3, 36,
     "default 'celsus' is not a member of enum(celsius, fahrenheit); did you mean 'celsius'?"),
    ("duplicate enum member", HEAD + "tool t {\n    x: enum(a, b, a)\n}\n", 3, 19, "duplicate enum member 'a' (first at line 3)"),
    ("unknown policy", HEAD + "tool t {\n    x: str compare exct\n}\n", 3, 20,
     "unknown compare policy 'exct'; did you mean 'exact'? (choose from fold, exact, bfcl, tol, unordered, ignore)"),
    ("tol on str", HEAD + "tool t {\n    x: str compare tol(0.1)\n}\n", 3, 20, "compare tol applies to int and float, not str"),
    ("unordered on int", HEAD + "tool t {\n    x: int compare unordered\n}\n", 3, 20, "compare unordered applies to lists, not int"),
    ("fold on float", HEAD + "tool t {\n    x: float compare fold\n}\n", 3, 22, "compare fold folds text and does not apply to float"),
    ("tol via alias", HEAD + "type Name = str\ntool t {\n    x: Name compare tol(1)\n}\n", 4, 21, "compare tol applies to int and float, not str"),
    ("tol without number", HEAD + "tool t {\n    x: float compare tol\n}\n", 3, 22, "compare tol needs one non-negative number, like tol(0.01)"),
    ("policy arguments", HEAD + "tool t {\n    x: str compare exact(1)\n}\n", 3, 20, "compare policy 'exact' takes no arguments"),
    ("zero weight", HEAD + "tool t weight 0 {\n}\n", 2, 15, "weight must be a positive number, got 0"),
    ("negative importance", HEAD + "tool t {\n    x: str importance -1\n}\n", 3, 23, "importance must be a positive number, got -1"),
    ("huge weight", HEAD + "tool t weight 1e308 {\n}\n", 2, 15,
     "weight 1e+308 is out of range: ek takes costs from 1e-06 to 1e+06 (relative costs; past them sums overflow or round to 0)"),
    ("tiny importance", HEAD + "tool t {\n    x: str importance 1e-300\n}\n", 3, 23,
     "importance 1e-300 is out of range: ek takes costs from 1e-06 to 1e+06 (relative costs; past them sums overflow or round to 0)"),
    ("importance on an object field", HEAD + "tool t {\n    x: {\n        a: int importance 2\n    }\n}\n", 4, 16,
     "importance applies to a tool's arguments, not to object field 'a': each argument is scored as one unit, so put "
     "the importance on the argument that holds the object"),
    ("importance on a field of an object type", HEAD + "type P = {\n    a: int importance 2\n}\ntool t {\n    p: P\n}\n", 3,
     12, "importance applies to a tool's arguments, not to object field 'a': each argument is scored as one unit, so "
         "put the importance on the argument that holds the object"),
    ("self alias", HEAD + "type C = C\n", 2, 10, "recursive type alias: C -> C"),
    ("alias cycle", HEAD + "type A = B\ntype B = list[A]\n", 3, 15, "recursive type alias: A -> B -> A"),
    ("missing header", "tool t {\n    x: int\n}\n", 1, 1, "missing grammar header: a schema must start with 'grammar NAME VERSION'"),
    ("empty file", "# nothing\n", 1, 1, "missing grammar header: a schema must start with 'grammar NAME VERSION'"),
    ("repeated header", HEAD + "grammar g 2\n", 2, 1, "repeated grammar header (the first is at line 1)"),
    ("late header", "tool t {\n}\ngrammar g 1\n", 3, 1, "the grammar header must be the first statement of the file"),
    ("zero version", "grammar g 0\n", 1, 11, "grammar version must be a positive integer, got 0"),
    ("float version", "grammar g 1.5\n", 1, 11, "grammar version must be a positive integer, got 1.5"),
    ("tool names collide", HEAD + 'tool "a.b" {\n}\ntool a_b {\n}\n', 4, 6,
     "tool name 'a_b' collides with 'a.b' (line 2) once made a Python identifier ('a_b')"),
    ("argument names collide", HEAD + 'tool t {\n    "max-results": int\n    max_results: int\n}\n', 4, 5,
     "argument name 'max_results' collides with 'max-results' (line 3) once made a Python identifier ('max_results')"),
    ("type names collide", HEAD + "type _A = str\ntype x_A = int\n", 3, 6,
     "type name 'x_A' collides with '_A' (line 2) once made a Python identifier ('x_A')"),
    ("keyword type name", HEAD + "type list = str\n", 2, 6, "'list' is a keyword and cannot name a type"),
    ("empty enum member", HEAD + 'tool t {\n    x: enum(a, "")\n}\n', 3, 16, "an enum member cannot be empty"),
    ("empty tool name", HEAD + 'tool "" {\n}\n', 2, 6, "a tool name cannot be empty"),
    ("doc in object", HEAD + 'tool t {\n    o: {\n        "doc"\n        a: int\n    }\n}\n', 4, 9,
     "an inline object has no doc string; write the doc at the end of its argument's line"),
    ("repeated range", HEAD + "tool t {\n    x: int [1..2] [3..4]\n}\n", 3, 19, "only one [range] is allowed per type"),
    ("missing object field in default", HEAD + "tool t {\n    o: {\n        a: int\n    } = {}\n}\n", 5, 9,
     "default misses required field 'a'"),
    ("shadowed builtin", HEAD + "type str = int\n", 2, 6, "type 'str' shadows the built-in type of the same name"),
    ("doc not first", HEAD + 'tool t {\n    x: int\n    "late"\n}\n', 4, 5, "a tool's doc string must come first in its body, before the arguments"),
    ("option twice", HEAD + "tool t {\n    x: int importance 2 importance 3\n}\n", 3, 25, "'importance' is given twice for argument 'x'"),
    ("bad escape", HEAD + 'tool t {\n    "doc \\q"\n}\n', 3, 10, "unknown escape '\\q' in string"),
    ("huge number", HEAD + "tool t weight 1e999 {\n}\n", 2, 15, "number '1e999' is too large"),
    ("tiny number", HEAD + "tool t {\n    x: float compare tol(1e-400)\n}\n", 3, 26,
     "number '1e-400' is too small for a float (it would read as 0; the smallest is about 5e-324)"),
    ("tiny bound", HEAD + "tool t {\n    x: float [-2.5E-999..1]\n}\n", 3, 15,
     "number '-2.5E-999' is too small for a float (it would read as 0; the smallest is about 5e-324)"),
]


@pytest.mark.parametrize(("schema", "line", "column", "message"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_each_error_class_points_at_the_token(schema, line, column, message):
    diag = only(schema)
    assert (diag.file, diag.line, diag.column, diag.message) == ("s.ek", line, column, message)
    assert diag.severity == "error"


def test_suggestion_is_structured_data():
    diag = only(HEAD + "tool t {\n    x: strng\n}\n")
    assert diag.suggestion == "str"


def test_report_renders_source_line_and_caret():
    with pytest.raises(SchemaError) as info:
        parse(HEAD + "tool t {\n    origin: strng\n}\n", "travel.ek")
    assert str(info.value) == (
        "travel.ek:3:13: error: unknown type 'strng'; did you mean 'str'?\n"
        "        origin: strng\n"
        "                ^^^^^"
    )
    assert isinstance(info.value, ValueError)


def test_all_errors_of_a_file_are_reported_at_once_in_order():
    text = HEAD + (
        "tool t weight 0 {\n"          # 2: weight
        "    x: strng\n"               # 3: unknown type
        "    y: int [9..1]\n"          # 4: inverted range
        "    y: str compare exct\n"    # 5: duplicate argument + unknown policy
        "}\n"
        "tool t {\n}\n"                # 7: duplicate tool
    )
    diags = errors(text)
    assert [(d.line, d.column) for d in diags] == [(2, 15), (3, 8), (4, 12), (5, 5), (5, 20), (7, 6)]
    report = str(SchemaError(diags, text))
    assert report.count("error:") == 6


def test_diagnostics_are_frozen():
    diag = only(HEAD + "tool t {\n    x: strng\n}\n")
    with pytest.raises(AttributeError):
        diag.line = 9  # type: ignore[misc]


def test_load_reports_unreadable_and_non_utf8_files(tmp_path):
    from ek.grammar import load

    missing = tmp_path / "missing.ek"
    with pytest.raises(SchemaError, match="cannot read schema") as info:
        load(missing)
    assert info.value.diagnostics[0].file == str(missing)
    latin = tmp_path / "latin.ek"
    latin.write_bytes(b"grammar g 1\ntool t {\n    x: str \"caf\xe9\"\n}\n")
    with pytest.raises(SchemaError) as info:
        load(latin)
    d = info.value.diagnostics[0]
    assert (d.line, d.column, d.message) == (3, 16, "the file is not valid UTF-8")


def test_byte_order_mark_is_ignored():
    g = parse("\ufeffgrammar g 1\ntool t {\n}\n")
    assert g.key == "g@1"


def test_schema_error_survives_pickling():
    import pickle

    with pytest.raises(SchemaError) as info:
        parse(HEAD + "tool t {\n    x: strng\n}\n", "s.ek")
    copy = pickle.loads(pickle.dumps(info.value))
    assert copy.diagnostics == info.value.diagnostics and str(copy) == str(info.value)


def test_source_line_shown_is_the_line_the_parser_counted():
    # \u2028 and form feeds are line breaks to str.splitlines but not to the parser (in a doc string here: a
    # comment may not hold them, see tests/hostile/test_schema_text.py)
    text = HEAD + 'tool s {\n    "a\u2028b\f"\n}\ntool t {\n    x: strng\n}\n'
    with pytest.raises(SchemaError) as info:
        parse(text, "s.ek")
    assert str(info.value).split("\n")[:2] == ["s.ek:6:8: error: unknown type 'strng'; did you mean 'str'?",
                                                "        x: strng"]


@pytest.mark.slow
def test_many_misspellings_among_many_names_are_all_reported_and_the_first_get_suggestions():
    """Suggestions are looked up on a budget (else this file is quadratic: minutes at 5,000 tools)."""
    n = 400
    text = "grammar g 1\n" + "".join(f"type Type{i} = str\n" for i in range(n))
    text += "".join(f"tool t{i} {{\n    x: Typo{i}\n}}\n" for i in range(n))
    with pytest.raises(SchemaError) as info:
        parse(text, "m.ek")
    diags = info.value.diagnostics
    assert len(diags) == n and all(d.message.startswith(f"unknown type 'Typo{i}'") for i, d in enumerate(diags))
    assert diags[0].suggestion == "Type0" and diags[0].message.endswith("did you mean 'Type0'?")
    assert any(d.suggestion is None for d in diags)  # the budget ran out, the errors did not
    # small candidate lists (policies, keywords) still get suggestions after the budget is spent
    with pytest.raises(SchemaError) as info:
        parse(text + "tool late {\n    y: str compare exct\n}\n", "m.ek")
    assert info.value.diagnostics[-1].suggestion == "exact"


def test_caret_lines_up_under_wide_characters_and_tabs():
    """Columns count characters; the caret pads by display width so it sits under the token in a terminal."""
    text = 'grammar g 1\ntool t {\n\t"名前": strng  # 名\n    "日本": { a: 日本語 }\n}\n'
    with pytest.raises(SchemaError) as info:
        parse(text, "w.ek")
    first, second = info.value.diagnostics
    assert (first.line, first.column, first.length) == (3, 8, 5)
    assert str(info.value).split("\n")[1:3] == ['    \t"名前": strng  # 名', "    \t" + " " * 8 + "^^^^^"]
    assert (second.line, second.column, second.length) == (4, 16, 3)
    assert str(info.value).split("\n")[4:6] == ['        "日本": { a: 日本語 }', " " * 21 + "^^^^^^"]


@pytest.mark.slow
def test_a_very_long_line_is_shown_as_a_window_around_the_error():
    """Each diagnostic shows its source line: on a 100k-character line that must be a window, or a file with
    thousands of errors on one line renders gigabytes (20k duplicate enum members took minutes)."""
    members = ", ".join(f"m{i}" for i in range(9_000))  # within ek.limits.SCHEMA_MAX_ENUM_MEMBERS
    text = f"grammar g 1\ntool t {{\n    x: enum({members}, m8999, m7)\n}}\n"
    with pytest.raises(SchemaError) as info:
        parse(text, "w.ek")
    first, second = info.value.diagnostics
    assert first.message == "duplicate enum member 'm8999' (first at line 3)"
    _, shown, caret = first.render(text).split("\n")
    assert len(shown) < 200 and shown.startswith("    ...")
    assert shown[caret.index("^") : caret.index("^") + len("m8999")] == "m8999" and caret.count("^") == 5
    _, shown, caret = second.render(text).split("\n")
    assert shown.endswith("m8999, m7)") and shown[caret.index("^") :] == "m7)"
    many = parse_error_count(f"grammar g 1\ntool t {{\n    x: enum({', '.join(['m'] * 9_000)})\n}}\n")
    assert many == 8_999


def parse_error_count(text: str) -> int:
    with pytest.raises(SchemaError) as info:
        parse(text, "w.ek")
    assert len(str(info.value)) < 400 * len(info.value.diagnostics)
    return len(info.value.diagnostics)


def test_the_window_of_a_long_line_has_ellipses_on_both_sides_in_the_middle():
    line = "a" * 4999 + "bcd" + "e" * 5000
    _, shown, caret = Diagnostic("f.ek", 1, 5000, "here", length=3).render(line).split("\n")
    assert shown.startswith("    ...a") and shown.endswith("e...") and len(shown) == 4 + 3 + 120 + 3
    assert shown[caret.index("^") :].startswith("bcd") and caret.count("^") == 3


def test_a_zero_written_with_an_exponent_and_the_smallest_float_are_numbers():
    schema = parse(HEAD + "tool t {\n    x: float [0.0e-999..1] compare tol(5e-324)\n}\n", "s.ek")
    (field,) = schema.tools[0].fields
    assert field.constraints.min == 0.0 and field.compare.tolerance == 5e-324


def test_each_error_shown_cleans_only_its_window_of_a_long_line(monkeypatch: pytest.MonkeyPatch) -> None:
    """Many errors on one long line (bad default values before a long doc) are each shown with a window of the
    line: only that window is cleaned of characters a terminal would act on. Cleaning the whole line per error
    made ``ek lint`` quadratic (25 s on a 1 MB line of 2,000 errors)."""
    import ek.grammar.diagnostics as diagnostics

    cleaned: list[int] = []
    real = diagnostics.replaced

    def counting(text: str, **how: str) -> str:
        cleaned.append(len(text))
        return real(text, **how)

    monkeypatch.setattr(diagnostics, "replaced", counting)
    n, doc = 300, "d" * 100_000
    source = "grammar g 1\ntool t {\n    x: list[int] = [" + ", ".join(['"a\x1b"'] * n) + f'] "{doc}"\n}}\n'
    with pytest.raises(SchemaError) as caught:
        parse(source, filename="long.ek")
    report = str(caught.value)
    assert report.count("long.ek:3:") >= n and "\x1b" not in report
    assert cleaned and max(cleaned) <= 120, max(cleaned)


@pytest.mark.parametrize(("char", "escape"), [("\x1b", "\\x1b"), ("\x07", "\\x07"), ("\u202e", "\\u202e"),
                                              ("\u2028", "\\u2028"), ("\x85", "\\x85")])
def test_a_regex_holding_a_character_a_terminal_acts_on_is_refused_with_its_escape(char: str, escape: str) -> None:
    """ek fmt and ek diff print a regex as it is written, so a raw ESC, BEL or bidi override in one would reach the
    terminal (comments and names refuse them already, strings are written escaped): refused, naming the escape
    that spells the same pattern, which lints clean and matches the same text."""
    d = only(HEAD + f"tool t {{\n    x: str /a{char}b/\n}}\n")
    assert (d.line, d.column) == (3, 12) and "a regex cannot hold" in d.message and escape in d.message
    assert char not in d.render(HEAD + f"tool t {{\n    x: str /a{char}b/\n}}\n")
    grammar = parse(HEAD + f"tool t {{\n    x: str /a{escape}b/\n}}\n", "s.ek")
    assert re.fullmatch(grammar.tools[0].fields[0].constraints.pattern, f"a{char}b")


def test_a_regex_may_hold_a_tab() -> None:
    grammar = parse(HEAD + "tool t {\n    x: str /a\tb/\n}\n", "s.ek")
    assert grammar.tools[0].fields[0].constraints.pattern == "a\tb"
