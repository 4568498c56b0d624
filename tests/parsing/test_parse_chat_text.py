"""Chat-model text: Hermes/Qwen ``<tool_call>`` blocks, a leading ``<think>``, and Responses wrappers."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ek.calls import Step
from ek.parsing import FORMATS, ParseError, parse_calls, to_hermes
from ek.parsing.coerce import coerce_call

WEATHER = Step("get_weather", {"location": "Paris"})
SEARCH = Step("search", {"q": "cats"})
HERMES = ('Let me look that up.\n<tool_call>\n{"name": "get_weather", "arguments": {"location": "Paris"}}\n'
          '</tool_call>\nand also\n<tool_call>\n{"name": "search", "arguments": "{\\"q\\": \\"cats\\"}"}\n'
          '</tool_call>\nDone.')


@pytest.mark.parametrize("fmt", ["auto", "hermes"])
def test_hermes_blocks_with_prose_and_json_string_arguments(fmt: str) -> None:
    assert parse_calls(HERMES, fmt) == [WEATHER, SEARCH]
    assert parse_calls(HERMES.encode(), fmt) == [WEATHER, SEARCH]


@pytest.mark.parametrize("fmt", ["auto", "hermes"])
def test_a_leading_think_block_is_skipped(fmt: str) -> None:
    thought = "<think>\nmaybe get_weather(location='Rome')? <tool_call> no: Paris\n</think>\n"
    assert parse_calls(thought + HERMES, fmt) == [WEATHER, SEARCH]
    assert parse_calls("  <think></think><tool_call>{\"name\": \"f\"}</tool_call>", fmt) == [Step("f", {})]


# vLLM tests/tool_parsers/test_seed_oss_tool_parser.py ("tool_call_unlimited_thinking_budget", shortened): Seed-OSS
# thinks in <seed:think>, and there it writes out the call it is about to make
SEED = ("<seed:think>\nThe format is <seed:tool_call>\n<function=get_weather>\n<parameter=location>Barcelona, Spain"
        "</parameter>\n</function>\n</seed:tool_call>\n<seed:cot_budget_reflect>I have used 131 tokens."
        "</seed:cot_budget_reflect>\n</seed:think>\n<seed:tool_call>\n<function=get_weather>\n<parameter=location>"
        "Barcelona, Spain</parameter>\n</function>\n</seed:tool_call>")


@pytest.mark.parametrize("fmt", ["auto", "qwen3-coder"])
def test_seed_oss_reasoning_is_skipped_so_the_call_it_quotes_is_not_counted(fmt: str) -> None:
    assert parse_calls(SEED, fmt) == [Step("get_weather", {"location": "Barcelona, Spain"})]
    # a template that opened <seed:think> in the prompt leaves only its closing tag
    prefilled = SEED.removeprefix("<seed:think>")
    assert parse_calls(prefilled, fmt) == [Step("get_weather", {"location": "Barcelona, Spain"})]
    with pytest.raises(ParseError, match="<seed:think> block is not closed by </seed:think>") as info:
        parse_calls("<seed:think>\nThe format is <seed:tool_call>", fmt)
    assert info.value.cut_short


def test_think_then_python_or_json_in_auto() -> None:
    assert parse_calls("<think>two calls</think>\n[get_weather(location='Paris'), search(q='cats')]") == [
        WEATHER, SEARCH]
    assert parse_calls('<think>x</think>```json\n{"name": "search", "arguments": {"q": "cats"}}\n```') == [SEARCH]


def test_a_prefilled_think_leaves_only_its_closing_tag() -> None:
    # chat templates that open <think> in the prompt: the completion starts inside the thought
    assert parse_calls("the user wants Paris\n</think>\n\nget_weather(location='Paris')") == [WEATHER]


def test_hermes_format_without_blocks_is_no_calls() -> None:
    assert parse_calls("It is sunny in Paris, no tool needed.", "hermes") == []
    assert parse_calls("<think>easy</think>Sunny.", "hermes") == []


@pytest.mark.parametrize(("text", "position", "fragment"), [
    ('ok\n<tool_call>\n{"name": "f", "arguments": {"x": \n</tool_call>', (3, 33), "invalid JSON"),
    ('<tool_call>{"name": "f"}</tool_call>\n  <tool_call>{"name": "g"', (2, 3), "not closed by </tool_call>"),
    ('<tool_call>{"name": "f", <tool_call>{"name": "g"}</tool_call>', (1, 26), "inside an unclosed"),
    ('{"name": "f"}</tool_call>', (1, 14), "without an opening <tool_call>"),
    ("<think>never finishes [f(x=1)]", (1, 1), "<think> block is not closed"),
    ("<tool_call>  </tool_call>", (1, 1), "empty <tool_call> block"),
    ('<tool_call>{"name": "f", "arguments": {"x": 1, "x": 2}}</tool_call>', (1, 48), "duplicate key"),
])
@pytest.mark.parametrize("fmt", ["auto", "hermes"])
def test_broken_blocks_say_where(text: str, position: tuple[int, int], fragment: str, fmt: str) -> None:
    with pytest.raises(ParseError, match=fragment) as info:
        parse_calls(text, fmt)
    assert info.value.position == position
    # auto names the format its markers picked
    assert info.value.format == ("hermes" if "tool_call>" in text else fmt)


def test_an_error_inside_a_decoded_block_names_the_block_and_path() -> None:
    with pytest.raises(ParseError) as info:
        parse_calls('x\n<tool_call>{"name": "f"}</tool_call>\n<tool_call>\n{"name": ""}</tool_call>', "hermes")
    assert info.value.position == "<tool_call> #2 (line 4, column 1) $.name"
    assert info.value.reason == "the tool name is empty"


def test_hermes_blocks_are_never_executed_and_python_in_a_block_is_auto_only(tmp_path: Any) -> None:
    payload = "__import__('os').system('touch " + str(tmp_path / "ran") + "')"
    with pytest.raises(ParseError):
        parse_calls(f"<tool_call>{payload}</tool_call>")
    with pytest.raises(ParseError):
        parse_calls(f"<tool_call>{payload}</tool_call>", "hermes")
    assert not (tmp_path / "ran").exists()
    assert parse_calls("<tool_call>search(q='cats')</tool_call>") == [SEARCH]
    with pytest.raises(ParseError, match="invalid JSON"):
        parse_calls("<tool_call>search(q='cats')</tool_call>", "hermes")


def test_hermes_text_respects_the_limits() -> None:
    deep = "<tool_call>" + '{"name": "f", "arguments": {"x": ' + "[" * 100 + "]" * 100 + "}}</tool_call>"
    with pytest.raises(ParseError, match="max_depth=64") as info:
        parse_calls("prose\n" + deep, "hermes")
    assert info.value.position == (2, len('<tool_call>{"name": "f", "arguments": {"x": ') + 63)
    with pytest.raises(ParseError, match="max_size"):
        parse_calls("<think>" + "x" * 100 + "</think>", "hermes", max_size=50)
    with pytest.raises(ParseError, match="reads text"):
        parse_calls({"name": "f"}, "hermes")


def test_responses_wrapper_without_the_object_field() -> None:
    wrapper = {"output": [{"type": "reasoning", "summary": []},
                          {"type": "function_call", "call_id": "c1", "name": "get_weather",
                           "arguments": '{"location": "Paris"}'},
                          {"type": "message", "content": [{"type": "output_text", "text": "hi"}]}]}
    assert parse_calls(wrapper) == [WEATHER]
    assert parse_calls(wrapper, "openai") == [WEATHER]
    assert parse_calls(json.dumps(wrapper)) == [WEATHER]
    with pytest.raises(ParseError, match="unsupported output item type 'spreadsheet_call'") as info:
        parse_calls({"output": [{"type": "spreadsheet_call"}]})
    assert info.value.position == "$.output[0].type"
    assert parse_calls({"output": [{"type": "web_search_call"}]}) == []  # a hosted tool OpenAI ran: no call


#: Responses items of tools the client runs, in the shapes of Codex rollouts and the Responses API reference
#: (openai/codex's tests: local_shell_call with an exec action; custom_tool_call for apply_patch).
CLIENT_ITEMS = [
    {"type": "custom_tool_call", "call_id": "call_1", "name": "apply_patch", "status": "completed",
     "input": "*** Begin Patch\n*** Update File: web/app.js\n@@\n+const x = 1;\n*** End Patch"},
    {"type": "local_shell_call", "call_id": "call_2", "status": "completed",
     "action": {"type": "exec", "command": ["/bin/echo", "hello"], "env": {}, "timeout_ms": 1000}},
    {"type": "computer_call", "call_id": "call_3", "pending_safety_checks": [], "status": "completed",
     "action": {"type": "click", "button": "left", "x": 156, "y": 50}},
    {"type": "shell_call", "call_id": "call_4", "action": {"commands": ["ls -la"], "timeout_ms": 120000}},
    {"type": "apply_patch_call", "call_id": "call_5",
     "operation": {"type": "update_file", "path": "a.py", "diff": "@@\n-x\n+y"}},
]
CLIENT_CALLS = [
    Step("apply_patch", {"input": "*** Begin Patch\n*** Update File: web/app.js\n@@\n+const x = 1;\n*** End Patch"}),
    Step("local_shell", {"type": "exec", "command": ["/bin/echo", "hello"], "env": {}, "timeout_ms": 1000}),
    Step("computer", {"type": "click", "button": "left", "x": 156, "y": 50}),
    Step("shell", {"commands": ["ls -la"], "timeout_ms": 120000}),
    Step("apply_patch", {"type": "update_file", "path": "a.py", "diff": "@@\n-x\n+y"}),
]


def test_responses_items_of_tools_the_client_runs_are_calls() -> None:
    """They were 'unsupported output item type' errors, so a Codex or computer-use trajectory lost its line."""
    response = {"object": "response", "output": [{"type": "reasoning", "summary": []}, *CLIENT_ITEMS]}
    for fmt in ("openai", "auto"):
        assert parse_calls(response, fmt) == CLIENT_CALLS
        assert parse_calls(json.dumps(response), fmt) == CLIENT_CALLS
    outputs = [{"type": kind, "call_id": "c", "output": "ok"} for kind in (
        "function_call_output", "custom_tool_call_output", "local_shell_call_output", "computer_call_output",
        "shell_call_output", "apply_patch_call_output")]
    transcript = [{"role": "user", "content": "fix it"}, *CLIENT_ITEMS, *outputs]  # what the client answered: context
    assert parse_calls(transcript, "openai") == CLIENT_CALLS
    assert [coerce_call(item, "gold") for item in CLIENT_ITEMS] == CLIENT_CALLS  # gold given as items too


@pytest.mark.parametrize(("item", "message", "where"), [
    ({"type": "custom_tool_call", "name": "apply_patch", "input": {"patch": "x"}},
     "a custom tool call's 'input' must be text, got dict", "$.input"),
    ({"type": "custom_tool_call", "input": "x"}, "the tool name must be a string", "$.name"),
    ({"type": "computer_call", "action": "click"}, "a computer_call item needs an 'action' object", "$.action"),
    ({"type": "apply_patch_call", "operation": None}, "needs an 'operation' object, got null", "$.operation"),
])
def test_a_malformed_client_tool_item_says_where_and_why(item: dict[str, Any], message: str, where: str) -> None:
    with pytest.raises(ParseError, match=re.escape(message)) as info:
        parse_calls(item, "openai")
    assert info.value.position == where


def test_to_hermes_escapes_tags_inside_values() -> None:
    steps = [Step("post", {"body": "</tool_call><tool_call>"}), SEARCH]
    text = to_hermes(steps)
    assert text.count("<tool_call>") == 2
    assert parse_calls(text, "hermes") == steps


@settings(max_examples=150, deadline=None)
@given(st.lists(st.sampled_from(["<think>", "</think>", "<tool_call>", "</tool_call>", '{"name": "f"}', "f()",
                                 " ", "\n", "x", '"', "{", "}"]), max_size=12).map("".join),
       st.sampled_from(["auto", "hermes"]))
def test_tag_soup_only_raises_parse_error(text: str, fmt: str) -> None:
    try:
        steps = parse_calls(text, fmt)
    except ParseError as error:
        assert error.format == fmt if fmt == "hermes" else error.format in FORMATS
        return
    assert all(isinstance(s, Step) for s in steps)
