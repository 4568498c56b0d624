"""The key/value kin of GLM's format (ek.parsing.glm): Tencent Hy3/Hy4 (``hunyuan``), K2 Horizon / K2-V3
(``k2-horizon``) and Upstage Solar Open 2 (``solar-open2``). What each reads beyond the real completions of
tests/data/formats (suffixes, reasoning blocks, sections, ``arg_type``, K2's JSON dialect), how values are
typed, what is refused (where and why), how ``auto`` finds each, and that rendering reads back."""

from __future__ import annotations

import re
import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ek.calls import Step
from ek.parsing import ParseError, parse_calls, render
from ek.parsing.glm import HY3, HY4, K2_HORIZON, SOLAR_OPEN2, hunyuan
from ek.parsing.render import to_hunyuan, to_hunyuan_hy3, to_k2_horizon, to_solar_open2


def hy4(*calls: str, suffix: str = ":opensource", before: str = "") -> str:
    return f"{before}<tool_calls{suffix}>" + "".join(calls) + f"</tool_calls{suffix}>"


def hy4_call(name: str, *pairs: tuple[str, str], suffix: str = ":opensource") -> str:
    body = "".join(f"<arg_key{suffix}>{k}</arg_key{suffix}><arg_value{suffix}>{v}</arg_value{suffix}>"
                   for k, v in pairs)
    return f"<tool_call{suffix}>{name}{body}</tool_call{suffix}>"


def solar(name: str, *pairs: tuple[str, str]) -> str:
    body = "".join(f"<|tool_arg:start|>{k}<|tool_arg:value|>{v}<|tool_arg:end|>\n" for k, v in pairs)
    return f"<|tool_call:start|>{name}\n{body}<|tool_call:end|>"


# --------------------------------------------------------------------------- hunyuan: suffixes and Hy3


@pytest.mark.parametrize("suffix", [":opensource", ":6124c78e", ":a+b(c", ""])
def test_hunyuan_reads_any_vocabulary_suffix_in_auto_too(suffix: str) -> None:
    """vLLM's detect_token_suffix takes the suffix from the checkpoint's vocabulary (``:[^\\s>]+``: tests use
    ``:opensource`` and ``:a+b(c``, the docstring ``:6124c78e``); unsuffixed checkpoints write none."""
    text = hy4(hy4_call("get_weather", ("city", "北京"), ("days", "3"), suffix=suffix), suffix=suffix, before="ok ")
    expected = [Step("get_weather", {"city": "北京", "days": 3})]
    assert parse_calls(text, "hunyuan") == parse_calls(text) == expected


def test_unsuffixed_hy4_is_hunyuans_in_auto_and_glm45_reads_it_the_same() -> None:
    text = hy4(hy4_call("f", ("x", "1"), suffix=""), suffix="")
    assert parse_calls(text, "glm45") == parse_calls(text, "hunyuan") == [Step("f", {"x": 1})]
    with pytest.raises(ParseError) as info:
        parse_calls(text.replace("</tool_calls>", "</tool_calls"))  # the wrapper unclosed: auto reads it as hunyuan
    assert info.value.format == "hunyuan" and info.value.cut_short


def test_one_suffix_per_output_a_tag_with_another_is_an_error_at_it() -> None:
    text = hy4(hy4_call("f"), "<tool_call:other>g</tool_call:other>")
    for how in ("hunyuan", "auto"):
        with pytest.raises(ParseError, match="<tool_call:other>: a Hunyuan tag with another suffix") as info:
            parse_calls(text, how)
        assert info.value.format == "hunyuan" and info.value.position == (1, 70)


def test_a_value_holding_tags_without_the_suffix_is_text() -> None:
    """Only tags between the calls are held to the output's suffix; a value (code, say) is text."""
    text = hy4(hy4_call("write", ("code", "a <tool_call> b <think> </arg_key>")))
    expected = [Step("write", {"code": "a <tool_call> b <think> </arg_key>"})]
    assert parse_calls(text, "hunyuan") == parse_calls(text) == expected


def test_the_suffix_is_the_reasoning_tags_and_a_call_quoted_in_reasoning_is_not_read() -> None:
    text = ("<think:opensource>I could write <tool_call:opensource>g</tool_call:opensource></think:opensource>"
            + hy4(hy4_call("f")))
    assert parse_calls(text, "hunyuan") == parse_calls(text) == [Step("f", {})]


