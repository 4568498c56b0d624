"""Scoring a corpus: stream (pred, gold) pairs through a metric, micro-average, lose nothing.

Every input is accounted for: it is either scored or recorded as an error with
its position and reason, so ``report.episodes + len(report.errors)`` is the
number of inputs read.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

import attrs

from ek.scorer.accounting import ZERO, Score

KEEP = ("explanations", "scores", "none")


@attrs.frozen
class EpisodeError:
    """An input that could not be scored: where it was, and why."""

    index: int
    id: Any
    reason: str


@attrs.frozen
class EvaluationReport:
    """Micro-averaged totals of a corpus, per-episode scores and every error.

    ``total`` is the sum of all episode scores (exact), so ``report.f1`` is the
    micro F1: TP, FP and FN are summed first, then divided.
    """

    total: Score
    scores: tuple[Score, ...] = ()
    ids: tuple[Any, ...] = ()
    errors: tuple[EpisodeError, ...] = ()

    @property
    def tp(self) -> float:
        return self.total.tp

    @property
    def fp(self) -> float:
        return self.total.fp

    @property
    def fn(self) -> float:
        return self.total.fn

    @property
    def precision(self) -> float:
        return self.total.precision

    @property
    def recall(self) -> float:
        return self.total.recall

    @property
    def f1(self) -> float:
        return self.total.f1

    @property
    def episodes(self) -> int:
        """How many inputs were scored."""
        return self.total.episodes

    @property
    def inputs(self) -> int:
        """How many inputs were read: scored plus errors."""
        return self.total.episodes + len(self.errors)

    def __str__(self) -> str:
        t = self.total
        text = (f"{self.episodes} episodes scored, {len(self.errors)} errors: "
                f"precision {t.precision:.4f}  recall {t.recall:.4f}  F1 {t.f1:.4f}  "
                f"(TP {t.tp:g}, FP {t.fp:g}, FN {t.fn:g})")
        for err in self.errors[:10]:
            text += f"\n  input #{err.index}" + (f" (id {err.id!r})" if err.id is not None else "") + f": {err.reason}"
        if len(self.errors) > 10:
            text += f"\n  ... and {len(self.errors) - 10} more errors"
        return text

    def to_dict(self) -> dict[str, Any]:
        return {
            **self.total.to_dict(),
            "inputs": self.inputs,
            "errors": [{"index": e.index, "id": e.id, "reason": e.reason} for e in self.errors],
            "per_episode": [
                {"id": i, **s.to_dict()} for i, s in zip(self.ids, self.scores)
            ],
        }


def _split(item: Any, index: int) -> tuple[Any, Any, Any]:
    if isinstance(item, tuple) and len(item) == 3:
        return item
    if isinstance(item, tuple) and len(item) == 2:
        return index, item[0], item[1]
    raise TypeError(f"expected a (pred, gold) or (id, pred, gold) tuple, got {type(item).__name__}")


def evaluate(
    metric: Callable[[Any, Any], Score],
    pairs: Iterable[Any],
    *,
    keep: str = "scores",
    on_error: str = "record",
) -> EvaluationReport:
    """Score every ``(pred, gold)`` (or ``(id, pred, gold)``) pair, streaming, and micro-average.

    ``keep`` chooses what is kept per episode: ``"explanations"`` (everything),
    ``"scores"`` (counts only; default) or ``"none"`` (constant memory).
    ``on_error="record"`` turns a bad input into an :class:`EpisodeError`;
    ``"raise"`` re-raises it.

    >>> from ek.scorer.metric import ToolCallMetric
    >>> report = evaluate(ToolCallMetric(), [
    ...     ([("search", {"q": "cats"})], [("search", {"q": "cats"})]),
    ...     ([("delete_all", {})], [("search", {"q": "dogs"})]),
    ... ])
    >>> report.tp, report.fp, report.fn, report.f1, report.episodes
    (1.0, 1.0, 1.0, 0.5, 2)
    """
    if keep not in KEEP:
        raise ValueError(f"keep must be one of {KEEP}, got {keep!r}")
    if on_error not in ("record", "raise"):
        raise ValueError(f"on_error must be 'record' or 'raise', got {on_error!r}")
    total = ZERO
    scores: list[Score] = []
    ids: list[Any] = []
    errors: list[EpisodeError] = []
    for index, item in enumerate(pairs):
        episode_id: Any = None
        try:
            episode_id, pred, gold = _split(item, index)
            score = metric(pred, gold)
            if not isinstance(score, Score):
                raise TypeError(f"metric returned {type(score).__name__}, not a Score")
        except (TypeError, ValueError, KeyError) as exc:
            if on_error == "raise":
                raise
            errors.append(EpisodeError(index, episode_id, f"{type(exc).__name__}: {exc}"))
            continue
        total = total + score
        if keep != "none":
            ids.append(episode_id)
            scores.append(score if keep == "explanations" else attrs.evolve(score, explanation=None))
    return EvaluationReport(total, tuple(scores), tuple(ids), tuple(errors))
