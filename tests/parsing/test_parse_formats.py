"""Every supported output format, read for real, plus the errors users will meet."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ek.calls import Step
from ek.parsing import FORMATS, ParseError, parse_calls
from ek.parsing.errors import line_col

CALLS = [Step("search", {"q": "cats", "limit": 5}), Step("math.hypot", {"x": 3, "y": -4.5})]

OPENAI_MESSAGE: dict[str, Any] = {
    "role": "assistant",
    "content": None,
    "tool_calls": [
        {"id": "c1", "type": "function", "function": {"name": "search", "arguments": '{"q": "cats", "limit": 5}'}},
        {"id": "c2", "type": "function", "function": {"name": "math.hypot", "arguments": {"x": 3, "y": -4.5}}},
    ],
}
OPENAI_RESPONSE = {"id": "chatcmpl-1", "object": "chat.completion",
                   "choices": [{"index": 0, "message": OPENAI_MESSAGE, "finish_reason": "tool_calls"}]}
ANTHROPIC_MESSAGE: dict[str, Any] = {
    "id": "msg_1", "type": "message", "role": "assistant",
    "content": [
        {"type": "text", "text": "Let me look."},
        {"type": "tool_use", "id": "t1", "name": "search", "input": {"q": "cats", "limit": 5}},
        {"type": "thinking", "thinking": "..."},
        {"type": "tool_use", "id": "t2", "name": "math.hypot", "input": {"x": 3, "y": -4.5}},
    ],
}
OPENAI_RESPONSES: dict[str, Any] = {
    "id": "resp_1", "object": "response",
    "output": [
        {"type": "reasoning", "id": "rs_1", "summary": []},
        {"type": "function_call", "id": "fc_1", "call_id": "c1", "name": "search", "arguments": '{"q": "cats", "limit": 5}'},
        {"type": "function_call", "id": "fc_2", "call_id": "c2", "name": "math.hypot", "arguments": '{"x": 3, "y": -4.5}'},
        {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "done"}]},
    ],
}
GENERIC = [{"name": "search", "arguments": {"q": "cats", "limit": 5}},
           {"name": "math.hypot", "parameters": {"x": 3, "y": -4.5}}]
BFCL = [{"search": {"q": "cats", "limit": 5}}, {"math.hypot": {"x": 3, "y": -4.5}}]


@pytest.mark.parametrize(
    ("output", "fmt"),
    [
        ('[search(q="cats", limit=5), math.hypot(x=3, y=-4.5)]', "python"),
        ('search(q="cats", limit=5)\nmath.hypot(x=3, y=-4.5)', "python"),
        ('search(q="cats", limit=5); math.hypot(x=3, y=-4.5)', "python"),
        ('```python\n[search(q="cats", limit=5), math.hypot(x=3, y=-4.5)]\n```', "python"),
        (OPENAI_MESSAGE, "openai"),
        (OPENAI_RESPONSE, "openai"),
        (OPENAI_MESSAGE["tool_calls"], "openai"),
        (OPENAI_RESPONSES, "openai"),
        (OPENAI_RESPONSES["output"], "openai"),
        (json.dumps(OPENAI_RESPONSE), "openai"),
        (ANTHROPIC_MESSAGE, "anthropic"),
        (ANTHROPIC_MESSAGE["content"], "anthropic"),
        (GENERIC, "json"),
        (json.dumps(GENERIC), "json"),
        (BFCL, "bfcl"),
        (json.dumps(BFCL).encode(), "bfcl"),
    ],
)
def test_each_format_reads_the_same_calls_explicitly_and_by_auto(output: object, fmt: str) -> None:
    assert parse_calls(output, fmt) == CALLS
    if fmt == "bfcl":  # a one-key {"tool": {...}} is BFCL's shape only when BFCL is named: auto never guesses it
        with pytest.raises(ParseError, match="BFCL call only with format='bfcl'"):
            parse_calls(output)
    else:
        assert parse_calls(output) == CALLS


def test_single_calls_of_each_json_shape() -> None:
    assert parse_calls(OPENAI_MESSAGE["tool_calls"][0]) == CALLS[:1]
    assert parse_calls(ANTHROPIC_MESSAGE["content"][1]) == CALLS[:1]
    assert parse_calls({"name": "search", "args": {"q": "cats", "limit": 5}}) == CALLS[:1]
    assert parse_calls({"name": "search", "input": '{"q": "cats", "limit": 5}'}) == CALLS[:1]
    assert parse_calls({"search": {"q": "cats", "limit": 5}}, "bfcl") == CALLS[:1]
    assert parse_calls({"function_call": {"name": "f", "arguments": "{}"}}) == [Step("f", {})]
    assert parse_calls(OPENAI_RESPONSES["output"][1]) == CALLS[:1]
    assert parse_calls({"type": "text", "text": "hi"}) == []


def test_no_calls() -> None:
    assert parse_calls("") == []
    assert parse_calls("[]") == []
    assert parse_calls({"role": "assistant", "content": "Sure!", "tool_calls": None}) == []
    assert parse_calls({"role": "assistant", "content": [{"type": "text", "text": "hi"}]}) == []
    assert parse_calls({"type": "function", "function": {"name": "f", "arguments": ""}}) == [Step("f", {})]


def test_python_literals_are_accepted_and_tuples_become_lists() -> None:
    (step,) = parse_calls("f(a='x', b=-1, c=+2.5, d=True, e=None, f=(1, [2, {'k': ()}]), g=1_000, h=0x10)")
    assert step.args == {"a": "x", "b": -1, "c": 2.5, "d": True, "e": None, "f": [1, [2, {"k": []}]],
                         "g": 1000, "h": 16}


@pytest.mark.parametrize(
    ("text", "position", "fragment"),
    [
        ("f(1, x=2)", (1, 3), "positional argument"),
        ("f(x=y)", (1, 5), "name 'y' is not a literal"),
        ("f(x=true)", (1, 5), "did you mean True?"),
        ("f(x=1, x=2)", (1, 8), "repeated"),
        ("f(**kw)", (1, 3), "** unpacking"),
        ("f(*a)", (1, 3), "* unpacking"),
        ("f(x={'a': 1, 'a': 2})", (1, 14), "duplicate key 'a'"),
        ("f(x={1: 2})", (1, 6), "dict keys must be string literals"),
        ("f(x=1 + 2)", (1, 5), "arithmetic"),
        ("f(x=--1)", (1, 5), "unary operators"),
        ("f(x=-True)", (1, 5), "unary operators"),
        ("f(x=not 1)", (1, 5), "unary operators"),
        ("f(x=b'a')", (1, 5), "bytes"),
        ("f(x={1, 2})", (1, 5), "set literals"),
        ("f(x=f'{y}')", (1, 5), "f-strings"),
        ("f(x=1j)", (1, 5), "complex"),
        ("f(x=...)", (1, 5), "Ellipsis"),
        ("f(x=1e999)", (1, 5), "infinity"),
        ("f(x=[i for i in a])", (1, 5), "comprehensions"),
        ("f(x=lambda: 1)", (1, 5), "lambdas"),
        ("f(x=a[0])", (1, 5), "subscripts"),
        ("x = f(a=1)", (1, 1), "found an assignment"),
        ("[f(a=1), 2]", (1, 10), "not a call"),
        ("f(a=1)(b=2)", (1, 1), "name or dotted name"),
        ("I cannot help with that.", (1, 3), "invalid Python"),
    ],
)
def test_python_rejections_say_where_and_why(text: str, position: tuple[int, int], fragment: str) -> None:
    with pytest.raises(ParseError) as info:
        parse_calls(text, "python")
    err = info.value
    assert fragment in err.reason
    assert err.position == position
    assert err.format == "python"


@pytest.mark.parametrize(
    ("output", "fmt", "path", "fragment"),
    [
        ({"tool_calls": [{"type": "function", "function": {"name": "f", "arguments": "{bad"}}]}, "openai",
         "$.tool_calls[0].function.arguments (line 1, column 2)", "invalid JSON"),
        ({"tool_calls": [{"type": "function", "function": {"name": "f", "arguments": "[1]"}}]}, "openai",
         "$.tool_calls[0].function.arguments", "must be a JSON object"),
        ({"tool_calls": [{"type": "function", "function": {"name": 3, "arguments": "{}"}}]}, "openai",
         "$.tool_calls[0].function.name", "must be a string"),
        ({"choices": []}, "openai", "$.choices", "exactly one choice"),
        ([{"type": "tool_use", "name": "f"}], "anthropic", "$[0]", "needs an 'input'"),
        ([{"type": "tool_use", "name": "f", "input": {"s": {1, 2}}}], "anthropic", "$[0].input.s", "set"),
        ({"name": "f", "arguments": {}, "input": {}}, "json", "$", "ambiguous"),
        ([{"f": {"x": float("nan")}}], "bfcl", "$[0]['f'].x", "NaN"),
        ({"foo": 1, "bar": 2}, "auto", "$", "unrecognised object"),
        ({"search": {"q": 1}}, "openai", "$", "not an openai tool call"),
        ({"object": "response", "output": [{"type": "spreadsheet_call"}]}, "openai", "$.output[0].type",
         "unsupported output item type"),
    ],
)
def test_json_shape_rejections_give_the_json_path(output: object, fmt: str, path: str, fragment: str) -> None:
    with pytest.raises(ParseError) as info:
        parse_calls(output, fmt)
    assert info.value.position == path
    assert fragment in info.value.reason


def test_auto_reports_both_attempts_when_neither_reads() -> None:
    with pytest.raises(ParseError) as info:
        parse_calls('[{"f": {}}, g(x=1]')
    assert info.value.format == "auto"
    assert "neither JSON" in info.value.reason and "Python" in info.value.reason


def test_python_lists_skip_the_json_attempt() -> None:
    with pytest.raises(ParseError) as info:
        parse_calls("[f(x=1), {]")
    assert info.value.format == "python"


def test_json_text_errors_carry_line_and_column() -> None:
    with pytest.raises(ParseError) as info:
        parse_calls('{"name": "f",\n "arguments": {"x": }}')
    assert info.value.position == (2, 21)  # the "}" where a value belongs


def test_python_format_wants_text_and_unknown_formats_are_named() -> None:
    with pytest.raises(ParseError, match="reads text"):
        parse_calls({"f": {}}, "python")
    with pytest.raises(ValueError, match="choose one of: " + ", ".join(FORMATS)):
        parse_calls("f()", "yaml")
    with pytest.raises(ParseError, match="cannot read tool calls from an int"):
        parse_calls(42)  # type: ignore[arg-type]


def test_parse_error_pickles_with_its_fields() -> None:
    import pickle

    err = ParseError("why", (2, 3), "python")
    copy = pickle.loads(pickle.dumps(err))
    assert (copy.reason, copy.position, copy.format, str(copy)) == ("why", (2, 3), "python", str(err))


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ("import os", "found an import statement"),
        ("x = f(y=1)", "found an assignment"),
        ("@dec\ndef g(): pass", "found a function definition"),
        ("async def g(): pass", "found a function definition"),
        ("class C: pass", "found a class definition"),
        ("for i in []: f(x=i)", "found a for loop"),
    ],
)
def test_statements_are_named_in_plain_words(text: str, fragment: str) -> None:
    with pytest.raises(ParseError) as info:
        parse_calls(text, "python")
    assert fragment in info.value.reason


def test_an_empty_object_is_named_as_such() -> None:
    outputs: tuple[str, dict[str, object]] = ("{}", {})
    for output in outputs:
        with pytest.raises(ParseError) as info:
            parse_calls(output)
        assert info.value.reason.startswith("not a tool call: an empty object; tried OpenAI"), info.value.reason


@pytest.mark.parametrize(("output", "reason"), [(5, "cannot read tool calls from an int"),
                                                (None, "cannot read tool calls from None"),
                                                (1.5, "cannot read tool calls from a float")])
def test_unreadable_python_objects_are_named(output: object, reason: str) -> None:
    with pytest.raises(ParseError) as info:
        parse_calls(output)  # type: ignore[arg-type]
    assert info.value.reason == reason


@pytest.mark.parametrize("fmt", ["auto", "python", "json"])
def test_a_byte_order_mark_at_the_start_of_text_is_dropped(fmt: str) -> None:
    text = '{"name": "f", "arguments": {"x": 1}}' if fmt == "json" else "f(x=1)"
    assert parse_calls("\ufeff" + text, fmt) == [Step("f", {"x": 1})]


def test_python_identifiers_are_nfkc_normalised_as_python_does() -> None:
    # Python's own parser folds fullwidth letters and ligatures; documented, not hidden.
    assert parse_calls("\uff46(\uff58=1)") == [Step("f", {"x": 1})]


def test_an_object_of_several_calls_gets_a_hint_in_auto_and_is_read_as_bfcl() -> None:
    several = [{"f": {"x": 1}, "g": {}}]
    with pytest.raises(ParseError) as info:
        parse_calls(several)
    assert "is a BFCL call only with format='bfcl'" in info.value.reason
    assert parse_calls(several, "bfcl") == [Step("f", {"x": 1}), Step("g", {})]


_OPENAI_TOOL_CALLS = json.dumps([{"id": "c1", "type": "function", "function": {"name": "f", "arguments": '{"x": 1}'}},
                                  {"id": "c2", "type": "function", "function": {"name": "g", "arguments": "{}"}}])


@pytest.mark.parametrize(
    "text",
    [
        # Hammer2.1's answers as BFCL saves them (HuanzhiMao/BFCL-Result, 2025-12-16, BFCL_v4_parallel_result.json)
        '```\n[{"name": "f", "arguments": {"x": 1}}, {"name": "g", "arguments": {}}]\n```',
        '[{"name": "f", "parameters": {"x": 1}}, {"name": "g", "parameters": {}}]',
        '[{"name": "f", "arguments": "{\\"x\\": 1}"}, {"name": "g", "arguments": "{}"}]',
        _OPENAI_TOOL_CALLS,
    ],
)
def test_bfcl_reads_call_objects_of_other_shapes_by_their_shape(text: str) -> None:
    # Only a one-key object is BFCL's {"func": {...}}; {"name": "f", "arguments": {...}} is no pair of calls named
    # "name" and "arguments" (the second's arguments the text "f"), but the one call it is, as in format auto.
    calls = [Step("f", {"x": 1}), Step("g", {})]
    assert parse_calls(text, "bfcl") == calls
    assert parse_calls(json.loads(text.strip("`\n")), "bfcl") == calls  # decoded, as a result line can hold it
    assert parse_calls('{"name": "f", "arguments": {"x": 1}}', "bfcl") == calls[:1]
    assert parse_calls('[{"name": {"x": 1}}]', "bfcl") == [Step("name", {"x": 1})]  # one key: BFCL's call
    # the fast reader of decoded lists gives the same: a "name" that is JSON object text is no call's arguments
    assert parse_calls([{"name": '{"x": 1}', "arguments": {}}], "bfcl") == [Step('{"x": 1}', {})]


@pytest.mark.parametrize(
    "text",
    [
        "f(x=1)\r\ng(y=[1,\r\n 2])\r\n",
        "\tf(x=1)\n\tg(y=[1, 2])",
        "f(x=1)  # first\n# nothing here\ng(y=[1,  # inside brackets\n 2])",
        "f(x=1); g(y=[1, 2]);",
        "[f(x=1),\n g(y=[1, 2]),\n]",
        "\x0cf(x=1)\n\ng(y=[1, 2])\n\n",
        "    f(x=1)\n    g(y=[1,\n        2])\n",  # a model indenting its whole answer
        "```python\n    f(x=1)\n    g(y=[1, 2])\n```",
    ],
)
def test_layout_crlf_tabs_comments_and_separators_do_not_matter(text: str) -> None:
    assert parse_calls(text) == [Step("f", {"x": 1}), Step("g", {"y": [1, 2]})]


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ("True(x=1)", "the called function must be a name"),
        ("None(x=1)", "the called function must be a name"),
        ("f(x=True, y=None, z=none)", "name 'none' is not a literal value; did you mean None?"),
        ("f(1, x=2)", "positional argument 1 in the call to 'f'"),
        ("f(x=1)(y=2)", "the called function must be a name"),
    ],
)
def test_odd_callees_and_argument_forms_are_named(text: str, fragment: str) -> None:
    with pytest.raises(ParseError) as info:
        parse_calls(text, "python")
    assert fragment in info.value.reason


def test_uneven_indentation_is_still_an_error_at_its_line() -> None:
    with pytest.raises(ParseError) as info:
        parse_calls("f(x=1)\n    g(y=2)")
    assert info.value.position[0] == 2 and "unexpected indent" in info.value.reason  # type: ignore[index]


def test_model_text_with_invalid_escapes_parses_without_warnings():
    import warnings

    import ek

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert ek.parse_calls(r'search(q="a\[b")')[0].args == {"q": "a\\[b"}


def test_positional_arguments_bind_only_with_a_signature() -> None:
    from ek.parsing.limits import DEFAULT_LIMITS
    from ek.parsing.python_calls import parse_python

    order = {"f": ("a", "b")}.get
    assert parse_python("f(1, b=2)", DEFAULT_LIMITS, order) == [Step("f", {"a": 1, "b": 2})]
    with pytest.raises(ParseError, match="positional argument 1 in the call to 'f': arguments are matched by name"):
        parse_python("f(1)", DEFAULT_LIMITS)  # model outputs: never bound
    with pytest.raises(ParseError, match="no signature of 'g' is known"):
        parse_python("g(1)", DEFAULT_LIMITS, order)
    with pytest.raises(ParseError, match="a call is not a value"):
        parse_python("f(g())", DEFAULT_LIMITS, order)  # a positional value is still only a literal


@pytest.mark.parametrize(("text", "calls"), [
    ("[get_weather(city='Paris')", [Step("get_weather", {"city": "Paris"})]),      # the closing bracket left out
    ("`get_weather(city='Paris')`", [Step("get_weather", {"city": "Paris"})]),     # inline code backticks
    ("[a(x=1), b(y=2)\n", [Step("a", {"x": 1}), Step("b", {"y": 2})]),
    ("I cannot answer that.", []),                                                 # prose stays no call
])
def test_bfcl_reads_text_as_bfcls_decoder_cleans_it(text: str, calls: list[Step]) -> None:
    """BFCL's decoder strips backticks and adds a missing bracket before reading; format bfcl reads such text
    the same way, when it does not read as written (the python format does not)."""
    assert parse_calls(text, "bfcl") == calls
    if calls:
        with pytest.raises(ParseError):
            parse_calls(text, "python")


@pytest.mark.parametrize(("text", "calls"), [
    ("[(get_weather(city='Paris'))]", [Step("get_weather", {"city": "Paris"})]),
    ("(get_weather(city='Paris'))", [Step("get_weather", {"city": "Paris"})]),    # BFCL's decoder adds [ and ]
    ("[ ((a(x=(1)))), b(y=(1,))]", [Step("a", {"x": 1}), Step("b", {"y": [1]})]),
    ("[# the calls\n a(x=1)]", [Step("a", {"x": 1})]),
])
def test_bfcl_reads_calls_in_redundant_parentheses_as_pythons_parser_does(text: str, calls: list[Step]) -> None:
    """Python's parser drops parentheses around an expression, and so BFCL's decoder: ``[(f(x=1))]`` is a call.
    A parenthesis is never JSON, so such text goes straight to the Python reader."""
    assert parse_calls(text, "bfcl") == calls
    assert parse_calls(text, "python") == calls


def test_redundant_parentheses_nest_within_the_depth_limit_as_brackets_do() -> None:
    deep = 100_000
    with pytest.raises(ParseError, match="nesting deeper than 64 brackets"):
        parse_calls("[" + "(" * deep + "f(x=1)" + ")" * deep + "]", "bfcl")
    assert parse_calls("[" + "(" * 60 + "f(x=1)" + ")" * 60 + "]", "bfcl") == [Step("f", {"x": 1})]


@pytest.mark.parametrize(("text", "reason"), [
    ("[(get_weather(city='Paris')]", "invalid Python: closing parenthesis ']' does not match"),
    ("[(1, 2)]", "this item is not a call"),
    ("['f'(x=1)]", "neither JSON (line 1, column 2: invalid JSON: Expecting value) nor Python calls "
                   "(line 1, column 2: the called function must be a name"),
])
def test_bfcl_says_why_python_looking_text_is_no_call_without_only_blaming_json(text: str, reason: str) -> None:
    with pytest.raises(ParseError) as info:
        parse_calls(text, "bfcl")
    assert reason in str(info.value)
    assert not str(info.value).partition(": ")[2].startswith("line 1, column 2: invalid JSON")


def test_bfcl_text_cut_inside_a_call_is_still_cut_short_with_its_own_position() -> None:
    with pytest.raises(ParseError) as info:
        parse_calls("[a(x=1), b(y=", "bfcl")
    assert info.value.cut_short and info.value.position == (1, 11)


_JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=4),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=3), inner, max_size=3),
    max_leaves=8)
_AROUND = st.sampled_from(["", " ", "\n", "\t ", "\r\n"])
_JSON_HOSTILE = st.sampled_from([
    '{"a": 1, "a": 2}', '{"x": NaN}', '{"x": -Infinity}', '{"x": 1e400}', "[1]", "", "  ", "{", '{"x": 1} 2',
    '{"x": 1}}', '{"x": 1},', "\ufeff{}", '{"x": ' + "[" * 70 + "]" * 70 + "}", '{"x": ' + "1" * 5000 + "}",
    '{"a": {"b": 1, "b": 1}}', "{}"])


@settings(max_examples=400, deadline=None)
@given(value=_JSON_VALUES, before=_AROUND, after=_AROUND, hostile=_JSON_HOSTILE, use=st.booleans())
def test_plain_object_gives_what_loads_gives(value: Any, before: str, after: str, hostile: str, use: bool) -> None:
    """json_text.plain_object (the scanner called directly when the value fills the text) is loads' object,
    or None wherever loads raises or gives anything else."""
    from ek.parsing.json_text import loads, plain_object
    from ek.parsing.limits import Limits

    text = hostile if use else before + json.dumps(value) + after
    limits = Limits()
    try:
        expected = loads(text, limits)
    except ParseError:
        expected = None
    got = plain_object(text, limits)
    assert got == (expected if type(expected) is dict and text.strip() else None)
    if got is not None:
        assert json.dumps(got) == json.dumps(expected)  # the same types (1 is not 1.0 nor True)


def _texts_for_detection() -> list[str]:
    from pathlib import Path

    from ek.parsing import RENDERERS
    from ek.parsing.api import _MARKERS

    corpus = Path(__file__).parent.parent / "data" / "formats"
    lines = [json.loads(line) for name in ("completions.jsonl", "refusals.jsonl")
             for line in (corpus / name).read_text(encoding="utf-8").splitlines() if line.strip()]
    texts = [line["completion"] for line in lines if isinstance(line["completion"], str)]
    texts += [r([Step("f", {"a": "<x>"})]) for r in RENDERERS.values()]
    markers = [m for _name, ms in _MARKERS for m in ms]
    texts += [f"say {m} then [f(x=1)] functools[{{}}]" for m in markers] + ["[f(x=1)]", "functools[{}]", "x"]
    return [t for t in texts if isinstance(t, str)]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(["[TOOL_CALLS]", "functools[", "<", "<|", "[", "f(x=1)", "{}", " ", "\n", "a"]),
                max_size=8).map("".join), st.integers(0, 3))
def test_marker_detection_without_an_angle_bracket_finds_what_the_full_search_finds(text: str, start: int) -> None:
    from ek.parsing.api import _detect_all, detect_text

    assert detect_text(text, start) == _detect_all(text, start)


def _every_marker_looked_for(text: str, start: int) -> list[tuple[str, int]]:
    from ek.parsing.api import _MARKERS

    found = []
    for name, markers in _MARKERS:
        hits = [p for p in (text.find(m, start) for m in markers) if p != -1]
        if hits:
            found.append((name, min(hits)))
    return found


def _marker_pieces() -> list[str]:
    from ek.parsing.api import _MARKERS

    return sorted({piece for _name, ms in _MARKERS for m in ms for piece in (m, m[:2], m[1:], m[:-1])})


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from([*_marker_pieces(), "<", "x", " ", "\n"]), max_size=6).map("".join),
       st.integers(0, 4))
def test_markers_are_looked_for_only_where_their_first_two_characters_are(text: str, start: int) -> None:
    from ek.parsing.api import _MARKERS, _marker_hits

    assert _marker_hits(text, start, _MARKERS) == _every_marker_looked_for(text, start) + [
        hit for hit in _marker_hits(text, start, ()) if hit[0] == "phi4"]


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from([*_marker_pieces(), "<", "x", " ", "\n"]), max_size=6).map("".join),
       st.integers(0, 4), st.integers(0, 2))
def test_markers_found_by_the_walk_over_angle_brackets_or_past_its_limit_alike(text: str, start: int,
                                                                               where: int) -> None:
    # A text past _ANGLE_WALK_LIMIT's '<' takes the heads' way; below it, the walk: both find every marker.
    from ek.parsing.api import _ANGLE_WALK_LIMIT, _MARKERS, _marker_hits

    padding = "a < b " * (_ANGLE_WALK_LIMIT + 1)
    for padded in (padding + text, text + padding, padding[:len(padding) // 2] + text + padding):
        expected = _every_marker_looked_for(padded, start) + [
            hit for hit in _marker_hits(padded, start, ()) if hit[0] == "phi4"]
        assert _marker_hits(padded, start, _MARKERS) == expected, padded
    assert _marker_hits(text + " <" * where, start, _MARKERS) == _every_marker_looked_for(
        text + " <" * where, start) + [hit for hit in _marker_hits(text, start, ()) if hit[0] == "phi4"]


def test_marker_detection_fast_path_agrees_on_real_and_rendered_outputs() -> None:
    from ek.parsing.api import _MARKERS, _MARKERS_WITHOUT_ANGLE, _detect_all, _marker_hits, detect_text

    for text in _texts_for_detection():
        for start in (0, 1):
            assert detect_text(text, start) == _detect_all(text, start), text
            assert _marker_hits(text, start, _MARKERS) == _every_marker_looked_for(text, start) + [
                hit for hit in _marker_hits(text, start, ()) if hit[0] == "phi4"], text
    assert {name for name, _ in _MARKERS_WITHOUT_ANGLE} == {"mistral"}  # the rest all hold a '<'
    assert all("<" in m for name, ms in _MARKERS if name != "mistral" for m in ms)


#: An MCP client's session as JSON-RPC 2.0 messages, in the shapes of the MCP specification's examples (its
#: tools page's tools/call request for get_weather; initialize, the initialized notification and tools/list
#: around it; each request's response).
MCP_SESSION = [
    {"jsonrpc": "2.0", "id": 0, "method": "initialize",
     "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "c", "version": "1"}}},
    {"jsonrpc": "2.0", "id": 0, "result": {"protocolVersion": "2025-06-18", "capabilities": {"tools": {}}}},
    {"jsonrpc": "2.0", "method": "notifications/initialized"},
    {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}},
    {"jsonrpc": "2.0", "id": 2, "method": "tools/call",
     "params": {"name": "get_weather", "arguments": {"location": "New York"}}},
    {"jsonrpc": "2.0", "id": 2, "result": {"content": [{"type": "text", "text": "72F, sunny"}], "isError": False}},
    {"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "list_alerts", "_meta": {"progressToken": 1}}},
    {"jsonrpc": "2.0", "id": 3, "error": {"code": -32602, "message": "Unknown tool"}},
]


def test_mcp_tools_call_requests_are_the_calls_of_a_session() -> None:
    """They were 'unrecognised object' errors: a log of MCP traffic could not be scored."""
    from ek.parsing.coerce import coerce_call

    calls = [Step("get_weather", {"location": "New York"}), Step("list_alerts", {})]
    for fmt in ("mcp", "auto"):
        assert parse_calls(MCP_SESSION, fmt) == calls
        assert parse_calls(json.dumps(MCP_SESSION), fmt) == calls
        assert parse_calls(MCP_SESSION[4], fmt) == calls[:1]
        assert parse_calls(MCP_SESSION[3], fmt) == []  # another method: no call
    assert coerce_call(MCP_SESSION[4], "gold") == calls[0]
    with pytest.raises(TypeError, match="an MCP message other than a tools/call request"):
        coerce_call(MCP_SESSION[3], "gold")


@pytest.mark.parametrize(("message", "reason", "where"), [
    ({"jsonrpc": "2.0", "id": 1, "method": "tools/call"}, "expected an object, got NoneType", "$.params"),
    ({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"arguments": {}}}, "the tool name must be a string",
     "$.params.name"),
    ({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "f", "arguments": [1]}},
     "arguments must be an object", "$.params.arguments"),
    ({"name": "f", "arguments": {}}, "not an mcp call", "$"),
])
def test_a_malformed_mcp_message_says_where_and_why(message: dict[str, Any], reason: str, where: str) -> None:
    with pytest.raises(ParseError, match=re.escape(reason)) as info:
        parse_calls(message, "mcp")
    assert info.value.position == where


#: A Claude Code session log's records (~/.claude/projects/*.jsonl), in the shapes public readers of those files
#: test against: housekeeping records (summary, file-history-snapshot, system) among the user and assistant turns,
#: a tool result carried by a user record, a subagent's (sidechain) record.
CLAUDE_CODE = [
    {"type": "summary", "summary": "Fix the off-by-one", "leafUuid": "l1"},
    {"type": "file-history-snapshot", "messageId": "m0", "snapshot": {"trackedFileBackups": {}}, "isSnapshotUpdate": False},
    {"parentUuid": None, "isSidechain": False, "sessionId": "s1", "type": "user", "uuid": "u1",
     "message": {"role": "user", "content": "fix the off-by-one in a.py"}},
    {"parentUuid": "u1", "sessionId": "s1", "type": "assistant", "uuid": "a1",
     "message": {"id": "msg_1", "type": "message", "role": "assistant", "model": "claude-sonnet-4-5",
                 "content": [{"type": "thinking", "thinking": "read it first", "signature": "c2ln"},
                             {"type": "tool_use", "id": "toolu_1", "name": "Read", "input": {"file_path": "/p/a.py"}}],
                 "stop_reason": "tool_use"}},
    {"parentUuid": "a1", "sessionId": "s1", "type": "user", "uuid": "u2",
     "message": {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_1", "content": "x = 1"}]},
     "toolUseResult": {"type": "text"}},
    {"type": "system", "subtype": "api_error", "level": "error"},
    {"parentUuid": "u2", "isSidechain": True, "sessionId": "s1", "type": "assistant", "uuid": "a2",
     "message": {"role": "assistant", "content": [
         {"type": "tool_use", "id": "toolu_2", "name": "Edit",
          "input": {"file_path": "/p/a.py", "old_string": "x = 1", "new_string": "x = 2"}}]}},
    {"type": "assistant", "uuid": "a3", "message": {"role": "assistant", "content": [{"type": "text", "text": "Done."}]}},
]

#: A Codex rollout's records (~/.codex/sessions/**/rollout-*.jsonl), in the shapes of the tests of tools that read
#: them: session metadata, a turn context, response items (a message, a function call and its output, a custom
#: tool's apply_patch, a local shell call), events that repeat them.
CODEX = [
    {"timestamp": "2026-03-01T10:00:00.000Z", "type": "session_meta", "payload": {"id": "s1", "cwd": "/p"}},
    {"timestamp": "2026-03-01T10:00:01.000Z", "type": "turn_context", "payload": {"cwd": "/p", "model": "gpt-5-codex"}},
    {"timestamp": "2026-03-01T10:00:02.000Z", "type": "response_item",
     "payload": {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "add a cache"}]}},
    {"timestamp": "2026-03-01T10:00:03.000Z", "type": "response_item",
     "payload": {"type": "reasoning", "summary": [{"type": "summary_text", "text": "look first"}]}},
    {"timestamp": "2026-03-01T10:00:04.000Z", "type": "response_item",
     "payload": {"type": "function_call", "name": "shell", "call_id": "c1",
                 "arguments": '{"command":["bash","-lc","ls"],"workdir":"/p"}'}},
    {"timestamp": "2026-03-01T10:00:05.000Z", "type": "response_item",
     "payload": {"type": "function_call_output", "call_id": "c1", "output": '{"output":"a.py\\n"}'}},
    {"timestamp": "2026-03-01T10:00:06.000Z", "type": "event_msg", "payload": {"type": "agent_message", "message": "On it."}},
    {"timestamp": "2026-03-01T10:00:07.000Z", "type": "response_item",
     "payload": {"type": "custom_tool_call", "name": "apply_patch", "call_id": "c2",
                 "input": "*** Begin Patch\n*** Update File: api/cache.py\n@@\n*** End Patch"}},
    {"timestamp": "2026-03-01T10:00:08.000Z", "type": "response_item",
     "payload": {"type": "local_shell_call", "call_id": "c3", "status": "completed",
                 "action": {"type": "exec", "command": ["pwd"]}}},
]


def test_coding_agents_session_logs_read_as_their_calls() -> None:
    """Claude Code's session records and Codex's rollout records were errors (a user record's tool_result, an
    'unrecognised object'), so a coding agent's session could not be scored."""
    claude = [Step("Read", {"file_path": "/p/a.py"}),
              Step("Edit", {"file_path": "/p/a.py", "old_string": "x = 1", "new_string": "x = 2"})]
    for fmt in ("auto", "anthropic"):
        assert parse_calls(CLAUDE_CODE, fmt) == claude
        assert parse_calls(json.dumps(CLAUDE_CODE), fmt) == claude
    codex = [Step("shell", {"command": ["bash", "-lc", "ls"], "workdir": "/p"}),
             Step("apply_patch", {"input": "*** Begin Patch\n*** Update File: api/cache.py\n@@\n*** End Patch"}),
             Step("local_shell", {"type": "exec", "command": ["pwd"]})]
    for fmt in ("auto", "openai"):
        assert parse_calls(CODEX, fmt) == codex
        assert parse_calls(json.dumps(CODEX), fmt) == codex


