"""The fast path for plain call text gives exactly what Python's parser gives, or steps aside.

``_plain_calls`` reads most model output without ``ast``; whenever it returns
steps, they must equal (values and types) what the general path ``_from_ast``
returns for the same text, and the general path must accept that text.
"""

from __future__ import annotations

import contextlib
import tracemalloc
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ek.calls import Step
from ek.parsing import ParseError, parse_calls, python_calls
from ek.parsing.limits import DEFAULT_MAX_SIZE
from ek.parsing.python_calls import _from_ast, _plain_calls, _plain_lines

# Values the fast path reads, and near misses it must leave to the general path.
_VALUES = ["'a'", '"b"', "''", "'it\"s'", "'é€'", "'\x0b\x85\u2028'", "1", "0", "-1", "+2", "1.5", "-0.0", "1e5",
           "1E-5", "0e1", "True", "False", "None", "[]", "{}", "00.5", "-012.5", "0e0", "1.5e+3",
           "1e-999", "1" + "0" * 999]
_ODD = ["012", "00", ".5", "1.", "false", "x", "class", "__debug__", "'\\n'", "u'x'", "#", ";", "\n", "\r",
        "1_0", "0x1", "1j", "é", "*", "**", "'a' 'b'", "1if", "1e999", "-1e999", "9" * 1100, "1" + "0" * 1000,
        "\x0c", "\x00", "lambda", "==", "'''", "\\", "$", "(", ")", "[", "]", "{", "}", ",", ":", "=", "-", "+",
        " ", "\t", "- 1", "-\t2.5", "--1", "- -1", "-True", "-None", "- 'a'", "+[1]", "-(1)", "(1,)", "1e", "1.5.",
        "True1", "'a'x", "1:", "f(", "g(a=1)(b=2)"]
_NAMES, _ODD_NAMES = ["f", "g.h", "a.b.c", "print", "x1", "match"], ["True", "class", "f.None", "f g", "f.", "1f"]
#: "" writes the value alone: a positional argument.
_KEYS, _ODD_KEYS = ["a", "b", "type", "_x", "match"], ["class", "a.b", "__debug__", "1", "a b", "", "True"]
_DICT_KEYS, _ODD_DICT_KEYS = ["'k'", "'j'", '"k"'], ["1", "k", "'k' 'j'", "True", "-'k'"]
#: What joins arguments, items and calls (", " mostly), an argument's name and value ("=") and a dict's key and
#: value (": "): the spacing Python allows, and near misses.
_COMMAS, _ODD_COMMAS = [", ", ",", " , ", "\t,\t"], [" ", "", ";", ",,", "\n", ", ,"]
_EQUALS, _ODD_EQUALS = ["=", " = ", "\t="], ["==", ":", " ", "= ="]
_COLONS, _ODD_COLONS = [": ", ":", " : "], ["=", " ", "::"]


def _pick(draw: Any, plain: list[str], odd: list[str]) -> str:
    """Mostly a plain piece, one time in ten an odd one."""
    return str(draw(st.sampled_from(odd if draw(st.integers(0, 9)) == 0 else plain)))


def _text(draw: Any, depth: int = 0) -> str:
    """Mostly plain call text, with a near miss now and then (an odd piece, two pieces run together)."""
    kind = draw(st.integers(0, 24 if depth < 3 else 5))
    if kind == 0:
        return str(draw(st.sampled_from(_ODD)))
    if kind <= 5 or kind > 12:
        return str(draw(st.sampled_from(_VALUES)))
    if kind <= 8:
        return _call(draw, depth + 1)
    if kind <= 10:
        items = [_text(draw, depth + 1) for _ in range(draw(st.integers(0, 3)))]
        return "[" + _joined(draw, items) + draw(st.sampled_from(["", ",", " "])) + "]"
    if kind == 11:
        keys = [_pick(draw, _DICT_KEYS, _ODD_DICT_KEYS) for _ in range(draw(st.integers(0, 3)))]
        return "{" + _joined(draw, [key + _pick(draw, _COLONS, _ODD_COLONS) + _text(draw, depth + 1)
                                    for key in keys]) + "}"
    return "".join(_text(draw, depth + 1) for _ in range(2))


def _joined(draw: Any, items: list[str]) -> str:
    """``items`` joined by commas, each with its own spacing (a near miss now and then)."""
    return "".join((_pick(draw, _COMMAS, _ODD_COMMAS) if i else "") + item for i, item in enumerate(items))


