"""Scoring one episode: argument agreement, assignment, accounting, and the metrics built on them.

| module | owns |
|---|---|
| :mod:`ek.scorer.agree` | does a predicted value agree with a gold value (per-argument rules) |
| :mod:`ek.scorer.assign` | which predicted call stands for which gold call (matching, greedy, optimal) |
| :mod:`ek.scorer.accounting` | units, TP/FP/FN, :class:`~ek.scorer.accounting.Score`, explanations |
| :mod:`ek.scorer.alignment` | an explanation as JSON-able data and as readable text |
| :mod:`ek.scorer.fieldmetric` | :class:`~ek.scorer.fieldmetric.FieldMetric`: two flat records |
| :mod:`ek.scorer.metric` | :class:`~ek.scorer.metric.ToolCallMetric` and ``match_calls`` |
| :mod:`ek.scorer.exact` | is every call of an output exact, or how every assignment pairs it (the metric's fast paths) |
| :mod:`ek.scorer.turns` | a multi-turn episode: one match per turn (never across), summed; exactness |
| :mod:`ek.scorer.evaluation` | ``evaluate``: a metric over an in-memory corpus, nothing lost |
"""
