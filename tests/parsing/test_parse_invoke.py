"""Step-3 (``step3``), dots.llm (``dots``) and MiniCPM 4/5 (``minicpm``): the shared ``invoke`` reader's dialects
beyond MiniMax-M2 (test_parse_minimax.py). Real completions are in tests/data/formats/completions.jsonl
(test_parse_native_formats.py reads them, test_parse_cut_short.py cuts them); here: each family's own tokens and
how auto tells them from their neighbours, value typing, what is refused (where and why), what is cut short, and
rendering."""

from __future__ import annotations

import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ek.calls import Step
from ek.parsing import ParseError, format_names, parse_calls, render
from ek.parsing.api import detect_text

B, E, CB, CE, SEP = "<｜tool_calls_begin｜>", "<｜tool_calls_end｜>", "<｜tool_call_begin｜>", "<｜tool_call_end｜>", \
    "<｜tool_sep｜>"


def step3(*invokes: str, header: str = f"function{SEP}") -> str:
    """Step-3's section as SGLang's detector documents it, one call a line."""
    return f"{B}\n" + "\n".join(f"{CB}{header}{i}{CE}" for i in invokes) + f"\n{E}"


def steptml(name: str, *params: tuple[str, str]) -> str:
    return f'<steptml:invoke name="{name}">\n' + "".join(
        f'<steptml:parameter name="{k}">{v}</steptml:parameter>\n' for k, v in params) + "</steptml:invoke>"


def dots(*invokes: str) -> str:
    return "<dots_function_call>\n" + "".join(invokes) + "</dots_function_call>"


def invoke(name: str, *params: tuple[str, str]) -> str:
    return f'<invoke name="{name}">\n' + "".join(f'<parameter name="{k}">{v}</parameter>\n' for k, v in params) \
        + "</invoke>\n"


def cpm(name: str, *params: tuple[str, str]) -> str:
    return f'<function name="{name}">' + "".join(f'<param name="{k}">{v}</param>' for k, v in params) + "</function>"


def error_of(text: str, fmt: str) -> ParseError:
    with pytest.raises(ParseError) as info:
        parse_calls(text, fmt)
    assert info.value.format == fmt
    return info.value


# --------------------------------------------------------------------------- names and auto


def test_the_formats_are_named_as_users_name_the_models() -> None:
    names = format_names()
    assert names.index("step3") == names.index("minimax-m3") + 1 == names.index("minimax-m2") + 2
    assert names[names.index("step3"):names.index("step3") + 3] == ("step3", "dots", "minicpm")


@pytest.mark.parametrize(("text", "fmt"), [
    (step3(steptml("f", ("x", "1"))), "step3"),
    (dots(invoke("f", ("x", "1"))), "dots"),
    ('<dots_function_call>{"name": "f", "arguments": {"x": 1}}</dots_function_call>', "dots"),
    (cpm("f", ("x", "1")), "minicpm"),
    ('<functionname="f"><paramname="x">1</param></function>', "minicpm"),
    ('<function\u0120name="f"><param\u0120name="x">1</param></function>', "minicpm"),
])
def test_auto_finds_each_family_by_its_tokens_before_its_prose_path_refuses_them(text: str, fmt: str) -> None:
    assert [name for name, _ in detect_text(text)] == [fmt]
    assert parse_calls(text) == parse_calls(text, fmt) == [Step("f", {"x": 1})]


def test_step3_bars_and_underscores_are_not_deepseek_v3s_low_lines() -> None:
    deepseek = ("<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>f\n```json\n{\"x\": 1}\n```"
                "<｜tool▁call▁end｜><｜tool▁calls▁end｜>")
    assert [name for name, _ in detect_text(deepseek)] == ["deepseek"]
    assert parse_calls(deepseek) == [Step("f", {"x": 1})]
    assert parse_calls(deepseek, "step3") == []  # no Step-3 token: nothing of Step-3's to read (as vLLM, SGLang)
    assert [name for name, _ in detect_text(step3(steptml("f")))] == ["step3"]


