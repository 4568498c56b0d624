"""Real completions of each model family (tests/data/formats, each line naming its source) read as the
serving stacks read them, by their own format and by auto; and what each format refuses, with where and why."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

import ek
from ek.calls import Step
from ek.parsing import ParseError, parse_calls, register_format, unregister_format

CORPUS = Path(__file__).parent.parent / "data" / "formats" / "completions.jsonl"
LINES = [json.loads(line) for line in CORPUS.read_text(encoding="utf-8").splitlines() if line.strip()]


@pytest.mark.parametrize("line", LINES, ids=[f"{i}-{line['format']}" for i, line in enumerate(LINES)])
def test_real_completions_read_by_their_format_and_by_auto(line: dict) -> None:
    assert line["source"]
    expected = [Step(name, args) for name, args in line["calls"]]
    assert parse_calls(line["completion"], line["format"]) == expected
    assert parse_calls(line["completion"]) == expected


def test_every_native_family_is_in_the_corpus() -> None:
    assert {line["format"] for line in LINES} >= {"llama3", "mistral", "qwen3-coder", "deepseek", "granite", "phi4",
                                                  "gemini", "bedrock", "langchain", "ollama"}


@pytest.mark.parametrize(("output", "fmt", "fragment"), [
    ('[TOOL_CALLS]get_weather[ARGS]{"city": "Par', "mistral", "cut short"),
    ('[TOOL_CALLS]get_weather[ARGS]{"city": "Paris"} and then', "mistral", "expected [TOOL_CALLS] or the end"),
    ('<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>f\n```json\n{"a": 1}\n```', "deepseek",
     "expected <｜tool▁call▁end｜>"),
    ("<tool_call>\n<function=f>\nx=1\n</function>\n</tool_call>", "qwen3-coder", "expected <parameter=NAME> or </function>"),
    ('<|python_tag|>{"name": "f", "parameters": {}} {"name": "g"}', "llama3", "expected ';' between calls"),
    ('functools[{"name": "func", "arguments": {', "phi4", "cut short"),
    ('<|tool_call|> [{"name": "func", "arguments": "not a dict"}]', "granite", "invalid JSON"),
])
def test_broken_native_output_names_format_position_and_expectation(output: str, fmt: str, fragment: str) -> None:
    for how in (fmt, "auto"):
        with pytest.raises(ParseError, match=re.escape(fragment)) as info:
            parse_calls(output, how)
        assert info.value.format == fmt  # auto names the format its markers picked
        assert info.value.position is not None


@pytest.mark.parametrize("output", [
    {"functionCall": {"name": "get_weather", "args": {"city": "Paris"}}},
    {"function_call": {"name": "get_weather", "args": {"city": "Paris"}}},
    {"role": "model", "parts": [{"functionCall": {"name": "get_weather", "args": {"city": "Paris"}}}]},
    {"toolUse": {"toolUseId": "t", "name": "get_weather", "input": {"city": "Paris"}}},
    {"message": {"role": "assistant", "content": [{"toolUse": {"toolUseId": "t", "name": "get_weather",
                                                               "input": {"city": "Paris"}}}]}},
])
def test_shapes_once_misread_are_read_as_what_they_are(output: dict) -> None:
    # these were scored as calls to tools named functionCall/toolUse/message, or as {} arguments
    assert parse_calls(output) == [Step("get_weather", {"city": "Paris"})]


def test_an_unknown_one_key_object_is_an_error_naming_the_shapes_tried() -> None:
    with pytest.raises(ParseError, match="tried OpenAI.*Gemini.*Bedrock.*format='bfcl'"):
        parse_calls({"weather": {"city": "Paris"}})
    assert parse_calls({"weather": {"city": "Paris"}}, "bfcl") == [Step("weather", {"city": "Paris"})]


def test_two_formats_markers_are_an_ambiguity_error_not_a_choice() -> None:
    text = '[TOOL_CALLS]f[ARGS]{}\n<tool_call>{"name": "g", "arguments": {}}</tool_call>'
    with pytest.raises(ParseError, match="two readings are possible: mistral .* and hermes"):
        parse_calls(text)
    assert parse_calls(text, "hermes") == [Step("g", {})]  # named, either reading is available


@pytest.mark.parametrize(("text", "calls"), [
    ("I can't help with that, but the weather is nice.", 0),
    ("Sure. The answer is 42.", 0),
    ('Here you go:\n```json\n{"name": "f", "arguments": {"x": 1}}\n```\nand\n```json\n{"name": "g", "arguments": {}}\n```', 2),
    ('Calling it now: {"name": "f", "arguments": {"x": 1}}. Done.', 1),
])
def test_prose_is_no_calls_and_calls_in_prose_are_found(text: str, calls: int) -> None:
    assert len(parse_calls(text)) == calls


@pytest.mark.parametrize("text", ['[get_weather(location="Paris")', 'Let me call get_weather(location="Paris"',
                                  '{"name": "f", "arguments": {"x": '])
def test_a_call_that_breaks_off_stays_unparseable(text: str) -> None:
    with pytest.raises(ParseError):
        parse_calls(text)


def test_strict_formats_keep_their_errors_on_prose() -> None:
    for fmt in ("python", "json"):
        with pytest.raises(ParseError):
            parse_calls("Sure. The answer is 42.", fmt)


@pytest.mark.parametrize("fmt", ek.parsing.format_names())
@pytest.mark.parametrize("text", ["", "  \n\t", "```\n```"])
def test_empty_text_is_no_call_in_every_format(fmt: str, text: str) -> None:
    assert parse_calls(text, fmt) == []


API_SHAPES = ("openai", "anthropic", "gemini", "bedrock", "langchain", "ollama", "mcp")


@pytest.mark.parametrize("fmt", API_SHAPES)
@pytest.mark.parametrize("text", ["null", "I can't do that (it is not supported).", "42"])
def test_prose_where_an_api_message_is_expected_is_no_call(fmt: str, text: str) -> None:
    """A log keeps a chat model's reply text when it called nothing: an abstention, as SCORING.md says."""
    assert parse_calls(text, fmt) == []
    assert ek.ToolCallMetric(format=fmt)(text, []).f1 == 1.0


