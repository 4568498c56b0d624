"""A validator made from its compiled shape (ek.runtime.shapecode) is the code compiling its own source gives:
the same instructions on the same constants, for every tool of BFCL's sample and for random grammars, and the
same verdicts; shapes are compiled once however many tools share them."""

from __future__ import annotations

import dis
import json
from pathlib import Path
from types import CodeType
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_fits_agreement import ALIASES, field_lists, full_types, hostile_values, shown

from ek.bfcl import to_grammar
from ek.codegen.emitter import TOOL_VALIDATOR_NAME, plan_tool_validator, render_tool_validator
from ek.grammar.model import NO_CONSTRAINTS, EnumType, FieldSpec, GraphGrammar, Location, PrimitiveType, ToolSpec
from ek.runtime import shapecode
from ek.runtime.shapecode import validator_from_plan


def _constant(value: Any) -> Any:
    """A constant compared by type and value, all the way down (``1 == True == 1.0`` in Python)."""
    kind = type(value)
    if kind is CodeType:
        return ("code", _instructions(value))
    if kind is tuple:
        return ("tuple", tuple(_constant(v) for v in value))
    if kind is frozenset:
        return ("frozenset", frozenset(_constant(v) for v in value))
    return (kind.__name__, repr(value) if kind is float else value)


def _instructions(code: CodeType) -> tuple[Any, ...]:
    """What a code object does: each instruction with its constant's value (not its slot: a shape keeps one
    slot per literal where the compiler shares one between equal strings) and jumps as instruction numbers."""
    every = list(dis.get_instructions(code))
    found = [i for i in every if i.opname not in ("EXTENDED_ARG", "CACHE")]
    number, kept = {}, 0
    for i in every:  # a jump to an EXTENDED_ARG lands on the instruction it extends
        number[i.offset] = kept
        kept += i.opname not in ("EXTENDED_ARG", "CACHE")
    steps = []
    for i in found:
        if i.opcode in dis.hasconst:
            arg = _constant(i.argval)
        elif i.opcode in dis.hasjrel or i.opcode in dis.hasjabs:
            arg = ("to", number[i.argval])
        else:
            arg = i.argval
        steps.append((i.opname, arg))
    return (code.co_name, code.co_argcount, code.co_kwonlyargcount, code.co_flags, code.co_varnames,
            code.co_firstlineno, tuple(steps))


def _both(grammar: GraphGrammar, tool: ToolSpec) -> tuple[Any, Any, dict[str, Any], dict[str, Any]]:
    """(shape-made validator, compiled validator, their modules' namespaces) for one tool."""
    plan = plan_tool_validator(grammar, tool)
    assert plan.text() == render_tool_validator(grammar, tool)
    made = validator_from_plan(plan, "<made>", "made")
    compiled: dict[str, Any] = {"__name__": "compiled"}
    exec(compile(plan.text(), "<compiled>", "exec", dont_inherit=True), compiled)  # noqa: S102 - generated code
    return made, compiled[TOOL_VALIDATOR_NAME], made.__globals__, compiled


def assert_same_code(grammar: GraphGrammar, tool: ToolSpec) -> tuple[Any, Any]:
    made, compiled, made_module, compiled_module = _both(grammar, tool)
    assert _instructions(made.__code__) == _instructions(compiled.__code__)
    assert made.__doc__ == compiled.__doc__ and made_module["__doc__"] == compiled_module["__doc__"]
    assert made.__code__.co_filename == "<made>"
    tables = sorted(k for k in compiled_module if k.startswith("_") and k[1:2].isupper() and k[-1].isdigit())
    for name in tables:  # _K0 = frozenset(...), _S0 = _V(...), _H0 = _VH(...), _E0, _FM0
        a, b = made_module[name], compiled_module[name]
        assert type(a) is type(b) and (a == b if not callable(a) else a.__self__.pattern == b.__self__.pattern)
    return made, compiled


def _bfcl_tools(bfcl_data: Path) -> list[tuple[GraphGrammar, ToolSpec]]:
    tools = []
    for path in sorted(bfcl_data.glob("BFCL_v4_*.json")):
        for line in path.read_text(encoding="utf-8").splitlines():
            functions = json.loads(line).get("function")
            if functions:
                grammar = to_grammar(functions).grammar
                tools.extend((grammar, tool) for tool in grammar.tools)
    return tools


def test_every_bfcl_tool_made_from_its_shape_is_its_compiled_source(bfcl_data: Path) -> None:
    tools = _bfcl_tools(bfcl_data)
    assert len(tools) > 300
    for grammar, tool in tools:
        assert_same_code(grammar, tool)


def test_tools_alike_but_for_names_share_one_compiled_shape(monkeypatch: pytest.MonkeyPatch) -> None:
    compiled: list[str] = []
    real = compile

    def counted(text: str, *args: Any, **kwargs: Any) -> Any:
        compiled.append(text)
        return real(text, *args, **kwargs)

    monkeypatch.setattr(shapecode, "_shapes", {})
    monkeypatch.setattr(shapecode, "compile", counted, raising=False)
    grammar = GraphGrammar("g", 1, tools=tuple(
        ToolSpec(name, (FieldSpec(arg, PrimitiveType("int"), NO_CONSTRAINTS),
                        FieldSpec("unit", EnumType((f"{name}-a", "b")), NO_CONSTRAINTS, required=False)))
        for name, arg in [("f", "x"), ("g", "y"), ("it's", "z\\n\x00"), ("\ue0000", "\ue0001")]))
    for tool in grammar.tools:
        made, compiled_check = assert_same_code(grammar, tool)
        arg = tool.fields[0].name
        for args in ({arg: 1}, {arg: "1", "unit": "b"}, {"unit": "nope"}, {arg: True, "other": 1}, []):
            assert made(args) == compiled_check(args) and [str(v) for v in made(args)] == [str(v) for v in
                                                                                       compiled_check(args)]
    assert len(compiled) == 1


def test_a_placeholder_like_schema_string_stays_what_it_is() -> None:
    """A schema string that looks like a placeholder (U+E000 and a number) is a constant like any other."""
    grammar = GraphGrammar("g", 1, tools=(ToolSpec("t", (
        FieldSpec("\ue0000", PrimitiveType("str"), NO_CONSTRAINTS),
        FieldSpec("b", EnumType(("\ue0001", "\ue000")), NO_CONSTRAINTS))),))
    made, compiled = assert_same_code(grammar, grammar.tools[0])
    args = {"\ue0000": 3, "b": "\ue0000"}
    assert [str(v) for v in made(args)] == [str(v) for v in compiled(args)] != []
    assert made({"\ue0000": "x", "b": "\ue0001"}) == []


# ---- random grammars: the strategies that hold ek.grammar.fits to the compiled code ----------------------

TOOL_NAMES = st.sampled_from(["t", "it's", 'q"t', "x y", "ü", "\\", "\ue0002", "class"])


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(fields=field_lists(full_types(), 4), name=TOOL_NAMES, line=st.none() | st.integers(1, 99),
       values=st.lists(hostile_values(), max_size=4))
def test_a_random_tool_made_from_its_shape_is_its_compiled_source(fields: tuple[FieldSpec, ...], name: str,
                                                                  line: int | None, values: list[Any]) -> None:
    loc = None if line is None else Location("g.ek", line, 1)
    grammar = GraphGrammar("random", 1, tools=(ToolSpec(name, fields, loc=loc),), types=ALIASES)
    made, compiled = assert_same_code(grammar, grammar.tools[0])
    for args in values:
        assert shown(made(args)) == shown(compiled(args))
