"""Grammar -> importable Python module: typed classes, straight-line validators, cost tables."""

from ek.codegen.emitter import (
    GENERATOR_VERSION,
    compile_checked,
    generate,
    generate_index,
    render,
    write_atomic,
    write_modules,
)
from ek.codegen.errors import GenerationError
from ek.codegen.fingerprint import grammar_sha256, schema_path
from ek.codegen.naming import module_filename, module_stem

__all__ = [
    "GENERATOR_VERSION",
    "GenerationError",
    "compile_checked",
    "generate",
    "generate_index",
    "grammar_sha256",
    "module_filename",
    "module_stem",
    "render",
    "schema_path",
    "write_atomic",
    "write_modules",
]
