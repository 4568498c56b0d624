"""The emitter's fast paths give what the general paths they skip would give."""

from __future__ import annotations

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from ek.codegen.literals import LiteralError, py_literal
from ek.codegen.patterns import specialise
from ek.codegen.source import Lines, PathExpr
from ek.codegen.validators import Tables, ValidatorEmitter
from ek.grammar.model import GraphGrammar

STEPS = st.lists(st.one_of(st.tuples(st.just("key"), st.text(max_size=6)), st.tuples(st.just("index"), st.just("i0"))),
                 max_size=5)


@given(STEPS)
def test_path_text_is_its_pieces_joined(steps: list[tuple[str, str]]) -> None:
    path = PathExpr.root()
    for op, arg in steps:
        path = path.key(arg) if op == "key" else path.index(arg)
    assert path.text() == "".join(text if kind == "lit" else "*" for kind, text in path.parts)


@given(st.lists(st.one_of(st.text(alphabet="ab'\\\"é\n", max_size=4), st.text(max_size=8)), max_size=6))
@example(["ab", "a", "b"])
def test_remembered_str_literals_are_py_literal(values: list[str]) -> None:
    emitter = ValidatorEmitter(GraphGrammar("g", 1), Tables())
    for value in values + values:  # each twice: the second from memory
        try:
            expected = py_literal(value)
        except LiteralError:
            continue
        assert emitter._str_literal(value) == expected


@given(st.sampled_from(["[A-Z]{3}", r"\d+", "[a-z0-9_-]{2,8}", "[A-Z]{3}|x", "x+"]), st.sampled_from(["v0", "s"]))
def test_a_remembered_specialisation_is_for_its_own_variable(pattern: str, var: str) -> None:
    fast = specialise(pattern, var)
    assert fast == specialise.__wrapped__(pattern, var)
    assert fast is None or var in fast


def test_lines_deeper_than_the_indent_table() -> None:
    code = Lines(level=40)
    code.line("x = 1")
    assert code.text() == "    " * 40 + "x = 1"


def test_a_violation_head_takes_only_the_generators_own_renderers() -> None:
    tables = Tables()
    assert tables.head("$.a", "expected str, got ", "_type_name") == "_H0"
    assert tables.head("$.a", "expected str, got ", "_type_name") == "_H0"  # stored once
    with pytest.raises(ValueError, match="renderer"):
        tables.head("$.a", "x", "__import__('os')")