def test_an_invoke_or_a_function_name_in_prose_with_no_family_token_is_still_refused() -> None:
    # Anthropic's old prompts write <invoke name=...> in prose: no dialect claims it, and auto's markup check refuses
    text = 'I would write <invoke name="f"><parameter name="x">1</parameter></invoke> here.'
    assert detect_text(text) == []
    with pytest.raises(ParseError, match="tool-call markup that no ek format reads"):
        parse_calls(text)
    with pytest.raises(ParseError, match="an invoke outside <dots_function_call>"):
        parse_calls(text, "dots")


def test_qwen3_coders_function_equals_is_not_minicpms_function_name() -> None:
    text = "<tool_call>\n<function=f>\n<parameter=x>\n1\n</parameter>\n</function>\n</tool_call>"
    assert [name for name, _ in detect_text(text)] == ["qwen3-coder"]
    assert parse_calls(text) == [Step("f", {"x": 1})]


@pytest.mark.parametrize(("first", "second"), [
    (dots(invoke("f")), '<minimax:tool_call><invoke name="g"></invoke></minimax:tool_call>'),
    (step3(steptml("f")), dots(invoke("g"))),
    (cpm("f"), dots(invoke("g"))),
])
def test_two_families_tokens_in_one_output_are_an_ambiguity_not_a_choice(first: str, second: str) -> None:
    with pytest.raises(ParseError, match="two readings are possible"):
        parse_calls(first + "\n" + second)


# --------------------------------------------------------------------------- values


@pytest.mark.parametrize("fmt", ["step3", "dots", "minicpm"])
def test_values_are_typed_by_the_hint_else_json_when_they_are_json(fmt: str) -> None:
    params = (("n", "3"), ("zip", "02139"), ("on", "True"), ("tags", '["a", "b"]'), ("x", "null"))
    text = {"step3": step3(steptml("f", *params)), "dots": dots(invoke("f", *params)),
            "minicpm": cpm("f", *params)}[fmt]
    kinds = {"n": "integer", "zip": "string", "on": "boolean", "tags": "array", "x": "string"}
    assert parse_calls(text, fmt, types=lambda tool, arg: kinds[arg]) == [
        Step("f", {"n": 3, "zip": "02139", "on": True, "tags": ["a", "b"], "x": "null"})]
    # no hint: JSON text is its value, other text is text; Python's True is text (SGLang's literal_eval reads it,
    # vLLM's dots and Step-3 parsers only with a boolean schema): the scorer reports the type it is
    assert parse_calls(text, fmt) == [Step("f", {"n": 3, "zip": "02139", "on": "True", "tags": ["a", "b"],
                                                 "x": None})]


def test_line_breaks_around_a_step3_or_minicpm_value_are_dropped_but_its_indentation_kept() -> None:
    # vLLM's test_step3_tool_parser.py TestStep3ParameterWhitespace keeps a string's surrounding whitespace (an edit
    # tool's old_string must keep its indentation); SGLang's step3 and minicpm detectors strip it all. ek drops the
    # line breaks a model writes between tags and keeps spaces and tabs, which are the value's (docs/parsing.md)
    text = (f"{B}{CB}function{SEP}edit_file\n<steptml:invoke name=\"edit_file\"><steptml:parameter name=\"old_string\">"
            "    if x:</steptml:parameter><steptml:parameter name=\"indent\"> 4 </steptml:parameter>"
            f"<steptml:parameter name=\"path\">\na.py\n</steptml:parameter></steptml:invoke>{CE}{E}")
    assert parse_calls(text, "step3") == [Step("edit_file", {"old_string": "    if x:", "indent": 4, "path": "a.py"})]
    assert parse_calls(cpm("f", ("code", "\n\tpass\n")), "minicpm") == [Step("f", {"code": "\tpass"})]
    # where both stacks strip (MiniMax-M2, dots), every kind of whitespace goes
    text = '<dots_function_call><invoke name="f"><parameter name="s">  x  </parameter></invoke></dots_function_call>'
    assert parse_calls(text, "dots") == [Step("f", {"s": "x"})]


