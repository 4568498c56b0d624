"""gpt-oss's Harmony format (ek.parsing.harmony): the forms servers return, built-in tools, what is refused
and where, tokens inside strings, and hostile inputs in bounded time. Real completions are in
tests/data/formats/completions.jsonl (test_parse_native_formats.py reads them)."""

from __future__ import annotations

import json
import re
import time
from pathlib import Path

import pytest

from ek.calls import Step
from ek.parsing import ParseError, parse_calls, render

WEATHER = [Step("get_weather", {"location": "Tokyo"})]
CALL = 'commentary to=functions.get_weather <|constrain|>json<|message|>{"location": "Tokyo"}'


@pytest.mark.parametrize("text", [
    f"<|start|>assistant<|channel|>{CALL}<|call|>",  # as rendered, with the prompt's header
    f"<|channel|>{CALL}<|call|>",  # the completion alone, after the prompt's <|start|>assistant
    f"<|channel|>{CALL}",  # the server dropped the stop token
    f"assistant<|channel|>{CALL}<|call|>",
    ' to=functions.get_weather<|channel|>commentary <|constrain|>json<|message|>{"location": "Tokyo"}<|call|>',
    f"<|channel|>analysis<|message|>Think.<|end|><|start|>assistant<|channel|>{CALL}<|end|>",
    f"<|channel|>{CALL}<|call|>\n",
])
def test_the_forms_a_server_returns_are_read(text: str) -> None:
    assert parse_calls(text, "harmony") == WEATHER
    assert parse_calls(text) == WEATHER


def test_several_calls_between_analysis_and_final_messages_are_read_in_order() -> None:
    text = ("<|channel|>analysis<|message|>Two lookups.<|end|>"
            '<|start|>assistant<|channel|>commentary to=functions.a <|constrain|>json<|message|>{"x": 1}<|call|>'
            "<|start|>functions.a to=assistant<|channel|>commentary<|message|>{\"ok\": true}<|end|>"
            '<|start|>assistant<|channel|>commentary to=functions.b<|message|>{"y": [2]}<|call|>'
            "<|start|>assistant<|channel|>final<|message|>Done.<|return|>")
    assert parse_calls(text, "harmony") == [Step("a", {"x": 1}), Step("b", {"y": [2]})]


@pytest.mark.parametrize(("text", "calls"), [
    ("The answer is 4.", []),  # no Harmony token: an answer, no calls
    ("<|channel|>final<|message|>The answer is 4.<|return|>", []),
    ("<|channel|>final<|message|>The answer is 4.", []),  # <|return|> dropped by the server
    ("<|channel|>analysis<|message|>Easy.<|end|><|start|>assistant<|channel|>final<|message|>4", []),
    ("<|start|>assistant<|channel|>commentary<|message|>I will look it up.<|end|>", []),  # a preamble
    ("<|start|>functions.f to=assistant<|channel|>commentary<|message|>{\"to=functions.g\": 1}<|end|>", []),
])
def test_answers_preambles_and_tool_replies_are_no_calls(text: str, calls: list[Step]) -> None:
    assert parse_calls(text, "harmony") == calls


def test_built_in_tools_are_calls_named_as_written_and_python_takes_its_code() -> None:
    """vLLM's chat parser returns only ``functions.*`` recipients as tool calls (its Responses API runs the
    built-ins), SGLang keeps the last dotted part; ek reads a built-in call as the call it is, named as written,
    so a model that searched the web instead of calling the tool is scored as having done so."""
    text = ('<|channel|>analysis<|message|>Look it up.<|end|><|start|>assistant<|channel|>analysis '
            'to=browser.search code<|message|>{"query": "gpt-oss", "topn": 3}<|call|>')
    assert parse_calls(text) == [Step("browser.search", {"query": "gpt-oss", "topn": 3})]
    shell = '<|start|>assistant<|channel|>commentary to=container.exec<|message|>{"cmd": ["ls", "-la"]}<|call|>'
    assert parse_calls(shell, "harmony") == [Step("container.exec", {"cmd": ["ls", "-la"]})]
    code = "<|channel|>analysis to=python code<|message|>import math\nprint(math.pi)\n<|call|>"
    run = [Step("python", {"code": "import math\nprint(math.pi)\n"})]
    assert parse_calls(code, "harmony") == run
    assert parse_calls(code.removesuffix("<|call|>"), "harmony") == run  # the server dropped <|call|>
    # a developer tool called python is written functions.python, and takes JSON as any function
    assert parse_calls('<|channel|>commentary to=functions.python<|message|>{"x": 1}', "harmony") == \
        [Step("python", {"x": 1})]


