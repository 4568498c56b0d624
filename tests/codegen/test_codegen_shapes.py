"""The compile gate by shapes (ek.codegen.shapes): it passes exactly the modules that compile, checks each
distinct validator shape once, and refuses every way a filler or a marker could make a module not compile."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ek.codegen import GenerationError, compile_checked, generate
from ek.codegen.emitter import render
from ek.codegen.shapes import PlannedSource, check_planned
from ek.codegen.validators import Body
from ek.grammar.model import (
    Constraints,
    EnumType,
    FieldSpec,
    GraphGrammar,
    ListType,
    ObjectType,
    PrimitiveType,
    ToolSpec,
)


def _compile(text: str, what: str) -> None:
    compile(text, what, "exec", dont_inherit=True)


def _alike(i: int) -> ToolSpec:
    """Tools alike but for their names, strings and bounds: one shape."""
    return ToolSpec(f"tool {i}'s", (
        FieldSpec(f"name_{i}", PrimitiveType("str"), Constraints(1, 10 + i)),
        FieldSpec("mode", EnumType((f"m{i}", "it's")), required=False),
        FieldSpec("items", ListType(ObjectType((FieldSpec(f"k{i}", PrimitiveType("int"), Constraints(i, None)),))),
                  required=False),
    ), doc=f'"""; import os  # {i}')


def test_tools_alike_share_one_shape_and_the_module_is_what_compiles() -> None:
    grammar = GraphGrammar("alike", 1, tools=tuple(_alike(i) for i in range(5)))
    source = render(grammar)
    assert isinstance(source, PlannedSource)
    assert len({body.skeleton for _, _, body in source.validators}) == 1
    assert source == source.head + "".join(
        f"\n\ndef {name}(args: Any) -> list[Violation]:\n    {doc}\n{body.text()}\n" for name, doc, body in source.validators
    ) + source.tail
    compile(str(source), "module", "exec", dont_inherit=True)  # what the shapes stand for compiles
    assert generate(grammar) == source


names = st.sampled_from(["a", "b", "max-results", "from", "class", "x y", "ü", "v0", "'\x00\"", "\\x00L0\\x00"])
scalars = st.one_of(
    st.tuples(st.just(PrimitiveType("str")), st.sampled_from([Constraints(), Constraints(1, 4), Constraints(pattern="[a-c]+")])),
    st.tuples(st.just(PrimitiveType("int")), st.sampled_from([Constraints(), Constraints(-2, 5), Constraints(0, None)])),
    st.tuples(st.just(PrimitiveType("float")), st.sampled_from([Constraints(), Constraints(None, 2.5), Constraints(1e-5, 1e16)])),
    st.tuples(st.sampled_from([PrimitiveType("bool"), PrimitiveType("date"), PrimitiveType("any")]), st.just(Constraints())),
    st.tuples(st.lists(st.sampled_from(["x", "y z", "it's", "\x00"]), min_size=1, max_size=3, unique=True)
              .map(lambda m: EnumType(tuple(m))), st.just(Constraints())),
    st.tuples(st.lists(st.integers(-3, 3), min_size=1, max_size=3, unique=True).map(lambda m: EnumType(tuple(m))),
              st.just(Constraints())),
)
fields = st.lists(
    st.tuples(names, st.one_of(scalars, scalars.map(lambda t: (ListType(t[0]), Constraints()))), st.booleans())
    .map(lambda t: FieldSpec(t[0], t[1][0], t[1][1], required=t[2])),
    max_size=4, unique_by=lambda f: f.name,
).map(tuple)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(fields, min_size=1, max_size=4))
def test_the_shape_gate_passes_modules_that_compile(tools: list[tuple[FieldSpec, ...]]) -> None:
    grammar = GraphGrammar("random", 1, tools=tuple(ToolSpec(f"t{i}", f) for i, f in enumerate(tools)))
    source = render(grammar)
    check_planned(source, "random", _compile)
    compile(str(source), "module", "exec", dont_inherit=True)


def _planned(body: Body, name: str = "validate_t", doc: str = "'doc'", head: str = "X = 1\n") -> PlannedSource:
    return PlannedSource("not checked as text", head, "Y = 2\n", [(name, doc, body)])


@pytest.mark.parametrize("body, why", [
    (Body("    \x00L0\x00 = 1\n    return []", ("'x'",)), "cannot go"),  # a literal assigned to
    (Body("    return \x00L0\x00.strip()", ("'x'",)), "cannot go"),  # `1.strip` would not even tokenize
    (Body("    return \x00L0\x00(1)", ("'x'",)), "cannot go"),
    (Body("    return [\x00L0\x00]", ("'a' + __import__('os').name",)), "not one literal"),
    (Body("    return [\x00L0\x00]", ("-1",)), "not one literal"),
    (Body("    return [\x00L0\x00]", ("'a\nb'",)), "not one literal"),
    (Body("    return [\x00L0\x00]", (r"'\N'",)), "not one literal"),  # an escape repr never writes: a SyntaxError
    (Body("    return [\x00L0\x00]", (r"'\x4'",)), "not one literal"),
    (Body("    return [\x00N0\x00]", ("None",)), "not a name"),
    (Body("    return [\x00N0\x00]", ("a.b",)), "not a name"),
    (Body("    return []", ("'unused'",)), "do not match"),
    (Body("    return [\x00L1\x00]", ("'x'",)), "do not match"),
    (Body("    x.\x00N0\x00 = 1\n    return []", ("y",)), "not a name in an expression"),
    (Body("    return f(\x00N0\x00=1)", ("y",)), "not a name in an expression"),
    (Body("    return [", ()), "does not compile"),
])
def test_the_shape_gate_refuses_what_might_not_compile(body: Body, why: str) -> None:
    with pytest.raises(GenerationError, match=why):
        check_planned(_planned(body), "bad", compile_checked)


@pytest.mark.parametrize("planned, why", [
    (_planned(Body("    return []", ()), name="class"), "not a name"),
    (_planned(Body("    return []", ()), doc="'a' 'b'"), "not one str literal"),
    (_planned(Body("    return []", ()), doc="42"), "not one str literal"),
    (_planned(Body("    return []", ()), head="X = (\n"), "does not compile"),
])
def test_the_shape_gate_refuses_a_bad_name_docstring_or_surrounding_text(planned: PlannedSource, why: str) -> None:
    with pytest.raises(GenerationError, match=why):
        check_planned(planned, "bad", compile_checked)


def test_the_gate_goes_by_shapes_only_when_they_repeat(monkeypatch: pytest.MonkeyPatch) -> None:
    """Tools that differ in their types have a shape each: then compiling the module whole is cheaper."""
    from ek.codegen import emitter, shapes

    checked: list[str] = []
    monkeypatch.setattr(emitter, "check_planned", lambda source, what, compile_text: checked.append(what))
    alike = render(GraphGrammar("alike", 1, tools=tuple(_alike(i) for i in range(5))))
    kinds = [PrimitiveType("str"), PrimitiveType("int"), PrimitiveType("bool"), ListType(PrimitiveType("int"))]
    differ = render(GraphGrammar("differ", 1, tools=tuple(
        ToolSpec(f"t{i}", (FieldSpec("a", kind, required=bool(i % 2)),)) for i, kind in enumerate(kinds))))
    assert shapes.shapes_pay(alike) and not shapes.shapes_pay(differ)
    assert compile_checked(alike, "alike") == alike and compile_checked(differ, "differ") == differ
    assert checked == ["alike"]
