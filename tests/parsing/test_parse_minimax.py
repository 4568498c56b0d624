"""MiniMax-M2's ``<minimax:tool_call>`` calls (format ``minimax-m2``): what it reads beyond the real completions of
tests/data/formats (test_parse_native_formats.py reads those), how values are typed, what is refused (where and
why), what is cut short, how ``auto`` finds it, and that rendering reads back with the format's tags in strings."""

from __future__ import annotations

import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ek.calls import Step
from ek.parsing import ParseError, format_names, parse_calls, render
from ek.parsing.render import to_minimax_m2, to_minimax_m3
from ek.scorer.metric import ToolCallMetric


def invoke(name: str, *params: tuple[str, str]) -> str:
    """One ``<invoke>`` as MiniMax's chat template writes it."""
    return f'<invoke name="{name}">\n' + "".join(f'<parameter name="{k}">{v}</parameter>\n' for k, v in params) \
        + "</invoke>\n"


def block(*invokes: str) -> str:
    return "<minimax:tool_call>\n" + "".join(invokes) + "</minimax:tool_call>"


# --------------------------------------------------------------------------- values


def test_values_are_typed_by_the_grammar_hint_else_read_as_json_when_they_are() -> None:
    text = block(invoke("f", ("n", "3"), ("zip", "02139"), ("on", "True"), ("tags", '["a", "b"]'), ("x", "null")))
    kinds = {"n": "integer", "zip": "string", "on": "boolean", "tags": "array", "x": "string"}
    assert parse_calls(text, "minimax-m2", types=lambda tool, arg: kinds[arg]) == [
        Step("f", {"n": 3, "zip": "02139", "on": True, "tags": ["a", "b"], "x": "null"})]
    # no hint: the template writes every non-string value as JSON (tojson), so JSON text is that value
    assert parse_calls(text, "minimax-m2") == [Step("f", {"n": 3, "zip": "02139", "on": "True", "tags": ["a", "b"],
                                                          "x": None})]
    assert parse_calls(text, "minimax-m2", types=lambda tool, arg: "string") == [
        Step("f", {"n": "3", "zip": "02139", "on": "True", "tags": '["a", "b"]', "x": "null"})]


def test_the_hint_is_asked_with_the_tool_and_argument_names() -> None:
    asked: list[tuple[str, str]] = []
    text = block(invoke("get_weather", ("city", "Paris")), invoke("search", ("q", "cats")))
    parse_calls(text, "minimax-m2", types=lambda tool, arg: asked.append((tool, arg)))
    assert asked == [("get_weather", "city"), ("search", "q")]


def test_whitespace_around_a_value_is_dropped_inside_it_kept() -> None:
    # vLLM's parser and MiniMax's guide strip a value; SGLang strips its newlines only
    text = block(invoke("write", ("path", "\n  a.py \n"), ("body", "\ndef f():\n    return 1\n\n")))
    assert parse_calls(text, "minimax-m2") == [Step("write", {"path": "a.py", "body": "def f():\n    return 1"})]
    assert parse_calls(text, "minimax-m2", types=lambda tool, arg: "string") == parse_calls(text, "minimax-m2")


def test_json_looking_text_that_is_not_json_is_text_and_the_scorer_judges_it() -> None:
    assert parse_calls(block(invoke("f", ("x", '{"a": 1'), ("y", "[1, 2"))), "minimax-m2") == [
        Step("f", {"x": '{"a": 1', "y": "[1, 2"})]


def test_values_may_hold_markup_and_angle_brackets() -> None:
    text = block(invoke("html", ("s", "<b>1 < 2</b> & <parameter>"), ("t", "a <invoke b")))
    assert parse_calls(text, "minimax-m2") == [Step("html", {"s": "<b>1 < 2</b> & <parameter>", "t": "a <invoke b"})]


def test_names_in_single_quotes_or_unquoted_are_read_as_vllm_and_minimax_guide_read_them() -> None:
    text = "<minimax:tool_call><invoke name='f'><parameter name=x>1</parameter><parameter name=\" y \">2</parameter>" \
           "</invoke><invoke  name=g ></invoke></minimax:tool_call>"
    assert parse_calls(text, "minimax-m2") == [Step("f", {"x": 1, "y": 2}), Step("g", {})]


