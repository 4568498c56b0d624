"""GLM-4.5/4.6/4.7 (``glm45``) and DeepSeek V3.2's DSML (read by ``deepseek``): what each reads beyond the
real completions of tests/data/formats, how values are typed, what is refused (where and why), how ``auto``
tells GLM's ``<tool_call>`` from Hermes', and that rendering reads back with each format's tags in strings."""

from __future__ import annotations

import re
import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ek.calls import Step
from ek.parsing import ParseError, parse_calls, render
from ek.parsing.dsml import V4, V32, V41, Dialect
from ek.parsing.glm import starts_glm_block
from ek.parsing.render import to_deepseek_v4, to_deepseek_v32, to_deepseek_v41, to_glm45

D = "｜DSML｜"


def dsml(*invokes: str, before: str = "", after: str = "") -> str:
    return f"{before}<{D}function_calls>\n" + "\n".join(invokes) + f"\n</{D}function_calls>{after}"


def invoke(name: str, *params: tuple[str, str, str]) -> str:
    body = "".join(f'<{D}parameter name="{k}" string="{s}">{v}</{D}parameter>\n' for k, s, v in params)
    return f'<{D}invoke name="{name}">\n{body}</{D}invoke>'


# --------------------------------------------------------------------------- glm45: values


def test_glm_values_are_typed_by_the_grammar_hint_else_read_as_json_when_they_are() -> None:
    text = ("<tool_call>f\n<arg_key>n</arg_key>\n<arg_value>3</arg_value>\n<arg_key>zip</arg_key>\n"
            "<arg_value>02139</arg_value>\n<arg_key>on</arg_key>\n<arg_value>True</arg_value>\n</tool_call>")
    kinds = {"n": "integer", "zip": "string", "on": "boolean"}
    assert parse_calls(text, "glm45", types=lambda tool, arg: kinds[arg]) == [Step("f", {"n": 3, "zip": "02139",
                                                                                       "on": True})]
    assert parse_calls(text, "glm45") == [Step("f", {"n": 3, "zip": "02139", "on": "True"})]
    assert parse_calls(text, "glm45", types=lambda tool, arg: "string") == [Step("f", {"n": "3", "zip": "02139",
                                                                                      "on": "True"})]


def test_glm_string_values_keep_their_whitespace_and_json_looking_text_is_json() -> None:
    text = "<tool_call>f<arg_key>s</arg_key><arg_value> a b </arg_value><arg_key>l</arg_key><arg_value>[1, {\"k\": null}]"
    assert parse_calls(text + "</arg_value></tool_call>", "glm45") == [Step("f", {"s": " a b ", "l": [1, {"k": None}]})]


def test_glm_reads_literal_backslash_n_between_tags_as_sglang_does() -> None:
    # SGLang's Glm4MoeDetector: "Or with literal \n characters"; never inside a value
    text = r"<tool_call>get_weather\n<arg_key>city</arg_key>\n<arg_value>a\nb</arg_value>\n</tool_call>"
    assert parse_calls(text, "glm45") == parse_calls(text) == [Step("get_weather", {"city": "a\\nb"})]


# --------------------------------------------------------------------------- glm45: refusals


@pytest.mark.parametrize(("text", "where", "fragment"), [
    ("<tool_call>f\n<arg_key>a</arg_key><arg_value>1</arg_value>\n<arg_key>a</arg_key><arg_value>2</arg_value>\n"
     "</tool_call>", (3, 1), "parameter 'a' given twice"),
    ("<tool_call>f\n<arg_key>a</arg_key><arg_value>1\n<arg_key>b</arg_key><arg_value>2</arg_value></tool_call>",
     (3, 1), "<arg_key> before the </arg_value>"),
    ("<tool_call>f\n<arg_key>a</arg_key>\n<arg_key>b</arg_key><arg_value>2</arg_value></tool_call>", (3, 1),
     "expected <arg_value> after the parameter name 'a'"),
    ("<tool_call>f<arg_key> </arg_key><arg_value>1</arg_value></tool_call>", (1, 13), "an empty name"),
    ("<tool_call>f<arg_key>a</arg_key><arg_value>1</arg_value></tool_call>\n</tool_call>", (2, 1),
     "</tool_call> without an opening <tool_call>"),
])
def test_broken_glm_output_names_where_and_why(text: str, where: tuple[int, int], fragment: str) -> None:
    """Each text looks like GLM's to ``auto`` (a bare name then a tag), so auto's error is glm45's."""
    for how in ("glm45", "auto"):
        with pytest.raises(ParseError, match=re.escape(fragment)) as info:
            parse_calls(text, how)
        assert info.value.format == "glm45" and info.value.position == where and not info.value.cut_short


