"""``ek.testing.assert_calls``: silent on a match, a readable alignment diff on a mismatch."""

from __future__ import annotations

import pytest
from ekcli import SCHEMAS

from ek.calls import Step
from ek.testing import assert_calls
from ek.values import OneOf


def test_testing_assert_calls_passes_on_equivalent_calls_in_any_format() -> None:
    gold = [("get_weather", {"location": "Paris"}), ("search", {"q": OneOf("cats", "kittens")})]
    assert_calls('[search(q="kittens"), get_weather(location="paris")]', gold)
    assert_calls({"role": "assistant", "content": None, "tool_calls": [
        {"type": "function", "function": {"name": "get_weather", "arguments": '{"location": "Paris"}'}},
        {"type": "function", "function": {"name": "search", "arguments": '{"q": "cats"}'}}]}, gold)
    assert_calls([Step("search", {"q": "cats"}), Step("get_weather", {"location": "PARIS"})], gold)


def test_testing_assert_calls_diff_names_every_problem() -> None:
    with pytest.raises(AssertionError) as info:
        assert_calls('[get_weather(location="Rome"), delete_all()]',
                     [("get_weather", {"location": "Paris"}), ("search", {"q": "cats"})])
    text = str(info.value)
    assert text.splitlines()[0] == "tool calls differ from gold (TP 0, FP 2, FN 2; F1 0.000, level call)"
    assert 'location: wrong_value  expected "Paris", got "Rome"' in text
    assert 'gold #1 search(q="cats")' in text and "pred: none  (missing_call)" in text
    assert "extra pred #1 delete_all()  (wrong_tool)" in text


def test_testing_assert_calls_fails_on_unparseable_output_even_with_no_gold() -> None:
    with pytest.raises(AssertionError, match="output could not be parsed"):
        assert_calls("search(q=", [])


def test_testing_assert_calls_uses_the_grammar() -> None:
    gold = [("book_flight", {"flight_id": "UA1", "passenger_names": ["Ann", "Bo"]})]
    pred = '[book_flight(flight_id="UA1", passenger_names=["Bo", "Ann"])]'
    assert_calls(pred, gold, grammar=SCHEMAS / "travel-v2.ek")  # unordered in v2
    with pytest.raises(AssertionError, match="passenger_names: wrong_value"):
        assert_calls(pred, gold, grammar=SCHEMAS / "travel-v1.ek", level="arg")  # order matters in v1


def test_testing_assert_calls_long_values_show_where_they_differ() -> None:
    long_gold = "lorem ipsum " * 40 + "dolor"
    long_pred = "lorem ipsum " * 40 + "dolar"
    with pytest.raises(AssertionError) as info:
        assert_calls(f"[post(body={long_pred!r}, tag='x')]", [("post", {"body": long_gold, "tag": "x"})])
    text = str(info.value)
    assert max(map(len, text.splitlines())) <= 160, text
    check = next(line for line in text.splitlines() if "wrong_value" in line)
    assert 'dolor"' in check and 'dolar"' in check and "first difference at character 484" in check
    assert "tag=" in text  # the short argument after the long one is still shown


def test_testing_assert_calls_reads_chat_model_text_like_the_reward() -> None:
    qwen = '<think>the user wants Paris</think>\n<tool_call>\n{"name": "get_weather", "arguments": {"location": "Paris"}}\n</tool_call>'
    assert_calls(qwen, [("get_weather", {"location": "Paris"})])
    with pytest.raises(AssertionError, match="output could not be parsed"):
        assert_calls('<tool_call>{"name": "get_weather", "arguments": {', [("get_weather", {"location": "Paris"})])


def test_testing_assert_calls_says_where_a_chat_block_breaks() -> None:
    text = 'Sure.\n<tool_call>\n{"name": "get_weather", "arguments": {"location": "Paris"}}\n</tool_call>\n<tool_call>'
    with pytest.raises(AssertionError, match=r"line 5, column 1: a <tool_call> block is not closed"):
        assert_calls(text, [("get_weather", {"location": "Paris"})])


def test_testing_assert_calls_reads_a_registered_format(pipes_format: str) -> None:
    assert assert_calls("search|cats\nsearch|dogs", [("search", {"q": "dogs"}), ("search", {"q": "cats"})],
                        format=pipes_format).f1 == 1.0
    with pytest.raises(AssertionError, match='q: wrong_value  expected "cats", got "cows"'):
        assert_calls("search|cows", [("search", {"q": "cats"})], format=pipes_format)
    with pytest.raises(AssertionError, match="missed_call"):
        assert_calls("search|cats", [("search", {"q": "cats"})])  # auto does not pick it (no detect): prose, no call at all


def test_testing_assert_calls_explicit_format_and_unknown_name() -> None:
    mistral = '[TOOL_CALLS]search[ARGS]{"q": "cats"}'
    assert_calls(mistral, [("search", {"q": "cats"})], format="mistral")
    with pytest.raises(AssertionError, match="output could not be parsed: python"):
        assert_calls(mistral, [("search", {"q": "cats"})], format="python")
    with pytest.raises(ValueError, match="unknown format 'nope'"):
        assert_calls(mistral, [], format="nope")


def test_testing_assert_calls_types_bare_text_values_by_the_grammar() -> None:
    qwen = ("<tool_call>\n<function=book_flight>\n<parameter=flight_id>\n123\n</parameter>\n"
            "<parameter=passenger_names>\n[\"Ann\"]\n</parameter>\n</function>\n</tool_call>")
    gold = [("book_flight", {"flight_id": "123", "passenger_names": ["Ann"]})]
    assert_calls(qwen, gold, grammar=SCHEMAS / "travel-v2.ek", format="qwen3-coder")  # flight_id: str
    with pytest.raises(AssertionError, match="flight_id"):
        assert_calls(qwen, gold, format="qwen3-coder")  # no grammar: bare 123 reads as a number


def test_testing_assert_calls_says_when_the_gold_itself_breaks_the_grammar() -> None:
    """A gold no valid call can match: the diff alone blamed the prediction ('expected "sfo", got "sfo"');
    the failure now says first that the test's gold does not fit the grammar, as ek score says of such a line."""
    call = {"origin": "sfo", "destination": "JFK", "date": "2025-03-14"}
    with pytest.raises(AssertionError) as info:
        assert_calls([Step("search_flights", call)], [Step("search_flights", call)], grammar=SCHEMAS / "travel-v2.ek")
    first, second = str(info.value).splitlines()[:2]
    assert first == ("gold does not fit travel@2: gold[0] search_flights: $.origin: must fully match /[A-Z]{3}/, "
                     "got 'sfo' (fix the test's gold)")
    assert second.startswith("tool calls differ from gold")
    with pytest.raises(AssertionError) as info:  # a gold that fits: the diff as before
        assert_calls([Step("search_flights", {**call, "origin": "SFO"})],
                     [Step("search_flights", {**call, "origin": "BOS"})], grammar=SCHEMAS / "travel-v2.ek")
    assert str(info.value).startswith("tool calls differ from gold")
