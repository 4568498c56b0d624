"""Families that wrap JSON or Python calls in tokens of their own (``ek.parsing.wrapped``): Jamba, Hunyuan-A13B,
Nemotron, LFM2, openPangu, Apertus, Cohere Command, Qwen2.5-Coder, OLMo 3, InternLM2, LongCat-Flash and GigaChat 3.
Real completions are in tests/data/formats/completions.jsonl (test_parse_native_formats.py and
test_parse_cut_short.py read them); this file holds what those cannot show: auto's choice where families share a
token, errors at their positions, and what a missing close token means in each family."""

from __future__ import annotations

import re

import pytest

from ek.calls import Step
from ek.parsing import ParseError, format_names, parse_calls, render
from ek.parsing.render import RENDERERS
from ek.parsing.wrapped import WRAPPERS

WRAPPED = list(WRAPPERS)
CALLS = [Step("search", {"q": "cats", "n": [1, 2]}), Step("get_weather", {"city": "Paris"})]


def _error(text: str, fmt: str = "auto") -> ParseError:
    with pytest.raises(ParseError) as info:
        parse_calls(text, fmt)
    return info.value


# --------------------------------------------------------------------------- registered everywhere


def test_every_wrapped_format_is_registered_and_rendered() -> None:
    # Hunyuan-A13B writes Jamba's block; the hunyuan format reads it with Hy3's and Hy4's tags (test_parse_kv_dialects)
    assert set(WRAPPED) == {"jamba", "nemotron", "lfm2", "pangu", "apertus", "cohere", "qwen25-coder", "olmo3",
                            "internlm2", "longcat", "gigachat3"}
    assert set(WRAPPED) <= set(format_names()) and set(WRAPPED) <= set(RENDERERS)


@pytest.mark.parametrize("fmt", WRAPPED)
def test_rendered_calls_read_back_by_their_format_and_by_auto(fmt: str) -> None:
    text = render(CALLS, fmt)
    assert text.startswith(WRAPPERS[fmt].open) and text.endswith(WRAPPERS[fmt].close)
    assert parse_calls(text, fmt) == CALLS and parse_calls(text) == CALLS
    assert render([], fmt) == ""


@pytest.mark.parametrize("fmt", WRAPPED)
def test_values_holding_any_wrapper_token_round_trip(fmt: str) -> None:
    tokens = "".join(f"{w.open}{w.close}" for w in WRAPPERS.values()) + "<|START_THINKING|><think>"
    python = WRAPPERS[fmt].body.startswith("python")  # a Python argument's name is an identifier
    calls = [Step("f", {"s": tokens})] if python else [Step("f", {"s": tokens, tokens: [tokens]})]
    text = render(calls, fmt)
    assert text.count(WRAPPERS[fmt].open) == 1 and text.count(WRAPPERS[fmt].close) == 1
    assert parse_calls(text, fmt) == calls and parse_calls(text) == calls


# --------------------------------------------------------------------------- auto's choices


def test_auto_tells_lfm2_from_pangu_by_the_body_and_leaves_kimi_its_sections() -> None:
    python = "<|tool_call_start|>[f(x=1), g()]<|tool_call_end|>"
    json = '<|tool_call_start|>[{"name": "f", "arguments": {"x": 1}}, {"name": "g", "arguments": {}}]<|tool_call_end|>'
    assert parse_calls(python) == parse_calls(json) == [Step("f", {"x": 1}), Step("g", {})]
    assert _error("<|tool_call_start|>[f(x=1),, g()]<|tool_call_end|>").format == "lfm2"
    assert _error('<|tool_call_start|>[{"name": "f", "arguments": {"x": 1},}]<|tool_call_end|>').format == "pangu"
    kimi = ("<|tool_calls_section_begin|><|tool_call_begin|>functions.f:0<|tool_call_argument_begin|>{}"
            "<|tool_call_end|><|tool_calls_section_end|>")
    assert parse_calls(kimi) == [Step("f", {})]
    assert _error("<|tool_call_begin|>functions.f:0<|tool_call_argument_begin|>{}<|tool_call_end|>").format \
        == "kimi-k2"
    stray = _error("Done.<|tool_call_end|>")  # a close token alone: not Kimi's section error
    assert stray.format == "lfm2" and stray.position == (1, 6) and "without an opening <|tool_call_start|>" in stray.reason
    assert "two readings" in str(_error(kimi + python))


