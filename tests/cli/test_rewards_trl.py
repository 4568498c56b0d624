"""``ek.rewards``: the reward function TRL's GRPOTrainer calls, with gold from a dataset column."""

from __future__ import annotations

import json

import pytest

from ek.rewards import completion_calls, make_tool_call_reward, tool_call_reward

GOLD = json.dumps([{"name": "get_weather", "arguments": {"location": "Paris"}},
                   {"name": "search", "arguments": {"q": "cats"}}])


def _trl_call(reward, completions, **columns):  # the keywords GRPOTrainer passes
    return reward(prompts=["p"] * len(completions), completions=completions,
                  completion_ids=[[1, 2]] * len(completions), trainer_state=None, **columns)


def test_rewards_string_completions() -> None:
    completions = ['[get_weather(location="paris"), search(q="cats")]', '[get_weather(location="Rome")]',
                   "I cannot help with that.", "[search(q='cats'), get_weather(location='Paris')]"]
    rewards = _trl_call(tool_call_reward, completions, gold_calls=[GOLD] * 4)
    assert rewards == [1.0, 0.0, 0.0, 1.0]
    assert tool_call_reward.__name__ == "tool_call_call_f1"


def test_rewards_conversational_completions_with_tool_calls() -> None:
    messages = [[{"role": "assistant", "content": "",
                  "tool_calls": [{"type": "function", "function": {"name": "get_weather",
                                                                   "arguments": {"location": "Paris"}}}]}],
                [{"role": "assistant", "content": '[search(q="cats"), get_weather(location="Paris")]'}],
                [{"role": "assistant", "content": [{"type": "tool_use", "id": "t", "name": "search",
                                                    "input": {"q": "cats"}}]}]]
    rewards = _trl_call(make_tool_call_reward(), messages, gold_calls=[GOLD] * 3)
    assert rewards == [pytest.approx(2 / 3), 1.0, pytest.approx(2 / 3)]


def test_rewards_arg_level_partial_credit_and_custom_column() -> None:
    reward = make_tool_call_reward(level="arg", gold_column="answer")
    gold = [[{"name": "f", "arguments": {"a": 1, "b": 2}}]] * 3
    got = _trl_call(reward, ["f(a=1, b=2)", "f(a=1, b=3)", "g()"], answer=gold)
    assert got[0] == 1.0 and 0 < got[1] < 1 and got[2] == 0.0


def test_rewards_gold_column_of_numpy_arrays_reads_as_lists() -> None:
    """A dataset formatted as NumPy (``with_format("numpy")``, or a pandas frame) hands a list-of-structs
    column over as object arrays with array fields: read as lists, as verl's and OpenRLHF's gold are."""
    np = pytest.importorskip("numpy", reason="numpy is not installed")
    call = {"name": "book", "arguments": {"names": np.array(["Ann", "Bo"]), "seats": np.int64(2)}}
    gold = np.array([call], dtype=object)
    right, wrong = "[book(names=['Ann', 'Bo'], seats=2)]", "[book(names=['Ann'], seats=2)]"
    assert _trl_call(tool_call_reward, [right, wrong], gold_calls=[gold, gold]) == [1.0, 0.0]


def test_numpy_values_in_gold_are_the_python_values_they_stand_for() -> None:
    """A NumPy string, number or array in a gold label reads as the Python value it holds, of Python's own type:
    ``np.str_("any_call")`` is the marker (a ``str`` subclass, which the marker's exact-type test missed); an
    ``np.float64`` NaN is refused as ``float("nan")`` is (a ``float`` subclass, which got past the NaN check and
    could never match); a float32 is its shortest decimal (``np.float32(0.1)`` widened to 0.10000000149011612)."""
    np = pytest.importorskip("numpy", reason="numpy is not installed")
    from ek.rl.openrlhf import LabelError, reward_func
    from ek.rl.verl import compute_score

    column = np.array(["any_call", "[]"])  # a string column as NumPy hands it over: np.str_ items
    assert _trl_call(tool_call_reward, ["f()", "f()"], gold_calls=column) == [1.0, 0.0]
    assert compute_score("t", "f()", np.str_("any_call")) == 1.0
    tenth = [{"name": "f", "arguments": {"x": np.float32(0.1), "y": np.array([0.1, 2.5], dtype=np.float32),
                                         "z": np.float16(0.3)}}]
    assert _trl_call(tool_call_reward, ["f(x=0.1, y=[0.1, 2.5], z=0.3)"], gold_calls=[tenth]) == [1.0]
    assert compute_score("t", "f(x=0.1, y=[0.1, 2.5], z=0.3)", tenth) == 1.0
    for nan in (float("nan"), np.float64("nan"), np.float32("nan"), np.float32("inf")):
        gold = [{"name": "f", "arguments": {"x": nan}}]
        with pytest.raises(ValueError, match=r"^gold\[0\]\[0\]\.arguments\.x: (nan|inf) is not a JSON number"):
            _trl_call(tool_call_reward, ["f(x=1)"], gold_calls=[gold])
        with pytest.raises(ValueError, match="is not a JSON number"):
            compute_score("t", "f(x=1)", gold)
        with pytest.raises(LabelError, match="is not a JSON number"):
            reward_func(["q f(x=1)"], ["q "], [gold])


