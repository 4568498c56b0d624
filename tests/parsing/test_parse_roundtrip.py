"""Properties: rendering calls in any format and parsing them back is the identity;
arbitrary text and bytes only ever raise ParseError."""

from __future__ import annotations

import json
import keyword

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ek.calls import Step
from ek.parsing import RENDERERS, ParseError, parse_calls

identifiers = st.from_regex(r"[A-Za-z_][A-Za-z0-9_]{0,8}", fullmatch=True).filter(
    lambda s: not keyword.iskeyword(s)
)
scalars = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(10**30), max_value=10**30)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=20)
)
values = st.recursive(
    scalars,
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=6), children, max_size=4),
    max_leaves=12,
)
tool_names = st.lists(identifiers, min_size=1, max_size=3).map(".".join)
calls = st.lists(
    st.builds(Step, tool_names, st.dictionaries(identifiers, values, max_size=4)),
    max_size=4,
)


@pytest.mark.slow
@settings(max_examples=150, deadline=None)
@given(calls, st.sampled_from(sorted(RENDERERS)))
def test_parse_of_render_is_identity(steps: list[Step], fmt: str) -> None:
    rendered = RENDERERS[fmt](steps)
    assert parse_calls(rendered, fmt) == steps
    if fmt != "bfcl":  # auto never takes a one-key object for a BFCL call
        assert parse_calls(rendered) == steps
    if not isinstance(rendered, str):
        assert parse_calls(json.dumps(rendered), fmt) == steps


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=200), st.sampled_from(["auto", "python", "openai", "anthropic", "json", "bfcl", "hermes"]))
def test_arbitrary_text_only_raises_parse_error(text: str, fmt: str) -> None:
    try:
        result = parse_calls(text, fmt)
    except ParseError:
        return
    assert all(isinstance(step, Step) for step in result)


python_ish = st.text(alphabet="f(x=[]{}),'\"\\#:.-+ 1a\n", max_size=80)


@settings(max_examples=200, deadline=None)
@given(python_ish | st.binary(max_size=80))
def test_call_like_noise_and_bytes_only_raise_parse_error(output: str | bytes) -> None:
    try:
        parse_calls(output)
    except ParseError:
        pass


def test_values_python_cannot_write_are_named_with_their_call_and_argument() -> None:
    import pytest

    from ek.parsing import to_python

    with pytest.raises(ValueError, match=r"call 1 \('g'\), argument 'x'\[1\]: set has no literal form"):
        to_python([Step("f", {}), Step("g", {"x": [1, {2}]})])
    with pytest.raises(ValueError, match=r"call 0 \('f'\), argument 'y'\['k'\]: nan has no literal form"):
        to_python([Step("f", {"y": {"k": float("nan")}})])


#: Names made of pieces a format may not hold: each format's tokens, brackets, quotes, separators, spaces.
_HOSTILE_PIECES = [*"ab_.:-/ \n\t\"'<>[]{}()=,|`&$@!#*+", "</parameter>", "[ARGS]", "[CALL_ID]", "</tool_call>",
                   "```", "<|", "<｜", "\u2028", "\xa0", "é"]
hostile_names = st.lists(st.sampled_from(_HOSTILE_PIECES), max_size=5).map("".join)


@pytest.mark.slow
@settings(max_examples=600, deadline=None)
@given(hostile_names, hostile_names, st.sampled_from(sorted(RENDERERS)))
def test_render_refuses_the_names_a_format_cannot_hold(tool: str, key: str, fmt: str) -> None:
    """``render`` writes only what reads back as the same calls, and refuses the rest with a ValueError: a name that
    would end early, lose its spaces, open a token or be empty (Qwen3-Coder wrote ``{"a>b": 1}`` as a call reading
    back ``{"a": "b>\\n1"}``)."""
    from ek.parsing import render

    steps = [Step(tool, {key: 1})]
    try:
        rendered = render(steps, fmt)
    except ValueError:
        return
    assert parse_calls(rendered if isinstance(rendered, str) else json.dumps(rendered), fmt) == steps