def test_one_json_object_after_lfm2s_start_token_is_lfm2s_to_auto() -> None:
    """SGLang's test_streaming_json_complete_in_one_chunk: LFM2's JSON mode writes one object; auto took it for
    openPangu's, whose reader wants a list, and refused it."""
    text = 'Checking. <|tool_call_start|>{"name": "get_weather", "arguments": {"city": "Rome"}}<|tool_call_end|>'
    for how in ("lfm2", "auto"):
        assert parse_calls(text, how) == [Step("get_weather", {"city": "Rome"})]
    assert _error('<|tool_call_start|>{"name": "f", "arguments": {},}<|tool_call_end|>').format == "lfm2"


def test_lfm2_reads_a_json_body_too_as_sglang_does_and_pangu_refuses_python() -> None:
    text = '<|tool_call_start|>[{"name": "get_weather", "arguments": {"location": "Paris"}}]<|tool_call_end|>'
    assert parse_calls(text, "lfm2") == [Step("get_weather", {"location": "Paris"})]
    error = _error("<|tool_call_start|>[f(x=1)]<|tool_call_end|>", "pangu")
    assert error.position == (1, 20) and "expected a JSON list of calls after <|tool_call_start|>" in error.reason


def test_minimax_m1_objects_in_tool_calls_stay_auto_s_and_jamba_wants_a_list() -> None:
    text = ('<tool_calls>\n{"name": "get_current_weather", "arguments": {"city": "Dallas"}}\n'
            '{"name": "get_current_weather", "arguments": {"city": "Orlando"}}\n</tool_calls>')
    assert parse_calls(text) == [Step("get_current_weather", {"city": "Dallas"}),
                                 Step("get_current_weather", {"city": "Orlando"})]
    for fmt in ("jamba", "hunyuan"):
        error = _error(text, fmt)
        assert error.format == fmt and error.position == (2, 1) and "expected a JSON list of calls" in error.reason


def test_qwen25_coder_tools_are_read_only_when_they_hold_json() -> None:
    assert parse_calls('<tools>\n[{"name": "f", "arguments": {}}]\n</tools>') == [Step("f", {})]
    assert parse_calls("The <tools> you gave me are fine.") == []


# --------------------------------------------------------------------------- what each family reads


def test_every_block_is_read_and_prose_around_them_is_skipped() -> None:
    one, two = '{"name": "f", "arguments": {}}', '{"name": "g", "arguments": {"x": 1}}'
    text = f"First.<TOOLCALL>{one}</TOOLCALL> then <TOOLCALL>[{two}]</TOOLCALL> Done."
    assert parse_calls(text, "nemotron") == parse_calls(text) == [Step("f", {}), Step("g", {"x": 1})]
    text = f"<|tool_call_start|>[{one}]<|tool_call_end|>\n<|tool_call_start|>[{two}]<|tool_call_end|>"
    assert parse_calls(text, "pangu") == [Step("f", {}), Step("g", {"x": 1})]


def test_call_syntax_outside_the_blocks_is_refused_where_it_stands() -> None:
    echo = "<|tool_call_start|>[f(x=1)]<|tool_call_end|>\n[f(x=1)]<|tool_call_end|>"  # LFM2's echo of its call
    for fmt in ("lfm2", "auto"):
        error = _error(echo, fmt)
        assert error.format == "lfm2" and error.position == (2, 1) and "call syntax outside" in error.reason
    error = _error('Let me see {"name": "g", "arguments": {}} <TOOLCALL>[{"name": "f", "arguments": {}}]</TOOLCALL>')
    assert error.format == "nemotron" and error.position == (1, 12)


def test_reasoning_is_skipped_and_a_cohere_answer_holds_no_call() -> None:
    quoted = '[{"name": "f", "arguments": {}}]'
    text = f"<think>I could write <tool_calls>{quoted}</tool_calls>.</think><tool_calls>[]</tool_calls>"
    assert parse_calls(text, "hunyuan") == parse_calls(text) == []
    action = '<|START_ACTION|>[{"tool_call_id": "0", "tool_name": "f", "parameters": {"a": 1}}]<|END_ACTION|>'
    text = f"<|START_THINKING|>maybe {quoted}<|END_THINKING|>{action}"
    assert parse_calls(text, "cohere") == parse_calls(text) == [Step("f", {"a": 1})]
    answer = '<|START_THINKING|>no tool<|END_THINKING|>\n<|START_RESPONSE|>Here: {"name": "f"}<|END_RESPONSE|>'
    assert parse_calls(answer, "cohere") == parse_calls(answer) == []


