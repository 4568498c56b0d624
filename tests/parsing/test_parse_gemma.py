"""Gemma 4's and FunctionGemma's native calls (ek.parsing.gemma): the value language their templates write and
vLLM, SGLang and Ollama read, what is refused and where, thoughts, rendering, and hostile inputs in bounded
time. Real completions are in tests/data/formats/completions.jsonl (test_parse_native_formats.py reads them,
test_parse_cut_short.py cuts them)."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from ek.calls import Step
from ek.parsing import ParseError, parse_calls, render

Q = '<|"|>'
FAMILIES = {"gemma4": ("<|tool_call>", "<tool_call|>", Q),
            "functiongemma": ("<start_function_call>", "<end_function_call>", "<escape>")}


def call(fmt: str, body: str, name: str = "f") -> str:
    """``call:NAME{body}`` between ``fmt``'s tokens; ``~`` in ``body`` stands for the family's string delimiter."""
    begin, end, quote = FAMILIES[fmt]
    return f"{begin}call:{name}{{{body.replace('~', quote)}}}{end}"


def _error(text: str, fmt: str) -> ParseError:
    with pytest.raises(ParseError) as info:
        parse_calls(text, fmt)
    return info.value


# --------------------------------------------------------------------------- values


@pytest.mark.parametrize("fmt", sorted(FAMILIES))
@pytest.mark.parametrize(("body", "args"), [
    ("city:~Paris~", {"city": "Paris"}),
    ("n:42,neg:-7,zero:0,big:123456789012345678901234567890", {"n": 42, "neg": -7, "zero": 0,
                                                             "big": 123456789012345678901234567890}),
    ("x:3.14,e:1e-05,E:-2.5E+3,z:-0.0", {"x": 3.14, "e": 1e-05, "E": -2500.0, "z": 0.0}),
    ("t:true,f:false,n:null,p:None", {"t": True, "f": False, "n": None, "p": None}),
    ("l:[1,~a~,[true,{}],{k:[]}],o:{}", {"l": [1, "a", [True, {}], {"k": []}], "o": {}}),
    ("m:{~3~:~new text~,~a b~:1}", {"m": {"3": "new text", "a b": 1}}),  # delimited keys (vLLM reads them)
    (' a : 1 ,\n b :\t[ 1 , 2 ]\n', {"a": 1, "b": [1, 2]}),  # whitespace between tokens
    ('s:~~,q:~say \\"hi\\", {x:1} [y] <b>~', {"s": "", "q": 'say \\"hi\\", {x:1} [y] <b>'}),  # text as it is
    ("s:~line 1\nline 2\r\n~", {"s": "line 1\nline 2\r\n"}),
    ("n:~3~,b:~true~,z:~null~", {"n": "3", "b": "true", "z": "null"}),  # delimited: a string, never typed
])
def test_values_are_typed_by_their_syntax(fmt: str, body: str, args: dict) -> None:
    text = call(fmt, body)
    assert parse_calls(text, fmt) == [Step("f", args)]
    assert parse_calls(text) == [Step("f", args)]
    assert type(parse_calls(call(fmt, "n:1"), fmt)[0].args["n"]) is int
    assert type(parse_calls(call(fmt, "n:1.0"), fmt)[0].args["n"]) is float


def test_the_other_familys_tokens_and_a_call_closing_token_inside_a_string_are_text() -> None:
    inner = "<start_function_call>call:g{}<end_function_call><escape>}<tool_call|><|tool_call>"
    text = f"<|tool_call>call:f{{s:{Q}{inner}{Q}}}<tool_call|>"
    assert parse_calls(text, "gemma4") == [Step("f", {"s": inner})]


@pytest.mark.parametrize("name", ["get_weather", "get-weather", "weather.get", "mcp:server.tool", "数据"])
def test_tool_names_are_read_up_to_the_brace(name: str) -> None:
    assert parse_calls(call("gemma4", "", name), "gemma4") == [Step(name, {})]
    assert parse_calls(f"<|tool_call> call:{name} {{}}<tool_call|>", "gemma4") == [Step(name, {})]


# --------------------------------------------------------------------------- the completion around the calls


def test_prose_around_and_between_calls_is_skipped_and_every_call_read() -> None:
    text = f"Checking. {call('gemma4', 'a:1')} and then {call('gemma4', 'b:2', 'g')}<|tool_response>"
    assert parse_calls(text, "gemma4") == [Step("f", {"a": 1}), Step("g", {"b": 2})]
    assert parse_calls(text) == [Step("f", {"a": 1}), Step("g", {"b": 2})]


def test_thoughts_are_skipped_and_a_call_inside_a_thought_is_thinking_not_a_call() -> None:
    thought = f"<|channel>thought\nMaybe f(x=1)? Or {call('gemma4', 'a:1', 'g')}<channel|>"
    text = f"{thought}{call('gemma4', 'a:2')}<|channel>again<channel|>Done."
    assert parse_calls(text, "gemma4") == parse_calls(text) == [Step("f", {"a": 2})]
    assert parse_calls("<|channel>thought\nThe answer is f(4).<channel|>It is 4.") == []  # auto: no call


def test_a_thought_opened_in_the_prompt_ends_at_its_closing_token() -> None:
    """Ollama's Gemma 4 renderer opens ``<|channel>thought\\n`` in the prompt after a tool's reply: the
    completion then starts inside the thought."""
    text = f"The user wants f(1).<channel|>{call('gemma4', 'x:1')}"
    assert parse_calls(text, "gemma4") == parse_calls(text) == [Step("f", {"x": 1})]
    assert parse_calls(f"<think>hm</think>{call('gemma4', 'x:1')}") == [Step("f", {"x": 1})]


def test_a_call_whose_closing_token_was_left_out_is_read_at_the_end_or_before_the_next_call() -> None:
    """Ollama flushes such a call when the output ends or the next call opens; vLLM and SGLang read none."""
    for fmt, (begin, end, quote) in FAMILIES.items():
        one = call(fmt, "a:1").removesuffix(end)
        assert parse_calls(one + " \n", fmt) == [Step("f", {"a": 1})]
        assert parse_calls(one + call(fmt, "", "g"), fmt) == [Step("f", {"a": 1}), Step("g", {})]
        error = _error(one + " Done.", fmt)
        assert error.reason.startswith(f"expected {end} after the arguments of 'f'") and not error.cut_short


@pytest.mark.parametrize(("text", "calls"), [
    ('<|tool_call>call:gdb{args:<|"|>-batch -ex run /tmp/poc<|"|>}<turn|>',
     [Step("gdb", {"args": "-batch -ex run /tmp/poc"})]),
    ('<|tool_call>:call:bash{command:<|"|>pytest<|"|>}', [Step("bash", {"command": "pytest"})]),
    ('<|channel>thought\nRead it first.\n<channel|>call:bash{command:<|"|>cat /work/src/entry.c<|"|>}',
     [Step("bash", {"command": "cat /work/src/entry.c"})]),
    ('some prose\ncall:bash{command:<|"|>make -j8<|"|>}', [Step("bash", {"command": "make -j8"})]),
    ('call:fs.read_file{path:<|"|>/work/Makefile<|"|>} and call:web-search{query:<|"|>gemma<|"|>} done',
     [Step("fs.read_file", {"path": "/work/Makefile"}), Step("web-search", {"query": "gemma"})]),
])
def test_gemma4_calls_vllm_reads_without_their_tokens(text: str, calls: list[Step]) -> None:
    """vLLM's test_gemma4_regex_and_bare_calls.py: a call closed by <turn|>, a stray colon after <|tool_call>, and
    calls written without <|tool_call> (after a thought, in prose) are read; ek refused the first two and read
    the others as no call."""
    for how in ("gemma4", "auto"):
        assert parse_calls(text, how) == calls


def test_a_gemma4_string_in_prose_outside_any_call_is_an_error_not_prose() -> None:
    # vLLM's test_fragmented_call_tag_from_multimodal reads <call>NAME{...}; ek read it as no call
    error = _error('<call>get_weather{city:<|"|>Paris<|"|>}', "gemma4")
    assert error.position == (1, 24) and "string outside any call" in error.reason
    tail = '<|tool_call>call:f{}<tool_call|><|tool_response>response:f{t:<|"|>15<|"|>}<tool_response|>Done.'
    assert parse_calls(tail, "gemma4") == [Step("f", {})]  # a response after the call quotes freely
    assert parse_calls("recall:f{x:1} is no call", "gemma4") == []  # call: inside a word
    stray = _error("Done <tool_call|> call:f{x:1}", "gemma4")  # the prose before a bare call is checked too
    assert stray.position == (1, 6) and "without an opening" in stray.reason


def test_a_closing_token_repeated_right_after_a_call_closes_nothing_and_is_dropped() -> None:
    """Ollama's Gemma 4 parser drops the extra ``<tool_call|>`` the model writes at times after a call (its
    ``Gemma4IgnoringPostToolCallNoise`` state); anywhere else a closing token with no call open is an error."""
    text = f"{call('gemma4', 'a:1')}<tool_call|>\n<tool_call|>{call('gemma4', '', 'g')}<tool_call|> Done."
    assert parse_calls(text, "gemma4") == parse_calls(text) == [Step("f", {"a": 1}), Step("g", {})]
    error = _error(f"{call('gemma4', 'a:1')} So.<tool_call|>", "gemma4")
    assert error.reason == "<tool_call|> without an opening <|tool_call>" and error.position == (1, 40)


# --------------------------------------------------------------------------- refusals


@pytest.mark.parametrize(("body", "fragment", "column", "cut"), [
    ("a:1,a:2", "key 'a' given twice", 24, False),
    ("a:1,", "expected a key", 24, False),
    ("a:1,}", "expected a key", 24, False),
    ("a:hello", "expected a value", 22, False),
    ('a:"raw"', "expected a value", 22, False),  # a JSON-quoted string (Ollama repairs it)
    ("a 1", "expected ':' after the key 'a'", 22, False),
    ("a:1 b:2", "expected ',' or '}'", 24, False),
    ("a:[1 2]", "expected ',' or ']'", 25, False),
    ("a:(1)", "expected a value", 22, False),
    ("a:1e999", "too large for a float", 22, False),
    ("a:" + "9" * 5000, "4300 digits", 22, False),
    ("a:01", "expected a value", 22, False),
])
def test_broken_arguments_say_where_and_why(body: str, fragment: str, column: int, cut: bool) -> None:
    text = f"<|tool_call>call:f{{{body.replace('~', Q)}}}<tool_call|>"
    for fmt in ("gemma4", "auto"):
        error = _error(text, fmt)
        assert fragment in error.reason, error
        assert (error.format, error.position, error.cut_short) == ("gemma4", (1, column), cut), error
        assert ("cut short" in str(error)) is cut


@pytest.mark.parametrize(("text", "fragment", "position", "cut"), [
    ("<|tool_call>foo{}<tool_call|>", "expected call:NAME{...}", (1, 13), False),
    ("<|tool_call>call:{}<tool_call|>", "expected a tool name", (1, 18), False),
    ("<|tool_call>call:f(x=1)<tool_call|>", "expected { after the tool name 'f'", (1, 19), False),
    ("Done.<tool_call|>", "<tool_call|> without an opening <|tool_call>", (1, 6), False),
    (f"<|tool_call>call:f{{s:{Q}abc}}<tool_call|>", f"not closed by {Q}", (1, 22), False),  # the close follows
    ("ok\n<|channel>thought\nhm", "a thought (<|channel>) is not closed", (2, 1), True),
    ("<|tool_call>call:get_wea", "the output ends in the tool name", (1, 18), True),
    ("<|tool_call>call:f{a:[1,{b:", "the output ends where a value was expected", (1, 28), True),
    ("<|tool_call>call:f{a:[1,{b:2}", "the output ends inside the list opened at line 1, column 22", (1, 30), True),
    ("<|tool_call>call:f{a:tr", "the output ends inside a value", (1, 22), True),
    ('<|tool_call>call:f{a:<|"', "the output ends inside a value", (1, 22), True),
    (f"<|tool_call>call:f{{a:{Q}Par", f"not closed by {Q}", (1, 22), True),
    ("<|tool_call>call:f{ab", "the output ends in a key", (1, 20), True),
    ("<|tool_call>", "expected call:NAME{...}", (1, 13), True),
    ("<|tool_call>cal", "expected call:NAME{...}", (1, 13), True),
])
def test_broken_completions_say_where_and_why(text: str, fragment: str, position: tuple[int, int],
                                              cut: bool) -> None:
    for fmt in ("gemma4", "auto"):
        error = _error(text, fmt)
        assert fragment in error.reason, error
        assert (error.format, error.position, error.cut_short) == ("gemma4", position, cut), error


def test_nesting_past_max_depth_is_refused_at_its_bracket_and_any_depth_is_safe() -> None:
    deep = "<|tool_call>call:f{a:" + "[" * 70 + "]" * 70 + "}<tool_call|>"
    error = _error(deep, "gemma4")
    assert "nesting deeper than 64 brackets" in error.reason and error.position == (1, 85)
    objects = "<|tool_call>call:f{" + "a:{" * 5000 + "}" * 5001 + "<tool_call|>"
    assert parse_calls(objects, "gemma4", max_depth=6000)[0].name == "f"  # no recursion: no RecursionError
    assert "nesting deeper" in _error(objects, "gemma4").reason


# --------------------------------------------------------------------------- rendering


def test_render_writes_what_the_chat_template_writes() -> None:
    """The template's ``format_argument``: keys in ``dictsort`` order (case-insensitive), strings delimited,
    ``true``/``false``, Python's ``str`` of numbers and of ``None``; calls concatenated."""
    calls = [Step("get_weather", {"units": "metric", "Zone": "CET", "City": "Paris", "days": 3,
                                  "x": [1.5, None, {"b": False, "A": 1e-05}]}), Step("noop", {})]
    assert render(calls, "gemma4") == (
        '<|tool_call>call:get_weather{City:<|"|>Paris<|"|>,days:3,units:<|"|>metric<|"|>,'
        'x:[1.5,None,{A:1e-05,b:false}],Zone:<|"|>CET<|"|>}<tool_call|><|tool_call>call:noop{}<tool_call|>')
    assert render(calls[:1], "functiongemma").startswith(
        "<start_function_call>call:get_weather{City:<escape>Paris<escape>,days:3,")
    assert render([], "gemma4") == render([], "functiongemma") == ""