# --------------------------------------------------------------------------- calls, blocks, prose, think


def test_several_invokes_and_several_blocks_are_every_call_in_order() -> None:
    text = ("<think>two cities, then a search</think>\n\nLet me look.\n"
            + block(invoke("get_weather", ("city", "Paris")), invoke("get_weather", ("city", "Rome")))
            + "\nAnd now the search.\n" + block(invoke("search", ("q", "cats"))) + "\nDone.[e~[")
    expected = [Step("get_weather", {"city": "Paris"}), Step("get_weather", {"city": "Rome"}),
                Step("search", {"q": "cats"})]
    assert parse_calls(text, "minimax-m2") == parse_calls(text) == expected


def test_a_call_inside_the_thought_is_not_a_call() -> None:
    thought = "I could write " + block(invoke("wrong", ("x", "1")))
    text = f"<think>{thought}</think>" + block(invoke("right", ("x", "2")))
    assert parse_calls(text, "minimax-m2") == parse_calls(text) == [Step("right", {"x": 2})]
    # the prompt opened <think>: the completion starts inside it
    assert parse_calls(thought + "</think>\n\n" + block(invoke("right")), "minimax-m2") == [Step("right", {})]


def test_prose_alone_an_empty_block_and_an_invoke_without_parameters() -> None:
    assert parse_calls("No tool is needed: it is 4.", "minimax-m2") == []
    assert parse_calls("", "minimax-m2") == []
    assert parse_calls("<minimax:tool_call>\n</minimax:tool_call>", "minimax-m2") == []
    assert parse_calls(block(invoke("get_time")), "minimax-m2") == parse_calls(block(invoke("get_time"))) == [
        Step("get_time", {})]


def test_a_whole_output_in_a_code_fence_is_read_inside_it() -> None:
    text = "```xml\n" + block(invoke("f", ("a", "1"))) + "\n```"
    assert parse_calls(text, "minimax-m2") == [Step("f", {"a": 1})]


# --------------------------------------------------------------------------- refusals, at their place


@pytest.mark.parametrize(("text", "where", "fragment"), [
    (block(invoke("f", ("a", "1"), ("a", "2"))), (4, 1), "parameter 'a' given twice"),
    (block('<invoke name="f">\n<parameter name="a">x </parameter> y</parameter>\n</invoke>\n'), (3, 36),
     'expected <parameter name="..."> or </invoke>'),
    (block('<invoke name="f">\n<parameter name="a">1\n</invoke>\n'), (4, 1),
     "</invoke> inside parameter 'a' (opened at line 3, column 1): expected </parameter> before it"),
    (block('<invoke name="f">\n<parameter name="a">1\n<parameter name="b">2</parameter>\n</invoke>\n'), (4, 1),
     "<parameter inside parameter 'a'"),
    (block('<invoke name="f">\nq=1\n</invoke>\n'), (3, 1), 'expected <parameter name="..."> or </invoke>'),
    (block('<invoke name="f">\n</invoke>\nstray words\n'), (4, 1), 'expected <invoke name="..."> or '
                                                                     "</minimax:tool_call>"),
    (block('<invoke name="f" id="1">\n</invoke>\n'), (2, 18), "expected '>' after the invoke name 'f'"),
    (block('<invoke function="f">\n</invoke>\n'), (2, 9), 'expected name="..." in the <invoke> tag'),
    (block('<invoke name="">\n</invoke>\n'), (2, 1), "an invoke without a name"),
    (block('<invoke name="f">\n<parameter name=\'\'>1</parameter>\n</invoke>\n'), (3, 1),
     "a parameter without a name"),
    (block('<invoke name="f\n">\n</invoke>\n'), (2, 16), 'the invoke name is not closed by "'),
    (block('<invoke name=f"x">\n</invoke>\n'), (2, 15), 'expected the invoke name written name="..."'),
    (block("<invoker>\n</invoker>\n"), (2, 1), 'expected <invoke name="..."> or </minimax:tool_call>'),
    (block(invoke("f")) + '\nthen <invoke name="g"></invoke>', (5, 6), "an invoke outside <minimax:tool_call>"),
    ("Done.</minimax:tool_call>", (1, 6), "</minimax:tool_call> without an opening <minimax:tool_call>"),
])
def test_broken_output_names_where_and_why(text: str, where: tuple[int, int], fragment: str) -> None:
    for how in ("minimax-m2", "auto"):
        with pytest.raises(ParseError) as info:
            parse_calls(text, how)
        error = info.value
        assert error.format == "minimax-m2" and error.position == where and not error.cut_short, str(error)
        assert fragment in error.reason


