"""The one error codegen raises itself."""

from __future__ import annotations


class GenerationError(ValueError):
    """The grammar could not be turned into a valid module (unsupported value, runaway nesting, or a bug)."""