@pytest.mark.parametrize(("text", "where", "fragment"), [
    ("<tool_call>get weather\n</tool_call>", (1, 15), "' ' in the name"),
    ("<tool_call>\n<arg_key>a</arg_key><arg_value>1</arg_value></tool_call>", (2, 1), "the tool name is empty"),
    ('<tool_call>{"name": "f"}</tool_call>', (1, 12), "'{' in the name"),
    ("<tool_call>f\nx=1\n</tool_call>", (2, 1), "expected <arg_key> or </tool_call>"),
])
def test_text_auto_leaves_to_hermes_is_refused_by_glm45_with_where_and_why(text: str, where: tuple[int, int],
                                                                          fragment: str) -> None:
    with pytest.raises(ParseError, match=re.escape(fragment)) as info:
        parse_calls(text, "glm45")
    assert info.value.position == where
    try:
        parse_calls(text)
    except ParseError as error:
        assert error.format == "hermes"


@pytest.mark.parametrize("text", [
    "<tool_call>get_weather\n<arg_key>city</arg_key>\n<arg_value>Par",
    "<tool_call>get_weather<arg_key>city</arg_key><arg_value>Paris</arg_value></tool_",
    "<think>still thinking",
    "<tool_call>f<arg_key>a</arg_key><arg_value>1</arg_value></tool_call><tool_call>g<arg_key>",
])
def test_glm_output_stopped_inside_a_block_is_cut_short_as_both_stacks_read_no_call(text: str) -> None:
    with pytest.raises(ParseError, match="cut short") as info:
        parse_calls(text, "glm45")
    assert info.value.cut_short


# --------------------------------------------------------------------------- glm45 in auto


@pytest.mark.parametrize("text", [
    '<tool_call>{"name": "f", "arguments": {}}</tool_call>',
    '<tool_call>\n```json\n{"name": "f", "arguments": {}}\n```\n</tool_call>',
    "<tool_call>f(x=1)</tool_call>",
    "<tool_call>[f(x=1)]</tool_call>",
    "<tool_call>\n<function=f>\n</function>\n</tool_call>",
    '<tool_call>[{"name": "f", "arguments": {}}]',
    "<tool_call>f x</tool_call>",
])
def test_auto_leaves_every_other_tool_call_block_to_its_format(text: str) -> None:
    assert not starts_glm_block(text, len("<tool_call>"))
    try:
        parse_calls(text)
    except ParseError as error:
        assert error.format != "glm45"


def test_glm_and_another_formats_markers_are_an_ambiguity_error() -> None:
    text = "<tool_call>f<arg_key>a</arg_key><arg_value>1</arg_value></tool_call>[TOOL_CALLS]g[ARGS]{}"
    with pytest.raises(ParseError, match="two readings are possible: mistral .* and glm45"):
        parse_calls(text)
    assert parse_calls(text.split("[TOOL_CALLS]")[0]) == [Step("f", {"a": 1})]


# --------------------------------------------------------------------------- deepseek V3.2 DSML


def test_dsml_string_values_are_text_unless_the_grammar_declares_another_type() -> None:
    text = dsml(invoke("score", ("value", "true", "42"), ("label", "false", "abc"), ("n", "false", "7")))
    assert parse_calls(text, "deepseek") == [Step("score", {"value": "42", "label": "abc", "n": 7})]
    kinds = {"value": "integer", "label": "string", "n": "string"}
    # vLLM's deepseek_v32 parser coerces string="true" by the schema; SGLang keeps the text
    assert parse_calls(text, "deepseek", types=lambda tool, arg: kinds[arg]) == [
        Step("score", {"value": 42, "label": "abc", "n": "7"})]


def test_dsml_skips_think_prose_and_end_of_sentence_around_the_section() -> None:
    text = dsml(invoke("f", ("a", "true", " x ")), before="<think>maybe <｜DSML｜invoke></think>Sure.\n\n",
                after="\nDone.<｜end▁of▁sentence｜>")
    assert parse_calls(text, "deepseek") == parse_calls(text) == [Step("f", {"a": " x "})]


# --------------------------------------------------------------------------- deepseek V4 and V4.1 DSML


def section(dialect: Dialect, *invokes: str, before: str = "", after: str = "") -> str:
    """Calls as the dialect's encoder writes them: ``<｜DSML｜tool_calls>`` in V4, ``<｜DSML｜ calls>`` in V4.1."""
    return f"{before}{dialect.calls_open}\n" + "\n".join(invokes) + f"\n{dialect.calls_close}{after}"


def call_in(dialect: Dialect, name: str, *params: tuple[str, str, str]) -> str:
    body = "".join(f'{dialect.param_open} name="{k}" string="{s}">{v}{dialect.param_close}\n' for k, s, v in params)
    return f'{dialect.invoke_open} name="{name}">\n{body}{dialect.invoke_close}'