def _call(draw: Any, depth: int) -> str:
    keys = [_pick(draw, _KEYS, _ODD_KEYS) for _ in range(draw(st.integers(0, 4)))]
    inner = _joined(draw, [(key + _pick(draw, _EQUALS, _ODD_EQUALS) if key else "") + _text(draw, depth)
                           for key in keys])
    opening = draw(st.sampled_from(["(", "(", "(", " (", "( "]))
    return f"{_pick(draw, _NAMES, _ODD_NAMES)}{opening}{inner}{draw(st.sampled_from(['', ',', ' ', ', ']))})"


@st.composite
def _outputs(draw: Any) -> str:
    """One call, calls separated by commas, or a list of them (the shapes a model answers in), near misses
    around them now and then (a list and a call, a list in a list, a bracket left open)."""
    calls = [_text(draw, 3) if draw(st.integers(0, 9)) == 0 else _call(draw, 1)
             for _ in range(draw(st.integers(1, 3)))]
    text = _joined(draw, calls) + draw(st.sampled_from(["", "", ",", " ", "\t", ", "]))
    opening, closing = draw(st.sampled_from([("[", "]")] * 4 + [("", "")] * 4 + [("[ ", " ]"), ("[\t", "]")]
                                            + [("[[", "]]"), ("", "]"), ("[", "")]))
    return opening + text + closing


def _general(text: str) -> Any:
    try:
        return _from_ast(text)
    except ParseError as error:
        return error


def _assert_same(text: str) -> bool:
    fast = _plain_calls(text)
    if fast is None:
        return False
    general = _general(text)
    assert isinstance(general, list), (text, general)
    assert repr(fast) == repr(general), text  # repr: 1, 1.0 and True differ, as -0.0 and 0.0 do
    return True


@settings(max_examples=3000, deadline=None)
@given(_outputs())
def test_plain_text_reads_as_pythons_parser_reads_it(text: str) -> None:
    _assert_same(text)


def _plain_value(draw: Any, depth: int) -> str:
    """A value from plain pieces only (no near miss): the fast path must read every text made of them."""
    kind = draw(st.integers(0, 9 if depth < 4 else 6))
    if kind <= 6:
        return str(draw(st.sampled_from(_VALUES)))
    comma = st.sampled_from(_COMMAS)
    if kind <= 8:
        items = [_plain_value(draw, depth + 1) for _ in range(draw(st.integers(0, 3)))]
        return "[" + "".join((draw(comma) if i else "") + item for i, item in enumerate(items)) + "]"
    keys = draw(st.lists(st.sampled_from(["'k'", "'j'", '"i"', "''"]), max_size=3, unique=True))
    entries = [key + draw(st.sampled_from(_COLONS)) + _plain_value(draw, depth + 1) for key in keys]
    return "{" + "".join((draw(comma) if i else "") + entry for i, entry in enumerate(entries)) + "}"


@st.composite
def _plain_outputs(draw: Any) -> str:
    """Calls of plain pieces with any spacing Python allows, alone, separated by commas or in a list."""
    calls = []
    for _ in range(draw(st.integers(1, 3))):
        keys = draw(st.lists(st.sampled_from(_KEYS), max_size=4, unique=True))
        args = [key + draw(st.sampled_from(_EQUALS)) + _plain_value(draw, 0) for key in keys]
        inner = "".join((draw(st.sampled_from(_COMMAS)) if i else "") + arg for i, arg in enumerate(args))
        end = draw(st.sampled_from(["", ",", " ", ", "])) if args else draw(st.sampled_from(["", " "]))
        calls.append(draw(st.sampled_from(_NAMES)) + draw(st.sampled_from(["(", " (", "( "])) + inner + end + ")")
    text = "".join((draw(st.sampled_from(_COMMAS)) if i else "") + call for i, call in enumerate(calls))
    opening, closing = draw(st.sampled_from([("[", "]"), ("", ""), ("[ ", " ]"), ("[\t", ",]"), ("", ",")]))
    return opening + text + closing + draw(st.sampled_from(["", " ", "\t"]))


@settings(max_examples=1500, deadline=None)
@given(_plain_outputs())
def test_plain_texts_take_the_fast_path_and_read_as_pythons_parser_reads_them(text: str) -> None:
    assert _assert_same(text), text


