"""The compile gate by shapes (ek.codegen.shapes): it passes exactly the modules that compile, checks each
distinct shape of a run of statements once, compiles the other runs alone, and refuses every way a filler,
a marker or a cut between runs could make a module not compile."""

from __future__ import annotations

import contextlib
import json
import sys
from collections.abc import Iterator

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ek.codegen import GenerationError, compile_checked, generate, shapes
from ek.codegen.emitter import render
from ek.codegen.layout import validator_defs
from ek.codegen.shapes import PlannedSource, check_planned
from ek.codegen.validators import Body, Run
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
    assert len({tuple(run.skeleton for run in body.runs) for _, _, body in source.validators}) == 1
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
@given(st.lists(fields, min_size=1, max_size=4), st.sampled_from([0, 4]))
def test_the_shape_gate_passes_modules_that_compile(tools: list[tuple[FieldSpec, ...]], pay_from: int) -> None:
    """By shapes (``SHAPES_PAY_FROM`` 0: every run) or mostly runs compiled alone (4, the default)."""
    grammar = GraphGrammar("random", 1, tools=tuple(ToolSpec(f"t{i}", f) for i, f in enumerate(tools)))
    source = render(grammar)
    with _shapes_paying_from(pay_from):
        check_planned(source, "random", _compile)
    compile(str(source), "module", "exec", dont_inherit=True)


def test_a_body_is_its_runs_one_per_argument_then_the_unknown_keys_check() -> None:
    tool = ToolSpec("t", (FieldSpec("a", PrimitiveType("str")), FieldSpec("b", PrimitiveType("int"), required=False),
                          FieldSpec("c", PrimitiveType("any"), required=False)))
    (_, _, body), = render(GraphGrammar("g", 1, tools=(tool,))).validators
    assert len(body.runs) == 4
    assert body.runs[0].skeleton.startswith("    if type(args) is not dict:")  # the prologue, then the first
    assert "\n    try:\n        \x01v0\x01 = args[\x00L1\x00]" in body.runs[0].skeleton
    assert body.runs[1].skeleton.startswith("    \x01v1\x01 = args.get(\x00L0\x00)")  # markers from 0 in each run
    assert body.runs[2].skeleton.startswith("    if \x00L0\x00 in args:")
    assert body.runs[-1].skeleton.startswith("    if len(args) != \x01n0\x01:")
    assert body.text() == "\n".join(run.text() for run in body.runs)


def _planned(body: Body, name: str = "validate_t", doc: str = "'doc'", head: str = "X = 1\n") -> PlannedSource:
    return PlannedSource("not checked as text", head, "Y = 2\n", [(name, doc, body)])


def _one(skeleton: str, fillers: tuple[str, ...]) -> Body:
    """A body of one run."""
    return Body((Run(skeleton, fillers),))


