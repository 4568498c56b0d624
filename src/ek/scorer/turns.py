"""A multi-turn episode's score: one multiset match per turn, summed.

The rule "matches never cross turns" lives here and only here: each turn's
predicted calls are assigned to that turn's gold calls by the metric (a
right call made one turn early is an FP in one turn and an FN in the other),
and the episode's totals are the exact sum of its turns' scores. A single-turn
episode is the one-turn case, so every episode has a turn 0.

An episode is *exact* when no turn has an FP or FN unit; its *first failing
turn* is the first turn that is not exact (``None`` for an exact episode).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

import attrs

from ek.scorer.accounting import FN, FP, Exact, Score, TallyKey, merge


def is_exact(score: Score) -> bool:
    """No FP and no FN: neither weight (exact sums) nor any unit, so a zero-weight mistake still counts.

    An output that could not be parsed is never exact, even where gold is ``[]`` (it has no unit to count):
    garbage is not an abstention, the same verdict as ``assert_calls`` and the reward functions give.

    >>> is_exact(Score(tp=2)), is_exact(Score(tp=2, fn=1)), is_exact(Score())
    (True, False, True)
    """
    _tp, fp, fn = score.exact_counts
    if fp or fn:
        return False
    explanation = score.explanation
    if explanation is not None and explanation.parse_error:
        return False
    # a loop, not any() over a generator: this runs once per corpus line, and the generator costs more than
    # the one or two keys a tally mostly has
    for (kind, _tool, _reason), (_w, n) in score.tally.items():
        if n and kind in (FP, FN):
            return False
    return True


def count_turn(score: Score, tally: dict[TallyKey, list[Any]]) -> tuple[Exact, Exact, Exact, bool]:
    """A turn's exact TP, FP and FN and :func:`is_exact` of it, with its tally added into ``tally`` (a tally
    being counted: ``[exact weight, count]`` per key, as :func:`ek.scorer.accounting.tally_add` adds).

    Fast path for a corpus summary, which does both for every line: one call and one pass over the turn's
    tally instead of :func:`is_exact`'s pass and then the adding. The flag is :func:`is_exact`'s rule, read in
    that pass: no FP or FN weight, no parse error, and no FP or FN unit.
    """
    tp, fp, fn = score.exact_counts
    explanation = score.explanation
    exact = not fp and not fn and (explanation is None or not explanation.parse_error)
    for key, (w, n) in score.tally.items():
        slot = tally.get(key)
        if slot is None:
            tally[key] = [w, n]
        else:
            slot[0] += w
            slot[1] += n
        if exact and n and key[0] in (FP, FN):
            exact = False
    return tp, fp, fn, exact


#: What :func:`abstention` can say about one turn, in report order.
ABSTENTION_OUTCOMES = ("abstained", "spurious_call", "unparseable", "missed_call")


def abstention(score: Score) -> str | None:
    """A turn's abstention outcome: gold ``[]`` answered with no call (``abstained``, right), with calls
    (``spurious_call``) or with an unreadable output (``unparseable``); gold with calls answered with no call
    at all (``missed_call``); ``None`` for a turn where both sides hold calls (or no explanation is kept).
    """
    explanation = score.explanation
    if explanation is None:
        return None
    pred, gold = explanation.pred, explanation.gold
    # fast path for the common turn, calls on both sides: None whatever the rest says (with any_call too, a
    # turn with calls is None), read without any_call, which a deferred explanation works out on first read
    if pred and gold:
        return None
    if explanation.any_call:  # gold: some call, whichever (BFCL's live_relevance)
        return "missed_call" if not pred and not explanation.parse_error else None
    if not gold:
        return "unparseable" if explanation.parse_error else "spurious_call" if pred else "abstained"
    if not pred and not explanation.parse_error:
        return "missed_call"
    return None


def _sum_turns(episode: EpisodeScore) -> Score:
    if len(episode.turns) == 1:
        return episode.turns[0]
    total = merge(episode.turns)
    tp, fp, fn = total.exact_counts
    return Score(tp=tp, fp=fp, fn=fn, tally=total.tally, episodes=1)


def _turns_exact(episode: EpisodeScore) -> tuple[bool, ...]:
    return tuple(is_exact(t) for t in episode.turns)


@attrs.frozen
class EpisodeScore:
    """The scores of an episode's turns, in order, and what follows from them (computed once)."""

    turns: tuple[Score, ...] = attrs.field()
    #: the episode's score: the exact sum of its turns (one episode, not one per turn)
    total: Score = attrs.field(init=False, default=attrs.Factory(_sum_turns, takes_self=True))
    #: per turn, no FP and no FN
    turn_exact: tuple[bool, ...] = attrs.field(init=False, default=attrs.Factory(_turns_exact, takes_self=True))

    @turns.validator
    def _some_turn(self, _attribute: Any, value: tuple[Score, ...]) -> None:
        if not value:
            raise ValueError("an episode has at least one turn")

    @property
    def exact(self) -> bool:
        """Every turn exact (no FP, no FN anywhere in the episode)."""
        return all(self.turn_exact)

    @property
    def first_failing_turn(self) -> int | None:
        """Index (0-based) of the first turn that is not exact, or None when every turn is."""
        return next((i for i, ok in enumerate(self.turn_exact) if not ok), None)

    @property
    def parse_errors(self) -> tuple[str | None, ...]:
        """Per turn, why its output could not be parsed (None where it could)."""
        return tuple(t.explanation.parse_error if t.explanation is not None else None for t in self.turns)


def score_turns(score_one: Callable[[Any, Any], Score], turns: Iterable[tuple[Any, Any]]) -> EpisodeScore:
    """Score each ``(pred, gold)`` turn on its own with ``score_one`` (a metric), never matching across turns.

    >>> from ek.scorer.metric import ToolCallMetric
    >>> ep = score_turns(ToolCallMetric(), [("f(x=1)", [("f", {"x": 1})]), ("", [("g", {})])])
    >>> ep.total.tp, ep.total.fn, ep.exact, ep.first_failing_turn
    (1.0, 1.0, False, 1)
    """
    return EpisodeScore(tuple(score_one(pred, gold) for pred, gold in turns))


__all__ = ["EpisodeScore", "count_turn", "is_exact", "score_turns"]
