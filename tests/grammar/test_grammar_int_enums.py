"""Enums of integers (and of text and integers): parsed, checked, formatted and diffed like text enums."""

from __future__ import annotations

import pytest

from ek.grammar import EnumType, SchemaError, diff, format_grammar, parse

SOURCE = '''grammar g 1

type Level = enum(1, 2, 3)

tool t {
    level: Level = 2
    angle: enum(0, 90, 180, -90)?
    mixed: enum(auto, 0, "1") = auto
    big: enum(
        10000000000000000000000,
        7
    ) = 7
}
'''


def test_integer_members_are_ints_and_quoted_digits_stay_text() -> None:
    g = parse(SOURCE)
    assert g.type_alias("Level").type == EnumType((1, 2, 3))
    tool = g.tool("t")
    assert tool.field("level").default == 2 and type(tool.field("level").default) is int
    assert tool.field("angle").type == EnumType((0, 90, 180, -90))
    assert tool.field("mixed").type == EnumType(("auto", 0, "1"))
    assert tool.field("big").type == EnumType((10**22, 7))
    text = format_grammar(g)
    assert "enum(auto, 0, \"1\")" in text and "enum(0, 90, 180, -90)" in text
    assert parse(text) == g


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("x: enum(1.5, 2)", "an enum member is a name, a \"string\" or an integer, not the number 1.5"),
        ("x: enum(1e3)", "not the number 1000.0"),
        ("x: enum(1, 2, 1)", "duplicate enum member 1 (first at line 3)"),
        ("x: enum(1, 2) = \"1\"", "default '1' is not a member of enum(1, 2)"),
        ("x: enum(1, 2) = 1.0", "default 1.0 does not fit enum(1, 2)"),
        ("x: enum(1, 2) = true", "default 'true' is not a member of enum(1, 2)"),
        ("x: enum(1, 2) = 3", "default 3 does not fit enum(1, 2)"),
        ("x: enum(1, 2) compare tol(1)", "compare tol applies to int and float, not enum(1, 2)"),
    ],
)
def test_integer_member_errors(line: str, message: str) -> None:
    with pytest.raises(SchemaError) as err:
        parse(f"grammar g 1\ntool t {{\n    {line}\n}}\n")
    (diagnostic,) = err.value.diagnostics
    assert message in diagnostic.message


def test_zero_is_a_member_not_an_empty_one() -> None:
    assert parse("grammar g 1\ntool t {\n    x: enum(0) = 0\n}\n").tool("t").field("x").default == 0


@pytest.mark.parametrize(
    ("old", "new", "kind", "breaking"),
    [
        ("enum(1, 2)", "enum(1, 2, 3)", "enum-member-added", False),
        ("enum(1, 2)", "enum(1)", "enum-member-removed", True),
        ("enum(1, 2)", "int", "type-widened", False),
        ("enum(1, 2)", "float", "type-widened", False),
        ("int", "enum(1, 2)", "type-narrowed", True),
        ("enum(1, 2)", "str", "type-changed", True),
        ("enum(a, 1)", "str", "type-changed", True),
        ("enum(a, b)", "str", "type-widened", False),
    ],
)
def test_diff_knows_integer_enums(old: str, new: str, kind: str, breaking: bool) -> None:
    report = diff(parse(f"grammar g 1\ntool t {{\n    x: {old}\n}}\n"), parse(f"grammar g 1\ntool t {{\n    x: {new}\n}}\n"))
    assert [(c.kind, c.breaking) for c in report.changes] == [(kind, breaking)]