def test_positions_count_the_thought_and_the_prose_before_the_block() -> None:
    text = "<think>\nhm\n</think>\nOK.\n" + block(invoke("f", ("a", "1"), ("a", "2")))
    for how in ("minimax-m2", "auto"):
        with pytest.raises(ParseError) as info:
            parse_calls(text, how)
        assert info.value.position == (8, 1)


def test_values_too_deep_or_too_big_are_refused_by_the_limits() -> None:
    with pytest.raises(ParseError, match="max_size"):
        parse_calls(block(invoke("f", ("x", "a" * 200))), "minimax-m2", max_size=100)
    with pytest.raises(ParseError, match="nesting deeper") as info:
        parse_calls(block(invoke("f", ("x", "[" * 50 + "]" * 50))), "minimax-m2", max_depth=10)
    assert info.value.position == (3, 21)  # where the value starts


# --------------------------------------------------------------------------- cut short


WHOLE = "OK.\n" + block(invoke("get_weather", ("city", "Paris"), ("days", "3")), invoke("search", ("q", "cats")))


@pytest.mark.parametrize("cut", range(len("OK.\n<minimax:tool_call>"), len(WHOLE)))
def test_every_prefix_that_stops_inside_the_block_is_cut_short(cut: int) -> None:
    for how in ("minimax-m2", "auto"):
        with pytest.raises(ParseError) as info:
            parse_calls(WHOLE[:cut], how)
        assert info.value.cut_short and "cut short" in str(info.value), (WHOLE[:cut], str(info.value))
    assert parse_calls(WHOLE) == [Step("get_weather", {"city": "Paris", "days": 3}), Step("search", {"q": "cats"})]


def test_a_cut_short_output_is_reported_so_by_the_scorer() -> None:
    result = ToolCallMetric()(WHOLE[:WHOLE.index("Paris")], [("get_weather", {"city": "Paris", "days": 3})])
    assert result.explanation.cut_short and "cut short" in result.explanation.parse_error


def test_a_garbled_but_finished_output_is_not_cut_short() -> None:
    with pytest.raises(ParseError) as info:
        parse_calls(block(invoke("f", ("a", "1"))).replace("</invoke>", "</invok>"), "minimax-m2")
    assert not info.value.cut_short and "cut short" not in str(info.value)


# --------------------------------------------------------------------------- auto


def test_auto_finds_the_format_by_its_block_and_names_it_in_errors() -> None:
    text = "Checking.\n" + block(invoke("f", ("a", "[1, 2]")))
    assert parse_calls(text) == parse_calls(text, "minimax-m2") == [Step("f", {"a": [1, 2]})]
    with pytest.raises(ParseError) as info:
        parse_calls(text.replace("</minimax:tool_call>", ""))
    assert info.value.format == "minimax-m2" and info.value.cut_short


def test_auto_without_the_block_does_not_take_text_for_minimax() -> None:
    # Anthropic's old <function_calls>/<invoke> markup, with no MiniMax tag: not minimax-m2's to read, and not prose
    # either (a call in a syntax no format reads is never read as no call)
    text = 'I would write <invoke name="f"> here.'
    with pytest.raises(ParseError, match="tool-call markup that no ek format reads") as info:
        parse_calls(text)
    assert info.value.format == "auto" and info.value.position == (1, 15)
    with pytest.raises(ParseError, match="an invoke outside"):
        parse_calls(text, "minimax-m2")


