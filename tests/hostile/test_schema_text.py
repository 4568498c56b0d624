"""Hostile text inside schemas, at each owner: escapes that make half a character, names with control
characters, numbers past a float, diagnostics that would drive a terminal, docs the generator must carry."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from handbuilt import import_source
from hypothesis import given, settings
from hypothesis import strategies as st

from ek.codegen import GenerationError, generate, module_filename
from ek.grammar import SchemaError, format_grammar, parse
from ek.grammar.diagnostics import Diagnostic
from ek.grammar.model import EnumType, FieldSpec, GraphGrammar, PrimitiveType, ToolSpec
from ek.grammar.names import unfit_character
from ek.grammar.strings import EscapeError, decode_escapes, to_float


@pytest.mark.parametrize(("body", "value"), [
    (r"\ud83d\ude00", "\U0001f600"),
    (r"a\uD83D\uDE00b", "a\U0001f600b"),
    (r"\U0001F600", "\U0001f600"),
])
def test_a_surrogate_pair_escape_is_one_character(body: str, value: str) -> None:
    assert decode_escapes(body) == value


@pytest.mark.parametrize(("body", "offset"), [(r"\ud800", 0), (r"ab\udc00", 2), (r"\ud83d\u0041", 0),
                                              (r"\ud83d", 0), (r"x\ud83d\ud83d", 1)])
def test_half_a_character_is_refused_where_it_is_written(body: str, offset: int) -> None:
    with pytest.raises(EscapeError, match="lone UTF-16 surrogate") as info:
        decode_escapes(body)
    assert info.value.offset == offset


@pytest.mark.parametrize(("name", "bad"), [("a\x00", "U+0000"), ("\x1b[31m", "U+001B"), ("a\x7fb", "U+007F"),
                                           ("a\x85", "U+0085"), ("a\u2028b", "U+2028"), ("evil\u202etxt.exe", "U+202E"),
                                           ("café", None), ("math.hypot", None), ("a b", None)])
def test_names_hold_no_control_characters(name: str, bad: str | None) -> None:
    assert unfit_character(name) == bad


def test_names_with_control_characters_are_refused_and_enum_members_are_values() -> None:
    with pytest.raises(SchemaError) as info:
        parse('grammar g 1\ntool "a\\u0007" {\n    "x\\ty": str\n    ok: enum("bell \\u0007", b)\n}\n', "n.ek")
    assert [(d.line, d.column, d.message) for d in info.value.diagnostics] == [
        (2, 6, "a tool name cannot hold the control character U+0007"),
        (3, 5, "an argument name cannot hold the control character U+0009"),
    ]


@pytest.mark.parametrize(("name", "message"), [
    ("a\\u0000b", "a grammar name cannot hold the control character U+0000"),
    ("\\u001b[31mred", "a grammar name cannot hold the control character U+001B"),
    ("evil\\u202etxt", "a grammar name cannot hold the control character U+202E"),
    ("a b", "grammar name 'a b' must be non-empty, without spaces or '@'"),
])
def test_a_grammar_name_is_refused_saying_why(name: str, message: str) -> None:
    with pytest.raises(SchemaError) as info:
        parse(f'grammar "{name}" 1\ntool t {{\n    x: str\n}}\n', "n.ek")
    assert [(d.line, d.column, d.message) for d in info.value.diagnostics] == [(1, 1, message)]


def test_numbers_past_a_float_are_refused_not_converted() -> None:
    assert to_float(10**308) == 1e308 and to_float(10**309) is None
    with pytest.raises(SchemaError) as info:
        parse("grammar g 1\ntool t weight " + "9" * 400 + " {\n    x: float = " + "9" * 400 + "\n}\n", "f.ek")
    assert [(d.line, d.column) for d in info.value.diagnostics] == [(2, 15), (3, 16)]
    assert all("too large for a float" in d.message for d in info.value.diagnostics)


def test_diagnostics_show_schema_text_without_control_sequences() -> None:
    d = Diagnostic("t.ek", 1, 9, "unknown type 'x\x1b[2J'", length=3)
    shown = d.render("x: \x1b[31m\x07 zzz\r")
    assert shown == "t.ek:1:9: error: unknown type 'x\\x1b[2J'\n    x: \ufffd[31m\ufffd zzz\n            ^^^"


def _with_doc(doc: str) -> GraphGrammar:
    return GraphGrammar("d", 1, (ToolSpec("t", (FieldSpec("x", PrimitiveType("str"), doc=doc),), doc=doc),))


@settings(max_examples=60, deadline=None)
@given(doc=st.text(st.characters(blacklist_categories=()), max_size=40))
def test_a_doc_the_generator_accepts_yields_a_module_that_imports(doc: str, tmp_path_factory) -> None:
    grammar = _with_doc(doc)
    try:
        source = generate(grammar)
    except GenerationError as err:
        assert "lone UTF-16 surrogate" in str(err)
        assert any("\ud800" <= ch <= "\udfff" for ch in doc)
        return
    module = import_source(source, tmp_path_factory.mktemp("doc"), module_filename(grammar)[:-3])
    assert module.T.__doc__ == doc and module.GRAMMAR.tool("t").doc == doc


def test_a_grammar_built_in_code_with_half_a_character_is_a_generation_error(tmp_path: Path) -> None:
    grammar = GraphGrammar("g", 1, (ToolSpec("t", (FieldSpec("x", EnumType(("ok", "\udc00"))),)),))
    with pytest.raises(GenerationError, match="lone UTF-16 surrogate"):
        generate(grammar)


@pytest.mark.parametrize("ch", ["\x1b", "\x07", "\x7f", "\x85", "\x9b", "\u2028", "\u202e", "\u2066", "\u2069"])
def test_printed_schema_text_spells_controls_and_bidi_overrides_as_escapes(ch: str) -> None:
    """fmt and import write what a string holds, never a character that a terminal or an editor would act on
    or display out of order (C1's CSI, a bidi override): it is written as an escape and reads back the same."""
    member, doc = f"a{ch}b", f"line one{ch}\nline two"
    grammar = GraphGrammar("g", 1, (ToolSpec("t", (FieldSpec("x", EnumType((member, "c")), doc=doc),), doc=doc),))
    text = format_grammar(grammar)
    assert ch not in text and f"\\u{ord(ch):04x}" in text
    again = parse(text)
    assert again.tools[0].fields[0].type.members[0] == member and again.tools[0].doc == doc


@pytest.mark.parametrize(("comment", "column", "what"), [
    ("# \x1b]0;retitled\x07\x1b[2J", 15, "control character U+001B"),
    ("# looks fine \u202e txt.exe", 26, "bidi control U+202E"),
    ("# a C1 control \x9b31m", 28, "control character U+009B"),
])
def test_a_comment_holding_a_control_or_bidi_character_is_refused_where_it_is(comment: str, column: int,
                                                                               what: str) -> None:
    """ek fmt and ek diff write comments out as they are: such a character would reach the terminal (or reorder
    what it shows, the "Trojan Source" attack), so lint and fmt refuse it at its line and column."""
    from ek.grammar.formatter import format_source

    text = f"grammar t 1\ntool f {{\n    x: str  {comment}\n}}\n"
    for read in (parse, format_source):
        with pytest.raises(SchemaError) as info:
            read(text, "c.ek")
        (d,) = info.value.diagnostics
        assert (d.line, d.column) == (3, column) and d.message.startswith(f"a comment cannot hold the {what}: ")


def test_a_tab_in_a_comment_and_control_characters_in_strings_are_fine() -> None:
    from ek.grammar.formatter import format_source

    text = 'grammar t 1\n# a\ttab\ntool f {\n    x: enum("a\x1b#b", c)  # after\n}\n'
    assert parse(text, "c.ek").tools[0].fields[0].type == EnumType(("a\x1b#b", "c"))
    assert "\x1b" not in format_source(text, "c.ek") and "\\u001b#b" in format_source(text, "c.ek")


@pytest.mark.slow
def test_json_printed_from_a_schema_spells_c1_and_bidi_controls_as_escapes(tmp_path: Path) -> None:
    """ek export, ek diff --json and ek lint --json print JSON whose strings hold schema text (a description,
    an enum member, a diagnostic's source line): JSON itself escapes only C0, so DEL, C1's CSI, a line
    separator and bidi controls are written ``\\uXXXX`` too. The JSON reads back to the same strings."""
    from ekcli import run_ek

    controls = "\x7f\x85\x9b\u2028\u202e\u2066"
    hostile = controls.replace("\x9b", "\x9b2J")
    text = f'grammar g 1\ntool t {{\n    "Looks fine {hostile} txt.exe"\n    x: enum("a{hostile}", b)\n}}\n'
    old = tmp_path / "old.ek"
    old.write_text(text, encoding="utf-8")
    (tmp_path / "new.ek").write_text(text.replace(f'"a{hostile}", ', ""), encoding="utf-8")
    (tmp_path / "bad.ek").write_text(text.replace("}", f'    y: int = "a{hostile}"\n}}'), encoding="utf-8")
    runs = {
        "export": run_ek("export", "--to", "openai", old),
        "export one line": run_ek("export", "--to", "jsonschema", "--indent", "0", old),
        "diff": run_ek("diff", "--json", old, tmp_path / "new.ek"),
        "lint": run_ek("lint", "--json", tmp_path / "bad.ek"),
    }
    for what, done in runs.items():
        assert done.stdout and not any(ch in done.stdout for ch in controls), (what, done.stdout, done.stderr)
        assert "\\u202e" in done.stdout, what
        read = [json.loads(line) for line in done.stdout.splitlines()] if what == "lint" else json.loads(done.stdout)
        assert hostile in json.dumps(read, ensure_ascii=False), what  # the same strings, read back
