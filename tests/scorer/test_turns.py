"""Multi-turn scoring: each turn is its own multiset match, and an episode is the exact sum of its turns."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ek.calls import Step
from ek.scorer.accounting import Explanation, Score, tally_add
from ek.scorer.metric import ToolCallMetric
from ek.scorer.turns import EpisodeScore, count_turn, is_exact, score_turns

F = Step("f", {"x": 1})
G = Step("g", {})


def test_a_right_call_in_the_wrong_turn_is_wrong_in_both_turns() -> None:
    metric = ToolCallMetric()
    flat = metric([G, F], [F, G])
    assert flat.fp == flat.fn == 0  # as one multiset the calls match...
    episode = metric.score_turns([([G], [F]), ([F], [G])])
    assert [t.detail["fp"] for t in episode.turns] == [1.0, 1.0]  # ...turn by turn they never cross
    assert [t.detail["fn"] for t in episode.turns] == [1.0, 1.0]
    assert (episode.total.tp, episode.total.fp, episode.total.fn) == (0.0, 2.0, 2.0)
    assert not episode.exact and episode.first_failing_turn == 0


def test_episode_totals_are_exact_sums_of_turns_with_one_episode() -> None:
    metric = ToolCallMetric(level="arg")
    turns = [("f(x=2)", [F]), ("[g(), g()]", [G]), ("", [])]
    episode = metric.score_turns(turns)
    parts = [metric(pred, gold) for pred, gold in turns]
    summed = sum(parts[1:], parts[0])
    assert episode.total.exact_counts == summed.exact_counts
    assert dict(episode.total.tally) == dict(summed.tally)
    assert episode.total.episodes == 1
    assert episode.turn_exact == (False, False, True)
    assert episode.first_failing_turn == 0


def test_a_single_turn_episode_is_the_metric_itself() -> None:
    metric = ToolCallMetric()
    episode = score_turns(metric, [("f(x=1)", [F])])
    assert episode.total == metric("f(x=1)", [F]) and episode.exact and episode.first_failing_turn is None


def test_exactness_counts_units_not_only_weight() -> None:
    assert is_exact(Score(tp=1))
    assert not is_exact(Score(fp=1))
    zero_weight_miss = Score.from_tally({("fn", "f", "missing_call"): (0, 1)})
    assert not is_exact(zero_weight_miss)


def test_an_episode_has_a_turn() -> None:
    with pytest.raises(ValueError, match="at least one turn"):
        EpisodeScore(())


_WEIGHTS = st.one_of(st.integers(0, 5), st.fractions(0, 5, max_denominator=8), st.sampled_from([0.0, 0.25, 1.5]))
_TALLIES = st.dictionaries(st.tuples(st.sampled_from(["tp", "fp", "fn"]), st.sampled_from(["f", "g"]),
                                     st.sampled_from(["match", "wrong_value", "missing_call"])),
                           st.tuples(_WEIGHTS, st.integers(0, 3)), max_size=5)


@settings(max_examples=300, deadline=None)
@given(_TALLIES, st.sampled_from([None, "", "cut short"]), _TALLIES)
def test_count_turn_is_is_exact_and_tally_add_in_one_pass(tally: dict[Any, Any], parse_error: str | None,
                                                          before: dict[Any, Any]) -> None:
    """The summary's fast path gives the counts, the flag ``is_exact`` gives (zero-weight mistakes, units
    counted zero times and parse errors included) and the tally ``tally_add`` key by key gives."""
    explanation = None if parse_error is None else Explanation((), (), (), (), (), (), parse_error=parse_error)
    score = Score.from_tally(tally, explanation=explanation)
    into = {key: [Fraction(w), n] for key, (w, n) in before.items()}
    want = {key: list(slot) for key, slot in into.items()}
    for key, (w, n) in score.tally.items():
        tally_add(want, key, w, n)
    assert count_turn(score, into) == (*score.exact_counts, is_exact(score))
    assert into == want and [type(w) for w, _n in into.values()] == [type(w) for w, _n in want.values()]
