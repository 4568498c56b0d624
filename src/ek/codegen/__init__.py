"""Grammar -> importable Python module: typed classes, straight-line validators, cost tables."""

from ek.codegen.emitter import (
    GENERATOR_VERSION,
    generate,
    generate_index,
    write_atomic,
    write_modules,
)
from ek.codegen.errors import GenerationError
from ek.codegen.fingerprint import grammar_sha256, schema_path
from ek.codegen.naming import module_filename, module_stem

__all__ = [
    "GENERATOR_VERSION",
    "GenerationError",
    "generate",
    "generate_index",
    "grammar_sha256",
    "module_filename",
    "module_stem",
    "schema_path",
    "write_atomic",
    "write_modules",
]