def test_a_malformed_call_in_a_session_log_says_where() -> None:
    broken = [*CLAUDE_CODE[:3], {"type": "assistant", "message": {"role": "assistant", "content": [
        {"type": "tool_use", "id": "t", "name": "Read"}]}}]
    with pytest.raises(ParseError, match="a tool_use block needs an 'input' object") as info:
        parse_calls(broken)
    assert info.value.position == "$[3].message.content[0]"
    broken = [*CODEX[:3], {"type": "response_item", "payload": {"type": "function_call", "name": "shell",
                                                               "arguments": "{"}}]
    with pytest.raises(ParseError, match="invalid JSON") as info:
        parse_calls(broken)
    assert str(info.value.position).startswith("$[3].payload.arguments")


# --------------------------------------------------------------------------- markup of a syntax no format reads

# Real completions of families ek had no reader for when this was written (each a call that auto read as prose,
# i.e. no call): the markup finder must see each one; tests of their readers, where ek has one, are elsewhere
# (Step-3, MiniCPM and dots: test_parse_invoke.py; MiniMax-M2: test_parse_minimax.py; Kimi-K3: test_parse_kimi_k3.py).
UNREAD_MARKUP = [
    # vLLM tests/tool_parsers/test_step3_tool_parser.py
    '<｜tool_calls_begin｜><｜tool_call_begin｜>function<｜tool_sep｜><steptml:invoke name="get_weather">'
    '<steptml:parameter name="city">Tokyo</steptml:parameter></steptml:invoke><｜tool_call_end｜><｜tool_calls_end｜>',
    # vLLM tests/tool_parsers/test_minimax_m2_tool_parser.py
    '<minimax:tool_call>\n<invoke name="get_weather">\n<parameter name="city">Seattle</parameter>\n</invoke>\n'
    '</minimax:tool_call>',
    # vLLM tests/tool_parsers/test_minicpm5xml_tool_parser.py (the tokenizer may drop the space: <functionname=)
    '<function name="get_weather"><param name="city">Beijing</param></function>',
    '<functionname="get_weather"><paramname="city">Beijing</param></function>',
    # vLLM tests/tool_parsers/test_solar_open2_tool_parser.py
    "I'll check.<|tool_call:start|>get_weather\n<|tool_arg:start|>city<|tool_arg:value|>Seoul<|tool_arg:end|>\n"
    "<|tool_call:end|>",
    # vLLM tests/tool_parsers/test_k2_horizon_tool_parser.py
    "Before <ifm|tool_calls><ifm|tool_call>lookup<ifm|arg_key>query</ifm|arg_key><ifm|arg_value>12"
    "</ifm|arg_value></ifm|tool_call></ifm|tool_calls>",
    # vLLM tests/tool_parsers/test_dots_tool_parser.py
    '<dots_function_call><invoke name="get_weather"><parameter name="city">Paris</parameter></invoke>'
    "</dots_function_call>",
    # vLLM tests/tool_parsers/test_hy_v4_tool_parser.py
    "sure!<tool_calls:opensource><tool_call:opensource>get_weather<arg_key:opensource>city</arg_key:opensource>"
    "<arg_value:opensource>北京</arg_value:opensource></tool_call:opensource></tool_calls:opensource>",
    # SGLang test/registered/function_call/test_kimik3_detector.py
    '<|open|>tools<|sep|><|open|>call tool="python" index="1"<|sep|><|open|>argument key="code" type="string"<|sep|>'
    "print(1)<|close|>argument<|sep|><|close|>call<|sep|><|close|>tools<|sep|>",
]


