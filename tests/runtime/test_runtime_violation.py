"""Violations behave as the pair (path, reason), however generated code built them."""

from __future__ import annotations

import copy
import pickle

import pytest

from ek.codegen import generate
from ek.grammar.model import (
    Constraints,
    EnumType,
    FieldSpec,
    GraphGrammar,
    ListType,
    PrimitiveType,
    ToolSpec,
)
from ek.runtime import Violation, compile_grammar
from ek.runtime.violation import Head, make_violation, short_repr, type_name

LAZY = {  # the layouts generated code builds: pieces of a path with a list index, or a head made at import
    "pieces": lambda: make_violation((("$.names[", 2, "]"), "expected str, got ", type_name, 7)),
    "head": lambda: make_violation((Head(("$.names[2]", "expected str, got ", type_name)), 7)),
}


@pytest.mark.parametrize("layout", sorted(LAZY))
def test_violation_built_lazily_equals_hashes_and_prints_as_the_pair(layout: str) -> None:
    eager = Violation("$.names[2]", "expected str, got int")
    v = LAZY[layout]()
    assert v == eager == ("$.names[2]", "expected str, got int") and (v != eager) is False
    assert hash(v) == hash(eager) == hash(("$.names[2]", "expected str, got int"))
    assert (v.path, v.reason) == tuple(v) == (v[0], v[1]) and len(v) == 2 and v[-1] == v.reason
    path, reason = v
    assert str(v) == f"{path}: {reason}" and repr(v) == repr(eager)
    assert repr(v) == "Violation(path='$.names[2]', reason='expected str, got int')"
    assert sorted([v, Violation("$.a", "b")]) == [("$.a", "b"), eager]
    assert {v: 1}[eager] == 1 and "$.names[2]" in v and v.count(reason) == 1 and v.index(reason) == 1
    assert v._asdict() == {"path": "$.names[2]", "reason": "expected str, got int"}
    assert v._replace(reason="r") == Violation("$.names[2]", "r")
    for clone in (pickle.loads(pickle.dumps(v)), copy.copy(v), copy.deepcopy(v)):
        assert clone == v and type(clone) is Violation


def test_violation_constructor_takes_two_strings() -> None:
    with pytest.raises(TypeError, match="two strings"):
        Violation("$.a", 3)  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        Violation("$.a")  # type: ignore[call-arg]


def test_short_repr_never_raises() -> None:
    class Broken:
        def __repr__(self) -> str:
            raise RuntimeError("no")

    assert short_repr(10**5000) == "<int of 16610 bits>"
    assert short_repr(Broken()) == "<Broken object>"
    assert short_repr("x" * 1000) == repr("x" * 1000)[:80]


GRAMMAR = GraphGrammar(
    "odd",
    1,
    tools=(
        ToolSpec(
            "t",
            (
                FieldSpec("n", PrimitiveType("int"), Constraints(1, 9)),
                FieldSpec("e", EnumType(("a", "b")), required=False),
                FieldSpec("d", PrimitiveType("date"), required=False),
                FieldSpec("xs", ListType(PrimitiveType("int")), required=False),
            ),
        ),
    ),
)


def test_validators_report_huge_ints_and_odd_keys_instead_of_raising() -> None:
    """repr() of an int past 4300 digits raises ValueError; a violation message must not."""
    m = compile_grammar(GRAMMAR)
    huge = 10**5000
    got = m.validate("t", {"n": huge, "e": huge, "d": huge, huge: 1})
    assert [v.path for v in got] == ["$.n", "$.e", "$.d", "$[<int of 16610 bits>]"]
    assert got[0].reason == "must be in [1..9], got <int of 16610 bits>"
    assert got[1].reason.endswith("got <int of 16610 bits>") and got[3].reason == "unknown argument"
    assert m.validate(huge, {}) == [Violation("$", "unknown tool <int of 16610 bits>")]  # type: ignore[arg-type]


def test_a_reason_does_not_change_when_the_caller_mutates_the_value_later() -> None:
    m = compile_grammar(GRAMMAR)
    bad = ["x"]
    got = m.validate("t", {"n": 1, "e": bad, "d": bad})
    before = [str(v) for v in got]
    bad.append("changed")
    assert [str(v) for v in got] == before and "changed" not in "".join(before)


def test_list_item_paths_are_built_only_when_read_and_are_exact() -> None:
    m = compile_grammar(GRAMMAR)
    assert m.validate("t", {"n": 1, "xs": [1, "2", 3, None]}) == [
        Violation("$.xs[1]", "expected int, got str"),
        Violation("$.xs[3]", "expected int, got NoneType"),
    ]
    assert "str(i" not in generate(GRAMMAR)  # no path text is formatted on the happy path


def test_a_violation_with_a_fixed_path_is_built_on_a_head_made_at_import() -> None:
    source = generate(GRAMMAR)
    assert "_H0 = _VH(('$.n', 'expected int, got ', _type_name))" in source and "errs.append(_V((_H0, v0)))" in source
    got = compile_grammar(GRAMMAR).validate("t", {"n": 12, "e": "c"})
    assert got == [("$.n", "must be in [1..9], got 12"), ("$.e", "expected one of 'a', 'b', got 'c'")]
    assert all(type(v[0]) is str for v in got)  # what is read is the pair, never the head
