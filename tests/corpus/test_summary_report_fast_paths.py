"""What a report reads of a summary, made without re-checking what its tallies hold already
(Score.from_summed_tally in Summary.total and Summary.category_scores; reason_kinds' slots started at a weight,
not at Fraction(0)): each is held to the general path it replaced, field by field, types included."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from ek.corpus.summary import Summary, reason_kinds
from ek.scorer.accounting import FN, FP, TP, Score

_weights = st.sampled_from([0, 1, 2, 0.5, 0.25, 1.0, 3.0, Fraction(1, 3), Fraction(2, 3), Fraction(1, 7), 0.1])
_keys = st.tuples(st.sampled_from([TP, FP, FN]), st.sampled_from(["a", "b", "c.d"]),
                  st.sampled_from(["match", "wrong_value", "missing_call", "extra_call"]))
_tallies = st.dictionaries(_keys, st.tuples(_weights, st.integers(1, 4)), max_size=10)
_scores = st.tuples(_tallies, st.sampled_from(["", "simple", "live_multiple"])).map(
    lambda t: (Score.from_tally(t[0]), t[1]))


def _fields(score: Score) -> tuple[Any, ...]:
    counts = score.exact_counts
    return (counts, tuple(map(type, counts)), [(k, v, tuple(map(type, v))) for k, v in score.tally.items()],
            score.episodes, score.explanation, type(score.tally))


def _summary(scores: list[tuple[Score, str]]) -> Summary:
    summary = Summary(keep_worst=0)
    for line, (score, category) in enumerate(scores, 1):
        summary.add(line, line, score, None, category=category)
    return summary


def _reason_kinds_reference(total: Score) -> dict[str, dict[str, tuple[float, int]]]:
    """reason_kinds as it was: every slot started at Fraction(0)."""
    acc: dict[tuple[str, str], list[Any]] = {}
    for (kind, _tool, reason), (w, n) in total.tally.items():
        if kind != TP:
            slot = acc.setdefault((reason, kind), [Fraction(0), 0])
            slot[0] += w
            slot[1] += n
    out: dict[str, dict[str, tuple[float, int]]] = {}
    for (reason, kind), (w, n) in acc.items():
        out.setdefault(reason, {})[kind] = (float(w), n)
    return out


@settings(max_examples=300, deadline=None)
@given(st.lists(_scores, max_size=8))
def test_total_category_scores_and_reason_kinds_are_the_general_paths(scores: list[tuple[Score, str]]) -> None:
    summary = _summary(scores)
    total = summary.total()
    general = Score(tp=summary.tp, fp=summary.fp, fn=summary.fn,
                    tally={k: (w, n) for k, (w, n) in summary.tally.items()}, episodes=summary.episodes)
    assert _fields(total) == _fields(general)
    got = summary.category_scores()
    want = {c: (Score.from_tally({k: (w, n) for k, (w, n) in t.items()}, episodes=e), x)
            for c, (t, e, x) in sorted(summary.categories.items())}
    assert list(got) == list(want)
    for category, (score, exact) in want.items():
        assert _fields(got[category][0]) == _fields(score) and got[category][1] == exact
    assert reason_kinds(total) == _reason_kinds_reference(total)
    assert {r: {k: tuple(map(type, v)) for k, v in kinds.items()} for r, kinds in reason_kinds(total).items()} == {
        r: {k: tuple(map(type, v)) for k, v in kinds.items()} for r, kinds in _reason_kinds_reference(total).items()}


def test_a_score_given_as_bare_sums_keeps_the_runs_sums() -> None:
    """A score with sums but no tally (``Score(tp=2, fp=1)``): the run's sums are not its tally's, so the
    total takes the general path, as before."""
    bare = Score(tp=2, fp=Fraction(1, 2))
    summary = _summary([(bare, ""), (Score.from_tally({(FN, "a", "missing_call"): (1, 1)}), "")])
    total = summary.total()
    assert total.exact_counts == (2, Fraction(1, 2), 1)
    assert dict(total.tally) == {(FN, "a", "missing_call"): (1, 1)} and total.episodes == 2


def test_fractions_summed_to_a_whole_number_are_ints() -> None:
    third = (Score.from_tally({(FP, "a", "wrong_value"): (Fraction(1, 3), 1)}), "")
    total = _summary([third, third, third]).total()
    assert total.exact_counts == (0, 1, 0) and type(total.exact_counts[1]) is int
    assert total.tally[(FP, "a", "wrong_value")] == (1, 3) and type(total.tally[(FP, "a", "wrong_value")][0]) is int


def test_a_key_of_no_unit_kind_keeps_the_general_path() -> None:
    """The constructor lets a tally key of no unit kind by (Score.from_tally refuses it): the total is made as
    before, by the constructor."""
    odd = Score(tp=1, tally={("tq", "a", ""): (1, 1)})
    total = _summary([(odd, "")]).total()
    assert total.exact_counts == (1, 0, 0) and dict(total.tally) == {("tq", "a", ""): (1, 1)}
