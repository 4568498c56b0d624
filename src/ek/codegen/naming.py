"""Every identifier a generated module defines, chosen once, deterministically and collision-free.

Names come only from :func:`ek.grammar.names.safe_identifier`; the DSL already
rejects names that collide once made safe, but the plan guards again so a
hand-built grammar can never produce a module that shadows its own names.
"""

from __future__ import annotations

import builtins
import functools
import keyword

import attrs

from ek.grammar.model import GraphGrammar
from ek.grammar.names import safe_identifier

#: Public module-level names of a generated module; classes may never take them.
MODULE_NAMES = frozenset(
    {
        "GRAMMAR",
        "GRAMMAR_NAME",
        "GRAMMAR_VERSION",
        "SOURCE_SHA256",
        "GRAMMAR_SHA256",
        "SCHEMA_FILE",
        "SCHEMA_PATH",
        "GENERATOR_VERSION",
        "TOOL_WEIGHTS",
        "ARG_IMPORTANCE",
        "COMPARE_POLICIES",
        "TOOLS",
        "VALIDATORS",
        "Violation",
        "ArgumentsError",
        "validate",
        "annotations",
        "Any",
        "ClassVar",
        "Literal",
        "Mapping",
    }
    | set(dir(builtins))
)

#: Names a generated class defines itself; fields get a trailing ``_`` instead.
CLASS_NAMES = frozenset({"TOOL_NAME", "from_args", "to_args"})


@functools.lru_cache(maxsize=4096)  # field names recur from tool to tool: each field's class name part
def camel(ident: str) -> str:
    """``search_flights`` -> ``SearchFlights`` (an identifier in, an identifier out).

    >>> camel("search_flights"), camel("math_hypot"), camel("x__class__"), camel("none")
    ('SearchFlights', 'MathHypot', 'XClass', 'None_')
    """
    out = "".join(part[:1].upper() + part[1:] for part in ident.split("_"))
    out = out if out and not out[0].isdigit() else "X" + out
    return out + "_" if keyword.iskeyword(out) else out


def unique(name: str, taken: set[str]) -> str:
    """``name``, or ``name_2``, ``name_3`` ... whichever is free; records the choice."""
    candidate, n = name, 1
    while candidate in taken:
        n += 1
        candidate = f"{name}_{n}"
    taken.add(candidate)
    return candidate


#: :func:`~ek.grammar.names.safe_identifier` of field names, which recur from tool to tool (``location``,
#: ``query``) and are made character by character: remembered for the thousands of fields of a grammar.
_field_identifier = functools.lru_cache(maxsize=4096)(safe_identifier)


def field_names(names: list[str]) -> list[str]:
    """Attribute names for a class's fields, in order, unique and clear of the class's own names."""
    taken = set(CLASS_NAMES)
    return [unique(_field_identifier(n), taken) for n in names]


@attrs.frozen
class ToolNames:
    """The identifiers of one tool: its class and its validator function."""

    cls: str
    validator: str


def tool_names(grammar: GraphGrammar, taken: set[str]) -> list[ToolNames]:
    """Class and validator names for every tool, in grammar order (tools claim names first)."""
    out = []
    for tool in grammar.tools:
        ident = safe_identifier(tool.name)
        out.append(ToolNames(cls=unique(camel(ident), taken), validator=unique("validate_" + ident, taken)))
    return out


def module_filename(grammar: GraphGrammar) -> str:
    """``<safe name>_v<version>.py``: the file (and module) name of a grammar version.

    >>> module_filename(GraphGrammar("travel", 2))
    'travel_v2.py'
    """
    return f"{module_stem(grammar.name, grammar.version)}.py"


def module_stem(name: str, version: int) -> str:
    """The importable module name for ``NAME@VERSION``."""
    return f"{safe_identifier(name)}_v{int(version)}"