@pytest.mark.parametrize("dialect", [V32, V4, V41], ids=lambda d: d.version)
def test_every_dsml_dialect_reads_the_same_calls(dialect: Dialect) -> None:
    text = section(dialect, call_in(dialect, "get_weather", ("city", "true", "SF"), ("days", "false", "3")),
                   call_in(dialect, "ping"), before="need weather</think>\n\nLet me check.\n\n",
                   after="<｜end▁of▁sentence｜>")
    expected = [Step("get_weather", {"city": "SF", "days": 3}), Step("ping", {})]
    assert parse_calls(text, "deepseek") == parse_calls(text) == expected
    json_body = f'{dialect.calls_open}\n{dialect.invoke_open} name="f">\n{{"a": [1]}}\n{dialect.invoke_close}\n' \
                f"{dialect.calls_close}"
    assert parse_calls(json_body, "deepseek") == [Step("f", {"a": [1]})]


def test_v41_tags_have_a_space_before_their_names() -> None:
    assert (V41.calls_open, V41.invoke_open, V41.param_close) == (
        f"<{D} calls>", f"<{D} invoke", f"</{D} parameter>")
    assert (V4.calls_open, V4.invoke_open) == (f"<{D}tool_calls>", f"<{D}invoke")


@pytest.mark.parametrize(("text", "where", "fragment"), [
    # SGLang's V4.1 test: a V4 section and invoke holding V4.1's parameter tags is no V4.1 call, and no V4 one
    (section(V4, f'{V4.invoke_open} name="f">\n{V41.param_open} name="a" string="true">1{V41.param_close}\n'
                 f"{V4.invoke_close}"), (3, 1), f"expected {V4.param_open} name="),
    (section(V41, call_in(V32, "f")), (2, 1), f'expected {V41.invoke_open} name="..."> or {V41.calls_close}'),
    (section(V4, call_in(V4, "f")) + "\n" + section(V32, call_in(V32, "g")), (5, 1),
     f"a {D} tag after {V4.calls_close}: expected one section of calls"),
    (section(V41, call_in(V41, "f"))[: -len(V41.calls_close)] + V4.calls_close, (4, 1),
     f'expected {V41.invoke_open} name="..."> or {V41.calls_close}'),
])
def test_dsml_dialects_are_not_mixed_in_one_output(text: str, where: tuple[int, int], fragment: str) -> None:
    for how in ("deepseek", "auto"):
        with pytest.raises(ParseError, match=re.escape(fragment)) as info:
            parse_calls(text, how)
        assert info.value.format == "deepseek" and info.value.position == where and not info.value.cut_short


@pytest.mark.parametrize("text", [
    f"Sure. <{D}tool_ca", f"Sure. <{D} cal", section(V4, call_in(V4, "f"))[:-3], section(V41, call_in(V41, "f"))[:-5],
    f'{V41.calls_open}\n{V41.invoke_open} name="f">\n{V41.param_open} name="a" string="true">x</{D} param',
])
def test_v4_and_v41_outputs_stopped_inside_the_section_are_cut_short(text: str) -> None:
    for how in ("deepseek", "auto"):
        with pytest.raises(ParseError, match="cut short") as info:
            parse_calls(text, how)
        assert info.value.cut_short


@pytest.mark.parametrize(("text", "where", "fragment"), [
    (dsml(invoke("f", ("a", "true", "1"), ("a", "true", "2"))), (4, 1), "parameter 'a' given twice"),
    (dsml(invoke("f", ("a", "maybe", "1"))), (3, 1), 'expected string="true" or string="false"'),
    (dsml(f'<{D}invoke name="f" id="1">\n</{D}invoke>'), (2, 24), "unknown attribute 'id'"),
    (dsml(f'<{D}invoke name="f">\n<{D}parameter name="a">1</{D}parameter>\n</{D}invoke>'), (3, 1),
     'expected string="true" or string="false"'),
    (dsml(f'<{D}invoke name="f">\n<{D}parameter name="a" string="true">1\n</{D}invoke>'), (4, 1),
     "a DSML tag inside parameter 'a'"),
    (dsml(f'<{D}invoke name="f">\n[1]\n</{D}invoke>'), (3, 1), f"expected <{D}parameter"),
    (dsml(f'<{D}invoke name="f">\n{{"a": 1}} x\n</{D}invoke>'), (3, 10), f"expected </{D}invoke> after"),
    (dsml(f'<{D}invoke name="">\n</{D}invoke>'), (2, 1), "an invoke without a tool name"),
    (dsml(invoke("f")) + "\n" + dsml(invoke("g")), (5, 1), f"a {D} tag after </{D}function_calls>"),
    (invoke("f"), (1, 1), f"a {D} tag outside a section of calls (<{D}function_calls> in V3.2, <{D}tool_calls> in V4"),
    ('<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>f<｜tool▁sep｜>{}<｜tool▁call▁end｜>' + dsml(invoke("g")), (1, 72),
     "one DeepSeek encoding"),
])
def test_broken_dsml_output_names_where_and_why(text: str, where: tuple[int, int], fragment: str) -> None:
    for how in ("deepseek", "auto"):
        with pytest.raises(ParseError, match=re.escape(fragment)) as info:
            parse_calls(text, how)
        assert info.value.format == "deepseek" and info.value.position == where and not info.value.cut_short


