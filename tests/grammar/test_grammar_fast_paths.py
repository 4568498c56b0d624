"""The grammar's fast paths give what the general paths they skip would give."""

from __future__ import annotations

from ek_grammar_strategies import typed
from hypothesis import given
from hypothesis import strategies as st

from ek.grammar import names, parse
from ek.grammar.checker import _Checker, _is_scalar
from ek.grammar.syntax import FileSyn

#: Names near the fast path's edge: a leading ``_`` or digit, a keyword, non-ASCII letters, punctuation.
NAMES = st.one_of(
    st.from_regex(r"[A-Za-z0-9_]{1,8}", fullmatch=True),
    st.sampled_from(["_a", "a_", "9a", "match", "from", "self", "é", "aé", "a-b", "", "A", "Z9_"]),
    st.text(max_size=8),
)


@given(NAMES)
def test_plain_identifiers_are_their_own_escape(name: str) -> None:
    if names._is_plain_identifier(name):
        assert names._escaped(name) == name


@given(NAMES | st.text(alphabet=st.characters(max_codepoint=0x17F), max_size=6))
def test_plain_identifiers_are_what_the_regex_matches(name: str) -> None:
    assert names._is_plain_identifier(name) == (names._PLAIN_IDENTIFIER.fullmatch(name) is not None)


@given(NAMES | st.text(alphabet=st.characters(max_codepoint=0x2070), max_size=6))
def test_unfit_characters_are_what_the_search_finds(name: str) -> None:
    found = names._NOT_IN_NAMES.search(name)
    assert names.unfit_character(name) == (None if found is None else f"U+{ord(found.group()):04X}")


@given(NAMES | st.sampled_from(["case", "_", "type", "cls", "args", "None", "True", "x", "x_"]))
def test_own_safe_identifiers_are_what_safe_identifier_keeps(name: str) -> None:
    assert names.is_own_safe_identifier(name) == (names.safe_identifier(name) == name)


@given(NAMES | st.text(alphabet=st.characters(max_codepoint=0x17F), max_size=6))
def test_path_segments_are_what_the_regex_says(name: str) -> None:
    assert names.path_segment(name) == ("." + name if names._PATH_IDENT.fullmatch(name) else
                                        "[" + names.json.dumps(name, ensure_ascii=False) + "]")


def _escaped_char_by_char(name: str) -> str:
    """``names._escaped`` as it reads every name (its general path): a replacement per character."""
    out = [ch if ch.isascii() and (ch.isalnum() or ch == "_") else "_" if ch.isascii() else f"_u{ord(ch):04x}"
           for ch in name]
    ident = "".join(out) or "x"
    return "x" + ident if ident[0] == "_" or ident[0].isdigit() else ident


@given(NAMES | st.text(alphabet=st.characters(max_codepoint=127), max_size=12)
       | st.from_regex(r"[a-z]{1,5}([.\-/ ][a-z0-9]{1,5}){1,3}", fullmatch=True))
def test_an_ascii_name_is_escaped_as_character_by_character(name: str) -> None:
    """The ASCII fast path of ``_escaped`` (one substitution): dotted BFCL names, punctuation, control
    characters, leading ``_`` and digits; non-ASCII names take the general path and are held to it too."""
    assert names._escaped(name) == _escaped_char_by_char(name)


@given(NAMES)
def test_safe_identifier_is_the_escape_with_a_keyword_suffix(name: str) -> None:
    escaped = names._escaped(name)
    reserved = names.keyword.iskeyword(escaped) or names.keyword.issoftkeyword(escaped) or escaped in names.RESERVED
    assert names.safe_identifier(name) == escaped + ("_" if reserved else "")


@given(typed({}))
def test_scalar_types_nest_nothing(drawn: tuple) -> None:
    node = drawn[0]
    if _is_scalar(node):
        assert _Checker(FileSyn("x.ek", ())).nesting(node) == (0, 0)


def test_spans_run_from_the_first_token_to_the_last() -> None:
    text = 'grammar g 1\ntool t weight 2 {\n    "Doc."\n    a: list[int] [1..3] = [1] importance 2\n}\n'
    tool = parse(text, "x.ek").tool("t")
    assert (tool.loc.line, tool.loc.column, tool.loc.end_line, tool.loc.end_column) == (2, 1, 5, 2)
    arg = tool.field("a").loc
    assert (arg.line, arg.column, arg.end_line, arg.end_column) == (4, 5, 4, 43)