def test_apertus_takes_one_name_per_object_and_nemotron_arguments_as_json_text() -> None:
    error = _error('<|tools_prefix|>[{"f": {}, "g": {}}]<|tools_suffix|>')
    assert error.format == "apertus" and error.position == "line 1, column 17 $[0]"
    assert "one key, got keys 'f', 'g'" in error.reason
    text = '<TOOLCALL>[{"name": "q", "arguments": "{\\"sql\\": \\"select 1\\"}"}]</TOOLCALL>'
    assert parse_calls(text) == [Step("q", {"sql": "select 1"})]
    error = _error('<|START_ACTION|>[{"tool_call_id": "0", "name": "f"}]<|END_ACTION|>')
    assert error.format == "cohere" and error.position == "line 1, column 17 $[0]" and '"tool_name"' in error.reason


@pytest.mark.parametrize(("text", "fmt", "where", "fragment"), [
    ('<tool_calls>[{"name": "f", "arguments": {}}] and</tool_calls>', "jamba", (1, 46), "expected </tool_calls>"),
    ('<TOOLCALL>"f"</TOOLCALL>', "nemotron", (1, 11), "expected a JSON call object or list"),
    ("x\n<|tool_call_start|>[f(x=1) g()]<|tool_call_end|>", "lfm2", (2, 21), "invalid Python"),
    ("<|tool_call_start|>[f()] <|tool_call_start|>[g()]<|tool_call_end|>", "lfm2", (1, 26), "inside an unclosed"),
    ('</tools> <tools>{"name": "f", "arguments": {}}</tools>', "qwen25-coder", (1, 1), "without an opening"),
])
def test_errors_name_the_format_the_place_and_what_was_expected(text: str, fmt: str, where: tuple[int, int],
                                                                 fragment: str) -> None:
    for how in (fmt, "auto"):
        error = _error(text, how)
        assert (error.format, error.position) == (fmt, where) and fragment in error.reason, error
        assert not error.cut_short


# --------------------------------------------------------------------------- a missing close token


@pytest.mark.parametrize("fmt", ["jamba", "nemotron", "pangu", "olmo3"])
def test_whole_calls_without_their_close_token_are_cut_short_where_the_stacks_read_none(fmt: str) -> None:
    text = render(CALLS, fmt).removesuffix(WRAPPERS[fmt].close)
    error = _error(text, fmt)
    assert error.cut_short and error.position == (1, 1) and f"not closed by {WRAPPERS[fmt].close}" in error.reason
    partial = render(CALLS, fmt)[:-3]  # inside the close token itself
    assert _error(partial, fmt).cut_short


@pytest.mark.parametrize("fmt", ["lfm2", "apertus", "cohere", "qwen25-coder", "internlm2", "longcat", "gigachat3"])
def test_whole_calls_without_their_close_token_are_read_where_vllm_reads_them(fmt: str) -> None:
    text = render(CALLS, fmt).removesuffix(WRAPPERS[fmt].close)
    assert parse_calls(text, fmt) == parse_calls(text) == CALLS


def test_apertus_suffix_is_optional_and_prose_may_follow_the_list() -> None:
    text = '<|tools_prefix|>[{"f": {"x": 1}}] I called f.'
    assert parse_calls(text, "apertus") == [Step("f", {"x": 1})]
    assert _error('<tool_calls>[{"name": "f", "arguments": {}}] I called f.', "jamba").position == (1, 46)


@pytest.mark.parametrize("fmt", WRAPPED)
def test_an_output_cut_inside_a_block_says_so_in_every_format(fmt: str) -> None:
    text = render(CALLS, fmt)
    start = text.index("get_weather") + len("get_weather")
    for cut in range(start, text.rindex("Paris") + 5):
        for how in (fmt, "auto"):
            error = _error(text[:cut], how)
            assert error.cut_short and re.search(r"cut short", str(error)), (cut, error)
    for skipped in ("<|START_THINKING|>thinking", "<|START_RESPONSE|>Sure"):
        assert _error(skipped, "cohere").cut_short