@pytest.mark.parametrize("text", UNREAD_MARKUP)
def test_tool_call_markup_of_every_family_is_seen(text: str) -> None:
    from ek.parsing.prose import tool_markup

    found = tool_markup(text)
    assert found is not None and found.start() == text.index("<")


@pytest.mark.parametrize("text", [
    '<acme:tool_call>\n<invoke name="get_weather">\n<parameter name="city">Paris</parameter>\n</invoke>\n'
    "</acme:tool_call>",
    'Checking now. <acme_function_call name="get_weather" city="Paris"/>',
    '<|acme_tool_call|>get_weather\ncity: Paris<|acme_tool_call_end|>',
    # Meta CWM, as vLLM's cwm parser (vllm/tool_parsers/cwm_tool_parser.py) reads it: auto took it for no call
    '<think>...</think>\n<tool: function>\nterminal find . -name "*.py" | xargs grep -n "def bulk_create"\n</tool>',
])
def test_auto_never_reads_markup_it_has_no_reader_for_as_no_call(text: str) -> None:
    with pytest.raises(ParseError, match="tool-call markup that no ek format reads") as info:
        parse_calls(text)
    markup = text.index("<", text.find("</think>") + 1)  # after CWM's reasoning
    assert info.value.position == line_col(text, markup) and not info.value.cut_short


