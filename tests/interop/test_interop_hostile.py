"""Hostile JSON Schemas given to :func:`ek.interop.import_tools` as Python data: each is reported at its JSON
path and the imported grammar prints to text that lints clean; none raises."""

from __future__ import annotations

import re
import time
from collections.abc import Mapping
from types import MappingProxyType
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ek.grammar import format_grammar, parse
from ek.grammar.model import NamedType, PrimitiveType
from ek.grammar.names import unfit_character
from ek.grammar.strings import encode_string
from ek.interop import import_tools
from ek.interop.api import _too_long_int_path
from ek.limits import SCHEMA_MAX_ENUM_MEMBERS


def _openai(parameters: dict[Any, Any]) -> list[dict[str, Any]]:
    return [{"type": "function", "function": {"name": "t", "description": "d", "parameters": parameters}}]


def _nested_list(depth: int) -> list[Any]:
    value: list[Any] = []
    for _ in range(depth - 1):
        value = [value]
    return value


def _imported_lints(parameters: dict[Any, Any]) -> list[str]:
    """The issues of importing ``parameters``, after checking the imported grammar lints clean."""
    result = import_tools(_openai(parameters), "openai", name="g")
    parse(format_grammar(result.grammar))
    return [str(issue) for issue in result.issues]


def test_non_text_keys_built_in_python_are_reported_not_raised() -> None:
    issues = _imported_lints({"type": "object", "properties": {
        1: {"type": "string"}, "ok": {"type": "string", 5: "x"}, None: {"type": "integer"}}})
    assert any("properties['1']: error: a property name must be a string, got int" in i for i in issues), issues
    assert any("properties.ok['5']: warning: a keyword must be a string, got int" in i for i in issues), issues
    assert any("got NoneType; property skipped" in i for i in issues), issues


@pytest.mark.parametrize("depth", [33, 2000])
def test_a_default_nested_past_the_limit_is_dropped_naming_it(depth: int) -> None:
    issues = _imported_lints({"type": "object", "properties": {"x": {"type": "array", "default": _nested_list(depth)}}})
    assert any(f"x.default: warning: a default nested {depth} levels deep" in i and "SCHEMA_MAX_NESTING" in i
               for i in issues), issues


def test_a_default_at_the_nesting_limit_is_kept() -> None:
    result = import_tools(_openai({"type": "object", "properties": {"x": {"default": _nested_list(32)}}}), "openai")
    assert result.grammar.tools[0].fields[0].default == _nested_list(32)


def _lists(depth: int, inner: dict[str, Any]) -> dict[str, Any]:
    for _ in range(depth):
        inner = {"type": "array", "items": inner}
    return inner


def _objects(depth: int, inner: dict[str, Any]) -> dict[str, Any]:
    for _ in range(depth):
        inner = {"type": "object", "properties": {"x": inner}}
    return inner


#: name -> (arguments object, the argument read as any, the limit named)
PAST_A_LIMIT: dict[str, tuple[dict[str, Any], str, str]] = {
    "lists nested 10 deep": ({"type": "object", "properties": {"a": _lists(10, {"type": "string"})}},
                             "a", "SCHEMA_MAX_LIST_NESTING"),
    "lists nested 10 deep through an object": (
        {"type": "object", "properties": {"a": _lists(5, _objects(1, _lists(5, {"type": "string"})))}},
        "a", "SCHEMA_MAX_LIST_NESTING"),
    "a $ref of 6 lists used inside 6 more": (
        {"type": "object", "$defs": {"L": _lists(6, {"type": "string"})},
         "properties": {"a": {"$ref": "#/$defs/L"}, "b": _lists(6, {"$ref": "#/$defs/L"})}},
        "b", "SCHEMA_MAX_LIST_NESTING"),
    "a $ref of 25 levels used 20 levels down": (
        {"type": "object", "$defs": {"A": _objects(25, {"type": "string"})},
         "properties": {"a": {"$ref": "#/$defs/A"}, "b": _objects(20, {"$ref": "#/$defs/A"})}},
        "b", "SCHEMA_MAX_NESTING"),
    "$refs that double at each use": (
        {"type": "object", "properties": {"x": {"$ref": "#/$defs/A30"}},
         "$defs": {"A0": {"type": "string"}} | {f"A{i}": {"type": "object", "properties": {
             "a": {"$ref": f"#/$defs/A{i - 1}"}, "b": {"$ref": f"#/$defs/A{i - 1}"}}} for i in range(1, 31)}},
        "x", "SCHEMA_MAX_TYPE_NODES"),
}


@pytest.mark.parametrize("case", sorted(PAST_A_LIMIT))
def test_an_argument_past_a_limit_of_lint_is_read_as_any_at_its_path(case: str) -> None:
    parameters, name, limit = PAST_A_LIMIT[case]
    result = import_tools(_openai(parameters), "openai", name="g")
    parse(format_grammar(result.grammar))
    (tool,) = result.grammar.tools
    assert str(tool.field(name).type) == "any"
    assert any(f"properties.{name}: error:" in str(i) and limit in str(i) and "read as any" in str(i)
               for i in result.issues), [str(i) for i in result.issues]