def test_rewards_unparseable_and_missing_gold() -> None:
    reward = make_tool_call_reward(unparseable=-1.0)
    assert _trl_call(reward, ["f(", "f()"], gold_calls=["[]", None]) == [-1.0, None]


def test_rewards_bad_inputs_say_what_is_wrong() -> None:
    with pytest.raises(KeyError, match="no 'gold_calls' column"):
        _trl_call(tool_call_reward, ["f()"], other=[1])
    with pytest.raises(ValueError, match="2 completions but 1 values"):
        _trl_call(tool_call_reward, ["f()", "g()"], gold_calls=[GOLD])


def test_rewards_completion_calls_skips_other_roles() -> None:
    msgs = [{"role": "user", "content": "f(x=1)"}, {"role": "assistant", "content": "g(y=2)"}]
    assert [s.name for s in completion_calls(msgs)] == ["g"]


def test_rewards_read_what_chat_models_really_emit() -> None:
    # Qwen/Hermes chat templates wrap each call in <tool_call> tags; reasoning models think first
    hermes = ('<tool_call>\n{"name": "get_weather", "arguments": {"location": "Paris"}}\n</tool_call>\n'
              '<tool_call>\n{"name": "search", "arguments": {"q": "cats"}}\n</tool_call>')
    thinking = "<think>\nThe user wants weather(location='Rome')? No: Paris.\n</think>\n" + hermes
    python_after_thought = "<think>two calls</think>[get_weather(location='Paris'), search(q='cats')]"
    blocks = [{"role": "assistant", "content": [{"type": "text", "text": hermes}]}]
    rewards = _trl_call(tool_call_reward, [hermes, thinking, python_after_thought, blocks, [{"role": "assistant",
                        "content": thinking}]], gold_calls=[GOLD] * 5)
    assert rewards == [1.0] * 5
    broken = '<tool_call>\n{"name": "get_weather", "arguments": {"location": \n</tool_call>'
    unclosed = "<think>never finishes thinking [get_weather(location='Paris')]"
    assert _trl_call(make_tool_call_reward(unparseable=-1.0), [broken, unclosed], gold_calls=[GOLD] * 2) == [-1.0,
                                                                                                          -1.0]


def test_rewards_odd_completion_objects_are_unparseable_not_a_crash() -> None:
    reward = make_tool_call_reward(unparseable=-1.0)
    assert _trl_call(reward, [None, 123, [["nested"]]], gold_calls=[GOLD] * 3) == [-1.0, -1.0, -1.0]


def test_rewards_read_prefilled_thoughts_and_responses_wrappers_like_parse_calls() -> None:
    # templates that open <think> in the prompt leave only "</think>" in the completion
    prefilled = "the user wants Paris and cats\n</think>\n[get_weather(location='Paris'), search(q='cats')]"
    responses = {"output": [{"type": "reasoning", "summary": []},
                            {"type": "function_call", "name": "get_weather", "arguments": '{"location": "Paris"}'},
                            {"type": "function_call", "name": "search", "arguments": '{"q": "cats"}'}]}
    assert _trl_call(tool_call_reward, [prefilled, responses], gold_calls=[GOLD] * 2) == [1.0, 1.0]


def test_rewards_read_a_registered_format(pipes_format: str) -> None:
    gold = json.dumps([{"name": "search", "arguments": {"q": "cats"}}])
    completions = ["search|cats", "search|dogs", [{"role": "assistant", "content": "search|cats"}],
                   'search(q="cats")']  # the last is Python, but this reward reads pipes: no '|', unparseable
    reward = make_tool_call_reward(format=pipes_format, unparseable=-1.0)
    assert _trl_call(reward, completions, gold_calls=[gold] * 4) == [1.0, 0.0, 1.0, -1.0]
    assert [s.args for s in completion_calls("search|cats", format=pipes_format)] == [{"q": "cats"}]


