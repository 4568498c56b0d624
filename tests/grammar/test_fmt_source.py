"""format_source: the canonical layout, with every comment kept where a reader expects it."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ek.grammar import SchemaError, parse
from ek.grammar.formatter import format_source

SCHEMAS = Path(__file__).resolve().parents[2] / "schemas"

MESSY = """\
# Travel, v2.

grammar   travel 2   # header note
# Airports
type Airport = str   /[A-Z]{3}/        # IATA code
tool search_flights{   # opens
    "Search flights."
    # the origin
    origin  :Airport   importance 2  # o


    destination: Airport importance 2
    cabin: enum(economy,   # first
       "premium class") = economy
    metadata: {  # meta
        priority: int [1..5]  # p
        # about notes
        notes: str?
        # dangling in object
    }?  # after meta
    # dangling at end
}  # closed
tool empty {}
# trailing file comment
"""

CANONICAL = """\
# Travel, v2.

grammar travel 2  # header note

# Airports
type Airport = str /[A-Z]{3}/  # IATA code

tool search_flights {  # opens
    "Search flights."
    # the origin
    origin: Airport importance 2  # o

    destination: Airport importance 2
    cabin: enum(economy, "premium class") = economy  # first
    metadata: {  # meta
        priority: int [1..5]  # p
        # about notes
        notes: str?
        # dangling in object
    }?  # after meta
    # dangling at end
}  # closed

tool empty {}
# trailing file comment
"""


def test_messy_file_gets_the_canonical_layout_with_comments():
    assert format_source(MESSY) == CANONICAL


def test_formatting_is_idempotent_and_keeps_meaning():
    once = format_source(MESSY)
    assert format_source(once) == once
    assert parse(once) == parse(MESSY)


@pytest.mark.parametrize("name", ["travel-v1.ek", "travel-v2.ek"])
def test_examples(name):
    text = (SCHEMAS / name).read_text(encoding="utf-8")
    out = format_source(text)
    assert parse(out) == parse(text)
    assert format_source(out) == out
    assert out.splitlines()[0] == text.splitlines()[0]  # the leading comment stays on top
    if name == "travel-v2.ek":
        assert "type Airport = str /[A-Z]{3}/  # IATA code, matched in full" in out
        # canonical option order: importance before compare
        assert "    flight_id: str importance 3 compare exact\n" in out


def test_hash_inside_strings_and_regexes_is_not_a_comment():
    text = 'grammar g 1\ntool t {\n    "see #1"\n    x: str /#\\/#/ = "#/#" "doc # here"\n}\n'
    out = format_source(text)
    assert out == 'grammar g 1\n\ntool t {\n    "see #1"\n    x: str /#\\/#/ = "#/#" "doc # here"\n}\n'


def test_formatting_a_broken_file_reports_instead_of_guessing():
    with pytest.raises(SchemaError):
        format_source("grammar g 1\ntool t {\n    x: strng\n}\n")


def test_long_doc_keeps_its_lines():
    text = 'grammar g 1\ntool t {\n        """First.\n        Second.\n\n          Indented."""\n}\n'
    out = format_source(text)
    assert '    """First.\n    Second.\n\n      Indented."""\n' in out
    assert parse(out).tool("t").doc == "First.\nSecond.\n\n  Indented."


def test_comments_around_the_tool_doc_stay_put():
    text = 'grammar g 1\ntool t {\n    # before doc\n    """Doc\n    more"""  # after doc\n    # before a\n    a: int\n}\n'
    assert format_source(text) == "grammar g 1\n\n" + text[len("grammar g 1\n"):]


EXAMPLE_TEXTS = [(SCHEMAS / n).read_text(encoding="utf-8") for n in ("travel-v1.ek", "travel-v2.ek")]


@pytest.mark.slow
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(EXAMPLE_TEXTS), st.data())
def test_comments_anywhere_in_hand_written_files_are_kept(text, data):
    out, in_doc = [], False
    for index, line in enumerate(text.split("\n")):
        if not in_doc and data.draw(st.booleans(), label=f"own {index}"):
            out.append(" " * data.draw(st.integers(0, 8), label="indent") + f"# c{index}")
        quotes = line.count('"""')
        if not in_doc and not quotes and line.strip() and data.draw(st.booleans(), label=f"eol {index}"):
            line += f"   # e{index}"
        in_doc ^= quotes % 2 == 1
        out.append(line)
    commented = "\n".join(out)
    formatted = format_source(commented)
    assert parse(formatted) == parse(text)
    assert format_source(formatted) == formatted
    wanted = sorted(re.findall(r"# [ce]\d+", commented))
    assert sorted(re.findall(r"# [ce]\d+", formatted)) == wanted


def test_enums_too_long_for_one_line_wrap_one_member_per_line():
    members = ", ".join(f"member_number_{i}" for i in range(8))
    text = f"grammar g 1\ntool t {{\n    x: list[enum({members})]? compare exact  # note\n}}\n"
    out = format_source(text)
    assert out.startswith("grammar g 1\n\ntool t {\n    x: list[enum(\n        member_number_0,\n")
    assert "        member_number_7,\n    )]? compare exact  # note\n}\n" in out
    assert format_source(out) == out and parse(out) == parse(text)
    short = "grammar g 1\n\ntool t {\n    x: enum(a, b)\n}\n"
    assert format_source(short) == short


@pytest.mark.parametrize(
    "doc",
    ['"""Doc\n        """', '"""Doc   \n    more  \n    """', '"""\n    Doc\n\t\n    """', '"""Doc\\t\n  x"""'],
)
def test_long_docs_with_trailing_whitespace_format_stably(doc):
    """Whitespace at the end of a doc's lines is invisible: it must not grow or change on each fmt run."""
    text = f"grammar d 1\ntool t {{\n    {doc}\n    x: int\n}}\n"
    once = format_source(text)
    assert format_source(once) == once
    assert parse(once) == parse(text)
    assert not any(line != line.rstrip() for line in once.split("\n"))


_REPO = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("schema", sorted([*_REPO.glob("examples/**/*.ek"), *_REPO.glob("schemas/*.ek")]),
                         ids=lambda p: f"{p.parent.name}/{p.name}")
def test_the_bundled_schemas_are_in_the_formatters_layout(schema: Path) -> None:
    """The schemas ek ships (examples/, schemas/) are what `ek fmt --check` accepts: a user who runs it on
    them in CI, as docs/dsl.md suggests, sees no change asked of ek's own files."""
    text = schema.read_text(encoding="utf-8")
    assert format_source(text) == text
