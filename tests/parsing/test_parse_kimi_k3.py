"""Kimi-K3's XTML tools channel (ek.parsing.kimi_k3): the shapes Moonshot's encoding_k3.py writes and vLLM and
SGLang read, how values are typed, what is refused and where, outputs cut short, and the renderer. Real
completions are in tests/data/formats/completions.jsonl (test_parse_native_formats.py reads them,
test_parse_cut_short.py cuts them)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ek.calls import Step
from ek.parsing import ParseError, parse_calls, render

T, TC = "<|open|>tools<|sep|>", "<|close|>tools<|sep|>"
RO, RC = "<|open|>response<|sep|>", "<|close|>response<|sep|>"
THO, THC = "<|open|>think<|sep|>", "<|close|>think<|sep|>"
CC, AC = "<|close|>call<|sep|>", "<|close|>argument<|sep|>"


def arg(key: str, value: str, kind: str | None = "string") -> str:
    typed = "" if kind is None else f' type="{kind}"'
    return f'<|open|>argument key="{key}"{typed}<|sep|>{value}{AC}'


def call(name: str, *args: str, index: int = 1) -> str:
    return f'<|open|>call tool="{name}" index="{index}"<|sep|>' + "".join(args) + CC


ONE = call("get_weather", arg("city", "Paris"), arg("days", "3", "number"))
WEATHER = [Step("get_weather", {"city": "Paris", "days": 3})]


@pytest.mark.parametrize("text", [
    T + ONE + TC,
    f"{RO}On it.{RC}{T}{ONE}{TC}",
    f"{THO}The user wants Paris.{THC}{RO}On it.{RC}{T}{ONE}{TC}",
    f"The user wants Paris.{THC}{RO}{RC}{T}{ONE}{TC}",  # the prompt opened the think channel
    f"On it.{RC}{T}{ONE}{TC}",  # thinking off: the prompt opened the response channel
    f"{RO}On it.{RC}{T}{ONE}{TC}<|close|>message<|sep|><|end_of_msg|>\n",  # the end of the turn
    f"{RO}On it.{T}{ONE}{TC}",  # the response's close left out before the tools channel: vLLM and SGLang read it
    T + ONE,  # the tools channel's close left out after a whole call, as vLLM and SGLang read it
    T + ONE + "<|close|>too",  # and stopped inside it
    f"{T}\n  {ONE}\n{TC}",  # whitespace between tags
    f"{T}{ONE}{TC} Done.",  # prose after the channel: the stacks drop it
])
def test_the_shapes_the_template_writes_and_the_stacks_read_are_read(text: str) -> None:
    assert parse_calls(text, "kimi-k3") == WEATHER
    assert parse_calls(text) == WEATHER


def test_a_turn_with_no_tools_channel_and_an_empty_channel_are_no_calls() -> None:
    for text in (f"{THO}hm{THC}{RO}Hello! f(x) is fine.{RC}<|close|>message<|sep|>", f"{RO}ok{RC}{T}{TC}"):
        assert parse_calls(text, "kimi-k3") == []
        assert parse_calls(text) == []


def test_calls_quoted_in_the_think_channel_are_context_not_calls() -> None:
    quoted = T + call("rm", arg("path", "/")) + TC
    text = f"{THO}I could send {quoted} but will not.{THC}{RO}No call needed.{RC}"
    assert parse_calls(text, "kimi-k3") == []
    assert parse_calls(text) == []
    assert parse_calls(f"I could send {quoted}{THC}{T}{ONE}{TC}", "kimi-k3") == WEATHER


def test_several_calls_are_read_in_order_whatever_their_index() -> None:
    text = T + call("a", arg("x", "1", "number"), index=1) + call("b", index=2) + call("a", index=7) + TC
    assert parse_calls(text, "kimi-k3") == [Step("a", {"x": 1}), Step("b", {}), Step("a", {})]


def test_attribute_values_are_unescaped_and_string_values_are_literal() -> None:
    text = (T + '<|open|>call tool="a&amp;&quot;b" index="1"<|sep|>'
            + arg("k&amp;&quot;", ' &amp; &quot;x&quot; <b>\n') + CC + TC)
    assert parse_calls(text, "kimi-k3") == [Step('a&"b', {'k&"': ' &amp; &quot;x&quot; <b>\n'})]


@pytest.mark.parametrize(("kind", "value", "expected"), [
    ("string", "3", "3"),
    ("string", "[1, 2]", "[1, 2]"),
    ("string", "", ""),
    ("number", "3", 3),
    ("number", " 2.5 ", 2.5),
    ("integer", "2", 2),  # not a type the template writes; the stacks JSON-decode every non-string type
    ("boolean", "true", True),
    ("null", "null", None),
    ("array", '[1, "a"]', [1, "a"]),
    ("object", '{"a": {"b": null}}', {"a": {"b": None}}),
    ("number", "oops", "oops"),  # not JSON: its text, as the stacks keep it (the scorer reports the wrong type)
    ("object", "{not json", "{not json"),
    ("number", '"3"', "3"),  # JSON, of another type than declared: its value, as the stacks decode it
])
def test_a_declared_type_decides_how_a_value_is_read(kind: str, value: str, expected: object) -> None:
    text = T + call("f", arg("x", value, kind)) + TC
    assert parse_calls(text, "kimi-k3") == [Step("f", {"x": expected})]
    # the declaration wins over the grammar's type, as vLLM and SGLang never look at the schema
    for declared in ("string", "integer", "object"):
        assert parse_calls(text, "kimi-k3", types=lambda tool, name, d=declared: d) == [Step("f", {"x": expected})]


def test_an_argument_without_a_type_is_text_unless_the_grammar_types_it() -> None:
    text = T + call("f", arg("n", "3", None), arg("s", "3", None)) + TC
    assert parse_calls(text, "kimi-k3") == [Step("f", {"n": "3", "s": "3"})]
    hint = {"n": "integer", "s": "string"}
    assert parse_calls(text, "kimi-k3", types=lambda tool, name: hint[name]) == [Step("f", {"n": 3, "s": "3"})]


def test_the_json_block_encoding_k3_writes_for_raw_arguments_is_read() -> None:
    text = f'{T}<|open|>call tool="f" index="1"<|sep|><|open|>json type="object"<|sep|>{{"a": [1]}}<|close|>json<|sep|>{CC}{TC}'
    assert parse_calls(text, "kimi-k3") == [Step("f", {"a": [1]})]


@pytest.mark.parametrize(("text", "fragment", "position"), [
    (T + call("f", arg("a", "1"), arg("a", "2")) + TC, "argument 'a' given twice", (1, 129)),
    (f'{T}<|open|>call index="1"<|sep|>{CC}{TC}', "a call without a tool name", (1, 21)),
    (f'{T}<|open|>call tool=""<|sep|>{CC}{TC}', "a call without a tool name", (1, 21)),
    (f'{T}<|open|>call tool="f" id="1"<|sep|>{CC}{TC}', "unknown attribute 'id'", (1, 43)),
    (f'{T}<|open|>call tool="f" tool="g"<|sep|>{CC}{TC}', "attribute 'tool' given twice", (1, 43)),
    (f'{T}<|open|>call tool="f" index="one"<|sep|>{CC}{TC}', "index must be a number", (1, 21)),
    (f'{T}<|open|>call tool=f<|sep|>{CC}{TC}', 'expected an attribute written key="value"', (1, 34)),
    (f'{T}<|open|>call tool="f"<|sep|><|open|>argument type="string"<|sep|>x{AC}{CC}{TC}', "without a name",
     (1, 49)),
    (f'{RO}ok{RC}' + call("f") + TC, "'<|open|>call tool=\"f\" index=\"1\"<|sep|>' outside the tools channel", (1, 50)),
    (T + call("f", '<|open|>argument key="a" type="string"<|sep|>x' + arg("b", "y")) + TC,
     "inside the value of 'a', before the <|close|>argument<|sep|>", (1, 105)),
    (T + call("f", '<|open|>argument key="a" type="string"<|sep|>x') + TC,
     "'<|close|>call<|sep|>' inside the value of 'a'", (1, 105)),
    (T + '<|open|>call tool="f" index="1"<|sep|>' + TC, "expected <|open|>argument", (1, 59)),
    (T + ONE + "x" + TC, "expected <|open|>call", (1, 239)),
    (T + ONE + TC + T + ONE + TC, "after <|close|>tools<|sep|>: expected one tools channel", (1, 260)),
    (f'{T}<|open|>call tool="f"<|sep|><|open|>json type="object"<|sep|>[1]<|close|>json<|sep|>{CC}{TC}',
     "expected a JSON object of arguments", (1, 82)),
    (f'{T}<|open|>call tool="f"<|sep|><|open|>json type="array"<|sep|>[1]<|close|>json<|sep|>{CC}{TC}',
     'a json block must be type="object"', (1, 49)),
    (T + call("f", arg("x", "[" * 200, "array")) + TC, "nesting deeper", (1, 103)),
])
def test_broken_kimi_k3_says_where_and_why(text: str, fragment: str, position: tuple[int, int]) -> None:
    for fmt in ("kimi-k3", "auto"):
        with pytest.raises(ParseError) as info:
            parse_calls(text, fmt)
        error = info.value
        assert error.format == "kimi-k3" and fragment in error.reason, error
        assert error.position == position, error
        assert not error.cut_short and "cut short" not in str(error)


@pytest.mark.parametrize("text", [
    T,
    "<|open|>to",
    f"{RO}On it.{RC}<|open|>to",
    f"{RO}On it.{RC}<|open|>",
    T + '<|open|>call tool="get_wea',
    T + '<|open|>call tool="get_weather" index="1"<|se',
    T + '<|open|>call tool="get_weather" index="1"<|sep|>',
    T + '<|open|>call tool="get_weather" index="1"<|sep|><|open|>argum',
    T + '<|open|>call tool="get_weather" index="1"<|sep|><|open|>argument key="city" type="string"<|sep|>Par',
    T + '<|open|>call tool="get_weather" index="1"<|sep|><|open|>argument key="city" type="string"<|sep|>Paris<|close|>arg',
    T + '<|open|>call tool="get_weather" index="1"<|sep|>' + arg("city", "Paris") + "<|close|>ca",
    T + ONE + '<|open|>call tool="g" index="2"<|sep|><|open|>json type="object"<|sep|>{"a": ',
    f"{THO}Thinking about the wea",
])
def test_an_output_that_stops_inside_a_call_is_cut_short(text: str) -> None:
    for fmt in ("kimi-k3", "auto"):
        with pytest.raises(ParseError) as info:
            parse_calls(text, fmt)
        assert info.value.cut_short and "cut short" in str(info.value), info.value


def test_an_unclosed_call_before_the_end_of_the_turn_is_an_error_not_cut_short() -> None:
    text = T + '<|open|>call tool="f" index="1"<|sep|>' + arg("x", "1") + "<|close|>message<|sep|>"
    with pytest.raises(ParseError, match="not closed by <\\|close\\|>call<\\|sep\\|> before the end of the turn") as info:
        parse_calls(text, "kimi-k3")
    assert not info.value.cut_short


def test_kimi_k3_beside_another_formats_markers_is_two_readings_in_auto() -> None:
    text = f'{RO}<tool_call>{{"name": "g", "arguments": {{}}}}</tool_call>{RC}{T}{ONE}{TC}'
    with pytest.raises(ParseError, match="two readings are possible: .*kimi-k3"):
        parse_calls(text)
    assert parse_calls(text, "kimi-k3") == WEATHER  # named, the response is context


def test_render_writes_what_the_template_writes_and_reads_back() -> None:
    calls = [Step("get_weather", {"city": "Paris", "days": 3}), Step('a&"b', {'k&"': "x"}), Step("f", {})]
    text = render(calls, "kimi-k3")
    assert text == (T + ONE + '<|open|>call tool="a&amp;&quot;b" index="2"<|sep|>' + arg("k&amp;&quot;", "x") + CC
                    + '<|open|>call tool="f" index="3"<|sep|>' + CC + TC)
    assert parse_calls(text, "kimi-k3") == calls and parse_calls(text) == calls
    values = {"s": " <b> &amp; \n", "t": "3", "b": False, "z": None, "l": [1.5, "<|close|>x"], "o": {"<|": {}}}
    assert parse_calls(render([Step("f", values)], "kimi-k3"), "kimi-k3") == [Step("f", values)]
    assert render([], "kimi-k3") == ""


@pytest.mark.parametrize("step", [
    Step("f", {"s": "a<|close|>argument<|sep|>b"}),
    Step("f", {"s": "<|open|>x"}),
    Step("f<|sep|>", {}),
    Step("f", {"k<|": 1}),
    Step(" ", {}),
])
def test_render_refuses_what_the_format_cannot_write(step: Step) -> None:
    with pytest.raises(ValueError, match="Kimi-K3"):
        render([step], "kimi-k3")


def test_many_calls_in_one_channel_are_read_all() -> None:
    text = T + call("f", arg("a", "1", "number"), arg("b", "x y")) * 11_000 + TC
    assert parse_calls(text, "kimi-k3", max_size=len(text)) == [Step("f", {"a": 1, "b": "x y"})] * 11_000


DATA = Path(__file__).resolve().parents[1] / "data" / "formats"


def test_the_corpus_holds_real_kimi_k3_completions_and_refusals() -> None:
    """The lines themselves are read by test_parse_native_formats.py (by their format and by auto) and cut short
    by test_parse_cut_short.py; this keeps them from going missing."""
    def lines(name: str) -> list[dict]:
        rows = [json.loads(line) for line in (DATA / name).read_text(encoding="utf-8").splitlines() if line.strip()]
        return [row for row in rows if row["format"] == "kimi-k3"]

    assert len(lines("completions.jsonl")) >= 10 and all(row["source"] for row in lines("completions.jsonl"))
    assert lines("refusals.jsonl")


def test_tags_spaced_by_a_detokenizer_are_refused_in_auto_too_never_read_as_prose() -> None:
    """vLLM's parser also takes ``<|open|> tools <|sep|>`` (its detokenizer's spaces between special tokens, which
    its request adjustment turns off); SGLang's does not, nor does ek: an error, never silently no call."""
    spaced = ('<|open|> tools <|sep|><|open|> call tool="f" index="1" <|sep|><|open|> argument key="x" '
              'type="string" <|sep|>1<|close|> argument <|sep|><|close|> call <|sep|><|close|> tools <|sep|>')
    for fmt in ("kimi-k3", "auto"):
        with pytest.raises(ParseError, match="a tag written with spaces, '<\\|open\\|> tools <\\|sep\\|>'") as info:
            parse_calls(spaced, fmt)
        assert info.value.position == (1, 1)