def test_rewards_explicit_format_and_grammar_types() -> None:
    from ekcli import SCHEMAS

    qwen = ("<tool_call>\n<function=book_flight>\n<parameter=flight_id>\n123\n</parameter>\n"
            "<parameter=passenger_names>\n[\"Ann\"]\n</parameter>\n</function>\n</tool_call>")
    gold = json.dumps([{"name": "book_flight", "arguments": {"flight_id": "123", "passenger_names": ["Ann"]}}])
    typed = make_tool_call_reward(format="qwen3-coder", grammar=SCHEMAS / "travel-v2.ek")
    untyped = make_tool_call_reward(format="qwen3-coder")
    assert _trl_call(typed, [qwen], gold_calls=[gold]) == [1.0]  # flight_id is a str in the grammar
    assert _trl_call(untyped, [qwen], gold_calls=[gold]) == [0.0]  # without it, bare 123 is a number
    python_only = make_tool_call_reward(format="python", unparseable=-1.0)
    assert _trl_call(python_only, ['[TOOL_CALLS]f[ARGS]{}'], gold_calls=["[]"]) == [-1.0]
    with pytest.raises(ValueError, match="unknown format"):
        make_tool_call_reward(format="nope")


def test_gold_json_giving_a_key_twice_is_an_error_in_every_reward() -> None:
    """``json.loads`` keeps the last of two values of one key, so gold JSON text naming ``location`` twice scored the
    completion that wrote the second as exact; the gold is ambiguous: an error, as in a corpus line, for the TRL
    reward, verl's ``compute_score`` and OpenRLHF's ``reward_func``."""
    from ek.rl.openrlhf import LabelError, reward_func
    from ek.rl.verl import compute_score

    gold = '[{"name": "get_weather", "arguments": {"location": "Paris", "location": "Rome"}}]'
    completion = 'get_weather(location="Rome")'
    with pytest.raises(ValueError, match="duplicate key 'location'"):
        tool_call_reward([completion], gold_calls=[gold])
    with pytest.raises(ValueError, match="duplicate key 'location'"):
        compute_score("tools", completion, gold)
    with pytest.raises(LabelError, match="duplicate key 'location'"):
        reward_func(["q " + completion], ["q "], [gold])
    assert tool_call_reward([completion], gold_calls=[gold.replace('"Paris", "location": ', "")]) == [1.0]


MALFORMED_GOLD = [
    '{"name": "f", "arguments": {}}', {"name": "f", "arguments": {}}, "null", "12", "[1]", ["f"],  # not a list of calls
    '[{"arguments": {}}]', '[{"name": 3, "arguments": {}}]',  # no tool name
    '[{"name": "f", "arguments": null}]', [{"name": "f", "arguments": [1]}],  # arguments not an object
    '[{"name": "f", "arguments": {}, "after": ["0"]}]', '[{"name": "f", "arguments": {}, "after": [3]}]',
    "not json", '[{"name": "f", "arguments": {"x": 1, "x": 2}}]', '[{"name": "f", "arguments": {"x": NaN}}]',
    '[{"name": "f", "arguments": {"x": {"$oneOf": []}}}]', '[{"name": "f", "arguments": {"x": {"$omit": 1}}}]',
    '[{"name": "f", "arguments": {"x": ' + "[" * 200 + "]" * 200 + "}}]",  # past the gold's depth limit
]


@pytest.mark.parametrize("gold", MALFORMED_GOLD)
def test_a_malformed_gold_row_is_a_value_error_naming_the_row(gold: object) -> None:
    """One error type for every malformed gold, whatever its shape (``gold_from_json`` raised ``TypeError`` for
    some), named ``gold[ROW]``; verl's ``compute_score`` and OpenRLHF's ``reward_func`` say ``ValueError`` and
    ``LabelError`` (a ``ValueError``) for the same labels. A broken label is the dataset's fault: it stops the
    run at the first batch that holds it."""
    from ek.rl.openrlhf import LabelError, reward_func
    from ek.rl.verl import compute_score

    with pytest.raises(ValueError, match=r"^gold\[1\][:\[ ]"):
        _trl_call(tool_call_reward, ["f()", "f()"], gold_calls=["[]", gold])
    with pytest.raises(ValueError, match=r"^ground_truth \(data_source 't'\)"):
        compute_score("t", "f()", gold, {})
    with pytest.raises(LabelError, match=r"^label 0"):
        reward_func(["q f()"], ["q "], [gold])
