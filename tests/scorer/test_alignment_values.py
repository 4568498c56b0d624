"""An alignment keeps each value whole, or its text cut, exactly as its JSON text's length decides, whether or not
the text is written (``_kept``'s fast path for scalars that cannot be too long)."""

from __future__ import annotations

import math
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from ek.scorer.alignment import Shown, _kept, _show, plain, show, show_plain
from ek.values import OMITTABLE, OneOf


def measured(value: Any, limit: int) -> Any:
    """What ``_kept`` gives by writing the text and measuring it (its general path)."""
    data = plain(value)
    text = show(data)
    return data if len(text) <= limit else Shown(f"{text[:limit]}… ({len(text):,} characters)")


SCALARS = (st.text() | st.text(alphabet="\x00\x1f\x7f\"\\\u2028é𝄞", max_size=60) | st.floats(allow_nan=True)
           | st.sampled_from([-1.7976931348623157e308, 5e-324, -0.0, math.inf, -math.inf]) | st.booleans()
           | st.none() | st.integers() | st.sampled_from([2**63 - 1, -(2**63), 2**63, 10**30, -(10**19)]))
VALUES = st.recursive(SCALARS | st.just(OMITTABLE), lambda inner: st.lists(inner, max_size=3)
                      | st.dictionaries(st.text(max_size=3), inner, max_size=3)
                      | st.lists(SCALARS, min_size=1, max_size=3).map(lambda xs: OneOf(*xs)), max_leaves=5)


def assert_kept_as_measured(value: Any, limit: int) -> None:
    want = measured(value, limit)
    memo: dict[int, Any] = {}
    # the general path, and the alignment's memo (_plain_text) when it first meets the value and when it has it
    for got in (_kept(value, limit), _kept(value, limit, memo), _kept(value, limit, memo)):
        assert type(got) is type(want)
        assert got == want or (isinstance(got, float) and math.isnan(got) and math.isnan(want))


@settings(max_examples=1500, deadline=None)
@given(value=VALUES, limit=st.integers(0, 400) | st.integers(0, 30) | st.sampled_from([23, 24, 25, 300]))
def test_a_value_is_kept_as_measuring_its_text_decides(value: Any, limit: int) -> None:
    assert_kept_as_measured(value, limit)


@settings(max_examples=500, deadline=None)
@given(text=st.text(alphabet="\x00\x1f\n\"\\é", min_size=1, max_size=60), slack=st.integers(-3, 3))
def test_a_string_of_escapes_is_kept_as_measuring_its_text_decides(text: str, slack: int) -> None:
    """Around the limits where it matters: between the string's length and its text's."""
    for limit in (len(text) + 2 + slack, len(show(text)) + slack, 6 * len(text) + 2 + slack):
        assert_kept_as_measured(text, max(limit, 0))


def test_the_bounds_are_tight_where_they_are_used() -> None:
    """The longest texts the fast path assumes are the texts JSON writes."""
    assert len(show(-1.7976931348623157e308)) == 24 and len(show(-(2**63))) == 20
    assert len(show("\x1f")) == 6 + 2


