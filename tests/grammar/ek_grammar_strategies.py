"""Hypothesis strategies for grammar models that the DSL can express (shared by the grammar tests).

Built as model objects, not text, so printing is tested against the model.
"""

from __future__ import annotations

from hypothesis import strategies as st

from ek.grammar import (
    NO_CONSTRAINTS,
    NO_DEFAULT,
    ComparePolicy,
    Constraints,
    EnumType,
    FieldSpec,
    GraphGrammar,
    ListType,
    NamedType,
    ObjectType,
    PrimitiveType,
    ToolSpec,
    TypeAlias,
)
from ek.grammar.names import safe_identifier, unfit_character

# Names: plain identifiers, keywords, and anything else (quoted by the printer).
plain = st.from_regex(r"[a-z][a-z0-9_]{0,8}", fullmatch=True)
any_text = st.one_of(plain, st.sampled_from(["from", "class", "max-results", "math.hypot", "café", "a b", 'q"uote', "back\\slash", "tool", "weight", "compare"]), st.text(min_size=1, max_size=8))
# A name holds no control character (NUL, ESC, ...); an enum member is a value and may.
names = any_text.filter(lambda name: unfit_character(name) is None)
texts = st.text(max_size=30)
positive = st.floats(min_value=1e-6, max_value=1e6, allow_nan=False, allow_infinity=False)
PATTERNS = ["[A-Z]{3}", "a/b", r"\d+", ".*", "[^/]+/x", "(x|y)?z"]


@st.composite
def typed(draw, aliases: dict[str, TypeAlias], depth: int = 0):
    """(type node, constraints, default or NO_DEFAULT, compare or None) that fit together."""
    choices = ["str", "int", "float", "bool", "date", "datetime", "any", "enum", "list"]
    if depth < 2:
        choices.append("object")
    if aliases:
        choices.append("alias")
    kind = draw(st.sampled_from(choices))
    constraints = NO_CONSTRAINTS
    default = NO_DEFAULT
    policies = ["fold", "exact", "bfcl", "ignore", None]
    if kind == "str":
        node = PrimitiveType("str")
        lo = draw(st.none() | st.integers(0, 3))
        hi = draw(st.none() | st.integers(3, 9))
        pattern = draw(st.none() | st.sampled_from(PATTERNS))
        constraints = Constraints(lo, hi, pattern)
        if pattern is None and draw(st.booleans()):
            default = draw(st.text(min_size=lo or 0, max_size=hi if hi is not None else 5))
    elif kind in ("int", "float"):
        node = PrimitiveType(kind)
        policies = ["exact", "ignore", "tol", None]
        if kind == "int":
            lo = draw(st.none() | st.integers(-100, 100))
            hi = draw(st.none() | st.integers(100, 10**12))
            value = st.integers(lo if lo is not None else -(10**6), hi if hi is not None else 10**6)
        else:
            lo = draw(st.none() | st.floats(-1e3, 0, allow_nan=False))
            hi = draw(st.none() | st.floats(0, 1e9, allow_nan=False))
            value = st.floats(lo if lo is not None else -1e6, hi if hi is not None else 1e6, allow_nan=False)
        constraints = Constraints(lo, hi)
        if draw(st.booleans()):
            default = draw(value)
    elif kind == "bool":
        node = PrimitiveType("bool")
        policies = ["exact", "ignore", None]
        if draw(st.booleans()):
            default = draw(st.booleans())
    elif kind in ("date", "datetime", "any"):
        node = PrimitiveType(kind)
        if kind == "date" and draw(st.booleans()):
            default = draw(st.dates()).isoformat()
        if kind == "any" and draw(st.booleans()):
            default = draw(st.one_of(st.none(), st.booleans(), st.integers(), texts, st.lists(st.integers(), max_size=3)))
    elif kind == "enum":
        text_members = any_text | st.from_regex(r"[a-z]{10,20}", fullmatch=True)
        members = draw(st.lists(text_members | st.integers(-10**6, 10**6), min_size=1, max_size=10, unique=True))
        node = EnumType(tuple(members))
        if draw(st.booleans()):
            default = draw(st.sampled_from(members))
    elif kind == "list":
        item, _, _, _ = draw(typed(aliases, depth + 1))
        node = ListType(item)
        lo = draw(st.none() | st.integers(0, 2))
        constraints = Constraints(lo, None)
        policies = ["exact", "unordered", "ignore", None]
        if isinstance(item, PrimitiveType) and item.name == "int" and draw(st.booleans()):
            default = draw(st.lists(st.integers(-5, 5), min_size=lo or 0, max_size=4))
    elif kind == "object":
        node = ObjectType(draw(field_lists(aliases, depth + 1)))
        policies = ["exact", "ignore", None]
    else:
        alias = aliases[draw(st.sampled_from(sorted(aliases)))]
        node = NamedType(alias.name)
        policies = ["exact", "ignore", None]
    policy = draw(st.sampled_from(policies))
    compare = None
    if policy == "tol":
        compare = ComparePolicy("tol", draw(st.floats(0, 10, allow_nan=False)))
    elif policy is not None:
        compare = ComparePolicy(policy)
    return node, constraints, default, compare


@st.composite
def fields(draw, aliases, depth=0):
    name = draw(names)
    node, constraints, default, compare = draw(typed(aliases, depth))
    optional = default is not NO_DEFAULT or draw(st.booleans())
    importance = 1.0  # a field of an object has no importance of its own (its argument is one unit)
    if depth == 0:
        importance = draw(st.sampled_from([1.0, 2.0])) if draw(st.booleans()) else draw(positive)
    doc = draw(st.none() | texts)
    return FieldSpec(name, node, constraints, not optional, default, importance, compare, doc)


def field_lists(aliases, depth=0):
    return st.lists(fields(aliases, depth), max_size=4, unique_by=lambda f: safe_identifier(f.name)).map(tuple)


@st.composite
def grammars(draw):
    alias_names = draw(st.lists(st.from_regex(r"[A-Z][a-zA-Z0-9]{0,6}", fullmatch=True), max_size=3, unique=True))
    aliases: dict[str, TypeAlias] = {}
    for alias_name in alias_names:
        base = draw(st.sampled_from(["str", "int", "bool", "list"] if aliases else ["str", "int", "bool"]))
        constraints = NO_CONSTRAINTS
        if base == "str":
            constraints = Constraints(draw(st.none() | st.integers(0, 2)), None, draw(st.none() | st.sampled_from(PATTERNS)))
            node = PrimitiveType("str")
        elif base == "int":
            constraints = Constraints(draw(st.none() | st.integers(-5, 0)), draw(st.none() | st.integers(1, 99)))
            node = PrimitiveType("int")
        elif base == "list":  # a list of an earlier alias: named types refer to named types
            node = ListType(NamedType(draw(st.sampled_from(sorted(aliases)))))
        else:
            node = PrimitiveType("bool")
        alias = TypeAlias(alias_name, node, constraints, draw(st.none() | texts))
        aliases[alias_name] = alias
    tool_names = draw(st.lists(names, min_size=1, max_size=5, unique_by=safe_identifier))
    tools = tuple(
        ToolSpec(
            name,
            draw(field_lists(aliases)),
            draw(st.just(1.0) | positive),
            draw(st.none() | st.text(max_size=60) | st.just("First line.\nSecond line.\n  indented")),
        )
        for name in tool_names
    )
    grammar_name = draw(st.from_regex(r"[a-z][a-z0-9_]{0,8}", fullmatch=True))
    return GraphGrammar(grammar_name, draw(st.integers(1, 10**6)), tools, tuple(aliases.values()))
