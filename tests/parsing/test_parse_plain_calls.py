"""The fast path for plain call text gives exactly what Python's parser gives, or steps aside.

``_plain_calls`` reads most model output without ``ast``; whenever it returns
steps, they must equal (values and types) what the general path ``_from_ast``
returns for the same text, and the general path must accept that text.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ek.parsing import ParseError, parse_calls
from ek.parsing.python_calls import _from_ast, _plain_calls

# Values the fast path reads, and near misses it must leave to the general path.
_VALUES = ["'a'", '"b"', "''", "'it\"s'", "'é€'", "'\x0b\x85\u2028'", "1", "0", "-1", "+2", "1.5", "-0.0", "1e5",
           "1E-5", "0e1", "True", "False", "None", "[]", "{}"]
_ODD = ["012", "00", "00.5", ".5", "1.", "false", "x", "class", "__debug__", "'\\n'", "u'x'", "#", ";", "\n", "\r",
        "1_0", "0x1", "1j", "é", "*", "**", "'a' 'b'", "1if", "1e999", "9" * 1100, "\x0c", "\x00", "lambda", "==",
        "'''", "\\", "$", "(", ")", "[", "]", "{", "}", ",", ":", "=", "-", "+", " ", "\t", "--1", "-True", "(1,)"]
_NAMES, _ODD_NAMES = ["f", "g.h", "a.b.c", "print", "x1", "match"], ["True", "class", "f.None", "f g"]
_KEYS, _ODD_KEYS = ["a", "b", "type", "_x", "match"], ["class", "a.b", "__debug__", "1", "a b"]
_DICT_KEYS, _ODD_DICT_KEYS = ["'k'", "'j'", '"k"'], ["1", "k", "'k' 'j'"]


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
        return "[" + ", ".join(items) + draw(st.sampled_from(["", ","])) + "]"
    if kind == 11:
        keys = [_pick(draw, _DICT_KEYS, _ODD_DICT_KEYS) for _ in range(draw(st.integers(0, 3)))]
        return "{" + ", ".join(f"{key}: {_text(draw, depth + 1)}" for key in keys) + "}"
    return "".join(_text(draw, depth + 1) for _ in range(2))


def _call(draw: Any, depth: int) -> str:
    keys = [_pick(draw, _KEYS, _ODD_KEYS) for _ in range(draw(st.integers(0, 4)))]
    inner = ", ".join(f"{key}={_text(draw, depth)}" for key in keys)
    return f"{_pick(draw, _NAMES, _ODD_NAMES)}({inner}{draw(st.sampled_from(['', ',', ' ']))})"


@st.composite
def _outputs(draw: Any) -> str:
    """One call, calls separated by commas, or a list of them (the shapes a model answers in)."""
    calls = [_text(draw, 3) if draw(st.integers(0, 9)) == 0 else _call(draw, 1)
             for _ in range(draw(st.integers(1, 3)))]
    text = ", ".join(calls)
    return "[" + text + "]" if draw(st.booleans()) else text


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


@pytest.mark.parametrize("text", [
    "[f(a=1)]", "f(a=1)", "f(a=1),", "f(a=1), g.h()", "[]", "[f(a=1),]", "f (a = 1 ,)", "f(a=1)\t",
    "[f(a='x', b=-2.5, c=+3, d=[1, [True, None]], e={'k': {'j': []}}, g=1e-05, h=0.0, i=-0)]",
    "f(match=1, type='x', _=[])", "f(a=\"it's\")", "f(a='\x0b\x85\u2028é')",
    "f(a=00.5, b=-012e1, c=0e0, d=-0, e=+0.0)",  # leading zeros are fine in floats, and so are read here
])
def test_plain_outputs_take_the_fast_path(text: str) -> None:
    assert _assert_same(text)


@pytest.mark.parametrize("text", [
    "", " f(a=1)", "f(a=1)\ng()", "f(a=1); g()", "f(a='a' 'b')", "f(a=012)", "f(a=00)", "f(class=1)",
    "True(a=1)", "f.None(a=1)", "f(__debug__=1)", "f(a=1, a=2)", "f(a={'k': 1, 'k': 2})", "f(a=1e999)",
    "f(a=u'x')", "f(a='\\n')", "f(a=(1, 2))", "f(a=--1)", "f(a=-True)", "f(a=x)", "f(1)", "f(a=1) # done",
    "f(a=" + "9" * 1100 + ")", "f(a=" + "[" * 101 + "]" * 101 + ")", "a" + ".b" * 100 + "()", "f(a=1)" * 2,
])
def test_anything_else_takes_the_general_path(text: str) -> None:
    assert _plain_calls(text) is None


def test_long_or_hostile_text_goes_straight_to_pythons_parser() -> None:
    assert _plain_calls("[" + ", ".join(["f(a=1)"] * 4000) + "]") is None  # past 20,000 characters
    with pytest.raises(ParseError, match="nests too deeply"):
        parse_calls("f(x=" + "-" * 100_000 + "1)")


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


_AROUND = ["", " ", "\n", "\ufeff", "```python\n", "`", "x", "{", "[ ", "[\t", "[true, ", "[null]", "[true", "[null"]


@settings(max_examples=3000, deadline=None)
@given(_outputs(), st.sampled_from(_AROUND), st.sampled_from(["", " ", "\n", "\n```", ";", "x", "}", "]"]),
       st.sampled_from(["bfcl", "python"]))
def test_parse_calls_on_text_reads_as_the_formats_reader(text: str, before: str, after: str, fmt: str) -> None:
    """``parse_calls``' fast path for call text (``_plain_call_text``) gives what the bfcl and python readers
    give, steps or the very error, whatever surrounds the text (a BOM, a fence, spaces, JSON-like starts)."""
    text = before + text + after
    fast, general = _parsed(text, fmt), _reader(text, fmt)
    assert repr(fast) == repr(general), text  # repr: 1, 1.0 and True differ, and an error shows its message


@pytest.mark.parametrize("text", ["f (a=1)", "f\t(a=1)", "[true(a=1)]", "[null(a=1)]", "[]", "[ f(a=1)]",
                                  "\ufefff(a=1)", "f(a=1) ", "[f(a=1)];", "x f(a=1)", "é(a=1)"])
@pytest.mark.parametrize("fmt", ["bfcl", "python"])
def test_call_text_the_fast_path_must_leave_to_the_reader(text: str, fmt: str) -> None:
    assert repr(_parsed(text, fmt)) == repr(_reader(text, fmt))