def encoded_then_walked(value: Any) -> Any:
    """``plain`` as it was before its fast path: the value encoded (:func:`ek.goldjson.encode_value`), then walked."""
    from ek.goldjson import encode_value
    from ek.parsing.values import int_too_long
    from ek.runtime.violation import safe_repr

    value = encode_value(value)
    if isinstance(value, dict):
        return {str(k): encoded_then_walked(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [encoded_then_walked(v) for v in value]
    if isinstance(value, int) and not isinstance(value, bool) and int_too_long(value):
        return safe_repr(value)
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    return safe_repr(value)


def same_data(a: Any, b: Any) -> bool:
    """Equal, of the same types all the way down (NaN equal to NaN)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return list(a) == list(b) and all(same_data(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(same_data(x, y) for x, y in zip(a, b))
    return a == b or (isinstance(a, float) and math.isnan(a) and math.isnan(b))


class _Flag(int):
    """An int subclass (an IntEnum's kind): kept as it is, not read as an exact int."""


ODD = (st.sampled_from([_Flag(3), (1, "a"), frozenset({1}), b"x", 2**64])
       | st.builds(lambda negative: -(10**5000) if negative else 10**5000, st.booleans()))  # repr-less: built
PLAIN_OR_ODD = st.recursive(SCALARS | ODD | st.just(OMITTABLE), lambda inner: st.lists(inner, max_size=3)
                            | st.tuples(inner, inner)
                            | st.dictionaries(st.text(max_size=3) | st.integers(0, 3) | st.none(), inner, max_size=3)
                            | st.lists(inner, min_size=1, max_size=3).map(lambda xs: OneOf(*xs)), max_leaves=8)


@settings(max_examples=1500, deadline=None)
@given(value=PLAIN_OR_ODD)
def test_plain_reads_plain_data_as_encoding_it_first_would(value: Any) -> None:
    """``plain``'s fast path for exact str/int/float/bool/None, dicts and lists gives what encoding the value
    and walking the result gives, type for type, with markers, tuples, subclasses and huge ints around it."""
    assert same_data(plain(value), encoded_then_walked(value))


@settings(max_examples=1500, deadline=None)
@given(value=PLAIN_OR_ODD | SCALARS | st.sampled_from([True, False, None, math.nan, 1e308 * 10, -1e308 * 10]))
def test_show_writes_a_value_as_json_dumps_writes_it(value: Any) -> None:
    """``show``'s fast path for exact str/int/float/bool/None writes what ``json.dumps`` writes (NaN, the
    infinities, the bounds of float and subclasses left to the encoder)."""
    import json

    assert show(value) == json.dumps(plain(value), ensure_ascii=False, sort_keys=False)
    assert show(Shown("x y")) == "x y"


_ARGS = st.dictionaries(st.sampled_from(["x", "y", "z"]), st.integers(0, 2) | st.sampled_from(["s", "t"]), max_size=3)
_CALLS = st.lists(st.tuples(st.sampled_from(["a", "b"]), _ARGS), max_size=3)


@settings(max_examples=200, deadline=None)
@given(_CALLS, _CALLS, st.sampled_from(["arg", "call"]))
def test_an_explanations_errors_read_from_its_rows_are_its_fp_and_fn_units(pred: list[Any], gold: list[Any],
                                                                           level: str) -> None:
    """Explanation.errors() while the units are rows (only the FP and FN rows built) gives the units the general
    path keeps, in their order; and the same once the units are built."""
    from ek.scorer.accounting import TP
    from ek.scorer.metric import ToolCallMetric

    metric = ToolCallMetric(level)
    fresh, built = metric(pred, gold).explanation, metric(pred, gold).explanation
    want = tuple(u for u in built.units if u.kind != TP)
    assert fresh.errors() == want and built.errors() == want


@settings(max_examples=500, deadline=None)
@given(VALUES | VALUES.map(lambda v: (v,)) | st.sampled_from([Shown("x… (9 characters)")]))
def test_a_value_is_shown_through_the_memo_as_show_shows_it(value: Any) -> None:
    """_show (an alignment's show, each value that is not a plain scalar written once) is show's text."""
    from ek.scorer.accounting import ABSENT

    memo: dict[int, Any] = {}
    assert _show(value, memo) == show(value) == _show(value, memo)
    assert _show(ABSENT, memo) == show(ABSENT)


@settings(max_examples=500, deadline=None)
@given(VALUES | VALUES.map(lambda v: (v,)), st.integers(0, 60) | st.none())
def test_what_an_alignment_keeps_is_shown_as_it_is_as_show_shows_it(value: Any, limit: int | None) -> None:
    """show_plain (the HTML report's text of an alignment's values) is show's text of what _kept keeps."""
    kept = _kept(value, limit)
    assert show_plain(kept) == show(kept)