def test_minicpm_cdata_is_text_as_written_typed_only_by_the_hint() -> None:
    text = cpm("f", ("code", "<![CDATA[  if a < b:\n    </param> ]]>"), ("n", "<![CDATA[3]]>"),
               ("m", " <![CDATA[4]]> "))
    assert parse_calls(text, "minicpm") == [Step("f", {"code": "  if a < b:\n    </param> ", "n": "3", "m": "4"})]
    assert parse_calls(text, "minicpm", types=lambda tool, arg: "integer" if arg != "code" else "string") == [
        Step("f", {"code": "  if a < b:\n    </param> ", "n": 3, "m": 4})]


def test_dots_json_calls_take_arguments_or_parameters_as_vllm_and_sglang_do() -> None:
    text = ('<dots_function_call>{"name": "f", "parameters": {"x": 1}}</dots_function_call>\n'
            '<dots_function_call>\n{"name": "g", "arguments": "{\\"y\\": 2}"}\n</dots_function_call>')
    assert parse_calls(text, "dots") == parse_calls(text) == [Step("f", {"x": 1}), Step("g", {"y": 2})]


def test_step3_calls_with_and_without_the_header_and_a_separator_between() -> None:
    text = (f"<think>two lookups</think>Sure.\n{B}{CB}{steptml('f', ('x', '1'))}{CE}{SEP}"
            f"{CB}function{SEP}g\n{steptml('g')}{CE}{E}\nDone.")
    assert parse_calls(text, "step3") == parse_calls(text) == [Step("f", {"x": 1}), Step("g", {})]


# --------------------------------------------------------------------------- refusals


@pytest.mark.parametrize(("text", "fmt", "fragment", "at"), [
    # Step-3
    (f'{CB}<steptml:invoke name="func"></steptml:invoke>{CE}', "step3",  # vLLM's malformed_input_outputs[1]
     f"{CB} outside {B}: expected {B} before it", (1, 1)),
    (step3(steptml("g"), header=f"function{SEP}f\n"), "step3", "the call's header names 'f' but its invoke 'g'",
     (2, 40)),
    (step3(steptml("f"), header=f"thought{SEP}"), "step3", f"expected function{SEP} or <steptml:invoke", (2, 20)),
    (f"{B}{CB}{steptml('f')}x{CE}{E}", "step3", f"expected {CE} after the invoke", (2, 18)),
    (f"{B}{CB}{steptml('f')}{CE}{E} then {E}", "step3", f"{E} without an opening {B}", (2, 59)),
    (step3(steptml("f", ("a", "1"), ("a", "2"))), "step3", "parameter 'a' given twice", (4, 1)),
    (step3(steptml("f", ("a", '1<steptml:parameter name="b">2'))), "step3",
     "<steptml:parameter inside parameter 'a' (opened at line 3, column 1): expected </steptml:parameter> before it",
     (3, 30)),
    # dots
    (dots(invoke("f")) + "<invoke name=\"g\"></invoke>", "dots", "an invoke outside <dots_function_call>", (4, 22)),
    ("<dots_function_call>garbage</dots_function_call>", "dots",  # vLLM's stream test: returned as content
     'expected <invoke name="..."> or a JSON call {"name": ..., "arguments": {...}} or </dots_function_call>', (1, 21)),
    ('<dots_function_call>{"name": "f"} {"name": "g"}</dots_function_call>', "dots",
     "expected </dots_function_call> after the JSON call (a block holds one)", (1, 35)),
    ('<dots_function_call>[{"name": "f"}]</dots_function_call>', "dots", 'or a JSON call', (1, 21)),
    ('<dots_function_call>{"arguments": {}}</dots_function_call>', "dots", "the tool name must be a string",
     "line 1, column 21 $.name"),
    ("some text </dots_function_call>", "dots", "</dots_function_call> without an opening <dots_function_call>",
     (1, 11)),
    # MiniCPM (vLLM and SGLang drop each of these calls: a no-call read ek refuses to make)
    (cpm("get_weather", ("city", "北京"), ("city", "上海")), "minicpm", "parameter 'city' given twice", (1, 59)),
    ('<function name="get_weather"><param>北京</param></function>', "minicpm",
     'expected <param name="..."> or </function>', (1, 30)),
    ('<function name="f"><param name="a" type="string">1</param></function>', "minicpm",
     "expected '>' after the param name 'a'", (1, 36)),
    ('Done.</function>', "minicpm", '</function> without an opening <function name="...">', (1, 6)),
    ('see <param name="a">1</param>', "minicpm", "a <param> outside every <function name=", (1, 5)),
    (cpm("f", ("a", "1<paramname=\"b\">2")), "minicpm", "<param inside parameter 'a'", (1, 37)),
    (cpm("f", ("a", "<![CDATA[1]]> 2")), "minicpm", "expected </param> after the CDATA value of parameter 'a'",
     (1, 50)),
])
def test_malformed_calls_are_errors_naming_format_place_and_expectation(text: str, fmt: str, fragment: str,
                                                                         at: tuple[int, int] | str) -> None:
    error = error_of(text, fmt)
    assert fragment in error.reason and not error.cut_short, error
    assert error.position == at, error