@pytest.mark.parametrize("fmt", API_SHAPES)
@pytest.mark.parametrize("text", ['{"tool_calls": [', '"{\\"tool_calls\\": []}"', "[1, 2"])
def test_broken_json_in_an_api_format_stays_an_error(fmt: str, text: str) -> None:
    with pytest.raises(ParseError):
        parse_calls(text, fmt)


def test_transcripts_read_assistant_calls_in_order_and_never_user_or_tool_messages() -> None:
    transcript = [
        {"role": "system", "content": "be brief"},
        {"role": "user", "content": "weather?", "tool_calls": [{"type": "function", "function": {"name": "x", "arguments": "{}"}}]},
        {"role": "assistant", "content": None, "tool_calls": [{"type": "function", "function": {"name": "f", "arguments": "{}"}}]},
        {"role": "tool", "tool_call_id": "1", "content": '{"name": "y", "arguments": {}}'},
        {"role": "assistant", "content": [{"type": "tool_use", "id": "t", "name": "g", "input": {"a": 1}}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t", "content": "ok"}]},
    ]
    assert parse_calls(transcript) == [Step("f", {}), Step("g", {"a": 1})]
    assert parse_calls({"messages": transcript}) == [Step("f", {}), Step("g", {"a": 1})]
    score = ek.ToolCallMetric()(transcript, [Step("f", {}), Step("g", {"a": 1})])
    assert score.f1 == 1.0


def test_qwen3_coder_text_values_are_typed_by_the_grammar_hint() -> None:
    text = "<tool_call>\n<function=f>\n<parameter=n>\n3\n</parameter>\n<parameter=zip>\n02139\n</parameter>\n</function>\n</tool_call>"
    kinds = {"n": "int", "zip": "str"}
    assert parse_calls(text, types=lambda tool, arg: kinds.get(arg)) == [Step("f", {"n": 3, "zip": "02139"})]
    assert parse_calls(text, types=lambda tool, arg: "str") == [Step("f", {"n": "3", "zip": "02139"})]


def test_registered_formats_work_in_parse_calls_auto_and_the_metric() -> None:
    def pipes(text: str) -> list[tuple[str, dict]]:
        return [(name, {"q": arg}) for name, arg in (line[1:].split("|") for line in text.splitlines())]

    register_format("pipes", pipes, detect=lambda out: isinstance(out, str) and out.startswith("@"))
    try:
        assert parse_calls("@search|cats", "pipes") == [Step("search", {"q": "cats"})]
        assert parse_calls("@search|cats") == [Step("search", {"q": "cats"})]
        assert ek.ToolCallMetric(format="pipes")("@search|cats", [Step("search", {"q": "cats"})]).f1 == 1.0
        with pytest.raises(ValueError, match="already registered"):
            register_format("pipes", pipes)
        with pytest.raises(ValueError, match="already registered"):
            register_format("json", pipes)
    finally:
        unregister_format("pipes")
    with pytest.raises(ValueError, match="unknown format 'pipes'"):
        parse_calls("@search|cats", "pipes")


def test_a_registered_parser_cannot_hand_over_values_a_model_could_not_write() -> None:
    register_format("bad", lambda text: [("f", {"x": {1, 2}})])
    try:
        with pytest.raises(ParseError, match="bad: .*set"):
            parse_calls("x", "bad")
    finally:
        unregister_format("bad")


DELIMITERS = ["</parameter>", "</function>", "<tool_call>", "</tool_call>", "[TOOL_CALLS]", "[ARGS]", "<|python_tag|>",
              "<｜tool▁call▁end｜>", "```", "functools[", "<|eom_id|>", "; {", "3", "true", "null", " padded ", "\n"]


@pytest.mark.parametrize("fmt", sorted(ek.parsing.RENDERERS))
def test_render_then_parse_gives_the_calls_back_with_each_formats_delimiters_in_strings(fmt: str) -> None:
    calls = [Step("f", {"s": d, "n": 3, "l": [d, 1.5, None], "o": {"k": d}}) for d in DELIMITERS] + [Step("g", {})]
    assert parse_calls(ek.parsing.render(calls, fmt), fmt) == calls


def test_qwen3_coder_reads_a_parameter_left_unclosed_as_the_serving_stacks_do() -> None:
    """vLLM's and SGLang's qwen3-coder parsers end a parameter at </parameter>, else at the next <parameter=
    or </function>; models do leave the closing tag out, and ek must read at least what they read."""
    unclosed_then_next = ("<tool_call>\n<function=get_weather>\n<parameter=city>\nParis\n"
                          "<parameter=days>\n3\n</parameter>\n</function>\n</tool_call>")
    unclosed_last = "<tool_call><function=get_weather><parameter=city>Paris</parameter><parameter=days>3</function></tool_call>"
    expected = [Step("get_weather", {"city": "Paris", "days": 3})]
    for text in (unclosed_then_next, unclosed_last):
        assert parse_calls(text, "qwen3-coder") == expected
        assert parse_calls(text) == expected
    with pytest.raises(ParseError, match="given twice"):
        parse_calls("<tool_call><function=f><parameter=a>1<parameter=a>2</function></tool_call>", "qwen3-coder")


REFUSALS_FILE = Path(__file__).parent.parent / "data" / "formats" / "refusals.jsonl"
REFUSALS = [json.loads(line) for line in REFUSALS_FILE.read_text(encoding="utf-8").splitlines() if line.strip()]


@pytest.mark.parametrize("line", REFUSALS, ids=[f"{i}-{line['format']}" for i, line in enumerate(REFUSALS)])
def test_real_outputs_the_serving_stacks_take_for_no_call_give_no_calls(line: dict) -> None:
    """Each line's ``why`` starts with what ek gives (``error:`` a ParseError, ``no calls:`` an empty list) and
    says what the serving stack does; either way the output scores as zero calls."""
    assert line["source"]
    for how in (line["format"], "auto"):
        if line["why"].startswith("error:"):
            with pytest.raises(ParseError):
                parse_calls(line["completion"], how)
        else:
            assert line["why"].startswith("no calls:")
            assert parse_calls(line["completion"], how) == []


def test_qwen3_coder_reads_a_function_whose_close_tag_was_left_out_inside_a_closed_block() -> None:
    """SGLang's test_qwen3_coder_detector.py: ``</function>`` missing, ``</tool_call>`` written; vLLM and SGLang read
    the function up to ``</tool_call>``. Left open at the very end, it is still cut short."""
    text = "<tool_call><function=get_weather><parameter=city>Shanghai</parameter></tool_call>"
    for how in ("qwen3-coder", "auto"):
        assert parse_calls(text, how) == [Step("get_weather", {"city": "Shanghai"})]
    with pytest.raises(ParseError, match="cut short") as info:
        parse_calls("<tool_call><function=get_weather><parameter=city>Shanghai</parameter>", "qwen3-coder")
    assert info.value.cut_short


@pytest.mark.parametrize(("text", "calls"), [
    ("Here's a tool call: [get_weather(location='Paris')]", [Step("get_weather", {"location": "Paris"})]),
    ("[get_weather(location='Tokyo')] Here's the forecast:", [Step("get_weather", {"location": "Tokyo"})]),
    ("[f(q='])')] and [g()]", [Step("f", {"q": "])"}), Step("g", {})]),
])
def test_llama_pythonic_lists_are_read_between_sentences(text: str, calls: list[Step]) -> None:
    # SGLang's PythonicDetector reads these (test_function_call_parser.py); ek read none or raised
    assert parse_calls(text, "llama3") == calls
    assert parse_calls(text) == calls


def test_a_pythonic_list_in_prose_that_never_closes_is_cut_short_and_other_call_syntax_is_refused() -> None:
    with pytest.raises(ParseError) as info:
        parse_calls("Sure: [get_weather(location='Paris'", "llama3")
    assert info.value.cut_short
    with pytest.raises(ParseError, match="call syntax outside"):
        parse_calls("[f()] then g(x=1) too")


def test_llama_text_after_python_end_and_a_python_tag_before_each_call_are_read() -> None:
    after = "Mars. <|python_start|>[get_weather(location='Mars')]<|python_end|> In this way we get it."
    tags = '<|python_tag|>{"name": "f", "parameters": {}}<|python_tag|>{"name": "g", "parameters": {}}'
    for how in ("llama3", "auto"):
        assert parse_calls(after, how) == [Step("get_weather", {"location": "Mars"})]
        assert parse_calls(tags, how) == [Step("f", {}), Step("g", {})]


def test_deepseek_prose_after_the_calls_end_is_skipped_but_a_call_after_it_is_an_error() -> None:
    calls = '<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>foo<｜tool▁sep｜>{"x":1}<｜tool▁call▁end｜><｜tool▁calls▁end｜>'
    assert parse_calls(calls + " some suffix text", "deepseek") == [Step("foo", {"x": 1})]
    with pytest.raises(ParseError, match="a call after"):
        parse_calls(calls + '<｜tool▁call▁begin｜>bar<｜tool▁sep｜>{}<｜tool▁call▁end｜>', "deepseek")


def test_qwen3_coder_reads_a_whole_function_whose_close_tag_was_left_out_before_the_next_block() -> None:
    """vLLM's qwen3xml test (resync): the first ``</tool_call>`` is missing but its function is whole; both
    stacks read both calls. A block whose function is not whole when the next one opens stays an error."""
    text = ("<tool_call>\n<function=f1>\n<parameter=a>\nA\n</parameter>\n</function>\n"
            "<tool_call>\n<function=f2>\n<parameter=b>\nB\n</parameter>\n</function>\n</tool_call>")
    for how in ("qwen3-coder", "auto"):
        assert parse_calls(text, how) == [Step("f1", {"a": "A"}), Step("f2", {"b": "B"})]
    with pytest.raises(ParseError, match="inside an unclosed"):
        parse_calls("<tool_call>\n<function=f1>\n<parameter=a>\nA\n<tool_call>\n<function=f2>\n</function>\n</tool_call>",
                    "qwen3-coder")


def test_a_pythonic_list_before_an_end_of_turn_token_is_not_read_as_prose() -> None:
    # tests/rl: an unstripped <|im_end|> must keep the output unparseable, so the reward shows the missing strip
    for how in ("llama3", "auto"):
        with pytest.raises(ParseError, match="end-of-turn"):
            parse_calls("[get_weather(location='Paris')]<|im_end|>", how)


@pytest.mark.parametrize(("output", "fmt"), [
    ({"role": "assistant", "content": [
        {"type": "server_tool_use", "id": "srvtoolu_1", "name": "web_search", "input": {"query": "x"}},
        {"type": "web_search_tool_result", "tool_use_id": "srvtoolu_1", "content": []},
        {"type": "tool_use", "id": "toolu_1", "name": "get_weather", "input": {"city": "Paris"}}]}, "anthropic"),
    ({"object": "response", "output": [{"type": "web_search_call", "id": "ws_1", "status": "completed"},
                                       {"type": "function_call", "call_id": "c1", "name": "get_weather",
                                        "arguments": '{"city": "Paris"}'}]}, "openai"),
    ({"candidates": [{"content": {"role": "model", "parts": [
        {"toolCall": {"toolType": "GOOGLE_SEARCH_WEB", "args": {"queries": ["x"]}, "id": "t"}, "thoughtSignature": "c2ln"},
        {"toolResponse": {"toolType": "GOOGLE_SEARCH_WEB", "response": {}, "id": "t"}},
        {"functionCall": {"name": "get_weather", "args": {"city": "Paris"}}}]}}]}, "gemini"),
    ({"candidates": [{"content": {"role": "model", "parts": [  # the google-genai SDK's model_dump(): None fields
        {"text": "Checking.", "function_call": None, "video_metadata": None, "inline_data": None},
        {"text": None, "function_call": {"id": None, "name": "get_weather", "args": {"city": "Paris"}}}]}}]}, "gemini"),
])
def test_tools_the_provider_ran_itself_are_skipped_and_the_clients_call_is_read(output: dict, fmt: str) -> None:
    # these were refused as unknown blocks, items or parts (real responses: tests/data/formats/completions.jsonl)
    for how in (fmt, "auto"):
        assert parse_calls(output, how) == [Step("get_weather", {"city": "Paris"})]
    with pytest.raises(ParseError, match="not a Gemini part ek reads: keys 'madeUp'"):
        parse_calls({"role": "model", "parts": [{"text": "x", "madeUp": 1}]}, "gemini")


@pytest.mark.parametrize("output", [
    {"type": "ai", "data": {"content": "", "type": "ai",
                            "tool_calls": [{"name": "get_weather", "args": {"city": "Paris"}, "id": "1"}]}},
    {"lc": 1, "type": "constructor", "id": ["langchain", "schema", "messages", "AIMessage"],
     "kwargs": {"content": "", "type": "ai", "tool_calls": [{"name": "get_weather", "args": {"city": "Paris"}, "id": "1"}],
                "invalid_tool_calls": []}},
    {"type": "ai", "content": "", "additional_kwargs": {"tool_calls": [
        {"id": "c1", "type": "function", "function": {"name": "get_weather", "arguments": '{"city": "Paris"}'}}]}},
])
def test_langchain_serialized_and_legacy_ai_messages_are_read(output: dict) -> None:
    # message_to_dict's and the legacy form read as zero calls, dumpd's was refused
    for how in ("langchain", "auto"):
        assert parse_calls(output, how) == [Step("get_weather", {"city": "Paris"})]
    human = {"lc": 1, "type": "constructor", "id": ["langchain", "schema", "messages", "HumanMessage"],
             "kwargs": {"content": "weather in Paris?", "type": "human"}}
    assert parse_calls({"messages": [human, output]}) == [Step("get_weather", {"city": "Paris"})]  # a transcript


def test_auto_reads_an_unclosed_tool_call_list_as_granite_and_a_closed_block_as_hermes() -> None:
    # Granite writes <tool_call>[...] with no </tool_call>; a closed block is Hermes', whatever it holds. Both read
    # the same calls from a whole list, so only the format named (in detect_text and in errors) tells them apart.
    from ek.parsing.api import detect_text

    calls = '[{"name": "f", "arguments": {"x": 1}}, {"name": "g", "arguments": {}}]'
    assert detect_text(f"<tool_call>{calls}") == [("granite", 0)]
    assert detect_text(f"<tool_call>\n{calls}") == [("granite", 0)]
    assert detect_text(f"<tool_call>{calls}</tool_call>") == [("hermes", 0)]
    assert parse_calls(f"<tool_call>{calls}") == parse_calls(f"<tool_call>{calls}</tool_call>") == [
        Step("f", {"x": 1}), Step("g", {})]
    with pytest.raises(ParseError, match="^granite: line 1, column 12: .*cut short") as info:
        parse_calls(f"<tool_call>{calls[:-3]}")
    assert info.value.cut_short


@pytest.mark.parametrize("text", ["Done (no changes needed).", "Sure (see below).", "Weather (today) is unknown."])
def test_prose_starting_with_a_word_and_a_parenthesis_is_no_call(text: str) -> None:
    """A word, a space and "(" starts a call only if the text reads as one; otherwise it is the reply's prose."""
    assert parse_calls(text) == []
    assert ek.ToolCallMetric()(text, []).f1 == 1.0


def test_a_call_written_with_a_space_is_still_read_and_a_broken_one_still_refused() -> None:
    assert parse_calls('get_weather (location="Paris")') == [Step("get_weather", {"location": "Paris"})]
    with pytest.raises(ParseError):
        parse_calls('get_weather (location="Par')


def test_qwen3_coder_reads_a_function_whose_tool_call_open_tag_was_lost() -> None:
    """vLLM's test_extract_tool_calls_streaming_missing_opening_tag: ``<function=...>...</function></tool_call>``
    with no ``<tool_call>``; vLLM reads the call (auto took the ``</tool_call>`` for a stray Hermes tag, and
    qwen3-coder refused it). A ``</tool_call>`` anywhere else is still a stray tag."""
    text = "I'll check.\n\n<function=f>\n<parameter=city>\nDallas\n</parameter>\n</function>\n</tool_call>"
    for how in ("qwen3-coder", "auto"):
        assert parse_calls(text, how) == [Step("f", {"city": "Dallas"})]
        with pytest.raises(ParseError, match="without an opening <tool_call>") as info:
            parse_calls(text + " then </tool_call>", how)
        assert info.value.format == "qwen3-coder" and info.value.position == (8, 19)


@pytest.mark.parametrize(("text", "position", "fragment"), [
    # vLLM's test_none_tool_calls_filtered: vLLM drops the first call and reads the second; ek read a tool named
    # "bad_func_no_gt\n</function". A garbled call is an error, as every malformed call in ek is.
    ("<tool_call>\n<function=bad_func_no_gt\n</function>\n</tool_call>\n<tool_call>\n<function=get_current_weather>\n"
     "<parameter=city>Dallas</parameter>\n<parameter=state>TX</parameter>\n</function>\n</tool_call>", (2, 25),
     "<function=NAME is not closed by '>' before a line break"),
    ("<tool_call><function=f<x>\n</function></tool_call>", (1, 23), "<function=NAME is not closed by '>' before a <"),
    ("<function=f>\n<parameter=a\nb>1</parameter>\n</function>", (2, 13),
     "<parameter=NAME is not closed by '>' before a line break"),
])
def test_qwen3_coder_refuses_a_name_that_runs_into_the_next_tag(text: str, position: tuple[int, int],
                                                                 fragment: str) -> None:
    for how in ("qwen3-coder", "auto"):
        with pytest.raises(ParseError) as info:
            parse_calls(text, how)
        assert (info.value.format, info.value.position) == ("qwen3-coder", position)
        assert fragment in info.value.reason


@pytest.mark.parametrize(("kind", "value"), [
    ("array", [{"content": "Buy a new car", "status": "pending"}, {"content": "Buy a new house", "status": "done"}]),
    ("list", [{"content": "Buy a new car", "status": "pending"}, {"content": "Buy a new house", "status": "done"}]),
    ("string", "[\n {\"content\": \"Buy a new car\", \"status\": 'pending'},\n {\"content\": \"Buy a new house\", "
               "\"status\": \"done\"}\n]"),
])
def test_a_declared_container_written_as_a_python_literal_is_read_as_one(kind: str, value: object) -> None:
    """SGLang's test_qwen3_coder_detector complex_schema: a declared array written with a single-quoted string;
    vLLM and SGLang fall back to ast.literal_eval and hand the tool the list; ek kept the text."""
    text = ("Text prefix\n\n<function=TodoWrite>\n<parameter=todos>\n[\n {\"content\": \"Buy a new car\", \"status\": "
            "'pending'},\n {\"content\": \"Buy a new house\", \"status\": \"done\"}\n]\n</parameter>\n</function>\n\n")
    assert parse_calls(text, "qwen3-coder", types=lambda tool, arg: kind) == [Step("TodoWrite", {"todos": value})]
    glm = "<tool_call>f\n<arg_key>d</arg_key>\n<arg_value>{'k': (1, None)}</arg_value>\n</tool_call>"
    assert parse_calls(glm, "glm45", types=lambda tool, arg: "object") == [Step("f", {"d": {"k": [1, None]}})]
    for text_value in ("[1, x]", "'a'", "{'a': 1"):  # not a literal container: the text, as the stacks keep it
        call = f"<function=f>\n<parameter=d>\n{text_value}\n</parameter>\n</function>"
        assert parse_calls(call, "qwen3-coder", types=lambda tool, arg: "array") == [Step("f", {"d": text_value})]


@pytest.mark.parametrize("fmt", ["qwen3-coder", "glm45"])
def test_a_typed_null_is_none_whatever_the_declared_type(fmt: str) -> None:
    """vLLM's test_python_none_value_for_nullable_int and test_string_null_value_preserved: null (or Python's None,
    as Qwen3.5's template teaches) is None under any declared type but a string; ek gave the text "null" for an
    integer, where untyped reading gave None."""
    def call(value: str) -> str:
        if fmt == "glm45":
            return f"<tool_call>set_count\n<arg_key>count</arg_key>\n<arg_value>{value}</arg_value>\n</tool_call>"
        return f"<tool_call>\n<function=set_count>\n<parameter=count>{value}</parameter>\n</function>\n</tool_call>"

    for kind in ("integer", "number", "boolean", "array", "object"):
        for word in ("null", "None"):
            assert parse_calls(call(word), fmt, types=lambda tool, arg: kind) == [Step("set_count", {"count": None})]
    assert parse_calls(call("null"), fmt, types=lambda tool, arg: "string") == [Step("set_count", {"count": "null"})]
    assert parse_calls(call("None"), fmt) == [Step("set_count", {"count": "None"})]  # untyped: not JSON, the text


@pytest.mark.parametrize(("content", "fragment"), [
    ('char_deltas = [\n    "<tool_call>\\n",\n    "<parameter=query>\\n",\n    "\\n</parameter>\\n",\n'
     '    "</function>\\n",\n]\n',
     "<tool_call> inside an unclosed <tool_call> block"),
    ('TOOL_CALL_TEMPLATE = """\n</parameter>\n<parameter=new_string>\n#!/usr/bin/env python3\n</parameter>\n"""\n',
     "expected <parameter=NAME> or </function>"),
    ('doc = """\n<parameter=path>\nliteral/value\n</parameter>\n"""\n', "parameter 'path' given twice"),
])
def test_qwen3_coder_refuses_a_value_holding_its_own_tags(content: str, fragment: str) -> None:
    """vLLM's test_qwen3_xml_coder_shared.py (test_content_with_xml_structural_tags, _param_like_lines,
    _real_param_name_literal): a coding agent writes a file holding the format's tags. The format has no escaping;
    vLLM guesses with the schema's parameter names and what follows each tag, ek refuses rather than guess (a
    deliberate difference, docs/parsing.md)."""
    text = ("<tool_call>\n<function=write_file>\n<parameter=path>\ntest.py\n</parameter>\n"
            f"<parameter=content>\n{content}</parameter>\n</function>\n</tool_call>\n")
    for how in ("qwen3-coder", "auto"):
        with pytest.raises(ParseError, match=re.escape(fragment)):
            parse_calls(text, how)


def test_mistral_prose_after_an_older_templates_json_list_is_skipped_as_vllm_skips_it() -> None:
    """vLLM's test_extract_tool_calls_pre_v11_tokenizer[trailing_data_after_json]: ek refused the text after the
    list. A [TOOL_CALLS] or a special token after it still is an error (a call or a token would be lost), and so
    is junk before the list (vLLM's regex fallback reads past it)."""
    listed = '[TOOL_CALLS] [{"name": "get_current_weather", "arguments": {"city": "Dallas"}}]'
    for how in ("mistral", "auto"):
        assert parse_calls(listed + "\nextra trailing data", how) == [Step("get_current_weather", {"city": "Dallas"})]
        for tail in ("\nthen [TOOL_CALLS]g{}", "\nok <|im_end|>"):
            with pytest.raises(ParseError, match="unexpected text after a call"):
                parse_calls(listed + tail, how)
        with pytest.raises(ParseError, match="expected a tool name"):
            parse_calls('[TOOL_CALLS]  junk [{"name": "add", "arguments":{"a": 1, "b": 2}}] trail', how)


def test_llama3_json_calls_in_prose_where_ek_and_vllm_differ() -> None:
    """vLLM's test_llama3_json_tool_parser.py, where ek answers otherwise on purpose (docs/parsing.md, llama3):
    a name alone is a call with no arguments (vLLM: no call); a JSON object that is no call in the prose after a
    call is an error (vLLM skips it); auto, with no Llama marker to go by, refuses a brace in that prose."""
    call = '{"name": "searchTool", "parameters": {"query": "test"}}'
    for how in ("llama3", "auto"):
        assert parse_calls('{"name": "toolWithoutParams"}', how) == [Step("toolWithoutParams", {})]
        with pytest.raises(ParseError, match="'query'"):
            parse_calls(call + ' The arguments I passed were {"query": "test"}', how)
    assert parse_calls(call + " I used {searchTool} for this.", "llama3") == [Step("searchTool", {"query": "test"})]
    with pytest.raises(ParseError, match="call syntax outside the JSON calls"):
        parse_calls(call + " I used {searchTool} for this.")


@pytest.mark.parametrize("bad", ["bad(x=b'z')", "calc(x=1e999)"])
def test_a_pythonic_list_with_one_unreadable_call_is_refused_whole(bad: str) -> None:
    """vLLM's test_bad_sibling_call_does_not_drop_good_calls and test_non_finite_argument_rejected: vLLM drops the
    call it cannot convert and keeps its siblings; ek reads all of an output or none of it, so the output is an
    error at the bad value (a deliberate difference: a scorer would otherwise credit half a garbled answer)."""
    good = "get_weather(city='San Francisco', metric='celsius')"
    for how in ("llama3", "auto"):
        with pytest.raises(ParseError) as info:
            parse_calls(f"[{bad}, {good}]", how)
        assert info.value.position[:1] == (1,) and not info.value.cut_short  # type: ignore[index]