# --------------------------------------------------------------------------- OLMo 3


def test_olmo3_reads_calls_one_a_line_with_prose_around_and_json_words_as_vllm_does() -> None:
    text = "I'll check.<function_calls>\nget_weather(city='Paris')\nget_weather(city='NYC')\n</function_calls>"
    assert parse_calls(text, "olmo3") == parse_calls(text) == [Step("get_weather", {"city": "Paris"}),
                                                               Step("get_weather", {"city": "NYC"})]
    text = "<function_calls>f(a=null, b=true, c=[false, None], d={'k': null})</function_calls>\nDone."
    assert parse_calls(text, "olmo3") == parse_calls(text) == [Step("f", {"a": None, "b": True, "c": [False, None],
                                                                          "d": {"k": None}})]


def test_olmo3_reads_every_block_where_vllm_reads_only_the_first() -> None:
    text = "<function_calls>f(x=1)</function_calls> and then <function_calls>g(y='z')</function_calls>"
    assert parse_calls(text, "olmo3") == parse_calls(text) == [Step("f", {"x": 1}), Step("g", {"y": "z"})]


def test_olmo3_reads_bare_calls_as_vllm_does_and_prose_is_no_call() -> None:
    # vLLM's reader takes an output that is nothing but call lines, with no block, as calls
    text = "get_weather(city='Paris')\nregister(role=null)"
    assert parse_calls(text, "olmo3") == [Step("get_weather", {"city": "Paris"}), Step("register", {"role": None})]
    assert parse_calls("How can I help you today?", "olmo3") == []
    error = _error("Done.\nget_weather(city='Paris')", "olmo3")  # a call after prose is not all of the output
    assert error.format == "olmo3" and error.position == (2, 1) and not error.cut_short
    text = "<function_calls>f()</function_calls>\nParis (France) is sunny.\n  see(the docs)"
    error = _error(text)
    assert error.format == "olmo3" and error.position == (3, 3) and "call syntax outside" in error.reason


@pytest.mark.parametrize(("text", "where", "fragment"), [
    # vLLM keeps the sibling and drops the call it cannot convert (test_bad_sibling_call_does_not_drop_good_calls)
    ("<function_calls>bad(x=b'z')\nget_weather(city='SF')</function_calls>", (1, 23), "bytes literals"),
    # vLLM drops 1e999 (test_non_finite_argument_rejected) and keeps the other call
    ("<function_calls>calc(x=1e999)\nget_weather(city='SF')</function_calls>", (1, 24), "infinity"),
    ("<function_calls>foo(x=1])</function_calls>", (1, 24), "invalid Python"),
    ("x\n<function_calls>f(x=undefined_name)</function_calls>", (2, 21), "not a literal value"),
])
def test_olmo3_refuses_a_call_it_cannot_read_where_vllm_drops_it(text: str, where: tuple[int, int],
                                                                 fragment: str) -> None:
    for how in ("olmo3", "auto"):
        error = _error(text, how)
        assert (error.format, error.position) == ("olmo3", where) and fragment in error.reason, error
        assert not error.cut_short


def test_anthropic_function_calls_markup_is_not_olmo3_to_auto() -> None:
    text = '<function_calls>\n<invoke name="f">\n<parameter name="x">1</parameter>\n</invoke>\n</function_calls>'
    error = _error(text)
    assert error.format == "auto" and "markup that no ek format reads" in error.reason
    assert _error(text, "olmo3").format == "olmo3"
    assert _error("<function_calls>", "auto").cut_short  # cut right after the tag: OLMo 3's, cut short