def test_empty_arguments_are_an_empty_object() -> None:
    for body in ("", "  ", "{}"):
        text = f"<|start|>assistant<|channel|>commentary to=functions.no_args<|message|>{body}<|call|>"
        assert parse_calls(text, "harmony") == [Step("no_args", {})]


def test_prose_around_the_messages_is_skipped_when_it_holds_no_token() -> None:
    # SGLang's gpt-oss parser keeps such text as content; it holds no call
    text = ("Let me search for that.\n<|channel|>commentary to=functions.search<|constrain|>json<|message|>"
            '{"query": "rust"}<|call|>\nHere are the results...')
    assert parse_calls(text, "harmony") == [Step("search", {"query": "rust"})]
    assert parse_calls(text) == [Step("search", {"query": "rust"})]


def test_tokens_inside_a_json_string_do_not_end_the_call() -> None:
    value = "<|call|><|end|><|start|>assistant<|channel|>commentary to=functions.evil<|message|>{}"
    text = '<|channel|>commentary to=functions.f<|message|>{"s": "%s"}<|call|>' % value
    assert parse_calls(text, "harmony") == [Step("f", {"s": value})]


def _error(text: str, fmt: str = "harmony") -> ParseError:
    with pytest.raises(ParseError) as info:
        parse_calls(text, fmt)
    return info.value


@pytest.mark.parametrize(("text", "fragment", "position", "cut"), [
    ("<|start|>assistant<|channel|>commentary to=functions.get_we", "without <|message|>", (1, 10), True),
    ("<|start|>assistant<|channel|>comm", "without <|message|>", (1, 10), True),
    ('<|channel|>commentary to=functions.f<|message|>{"a": [1, ', "ends inside this JSON value", (1, 48), True),
    ("<|channel|>commentary to=functions.f<|message|>{}<|ca", "expected <|call|> after the arguments", (1, 50), True),
    ("<|channel|>commentary to=functions.f<|message|>{}<|call|><|sta", "ends inside a token", (1, 58), True),
    ("<|channel|>analysis<|message|>Let me think", "the analysis message is not closed by <|end|>", (1, 31), True),
    ('<|channel|>commentary to=functions.f<|message|>{"a": 1} and more', "expected <|call|> after the arguments",
     (1, 57), False),
    ("<|channel|>commentary to=functions.f<|message|>foo<|call|>", "expected a JSON object of arguments", (1, 48),
     False),
    ("<|channel|>commentary to=functions.f<|message|>[1]<|call|>", "expected a JSON object of arguments", (1, 48),
     False),
    ("<|channel|>commentary<|tool|> to=functions.f<|message|>{}", "unknown or repeated token", (1, 22), False),
    ("<|channel|>commentary<|channel|>x to=functions.f<|message|>{}", "unknown or repeated token", (1, 22), False),
    ("<|start|>assistant to=functions.a<|channel|>commentary to=functions.b<|message|>{}", "a second recipient",
     (1, 56), False),
    ("<|start|>assistant<|channel|>commentary json extra<|message|>x<|end|>", "unexpected 'extra'", (1, 46), False),
    ("<|start|>assistant<|channel|>commentary to=<|message|>{}", "an empty recipient", (1, 41), False),
    ("<|start|>assistant<|channel|>commentary to=functions.<|message|>{}", "the tool name is empty", (1, 65), False),
    ("<|start|><|channel|>commentary<|message|>hi<|end|>", "without a role", (1, 10), False),
    ("<|start|>assistant<|channel|>commentary <|constrain|>json<|constrain|>json<|message|>{}",
     "unknown or repeated token", (1, 58), False),
    ("<|start|>assistant<|channel|>commentary to=functions.f<|end|>", "found <|end|>", (1, 55), False),
    ("<|channel|>analysis<|message|>Hm<|start|>assistant<|channel|>commentary to=functions.f<|message|>{}<|call|>",
     "runs into a new header", (1, 33), False),
    ("<|channel|>commentary to=functions.f<|message|>{}<|call|> then <|channel|>final<|message|>x",
     "expected <|start|> or the end of the output", (1, 59), False),
])
def test_broken_harmony_says_where_and_why(text: str, fragment: str, position: tuple[int, int], cut: bool) -> None:
    for fmt in ("harmony", "auto"):
        error = _error(text, fmt)
        assert fragment in error.reason, error
        assert error.format == "harmony"
        assert error.position == position, error
        assert error.cut_short is cut, error
        assert ("cut short" in str(error)) is cut