@pytest.mark.parametrize(("other", "name"), [
    ('<tool_call>{"name": "g", "arguments": {}}</tool_call>', "hermes"),
    ("[TOOL_CALLS]g[ARGS]{}", "mistral"),
    ("<tool_call>g<arg_key>a</arg_key><arg_value>1</arg_value></tool_call>", "glm45"),
])
def test_minimax_and_another_formats_markers_are_an_ambiguity_error(other: str, name: str) -> None:
    text = block(invoke("f")) + "\n" + other
    with pytest.raises(ParseError, match=f"two readings are possible: .*minimax-m2.* and {name}|"
                                         f"two readings are possible: {name} .* and minimax-m2"):
        parse_calls(text)
    assert parse_calls(text, "minimax-m2") == [Step("f", {})]


def test_the_format_is_listed_among_the_text_formats() -> None:
    from ek.parsing.api import TEXT_FORMATS

    assert "minimax-m2" in format_names() and "minimax-m2" in TEXT_FORMATS


# --------------------------------------------------------------------------- render


DELIMITERS = ["</parameter>", "</invoke>", '<invoke name="x">', '<parameter name="y">', "<minimax:tool_call>",
              "</minimax:tool_call>", "<think>", "</think>", "3", "true", "null", '"q"', " padded ", "\n", "a<b",
              "\\u003c", "[e~["]


def test_render_writes_what_the_template_writes() -> None:
    assert render([Step("get_weather", {"city": "Paris", "days": 3, "opts": {"unit": "C"}}), Step("now", {})],
                  "minimax-m2") == (
        '<minimax:tool_call>\n<invoke name="get_weather">\n<parameter name="city">Paris</parameter>\n'
        '<parameter name="days">3</parameter>\n<parameter name="opts">{"unit": "C"}</parameter>\n</invoke>\n'
        '<invoke name="now">\n</invoke>\n</minimax:tool_call>')
    assert render([], "minimax-m2") == ""


def test_render_then_read_back_with_the_formats_tags_in_strings() -> None:
    calls = [Step("f", {"s": d, "n": 3, "l": [d, 1.5, None], "o": {"k": d}}) for d in DELIMITERS] + [Step("g", {})]
    text = to_minimax_m2(calls)
    assert parse_calls(text, "minimax-m2") == parse_calls(text) == calls


@pytest.mark.parametrize("name", ['a"b', "a<b", "a>b", "a\nb", " a", ""])
def test_render_refuses_names_the_format_cannot_hold(name: str) -> None:
    with pytest.raises(ValueError, match="cannot be written as a MiniMax attribute"):
        to_minimax_m2([Step(name, {})])
    with pytest.raises(ValueError, match="cannot be written as a MiniMax attribute"):
        to_minimax_m2([Step("f", {name: 1})])


values = st.recursive(st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False)
                      | st.text(max_size=12) | st.sampled_from(DELIMITERS),
                      lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner,
                                                                                   max_size=3), max_leaves=8)
names = st.from_regex(r"[A-Za-z_][A-Za-z0-9_.:-]{0,8}", fullmatch=True)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.builds(Step, names, st.dictionaries(names, values, max_size=4)), max_size=3))
def test_render_then_read_is_the_identity(calls: list[Step]) -> None:
    from ek.parsing.api import detect_text

    text = to_minimax_m2(calls)
    assert parse_calls(text, "minimax-m2") == calls
    if {name for name, _ in detect_text(text)} <= {"minimax-m2"}:  # a value holding another format's marker
        assert parse_calls(text) == calls  # ([TOOL_CALLS]) makes auto ask which format is meant, by design


# --------------------------------------------------------------------------- hostile


@pytest.mark.parametrize("text", [
    "<minimax:tool_call>" + '<invoke name="f">' * 50_000,
    '<minimax:tool_call><invoke name="f">' + '<parameter name="a">' * 30_000,
    '<minimax:tool_call><invoke name="f"><parameter name="a">' + "[" * 100_000
    + "</parameter></invoke></minimax:tool_call>",
    '<minimax:tool_call><invoke name="' + "a" * 500_000,
    "<minimax:tool_call><invoke name=" + "a" * 500_000,
    "<minimax:tool_call></minimax:tool_call>" * 30_000 + '<invoke name="f">',
    '<minimax:tool_call><invoke name="f"><parameter name="a">1</parameter>' * 20_000,
    "<minimax:tool_call>" + " " * 500_000,
])
def test_hostile_outputs_are_decided_quickly(text: str) -> None:
    started = time.perf_counter()
    for how in ("minimax-m2", "auto"):
        try:
            parse_calls(text, how, max_size=len(text) + 1)
        except ParseError:
            pass
    assert time.perf_counter() - started < 5


