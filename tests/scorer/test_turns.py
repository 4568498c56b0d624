"""Multi-turn scoring: each turn is its own multiset match, and an episode is the exact sum of its turns."""

from __future__ import annotations

import pytest

from ek.calls import Step
from ek.scorer.accounting import Score
from ek.scorer.metric import ToolCallMetric
from ek.scorer.turns import EpisodeScore, is_exact, score_turns

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
