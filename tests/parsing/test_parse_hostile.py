"""A hostile-output corpus: nothing is executed, nothing crashes, every case is decided.

Each entry either raises :class:`ParseError` (reason checked) or is a
documented accepted literal (value checked). A sentinel file proves that no
injected code ran: every injection attempt would create it.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from ek.calls import Step
from ek.limits import OUTPUT_AST_MAX_TOKENS
from ek.parsing import ParseError, parse_calls


def _touch(sentinel: Path) -> str:
    return f"__import__('pathlib').Path({str(sentinel)!r}).touch()"


def _injections(sentinel: Path) -> list[str]:
    touch = _touch(sentinel)
    return [
        f"f(x={touch})",
        f"[f(x=1), g(y={touch})]",
        f"f(x=1 + {touch})",  # BFCL's decoder eval()s BinOps: this is how it gets in
        f"f(x=lambda: {touch})",
        f"f(x=(lambda: {touch})())",
        f"f(x=[{touch} for _ in [1]])",
        f"f(x=f'{{{touch}}}')",
        f"f(x={{{touch}: 1}})",
        f"f(**{{'x': {touch}}})",
        f"f(x=(y := {touch}))",
        f"{touch}",
        f"f(x=1)\n{touch}",
        f"exec({touch!r})",
        f"eval(src={touch!r})",  # accepted: a call *named* eval with a string argument, never run
        f"f(x=__builtins__.__dict__['exec']({touch!r}))",
        f"f(x=open({str(sentinel)!r}, 'w'))",
        f"import os; os.system('touch {sentinel}')",
        f'{{"name": "f", "arguments": "{{\\"x\\": 1}}"}}; {touch}',
    ]


def test_no_injection_attempt_executes(tmp_path: Path) -> None:
    sentinel = tmp_path / "pwned"
    outcomes = []
    for text in _injections(sentinel):
        try:
            outcomes.append(parse_calls(text))
        except ParseError as err:
            outcomes.append(err.reason)
        for fmt in ("python", "json", "openai", "bfcl"):
            try:
                parse_calls(text, fmt)
            except ParseError:
                pass
    assert not sentinel.exists(), "a model output was executed"
    accepted = [o for o in outcomes if isinstance(o, list)]
    # Only plain calls with literal arguments get through, their code-like strings kept as data.
    assert accepted == [[Step("eval", {"src": _touch(sentinel)})]]
    # Double-check that the sentinel mechanism itself works, so the test can fail.
    exec(compile(_injections(sentinel)[10], "<proof>", "exec"))  # noqa: S102 - our own literal
    assert sentinel.exists()


def test_exec_with_positional_argument_is_rejected_not_run(tmp_path: Path) -> None:
    with pytest.raises(ParseError, match="positional argument"):
        parse_calls("exec('print(1)')")


DEEP = 100_000
#: Operators chained past Python's parser's nesting (a few thousand), within OUTPUT_AST_MAX_TOKENS tokens.
CHAIN = 20_000


@pytest.mark.parametrize(
    ("output", "fragment"),
    [
        ("f(x=" + "[" * DEEP + "]" * DEEP + ")", "nesting deeper than 64"),
        ("[" * DEEP, "nesting deeper than 64"),
        ('{"a":' * DEEP + "1" + "}" * DEEP, "nesting deeper than 64"),
        ("f(x=" + "(" * DEEP + "1" + ")" * DEEP + ")", "nesting deeper than 64"),
        ("f(x=" + "-" * CHAIN + "1)", "nests too deeply"),
        ("f(x=" + "not " * CHAIN + "1)", "nests too deeply"),
        ("f(x=" + "1+" * CHAIN + "1)", "nests too deeply"),
        ("a" + ".b" * CHAIN + "(x=1)", "nests too deeply"),
        ("f" + "()" * CHAIN, "nests too deeply"),
        ("f(x=" + "-" * DEEP + "1)", "more than 50,000 Python tokens"),  # refused before Python's parser
        ("f(x='" + "a" * 2_000_000 + "')", "more than the limit of 1,000,000"),
        (b"f(x='" + b"a" * 2_000_000 + b"')", "bytes, more than the limit"),
        ("f(x='" + "a" * 2_000_000, "more than the limit"),
        ('[{"f": {"x": NaN}}]', "NaN is not accepted"),
        ('[{"f": {"x": Infinity}}]', "Infinity is not accepted"),
        ('[{"f": {"x": -Infinity}}]', "-Infinity is not accepted"),
        ('[{"f": {"x": 1e400}}]', "too large for a float"),
        ("f(x=nan)", "name 'nan' is not a literal"),
        ("f(x=float('inf'))", "a call is not a value"),
        ("f(x=1e999)", "infinity is not accepted"),
        (b"f(x='\xff\xfe')", "invalid UTF-8"),
        (b"\xc3\x28", "invalid UTF-8"),
        ('{"name": "f", "name": "g", "arguments": {}}', "duplicate key 'name'"),
        ('[{"f": {"x": 1, "x": 2}}]', "duplicate key 'x'"),
        ({"tool_calls": [{"function": {"name": "f", "arguments": '{"x": 1, "x": 1}'}}]}, "duplicate key 'x'"),
        ("f(x=1, x=1)", "repeated"),
        ("f(x=" + "9" * 100_000 + ")", "Exceeds the limit (4300 digits)"),
        ('[{"f": {"x": ' + "9" * 100_000 + "}}]", "an integer of 100000 digits, more than"),
        ("f(x=0x" + "f" * 5_000 + ")", "more than 4300 digits"),  # hex is not limited, but no report could print it
        ("f(x=[-0x" + "f" * 5_000 + "])", "more than 4300 digits"),
        ({"name": "f", "arguments": {"x": 1 << 20_000}}, "more than 4300 digits"),
        ("f(x=b'\\x00')", "bytes literals"),
        ("f(x={1, 2, 3})", "set literals"),
        ("f(x=~1)", "unary operators"),
        ("f(x=\x00)", "invalid Python"),
        ("\ud800(x=1)", "invalid Python"),
    ],
)
def test_hostile_outputs_are_parse_errors(output: object, fragment: str) -> None:
    with pytest.raises(ParseError) as info:
        parse_calls(output)  # type: ignore[arg-type]
    assert fragment in info.value.reason


def test_duplicate_keys_are_located() -> None:
    with pytest.raises(ParseError) as info:
        parse_calls('[{"f": {"x": 1}},\n {"g": {"y": 1, "y": 2}}]')
    assert info.value.position == (2, 17)
    message = {"tool_calls": [{"function": {"name": "f", "arguments": '{"x": 1, "x": 1}'}}]}
    with pytest.raises(ParseError) as info:
        parse_calls(message)
    assert info.value.position == "$.tool_calls[0].function.arguments (line 1, column 10)"


def test_nesting_error_points_at_the_first_bracket_past_the_limit() -> None:
    with pytest.raises(ParseError) as info:
        parse_calls("f(\n  x=" + "[" * 70 + "]" * 70 + ")")
    assert info.value.position == (2, 4 + 64)  # "(" on line 1 is level 1; the 64th "[" is level 65


def test_brackets_inside_strings_and_comments_do_not_count() -> None:
    brackets = "[" * 10_000
    text = f"f(a={brackets!r}, b=\"{brackets}\", c='''{brackets}''')  # {brackets}"
    assert parse_calls(text) == [Step("f", {"a": brackets, "b": brackets, "c": brackets})]
    assert parse_calls(json.dumps([{"f": {"a": brackets}}]), "bfcl") == [Step("f", {"a": brackets})]


@pytest.mark.parametrize(
    ("output", "value"),
    [
        ("f(x=-5)", -5),
        ("f(x=+5)", 5),
        ("f(x=-0.0)", -0.0),
        ("f(x=1e308)", 1e308),
        ("f(x=" + "9" * 4300 + ")", int("9" * 4300)),
        ('[{"name": "f", "arguments": {"x": -1.5e-300}}]', -1.5e-300),
        ("f(x='\\x00\\u202e')", "\x00\u202e"),
        ("f(x='\\ud800')", "\ud800"),  # a lone surrogate is a valid Python str literal
        ("f(x=" + repr("a" * 900_000) + ")", "a" * 900_000),
        ("f(x=" + "[" * 63 + "]" * 63 + ")", None),
    ],
)
def test_documented_accepted_literals(output: str, value: object) -> None:
    (step,) = parse_calls(output)
    if value is None:  # 63 nested lists: the deepest the default limit accepts under f(...)
        depth, node = 0, step.args["x"]
        while node:
            node, depth = node[0], depth + 1
        assert depth == 62
    else:
        assert step.args["x"] == value


def test_limits_are_parameters() -> None:
    assert parse_calls("f(x=[[[1]]])", max_depth=4) == [Step("f", {"x": [[[1]]]})]
    with pytest.raises(ParseError, match="max_depth=3"):
        parse_calls("f(x=[[[1]]])", max_depth=3)
    with pytest.raises(ParseError, match="max_size"):
        parse_calls("f(x=1)", max_size=5)
    with pytest.raises(ParseError, match="max_depth=2"):
        parse_calls({"f": {"x": [[1]]}}, "bfcl", max_depth=2)
    with pytest.raises(ParseError, match="max_size"):
        parse_calls({"f": {"x": "a" * 100}}, "bfcl", max_size=50)


def test_deep_decoded_objects_are_refused_without_recursing() -> None:
    deep: list = []
    node = deep
    for _ in range(DEEP):
        node.append([])
        node = node[0]
    with pytest.raises(ParseError, match="nesting deeper than 64"):
        parse_calls([{"f": {"x": deep}}], "bfcl")
    assert sys.getrecursionlimit() < DEEP


def _message(arguments: str) -> dict[str, object]:
    return {"tool_calls": [{"type": "function", "function": {"name": "f", "arguments": arguments}}]}


def test_limits_inside_embedded_arguments_text_name_its_json_path() -> None:
    # The line/column of a limit hit inside OpenAI's `arguments` string is a place in *that* string:
    # the error must say so, or a reader looks for it in the outer message.
    deep = _message('{"x": ' + "[" * DEEP + "]" * DEEP + "}")
    for output in (deep, json.dumps(deep)):
        with pytest.raises(ParseError) as info:
            parse_calls(output)  # type: ignore[arg-type]
        assert "nesting deeper than 64" in info.value.reason
        assert info.value.position == "$.tool_calls[0].function.arguments (line 1, column 70)"
    with pytest.raises(ParseError) as info:  # decoded already: only the embedded text is over the limit
        parse_calls(_message('{"x": "' + "a" * 1_000_001 + '"}'))
    assert "more than the limit" in info.value.reason
    assert info.value.position == "$.tool_calls[0].function.arguments"


def test_arguments_encoded_twice_are_refused_with_a_hint() -> None:
    twice = json.dumps(json.dumps({"x": 1}))
    with pytest.raises(ParseError) as info:
        parse_calls({"name": "f", "arguments": twice})
    assert info.value.position == "$.arguments"
    assert "encoded twice" in info.value.reason


def test_decoded_integers_past_the_text_limit_are_refused_as_in_text() -> None:
    with pytest.raises(ParseError) as info:
        parse_calls([{"f": {"x": [1, 10**5000]}}], "bfcl")
    assert info.value.position == "$[0]['f'].x[1]" and "4300 digits" in info.value.reason
    assert parse_calls([{"f": {"x": 10**4299}}], "bfcl") == [Step("f", {"x": 10**4299})]


# --------------------------------------------------------------------------- every registered format

import subprocess  # noqa: E402
import textwrap  # noqa: E402

from ek.parsing import (  # noqa: E402
    RENDERERS,  # noqa: E402
    dsml,  # noqa: E402
    format_names,  # noqa: E402
    gemma,  # noqa: E402
    glm,  # noqa: E402
    invoke,  # noqa: E402
    kimi_k3,  # noqa: E402
    minimax,  # noqa: E402
    native,  # noqa: E402
    plamo,  # noqa: E402
)
from ek.parsing.render import to_hunyuan, to_k2_horizon, to_minimax_m3, to_plamo3, to_solar_open2  # noqa: E402

#: Each format's own markers: what its reader searches for, repeated 100k times below.
MARKERS = {
    "auto": ["<tool_call>", "<think>", "```json\n", '{"name": "f", '],
    "python": ["f(", "[f(x=1), "],
    "openai": ['{"tool_calls": [', '{"type": "function", "function": '],
    "anthropic": ['{"type": "tool_use", "name": "f", "input": '],
    "json": ['{"name": "f", "arguments": '],
    "bfcl": ['[{"f": ', "f(x="],
    "hermes": ["<tool_call>", "</tool_call>", "<think>"],
    "llama3": [native.PYTHON_TAG, native.PYTHON_START, native.LLAMA_ENDS[0], '{"name": "f", "parameters": '],
    "mistral": [native.TOOL_CALLS, native.ARGS, native.CALL_ID, f"{native.TOOL_CALLS}f"],
    "qwen3-coder": ["<tool_call>", native.FUNCTION_OPEN, native.PARAMETER_OPEN, native.PARAMETER_CLOSE],
    "deepseek": [native.DS_CALLS_BEGIN, native.DS_CALL_BEGIN, native.DS_SEP, f"{native.DS_CALL_BEGIN}f{native.DS_SEP}"],
    "granite": [native.GRANITE_TAG, "<tool_call>["],
    "phi4": ["functools", "functools["],
    "gemini": ['{"functionCall": {"name": "f", "args": '],
    "bedrock": ['{"toolUse": {"name": "f", "input": '],
    "langchain": ['{"type": "ai", "tool_calls": ['],
    "ollama": ['{"message": {"tool_calls": ['],
    "mcp": ['{"jsonrpc": "2.0", "method": "tools/call", "params": {"name": "f", "arguments": ',
            '[{"jsonrpc": "2.0", "method": "tools/call", "params": '],
    "harmony": ["<|start|>", "<|channel|>", "<|message|>", "<|call|>", "<|start|>assistant to=functions.f<|message|>",
                "<|channel|>analysis<|message|>x<|end|>"],
    "kimi-k2": ["<|tool_calls_section_begin|>", "<|tool_call_begin|>", "<|tool_call_argument_begin|>",
                "<|tool_calls_section_begin|><|tool_call_begin|>functions.f:0<|tool_call_argument_begin|>{}"],
    "glm45": ["<tool_call>", "<tool_call>f\n", glm.KEY_OPEN, glm.VALUE_OPEN, f"<tool_call>f{glm.KEY_OPEN}",
              glm.LITERAL_NEWLINE],
    "minimax-m2": [minimax.CALLS_OPEN, minimax.CALLS_CLOSE, '<invoke name="f">', '<parameter name="x">',
                   minimax.PARAM_CLOSE, f'{minimax.CALLS_OPEN}<invoke name="f">', '<invoke name="', "<think>"],
    "minimax-m3": [*invoke.MINIMAX_M3.markers, str(invoke.MINIMAX_M3.block_open), str(invoke.MINIMAX_M3.block_close),
                   f'{invoke.NS}<invoke name="f">', f"{invoke.NS}<x>", f"{invoke.NS}</x>", f"{invoke.NS}<item>",
                   f'{invoke.MINIMAX_M3.block_open}{invoke.NS}<invoke name="f">{invoke.NS}<x>', "<mm:think>",
                   f"{invoke.NS}<", "</mm:think>"],
    "step3": [*invoke.STEP3.markers, str(invoke.STEP3.header), str(invoke.STEP3.separator), "</steptml:parameter>",
              '<steptml:invoke name="f">', '<steptml:parameter name="x">', "<｜tool_calls_begin｜><｜tool_call_begin｜>"
              'function<｜tool_sep｜><steptml:invoke name="f">', '<｜tool_call_begin｜>function<｜tool_sep｜>f\n'],
    "dots": [*invoke.DOTS.markers, '<invoke name="f">', '<parameter name="x">', "</parameter>", '<invoke name="',
             '<dots_function_call><invoke name="f">', '<dots_function_call>{"name": "f", "arguments": '],
    "minicpm": [*invoke.MINICPM.markers, '<function name="f">', '<functionname="f">', '<param name="x">',
                '<paramname="x">', "</param>", "</function>", invoke.CDATA_OPEN, invoke.CDATA_CLOSE,
                '<function name="f"><param name="x"><![CDATA['],
    "gemma4": [gemma.GEMMA4.call_open, gemma.GEMMA4.call_close, gemma.GEMMA4.quote, gemma.GEMMA4.thought_open,
               gemma.GEMMA4.thought_close, "<|tool_call>call:f{", '<|tool_call>call:f{x:<|"|>', "<|tool_call>call:f{x:["],
    "functiongemma": [gemma.FUNCTIONGEMMA.call_open, gemma.FUNCTIONGEMMA.call_close, gemma.FUNCTIONGEMMA.quote,
                      "<start_function_call>call:f{", "<start_function_call>call:f{x:<escape>",
                      "<start_function_call>call:f{x:{y:"],
    "jamba": ["<tool_calls>", "</tool_calls>", "<tool_calls>[", '<tool_calls>[{"name": "f", "arguments": '],
    "hunyuan": ["<tool_calls>", "</tool_calls>", "<tool_calls>[", "<think>"],
    "nemotron": ["<TOOLCALL>", "</TOOLCALL>", "<TOOLCALL>{", '<TOOLCALL>[{"name": "f", "arguments": "'],
    "lfm2": ["<|tool_call_start|>", "<|tool_call_end|>", "<|tool_call_start|>[f(", "<|tool_call_start|>[{"],
    "pangu": ["<|tool_call_start|>", "<|tool_call_end|>", '<|tool_call_start|>[{"name": "f", "arguments": '],
    "apertus": ["<|tools_prefix|>", "<|tools_suffix|>", '<|tools_prefix|>[{"f": '],
    "cohere": ["<|START_ACTION|>", "<|END_ACTION|>", "<|START_THINKING|>", "<|START_RESPONSE|>",
               '<|START_ACTION|>[{"tool_call_id": "0", "tool_name": "f", "parameters": '],
    "qwen25-coder": ["<tools>", "</tools>", "<tools>[", '<tools>{"name": "f", "arguments": '],
    "olmo3": ["<function_calls>", "</function_calls>", "<function_calls>f(", "<function_calls>\nf(x=null)\n", "f(",
              "\nf(x=1)"],
    "internlm2": ["<|action_start|><|plugin|>", "<|action_end|>", "<|action_start|><|interpreter|>",
                  "<|action_start|> <|plugin|>",
                  '<|action_start|><|plugin|>{"name": "f", "parameters": '],
    "longcat": ["<longcat_tool_call>", "</longcat_tool_call>", '<longcat_tool_call>{"name": "f", "arguments": '],
    "gigachat3": ["function call<|role_sep|>", "<|function_call|>", "</s>", "<|message_sep|>",
                  '<|function_call|>{"name": "f", "arguments": '],
    "kimi-k3": [*kimi_k3.TAGS, kimi_k3.OPEN, kimi_k3.CLOSE, kimi_k3.SEP, kimi_k3.JSON_OPEN + " ",
                '<|open|>tools<|sep|><|open|>call tool="f"<|sep|>', '<|open|>argument key="x"<|sep|>',
                '<|open|>tools<|sep|><|open|>call tool="f" index="1"<|sep|><|open|>argument key="x" type="number"<|sep|>'],
}
MARKERS["hunyuan"] = [*glm.HUNYUAN_MARKERS, glm.HY4.call_open, glm.HY4.key_open, glm.HY4.value_open,
                      f"{glm.HY4.call_open}f", f"{glm.HY3.call_open}f{glm.HY3.sep}", glm.HY3.section_open,
                      "<think:opensource>", "<tool_call:" + "x" * 150]
MARKERS["k2-horizon"] = [*glm.K2_MARKERS, "<ifm|tool_calls>", "<ifm|think>", f"{glm.K2_HORIZON.call_open}f",
                         glm.K2_HORIZON.type_open, f"{glm.K2_HORIZON.call_open}[", f"{glm.K2_HORIZON.call_open}{{"]
MARKERS["plamo3"] = [*plamo.TOOL_TAGS, plamo.EOT, *plamo.THINK, plamo.MARKERS[0],
                     plamo.REQUESTS_OPEN + plamo.REQUEST_OPEN,
                     plamo.REQUEST_OPEN + plamo.NAME_OPEN + "f" + plamo.NAME_CLOSE + plamo.ARGS_OPEN + "{",
                     plamo.REQUESTS_OPEN + plamo.REQUEST_OPEN + plamo.NAME_OPEN + "f"]
MARKERS["solar-open2"] = [*glm.SOLAR_MARKERS, "<|think:start|>", f"{glm.SOLAR_OPEN2.call_open}f\n"]
MARKERS["deepseek"] += [tag for dialect in dsml.DIALECTS for tag in (
    dialect.calls_open, f'{dialect.invoke_open} name="f">', f'{dialect.param_open} name="x" string="true">',
    dialect.param_close)]
HUGE_INT = "9" * 5000  # past Python's int-string conversion limit (4300 digits)


def _wrapped(fmt: str, inner: str) -> str:
    """``inner`` (JSON arguments) inside one call as format ``fmt`` writes it."""
    call = '{"name": "f", "arguments": {"x": %s}}' % inner
    return {"python": f"f(x={inner})", "bfcl": '[{"f": {"x": %s}}]' % inner,
            "hermes": f"<tool_call>{call}</tool_call>", "llama3": f"{native.PYTHON_TAG}{call}",
            "mistral": f"{native.TOOL_CALLS}f{native.ARGS}" + '{"x": %s}' % inner,
            "qwen3-coder": f"<tool_call>\n<function=f>\n<parameter=x>\n{inner}\n</parameter>\n</function>\n</tool_call>",
            "deepseek": f"{native.DS_CALL_BEGIN}f{native.DS_SEP}" + '{"x": %s}' % inner + native.DS_CALL_END,
            "granite": f"{native.GRANITE_TAG}[{call}]", "phi4": f"functools[{call}]",
            "harmony": "<|channel|>commentary to=functions.f<|message|>" + '{"x": %s}' % inner + "<|call|>",
            "kimi-k2": "<|tool_calls_section_begin|><|tool_call_begin|>functions.f:0<|tool_call_argument_begin|>"
                       + '{"x": %s}' % inner + "<|tool_call_end|><|tool_calls_section_end|>",
            "glm45": f"<tool_call>f\n<arg_key>x</arg_key>\n<arg_value>{inner}</arg_value>\n</tool_call>",
            "minimax-m2": f'<minimax:tool_call>\n<invoke name="f">\n<parameter name="x">{inner}</parameter>\n'
                          "</invoke>\n</minimax:tool_call>",
            "minimax-m3": to_minimax_m3([Step("f", {"x": "@"})]).replace("@", inner),
            "step3": "<｜tool_calls_begin｜>\n<｜tool_call_begin｜>function<｜tool_sep｜><steptml:invoke name=\"f\">\n"
                     f'<steptml:parameter name="x">{inner}</steptml:parameter>\n</steptml:invoke><｜tool_call_end｜>\n'
                     "<｜tool_calls_end｜>",
            "dots": f'<dots_function_call>\n<invoke name="f">\n<parameter name="x">{inner}</parameter>\n</invoke>\n'
                    "</dots_function_call>",
            "minicpm": f'<function name="f"><param name="x">{inner}</param></function>',
            "gemma4": f"<|tool_call>call:f{{x:{inner}}}<tool_call|>",
            "functiongemma": f"<start_function_call>call:f{{x:{inner}}}<end_function_call>",
            "jamba": f"<tool_calls>[{call}]</tool_calls>",
            "nemotron": f"<TOOLCALL>[{call}]</TOOLCALL>", "lfm2": f"<|tool_call_start|>[f(x={inner})]<|tool_call_end|>",
            "pangu": f"<|tool_call_start|>[{call}]<|tool_call_end|>",
            "apertus": '<|tools_prefix|>[{"f": {"x": %s}}]<|tools_suffix|>' % inner,
            "cohere": '<|START_ACTION|>[{"tool_call_id": "0", "tool_name": "f", "parameters": {"x": %s}}]<|END_ACTION|>'
                      % inner,
            "qwen25-coder": f"<tools>\n{call}\n</tools>",
            "olmo3": f"<function_calls>\nf(x={inner})\n</function_calls>",
            "internlm2": f"<|action_start|><|plugin|>{call}<|action_end|>",
            "longcat": f"<longcat_tool_call>{call}</longcat_tool_call>",
            "gigachat3": f"<|function_call|>{call}</s>",
            "kimi-k3": '<|open|>tools<|sep|><|open|>call tool="f" index="1"<|sep|><|open|>argument key="x" type="number"'
                       f"<|sep|>{inner}<|close|>argument<|sep|><|close|>call<|sep|><|close|>tools<|sep|>",
            "hunyuan": to_hunyuan([Step("f", {"x": "@"})]).replace("@", inner),
            "k2-horizon": to_k2_horizon([Step("f", {"x": "@"})]).replace("@", inner),
            "solar-open2": to_solar_open2([Step("f", {"x": "@"})]).replace("@", inner),
            "plamo3": to_plamo3([Step("f", {"x": "@"})]).replace('"@"', inner)}.get(fmt, call)


def _decided(text: str, fmt: str, **limits: int) -> object:
    """A result or a ParseError; any other exception fails the test."""
    try:
        return parse_calls(text, fmt, **limits)
    except ParseError as error:
        return error


def test_every_registered_format_has_hostile_markers() -> None:
    assert set(format_names()) <= set(MARKERS), "add the new format's markers to MARKERS"


@pytest.mark.parametrize("fmt", format_names())
def test_hostile_outputs_in_every_format_are_decided(fmt: str) -> None:
    over = _wrapped(fmt, '"' + "a" * 2000 + '"')
    error = _decided(over, fmt, max_size=1000)
    assert isinstance(error, ParseError) and "max_size" in error.reason
    for opener in ("[", "{", "("):
        deep = _wrapped(fmt, opener * DEEP)
        outcome = _decided(deep, fmt)
        if isinstance(outcome, list):  # qwen3-coder, minimax-m2 and the key/value and invoke formats: a parameter's
            # bare text is text, never nested; kimi-k3: a typed value that is not JSON ("(((...") is kept as its text,
            # as vLLM and SGLang keep it
            assert fmt in ("qwen3-coder", "glm45", "hunyuan", "k2-horizon", "solar-open2", "minimax-m2", "step3",
                           "dots", "minicpm", "minimax-m3") or (fmt, opener) == ("kimi-k3", "(")
            assert outcome == [Step("f", {"x": opener * DEEP})]
        elif opener != "[" and fmt in ("gemma4", "functiongemma"):  # "(" starts no value, "{" wants a key first
            assert isinstance(outcome, ParseError) and outcome.reason.startswith("expected a"), outcome
        else:
            assert isinstance(outcome, ParseError) and "nesting deeper" in outcome.reason, (opener, outcome)
    huge = _decided(_wrapped(fmt, HUGE_INT), fmt)
    assert isinstance(huge, ParseError) or huge == [Step("f", {"x": HUGE_INT})], huge  # qwen3-coder keeps text
    for marker in MARKERS[fmt]:
        outcome = _decided(marker * 1000, fmt)
        assert isinstance(outcome, ParseError | list), (marker, outcome)


_HEAVY = textwrap.dedent('''
    import sys
    from ek.parsing import ParseError, parse_calls
    fmt, markers = sys.argv[1], sys.argv[2:]
    big = 1_000_000
    texts = [
        ("unterminated JSON string", '{"name": "f", "arguments": {"x": "' + "a" * (big - 40)),
        ("unterminated Python string", 'f(x="' + "a" * (big - 10)),
        ("unclosed block", "<tool_call>" + "a" * (big - 20)),
        ("unclosed think", "<think>" + "a" * (big - 20)),
        ("unclosed fence", "```json\\n" + "a" * (big - 20)),
        *((f"marker {m!r} x100k", m * 100_000) for m in markers),
    ]
    for label, text in texts:
        try:
            parse_calls(text, fmt, max_size=max(len(text), 1))
            print(label, "result")
        except ParseError as error:
            print(label, "ParseError cut_short" if error.cut_short else "ParseError")
''')


@pytest.mark.slow
@pytest.mark.parametrize("fmt", format_names())
def test_heavy_hostile_outputs_in_every_format_finish_in_bounded_time(fmt: str) -> None:
    """1 MB unterminated strings and blocks, and the format's markers 100k times (size limit raised so the
    reader really scans them): each a result or a ParseError, the whole set within the timeout."""
    done = subprocess.run([sys.executable, "-c", _HEAVY, fmt, *MARKERS[fmt]], capture_output=True, text=True,
                          timeout=120, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    lines = done.stdout.splitlines()
    assert len(lines) == 5 + len(MARKERS[fmt]), done.stdout
    assert all(line.endswith(("result", "ParseError", "cut_short")) for line in lines), done.stdout


_SCALING = r'''
import json, sys, time
from ek.calls import Step
from ek.parsing import parse_calls
from ek.parsing.render import RENDERERS, to_deepseek_v32, to_deepseek_v41, to_hunyuan_hy3

def cpu(text, fmt):
    best = None
    for _ in range(3):
        started = time.process_time()
        assert len(parse_calls(text, fmt, max_size=len(text) + 1)) in (SMALL, LARGE)
        spent = time.process_time() - started
        best = spent if best is None else min(best, spent)
    return max(best, 1e-4)

SMALL, LARGE = 4000, 16000
renderers = dict(RENDERERS, deepseek_v32=to_deepseek_v32, deepseek_v41=to_deepseek_v41, hunyuan_hy3=to_hunyuan_hy3)
for name, render in renderers.items():
    fmt = "deepseek" if name.startswith("deepseek_") else "hunyuan" if name == "hunyuan_hy3" else name
    texts = [render([Step("f", {"a": 1, "b": "x y"})] * n) for n in (SMALL, LARGE)]
    texts = [t if isinstance(t, str) else json.dumps(t) for t in texts]
    print(name, round(cpu(texts[1], fmt) / cpu(texts[0], fmt), 1))
'''


@pytest.mark.slow
def test_reading_grows_linearly_with_the_number_of_calls() -> None:
    """Each format's reader on 4,000 and 16,000 calls (as ek renders them): four times the calls, about four times
    the CPU time, not sixteen. Working out a line and column for every value, instead of for an error only,
    made qwen3-coder's, glm45's, DSML's and Llama's JSON readers quadratic (ten seconds on a megabyte)."""
    done = subprocess.run([sys.executable, "-c", _SCALING], capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    ratios = dict(line.rsplit(" ", 1) for line in done.stdout.splitlines())
    assert len(ratios) == len(RENDERERS) + 3, done.stdout  # and to_deepseek_v32, _v41, to_hunyuan_hy3
    assert {name: ratio for name, ratio in ratios.items() if float(ratio) >= 9} == {}, ratios


#: Shapes the readers accept besides ek's own rendering, each repeated: a documented variant of a format (a call
#: without Mistral's [ARGS]; Qwen3-Coder blocks whose </tool_call> was left out; Command A's skipped blocks), or
#: end-of-turn tokens piled at the end. Each read made a search to the end of the text, or a copy of it, per call
#: or per token, until an audit found them quadratic (seconds on one output under the size limit).
_VARIANT_SCALING = r'''
import sys, time
from ek.parsing import ParseError, parse_calls

COHERE_CALL = '<|START_ACTION|>[{"tool_call_id": "0", "tool_name": "f", "parameters": {}}]<|END_ACTION|>'
SHAPES = {
    "mistral without [ARGS]": ("mistral", lambda n: '[TOOL_CALLS]f{"x": 1}' * n),
    "auto, mistral without [ARGS]": ("auto", lambda n: '[TOOL_CALLS]f{"x": 1}' * n),
    "qwen3-coder without </tool_call>": ("qwen3-coder", lambda n: "<tool_call><function=f></function>" * n),
    "qwen3-coder lines without </tool_call>": (
        "qwen3-coder", lambda n: "<tool_call>\n<function=f>\n<parameter=x>\n1\n</parameter>\n</function>\n" * n),
    "cohere, skipped responses": ("cohere", lambda n: "<|START_RESPONSE|>x<|END_RESPONSE|>" * n + COHERE_CALL),
    "cohere, skipped texts": ("cohere", lambda n: "<|START_TEXT|>x<|END_TEXT|>" * n),
    "cohere, skipped thoughts": ("cohere", lambda n: "<|START_THINKING|>x<|END_THINKING|>" * n + COHERE_CALL),
    "mistral, end tokens": ("mistral", lambda n: "[TOOL_CALLS]f[ARGS]{}" + "</s>" * (4 * n)),
    "llama3, end tokens": ("llama3", lambda n: '{"name": "f", "parameters": {}}' + "<|eot_id|> " * (4 * n)),
    "deepseek, end tokens": ("deepseek", lambda n: "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>f<｜tool▁sep｜>{}"
                             "<｜tool▁call▁end｜><｜tool▁calls▁end｜>" + "<｜end▁of▁sentence｜>\n" * (4 * n)),
    "gemma4, bare calls before a far call": ("gemma4", lambda n: "call:f{} " * n + "<|tool_call>call:g{}<tool_call|>"),
    "gemma4, bare calls and thoughts": ("gemma4",
                                        lambda n: "call:f{}<|channel>x<channel|>" * n + "<|tool_call>call:g{}"),
}

def cpu(text, fmt):
    best = None
    for _ in range(3):
        started = time.process_time()
        try:
            parse_calls(text, fmt, max_size=len(text) + 1)
        except ParseError:
            pass
        spent = time.process_time() - started
        best = spent if best is None else min(best, spent)
    return max(best, 1e-4)

for name, (fmt, make) in SHAPES.items():
    print(name + "|" + str(round(cpu(make(16000), fmt) / cpu(make(4000), fmt), 1)))
'''


@pytest.mark.slow
def test_reading_variant_shapes_grows_linearly() -> None:
    """The accepted variants of :data:`_VARIANT_SCALING` at 4,000 and 16,000 repeats: about four times the CPU
    time, not sixteen (each measured at 11 to 15 before its fix)."""
    done = subprocess.run([sys.executable, "-c", _VARIANT_SCALING], capture_output=True, text=True, timeout=300,
                          check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    ratios = dict(line.rsplit("|", 1) for line in done.stdout.splitlines())
    assert len(ratios) == 12, done.stdout
    assert {name: ratio for name, ratio in ratios.items() if float(ratio) >= 9} == {}, ratios


def _with_stack_used(frames: int, fn: Any) -> Any:
    """``fn()`` called ``frames`` Python frames deep, as a worker process or a Ray task calls a reader."""
    return fn() if frames == 0 else _with_stack_used(frames - 1, fn)


@pytest.mark.parametrize("dots", [300, 450, 700, 1_500])
@pytest.mark.parametrize("fmt", ["python", "auto", "bfcl"])
def test_a_long_dotted_name_cut_short_is_a_parse_error_however_deep_the_caller(fmt: str, dots: int) -> None:
    """The message named the tool with ast.unparse, which recurses per dot: a RecursionError whose depth
    depended on the caller's stack, so --jobs 1, --jobs 2 and Ray counted different error lines."""
    text = "a" + ".b" * dots
    for frames in (0, 600):
        try:
            steps = _with_stack_used(frames, lambda: parse_calls(text, fmt))
        except ParseError as exc:
            assert "nests too deeply" in str(exc) or "ends after the tool name 'a.b.b" in str(exc)
        else:
            assert fmt in ("auto", "bfcl") and steps == []  # prose to auto and BFCL: no call


