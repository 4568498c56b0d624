"""Using generated grammar modules: load, compile in memory, resolve ``NAME@VERSION``, validate.


The public names load on first use; :mod:`ek.runtime.api` holds ``validator_for`` and ``grammar_of``.
"""

from __future__ import annotations

from ek._lazy import lazy_exports

# Loaded on first use, for start-up speed: generated modules import ek.runtime.support and friends, and must
# not pay for the loader, the resolver or the code generator they never call.
_EXPORTS: dict[str, str] = {
    "SUPPORTED_GENERATOR_VERSIONS": "ek.runtime.loader",
    "ArgumentsError": "ek.runtime.violation",
    "GeneratedModuleError": "ek.runtime.errors",
    "GrammarNotFoundError": "ek.runtime.errors",
    "GrammarValidator": "ek.runtime.lazy",
    "StaleModuleError": "ek.runtime.errors",
    "UnsupportedGeneratorError": "ek.runtime.errors",
    "Validator": "ek.runtime.api",
    "Violation": "ek.runtime.violation",
    "check_fresh": "ek.runtime.resolution",
    "check_module": "ek.runtime.loader",
    "compile_grammar": "ek.runtime.loader",
    "grammar_of": "ek.runtime.api",
    "is_schema_path": "ek.runtime.loader",
    "load_module": "ek.runtime.loader",
    "load_schema": "ek.runtime.loader",
    "module_of": "ek.runtime.loader",
    "resolve": "ek.runtime.resolution",
    "resolve_grammar": "ek.runtime.resolution",
    "validator_for": "ek.runtime.api",
}

__all__ = sorted(_EXPORTS)


__getattr__, __dir__ = lazy_exports(__name__, globals(), _EXPORTS)