# =========================================================================== MiniMax-M3 (format minimax-m3)

NS = "]<]minimax[>["


def m3(*invokes: str) -> str:
    """A MiniMax-M3 block as its template writes it: the token before every tag, one invoke a line."""
    return f"{NS}<tool_call>\n" + "\n".join(invokes) + f"\n{NS}</tool_call>"


def m3_invoke(name: str, body: str = "") -> str:
    return f'{NS}<invoke name="{name}">{body}{NS}</invoke>'


def el(key: str, body: str) -> str:
    return f"{NS}<{key}>{body}{NS}</{key}>"


def m3_error(text: str) -> ParseError:
    with pytest.raises(ParseError) as info:
        parse_calls(text, "minimax-m3")
    for how in ("auto",):  # auto finds the family by its token and says the same
        with pytest.raises(ParseError) as other:
            parse_calls(text, how)
        assert other.value.reason == info.value.reason and other.value.format == "minimax-m3"
    return info.value


def test_m3_values_nest_as_the_template_writes_them() -> None:
    body = el("shipping", el("city", "Singapore") + el("zip", "018956")) + el(
        "items", el("item", el("sku", "b") + el("qty", "2")) + el("item", el("sku", "p") + el("qty", "5"))) + el(
        "tags", el("item", "red") + el("item", "blue")) + el("matrix", el("item", el("item", "1")))
    assert parse_calls(m3(m3_invoke("f", body)), "minimax-m3") == [Step("f", {
        "shipping": {"city": "Singapore", "zip": "018956"},  # not JSON (a leading 0): the string, as written
        "items": [{"sku": "b", "qty": 2}, {"sku": "p", "qty": 5}], "tags": ["red", "blue"], "matrix": [[1]]})]


def test_m3_a_hint_types_top_level_values_only() -> None:
    body = el("zip", "018956") + el("n", "7") + el("s", "null") + el("e", "") + el("o", "") + el(
        "one", el("item", "x")) + el("l", el("x", "1") + el("y", "2")) + el("d", el("z", "3"))
    kinds = {"zip": "integer", "n": "string", "s": "string", "e": "array", "o": "object", "one": "object",
             "l": "array", "d": "object"}
    seen: list[tuple[str, str]] = []

    def hint(tool: str, arg: str) -> str:
        seen.append((tool, arg))
        return kinds[arg]

    assert parse_calls(m3(m3_invoke("f", body)), "minimax-m3", types=hint) == [Step("f", {
        "zip": "018956", "n": "7", "s": "null", "e": [], "o": {}, "one": {"item": "x"}, "l": [1, 2], "d": {"z": 3}})]
    assert ("f", "zip") in seen and all(arg in kinds for _, arg in seen)  # never asked about a nested key
    assert parse_calls(m3(m3_invoke("f", body)), "minimax-m3") == [Step("f", {
        "zip": "018956", "n": 7, "s": None, "e": "", "o": "", "one": ["x"], "l": {"x": 1, "y": 2}, "d": {"z": 3}})]


def test_m3_a_key_written_twice_inside_a_value_gathers_its_values_as_vllm_and_sglang_do() -> None:
    body = el("demo", el("tag", "a") + el("tag", "b") + el("tag", "c") + el("n", "1"))
    assert parse_calls(m3(m3_invoke("f", body)), "minimax-m3") == [Step("f", {"demo": {"tag": ["a", "b", "c"],
                                                                                        "n": 1}})]


def test_m3_whitespace_between_tags_goes_line_breaks_around_a_leaf_go_its_spaces_stay() -> None:
    body = f"\n{NS}<a>\n  x = 1\n{NS}</a>\n{NS}<b>\n  {el('c', '1')}\n{NS}</b>\n"
    assert parse_calls(m3(m3_invoke("f", body)), "minimax-m3") == [Step("f", {"a": "  x = 1", "b": {"c": 1}})]


