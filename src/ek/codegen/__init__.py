"""Grammar -> importable Python module: typed classes, straight-line validators, cost tables.

The public names load on first use: scoring imports :mod:`ek.codegen.errors` and the validator plan, and
must not pay for the emitter and jinja2 it needs only when it compiles a validator.
"""

from __future__ import annotations

from ek._lazy import lazy_exports

_EXPORTS: dict[str, str] = {
    "GENERATOR_VERSION": "ek.codegen.emitter",
    "GenerationError": "ek.codegen.errors",
    "compile_checked": "ek.codegen.emitter",
    "generate": "ek.codegen.emitter",
    "generate_index": "ek.codegen.emitter",
    "grammar_sha256": "ek.codegen.fingerprint",
    "module_filename": "ek.codegen.naming",
    "module_stem": "ek.codegen.naming",
    "plan_tool_validator": "ek.codegen.emitter",
    "render": "ek.codegen.emitter",
    "schema_path": "ek.codegen.fingerprint",
    "write_atomic": "ek.codegen.emitter",
    "write_modules": "ek.codegen.emitter",
}

__all__ = sorted(_EXPORTS)

__getattr__, __dir__ = lazy_exports(__name__, globals(), _EXPORTS)
