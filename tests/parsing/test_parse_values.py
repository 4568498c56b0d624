"""``already_plain`` says exactly when ``plain_args`` would hand back its input unchanged (the checker's fast path)."""

from __future__ import annotations

import enum
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ek.parsing import ParseError
from ek.parsing.limits import Limits
from ek.parsing.values import already_plain, plain_args


class Size(enum.IntEnum):
    BIG = 3


class Text(str):
    pass


_SCALARS = (st.none() | st.booleans() | st.integers(-5, 5)
            | st.floats(allow_nan=True, allow_infinity=True) | st.text(max_size=6)
            | st.sampled_from([Size.BIG, Text("t"), b"x", frozenset()]))
_VALUES = st.recursive(
    _SCALARS,
    lambda inner: st.lists(inner, max_size=4) | st.tuples(inner, inner)
    | st.dictionaries(st.text(max_size=4), inner, max_size=4)
    | st.dictionaries(st.integers(0, 3) | st.just(Text("k")), inner, max_size=2),
    max_leaves=20,
)
_ARGS = st.dictionaries(st.text(max_size=4), _VALUES, max_size=5)


def _identical(a: Any, b: Any) -> bool:
    """Equal, with the same exact type at every level (``1 == True`` and ``[1] == (1,)`` do not count)."""
    if type(a) is not type(b):
        return False
    if type(a) is dict:
        return list(a) == list(b) and all(type(k) is str and type(j) is str and _identical(a[k], b[j])
                                          for k, j in zip(a, b))
    if type(a) is list:
        return len(a) == len(b) and all(_identical(x, y) for x, y in zip(a, b))
    return a == b or a != a and b != b  # NaN is itself


@settings(max_examples=400, deadline=None)
@given(args=_ARGS, max_size=st.integers(1, 60), max_depth=st.integers(1, 4))
def test_already_plain_is_plain_args_returning_its_input(args: dict[str, Any], max_size: int, max_depth: int) -> None:
    limits = Limits(max_size=max_size, max_depth=max_depth)
    try:
        unchanged = _identical(plain_args(args, "$", limits, "json"), args)
    except ParseError:
        unchanged = False
    assert already_plain(args, limits) is unchanged


def test_the_size_budget_and_the_depth_limit_are_plain_args_own() -> None:
    args = {"x": "a" * 10}
    units = 1 + len("x") + 10
    assert already_plain(args, Limits(max_size=units)) and not already_plain(args, Limits(max_size=units - 1))
    nested = {"x": [[1]]}
    assert already_plain(nested, Limits(max_depth=3)) and not already_plain(nested, Limits(max_depth=2))


def test_integers_past_the_digit_limit_are_not_plain() -> None:
    assert already_plain({"x": 10**4299, "y": [-(10**4299)]}, Limits())
    for big in (10**4300, -(10**4300), 10**5000):
        assert not already_plain({"x": big}, Limits()) and not already_plain({"x": [{"y": big}]}, Limits())


def _qwen3_coder(value: str) -> str:
    return f"<tool_call>\n<function=f>\n<parameter=x>\n{value}\n</parameter>\n</function>\n</tool_call>"


def _minimax_m3(value: str) -> str:
    ns = "]<]minimax[>["
    return f'{ns}<tool_call>\n{ns}<invoke name="f">{ns}<x>{value}{ns}</x>{ns}</invoke>\n{ns}</tool_call>'



@pytest.mark.parametrize("write", [_qwen3_coder, _minimax_m3])
@pytest.mark.parametrize("value", ["-Infinity", "Infinity", "NaN", "[1, NaN]", '{"a": -Infinity}'])
def test_an_untyped_value_with_nan_or_an_infinity_is_its_text(write: Any, value: str) -> None:
    # Not JSON (its grammar has no such numbers), so the text, as "NaN" always was: "-Infinity" raised, as if it
    # were a limit, and a string "-Infinity" could not be written and read back.
    from ek.calls import Step
    from ek.parsing import parse_calls
    from ek.parsing.render import to_minimax_m3, to_qwen3_coder

    assert parse_calls(write(value)) == [Step("f", {"x": value})]
    for render in (to_qwen3_coder, to_minimax_m3):
        assert parse_calls(render([Step("f", {"x": value})])) == [Step("f", {"x": value})]


@pytest.mark.parametrize("value", ["1e999", '{"a": 1, "a": 2}'])
def test_an_untyped_value_of_json_syntax_that_ek_refuses_is_still_an_error(value: str) -> None:
    from ek.parsing import parse_calls

    with pytest.raises(ParseError, match="too large for a float|duplicate key"):
        parse_calls(_qwen3_coder(value))
