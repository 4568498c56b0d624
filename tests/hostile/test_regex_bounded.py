"""Every schema regex ek runs finishes in linear time: which patterns are refused, why, and by whom.

The timing claim itself is measured in :mod:`test_regex_timing`; here: the verdicts (real patterns are
accepted, super-linear ones refused with their cause), the same verdict at lint, import, code generation,
the runtime's validators and the metric, and the character-class facts the analysis relies on.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import Any

import pytest
from regex_corpus import ACCEPTED, REFUSED

from ek.codegen import GenerationError, generate
from ek.grammar import SchemaError, load, parse
from ek.grammar.fits import violations
from ek.grammar.model import (
    Constraints,
    FieldSpec,
    GraphGrammar,
    ListType,
    NamedType,
    ObjectType,
    PrimitiveType,
    ToolSpec,
    TypeAlias,
)
from ek.grammar.regex_charsets import _CATEGORY, DISJOINT_CATEGORIES
from ek.grammar.regexes import UnsafePattern, fullmatch, pattern_problem
from ek.interop import import_tools
from ek.interop.formats import FORMAT_PATTERNS
from ek.runtime import validator_for
from ek.scorer.metric import ToolCallMetric

REPO = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("pattern", sorted(ACCEPTED))
def test_real_and_tricky_linear_patterns_are_accepted(pattern: str) -> None:
    assert pattern_problem(pattern) is None


@pytest.mark.parametrize(("pattern", "cause"), sorted(REFUSED.items()))
def test_super_linear_patterns_are_refused_naming_the_cause(pattern: str, cause: str) -> None:
    problem = pattern_problem(pattern)
    assert problem is not None and cause in str(problem)
    assert problem.part and problem.hint  # the part to blame and how to rewrite it


def _json_patterns(value: Any) -> list[str]:
    out: list[str] = []
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            out += [v for k, v in item.items() if k == "pattern" and isinstance(v, str)]
            stack += list(item.values())
        elif isinstance(item, list):
            stack += item
    return out


def _repository_patterns() -> list[str]:
    """Every regex of the schemas, examples and test data in the repository, and of the format table."""
    found = list(FORMAT_PATTERNS.values())
    for path in [*REPO.glob("schemas/*.ek"), *REPO.glob("examples/**/*.ek")]:
        grammar = load(path)
        found += [c.pattern for c in (a.constraints for a in grammar.types) if c.pattern]
        found += [f.constraints.pattern for t in grammar.tools for f in t.fields if f.constraints.pattern]
    for path in REPO.glob("tests/data/**/*.json*"):
        text = path.read_text(encoding="utf-8")
        for chunk in [text] if path.suffix == ".json" else text.splitlines():
            try:
                found += _json_patterns(json.loads(chunk))
            except ValueError:
                continue
    return found


def test_every_pattern_of_the_repository_is_accepted() -> None:
    patterns = _repository_patterns()
    assert "[A-Z]{3}" in patterns and FORMAT_PATTERNS["uuid"] in patterns
    assert [p for p in patterns if pattern_problem(p) is not None] == []


def test_lint_refuses_at_the_pattern_with_the_cause_and_a_rewrite() -> None:
    text = 'grammar g 1\ntype Code = str /[a-z]+[a-z0-9]*/\ntool t {\n    x: str /(\\w+\\s?)+/ = "a b c"\n}\n'
    with pytest.raises(SchemaError) as info:
        parse(text, "p.ek")
    (alias, arg) = info.value.diagnostics
    assert (alias.line, alias.column) == (2, 17)
    assert alias.message == (
        "regex /[a-z]+[a-z0-9]*/ can take quadratic or worse time to match: two repetitions one after the other "
        "that can match the same text, with nothing between them that only one can match: [a-z]+ and [a-z0-9]*; "
        "merge them ([a-z]+[a-z]* is [a-z]+) or require a separator the first cannot match ([^.]+\\.[a-z]+, not "
        ".+\\..+)")
    assert (arg.line, arg.column) == (4, 12)
    assert "a repetition inside a repetition: (\\w+\\s?)+; repeat the inner part only once" in arg.message


def test_import_drops_the_pattern_at_its_json_path_and_keeps_the_rest() -> None:
    schema = {"type": "object", "properties": {
        "a": {"type": "string", "pattern": "^(a+)+$", "minLength": 2, "default": "a" * 50, "description": "kept"},
        "b": {"type": "string", "pattern": "\\d+-\\d+"},  # a search pattern: read as a full match that cannot backtrack
        "c": {"type": "string", "pattern": "x.*y.*z"}}}
    result = import_tools({"tools": [{"name": "t", "inputSchema": schema}]}, "mcp")
    a, b, c = result.grammar.tool("t").fields
    assert (a.constraints, a.default, a.doc) == (Constraints(2, None, None), "a" * 50, "kept")
    assert b.constraints.pattern == "[\\s\\S]*(?:\\d-\\d+)[\\s\\S]*"
    assert c.constraints.pattern is None
    warned = {issue.path: issue.message for issue in result.issues}
    assert "a repetition inside a repetition: (a+)+" in warned["$.tools[0].inputSchema.properties.a.pattern"]
    assert warned["$.tools[0].inputSchema.properties.c.pattern"].startswith(
        "pattern 'x.*y.*z' (matched anywhere in the value: /[\\s\\S]*(?:x.*y.*z)[\\s\\S]*/) can take "
        "quadratic or worse time to match: two repetitions one after the other that can match the same text")


def _built_in_code(pattern: str) -> GraphGrammar:
    """A grammar built in Python, never linted: the regex sits in an object in a list."""
    inner = ObjectType((FieldSpec("code", PrimitiveType("str"), Constraints(pattern=pattern)),))
    return GraphGrammar("g", 1, (ToolSpec("t", (FieldSpec("items", ListType(inner)),)),))


def test_code_generation_refuses_a_grammar_built_in_code() -> None:
    with pytest.raises(GenerationError, match=r"regex /\(a\+\)\+b/ can take exponential time"):
        generate(_built_in_code("(a+)+b"))
    assert "def validate_t" in generate(_built_in_code("[A-Z]{3}"))


def test_the_runtime_validator_and_the_metric_refuse_it_when_made() -> None:
    unsafe = _built_in_code("a*a*b")
    with pytest.raises(GenerationError, match=r"g@1 t\.items\[\]\.code: regex /a\*a\*b/ can take quadratic"):
        validator_for(unsafe)
    with pytest.raises(GenerationError):
        ToolCallMetric(grammar=unsafe)
    check = validator_for(_built_in_code("[A-Z]{3}"))
    assert [v.reason for v in check("t", {"items": [{"code": "JFK"}, {"code": "jfk"}]})] == [
        "must fully match /[A-Z]{3}/, got 'jfk'"]


def test_fits_never_runs_a_refused_pattern() -> None:
    grammar = _built_in_code("(a|a?b)+c")
    spec = grammar.tool("t").fields[0]
    with pytest.raises(UnsafePattern, match="can take exponential time"):
        violations([{"code": "a" * 40}], spec.type, spec.constraints, grammar.resolve)
    assert fullmatch("[A-Z]{3}", "JFK") and not fullmatch("[A-Z]{3}", "JFK\n")


def test_a_pattern_nested_or_long_past_what_can_be_checked_is_refused_not_a_crash() -> None:
    deep = "(?:" * 1400 + "a" + ")" * 1400
    try:
        problem = pattern_problem(deep)
    except re.error as err:  # re itself cannot read it: lint reports an invalid regex, saying why
        assert "nested too deeply for Python's re" in str(err)
    else:
        assert problem is not None and "nested too deeply" in problem.cause
    with pytest.raises(SchemaError, match=r"2:17: error: invalid regex .*: groups nested too deeply"):
        parse("grammar g 1\ntool t { x: str /" + "(" * 1000 + "a" + ")" * 1000 + "/ }\n")
    with pytest.raises(re.error, match="longer than 10000 characters"):  # refused before re parses it
        pattern_problem("a" * 10_001)


@pytest.mark.slow
def test_the_character_class_facts_hold_for_every_code_point() -> None:
    """The analysis says "\\d and \\s share no character" and so on: true of every code point, as re reads them."""
    import re

    chars = [chr(code) for code in range(sys.maxunicode + 1)]
    for pair in DISJOINT_CATEGORIES:
        first, second = (_CATEGORY[name] for name in sorted(pair))
        assert not any(first(ch) and second(ch) for ch in chars), sorted(pair)
    for name, regex in (("digit", r"\d"), ("word", r"\w"), ("space", r"\s")):
        compiled, test = re.compile(regex), _CATEGORY[name]
        assert all(bool(compiled.fullmatch(ch)) == test(ch) for ch in chars), name


def _placed(pattern: str, where: str) -> GraphGrammar:
    """A grammar built in code with ``pattern`` at one place a regex can sit, the rest without any."""
    field = FieldSpec("code", PrimitiveType("str"), Constraints(pattern=pattern))
    plain = FieldSpec("n", PrimitiveType("int"))
    if where == "field":
        tool = ToolSpec("t", (plain, field))
    elif where == "object in object":
        tool = ToolSpec("t", (plain, FieldSpec("o", ObjectType((plain, FieldSpec("p", ObjectType((field,))))))))
    elif where == "list of lists":
        tool = ToolSpec("t", (FieldSpec("l", ListType(ListType(ObjectType((plain, field))))),))
    else:  # a named type's own constraints
        alias = TypeAlias("Code", PrimitiveType("str"), Constraints(pattern=pattern))
        return GraphGrammar("g", 1, (ToolSpec("t", (plain, FieldSpec("c", NamedType("Code")))),), (alias,))
    return GraphGrammar("g", 1, (ToolSpec("u", (plain,)), tool))


@pytest.mark.parametrize("where", ["field", "object in object", "list of lists", "named type"])
def test_a_backtracking_regex_is_refused_wherever_it_sits_and_a_safe_one_is_not(where: str) -> None:
    with pytest.raises(GenerationError, match="can take quadratic"):
        ToolCallMetric(grammar=_placed("a*a*b", where))
    ToolCallMetric(grammar=_placed("[A-Z]{3}", where))  # a safe one: made


def test_a_class_of_thousands_of_characters_is_judged_without_testing_each_against_each(monkeypatch) -> None:
    """Each character the analysis samples is tested against the class by bisection, not range by range:
    a class of 9,000 characters took 4 s (8 million range tests), and a schema may hold many."""
    from ek.grammar import regex_charsets

    calls = 0
    contains = regex_charsets.Part.__contains__

    def counted(part: regex_charsets.Part, code: int) -> bool:
        nonlocal calls
        calls += 1
        return contains(part, code)

    monkeypatch.setattr(regex_charsets.Part, "__contains__", counted)
    big_class = "[" + "".join(chr(0x4E00 + 2 * i) for i in range(9000)) + "]+"
    assert pattern_problem(big_class) is None
    assert calls < 100_000, calls
