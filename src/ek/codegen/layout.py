"""The text around the generated code: module, per-tool validator and package index layouts.

They are jinja2 templates (``templates/*.jinja2``; ``StrictUndefined``, ``trim_blocks``,
``lstrip_blocks``), rendered once per module: the head (header, imports, stamps, the validators'
constants), each validator's ``def``, and the tail (``VALIDATORS``, ``validate``, the cost and class
tables). Every value put in is either fixed text, an identifier the generator chose
(:mod:`ek.codegen.naming`), or a ``repr``/JSON literal (:mod:`ek.codegen.literals`): schema content
never becomes code. The compile gate (:mod:`ek.codegen.shapes`) checks validator shapes through the
same ``def`` template, so what it proves is what is written.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import jinja2

from ek.templatecache import CompiledTemplates, cache_folder

_ENV: jinja2.Environment | None = None

#: How the templates are read; part of the key of their cached compiled code.
_OPTIONS: dict[str, Any] = {"trim_blocks": True, "lstrip_blocks": True, "autoescape": False,
                            "keep_trailing_newline": True}


def _template(name: str) -> jinja2.Template:
    """A template of ``ek.codegen``'s ``templates`` folder, from one environment made on first use."""
    global _ENV
    if _ENV is None:
        _ENV = jinja2.Environment(
            loader=jinja2.PackageLoader("ek.codegen", "templates"),
            # the templates are package data, unchanged while a process runs: no stat of the file on every
            # get_template (one per validator compiled)
            auto_reload=False,
            undefined=jinja2.StrictUndefined,
            bytecode_cache=CompiledTemplates(_cache_folder(), _OPTIONS),
            **_OPTIONS,
        )
    return _ENV.get_template(name)


def _cache_folder() -> Path:
    """This module's ``__pycache__`` folder: where the templates' compiled code is kept (:mod:`ek.templatecache`:
    jinja2 turns a template into Python and compiles it in every process, 10 ms for ``ek gen``'s four)."""
    return cache_folder(__file__)


def module_parts(
    *,
    module_doc: str,
    generator_version: int,
    stamps: Sequence[tuple[str, str]],
    tables: Iterable[str],
    validators: Sequence[tuple[str, str]],
    tool_weights: str,
    arg_importance: str,
    compare_policies: str,
    classes: str,
    grammar_table: str,
) -> tuple[str, str]:
    """The module's text before its validators and after them (each validator is :func:`validator_def`).
    ``stamps``: (name, literal) of ``GRAMMAR_NAME`` ... ``SCHEMA_PATH``, in order; ``tables``: the
    validators' constants, one assignment each; ``validators``: (tool name literal, function name);
    the last five: literals of the tables."""
    head = _template("module_head.py.jinja2").render(
        module_doc=module_doc, generator_version=generator_version, stamps=stamps, tables=tables)
    tail = _template("module_tail.py.jinja2").render(
        validators=validators, tool_weights=tool_weights, arg_importance=arg_importance,
        compare_policies=compare_policies, classes=classes, grammar_table=grammar_table)
    return head, tail


def validator_defs(validators: Iterable[tuple[str, str, str]]) -> str:
    """The module's validators, ``(name, doc, body)`` each: ``name`` an identifier, ``doc`` a literal,
    ``body`` its statements (indented one level); one render for them all."""
    return _template("validators.py.jinja2").render(validators=validators)


def validator_def(name: str, doc: str, body: str) -> str:
    """One validator, as :func:`validator_defs` writes it (the compile gate checks shapes through this)."""
    return validator_defs([(name, doc, body)])


def tool_validator_source(*, module_doc: str, generator_version: int, tables: Iterable[str], origin: str,
                          name: str, doc: str, body: str) -> str:
    """A small module defining one validator, ``name``, as ``ek.runtime`` compiles it in memory."""
    return _template("tool_validator.py.jinja2").render(
        module_doc=module_doc, generator_version=generator_version, tables=tables, origin=origin, name=name,
        doc=doc, body=body)


def index_source(*, module_doc: str, generator_version: int, versions: Iterable[tuple[str, str]]) -> str:
    """The package ``__init__.py``; ``versions``: (key literal, module name literal) pairs, in order."""
    return _template("index.py.jinja2").render(
        module_doc=module_doc, generator_version=generator_version, versions=versions)
