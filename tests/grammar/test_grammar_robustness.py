"""Random and mutated schema texts only ever raise SchemaError, and strings stay data."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ek.grammar import SchemaError, format_grammar, parse
from ek.grammar.formatter import format_source
from ek.limits import SCHEMA_MAX_LIST_NESTING, SCHEMA_MAX_NESTING, SCHEMA_MAX_TYPE_NODES

SCHEMAS = Path(__file__).resolve().parents[2] / "schemas"
EXAMPLES = [(SCHEMAS / n).read_text(encoding="utf-8") for n in ("travel-v1.ek", "travel-v2.ek")]
SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
# Characters that matter to the grammar, so mutations hit interesting states.
ALPHABET = st.sampled_from(list('{}[]()<>:=?,./"#\\\n \t-+0123456789abcdefxyzAZ_') + ["tool", "type", "grammar ", "enum(", "list[", "compare ", "tol(", "importance ", "weight ", '"""', "..", "\r\n", "\ufeff", "é"])


def parse_or_schema_error(text: str) -> None:
    try:
        g = parse(text, "fuzz.ek")
    except SchemaError as err:
        assert err.diagnostics and str(err)
        for d in err.diagnostics:
            assert d.line >= 1 and d.column >= 1
        return
    # What parses must print and format back to the same meaning.
    assert parse(format_grammar(g)) == g
    assert parse(format_source(text)) == g


@SETTINGS
@given(st.text(max_size=200))
def test_random_text(text):
    parse_or_schema_error(text)


@pytest.mark.slow
@SETTINGS
@given(st.text(st.characters() | st.characters(min_codepoint=0xD800, max_codepoint=0xDFFF), max_size=60), st.sampled_from(EXAMPLES))
def test_any_code_points_even_lone_surrogates(noise, example):
    parse_or_schema_error(example[:40] + noise + example[40:])


@SETTINGS
@given(st.lists(ALPHABET, max_size=60).map("".join))
def test_random_grammar_like_text(text):
    parse_or_schema_error("grammar g 1\n" + text)


@st.composite
def mutated(draw):
    text = draw(st.sampled_from(EXAMPLES))
    for _ in range(draw(st.integers(1, 4))):
        pos = draw(st.integers(0, len(text)))
        action = draw(st.sampled_from(["insert", "delete", "replace"]))
        piece = draw(ALPHABET)
        if action == "insert":
            text = text[:pos] + piece + text[pos:]
        elif action == "delete":
            text = text[:pos] + text[pos + draw(st.integers(1, 8)) :]
        else:
            text = text[:pos] + piece + text[pos + len(piece) :]
    return text


@pytest.mark.slow
@SETTINGS
@given(mutated())
def test_mutated_examples(text):
    parse_or_schema_error(text)


@pytest.mark.parametrize(
    "payload",
    ['__import__(\\"os\\").system(\\"exit 3\\")', "{{7*7}}", "${HOME}", "\\u0000", "'''; import os; '''"],
)
def test_strings_are_data_never_evaluated(payload):
    text = f'grammar g 1\ntool t {{\n    "{payload}"\n    x: str = "{payload}" "{payload}"\n    y: any = ["{payload}"]\n}}\n'
    g = parse(text)
    tool = g.tool("t")
    decoded = payload.replace('\\"', '"').replace("\\u0000", "\0")
    assert tool.doc == decoded
    assert tool.field("x").default == decoded and tool.field("x").doc == decoded
    assert tool.field("y").default == [decoded]
    assert parse(format_grammar(g)) == g


def test_deep_nesting_is_a_schema_error():
    deep = "list[" * 5000 + "int" + "]" * 5000
    with pytest.raises(SchemaError, match="nested too deeply"):
        parse(f"grammar g 1\ntool t {{\n    x: {deep}\n}}\n")


MAX = SCHEMA_MAX_NESTING