def test_hy3_is_told_by_its_tool_sep_and_every_name_must_have_one() -> None:
    ok = ("<tool_calls>\n<tool_call>f<tool_sep>\n<arg_key>a</arg_key>\n<arg_value>x y</arg_value>\n</tool_call>\n"
          "</tool_calls>")
    assert parse_calls(ok, "hunyuan") == parse_calls(ok) == [Step("f", {"a": "x y"})]
    suffixed = ok.replace("<tool_sep>", "<tool_sep:opensource>")
    for tag in ("tool_calls", "tool_call", "arg_key", "arg_value"):
        suffixed = suffixed.replace(f"<{tag}>", f"<{tag}:opensource>").replace(f"</{tag}>", f"</{tag}:opensource>")
    assert parse_calls(suffixed, "hunyuan") == [Step("f", {"a": "x y"})]  # SGLang: the shipping Hy3 vocabulary
    missing = ok.replace("</tool_calls>", "<tool_call>g\n</tool_call>\n</tool_calls>")
    for how in ("hunyuan", "auto"):
        with pytest.raises(ParseError, match=re.escape("expected <tool_sep> after the tool name 'g'")) as info:
            parse_calls(missing, how)
        assert info.value.position == (7, 1) and info.value.format == "hunyuan"  # the tag found instead


def test_hy3_went_to_hermes_in_auto_and_is_hunyuans_now() -> None:
    """The audit's samples: auto read Hy3 as hermes and failed with 'invalid Python: leading zeros'."""
    text = ("<tool_calls><tool_call>get_weather<tool_sep><arg_key>date</arg_key><arg_value>2026-03-30</arg_value>"
            "</tool_call></tool_calls>")
    assert parse_calls(text) == [Step("get_weather", {"date": "2026-03-30"})]
    with pytest.raises(ParseError, match=re.escape("<tool_sep> after the name is Tencent Hy3's: pass format='hunyu")):
        parse_calls(text, "glm45")


# --------------------------------------------------------------------------- sections and kin


@pytest.mark.parametrize(("fmt", "text", "where", "fragment", "cut"), [
    ("hunyuan", "<tool_calls:opensource>" + hy4_call("f"), (1, 1), "not closed by </tool_calls:opensource>", True),
    ("k2-horizon", "<ifm|tool_call>f</ifm|tool_call></ifm|tool_calls>", (1, 33),
     "</ifm|tool_calls> without an opening <ifm|tool_calls>", False),
    ("k2-horizon", "<ifm|tool_calls><ifm|tool_calls><ifm|tool_call>f</ifm|tool_call></ifm|tool_calls>", (1, 17),
     "<ifm|tool_calls> inside an unclosed <ifm|tool_calls>", False),
    ("solar-open2", "<|tool_call:start|>f\n<|tool_call:start|>g\n<|tool_call:end|>", (2, 1),
     "<|tool_call:start|> inside an unclosed <|tool_call:start|> block", False),
    ("k2-horizon", "<ifm|tool_calls>junk</ifm|tool_calls>", (1, 17),
     "expected <ifm|tool_call> or </ifm|tool_calls> between the calls", False),  # vLLM's malformed 'junk' group
    ("k2-horizon", "<ifm|tool_calls><ifm|tool_call>f</ifm|tool_call>\n</ifm|tool_ca", (2, 1),
     "between the calls (output cut short?)", True),
])
def test_sections_and_blocks_must_pair_up(fmt: str, text: str, where: tuple[int, int], fragment: str,
                                          cut: bool) -> None:
    """vLLM reads no call from an unclosed section (Hy4 strict, K2) and Solar resyncs on a dropped
    ``<|tool_call:end|>``; ek never reads half an output: a cut-short one says so, a garbled one is an error."""
    for how in (fmt, "auto"):
        with pytest.raises(ParseError, match=re.escape(fragment)) as info:
            parse_calls(text, how)
        assert info.value.format == fmt and info.value.position == where and info.value.cut_short is cut


def test_hunyuan_reads_a13bs_json_list_too_as_one_vendors_format() -> None:
    """Hunyuan-A13B writes ``<tool_calls>[{...}]</tool_calls>`` (vLLM's ``hunyuan_a13b``): the same ``hunyuan``
    format reads it, through the wrapped reader, and its errors stay that reader's (a JSON list is expected)."""
    text = '<think>plan</think><tool_calls>[{"name": "a", "arguments": {"x": 1}}]</tool_calls>'
    assert parse_calls(text, "hunyuan") == parse_calls(text) == [Step("a", {"x": 1})]
    with pytest.raises(ParseError, match="expected a JSON list of calls") as info:
        parse_calls('<tool_calls>\n{"name": "a", "arguments": {}}\n</tool_calls>', "hunyuan")
    assert info.value.format == "hunyuan" and info.value.position == (2, 1)
    with pytest.raises(ParseError, match="not closed by </tool_calls>") as info:
        parse_calls('<tool_calls>[{"name": "a", "arguments": {}}]', "hunyuan")
    assert info.value.cut_short


