"""ek: cost-weighted, BFCL-style scoring of LLM tool calls against gold calls.

The public names below are imported lazily, so ``import ek`` stays cheap and
``ek lint`` does not load the scorer.
"""

from __future__ import annotations

import importlib
from typing import Any

__version__ = "0.1.0"

_EXPORTS: dict[str, str] = {
    "Step": "ek.agents.base",
    "OneOf": "ek.values",
    "OMITTABLE": "ek.values",
    "Omittable": "ek.values",
    "Score": "ek.scoring",
    "FieldMetric": "ek.fieldmetric",
    "evaluate": "ek.evaluate",
    "EvaluationReport": "ek.evaluate",
    "ToolCallMetric": "ek.agents.toolcalls",
    "match_calls": "ek.agents.toolcalls",
    "parse_calls": "ek.parsing",
    "ParseError": "ek.parsing",
}

__all__ = sorted(_EXPORTS) + ["__version__"]


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'ek' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return __all__