def nested_type(depth: int, lists: int | None = None) -> str:
    """``depth`` levels alternating list[...] and inline objects (at most ``lists`` lists), on one line."""
    text = "int"
    for level in range(depth):
        use_list = level % 2 and (lists is None or level // 2 < lists)
        text = f"list[{text}]" if use_list else f"{{ y: {text} }}"
    return text


@pytest.mark.parametrize("depth", [MAX + 1, 400, 10_000])
@pytest.mark.parametrize("where", ["argument", "type", "default"])
def test_too_deep_nesting_is_reported_at_the_level_past_the_limit(depth, where):
    """One clear error whatever the Python stack: the same file always gives the same answer, and says where."""
    if where == "argument":
        text = f"grammar g 1\ntool t {{\n    x: {nested_type(depth)}\n}}\n"
    elif where == "type":
        text = f"grammar g 1\ntype T = {nested_type(depth)}\ntool t {{\n    x: T\n}}\n"
    else:
        text = f"grammar g 1\ntool t {{\n    x: any = {'[' * depth}1{']' * depth}\n}}\n"
    with pytest.raises(SchemaError) as info:
        parse(text, "d.ek")
    (d,) = info.value.diagnostics
    line = text.split("\n")[d.line - 1]
    prefix = line[: d.column - 1]
    assert d.line == (2 if where == "type" else 3)
    assert f"more than {MAX} levels" in d.message
    assert prefix.count("[") + prefix.count("{") == MAX
    assert line[d.column - 1] in "l{["
    with pytest.raises(SchemaError):
        format_source(text)


@pytest.mark.parametrize("where", ["argument", "default"])
def test_nesting_up_to_the_limit_reads_prints_and_compares(where):
    if where == "argument":
        text = f"grammar g 1\ntool t {{\n    x: {nested_type(MAX, lists=SCHEMA_MAX_LIST_NESTING)}\n}}\n"
    else:
        text = f"grammar g 1\ntool t {{\n    x: any = {'[' * MAX}1{']' * MAX}\n}}\n"
    g = parse(text)
    assert parse(format_grammar(g)) == g
    assert parse(format_source(text)) == g


def test_lone_surrogate_is_reported_where_it_is():
    with pytest.raises(SchemaError) as info:
        parse('grammar g 1\ntool "a\ud800" {\n}\n', "s.ek")
    d = info.value.diagnostics[0]
    assert (d.line, d.column, d.message) == (2, 8, "lone surrogate U+D800 is not valid text")
    with pytest.raises(SchemaError):
        format_source('grammar g 1\ntool "a\udfff" {\n}\n')


def test_a_backtracking_regex_is_refused_where_it_is_written_and_never_run():
    """/(a+)+b/ against 40 a's takes hours in Python's re: lint refuses the pattern itself, at the pattern,
    and does not match the defaults against it (so the file is checked at once, with one error per pattern)."""
    tools = "".join(f'tool t{i} {{\n    x: str /(a+)+b/ = "{"a" * (40 + i)}"\n}}\n' for i in range(5))
    text = f'grammar g 1\n{tools}tool fine {{\n    y: str /(a+)+b/ = "aab"\n    z: str /[a-z]+b/ = "aa"\n}}\n'
    with pytest.raises(SchemaError) as info:
        parse(text, "r.ek")
    found = [(d.line, d.column, d.message) for d in info.value.diagnostics]
    refused = [(line, column) for line, column, message in found if message.startswith("regex /(a+)+b/ can take "
                                                                                     "exponential time")]
    assert refused == [(3 + 3 * i, 12) for i in range(5)] + [(18, 12)]
    assert found[-1] == (19, 24, "default 'aa' does not match /[a-z]+b/")
    assert len(found) == 7


def test_the_verdict_on_a_backtracking_regex_is_the_same_off_the_main_thread():
    import threading

    text = 'grammar g 1\ntool t {\n    x: str /(a+)+b/ = "' + "a" * 40 + '"\n    y: str /[a-z]+/ = "ok"\n}\n'
    outcome: list[BaseException] = []
    worker = threading.Thread(target=lambda: outcome.append(pytest.raises(SchemaError, parse, text).value))
    worker.start()
    worker.join(timeout=30)
    assert not worker.is_alive()
    (d,) = outcome[0].diagnostics  # type: ignore[attr-defined]
    assert (d.line, d.column) == (3, 12) and "a repetition inside a repetition: (a+)+" in d.message


def _doubling_types(count: int) -> str:
    """``count`` named types, each an object of two fields of the one before: 2**(count+1) - 1 type nodes."""
    text = "grammar g 1\ntype A0 = str\n"
    for i in range(1, count + 1):
        text += f"type A{i} = {{ a: A{i - 1}\n b: A{i - 1} }}\n"
    return text + f"tool t {{\n    x: A{count}\n}}\n"


def test_named_types_that_double_at_each_use_are_refused_at_the_argument_naming_the_limit():
    """The generator writes a named type out at each use: 30 lines would make 2**31 nodes (it ran out of memory)."""
    assert 2 ** 16 - 1 <= SCHEMA_MAX_TYPE_NODES < 2 ** 17 - 1
    parse(_doubling_types(15))  # 65,535 nodes: inside the limit
    for count in (16, 30):
        with pytest.raises(SchemaError) as info:
            parse(_doubling_types(count), "d.ek")
        (d,) = info.value.diagnostics
        assert (d.line, d.column) == (2 * count + 4, 8), str(info.value)
        assert "SCHEMA_MAX_TYPE_NODES" in d.message and "'x'" in d.message


def test_the_type_node_limit_counts_every_tool_and_is_reported_once():
    per_tool = "type Big = {\n" + "".join(f"    f{i}: str\n" for i in range(999)) + "}\n"
    tools = "".join(f"tool t{i} {{\n    x: Big\n}}\n" for i in range(101))  # 1,000 nodes each
    with pytest.raises(SchemaError) as info:
        parse("grammar g 1\n" + per_tool + tools, "d.ek")
    (d,) = info.value.diagnostics
    assert "SCHEMA_MAX_TYPE_NODES" in d.message and d.line == 1004 + 3 * 100  # the 101st tool's argument


def test_a_grammar_built_in_code_past_the_type_node_limit_is_refused_by_the_generator_and_scored_interpreted():
    """A GraphGrammar built in code never went through lint: the generator counts its nodes itself (30 doubling
    steps would be 2**31), and the runtime keeps such a tool interpreted, with the same answers."""
    import attrs

    from ek.codegen import GenerationError, generate
    from ek.codegen.emitter import plan_tool_validator
    from ek.limits import INTERPRETED_CALLS
    from ek.runtime import validator_for

    built = parse(_doubling_types(3), "d.ek")  # the shape, then 30 steps of it built in code
    (a0,) = [t for t in built.types if t.name == "A0"]
    step = [t for t in built.types if t.name == "A1"][0]
    types = [a0] + [attrs.evolve(step, name=f"A{i}", type=attrs.evolve(step.type, fields=tuple(
        attrs.evolve(f, type=attrs.evolve(f.type, name=f"A{i - 1}")) for f in step.type.fields))) for i in range(1, 31)]
    tool = attrs.evolve(built.tools[0], fields=(attrs.evolve(built.tools[0].fields[0], type=attrs.evolve(
        built.tools[0].fields[0].type, name="A30")),))
    grammar = attrs.evolve(built, tools=(tool,), types=tuple(types), source_path=None, source_sha256=None)
    for make in (lambda: generate(grammar), lambda: plan_tool_validator(grammar, tool)):
        with pytest.raises(GenerationError, match="SCHEMA_MAX_TYPE_NODES"):
            make()
    check = validator_for(grammar)
    wrong = [str(v) for v in check("t", {"x": {"a": 1}})]
    for _ in range(INTERPRETED_CALLS + 1):
        check("t", {"x": {"a": 1}})
    assert [str(v) for v in check("t", {"x": {"a": 1}})] == wrong and wrong
    assert "0 of 1 tools compiled" in repr(check)
