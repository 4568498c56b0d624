"""Every function schema of the BFCL sample imports lint-clean, generates an importable module, and round-trips:
export -> import gives the same grammar and export -> import -> export the same bytes, in every format."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

import pytest

from ek.bfcl import read_questions, to_grammar
from ek.codegen import generate
from ek.grammar import format_grammar, parse
from ek.interop import TARGETS, export_tools, import_tools

DATA = Path(__file__).resolve().parents[1] / "data" / "bfcl"
#: multi-turn questions carry no function schemas (BFCL keeps them in multi_turn_func_doc), so nothing to import
FILES = sorted(p for p in DATA.glob("BFCL_v4_*.json") if "multi_turn" not in p.name)


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.stem)
def test_bfcl_functions_import_lint_clean_and_round_trip(path: Path, tmp_path: Path) -> None:
    entries = [q for q in read_questions(path) if q.functions]
    assert entries
    for number, question in enumerate(entries):
        result = to_grammar(list(question.functions), name="bfcl", version=1)
        assert not result.errors, (question.id, result.errors)
        grammar = result.grammar
        assert len(grammar.tools) == len({f["name"] for f in question.functions})
        assert parse(format_grammar(grammar)) == grammar, question.id
        for target, strict in [(t, False) for t in TARGETS] + [("openai", True)]:
            data, _ = export_tools(grammar, target, openai_strict=strict)
            text = json.dumps(data, indent=2)
            again = import_tools(json.loads(text), target, name="bfcl", version=1)
            issues = [i for i in again.issues if not (strict and i.path.endswith(".function.strict"))]
            assert issues == [] and again.grammar == grammar, (question.id, target, strict)
            second, _ = export_tools(again.grammar, target, openai_strict=strict)
            assert json.dumps(second, indent=2) == text, (question.id, target, strict)  # byte-identical
        if number % 5 == 0:  # generated modules import for real
            module_path = tmp_path / f"bfcl_{path.stem.lower()}_{number}.py"
            module_path.write_text(generate(grammar), encoding="utf-8")
            spec = importlib.util.spec_from_file_location(module_path.stem, module_path)
            assert spec is not None and spec.loader is not None
            module = importlib.util.module_from_spec(spec)
            sys.modules[module_path.stem] = module
            try:
                spec.loader.exec_module(module)
            finally:
                sys.modules.pop(module_path.stem, None)


def test_bfcl_types_map_to_dsl_types() -> None:
    funcs = [{"name": "Store.put", "description": "Put.", "parameters": {"type": "dict", "properties": {
        "s": {"type": "String"}, "n": {"type": "long"}, "f": {"type": "double"}, "b": {"type": "Boolean"},
        "xs": {"type": "ArrayList", "items": {"type": "integer"}}, "t": {"type": "tuple", "items": {"type": "float"}},
        "d": {"type": "dict", "properties": {"k": {"type": "string", "enum": ["a", "b"]}}, "required": ["k"]},
        "a": {"type": "any"}, "m": {"type": "HashMap"}}, "required": ["s"]}}]
    result = to_grammar(funcs)
    text = format_grammar(result.grammar)
    for line in ("s: str", "n: int?", "f: float?", "b: bool?", "xs: list[int]?", "t: list[float]?",
                 "k: enum(a, b)", "a: any?", "m: any?"):
        assert line in text, text
    assert [i.path for i in result.issues] == ["$[0].parameters.properties.m"]
