"""Patterns holding raw line breaks print as escapes the parser reads back (same regex, one line)."""

import re

import pytest

from ek.grammar import parse
from ek.grammar.model import Constraints, FieldSpec, GraphGrammar, PrimitiveType, ToolSpec
from ek.grammar.printer import format_grammar


@pytest.mark.parametrize("pattern", ["a\rb", "a\nb", "a\r\nb", "x\\\rb"])
def test_raw_line_breaks_in_patterns_print_as_escapes(pattern):
    g = GraphGrammar("g", 1, (ToolSpec("t", (FieldSpec("p", PrimitiveType("str"), Constraints(None, None, pattern)),)),))
    back = parse(format_grammar(g)).tools[0].fields[0].constraints.pattern
    for text in ("a\rb", "a\nb", "a\r\nb", "x\rb", "ab"):
        assert bool(re.fullmatch(back, text)) == bool(re.fullmatch(pattern, text))


def test_grammars_with_list_defaults_hash():
    g = parse("grammar g 1\ntool t {\n    x: list[int] = []\n}\n")
    assert hash(g) == hash(parse("grammar g 1\ntool t {\n    x: list[int] = []\n}\n"))
