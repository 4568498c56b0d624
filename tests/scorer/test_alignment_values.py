"""An alignment keeps each value whole, or its text cut, exactly as its JSON text's length decides, whether or not
the text is written (``_kept``'s fast path for scalars that cannot be too long)."""

from __future__ import annotations

import math
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from ek.scorer.alignment import Shown, _kept, plain, show
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
    got, want = _kept(value, limit), measured(value, limit)
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