def test_python_text_past_the_token_limit_is_refused_before_pythons_parser() -> None:
    """Text that is not plain call text goes to ``ast.parse``, at hundreds of bytes a token: a megabyte of
    ``1,`` lines in a list peaked at 480 MB, of calls cut short at 350 MB. Past OUTPUT_AST_MAX_TOKENS it is
    refused, naming the limit."""
    items = OUTPUT_AST_MAX_TOKENS // 2 + 100  # "1," two tokens each
    numbers = "f(x=[\n" + "1,\n" * items + "])"
    for text, fmt in ((numbers, "python"), ("[" + "f(x=1),\n" * (items // 3), "python"),
                      (f"<function_calls>\n{numbers}\n</function_calls>", "olmo3"), (numbers, "auto")):
        with pytest.raises(ParseError, match="OUTPUT_AST_MAX_TOKENS"):
            parse_calls(text, fmt)
    fewer = numbers.replace("1,\n" * 200, "", 1)
    assert len(fewer) > OUTPUT_AST_MAX_TOKENS and parse_calls(fewer, "python") == [Step("f", {"x": [1] * (items - 200)})]
    # one long string is one token, however long, and a NUL keeps Python's own words
    assert parse_calls('f(x="""' + "a\\n" * 300_000 + '""")', "python") == [Step("f", {"x": "a\n" * 300_000})]
    with pytest.raises(ParseError, match="null bytes"):
        parse_calls(numbers + "\0", "python")
