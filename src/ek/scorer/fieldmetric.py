"""TP/FP/FN accounting of two flat records keyed by field name, with per-field weights.

The record's keys are the alignment: no assignment is needed. This is the
accounting :class:`~ek.scorer.metric.ToolCallMetric` reuses for the
arguments of every matched (pred, gold) call pair.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from ek.canon import Canonicalizer, get_canonicalizer
from ek.scorer.accounting import Score, micro_f1, units_from_checks
from ek.scorer.agree import ArgRule, compare_records


class FieldMetric:
    """Weighted TP/FP/FN of a predicted record against a gold record, field by field.

    >>> m = FieldMetric(weights={"city": 2})
    >>> s = m({"city": "Paris", "days": 3}, {"city": "paris", "days": 4})
    >>> s.tp, s.fp, s.fn
    (2.0, 1.0, 1.0)
    """

    def __init__(
        self,
        weights: Mapping[str, float] | None = None,
        *,
        canonicalizer: str | Canonicalizer | None = None,
        default_weight: float = 1.0,
    ) -> None:
        self.canonicalizer = get_canonicalizer(canonicalizer)
        self.default_weight = float(default_weight)
        self.weights = dict(weights or {})
        for name, w in self.weights.items():
            if not w > 0:
                raise ValueError(f"field weight must be positive: {name!r} has {w!r}")

    def rules_for(self, pred: Mapping[str, Any], gold: Mapping[str, Any]) -> dict[str, ArgRule]:
        return {name: ArgRule(importance=self.weights.get(name, self.default_weight))
                for name in set(pred) | set(gold)}

    def __call__(self, pred: Mapping[str, Any], gold: Mapping[str, Any]) -> Score:
        for label, record in (("pred", pred), ("gold", gold)):
            if not isinstance(record, Mapping):
                raise TypeError(f"FieldMetric: {label} must be a mapping of field -> value, "
                                f"got {type(record).__name__}")
        checks = compare_records(pred, gold, self.rules_for(pred, gold), self.canonicalizer)
        return Score.from_units(units_from_checks(checks))

    def aggregate(self, scores: Iterable[Score]) -> float:
        """Micro-averaged F1 over a corpus."""
        return micro_f1(scores)