@pytest.mark.parametrize(("text", "fmt", "other"), [
    (hy4(hy4_call("f")), "glm45", "hunyuan"),
    ("<ifm|tool_call>f</ifm|tool_call>", "hunyuan", "k2-horizon"),
    (solar("f"), "k2-horizon", "solar-open2"),
    (hy4(hy4_call("f")), "solar-open2", "hunyuan"),
])
def test_a_kin_formats_tokens_are_an_error_naming_it_never_no_calls(text: str, fmt: str, other: str) -> None:
    with pytest.raises(ParseError, match=f"pass format='{other}'"):
        parse_calls(text, fmt)


# --------------------------------------------------------------------------- k2-horizon


def test_k2_arg_type_types_a_value_when_the_grammar_does_not() -> None:
    """SGLang's test: ``<ifm|arg_type>string`` keeps ``12345`` a string. The grammar's type, when it names one,
    comes first (vLLM narrows a schema union to the written type; ek's hint names one type)."""
    text = ("<ifm|tool_call>study_args<ifm|arg_key>user_id</ifm|arg_key><ifm|arg_type>string</ifm|arg_type>"
            "<ifm|arg_value>12345</ifm|arg_value><ifm|arg_key>ids</ifm|arg_key><ifm|arg_type>array[integer]"
            "</ifm|arg_type><ifm|arg_value>[1, 2]</ifm|arg_value><ifm|arg_key>raw</ifm|arg_key>"
            "<ifm|arg_type>Any</ifm|arg_type><ifm|arg_value>[3]</ifm|arg_value><ifm|arg_key>n</ifm|arg_key>"
            "<ifm|arg_value>7</ifm|arg_value></ifm|tool_call>")
    assert parse_calls(text, "k2-horizon") == [Step("study_args", {"user_id": "12345", "ids": [1, 2], "raw": "[3]",
                                                                   "n": 7})]
    kinds = {"user_id": "integer", "n": "string"}
    assert parse_calls(text, "k2-horizon", types=lambda tool, arg: kinds.get(arg)) == [
        Step("study_args", {"user_id": 12345, "ids": [1, 2], "raw": "[3]", "n": "7"})]


@pytest.mark.parametrize(("text", "where", "fragment"), [
    ("<ifm|tool_call>f<ifm|arg_key>a</ifm|arg_key><ifm|arg_type> </ifm|arg_type><ifm|arg_value>1</ifm|arg_value>"
     "</ifm|tool_call>", (1, 45), "an empty <ifm|arg_type> for parameter 'a'"),
    ("<ifm|tool_call>f<ifm|arg_key>a</ifm|arg_key><ifm|arg_type>int<ifm|arg_value>1</ifm|arg_value></ifm|tool_call>",
     (1, 62), "<ifm|arg_value> before the </ifm|arg_type> that closes the <ifm|arg_type> at line 1, column 45"),
    ('<ifm|tool_call>[{"name": "f", "arguments": {}}, 3]</ifm|tool_call>', "line 1, column 16 $[1]",
     "expected a call object {\"name\": ..., \"arguments\": {...}}, got a number"),
    ('<ifm|tool_call>{"name": "f", "arguments": {}} tail</ifm|tool_call>', (1, 47),
     "expected </ifm|tool_call> after the JSON call"),
    ('<ifm|tool_call>{"name": "f", "arguments": [1]}</ifm|tool_call>', "line 1, column 16 $.arguments", "object"),
])
def test_broken_k2_output_names_where_and_why(text: str, where: object, fragment: str) -> None:
    for how in ("k2-horizon", "auto"):
        with pytest.raises(ParseError, match=re.escape(fragment)) as info:
            parse_calls(text, how)
        assert info.value.format == "k2-horizon" and info.value.position == where