class _UnscannedList(list):  # type: ignore[type-arg]
    """A ``required`` list that must not be searched once per property (20,000 properties took 6 s)."""

    def __contains__(self, item: object) -> bool:
        raise AssertionError(f"'required' searched for {item!r}: quadratic in the properties")


def test_required_is_read_once_not_searched_for_each_property() -> None:
    names = [f"p-{i}" for i in range(2000)]
    parameters = {"type": "object", "properties": {n: {"type": "string"} for n in names},
                  "required": _UnscannedList(names)}
    (tool,) = import_tools(_openai(parameters), "openai").grammar.tools
    assert len(tool.fields) == 2000 and all(f.required for f in tool.fields)


def test_an_enum_at_the_member_limit_against_a_range_is_split_in_one_pass() -> None:
    """Members outside ``maximum`` were found by searching the list of those inside for each: 10,000 members
    took 0.6 s of CPU an argument (100 such arguments, a minute); one pass takes milliseconds."""
    members = list(range(SCHEMA_MAX_ENUM_MEMBERS))
    parameters = {"type": "object", "properties": {"a": {"type": "integer", "maximum": len(members) // 2,
                                                         "enum": members}}}
    started = time.process_time()
    result = import_tools(_openai(parameters), "openai")
    assert time.process_time() - started < 0.25
    assert len(result.grammar.tools[0].fields[0].type.members) == len(members) // 2 + 1
    assert "are outside the range and can never be valid; dropped" in str(result.issues[0])


def test_items_false_is_the_empty_list_and_items_of_no_schema_are_reported() -> None:
    """``"items": false`` admits no item: the empty list only, which a length range says exactly (it was read
    as ``list[any]``, any items, without a word); ``"items": "string"`` is no schema, and says so."""
    result = import_tools(_openai({"type": "object", "properties": {
        "none": {"type": "array", "items": False}, "text": {"type": "array", "items": "string"},
        "anything": {"type": "array", "items": True}}}), "openai")
    parse(format_grammar(result.grammar))
    none, text, anything = result.grammar.tools[0].fields
    assert (str(none.type), none.constraints.min, none.constraints.max) == ("list[any]", None, 0)
    assert str(text.type) == str(anything.type) == "list[any]" and anything.constraints.max is None
    assert [str(i) for i in result.issues] == [
        "$[0].function.parameters.properties.text.items: warning: 'items' must be a schema, got str; "
        "items read as any"]


@pytest.mark.parametrize("file_name", ["we\x1b[1mird.json", "a\u202etxt.json", "tab\there.json", "\x85.json"])
def test_the_grammar_name_taken_from_a_file_name_lints(file_name: str) -> None:
    """A file name may hold any character; the grammar name ek import takes from it must still lint (it kept
    an ESC or a bidi override, which the header refuses)."""
    from ek.cli.import_ import _default_name

    name = _default_name(f"/tmp/{file_name}")
    assert unfit_character(name) is None
    parse(f"grammar {encode_string(name)} 1\ntool t {{\n    x: str\n}}\n")


_HUGE = 10 ** 5000  # more digits than Python converts to text: no JSON text holds it, only data built in Python


@pytest.mark.parametrize(("schema", "where"), [
    ({"type": "integer", "minimum": _HUGE}, "properties.a.minimum"),
    ({"type": "integer", "enum": [1, -_HUGE]}, "properties.a.enum[1]"),
    ({"type": "integer", "default": _HUGE}, "properties.a.default"),
    ({"default": [_HUGE]}, "properties.a.default[0]"),
    ({"type": "string", "x-ek-importance": _HUGE}, "properties.a['x-ek-importance']"),
])
def test_an_int_too_long_to_print_is_refused_at_its_path(schema: dict[str, Any], where: str) -> None:
    """It was imported, then the printer (or a warning showing it) raised Python's own ValueError."""
    with pytest.raises(ValueError, match=re.escape(f"$[0].function.parameters.{where}: an integer of more than")):
        import_tools(_openai({"type": "object", "properties": {"a": schema}}), "openai")
    bfcl = [{"name": "f", "parameters": {"type": "dict", "properties": {"a": schema}}}]
    with pytest.raises(ValueError, match=re.escape(f"$[0].parameters.{where}: an integer of more than")):
        import_tools(bfcl, "bfcl")


def _first_huge(value: Any, path: str = "$") -> str | None:
    """The test's own reference: the pre-order path of the first int too long to print."""
    if type(value) is int:
        return path if abs(value) >= 10 ** 4300 else None
    if isinstance(value, Mapping):
        items: Any = [(f"{path}.{k}", v) for k, v in value.items()]
    elif isinstance(value, (list, tuple)):
        items = [(f"{path}[{i}]", v) for i, v in enumerate(value)]
    else:
        return None
    for where, item in items:
        found = _first_huge(item, where)
        if found is not None:
            return found
    return None


