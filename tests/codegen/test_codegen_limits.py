"""One set of limits (ek.limits): a schema that lints clean always generates, and one past a limit is a located
lint error, never a GenerationError at ``ek gen`` time."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ek.grammar import SchemaError, parse
from ek.limits import SCHEMA_MAX_LIST_NESTING, SCHEMA_MAX_NESTING
from ek.runtime import compile_grammar


def shape_text(kinds: list[str]) -> str:
    """A type from the outside in: 'o' an inline object ``{ x: ... }``, 'l' a list, 'n' a named type."""
    text = "int"
    aliases: list[str] = []
    for i, kind in enumerate(reversed(kinds)):
        if kind == "o":
            text = f"{{ x: {text} }}"
        elif kind == "l":
            text = f"list[{text}]"
        else:
            aliases.append(f"type N{i} = {text}\n")
            text = f"N{i}"
    return "grammar g 1\n" + "".join(aliases) + f"tool t {{\n    a: {text}\n}}\n"


def within_limits(kinds: list[str]) -> bool:
    return kinds.count("o") + kinds.count("l") <= SCHEMA_MAX_NESTING and kinds.count("l") <= SCHEMA_MAX_LIST_NESTING


shapes = st.lists(st.sampled_from("oln"), max_size=SCHEMA_MAX_NESTING + 12)


@pytest.mark.slow
@settings(max_examples=150, deadline=None)
@given(shapes)
def test_lint_clean_means_it_generates_and_past_a_limit_is_a_lint_error(kinds: list[str]) -> None:
    text = shape_text(kinds)
    if within_limits(kinds):
        module = compile_grammar(parse(text, "s.ek"))
        assert module.validate("t", {"a": None})  # the generated validator runs: None is no int, list or object
    else:
        with pytest.raises(SchemaError) as info:
            parse(text, "s.ek")
        (diag,) = info.value.diagnostics
        assert diag.file == "s.ek" and diag.line >= 2 and "nest" in diag.message


@pytest.mark.parametrize("kinds", [["o"] * SCHEMA_MAX_NESTING, ["l"] * SCHEMA_MAX_LIST_NESTING,
                                   ["l", "o"] * SCHEMA_MAX_LIST_NESTING + ["o"] * (SCHEMA_MAX_NESTING - 18)])
def test_at_the_limits_the_generated_module_compiles(kinds: list[str]) -> None:
    assert within_limits(kinds)
    assert compile_grammar(parse(shape_text(kinds))).validate("t", {"a": None})


def test_nesting_built_from_named_types_is_reported_at_the_argument() -> None:
    chain = "".join(f"type T{i} = {{ x: T{i + 1} }}\n" for i in range(SCHEMA_MAX_NESTING + 1))
    text = f"grammar g 1\n{chain}type T{SCHEMA_MAX_NESTING + 1} = int\ntool t {{\n    a: T0\n}}\n"
    with pytest.raises(SchemaError) as info:
        parse(text, "chain.ek")
    (diag,) = info.value.diagnostics
    assert (diag.line, diag.column) == (SCHEMA_MAX_NESTING + 5, 8)
    assert f"nests {SCHEMA_MAX_NESTING + 1} levels through its named types, more than {SCHEMA_MAX_NESTING}" in diag.message