def test_m3_reasoning_and_prose_are_skipped_a_call_in_the_thought_is_no_call() -> None:
    call = m3(m3_invoke("f", el("x", "1")))
    assert parse_calls(f"<mm:think>I will write {call}</mm:think>No call needed.", "minimax-m3") == []
    assert parse_calls(f"<mm:think>I will write {call}</mm:think>No call needed.") == []
    assert parse_calls(f"planning, started by the prompt</mm:think>On it. {call} Done.") == [Step("f", {"x": 1})]
    assert parse_calls("plain response", "minimax-m3") == []


@pytest.mark.parametrize(("text", "fragment"), [
    # SGLang reads these as the well-formed call (its "lenient closing tags"); vLLM refuses them: ek refuses them
    (m3(m3_invoke("get_weather", f"{NS}<city>Beijing{NS}</wrong>")), f"{NS}</wrong> inside parameter 'city'"),
    (m3(m3_invoke("get_weather", el("city", "Beijing") + f"{NS}</wrong>")), "expected ]<]minimax[>[<KEY>"),
    (m3(m3_invoke("e", f"{NS}<location>{el('city', 'B')}{NS}<zip>{NS}</location>")),
     f"{NS}</location> inside element 'zip'"),
    # SGLang reads a name= it can guess (<invoke name get_weather">); the template writes name="..."
    (m3(f'{NS}<invoke name get_weather">{el("city", "B")}{NS}</invoke>'), 'expected name="..."'),
    # vLLM keeps the parameters before prose in an invoke and drops the rest of it
    (m3(m3_invoke("get_weather", el("city", "Seattle") + "I need the city above." + el("days", "5"))),
     "expected ]<]minimax[>[<KEY> (a parameter)"),
    # vLLM keeps text beside child elements under a "$text" key
    (m3(m3_invoke("f", el("payload", "text before " + el("child", "v")))), "text beside the child elements"),
    (m3(m3_invoke("f", el("payload", el("child", "v") + " text after"))), "text beside the child elements"),
    # vLLM keeps the last value of a parameter given twice, SGLang makes a list of them
    (m3(m3_invoke("f", el("x", "1") + el("x", "2"))), "parameter 'x' given twice"),
    (m3(f"{NS}</user_id>"), 'expected ]<]minimax[>[<invoke name="...">'),
    (m3(m3_invoke("f", el("x", "1"))[:-len(f"{NS}</invoke>")] + m3_invoke("g")), "a new invoke inside"),
    (m3(m3_invoke("f", f"{NS}<x>1{NS}<invoke name=\"g\">{NS}</invoke>{NS}</x>")),
     f'{NS}<invoke name="g"> inside parameter'),
    (m3(m3_invoke("f", f"{NS}< x>1{NS}</ x>")), "surrounding spaces"),
    (m3(m3_invoke("f", f"{NS}<x\n>1{NS}</x>")), "is not closed by '>'"),
    (m3(m3_invoke("f", f"{NS}<x>1{NS}x{NS}</x>")), "not before a tag"),
    (f'Sure. {m3_invoke("f")}', f"{NS} outside {NS}<tool_call>"),
    (f"{m3(m3_invoke('f'))} then {NS}</tool_call>", f"{NS} outside {NS}<tool_call>"),
])
def test_m3_broken_output_is_refused_where_it_breaks(text: str, fragment: str) -> None:
    error = m3_error(text)
    assert fragment in error.reason and not error.cut_short
    assert isinstance(error.position, tuple)


def test_m3_elements_nested_past_max_depth_are_refused_without_recursion() -> None:
    deep = 200_000
    text = m3(m3_invoke("f", f"{NS}<a>" * deep + "1" + f"{NS}</a>" * deep))
    with pytest.raises(ParseError, match=r"elements nested deeper than \d+ \(limit max_depth"):
        parse_calls(text, "minimax-m3", max_size=len(text))
    shallow = m3(m3_invoke("f", f"{NS}<a>" * 3 + "1" + f"{NS}</a>" * 3))
    # {"a": {"a": {"a": 1}}} nests three objects deep, as JSON's brackets count it
    assert parse_calls(shallow, "minimax-m3", max_depth=3) == [Step("f", {"a": {"a": {"a": 1}}})]
    with pytest.raises(ParseError, match="nested deeper than 2"):
        parse_calls(shallow, "minimax-m3", max_depth=2)