def test_a_json_call_beside_markup_no_format_reads_is_not_half_the_output() -> None:
    # dots mixes XML and JSON calls in one reply (vLLM tests/tool_parsers/test_dots_tool_parser.py); ek read the
    # JSON call and dropped the others without a word
    text = ('<acme_call><invoke name="f"><parameter name="x">1</parameter></invoke></acme_call>\n'
            '<acme_call>{"name": "g", "arguments": {}}</acme_call>')
    with pytest.raises(ParseError, match="tool-call markup that no ek format reads") as info:
        parse_calls(text)
    assert info.value.position == (1, 12)


@pytest.mark.parametrize("text", [
    "I can't help with that: 2 < 3, and a<b is not a tool_call.",
    "No tool is needed; the <b>answer</b> is 42.",
    "Use the SDK's invoke method, or call tools yourself.",
    "<think>should I invoke a tool?</think>No need: it is sunny.",
])
def test_prose_that_mentions_tools_is_still_no_call(text: str) -> None:
    assert parse_calls(text) == []


# Keys that tell a shape in shapes.classify (and its fast path's own), values of each JSON kind.
_SHAPE_KEYS = ["name", "arguments", "parameters", "args", "input", "type", "function", "role", "content", "output",
               "message", "messages", "tool_calls", "function_call", "functionCall", "toolUse", "parts", "choices",
               "candidates", "jsonrpc", "lc", "id", "kwargs", "data", "object", "x"]