_KEYS = st.sampled_from(["a", "b", "c"])
_NESTED = st.recursive(
    st.one_of(st.integers(-3, 3), st.booleans().map(lambda negative: -_HUGE if negative else _HUGE),  # (no repr)
              st.text(max_size=2), st.booleans(), st.none()),
    lambda inner: st.one_of(st.lists(inner, max_size=3), st.lists(inner, max_size=3).map(tuple),
                            st.dictionaries(_KEYS, inner, max_size=3),
                            st.dictionaries(_KEYS, inner, max_size=3).map(MappingProxyType)),
    max_leaves=12)


@settings(max_examples=300, deadline=None)
@given(_NESTED)
def test_the_values_walk_finds_a_too_long_int_where_the_path_walk_does(data: Any) -> None:
    """The fast walk (values only) gates the walk that builds paths: it must find one exactly when there is one,
    in dicts, lists, tuples and other Mappings, and the path reported is the first in document order."""
    assert _too_long_int_path(data) == _first_huge(data)


def test_a_tolerance_too_small_for_a_float_is_dropped_with_a_warning_not_read_as_zero() -> None:
    schema = {"type": "object", "properties": {
        "x": {"type": "number", "x-ek-compare": "tol(1e-400)"},
        "y": {"type": "number", "x-ek-compare": "tol(0.0e-400)"},
        "z": {"type": "number", "x-ek-compare": "tol(5e-324)"}}}
    result = import_tools([{"name": "f", "parameters": schema}], "openai")
    x, y, z = result.grammar.tools[0].fields
    assert x.compare is None and y.compare.tolerance == 0.0 and z.compare.tolerance == 5e-324
    assert [(i.path, i.message) for i in result.issues] == [
        ("$[0].parameters.properties.x['x-ek-compare']",
         "compare 'tol(1e-400)': the tolerance is too small for a float (it would read as 0); dropped")]
    parse(format_grammar(result.grammar), "imported.ek")  # what it writes lints clean


def test_an_empty_type_list_or_enum_is_reported_as_allowing_no_value() -> None:
    schema = {"type": "object", "properties": {"x": {"type": []}, "y": {"enum": []}, "w": {"type": "string", "enum": []},
                                               "v": {"type": "integer", "enum": []}}}
    result = import_tools([{"name": "f", "parameters": schema}], "openai")
    assert [str(f.type) for f in result.grammar.tools[0].fields] == ["any", "str", "str", "int"]
    props = "$[0].parameters.properties"
    assert [(i.path, i.message) for i in result.issues] == [
        (f"{props}.x.type", "an empty list of types allows no value, which .ek cannot express; read as any"),
        *((f"{props}.{k}.enum", "an empty enum allows no value, which .ek cannot express; read as its type")
          for k in ("y", "w", "v"))]
    parse(format_grammar(result.grammar), "imported.ek")


@pytest.mark.parametrize(("ref", "read_as"), [
    ("#/$defs/x", "x"),
    ("#/properties/a", "a"),  # any subschema may be referred to
    ("#/$defs/x/properties/q", "q"),
    ("#/$defs/u/anyOf/0", "x0"),
    ("#/properties", None),  # the map of the properties, not a schema
    ("#/$defs", None),
    ("#/$defs/u/anyOf", None),  # a list of schemas
    ("#/$defs/u/anyOf/01", None),  # not an index JSON Pointer allows
    ("#/$defs/u/anyOf/7", None),
    ("#/properties/a/description", None),  # a text
    ("#/definitions/x", None),  # nothing there
    ("https://example.com/s.json", None),  # outside the document
])
def test_a_ref_is_a_named_type_only_where_it_points_at_a_schema(ref: str, read_as: str | None) -> None:
    """A $ref that stops on a map or list of schemas, or on a keyword's text, was read as if it were a schema
    (``#/properties`` gave "keyword 'a' cannot be expressed" for each property); it is reported and read as any."""
    result = import_tools(_openai({
        "type": "object",
        "$defs": {"x": {"type": "object", "properties": {"q": {"type": "string"}}},
                  "u": {"anyOf": [{"type": "object", "properties": {"n": {"type": "integer"}}}, {"type": "string"}]}},
        "properties": {"a": {"type": "string", "description": "d"}, "b": {"$ref": ref}}}), "openai", name="g")
    field = result.grammar.tools[0].fields[1]
    issues = [str(issue) for issue in result.issues if "$ref" in str(issue)]
    if read_as is None:
        assert field.type == PrimitiveType("any")
        assert issues == [f"$[0].function.parameters.properties.b.$ref: warning: $ref {ref!r} does not point at a "
                          "schema of this document (a #/$defs/NAME, or any subschema); read as any"], issues
    else:
        assert field.type == NamedType(read_as) and issues == [] and "cannot be expressed" not in str(result.issues)
    parse(format_grammar(result.grammar))


def test_a_ref_to_the_whole_document_says_so() -> None:
    result = import_tools(_openai({"type": "object", "properties": {"b": {"$ref": "#"}}}), "openai", name="g")
    assert [str(i) for i in result.issues] == ["$[0].function.parameters.properties.b.$ref: warning: $ref '#' is the "
                                               "whole document, which a type of it cannot hold; read as any"]