@pytest.mark.parametrize(("call", "column", "fragment"), [
    ("label(tags={'urgent', 'bug'})", 32, "set literals are not accepted"),
    ("set_date(month=07, day=05)", 36, "leading zeros"),
    ("bash(command='sed -n '360,450p' /testbed/sympy/matrices/common.py')", 49, "invalid Python"),
    ("exec(command='cat > f.py << EOF\nimport csv\nprint(1)\nEOF')", 34, "unterminated string"),
])
def test_lfm2_python_vllm_mends_is_refused_where_it_breaks(call: str, column: int, fragment: str) -> None:
    """vLLM's test_lfm2_tool_parser.py mends these (a set as a list, 07 as 7, unescaped quotes, raw line breaks); ek
    reads LFM2's calls as the python format reads Python, so each is an error at its place, never cut short."""
    for how in ("lfm2", "auto"):
        error = _error(f"<|tool_call_start|>[{call}]<|tool_call_end|>", how)
        assert error.format == "lfm2" and error.position == (1, column) and not error.cut_short
        assert fragment in error.reason


# --------------------------------------------------------------------------- InternLM2, LongCat-Flash, GigaChat 3


INTERNLM2 = '<|action_start|><|plugin|>\n{"name": "get_weather", "parameters": {"city": "Tokyo"}}<|action_end|>'
LONGCAT = '<longcat_tool_call>{"name": "get_weather", "arguments": {"city": "Tokyo"}}</longcat_tool_call>'
GIGACHAT3 = '<|message_sep|>\n\nfunction call<|role_sep|>\n{"name": "get_weather", "arguments": {"city": "Tokyo"}}'
GIGACHAT31 = '<|function_call|>{"name": "get_weather", "arguments": {"city": "Tokyo"}}</s>'
TOKYO = [Step("get_weather", {"city": "Tokyo"})]


@pytest.mark.parametrize(("text", "fmt"), [(INTERNLM2, "internlm2"), (LONGCAT, "longcat"), (GIGACHAT3, "gigachat3"),
                                           (GIGACHAT31, "gigachat3")])
def test_internlm2_longcat_and_gigachat_calls_are_read_by_their_format_and_by_auto(text: str, fmt: str) -> None:
    """vLLM's internlm2, longcat and gigachat3 parsers; ek had no format for them (auto read some as JSON in prose,
    and took InternLM2's <|action_start|><|plugin|>not json for no call)."""
    assert parse_calls(text, fmt) == parse_calls(text) == TOKYO
    # GigaChat's call is all of its message (vLLM decodes all that follows the header): prose after it is an error
    closed = text if text.endswith(("</s>", ">")) else text + "</s>"
    assert parse_calls("Sure. " + closed + "\nDone.", fmt) == TOKYO


def test_gigachats_end_of_turn_token_ends_a_reply_without_a_call_and_both_headers_are_one_format() -> None:
    assert parse_calls("How can I help you today?</s>", "gigachat3") == []
    assert parse_calls(GIGACHAT3 + "</s>" + "\n" + GIGACHAT31, "gigachat3") == TOKYO + TOKYO
    error = _error(GIGACHAT3 + " and more")
    assert (error.format, error.position) == ("gigachat3", (4, 57)) and "expected </s> after the calls" in error.reason


@pytest.mark.parametrize(("text", "fmt", "where"), [
    ('<|action_start|><|plugin|>[{"name": "f", "parameters": {}}]<|action_end|>', "internlm2", (1, 27)),
    ("<|action_start|><|plugin|>not json<|action_end|>", "internlm2", (1, 27)),
    ('Some text with <longcat_tool_call>invalid json', "longcat", (1, 35)),
    ('<|function_call|>[{"name": "f", "arguments": {}}]', "gigachat3", (1, 18)),
])
def test_a_block_that_is_not_one_call_object_is_an_error_where_vllm_reads_no_call(text: str, fmt: str,
                                                                                  where: tuple[int, int]) -> None:
    for how in (fmt, "auto"):
        error = _error(text, how)
        assert (error.format, error.position) == (fmt, where) and "expected a JSON call object" in error.reason


@pytest.mark.parametrize("space", ["", " "])
def test_internlm2s_code_interpreter_action_is_prose_as_vllm_keeps_it_as_content(space: str) -> None:
    """A detokenizer may put a space between the special tokens (SGLang's InternLM reader looks for that)."""
    code = f"<|action_start|>{space}<|interpreter|>\nprint(1 + 1)\n<|action_end|>"
    call = INTERNLM2.replace("><", f">{space}<", 1)
    for how in ("internlm2", "auto"):
        assert parse_calls(code, how) == []
        assert parse_calls(code + "\n" + call, how) == TOKYO
        assert _error(code[:-len("<|action_end|>")], how).cut_short