def test_m3_a_stream_that_stops_inside_a_call_is_cut_short_never_the_calls_before_it() -> None:
    # vLLM's test_streaming_error_recovery_keeps_committed_tool_call_structured: vLLM keeps create_order(user_id=1)
    first = m3_invoke("create_order", el("user_id", "1"))
    text = f'plain {NS}<tool_call>\n{first}\n{NS}<invoke name="create_order">{NS}<user_id>2'
    assert m3_error(text).cut_short
    whole = m3(first, m3_invoke("g", el("a", el("item", "x"))))
    for cut in range(len(NS), len(whole)):  # a part of the token alone is prose, as for every format
        with pytest.raises(ParseError) as info:
            parse_calls(whole[:cut], "minimax-m3")
        assert info.value.cut_short, (cut, info.value)
    assert m3_error(f"plain {NS}<tool_ca").cut_short  # vLLM and SGLang return it as text


def test_m3_auto_takes_the_token_for_minimax_m3_not_for_hermes() -> None:
    text = m3(m3_invoke("get_weather", el("city", "Paris")))
    assert parse_calls(text) == [Step("get_weather", {"city": "Paris"})]
    assert m3_error(m3(m3_invoke("f", "oops"))).format == "minimax-m3"
    assert "minimax-m3" in format_names()


def test_m3_render_writes_what_the_template_writes_and_reads_back() -> None:
    calls = [Step("create_order", {"user_id": 1, "ok": True, "shipping": {"zip": "018956", "n": None},
                                   "items": [{"sku": "b"}], "empty": [], "d": {}, "item": {"item": 1},
                                   "odd": {"a b>": 1}, "s": "[TOOL_CALLS", "markup": f"x {NS}<y>"})]
    text = to_minimax_m3(calls)
    assert text.startswith(f'{NS}<tool_call>\n{NS}<invoke name="create_order">{NS}<user_id>1{NS}</user_id>'
                           f"{NS}<ok>true{NS}</ok>{NS}<shipping>{NS}<zip>018956{NS}</zip>")
    assert text.endswith(f"{NS}</invoke>\n{NS}</tool_call>")
    assert parse_calls(text, "minimax-m3") == calls == parse_calls(text)
    assert render(calls, "minimax-m3") == text and to_minimax_m3([]) == ""
    with pytest.raises(ValueError, match="cannot be written"):
        to_minimax_m3([Step("f", {"a>b": 1})])


@settings(max_examples=300, deadline=None)
@given(st.lists(st.builds(Step, st.sampled_from(["f", "get_weather"]), st.dictionaries(
    st.from_regex(r"[a-z_]{1,6}", fullmatch=True), st.recursive(
        st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False)
        | st.text(max_size=12),
        lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3),
        max_leaves=10), max_size=4)), max_size=3))
def test_m3_render_then_read_is_the_identity(calls: list[Step]) -> None:
    text = to_minimax_m3(calls)
    assert parse_calls(text, "minimax-m3") == calls
    assert parse_calls(text) == calls


@pytest.mark.parametrize("text", [
    NS * 100_000, f"{NS}<tool_call>" * 50_000, f"{NS}<tool_call>{NS}<invoke name=\"f\">" + f"{NS}<a>" * 100_000,
    f"{NS}<tool_call>{NS}<invoke name=\"f\">{NS}<a>" + f"{NS}<" * 100_000,
    f"{NS}<tool_call>{NS}<invoke name=\"f\">{NS}<a>" + f"{NS}<b>1{NS}</b>" * 50_000 + f"{NS}</a>" * 2,
])
def test_m3_hostile_outputs_are_decided_in_linear_time(text: str) -> None:
    began = time.perf_counter()
    try:
        parse_calls(text, "minimax-m3", max_size=len(text))
    except ParseError:
        pass
    assert time.perf_counter() - began < 5