def test_k2_json_dialect_takes_arguments_as_json_text_and_reasoning_the_prompt_opened() -> None:
    """SGLang's test_json_arguments_as_string; the template ends a reasoning turn with ``</ifm|think_faster>``."""
    text = ('</ifm|think_faster>\n<ifm|tool_call>{"name": "get_weather", "arguments": "{\\"city\\": \\"Tokyo\\"}"}'
            "</ifm|tool_call>")
    assert parse_calls(text, "k2-horizon") == parse_calls(text) == [Step("get_weather", {"city": "Tokyo"})]
    with pytest.raises(ParseError, match="not closed by </ifm|think>") as info:
        parse_calls("<ifm|think>still", "k2-horizon")
    assert info.value.cut_short


# --------------------------------------------------------------------------- solar-open2


def test_solar_values_are_what_follows_the_value_token_whitespace_kept() -> None:
    text = solar("f", ("s", "  two  spaces "), ("n", "5"), ("j", '{"key": "value"}'))
    assert parse_calls(text, "solar-open2") == [Step("f", {"s": "  two  spaces ", "n": 5, "j": {"key": "value"}})]
    assert parse_calls(text, "solar-open2", types=lambda tool, arg: "string") == [
        Step("f", {"s": "  two  spaces ", "n": "5", "j": '{"key": "value"}'})]  # vLLM without a schema: strings


@pytest.mark.parametrize(("text", "where", "fragment"), [
    (solar("search", ("query", "first"), ("query", "second")), (3, 1), "parameter 'query' given twice"),
    ("<|tool_call:start|>broken\n<|tool_arg:start|>a<|tool_arg:value|>oops<|tool_call:end|>", (2, 20),
     "<|tool_arg:value|> is not closed by <|tool_arg:end|> before <|tool_call:end|>"),
    ("<|tool_call:start|>f\n<|tool_arg:start|>a<|tool_arg:value|>1\n<|tool_arg:start|>b<|tool_arg:value|>2"
     "<|tool_arg:end|>\n<|tool_call:end|>", (3, 1), "<|tool_arg:start|> before the <|tool_arg:end|>"),
    ("<|tool_call:start|>\n<|tool_arg:start|>a<|tool_arg:value|>1<|tool_arg:end|>\n<|tool_call:end|>", (2, 1),
     "the tool name is empty"),
])
def test_broken_solar_output_names_where_and_why(text: str, where: tuple[int, int], fragment: str) -> None:
    """vLLM keeps a repeated argument's first value, ends a value at the next token when its end was dropped and
    reads an empty name; ek refuses each, at its line and column."""
    for how in ("solar-open2", "auto"):
        with pytest.raises(ParseError, match=re.escape(fragment)) as info:
            parse_calls(text, how)
        assert info.value.format == "solar-open2" and info.value.position == where


def test_solar_reasoning_is_skipped_with_a_call_quoted_in_it_and_a_cut_one_says_so() -> None:
    text = "<|think:start|>maybe " + solar("g") + "<|think:end|>" + solar("f", ("x", "1"))
    assert parse_calls(text, "solar-open2") == parse_calls(text) == [Step("f", {"x": 1})]
    with pytest.raises(ParseError, match="cut short") as info:
        parse_calls("<|think:start|>maybe " + solar("g"), "solar-open2")
    assert info.value.cut_short


# --------------------------------------------------------------------------- rendering


DELIMITERS = [t for d in (HY4, HY3, K2_HORIZON, SOLAR_OPEN2, hunyuan(":x")) for t in (
    d.call_open, d.call_close, d.key_open, d.key_close, d.value_close, d.section_open or "<", d.sep or ">")] + [
    "<ifm|think>", "<|think:start|>", "\\n", "3", "true", "null", " padded ", "\n", "", '"quoted"', "{}"]
WRITERS = [to_hunyuan, to_hunyuan_hy3, to_k2_horizon, to_solar_open2]


@pytest.mark.parametrize("write", WRITERS)
def test_key_value_renderers_read_back_with_every_dialects_tokens_in_strings(write) -> None:
    calls = [Step("f", {"s": d, "n": 3, "l": [d, 1.5, None], "o": {"k": d}}) for d in DELIMITERS] + [Step("g", {})]
    fmt = {to_hunyuan: "hunyuan", to_hunyuan_hy3: "hunyuan", to_k2_horizon: "k2-horizon"}.get(write, "solar-open2")
    assert parse_calls(write(calls), fmt) == parse_calls(write(calls)) == calls
    assert write([]) == ""