DELIMITERS = ["<|tool_call>", "<tool_call|>", "<start_function_call>", "<end_function_call>", "<|channel>",
              "<channel|>", "}", "{a:1}", ",", ":", "[", "]", "true", "null", "None", "3", "-0.5", " padded ", "\n",
              "", '"quoted"', "\\", "<tool_call>"]


@pytest.mark.parametrize("fmt", sorted(FAMILIES))
def test_render_then_read_back_with_every_token_in_strings_and_keys(fmt: str) -> None:
    quote = FAMILIES[fmt][2]
    other = [d for d in DELIMITERS + [Q, "<escape>"] if d != quote]
    calls = [Step("f", {"s": d, "l": [d, {d: d}], "o": {d: [d]}}) for d in other] + [Step("g", {})]
    text = render(calls, fmt)
    assert parse_calls(text, fmt) == calls


@pytest.mark.parametrize("fmt", sorted(FAMILIES))
def test_what_the_format_cannot_hold_is_refused_when_rendering(fmt: str) -> None:
    quote = FAMILIES[fmt][2]
    with pytest.raises(ValueError, match="call 0 \\('f'\\): the string .* holds"):
        render([Step("f", {"s": f"a{quote}b"})], fmt)
    with pytest.raises(ValueError, match="holds"):
        render([Step("f", {f"k{quote}": 1})], fmt)
    for name in ("get weather", "f{x}", "a<b"):
        with pytest.raises(ValueError, match="cannot be written"):
            render([Step(name, {})], fmt)
    with pytest.raises(ValueError, match="no form"):
        render([Step("f", {"x": float("nan")})], fmt)


