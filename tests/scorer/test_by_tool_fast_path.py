"""Score.by_tool builds each tool's Score without the validating constructor (Score._of_frozen_part): the
parts must be exactly what Score.from_tally(part, episodes=0) gives, whole Fractions made ints included. And
Score.from_tally, which checks each weight once (not again in the field converters), makes what the
constructor made, and refuses what it refused with the same error."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ek.scorer.accounting import FN, FP, TP, Score, _exact

_weights = st.sampled_from([0, 1, 2, 0.5, 0.25, 1.0, 3.0, Fraction(1, 3), Fraction(2, 3), Fraction(1, 7), 0.1])
_keys = st.tuples(st.sampled_from([TP, FP, FN]), st.sampled_from(["a", "b", "c.d"]),
                  st.sampled_from(["", "wrong_value", "missing_call"]))
_tallies = st.dictionaries(_keys, st.tuples(_weights, st.integers(1, 4)), max_size=12)


def _reference(score: Score) -> dict[str, Score]:
    """What by_tool gave through the validating path."""
    parts: dict[str, dict[Any, Any]] = {}
    for key, val in score.tally.items():
        parts.setdefault(key[1], {})[key] = val
    return {tool: Score.from_tally(t, episodes=0) for tool, t in sorted(parts.items())}


def _fields(score: Score) -> tuple[Any, ...]:
    counts = score.exact_counts
    return (counts, tuple(map(type, counts)), list(score.tally.items()), score.episodes, score.explanation,
            type(score.tally))


@settings(max_examples=300, deadline=None)
@given(st.lists(_tallies, min_size=1, max_size=4))
def test_each_tools_score_is_what_from_tally_gives(tallies: list[dict[Any, Any]]) -> None:
    total = sum((Score.from_tally(t) for t in tallies), Score(episodes=0))
    got, want = total.by_tool(), _reference(total)
    assert list(got) == list(want)
    for tool in want:
        assert _fields(got[tool]) == _fields(want[tool])
        assert (got[tool].precision, got[tool].recall, got[tool].f1) == (want[tool].precision,
                                                                          want[tool].recall, want[tool].f1)


def test_fractions_that_add_up_to_a_whole_number_give_an_int() -> None:
    third = Fraction(1, 3)
    total = Score.from_tally({(TP, "t", ""): (third, 1)}) + Score.from_tally({(TP, "t", ""): (2 * third, 1)})
    part = total.by_tool()["t"]
    assert part.exact_counts == (1, 0, 0) and type(part.exact_counts[0]) is int
    assert part.tally[(TP, "t", "")] == (1, 2) and part.episodes == 0


def test_an_unknown_unit_kind_fails_as_from_tally_fails() -> None:
    score = Score(tally={("tq", "t", ""): (1, 1)})
    with pytest.raises(KeyError):
        Score.from_tally(dict(score.tally))
    with pytest.raises(KeyError):
        score.by_tool()


def _constructed(tally: Any, episodes: int = 1) -> Score:
    """from_tally as it was: the sums, then the validating constructor."""
    sums: dict[str, Any] = {TP: 0, FP: 0, FN: 0}
    for (kind, _tool, _reason), (w, _n) in tally.items():
        sums[kind] += _exact(w)
    return Score(tp=sums[TP], fp=sums[FP], fn=sums[FN], tally=tally, episodes=episodes)


_odd_weights = _weights | st.sampled_from([-1, -0.5, float("nan"), float("inf"), True, "1", None, Fraction(-1, 2)])
_odd_keys = _keys | st.tuples(st.sampled_from(["tq", TP]), st.just("a"), st.just("")) | st.just(("tp", "a"))
_odd_tallies = st.dictionaries(_odd_keys, st.tuples(_odd_weights, st.integers(0, 3) | st.sampled_from(["2", "x", 1.5])),
                               max_size=6)


@settings(max_examples=500, deadline=None)
@given(_tallies | _odd_tallies, st.integers(0, 3))
def test_from_tally_makes_what_the_constructor_made_and_refuses_what_it_refused(tally: Any, episodes: int) -> None:
    try:
        want = _constructed(tally, episodes)
    except Exception as exc:  # noqa: BLE001 - the error itself is compared
        with pytest.raises(type(exc)) as got:
            Score.from_tally(tally, episodes=episodes)
        assert str(got.value) == str(exc)
        return
    got = Score.from_tally(tally, episodes=episodes)
    assert _fields(got) == _fields(want)


@settings(max_examples=300, deadline=None)
@given(st.dictionaries(_keys, st.tuples(st.sampled_from([0, 1, 2, Fraction(1, 3), Fraction(2, 3), Fraction(3, 2)]),
                                        st.integers(1, 4)), max_size=4))
def test_from_exact_tally_is_what_from_tally_gives(tally: dict[Any, Any]) -> None:
    """The tally a metric counts (exact weights, one key unsorted included) makes from_tally's Score."""
    being_counted = {key: [w, n] for key, (w, n) in tally.items()}
    assert _fields(Score.from_exact_tally(being_counted, None)) == _fields(Score.from_tally(tally))
