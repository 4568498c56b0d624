"""Grammar -> importable Python module: typed classes, straight-line validators, cost tables."""

from ek.codegen.emitter import (
    GENERATOR_VERSION,
    generate,
    generate_index,
    write_atomic,
    write_modules,
)
from ek.codegen.errors import GenerationError
from ek.codegen.naming import module_filename, module_stem

__all__ = [
    "GENERATOR_VERSION",
    "GenerationError",
    "generate",
    "generate_index",
    "module_filename",
    "module_stem",
    "write_atomic",
    "write_modules",
]