# --------------------------------------------------------------------------- hostile and large


@pytest.mark.parametrize(("label", "text"), [
    ("100k call opens", "<|tool_call>" * 80_000),
    ("100k call names", "<|tool_call>call:f" * 50_000),
    ("100k string delimiters", "<|tool_call>call:f{a:" + Q * 150_000),
    ("100k thoughts", "<|channel><channel|>" * 45_000 + "<|tool_call>call:f{}<tool_call|>"),
    ("100k open objects", "<|tool_call>call:f{" + "a:{" * 300_000),
    ("100k list items", "<|tool_call>call:f{a:[" + "1," * 400_000 + "1]}<tool_call|>"),
    ("unclosed string", "<|tool_call>call:f{a:" + Q + "a" * 900_000),
    ("prose then a call", "a" * 900_000 + "<|tool_call>call:f{}<tool_call|>"),
])
def test_hostile_gemma_is_decided_in_bounded_time(label: str, text: str) -> None:
    began = time.perf_counter()
    try:
        result = parse_calls(text, "gemma4")
    except ParseError:
        result = None
    assert time.perf_counter() - began < 3.0, label
    assert result is None or all(isinstance(s, Step) for s in result)


def test_many_calls_are_read_all() -> None:
    text = call("functiongemma", "a:1,b:~x y~") * 12_000
    assert parse_calls(text, "functiongemma") == [Step("f", {"a": 1, "b": "x y"})] * 12_000


DATA = Path(__file__).resolve().parents[1] / "data" / "formats"


def test_the_corpus_holds_real_gemma_completions_and_refusals() -> None:
    """The lines themselves are read by test_parse_native_formats.py (by their format and by auto) and cut short
    by test_parse_cut_short.py; this keeps them from going missing."""
    def lines(name: str, fmt: str) -> list[dict]:
        rows = [json.loads(line) for line in (DATA / name).read_text(encoding="utf-8").splitlines() if line.strip()]
        return [row for row in rows if row["format"] == fmt]

    for fmt in FAMILIES:
        assert len(lines("completions.jsonl", fmt)) >= 10 and all(r["source"] for r in lines("completions.jsonl", fmt))
    assert lines("refusals.jsonl", "gemma4")
