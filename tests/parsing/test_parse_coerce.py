"""Gold calls given as data: coerce_call and parse_call_list."""

from __future__ import annotations

import pytest

from ek.calls import Step
from ek.parsing import coerce_call, parse_call_list
from ek.values import OMITTABLE, OneOf


@pytest.mark.parametrize(
    "obj",
    [
        Step("f", {"x": 1}),
        ("f", {"x": 1}),
        ["f", {"x": 1}],
        {"name": "f", "arguments": {"x": 1}},
        {"name": "f", "arguments": '{"x": 1}'},
        {"name": "f", "parameters": {"x": 1}},
        {"name": "f", "args": {"x": 1}},
        {"type": "tool_use", "id": "t", "name": "f", "input": {"x": 1}},
        {"id": "c", "type": "function", "function": {"name": "f", "arguments": '{"x": 1}'}},
        {"f": {"x": 1}},
        {"type": "function_call", "call_id": "c", "name": "f", "arguments": '{"x": 1}'},
    ],
)
def test_every_single_call_shape(obj: object) -> None:
    assert coerce_call(obj, "gold[0]") == Step("f", {"x": 1})


def test_gold_markers_pass_through_untouched() -> None:
    step = coerce_call(("f", {"unit": OneOf("c", OMITTABLE)}), "gold[0]")
    assert step.args["unit"] == OneOf("c", OMITTABLE)


@pytest.mark.parametrize(
    ("obj", "fragment"),
    [
        (("f", ["x"]), "must be a mapping"),
        ((3, {}), "name must be a str"),
        (("f", {}, 1), "got 3 items"),
        (("f", {1: 2}), "argument names must be str"),
        ("f(x=1)", "got str"),
        (None, "got NoneType"),
        ({"name": 3, "arguments": {}}, "unrecognised shape"),
        ({"name": "f", "arguments": "{oops"}, "not valid JSON"),
        ({"name": "f", "arguments": [1]}, "must be a mapping"),
        ({"role": "assistant", "tool_calls": []}, "use parse_call_list"),
        ({"a": {}, "b": {}}, "unrecognised shape"),
    ],
)
def test_bad_calls_name_where_and_what(obj: object, fragment: str) -> None:
    with pytest.raises(TypeError) as info:
        coerce_call(obj, "episode 7, gold[2]")
    message = str(info.value)
    assert message.startswith("episode 7, gold[2]: ")
    assert fragment in message
    assert repr(obj)[:40] in message


def test_parse_call_list_accepts_lists_messages_pairs_and_text() -> None:
    expected = [Step("a", {}), Step("b", {"x": 1})]
    assert parse_call_list([("a", {}), {"b": {"x": 1}}]) == expected
    assert parse_call_list({"a": {}, "b": {"x": 1}}) == expected
    assert parse_call_list("[a(), b(x=1)]") == expected
    assert parse_call_list({"role": "assistant", "content": [{"type": "tool_use", "name": "a", "input": {}},
                                                             {"type": "tool_use", "name": "b", "input": {"x": 1}}]}) == expected
    assert parse_call_list(("a", {})) == [Step("a", {})]
    with pytest.raises(TypeError, match=r"gold\[1\]: "):
        parse_call_list([("a", {}), 5], "gold")
