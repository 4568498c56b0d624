"""PLaMo 3's tool requests (``ek.parsing.plamo``). Real completions are in tests/data/formats/completions.jsonl and
refusals.jsonl (test_parse_native_formats.py and test_parse_cut_short.py read them); this file holds what those
cannot show: what ek reads where vLLM and SGLang differ, errors at their positions, and cut-short outputs."""

from __future__ import annotations

import json

import pytest

from ek.calls import Step
from ek.parsing import ParseError, parse_calls, render
from ek.parsing.errors import line_col
from ek.parsing.plamo import (
    ARGS_CLOSE,
    ARGS_OPEN,
    CONSTRAIN,
    EOT,
    MSG,
    NAME_CLOSE,
    NAME_OPEN,
    REQUEST_CLOSE,
    REQUEST_OPEN,
    REQUESTS_CLOSE,
    REQUESTS_OPEN,
    THINK,
)

CALLS = [Step("search", {"q": "cats", "n": [1, 2]}), Step("get_weather", {"city": "Tokyo"})]


def request(name: str, arguments: str, constraint: str = f"{CONSTRAIN}json{MSG}", space: str = "") -> str:
    return (f"{REQUEST_OPEN}{space}{NAME_OPEN}{name}{NAME_CLOSE}{space}{ARGS_OPEN}{constraint}{arguments}{ARGS_CLOSE}"
            f"{space}{REQUEST_CLOSE}")


def requests(*calls: str, space: str = "") -> str:
    return f"{REQUESTS_OPEN}{space}{space.join(calls)}{space}{REQUESTS_CLOSE}{EOT}"


def _error(text: str, fmt: str = "plamo3") -> ParseError:
    with pytest.raises(ParseError) as info:
        parse_calls(text, fmt)
    return info.value


def test_rendered_calls_read_back_by_the_format_and_by_auto() -> None:
    text = render(CALLS, "plamo3")
    assert text.startswith(REQUESTS_OPEN + REQUEST_OPEN) and text.endswith(REQUESTS_CLOSE + EOT)
    assert parse_calls(text, "plamo3") == parse_calls(text) == CALLS
    assert render([], "plamo3") == ""
    tags = "".join((REQUESTS_OPEN, REQUEST_CLOSE, NAME_CLOSE, ARGS_CLOSE, EOT, MSG, THINK[1]))
    calls = [Step("f", {"s": tags, tags: [tags]})]
    assert parse_calls(render(calls, "plamo3")) == calls
    with pytest.raises(ValueError, match="cannot be written"):
        render([Step("a b", {})], "plamo3")


def test_spaces_between_tags_and_arguments_without_the_constraint_are_read_as_sglang_reads_them() -> None:
    text = "Sure.\n" + requests(request(" f ", '{"x": 1}', constraint="", space="\n  "), space="\n")
    assert parse_calls(text, "plamo3") == parse_calls(text) == [Step("f", {"x": 1})]
    assert parse_calls(requests(request("f", "{}", constraint=MSG))) == [Step("f", {})]


def test_reasoning_and_text_after_the_end_of_the_turn_are_skipped() -> None:
    quoted = requests(request("g", "{}"))[: -len(EOT)]
    text = f"{THINK[0]}I could call {quoted}{THINK[1]}Checking.{requests(request('f', '{}'))}\nignored"
    assert parse_calls(text, "plamo3") == parse_calls(text) == [Step("f", {})]
    opened_in_the_prompt = f"I will call f.{THINK[1]}{requests(request('f', '{}'))}"
    assert parse_calls(opened_in_the_prompt) == [Step("f", {})]
    assert parse_calls(f"Regular response{EOT}ignored") == parse_calls(f"{THINK[0]}hm{THINK[1]}Hi.") == []


def test_every_block_is_read_where_the_stacks_read_the_first() -> None:
    text = requests(request("f", "{}"))[: -len(EOT)] + " and " + requests(request("g", '{"a": 1}'))
    assert parse_calls(text, "plamo3") == [Step("f", {}), Step("g", {"a": 1})]
    assert parse_calls(requests()) == []  # an empty block is no call, as vLLM reads it


def _json_error_tail(document: str) -> str:
    """``document`` from where the running Python's json module places its error: 3.13 puts a trailing comma's
    at the comma (``Illegal trailing comma before end of object``), 3.11 and 3.12 at the bracket after it."""
    try:
        json.loads(document)
    except json.JSONDecodeError as exc:
        return document[exc.pos:]
    raise AssertionError(f"{document!r} is JSON")


@pytest.mark.parametrize(("text", "at", "fragment"), [
    (REQUEST_OPEN + request("f", "{}")[len(REQUEST_OPEN):], REQUEST_OPEN, "outside a <|plamo:begin_tool_requests"),
    (requests(request("f", "{}")) + REQUEST_OPEN, EOT + REQUEST_OPEN, "after the end of the turn"),
    (requests(request("f", "{}"))[: -len(EOT)] + REQUESTS_CLOSE, REQUESTS_CLOSE * 2, "outside a <|plamo:begin_tool_r"),
    (requests(request("f", "[1]")), "[1]", "expected a JSON object of arguments"),
    (requests(request("f", "")), ARGS_CLOSE, "expected a JSON object of arguments"),
    (requests(request("f", '{"a": 1,}')), _json_error_tail('{"a": 1,}'), "invalid JSON"),
    (requests(request("my tool", "{}")), "my tool", "a tool name must be one word"),
    (requests(request("f", "{}", constraint=f"{CONSTRAIN}yaml{MSG}")), "yaml", "expected json<|plamo:msg|>"),
    (requests(request("f", "{}") + "x"), "x" + REQUESTS_CLOSE, "expected <|plamo:begin_tool_request:plamo|> or"),
    (requests(request("f", '{"a": "x' + EOT + '"}')), ARGS_CLOSE, "after the end of the turn"),
])
def test_errors_name_the_place_and_what_was_expected(text: str, at: str, fragment: str) -> None:
    where = line_col(text, text.index(at) + (len(REQUESTS_CLOSE) if at == REQUESTS_CLOSE * 2 else
                                             len(EOT) if at == EOT + REQUEST_OPEN else 0))
    for how in ("plamo3", "auto"):
        error = _error(text, how)
        assert (error.format, error.position) == ("plamo3", where) and fragment in error.reason, error
        assert not error.cut_short


def test_an_output_cut_anywhere_inside_a_block_is_cut_short_never_no_call() -> None:
    # vLLM reads no call from each of these (test_extract_tool_calls_rejects_incomplete_request), SGLang some
    text = "Before tools." + render(CALLS, "plamo3").removesuffix(EOT)
    for cut in range(len("Before tools.") + len("<|plamo:"), len(text)):
        for how in ("plamo3", "auto"):
            error = _error(text[:cut], how)
            assert error.cut_short and "cut short" in str(error), (cut, text[cut - 10:cut], error)
    assert parse_calls(text) == CALLS


def test_a_block_the_turn_ends_inside_is_an_error_not_cut_short() -> None:
    text = REQUESTS_OPEN + request("f", "{}") + EOT
    error = _error(text)
    assert not error.cut_short and error.position == line_col(text, text.index(EOT)) and "expected" in error.reason