_SHAPE_VALUES = st.sampled_from(["f", "", "2.0", "ai", "tool_use", "function_call", "constructor", "response", 1,
                                 None, True, [], [{"type": "function_call"}], {}, {"name": "f"}, {"args": {}},
                                 {"message": {}}, ["AIMessage"]])


@settings(max_examples=600, deadline=None)
@given(st.dictionaries(st.sampled_from(_SHAPE_KEYS), _SHAPE_VALUES, max_size=4))
def test_a_name_and_arguments_object_is_classified_as_the_full_search_classifies_it(obj: dict) -> None:
    from ek.parsing.shapes import _classify_shape, classify

    assert classify(obj) == _classify_shape(obj)


@pytest.mark.parametrize("key", ["arguments", "parameters", "args", "input"])
def test_the_fast_path_of_classify_is_taken_by_a_name_and_its_arguments(key: str) -> None:
    from ek.parsing.shapes import _classify_shape, classify

    obj = {"name": "f", key: {"x": 1}}
    assert classify(obj) == _classify_shape(obj) == "generic"


# --------------------------------------------------------------------------- a <tool_call> block's fast path

_BLOCK_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**70), 2**70) | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=5),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=3), inner, max_size=3),
    max_leaves=8)
_BLOCK_KEYS = st.sampled_from(["name", "arguments", "parameters", "args", "input", "function", "type", "id", "x"])


