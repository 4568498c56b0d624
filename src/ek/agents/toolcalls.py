"""Tool-call correctness: BFCL-style AST matching over a multiset of calls, cost-weighted.

A trajectory's calls have no key: two ``search(q=...)`` calls are two calls,
and their order means nothing. So before any TP/FP/FN can be counted, predicted
calls are *assigned* to gold calls (:func:`match_calls`); each matched pair is
then compared argument by argument with :class:`~ek.scorer.fieldmetric.FieldMetric`'s
accounting, and every unit is weighted by the grammar's tool ``weight`` and
argument ``importance``.

>>> from ek.agents.base import Step
>>> pred = [Step("search", {"q": "cats"}), Step("answer", {"a": "meow"})]
>>> gold = [("search", {"q": "cats"}), ("answer", {"a": "meow"})]
>>> ToolCallMetric()(pred, gold).f1
1.0
>>> hallucinated = [Step("search", {"q": "cats"}), Step("delete_all", {})]
>>> round(ToolCallMetric()(hallucinated, gold).f1, 3)     # 1 TP, 1 FP, 1 FN
0.5
"""

from ek.scorer.metric import LEVELS, PreparedGold, ToolCallMetric, match_calls

__all__ = ["LEVELS", "PreparedGold", "ToolCallMetric", "match_calls"]
