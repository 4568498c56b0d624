"""Gold given as a list (not JSON text) to the RL rewards: decoded and checked against the grammar once per label
met again, keyed by its content (never a list's id(): a list can change between calls), in bounded memory."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

from ek import rewards
from ek.rewards import RewardOptions, RewardScorer, gold_calls
from ek.scorer import metric as metric_module

SCHEMA = str(Path(__file__).resolve().parents[1] / "schemas" / "travel-v2.ek")


def _weather(location: Any = "Paris", unit: Any = "celsius") -> list[dict[str, Any]]:
    return [{"name": "get_weather", "arguments": {"location": location, "unit": unit}}]


@pytest.fixture()
def checks(monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    """The golds the grammar check (ek.scorer.goldcheck.gold_problems, as the metric calls it) is run on from now on;
    each is still checked. The caches start empty."""
    monkeypatch.setattr(rewards, "_list_golds", {}, raising=False)
    asked: list[Any] = []
    real = metric_module.gold_problems

    def counted(validate: Any, gold: Any) -> Any:
        asked.append(gold)
        return real(validate, gold)

    monkeypatch.setattr(metric_module, "gold_problems", counted)
    return asked


def test_a_list_label_met_again_is_checked_once(checks: list[Any]) -> None:
    """It was checked on every call (5-7 us of the 30 a list label cost), while a JSON text label is checked once:
    a GRPO group's completions (8-64) share their prompt's gold, given as a new but equal list each time."""
    scorer = RewardScorer(RewardOptions(grammar=SCHEMA))
    first = scorer.gold(_weather())
    for _ in range(5):
        assert scorer.gold(_weather()) == first  # equal lists, each a new object
    assert len(checks) == 1
    assert gold_calls(_weather()) is first  # decoded once too, as a JSON text is
    scorer.gold(_weather("Rome"))
    assert len(checks) == 2


def test_a_list_changed_between_calls_is_checked_as_it_is_now(checks: list[Any]) -> None:
    """The same list object, mutated in place, is another label: a cache on id() would have passed it."""
    scorer = RewardScorer(RewardOptions(grammar=SCHEMA))
    label = _weather()
    assert scorer.gold(label)[0].args == {"location": "Paris", "unit": "celsius"}
    label[0]["arguments"]["unit"] = "kelvin"
    with pytest.raises(ValueError, match="gold does not fit travel@2: .*expected one of 'celsius', 'fahrenheit', "
                                         "got 'kelvin'"):
        scorer.gold(label)
    label[0]["arguments"]["unit"] = "fahrenheit"
    assert scorer.gold(label)[0].args["unit"] == "fahrenheit"
    with pytest.raises(ValueError, match="kelvin"):  # errors are never kept: asked again, refused again
        scorer.gold(_weather(unit="kelvin"))


@pytest.mark.parametrize(("one", "other"), [
    (_weather(unit=1), _weather(unit=True)),          # equal in Python (1 == True), not the same JSON
    (_weather(unit=1), _weather(unit=1.0)),
    (_weather(unit=0.0), _weather(unit=-0.0)),
])
def test_labels_python_calls_equal_are_told_apart(one: Any, other: Any) -> None:
    assert one == other and rewards._list_key(one) != rewards._list_key(other)
    assert repr(gold_calls(one)[0].args["unit"]) == repr(one[0]["arguments"]["unit"])
    assert repr(gold_calls(other)[0].args["unit"]) == repr(other[0]["arguments"]["unit"])


def test_an_object_with_a_key_that_is_no_string_has_no_key() -> None:
    """{1: ...} and {"1": ...} would repr apart, but JSON has string keys only: such a label is not keyed."""
    assert rewards._list_key([{"name": "f", "arguments": {"o": {1: 2}}}]) is None
    assert rewards._list_key([{"name": "f", "arguments": {"o": {"1": 2}}}]) is not None


class _Text(str):
    def __repr__(self) -> str:
        return "'Paris'"


@pytest.mark.parametrize("label", [
    _weather(location=_Text("Rome")),                   # a subclass may repr as anything
    _weather(location=np.str_("Rome")),                 # NumPy's values are read as Python's, never keyed
    [{"name": "get_weather", "arguments": {"location": np.array(["a"] * 2000)}}],  # its repr shortens with ...
    [{"name": "get_weather", "arguments": {"location": "x" * 3000}}],              # longer than a cached text
    [{"name": "get_weather", "arguments": {"location": list(range(300))}}],        # more values than walked
])
def test_labels_of_other_types_or_too_large_have_no_key(label: Any) -> None:
    assert rewards._list_key(label) is None


def test_a_label_that_holds_itself_has_no_key() -> None:
    label: list[Any] = [{"name": "f", "arguments": {}}]
    label[0]["arguments"]["me"] = label
    assert rewards._list_key(label) is None


def test_a_subclass_label_is_decoded_as_it_is_every_time(checks: list[Any]) -> None:
    scorer = RewardScorer(RewardOptions(grammar=SCHEMA))
    assert scorer.gold(_weather())[0].args["location"] == "Paris"
    assert scorer.gold(_weather(location=_Text("Rome")))[0].args["location"] == "Rome"  # not Paris's entry
    assert len(checks) == 2


def test_the_list_caches_stay_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(rewards, "_list_golds", {}, raising=False)
    scorer = RewardScorer(RewardOptions(grammar=SCHEMA))
    for k in range(rewards._GOLD_CACHE_SIZE + 10):
        scorer.gold(_weather(location=f"city {k}"))
    assert 0 < len(rewards._list_golds) <= rewards._GOLD_CACHE_SIZE
    assert 0 < len(scorer._checked_lists) <= rewards._GOLD_CACHE_SIZE


def test_a_label_holding_an_unprintable_int_has_no_key() -> None:
    """repr() of an int past Python's int/str conversion limit raises: the label is decoded (and refused) as before."""
    assert rewards._list_key(_weather(unit=10 ** 5000)) is None