def test_renderers_write_what_the_templates_write_and_are_registered() -> None:
    calls = [Step("get_weather", {"city": "Beijing", "date": "2026-03-30"})]
    assert to_hunyuan_hy3(calls) == ("<tool_calls>\n<tool_call>get_weather<tool_sep>\n<arg_key>city</arg_key>\n"
                                     "<arg_value>Beijing</arg_value>\n<arg_key>date</arg_key>\n<arg_value>2026-03-30"
                                     "</arg_value>\n</tool_call>\n</tool_calls>")  # vLLM's test_args_with_newlines
    assert to_solar_open2([Step("get_time", {})]) == "<|tool_call:start|>get_time\n<|tool_call:end|>"  # vLLM's test
    assert to_k2_horizon([Step("ping", {})]) == ("<ifm|tool_calls>\n<ifm|tool_call>ping\n</ifm|tool_call>\n"
                                                 "</ifm|tool_calls>")
    for fmt, write in (("hunyuan", to_hunyuan), ("k2-horizon", to_k2_horizon), ("solar-open2", to_solar_open2)):
        assert render(calls, fmt) == write(calls)
    with pytest.raises(ValueError, match="cannot be written"):
        to_solar_open2([Step("f", {"a\nb": 1})])


values = st.recursive(st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False)
                      | st.text(max_size=12), lambda inner: st.lists(inner, max_size=3)
                      | st.dictionaries(st.text(max_size=4), inner, max_size=3), max_leaves=8)
names = st.from_regex(r"[A-Za-z_][A-Za-z0-9_.]{0,8}", fullmatch=True)


@settings(max_examples=100, deadline=None)
@given(st.lists(st.builds(Step, names, st.dictionaries(names, values, max_size=4)), max_size=3))
def test_hy3_render_then_read_is_the_identity(calls: list[Step]) -> None:
    """The registered renderers' round trip is test_parse_roundtrip's; Hy3's is not registered."""
    assert parse_calls(to_hunyuan_hy3(calls), "hunyuan") == parse_calls(to_hunyuan_hy3(calls)) == calls


# --------------------------------------------------------------------------- hostile


@pytest.mark.parametrize(("fmt", "text"), [
    ("hunyuan", "<tool_call:" * 100_000),
    ("hunyuan", "<tool_calls:x>" + "<tool_call:x>f<arg_key:x>" * 50_000),
    ("hunyuan", "<tool_call:" + "x" * 500_000),
    ("hunyuan", "<tool_calls><tool_call>f<tool_sep>" + "<tool_sep>" * 100_000),
    ("k2-horizon", "<ifm|tool_calls>" * 100_000),
    ("k2-horizon", "<ifm|tool_call>f" + "<ifm|arg_key>a</ifm|arg_key><ifm|arg_type>" * 50_000),
    ("k2-horizon", "<ifm|tool_call>" + "[" * 100_000 + "</ifm|tool_call>"),
    ("solar-open2", "<|tool_call:start|>f\n" + "<|tool_arg:start|>a<|tool_arg:value|>" * 50_000),
    ("solar-open2", "<|think:end|>" * 100_000 + "<|tool_call:start|>"),
])
def test_hostile_key_value_outputs_are_decided_quickly(fmt: str, text: str) -> None:
    started = time.perf_counter()
    for how in (fmt, "auto"):
        try:
            parse_calls(text, how)
        except ParseError:
            pass
    assert time.perf_counter() - started < 5


@pytest.mark.parametrize(("text", "fmt", "where"), [
    # a JSON call in prose beside a K2 tag: auto picks k2-horizon by the tag, which then read no block and
    # returned no call, dropping the JSON call without a word
    ('{"name": "g", "arguments": {}} and <ifm|arg_key>', "k2-horizon", (1, 36)),
    ("See <ifm|arg_key> here", "k2-horizon", (1, 5)),
    ("x <|tool_arg:start|> y", "solar-open2", (1, 3)),
    ("a <tool_sep> b", "hunyuan", (1, 3)),
    ("<tool_call>f<arg_key>a</arg_key><arg_value>1</arg_value></tool_call>\n<arg_value>2</arg_value>", "glm45",
     (2, 1)),
])
def test_a_calls_tag_outside_every_block_is_an_error_not_prose(text: str, fmt: str, where: tuple[int, int]) -> None:
    for how in (fmt, "auto"):
        with pytest.raises(ParseError, match="outside a .* block: a call's tag where no call is open") as info:
            parse_calls(text, how)
        assert info.value.format == fmt and info.value.position == where