@st.composite
def _blocks(draw: st.DrawFn) -> str:
    """A <tool_call> block's text: mostly {"name", "arguments"} objects, with near misses (another key, a name
    that is no name, arguments as JSON text or not an object, a key twice, spaces, a fence, a list)."""
    obj = {"name": draw(st.sampled_from(["f", "get_weather", "", 1, None, ["f"]]))}
    key = draw(st.sampled_from(["arguments", "parameters", "args", "input", "x"]))
    args = draw(st.dictionaries(st.text(max_size=4), _BLOCK_VALUES, max_size=4) | _BLOCK_VALUES)
    obj[key] = json.dumps(args) if draw(st.integers(0, 4)) == 0 else args
    obj.update(draw(st.dictionaries(_BLOCK_KEYS, _BLOCK_VALUES, max_size=1)))
    text = json.dumps(obj, ensure_ascii=draw(st.booleans()))
    kind = draw(st.integers(0, 9))
    if kind == 0:
        text = text.replace('"name"', '"name": "g", "name"', 1)  # a key given twice
    elif kind == 1:
        text = "```json\n" + text + "\n```"
    elif kind == 2:
        text = "[" + text + "]"
    elif kind == 3:
        text = text[:-1]  # cut short
    return draw(st.sampled_from(["", "\n", " "])) + text + draw(st.sampled_from(["", "\n", " \n"]))


