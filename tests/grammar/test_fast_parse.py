"""The fast path of the DSL's parse (``ek.grammar.fastparse``) builds what Lark's parse builds, or gives up
exactly where Lark's parse finds a syntax error."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from ek_grammar_strategies import grammars
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from lark import Lark
from lark.exceptions import UnexpectedInput
from test_grammar_robustness import ALPHABET, mutated

from ek.grammar import GraphGrammar, format_grammar
from ek.grammar import parser as ek_parser
from ek.grammar.builder import BUILDER
from ek.grammar.fastparse import fast_tables, parse_fast

ROOT = Path(__file__).resolve().parents[2]
SETTINGS = settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _benchmark_texts() -> list[str]:
    sys.path.insert(0, str(ROOT / "benchmarks"))
    try:
        from codegen import schema_text, varied_schema_text
    finally:
        sys.path.remove(str(ROOT / "benchmarks"))
    return [schema_text(40), varied_schema_text(40)]


#: Texts without a syntax error: every construct of the DSL, escape errors and too-large numbers among them.
VALID = [
    *(path.read_text(encoding="utf-8") for path in sorted((ROOT / "schemas").glob("*.ek"))),
    *_benchmark_texts(),
    ('grammar g 1\n\ntype Code = str /[A-Z]{3}/ "A code."\ntype N = int [..9]\n'
     'tool "a.b" weight 2.5 { "Doc."\n  "x": enum(a, "b c", 3,\n    d,) = a compare exact\n'
     '  y: list[{ k: int [1..] = 1e3\n  }] = [{k: 2}, {"k": 3}] importance 2 compare unordered\n'
     '  z: float? compare tol(0.01)  # a comment\n  w: str = "bad \\q escape" """long\n doc"""\n'
     "  big: int = 1e999999\n  o: any = {a: [1, -2.5, x], b: {}} compare ignore }\n"),
]


def read(parser: Lark, text: str, fast: bool) -> object:
    """What one parse of normalized ``text`` gives: (declarations, escape errors), the exception a builder
    callback raised, or, from the fast path, "gave up"."""
    BUILDER.begin("f.ek")
    try:
        decls = parse_fast(parser, text) if fast else parser.parse(text)
    except UnexpectedInput:
        return "syntax error"
    except Exception as err:  # noqa: BLE001 - the same exception from both parses is what is compared
        return type(err), str(err)
    if decls is None:
        return "gave up"
    return decls, list(BUILDER.token_errors)


def assert_same(text: str, parser: Lark | None = None) -> object:
    parser = parser or ek_parser.lark_parser()
    text = ek_parser.normalize(text) + "\n"
    by_lark = read(parser, text, fast=False)
    by_fast = read(parser, text, fast=True)
    assert by_fast == ("gave up" if by_lark == "syntax error" else by_lark)
    return by_fast


@pytest.mark.parametrize("text", VALID)
def test_valid_texts_take_the_fast_path(text: str) -> None:
    assert assert_same(text) != "gave up"


def test_a_built_parser_reads_as_the_cached_one(monkeypatch: pytest.MonkeyPatch) -> None:
    """The tables of a freshly built parser (not loaded from the cache) are read the same way."""
    monkeypatch.setattr(ek_parser, "_cached_tables", lambda path: None)
    monkeypatch.setattr(sys, "dont_write_bytecode", True)
    ek_parser.lark_parser.cache_clear()
    try:
        built = ek_parser.lark_parser()
        for text in VALID:
            assert assert_same(text, built) != "gave up"
    finally:
        ek_parser.lark_parser.cache_clear()


def test_other_lark_internals_mean_no_fast_path() -> None:
    other = Lark("start: NAME\nNAME: /[a-z]+/\n", parser="lalr", lexer="basic")
    assert fast_tables(other) is None
    assert parse_fast(other, "abc") is None


@SETTINGS
@given(grammars())
def test_printed_grammars(grammar: GraphGrammar) -> None:
    assert assert_same(format_grammar(grammar)) != "gave up"


@SETTINGS
@given(st.lists(ALPHABET, max_size=60).map("".join))
def test_grammar_like_text(text: str) -> None:
    assert_same("grammar g 1\n" + text)


@SETTINGS
@given(st.text(max_size=120))
def test_random_text(text: str) -> None:
    assert_same(text)


@SETTINGS
@given(mutated())
def test_mutated_examples(text: str) -> None:
    assert_same(text)