@pytest.mark.parametrize("text", [
    "[f(a=1)]", "f(a=1)", "f(a=1),", "f(a=1), g.h()", "[]", "[f(a=1),]", "f (a = 1 ,)", "f(a=1)\t",
    "[f(a='x', b=-2.5, c=+3, d=[1, [True, None]], e={'k': {'j': []}}, g=1e-05, h=0.0, i=-0)]",
    "f(match=1, type='x', _=[])", "f(a=\"it's\")", "f(a='\x0b\x85\u2028é')",
    "f(a=00.5, b=-012e1, c=0e0, d=-0, e=+0.0)",  # leading zeros are fine in floats, and so are read here
    "[ f( a = 1 , b=-2 ) , g() , ]", "f(a=[1, 'x', [], {'k': -1.5}], b={'k': [None], 'j': {}})",
    "f(a=1" + "0" * 999 + ")", "[f(a=" + "[" * 62 + "]" * 62 + ")]", "f(a=" + "{'k': " * 63 + "1" + "}" * 63 + ")",
])
def test_plain_outputs_take_the_fast_path(text: str) -> None:
    assert _assert_same(text)


@pytest.mark.parametrize("text", [
    "", " f(a=1)", "f(a=1)\ng()", "f(a=1); g()", "f(a='a' 'b')", "f(a=012)", "f(a=00)", "f(class=1)",
    "True(a=1)", "f.None(a=1)", "f(__debug__=1)", "f(a=1, a=2)", "f(a={'k': 1, 'k': 2})", "f(a=1e999)",
    "f(a=u'x')", "f(a='\\n')", "f(a=(1, 2))", "f(a=--1)", "f(a=-True)", "f(a=x)", "f(1)", "f(a=1) # done",
    "f(a=" + "9" * 1100 + ")", "f(a=" + "[" * 101 + "]" * 101 + ")", "a" + ".b" * 100 + "()", "f(a=1)" * 2,
    "f(a=1" + "0" * 1000 + ")", "[f(a=" + "[" * 63 + "]" * 63 + ")]", "f(a=" + "{'k': " * 64 + "1" + "}" * 64 + ")",
    "f(g(a=1))", "f(a=1, g(b=1))", "f(a=g(b=1))", "[f(a=1)], g()", "[f(a=1)]]", "[[f(a=1)]]", "f(a=1) g()",
    "f(a=1),, g()", "[,]", "f(,)", "f(a=1,,)", "f(a=- 'x')", "f(a=[1] 2)", "f(a=[1 2])", "f(a={'k' 1})",
    "f(g(a=1)", "[f(g(a=1)]", "f(a=1, g(b=2)", "f(a=-1e999)", "f(a=[1e999])", "f(a={'k': -1e999})",
])
def test_anything_else_takes_the_general_path(text: str) -> None:
    assert _plain_calls(text) is None


def test_long_plain_text_is_read_as_pythons_parser_reads_it() -> None:
    """Past 20,000 characters the tokens are matched as they are read (``_StreamedTokens``), not listed first."""
    text = "[" + ", ".join(f"f(a={i}, b=['x', {{'k': -1.5}}])" for i in range(1000)) + "]"
    assert len(text) > python_calls._PLAIN_MAX_CHARS
    assert _assert_same(text)
    assert _plain_calls(text[:-2] + "1)]") is None  # a positional argument at the very end: the general path
    with pytest.raises(ParseError, match="nests too deeply"):
        parse_calls("f(x=" + "-" * 40_000 + "1)")


def test_text_past_the_default_size_goes_to_pythons_parser() -> None:
    text = "[" + ", ".join(["f(a=1)"] * 200_000) + "]"
    assert len(text) > DEFAULT_MAX_SIZE
    assert _plain_calls(text) is None
    with pytest.raises(ParseError, match="more than the limit"):
        parse_calls(text)