@pytest.fixture
def by_shapes(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every run checked by its shape, however few share it."""
    monkeypatch.setattr(shapes, "SHAPES_PAY_FROM", 0)


_LOAD_RECORD = shapes.CheckedShapes.__dict__["load"]


@pytest.fixture(autouse=True)
def no_record(monkeypatch: pytest.MonkeyPatch) -> None:
    """No record of checked shapes (:class:`ek.codegen.shapes.CheckedShapes`), read or kept: so rare shapes'
    runs are compiled alone, as without one (the tests of the record give it a folder of its own)."""
    monkeypatch.setattr(shapes.CheckedShapes, "load", classmethod(lambda cls: cls(None, {})))


@pytest.mark.parametrize("body, why", [
    (_one("    \x00L0\x00 = 1\n    return []", ("'x'",)), "cannot go"),  # a literal assigned to
    (_one("    return \x00L0\x00.strip()", ("'x'",)), "cannot go"),  # `1.strip` would not even tokenize
    (_one("    return \x00L0\x00(1)", ("'x'",)), "cannot go"),
    (_one("    return [\x00L0\x00]", ("'a' + __import__('os').name",)), "not one literal"),
    (_one("    return [\x00L0\x00]", ("-1",)), "not one literal"),
    (_one("    return [\x00L0\x00]", ("'a\nb'",)), "not one literal"),
    (_one("    return [\x00L0\x00]", (r"'\N'",)), "not one literal"),  # an escape repr never writes: a SyntaxError
    (_one("    return [\x00L0\x00]", (r"'\x4'",)), "not one literal"),
    (_one("    return [\x00L0\x00]", (r"'\U00110000'",)), "not one literal"),  # past the last code point
    (_one("    return [\x00L0\x00]", (r"'\U0010ffff\U00012345'",)), None),  # the last one, and another
    (_one("    return [\x00N0\x00]", ("None",)), "not a name"),
    (_one("    return [\x00N0\x00]", ("a.b",)), "not a name"),
    (_one("    return []", ("'unused'",)), "do not match"),
    (_one("    return [\x00L1\x00]", ("'x'",)), "do not match"),
    (_one("    x.\x00N0\x00 = 1\n    return []", ("y",)), "not a name in an expression"),
    (_one("    return f(\x00N0\x00=1)", ("y",)), "not a name in an expression"),
    (_one("    return [", ()), "does not compile"),
])
def test_the_shape_gate_refuses_what_might_not_compile(body: Body, why: str | None, by_shapes: None) -> None:
    if why is None:  # it compiles: passed
        compile(validator_defs([("v", "'doc'", body.text())]), "body", "exec", dont_inherit=True)
        check_planned(_planned(body), "good", compile_checked)
        return
    with pytest.raises(GenerationError, match=why):
        check_planned(_planned(body), "bad", compile_checked)


@pytest.mark.parametrize("planned, why", [
    (_planned(_one("    return []", ()), name="class"), "not a name"),
    (_planned(_one("    return []", ()), doc="'a' 'b'"), "not one str literal"),
    (_planned(_one("    return []", ()), doc="42"), "not one str literal"),
    (_planned(_one("    return []", ()), head="X = (\n"), "does not compile"),
])
def test_the_shape_gate_refuses_a_bad_name_docstring_or_surrounding_text(planned: PlannedSource, why: str,
                                                                         by_shapes: None) -> None:
    with pytest.raises(GenerationError, match=why):
        check_planned(planned, "bad", compile_checked)


def test_the_gate_goes_by_shapes_only_when_they_repeat(monkeypatch: pytest.MonkeyPatch) -> None:
    """Tools that differ in their types have a shape each: then compiling the module whole is cheaper."""
    from ek.codegen import emitter

    checked: list[str] = []
    monkeypatch.setattr(emitter, "check_planned", lambda source, what, *args: checked.append(what))
    alike = render(GraphGrammar("alike", 1, tools=tuple(_alike(i) for i in range(5))))
    kinds = [PrimitiveType("str"), PrimitiveType("int"), PrimitiveType("bool"), ListType(PrimitiveType("int"))]
    differ = render(GraphGrammar("differ", 1, tools=tuple(
        ToolSpec(f"t{i}", (FieldSpec("a", kind, required=bool(i % 2)),)) for i, kind in enumerate(kinds))))
    assert shapes.shapes_pay(shapes.run_counts(alike)) and not shapes.shapes_pay(shapes.run_counts(differ))
    assert compile_checked(alike, "alike") == alike and compile_checked(differ, "differ") == differ
    assert checked == ["alike"]


#: Runs of statements, some of which compile alone as a validator's body but not in sequence with others: a
#: line that leaves the function (at column 0, after a carriage return), a first statement indented further,
#: a backslash joining the next run, ``global`` after an assignment, ``yield``, a tab or form feed.
RUNS = [
    "    x = 1", "    return errs", "        y = 2", "    if a:\n        b = 1", "    if a:\n        b = 1\nz = 3",
    "    if a:\n        b = 1\ndef g():\n    pass", "    x = 1 \\", "    x = (1 +\n2)", "    global q\n    q = 1",
    "    q = 2", "    x = yield", "    # c\n        x = 1", "    x = 1\ry = 2", "    x = 1\r    y = 2", "\tx = 1",
    "    \fx = 1", "    x = 1\n\f    y = 2", "    else:\n        pass", "    break", "    s = 'global'",
    "    for i in a:\n        if i:\n            break", "    def f():\n        nonlocal q", "    x: int = 1",
    "    try:\n        pass\n    except KeyError:\n        pass",
]


def _module(validators: list[tuple[str, str, Body]]) -> str:
    return "X = 1\n" + validator_defs([(name, doc, body.text()) for name, doc, body in validators]) + "Y = 2\n"


@settings(max_examples=400, deadline=None)
@given(st.lists(st.lists(st.sampled_from(RUNS), min_size=1, max_size=4), min_size=1, max_size=6),
       st.sampled_from([0, 1, 4]))
def test_the_gate_passes_runs_only_when_the_module_compiles(bodies: list[list[str]], pay_from: int) -> None:
    """Whatever runs are cut, checked by their shapes (``pay_from`` 0: all of them) or compiled alone, a
    module the gate passes compiles."""
    validators = [(f"v{i}", "'doc'", Body(tuple(Run(text, ()) for text in runs))) for i, runs in enumerate(bodies)]
    _passed_only_if_it_compiles(validators, "runs", pay_from)


def _passed_only_if_it_compiles(validators: list[tuple[str, str, Body]], what: str, pay_from: int) -> None:
    """The module of ``validators`` compiles if the gate (shapes checked from ``pay_from`` runs on) passes it."""
    text = _module(validators)
    try:
        with _shapes_paying_from(pay_from):
            check_planned(PlannedSource(text, "X = 1\n", "Y = 2\n", validators), what, compile_checked)
    except GenerationError:
        return
    compile(text, "module", "exec", dont_inherit=True)


@contextlib.contextmanager
def _shapes_paying_from(runs: int) -> Iterator[None]:
    """``shapes.SHAPES_PAY_FROM`` set to ``runs`` (0: every run checked by its shape) for the block."""
    old, shapes.SHAPES_PAY_FROM = shapes.SHAPES_PAY_FROM, runs
    try:
        yield
    finally:
        shapes.SHAPES_PAY_FROM = old


@pytest.mark.parametrize("runs", [
    ["    if a:\n        b = 1\nz = 3", "    x = 1"],  # the first leaves the function
    ["    q = 2", "    global q\n    q = 1"],  # assigned before the global statement
    ["    x = 1\ry = 2", "    x = 1"],  # a carriage return is a line break
    ["\fy = 2", "    x = 1"],  # a form feed resets the column
])
@pytest.mark.parametrize("pay_from", [0, 4])
def test_runs_that_compile_alone_but_not_in_sequence_are_refused(runs: list[str], pay_from: int,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(shapes, "SHAPES_PAY_FROM", pay_from)
    validators = [("v", "'doc'", Body(tuple(Run(text, ()) for text in runs)))]
    for text in runs:  # each compiles as a validator's whole body ...
        compile(validator_defs([("v", "'doc'", text)]), "alone", "exec", dont_inherit=True)
    with pytest.raises(SyntaxError):  # ... but not in sequence
        compile(_module(validators), "module", "exec", dont_inherit=True)
    with pytest.raises(GenerationError):
        check_planned(PlannedSource(_module(validators), "X = 1\n", "Y = 2\n", validators), "runs", compile_checked)


def test_a_run_with_a_scope_word_in_a_string_is_compiled_with_its_function(monkeypatch: pytest.MonkeyPatch) -> None:
    """``'global'`` in an enum keeps the run from being compiled alone (the test is a substring's), not the
    module from being written."""
    compiled: list[str] = []

    def compile_text(text: str, what: str) -> None:
        compiled.append(text)
        compile_checked(text, what)

    validators = [("v", "'doc'", Body((Run("    s = \x00L0\x00", ("'global'",)), Run("    return []", ()))))]
    check_planned(PlannedSource(_module(validators), "X = 1\n", "Y = 2\n", validators), "runs", compile_text)
    assert any("def v(args" in text and "s = 'global'\n    return []" in text for text in compiled)


#: Lines around the constants a module's head assigns: some a stand-in (``pass``) may replace, some that
#: make the line after them part of the same statement or string.
HEAD_LINES = [
    "_S0 = _V(('$.a', 'missing required argument'))", "_H1 = _VH(('$.a', 'expected str, got ', _type_name))",
    "_K2 = frozenset({'a', 'b'})", "_E3 = frozenset({'it\\'s', \"x\"})", "_E4 = frozenset({1, 2})",
    "x = (", ")", "y = 1 + \\", "z = '''", "'''", "if x:", "    pass", "    _S5 = _V(('$', 'r'))", "X = 1",
    "_S6 = _V(('a', 'b')).x", "_H7 = _VH(('a', 'b', print))",
]


@settings(max_examples=500, deadline=None)
@given(st.lists(st.sampled_from(HEAD_LINES), max_size=8))
def test_the_head_compiles_when_its_constants_stand_in_for_themselves(lines: list[str]) -> None:
    text = "".join(line + "\n" for line in lines)
    try:
        compile(shapes.stand_ins(text), "stand-ins", "exec", dont_inherit=True)
    except SyntaxError:
        return
    compile(text, "head", "exec", dont_inherit=True)


def test_the_constants_of_a_module_head_stand_in_as_pass() -> None:
    grammar = GraphGrammar("alike", 1, tools=tuple(_alike(i) for i in range(5)))
    head = render(grammar).head
    kept = [line for line in shapes.stand_ins(head).splitlines() if line.startswith("_")]
    assert head.count("\n_S") + head.count("\n_H") + head.count("\n_K") > 10
    assert all(line.startswith(("_FM", "_E")) for line in kept)  # the str-set enums stand in too; int ones do not


def _with_objects(depth: int) -> st.SearchStrategy[tuple[FieldSpec, ...]]:
    """Fields whose types nest objects (in objects and in lists) up to ``depth`` levels."""
    kinds = st.one_of(scalars, scalars.map(lambda t: (ListType(t[0]), Constraints())))
    for _ in range(depth):
        inner = st.lists(st.tuples(names, kinds, st.booleans()).map(lambda t: FieldSpec(t[0], t[1][0], t[1][1],
                                                                                       required=t[2])),
                         max_size=3, unique_by=lambda f: f.name).map(tuple)
        kinds = st.one_of(kinds, inner.map(lambda f: (ObjectType(f), Constraints())),
                          inner.map(lambda f: (ListType(ObjectType(f)), Constraints())))
    return st.lists(st.tuples(names, kinds, st.booleans()).map(lambda t: FieldSpec(t[0], t[1][0], t[1][1],
                                                                                  required=t[2])),
                    max_size=4, unique_by=lambda f: f.name).map(tuple)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(_with_objects(3), min_size=1, max_size=4), st.sampled_from([0, 4]))
def test_the_shape_gate_passes_modules_with_nested_objects(tools: list[tuple[FieldSpec, ...]], pay_from: int) -> None:
    """Nested objects' fields are runs in holes (not inside a list's loop); checked by shapes or alone, the
    module compiles, and it is the text of every run, holes filled."""
    grammar = GraphGrammar("nested", 1, tools=tuple(ToolSpec(f"t{i}", f) for i, f in enumerate(tools)))
    source = render(grammar)
    with _shapes_paying_from(pay_from):
        check_planned(source, "nested", _compile)
    compile(str(source), "module", "exec", dont_inherit=True)
    for _, _, body in source.validators:
        for run in body.runs:
            for at, value in enumerate(run.values):
                if isinstance(value, Body):
                    assert run.fillers[at] == value.text().lstrip(" ")


def test_a_nested_object_is_a_hole_of_runs_one_per_field() -> None:
    obj = ObjectType((FieldSpec("p", PrimitiveType("int")), FieldSpec("q", PrimitiveType("str"), required=False)))
    tool = ToolSpec("t", (FieldSpec("a", PrimitiveType("str")), FieldSpec("o", obj, required=False),
                          FieldSpec("l", ListType(obj), required=False)))
    (_, _, body), = render(GraphGrammar("g", 1, tools=(tool,))).validators
    assert len(body.runs) == 4
    holding = body.runs[1]
    assert "\n            \x00R3\x00\n            if len(\x01v1\x01) != \x01n1\x01:" in holding.skeleton
    inner = holding.values[3]
    assert isinstance(inner, Body) and len(inner.runs) == 2
    assert inner.runs[0].skeleton.startswith("            try:\n                \x01v2\x01 = \x01v1\x01[\x00L0\x00]")
    assert inner.runs[1].skeleton.startswith("            \x01v3\x01 = \x01v1\x01.get(\x00L0\x00)")
    assert "\x00R" not in body.runs[2].skeleton  # a list's objects are checked in its loop: no hole there
    assert render(GraphGrammar("g", 1, tools=(tool,))) == generate(GraphGrammar("g", 1, tools=(tool,)))


def _holding(skeleton: str, inner: list[str]) -> Body:
    """A body of one run with a hole ``\\x00R0\\x00`` holding ``inner``'s runs (markers none), as the emitter
    writes one: the hole's filler is their text but for the first line's indentation."""
    text = "\n".join(inner)
    line = next(line for line in skeleton.split("\n") if "\x00R0\x00" in line)
    pad = len(line) - len(line.lstrip(" "))
    return Body((Run(skeleton, (text[pad:],), (Body(tuple(Run(t, ()) for t in inner)),)),))


#: Runs with a hole, some where the hole's runs would compile alone but not in place: in a loop (a ``break``
#: there, or more blocks than the compiler takes), a ``try`` body or handler, a ``with``, an ``elif``, a line
#: shared with another statement, at an indentation its block does not have.
HOLDERS = [
    "    if a:\n        \x00R0\x00", "    \x00R0\x00", "    for x in a:\n        \x00R0\x00",
    "    while a:\n        \x00R0\x00", "    with a:\n        \x00R0\x00",
    "    try:\n        \x00R0\x00\n    except KeyError:\n        pass",
    "    try:\n        pass\n    except KeyError:\n        \x00R0\x00",
    "    try:\n        pass\n    except KeyError:\n        pass\n    else:\n        \x00R0\x00",
    "    if a:\n        pass\n    elif b:\n        \x00R0\x00", "    if a:\n        pass\n    else:\n        \x00R0\x00",
    "    if a:\n        x = 1; \x00R0\x00", "    if a:\n            \x00R0\x00", "    if a:\n        \x00R0\x00 + 1",
    "    if a:\n        if b:\n            \x00R0\x00\n        y = 2", "    if a:\n        \x00R0\x00\n    \x00R0\x00",
    "    x = [\n        \x00R0\x00]", "    if a:\n        \x00R0\x00\n        return errs",
]


def _loops_compiling() -> int:
    """How many ``for`` loops nested in a function this CPython compiles: 20 up to 3.12, 21 from 3.13 (each
    is a block; one more is "too many statically nested blocks")."""
    def loops(n: int) -> str:
        nest = "".join(f"{'    ' * (1 + k)}for i{k} in a:\n" for k in range(n))
        return f"def f(a):\n{nest}{'    ' * (1 + n)}pass\n"

    n = 1
    while n < 90:
        try:
            compile(loops(n + 1), "probe", "exec", dont_inherit=True)
        except SyntaxError:
            return n
        n += 1
    raise AssertionError("no limit on nested blocks below 90")


#: As many loops as the compiler takes: a hole in a block (a loop, a try) holding them is one block too many.
_LOOPS = _loops_compiling()
_DEEP = "".join(f"{'    ' * (2 + n)}for i{n} in a:\n" for n in range(_LOOPS)) + "    " * (2 + _LOOPS) + "pass"
HELD = [
    "        x = 1", "        break", "        continue", "            y = 2", "        if a:\n            b = 1",
    "        if a:\n    b = 1", "        global q", "        x = 1 \\", "        v1 = (1 +\n2)", _DEEP,
    "        for i in a:\n            break", "        else:\n            pass", "        x = yield",
    "            x = 1", "            if a:\n                b = 1", "    z = 3", "        n0 += 1",
]


@settings(max_examples=400, deadline=None)
@given(st.sampled_from(HOLDERS), st.lists(st.sampled_from(HELD), min_size=1, max_size=3), st.sampled_from([0, 1, 4]))
def test_the_gate_passes_a_hole_only_when_the_module_compiles(holder: str, held: list[str], pay_from: int) -> None:
    """Whatever a hole's runs and wherever the hole, checked by their shapes or compiled alone: a module the
    gate passes compiles."""
    _passed_only_if_it_compiles([("v", "'doc'", _holding(holder, held))], "holes", pay_from)


@pytest.mark.parametrize("holder", [
    "    for x in a:\n        \x00R0\x00",  # as many loops as compile, and this one: too many blocks
    "    try:\n        \x00R0\x00\n    except KeyError:\n        pass",  # a try body is a block too
])
def test_a_hole_in_a_block_is_refused(holder: str) -> None:
    deep = _DEEP.replace("\n" + "    " * (2 + _LOOPS) + "pass", "\n" + "    " * (2 + _LOOPS) + "x = 1")
    validators = [("v", "'doc'", _holding(holder, [deep]))]
    compile(validator_defs([("v", "'doc'", "    if a:\n" + deep)]), "alone", "exec", dont_inherit=True)
    with pytest.raises(SyntaxError, match="too many statically nested blocks"):
        compile(_module(validators), "module", "exec", dont_inherit=True)
    with pytest.raises(GenerationError, match="hole"):
        check_planned(PlannedSource(_module(validators), "X = 1\n", "Y = 2\n", validators), "holes", compile_checked)


def test_a_hole_whose_filler_is_not_its_runs_is_refused() -> None:
    body = _holding("    if a:\n        \x00R0\x00", ["        x = 1"])
    (run,) = body.runs
    forged = Body((Run(run.skeleton, ("import os",), run.values),))
    with pytest.raises(GenerationError, match="not its runs"):
        check_planned(PlannedSource("", "X = 1\n", "Y = 2\n", [("v", "'doc'", forged)]), "holes", compile_checked)


@pytest.mark.parametrize("skeleton, why", [
    ("    \x01v1\x01 = 1\n    return \x01v1\x01.\x01v2\x01", "not a name"),  # an attribute
    ("    return f(\x01v1\x01=1)", "not a name"),  # a keyword argument
    ("    return lambda \x01v1\x01: \x01v1\x01", "not a name"),  # a parameter
    ("    return x\x01v1\x01", "not a name"),  # part of a name
    ("    return (\x01v2\x01 := \x01v1\x01)", "namedexpr"),  # := in a comprehension depends on which names are which
    ("    _hV = 1\n    return []", "stand-in"),
    ("    \x01for\x01 x in y:\n        pass", "marks as a local"),  # not a local name: a keyword
    ("    return \x01v1", "marks as a local"),
])
def test_a_local_name_that_is_not_only_a_name_is_refused(skeleton: str, why: str, by_shapes: None) -> None:
    with pytest.raises(GenerationError, match=why):
        check_planned(_planned(_one(skeleton, ())), "bad", compile_checked)


def test_runs_that_differ_in_local_names_only_share_a_shape() -> None:
    first = "    \x01v3\x01 = args.get(\x00L0\x00)\n    if \x01v3\x01 is not None:\n        \x01n0\x01 += 1"
    assert shapes.shape_of(first) == shapes.shape_of(first.replace("v3", "v7").replace("n0", "n2"))
    assert shapes.shape_of("    s = int(\x01a1\x01) + a1") == "    s = int(_hV) + a1"  # only marked names
    assert Run(first, ("'k'",)).text() == "    v3 = args.get('k')\n    if v3 is not None:\n        n0 += 1"


@pytest.fixture
def record_in(tmp_path, monkeypatch: pytest.MonkeyPatch):
    """The record of checked shapes kept in ``tmp_path``, written (whatever PYTHONDONTWRITEBYTECODE says)."""
    monkeypatch.setattr(shapes.CheckedShapes, "load", _LOAD_RECORD)  # not no_record's
    monkeypatch.setattr(shapes, "cache_folder", lambda _: tmp_path)
    monkeypatch.setattr(sys, "dont_write_bytecode", False)
    return tmp_path


def test_a_shape_passed_once_is_not_parsed_again(record_in, monkeypatch: pytest.MonkeyPatch) -> None:
    grammar = GraphGrammar("alike", 1, tools=tuple(_alike(i) for i in range(6)))
    check_planned(render(grammar), "alike", _compile)
    (record,) = record_in.glob("ek.shapes.*.json")
    assert len(json.loads(record.read_text())) >= 3

    def no_parse(*args: object, **kwargs: object) -> None:
        raise AssertionError("parsed again")

    monkeypatch.setattr(shapes.ast, "parse", no_parse)
    check_planned(render(grammar), "alike", _compile)  # every shape found in the record
    with pytest.raises(GenerationError, match="not one literal"):  # fillers are checked all the same
        source = render(grammar)
        _, _, body = source.validators[0]
        run = body.runs[0]
        at = next(i for i, value in enumerate(run.values) if type(value) is str)
        forged = Run(run.skeleton, (*run.fillers[:at], "'a' + __import__('os').name", *run.fillers[at + 1:]), run.values)
        source.validators[0] = (source.validators[0][0], source.validators[0][1], Body((forged, *body.runs[1:])))
        check_planned(source, "forged", _compile)


def test_a_refused_shape_is_never_recorded(record_in, by_shapes: None) -> None:
    bad = _one("    return [\x00L0\x00]\n    \x00L0\x00 = 1", ("'x'",))
    for _ in range(2):
        with pytest.raises(GenerationError, match="cannot go"):
            check_planned(_planned(bad), "bad", compile_checked)
    assert not list(record_in.glob("ek.shapes.*.json"))


def test_a_record_answers_for_its_depth_and_fillers_only(record_in) -> None:
    record = shapes.CheckedShapes.load()
    record.add("    return [\x00L0\x00]", 1, 1, {})
    assert record.holes("    return [\x00L0\x00]", 1, 1) == {}
    assert record.holes("    return [\x00L0\x00]", 2, 1) is None and record.holes("    return [\x00L0\x00]", 1, 2) is None
    record.save()
    assert shapes.CheckedShapes.load().holes("    return [\x00L0\x00]", 1, 1) == {}


@pytest.mark.parametrize("content", [b"not json", b"[1, 2]", b'{"x": 3}'])
def test_an_unreadable_record_is_an_empty_one(record_in, content: bytes) -> None:
    (record_in / f"ek.shapes.{shapes._record_key()}.json").write_bytes(content)
    grammar = GraphGrammar("alike", 1, tools=tuple(_alike(i) for i in range(6)))
    check_planned(render(grammar), "alike", _compile)
    assert isinstance(json.loads((record_in / f"ek.shapes.{shapes._record_key()}.json").read_text()), dict)


def test_with_a_record_kept_rare_shapes_are_checked_and_recorded_too(record_in) -> None:
    """Tools that differ: no shape repeats, yet each is recorded, so the next run compiles nothing of them."""
    kinds = [PrimitiveType("str"), PrimitiveType("int"), PrimitiveType("bool"), ListType(PrimitiveType("int"))]
    differ = render(GraphGrammar("differ", 1, tools=tuple(
        ToolSpec(f"t{i}", (FieldSpec("a", kind, required=bool(i % 2)),)) for i, kind in enumerate(kinds))))
    compiled: list[str] = []
    check_planned(differ, "differ", lambda text, what: compiled.append(text))
    assert not any("def _v(" in text for text in compiled)  # no run compiled alone
    assert len(json.loads(next(record_in.glob("ek.shapes.*.json")).read_text())) == len(shapes.run_counts(differ))