@pytest.mark.parametrize("text", [
    dsml(invoke("f", ("a", "true", "1")))[:-len(f"</{D}function_calls>")],
    f'<{D}function_calls>\n<{D}invoke name="f">\n<{D}parameter name="a" string="tr',
    f'<{D}function_calls>\n<{D}invoke name="f',
    f'Sure. <{D}function_ca',
    f'<{D}function_calls>\n<{D}invoke name="f">\n{{"a": ',
])
def test_dsml_output_stopped_inside_the_section_is_cut_short(text: str) -> None:
    for how in ("deepseek", "auto"):
        with pytest.raises(ParseError, match="cut short") as info:
            parse_calls(text, how)
        assert info.value.cut_short


# --------------------------------------------------------------------------- rendering


DELIMITERS = ["</arg_value>", "<arg_key>", "</tool_call>", "<tool_call>", f"</{D}parameter>", f'<{D}invoke name="x">',
              f"</{D}function_calls>", D, V4.calls_close, V41.param_close, V41.calls_open,
              "\\n", "3", "true", "null", " padded ", "\n", "", '"quoted"', "{}"]


@pytest.mark.parametrize("write", [to_glm45, to_deepseek_v32, to_deepseek_v4, to_deepseek_v41])
def test_glm45_and_dsml_render_then_read_back_with_tags_in_strings(write) -> None:
    calls = [Step("f", {"s": d, "n": 3, "l": [d, 1.5, None], "o": {"k": d}}) for d in DELIMITERS] + [Step("g", {})]
    text = write(calls)
    fmt = "glm45" if write is to_glm45 else "deepseek"
    assert parse_calls(text, fmt) == calls
    assert parse_calls(text) == calls
    assert write([]) == "" and parse_calls("", fmt) == []


def test_render_glm45_is_the_registered_renderer_and_names_no_format_can_hold_are_refused() -> None:
    assert render([Step("f", {"x": 1})], "glm45") == to_glm45([Step("f", {"x": 1})])
    with pytest.raises(ValueError, match="cannot be written"):
        to_glm45([Step("f", {"<x>": 1})])
    with pytest.raises(ValueError, match="cannot be written"):
        to_deepseek_v32([Step('f"', {})])


values = st.recursive(st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False)
                      | st.text(max_size=12), lambda inner: st.lists(inner, max_size=3)
                      | st.dictionaries(st.text(max_size=4), inner, max_size=3), max_leaves=8)
names = st.from_regex(r"[A-Za-z_][A-Za-z0-9_.]{0,8}", fullmatch=True)


@settings(max_examples=150, deadline=None)
@given(st.lists(st.builds(Step, names, st.dictionaries(names, values, max_size=4)), max_size=3))
def test_dsml_render_then_read_is_the_identity(calls: list[Step]) -> None:
    for write in (to_deepseek_v32, to_deepseek_v4, to_deepseek_v41):
        assert parse_calls(write(calls), "deepseek") == calls
        assert parse_calls(write(calls)) == calls


# --------------------------------------------------------------------------- hostile


@pytest.mark.parametrize(("fmt", "text"), [
    ("glm45", "<tool_call>f" + "<arg_key>" * 100_000),
    ("glm45", "<tool_call>f" + "<arg_key>a</arg_key><arg_value>" * 50_000),
    ("glm45", "<tool_call>" * 100_000),
    ("glm45", "<tool_call>f<arg_key>a</arg_key><arg_value>" + "[" * 100_000 + "</arg_value></tool_call>"),
    ("deepseek", f"<{D}function_calls>" + f'<{D}invoke name="f">' * 50_000),
    ("deepseek", f"<{D}function_calls><{D}invoke name=\"f\">" + f'<{D}parameter name="a" string="true">' * 30_000),
    ("deepseek", f"<{D}function_calls><{D}invoke name=\"f\"><{D}parameter name=\"a\" string=\"false\">"
     + "[" * 100_000 + f"</{D}parameter></{D}invoke></{D}function_calls>"),
    ("deepseek", f'<{D}function_calls><{D}invoke name="' + "a" * 500_000),
])
def test_hostile_glm_and_dsml_outputs_are_decided_quickly(fmt: str, text: str) -> None:
    started = time.perf_counter()
    for how in (fmt, "auto"):
        try:
            parse_calls(text, how)
        except ParseError:
            pass
    assert time.perf_counter() - started < 5