def test_a_plain_megabyte_of_calls_parses_in_the_memory_of_its_steps() -> None:
    """A model repeating one call until its budget ends: a megabyte of ``g(x=1)``. Python's parser peaked at
    about 590 MB for it (600 bytes a token), the list of its tokens at 75 MB; read token by token, the peak is
    the steps themselves (about 37 MB for 142,856 calls)."""
    text = "[" + ",".join(["g(x=1)"] * ((DEFAULT_MAX_SIZE - 2) // 7)) + "]"
    tracemalloc.start()
    try:
        steps = parse_calls(text, format="python")
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert len(steps) == len(text) // 7 and steps[-1] == Step("g", {"x": 1})
    assert peak < 80 * 1024 * 1024, peak


@contextlib.contextmanager
def _streamed_from(chars: int) -> Iterator[None]:
    """The fast path with texts longer than ``chars`` tokenized as they are read."""
    saved = python_calls._PLAIN_MAX_CHARS
    python_calls._PLAIN_MAX_CHARS = chars
    try:
        yield
    finally:
        python_calls._PLAIN_MAX_CHARS = saved


@settings(max_examples=1500, deadline=None)
@given(_outputs())
def test_tokens_read_as_they_are_matched_give_what_the_list_of_them_gives(text: str) -> None:
    listed = _plain_calls(text)
    with _streamed_from(0):
        streamed = _plain_calls(text)
    assert repr(streamed) == repr(listed), text


def test_streamed_tokens_refuse_to_go_back() -> None:
    tokens = python_calls._StreamedTokens("f(a=1, b=2)")
    assert tokens[0] == tokens[0] and tokens[1][1] == "b"
    with pytest.raises(AssertionError, match="token 0 asked for after token 1"):
        tokens[0]
    assert tokens[2] is python_calls._END and tokens[3] is python_calls._END


def _reader(text: str, fmt: str) -> Any:
    """What the built-in reader of ``fmt`` gives (the way parse_calls went before its plain-text fast path)."""
    from ek.parsing import registry
    from ek.parsing.limits import DEFAULT_LIMITS

    try:
        return registry.get(fmt).read(text, registry.Reading(DEFAULT_LIMITS, None, fmt))
    except ParseError as error:
        return error


def _parsed(text: str, fmt: str) -> Any:
    try:
        return parse_calls(text, fmt, types=lambda tool, arg: None)
    except ParseError as error:
        return error


#: What may come before the text: a BOM, a fence, spaces, JSON-like starts, prose, and what auto reads as a
#: marker or a reasoning block.
_AROUND = ["", " ", "\n", "\ufeff", "```python\n", "`", "x", "{", "[ ", "[\t", "[true, ", "[null]", "[true", "[null",
           "[TOOL_CALLS]", "functools", "<think>a</think>", "a</think>", "<tool_call>", "Sure: ", "x = "]


@settings(max_examples=3000, deadline=None)
@given(_outputs(), st.sampled_from(_AROUND),
       st.sampled_from(["", " ", "\n", "\n```", ";", "x", "}", "]", "<|eom_id|>", " functools[f()]"]),
       st.sampled_from(["bfcl", "python", "auto"]))
def test_parse_calls_on_text_reads_as_the_formats_reader(text: str, before: str, after: str, fmt: str) -> None:
    """``parse_calls``' fast paths for call text (``_plain_call_text``, and ``_plain_auto_text`` for auto) give
    what the bfcl, python and auto readers give, steps or the very error, whatever surrounds the text."""
    text = before + text + after
    fast, general = _parsed(text, fmt), _reader(text, fmt)
    assert repr(fast) == repr(general), text  # repr: 1, 1.0 and True differ, and an error shows its message


@pytest.mark.parametrize("text", ["f (a=1)", "f\t(a=1)", "[true(a=1)]", "[null(a=1)]", "[]", "[ f(a=1)]",
                                  "\ufefff(a=1)", "f(a=1) ", "[f(a=1)];", "x f(a=1)", "é(a=1)", "(a=1)",
                                  "[TOOL_CALLS]f(a=1)", "x</think>f(a=1)", "[f(a='<think>')]", "[f(a='</think>')]",
                                  "functools[f(a=1)]", "[f(a='[TOOL_CALLS]')]", "[f(a='<|eot_id|>')]"])
@pytest.mark.parametrize("fmt", ["bfcl", "python", "auto"])
def test_call_text_the_fast_path_must_leave_to_the_reader(text: str, fmt: str) -> None:
    assert repr(_parsed(text, fmt)) == repr(_reader(text, fmt))


def test_auto_leaves_call_text_to_a_registered_format_that_detects_it() -> None:
    # auto's fast path for call text steps aside once a format of the user's may claim the text.
    from ek.parsing import register_format, unregister_format

    assert parse_calls("f(a=1)") == [Step("f", {"a": 1})]
    register_format("shouty", lambda text: [(text.upper(), {})], detect=lambda out: isinstance(out, str))
    try:
        assert parse_calls("f(a=1)") == parse_calls("f(a=1)", "shouty") == [Step("F(A=1)", {})]
        assert parse_calls("[f(a=1)]") == [Step("[F(A=1)]", {})]
        assert parse_calls("[f(a=1)]", "python") == [Step("f", {"a": 1})]
    finally:
        unregister_format("shouty")
    assert parse_calls("f(a=1)") == [Step("f", {"a": 1})]


def test_the_fast_path_stays_within_the_default_limits() -> None:
    """What lets parse_calls skip check_text for a text _plain_calls reads (see api._plain_call_text)."""
    from ek.parsing.limits import DEFAULT_MAX_DEPTH, DEFAULT_MAX_SIZE
    from ek.parsing.python_calls import _PLAIN_MAX_DEPTH, _PLAIN_MAX_SIZE

    assert _PLAIN_MAX_DEPTH == DEFAULT_MAX_DEPTH and _PLAIN_MAX_SIZE <= DEFAULT_MAX_SIZE


def _nested(depth: int, shape: str) -> str:
    """A call whose brackets (its own and the outer list's included) nest ``depth`` deep."""
    listed = shape.startswith("[")
    inner = depth - 1 - listed
    value = "[" * inner + "]" * inner if shape.endswith("list") else "{'k': " * inner + "1" + "}" * inner
    return f"[f(a={value})]" if listed else f"f(a={value})"


@pytest.mark.parametrize("depth", [62, 63, 64, 65, 66])
@pytest.mark.parametrize("shape", ["f list", "f dict", "[f list", "[f dict"])
@pytest.mark.parametrize("fmt", ["bfcl", "python"])
def test_nesting_at_the_depth_limit_reads_as_the_formats_reader(depth: int, shape: str, fmt: str) -> None:
    """At the default depth limit (64) and past it, parse_calls (whose fast path skips check_text) gives what
    the reader gives: the steps up to the limit, the very nesting error past it."""
    text = _nested(depth, shape)
    assert (_plain_calls(text) is not None) == (depth <= 64)
    assert repr(_parsed(text, fmt)) == repr(_reader(text, fmt))
    assert isinstance(_parsed(text, fmt), ParseError) == (depth > 64)


@st.composite
def _lines(draw: Any) -> str:
    """Outputs one a line (OLMo 3's shape), blank lines and near misses among them: an indented line, a call
    or a list across two lines, a line of spaces, Windows line ends."""
    lines = [draw(st.one_of(_outputs(), _plain_outputs())) for _ in range(draw(st.integers(1, 4)))]
    for _ in range(draw(st.integers(0, 2))):
        at = draw(st.integers(0, len(lines)))
        lines.insert(at, draw(st.sampled_from(["", " ", "\t", "  f(a=1)", "f(a=[1,", "2])", "[f(a=1),", "g()]", "#",
                                               "f(a=1)\r", "'''", "\x0c"])))
    return "\n".join(lines) + draw(st.sampled_from(["", "\n", "\n\n", " "]))


@settings(max_examples=3000, deadline=None)
@given(_lines())
def test_calls_on_several_lines_read_as_pythons_parser_reads_them(text: str) -> None:
    fast = _plain_lines(text)
    if fast is not None:
        general = _general(text)
        assert isinstance(general, list), (text, general)
        assert repr(fast) == repr(general), text


def test_plain_calls_one_a_line_take_the_fast_path_whatever_their_number() -> None:
    """ast.parse holds hundreds of bytes a token and refuses text past OUTPUT_AST_MAX_TOKENS: calls one a line,
    plain each, never go there (a model's 20,000 calls are read, in the memory of their steps)."""
    text = "\n".join(["f(a=1, b='x y')"] * 20_000) + "\n"
    assert _plain_lines(text) == parse_calls(text, "python") == parse_calls(
        f"<function_calls>\n{text}</function_calls>", "olmo3") == [Step("f", {"a": 1, "b": "x y"})] * 20_000
    assert _plain_lines("f(a=1)\n  g()") is None and _plain_lines("f(a=[1,\n2])") is None
