"""Kimi-K2's tool-call section (ek.parsing.kimi): the variants vLLM and SGLang accept, what is refused and
where, tokens inside strings, and hostile inputs in bounded time. Real completions are in
tests/data/formats/completions.jsonl (test_parse_native_formats.py reads them)."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from ek.calls import Step
from ek.parsing import ParseError, parse_calls, render

SB, SE = "<|tool_calls_section_begin|>", "<|tool_calls_section_end|>"
TB, AB, TE = "<|tool_call_begin|>", "<|tool_call_argument_begin|>", "<|tool_call_end|>"
WEATHER = [Step("get_weather", {"city": "Paris"})]
ONE = f'{TB}functions.get_weather:0{AB}{{"city": "Paris"}}{TE}'


@pytest.mark.parametrize("text", [
    f"{SB}{ONE}{SE}",
    f"Sure. {SB}{ONE}{SE}",
    f"{SB}{ONE}{SE}<|im_end|>",  # Kimi's end of turn
    f"<|tool_call_section_begin|>{ONE}<|tool_call_section_end|>",  # the singular variant vLLM and SGLang take
    f'{SB}{TB}functions.get_weather:0{AB}{{"city": "Paris"}}{SE}',  # <|tool_call_end|> left out: vLLM reads it
    f"{SB}{ONE}",  # the section's end left out after whole calls (vLLM's regex runs to the end)
    f'{SB}{TB}functions.get_weather:0{AB}{{"city": "Paris"}}',
    f"{SB}\n  {TB}\n functions.get_weather:0 \n{AB}\n" + '{"city": "Paris"}\n' + f"{TE}\n{SE}\n",
    f"{SB}{ONE}{SE} The weather in Paris is...",  # prose after the section: vLLM drops it
    f'{SB}{TB}get_weather:7{AB}{{"city": "Paris"}}{TE}{SE}',  # no functions. prefix, any index
])
def test_the_variants_the_serving_stacks_read_are_read(text: str) -> None:
    assert parse_calls(text, "kimi-k2") == WEATHER
    assert parse_calls(text) == WEATHER


def test_a_call_whose_end_token_is_missing_before_the_next_call_is_read() -> None:
    text = f'{SB}{TB}functions.a:0{AB}{{"x": 1}}{TB}functions.b:1{AB}{{}}{TE}{SE}'
    assert parse_calls(text, "kimi-k2") == [Step("a", {"x": 1}), Step("b", {})]


def test_a_dotted_name_keeps_its_dots_and_only_the_functions_prefix_is_dropped() -> None:
    # SGLang and Moonshot's sample parser take the part after the first dot; vLLM's id pattern keeps dots
    text = f"{SB}{TB}functions.browser.search:0{AB}{{}}{TE}{SE}"
    assert parse_calls(text, "kimi-k2") == [Step("browser.search", {})]


@pytest.mark.parametrize(("text", "calls"), [
    ("Just a normal response.", []),
    (f"Nothing to call. {SB}{SE}", []),  # an empty section: vLLM and SGLang return no call
])
def test_no_section_or_an_empty_one_is_no_calls(text: str, calls: list[Step]) -> None:
    assert parse_calls(text, "kimi-k2") == calls


def test_tokens_inside_a_json_string_do_not_end_the_call() -> None:
    value = f"{TE}{SE}{TB}functions.evil:1{AB}{{}}"
    text = f'{SB}{TB}functions.f:0{AB}{{"s": "{value}"}}{TE}{SE}'
    assert parse_calls(text, "kimi-k2") == [Step("f", {"s": value})]


def _error(text: str, fmt: str) -> ParseError:
    with pytest.raises(ParseError) as info:
        parse_calls(text, fmt)
    return info.value


@pytest.mark.parametrize(("text", "fragment", "position", "cut"), [
    (f"Sure. {SB}", "holds no whole call", (1, 7), True),
    (f"{SB}{TB}functions.get_wea", f"ends before {AB}", (1, 29), True),
    (f"{SB}{TB}functions.get_weather:0<|tool_call_arg", f"ends before {AB}", (1, 29), True),
    (f"{SB}{TB}functions.f:0{AB}", f"ends after {AB}", (1, 89), True),
    (f'{SB}{TB}functions.f:0{AB}{{"city": "Par', "ends inside this JSON value", (1, 89), True),
    (f"{SB}{ONE}<|tool_call_be", "expected <|tool_call_begin|>", (1, 133), True),
    (f'{SB}{TB}functions.f:0{AB}{{}}<|tool_call_e', "expected <|tool_call_end|>", (1, 91), True),
    (f"{SB} noise {ONE}{SE}", "expected <|tool_call_begin|>", (1, 30), False),
    (f'{SB}{TB}functions.f:0{AB}{{}} trailing{TE}{SE}', "expected <|tool_call_end|>", (1, 92), False),
    (f"{SB}{TB}functions.f.0{AB}{{}}{TE}{SE}", "must be functions.NAME:INDEX", (1, 48), False),
    (f"{SB}{TB}0{AB}{{}}{TE}{SE}", "must be functions.NAME:INDEX", (1, 48), False),
    (f"{SB}{TB}functions.:0{AB}{{}}{TE}{SE}", "no tool name", (1, 48), False),
    (f"{SB}{TB}functions.f:0 x{AB}{{}}{TE}{SE}", "must be functions.NAME:INDEX", (1, 48), False),
    (f"{SB}{TB}functions.f:0{AB}[1]{TE}{SE}", "expected a JSON object", (1, 89), False),
    (f"{SB}{TB}functions.f:0{TE}{SE}", f"expected {AB}", (1, 61), False),
    (f"{SB}{ONE}{SE}{SB}{ONE}{SE}", "a Kimi-K2 token after the tool-call section", (1, 159), False),
    (f"{ONE}{SE}", "outside a tool-call section", (1, 1), False),
    (f"Then {TB} {SB}{ONE}{SE}", "before the tool-call section", (1, 6), False),
])
def test_broken_kimi_k2_says_where_and_why(text: str, fragment: str, position: tuple[int, int], cut: bool) -> None:
    for fmt in ("kimi-k2", "auto"):
        error = _error(text, fmt)
        assert fragment in error.reason, error
        assert error.format == "kimi-k2"
        assert error.position == position, error
        assert error.cut_short is cut, error
        assert ("cut short" in str(error)) is cut


def test_rendered_calls_read_back_with_kimi_tokens_in_their_strings() -> None:
    tokens = [SB, SE, TB, AB, TE, "<|tool_call_section_begin|>", "functions.f:0", ":1", "<|im_end|>", "\n", ""]
    calls = [Step("f", {"s": t, "l": [t, {"k": t}]}) for t in tokens] + [Step("a.b:c", {}), Step("g-h", {"n": 1})]
    text = render(calls, "kimi-k2")
    assert parse_calls(text, "kimi-k2") == calls
    assert parse_calls(text) == calls
    assert render([], "kimi-k2") == ""


@pytest.mark.parametrize("name", ["get weather", "f<|x|>", ""])
def test_a_name_kimi_cannot_write_is_refused_when_rendering(name: str) -> None:
    with pytest.raises(ValueError, match="cannot be written"):
        render([Step(name, {})], "kimi-k2")


@pytest.mark.parametrize(("label", "text"), [
    ("11k calls", SB + f'{TB}functions.f:0{AB}{{"a": 1}}{TE}' * 11_000 + SE),
    ("100k section begins", SB * 35_000),
    ("100k call begins", SB + TB * 50_000),
    ("100k argument begins", SB + TB + "functions.f:0" + AB * 35_000),
    ("tokens before the section", TE * 50_000 + SB),
    ("unclosed JSON string", f'{SB}{TB}functions.f:0{AB}{{"a": "' + '\\"' * 400_000),
    ("prose then a section", "a" * 900_000 + SB + ONE + SE),
])
def test_hostile_kimi_k2_is_decided_in_bounded_time(label: str, text: str) -> None:
    began = time.perf_counter()
    try:
        result = parse_calls(text, "kimi-k2")
    except ParseError:
        result = None
    assert time.perf_counter() - began < 3.0, label
    assert result is None or all(isinstance(s, Step) for s in result)


def test_many_calls_in_one_section_are_read_all() -> None:
    text = SB + f'{TB}functions.f:0{AB}{{"a": 1}}{TE}' * 11_000 + SE
    assert parse_calls(text, "kimi-k2") == [Step("f", {"a": 1})] * 11_000


DATA = Path(__file__).resolve().parents[1] / "data" / "formats"


def test_the_corpus_holds_real_kimi_k2_completions_and_refusals() -> None:
    """The lines themselves are read by test_parse_native_formats.py (by their format and by auto) and cut short
    by test_parse_cut_short.py; this keeps them from going missing."""
    def lines(name: str) -> list[dict]:
        rows = [json.loads(line) for line in (DATA / name).read_text(encoding="utf-8").splitlines() if line.strip()]
        return [row for row in rows if row["format"] == "kimi-k2"]

    assert len(lines("completions.jsonl")) >= 5 and all(row["source"] for row in lines("completions.jsonl"))
    assert lines("refusals.jsonl")


def test_auto_ends_an_unclosed_thought_at_a_kimi_section() -> None:
    """SGLang's test_kimik2_detector.py test_tool_call_inside_think_without_close_tag: K2-Thinking opens its section
    inside a <think> it never closes. kimi-k2 read the call (the thought is prose before the section); auto called
    the output cut short in its thought, where SGLang's Kimi-K2 reasoning parser ends the thought at the section."""
    text = ("<think>Let me read this file...<|tool_calls_section_begin|><|tool_call_begin|>functions.ReadFile:0"
            '<|tool_call_argument_begin|>{"path": "/test.py"}<|tool_call_end|><|tool_calls_section_end|>')
    for how in ("kimi-k2", "auto"):
        assert parse_calls(text, how) == [Step("ReadFile", {"path": "/test.py"})]
    with pytest.raises(ParseError, match="not closed by </think>") as info:
        parse_calls('<think>Let me look. <tool_call>{"name": "f", "arguments": {}}</tool_call>')
    assert info.value.cut_short  # only Kimi's section ends a thought; a Hermes block there is still thinking