# --------------------------------------------------------------------------- cut short


@pytest.mark.parametrize(("text", "fmt"), [
    (f'{B}{CB}<steptml:invoke name="func">', "step3"),  # vLLM's malformed_input_outputs[0]
    (f"{B}{CB}{steptml('f')}", "step3"),
    (f"{B}{CB}{steptml('f')}{CE}", "step3"),
    (f"{B}{CB}func", "step3"),
    (f"{B}{CB}function{SEP}f", "step3"),
    (f"{B}{CB}function{SEP}<steptml:inv", "step3"),
    ('ok<dots_function_call><invoke name="search"><parameter name="query">cha', "dots"),
    (dots(invoke("f")).removesuffix("</dots_function_call>"), "dots"),
    ('<dots_function_call>{"name": "f", "argu', "dots"),
    ('<function name="get_weather"><param name="city">北京</param>', "minicpm"),  # vLLM: no call
    ('Hello\n<function name="get_weather">\n  <param name="city">北', "minicpm"),
    ('<function name="f"><param name="a"><![CDATA[1\n2', "minicpm"),
    ('<function name="f"><param name="a"><![CDATA[1]]>', "minicpm"),
    ('<functionname="f"><paramname="', "minicpm"),
])
def test_an_output_that_stops_inside_a_call_is_cut_short_never_no_call(text: str, fmt: str) -> None:
    for how in (fmt, "auto"):
        with pytest.raises(ParseError) as info:
            parse_calls(text, how)
        assert info.value.cut_short, f"{how}: {info.value}"


def test_minicpm_reads_an_output_stopped_inside_its_first_tag_as_cut_short() -> None:
    # auto sees no family's token yet (as for every format: '<minimax:tool_ca' is prose too); minicpm knows its own
    with pytest.raises(ParseError, match="the output ends inside a <function tag") as info:
        parse_calls("Let me look. <function na", "minicpm")
    assert info.value.cut_short and info.value.position == (1, 14)


def test_a_block_closed_after_whole_calls_is_not_cut_short_and_prose_is_no_call() -> None:
    assert parse_calls(f"{B}\n{E}", "step3") == []
    assert parse_calls("Just prose, nothing to call.", "minicpm") == []
    assert parse_calls("Just prose.", "dots") == parse_calls("Just prose.", "step3") == []


# --------------------------------------------------------------------------- render