def test_a_message_that_loses_its_end_token_never_hides_the_call_after_it() -> None:
    # read naively (content up to the next end token), the analysis would swallow the call
    text = ("<|channel|>analysis<|message|>Need weather<|start|>assistant<|channel|>commentary "
            'to=functions.get_weather<|message|>{"city": "Oslo"}<|call|>')
    assert "runs into a new header" in _error(text).reason


def test_two_formats_tokens_in_one_text_are_an_ambiguity_error() -> None:
    text = '<|channel|>commentary to=functions.f<|message|>{}<|call|>[TOOL_CALLS]g[ARGS]{}'
    with pytest.raises(ParseError, match="two readings are possible: mistral .* and harmony"):
        parse_calls(text)
    kimi = ('<|channel|>commentary to=functions.f<|message|>{"s": 1}<|call|><|tool_calls_section_begin|>'
            '<|tool_call_begin|>functions.g:0<|tool_call_argument_begin|>{}<|tool_call_end|><|tool_calls_section_end|>')
    with pytest.raises(ParseError, match="harmony .* and kimi-k2"):
        parse_calls(kimi)


def test_rendered_calls_read_back_with_harmony_tokens_in_their_strings() -> None:
    tokens = ["<|start|>", "<|end|>", "<|call|>", "<|return|>", "<|message|>", "<|channel|>", "<|constrain|>",
              " to=functions.x", "functions.", "\n", "{}", ""]
    calls = [Step("f", {"s": t, "l": [t, {"k": t}]}) for t in tokens] + [Step("python", {"code": "x"}),
                                                                          Step("a.b-c", {})]
    text = render(calls, "harmony")
    assert parse_calls(text, "harmony") == calls
    assert parse_calls(text) == calls
    assert render([], "harmony") == ""


@pytest.mark.parametrize("name", ["get weather", "f<|call|>", ""])
def test_a_name_harmony_cannot_write_is_refused_when_rendering(name: str) -> None:
    with pytest.raises(ValueError, match="cannot be written"):
        render([Step(name, {})], "harmony")


@pytest.mark.parametrize(("label", "text"), [
    ("20k analysis messages then a call", "<|start|>assistant<|channel|>analysis<|message|>x<|end|>" * 20_000
     + '<|start|>assistant<|channel|>commentary to=functions.f<|message|>{"a": 1}<|call|>'),
    ("20k calls", '<|start|>assistant<|channel|>commentary to=functions.f<|message|>{"a": 1}<|call|>' * 12_000),
    ("20k python calls", "<|start|>assistant<|channel|>analysis to=python code<|message|>x<|call|>" * 12_000),
    ("100k <|start|>", "<|start|>" * 100_000),
    ("100k <|message|>", "<|message|>" * 80_000),
    ("100k end tokens", "<|end|>" * 100_000),
    ("unclosed analysis", "<|channel|>analysis<|message|>" + "a" * 900_000),
    ("unclosed JSON string", '<|channel|>commentary to=functions.f<|message|>{"a": "' + "\\\"" * 400_000),
    ("nested tokens in a header", "<|start|>" + "assistant<|channel|>" * 40_000 + "<|message|>"),
])
def test_hostile_harmony_is_decided_in_bounded_time(label: str, text: str) -> None:
    began = time.perf_counter()
    try:
        result = parse_calls(text, "harmony")
    except ParseError:
        result = None
    assert time.perf_counter() - began < 3.0, label
    assert result is None or all(isinstance(s, Step) for s in result)


def test_many_messages_are_read_all() -> None:
    text = '<|start|>assistant<|channel|>commentary to=functions.f<|message|>{"a": 1}<|call|>' * 5_000
    assert parse_calls(text, "harmony") == [Step("f", {"a": 1})] * 5_000


def test_error_message_names_format_line_and_column() -> None:
    text = "<|channel|>analysis<|message|>ok<|end|>\n<|start|>assistant<|channel|>commentary to=functions.f<|message|>x"
    assert re.fullmatch(r"harmony: line 2, column \d+: expected a JSON object of arguments for functions\.f",
                        str(_error(text)))


DATA = Path(__file__).resolve().parents[1] / "data" / "formats"


def test_the_corpus_holds_real_harmony_completions_and_refusals() -> None:
    """The lines themselves are read by test_parse_native_formats.py (by their format and by auto) and cut short
    by test_parse_cut_short.py; this keeps them from going missing."""
    def lines(name: str) -> list[dict]:
        rows = [json.loads(line) for line in (DATA / name).read_text(encoding="utf-8").splitlines() if line.strip()]
        return [row for row in rows if row["format"] == "harmony"]

    assert len(lines("completions.jsonl")) >= 5 and all(row["source"] for row in lines("completions.jsonl"))
    assert lines("refusals.jsonl")