def _read(fn: Any) -> Any:
    try:
        return fn()
    except ParseError as error:
        return error


@settings(max_examples=1500, deadline=None)
@given(_blocks())
def test_a_tool_call_blocks_fast_path_reads_as_the_reader_reads_it(block: str) -> None:
    from ek.parsing import json_text
    from ek.parsing.api import _plain_json_call, from_object
    from ek.parsing.limits import DEFAULT_LIMITS

    fast = _plain_json_call(block.strip(), DEFAULT_LIMITS)
    if fast is not None:
        for fmt, decoded_as in (("hermes", "auto"), ("auto", "auto"), ("json", "json")):  # the readers' ways
            read = _read(lambda: from_object(json_text.loads(block, DEFAULT_LIMITS, fmt), decoded_as, DEFAULT_LIMITS))
            assert repr(fast) == repr(read), (block, fmt)
    # whole outputs, through whichever way each takes
    for text, fmt in ((f"<tool_call>{block}</tool_call>", "auto"), (f"<tool_call>{block}</tool_call>", "hermes"),
                      (block, "auto"), (block, "json"), (f"Sure: <tool_call>{block}</tool_call>", "auto")):
        assert repr(_read(lambda: parse_calls(text, fmt))) == repr(_read(lambda: _without_json_fast_path(text, fmt)))