def test_render_writes_what_the_stacks_document() -> None:
    calls = [Step("get_weather", {"city": "Paris", "days": 3}), Step("now", {})]
    assert render(calls, "step3") == (
        f'{B}\n{CB}function{SEP}<steptml:invoke name="get_weather">\n'
        '<steptml:parameter name="city">Paris</steptml:parameter>\n'
        '<steptml:parameter name="days">3</steptml:parameter>\n'
        f'</steptml:invoke>{CE}\n{CB}function{SEP}<steptml:invoke name="now">\n</steptml:invoke>{CE}\n{E}')
    assert render(calls, "dots") == (
        '<dots_function_call>\n<invoke name="get_weather">\n<parameter name="city">Paris</parameter>\n'
        '<parameter name="days">3</parameter>\n</invoke>\n<invoke name="now">\n</invoke>\n</dots_function_call>')
    assert render(calls, "minicpm") == ('<function name="get_weather"><param name="city">Paris</param>'
                                        '<param name="days">3</param></function>\n<function name="now"></function>')
    assert render([], "step3") == render([], "dots") == render([], "minicpm") == ""


DELIMITERS = ["</parameter>", "</param>", "</function>", "<![CDATA[", "]]>", '<function name="x">', "</invoke>",
              B, E, CB, CE, SEP, "</steptml:parameter>", "<dots_function_call>", "3", "true", "null", " padded ", "\n",
              "a<b", "\\u003c"]
values = st.recursive(st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False)
                      | st.text(max_size=12) | st.sampled_from(DELIMITERS),
                      lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner,
                                                                                   max_size=3), max_leaves=8)
names = st.from_regex(r"[A-Za-z_][A-Za-z0-9_.:-]{0,8}", fullmatch=True)


@settings(max_examples=150, deadline=None)
@given(st.lists(st.builds(Step, names, st.dictionaries(names, values, max_size=4)), max_size=3),
       st.sampled_from(["step3", "dots", "minicpm"]))
def test_render_then_read_is_the_identity(calls: list[Step], fmt: str) -> None:
    text = render(calls, fmt)
    assert parse_calls(text, fmt) == calls
    assert parse_calls(text) == calls


@pytest.mark.parametrize("fmt", ["step3", "dots", "minicpm"])
@pytest.mark.parametrize("name", ['a"b', "a<b", "a\nb", " a", ""])
def test_render_refuses_names_the_format_cannot_hold(fmt: str, name: str) -> None:
    with pytest.raises(ValueError, match="cannot be written as a"):
        render([Step(name, {})], fmt)


# --------------------------------------------------------------------------- hostile


@pytest.mark.parametrize("text", [
    f"{B}" + f"{CB}function{SEP}" * 50_000,
    f"{B}{CB}" + "function" * 50_000,
    f'{B}{CB}<steptml:invoke name="f">' + '<steptml:parameter name="a">' * 30_000,
    "<dots_function_call>" + "{" * 100_000,
    "<dots_function_call></dots_function_call>" * 30_000 + '<invoke name="f">',
    '<function name="f"></function>' * 30_000 + "</function>",
    '<function name="f"><param name="a"><![CDATA[' * 30_000,
    "<functionname=" * 50_000,
    "x" * 500_000 + "<function na",
])
def test_hostile_outputs_are_decided_quickly(text: str) -> None:
    started = time.perf_counter()
    for how in ("step3", "dots", "minicpm", "auto"):
        try:
            parse_calls(text, how, max_size=len(text) + 1)
        except ParseError:
            pass
    assert time.perf_counter() - started < 5


def test_the_markup_auto_once_refused_as_unread_is_read_now() -> None:
    # test_parse_formats.py's UNREAD_MARKUP holds these families' real completions for the markup finder; auto
    # refused them ("tool-call markup that no ek format reads") until these formats, and reads them now
    from test_parse_formats import UNREAD_MARKUP  # pytest puts this directory on sys.path (no __init__.py)

    read = {text: parse_calls(text) for text in UNREAD_MARKUP
            if any(token in text for token in ("<steptml:", "<dots_function_call>", "<function"))}
    assert list(read.values()) == [[Step("get_weather", {"city": "Tokyo"})], [Step("get_weather", {"city": "Beijing"})],
                                   [Step("get_weather", {"city": "Beijing"})], [Step("get_weather", {"city": "Paris"})]]
