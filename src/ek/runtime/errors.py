"""Why a generated module or a grammar could not be used, each saying what to run."""

from __future__ import annotations


class GeneratedModuleError(ImportError):
    """A generated module that must not be used as it is."""


class StaleModuleError(GeneratedModuleError):
    """The module was generated from a different version of its schema file."""


class UnsupportedGeneratorError(GeneratedModuleError):
    """The module's ``GENERATOR_VERSION`` is not one this runtime can read."""


class GrammarNotFoundError(LookupError):
    """No generated module and no schema for ``NAME@VERSION`` on the search path."""