def _without_json_fast_path(text: str, fmt: str) -> Any:
    from unittest import mock

    with mock.patch("ek.parsing.api._plain_json_call", lambda text, limits: None):
        return parse_calls(text, fmt)


@pytest.mark.parametrize("block", ['{"name": "f", "arguments": {"x": 1}}',
                                   '\n{"name": "f", "parameters": "{\\"x\\": 1}"}\n',
                                   '{"name": "f", "input": {"x": [1, {"y": null}]}}'])
def test_plain_blocks_take_the_fast_path(block: str) -> None:
    from ek.parsing.api import _plain_json_call
    from ek.parsing.limits import DEFAULT_LIMITS

    assert _plain_json_call(block.strip(), DEFAULT_LIMITS) == parse_calls(f"<tool_call>{block}</tool_call>") \
        == parse_calls(block) == parse_calls(block, "json")


@pytest.mark.parametrize("args", [{"x": {1, 2}}, {"x": float("nan")}, {1: "x"}, {"x": (1,)}, {"x": 10**5000}])
def test_a_decoded_call_whose_arguments_are_not_plain_json_leaves_the_fast_path(args: dict) -> None:
    from ek.parsing.limits import DEFAULT_LIMITS
    from ek.parsing.shapes import plain_generic_call

    assert plain_generic_call({"name": "f", "arguments": args}, DEFAULT_LIMITS) is None
    assert plain_generic_call({"name": "f", "arguments": {"x": 1}}, DEFAULT_LIMITS) is not None


@pytest.mark.parametrize("fmt", ["openai", "anthropic", "gemini", "mcp", "bedrock", "langchain", "ollama"])
def test_a_named_api_format_refuses_a_bare_name_and_arguments_object(fmt: str) -> None:
    # Only auto, json and hermes read {"name", "arguments"}; a format named for an API reads that API's shapes
    # (the JSON call fast path is theirs alone).
    with pytest.raises(ParseError, match=f"not an? {fmt} (tool )?call"):
        parse_calls('{"name": "f", "arguments": {"x": 1}}', fmt)
    assert parse_calls('{"name": "f", "arguments": {"x": 1}}', "json") == [Step("f", {"x": 1})]
