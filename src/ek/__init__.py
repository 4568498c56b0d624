"""ek: cost-weighted, BFCL-style scoring of LLM tool calls against gold calls.

The public names below are imported lazily, so ``import ek`` stays cheap and
``ek lint`` does not load the scorer.
"""

from __future__ import annotations

from ek._lazy import lazy_exports
from ek._version import __version__

_EXPORTS: dict[str, str] = {
    "Step": "ek.calls",
    "GoldCall": "ek.calls",
    "OneOf": "ek.values",
    "OMITTABLE": "ek.values",
    "Omittable": "ek.values",
    "Score": "ek.scorer.accounting",
    "FieldMetric": "ek.scorer.fieldmetric",
    "evaluate": "ek.scorer.evaluation",
    "EvaluationReport": "ek.scorer.evaluation",
    "ToolCallMetric": "ek.agents.toolcalls",
    "match_calls": "ek.agents.toolcalls",
    "parse_calls": "ek.parsing",
    "ParseError": "ek.parsing",
}

__all__ = sorted(_EXPORTS) + ["__version__"]


__getattr__, __dir__ = lazy_exports(__name__, globals(), _EXPORTS)
