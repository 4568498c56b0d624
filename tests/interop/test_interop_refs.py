"""Local ``$ref``/``$defs``: named types, through objects, enums, chains and list items, stable both ways."""

from __future__ import annotations

import json

import pytest

from ek.grammar import EnumType, ListType, NamedType, ObjectType, PrimitiveType
from ek.interop import TARGETS, export_tools, import_tools

SHIP = {
    "type": "object",
    "required": ["to", "items"],
    "properties": {
        "to": {"$ref": "#/$defs/Address"},
        "items": {"type": "array", "items": {"$ref": "#/$defs/Item"}, "minItems": 1},
        "speed": {"$ref": "#/$defs/Speed", "default": "normal"},
        "alias": {"$ref": "#/$defs/Alias"},
        "legacy": {"$ref": "#/definitions/Legacy"},
        "boxes": {"type": "array", "items": {"type": "array", "items": {"$ref": "#/$defs/Size"}}},
        "short": {"$ref": "#/$defs/Country", "maxLength": 2},
    },
    "$defs": {
        "Address": {"type": "object", "description": "Where to.", "additionalProperties": False,
                    "properties": {"street": {"type": "string"}, "country": {"$ref": "#/$defs/Country"}},
                    "required": ["street", "country"]},
        "Country": {"type": "string", "pattern": "^[A-Z]{2,3}$"},
        "Item": {"type": "object", "required": ["sku"], "properties": {
            "sku": {"type": "string"}, "qty": {"type": "integer", "minimum": 1}, "size": {"$ref": "#/$defs/Size"}}},
        "Size": {"type": "integer", "enum": [1, 2, 4]},
        "Speed": {"enum": ["slow", "normal", "fast"]},
        "Alias": {"$ref": "#/$defs/Speed"},
        "Unused": {"type": "string"},
    },
    "definitions": {"Legacy": {"type": "boolean"}},
}


def _ship() -> object:
    return import_tools({"tools": [{"name": "ship", "inputSchema": SHIP}]}, "mcp", name="ship")


def test_refs_become_named_types_wherever_they_are_used() -> None:
    result = _ship()
    assert result.issues == ()
    g = result.grammar
    assert [t.name for t in g.types] == ["Address", "Alias", "Country", "Item", "Legacy", "Size", "Speed"]
    tool = g.tool("ship")
    assert tool.field("to").type == NamedType("Address")
    assert g.type_alias("Address").doc == "Where to."
    address = g.type_alias("Address").type
    assert isinstance(address, ObjectType) and address.field("country").type == NamedType("Country")  # nested
    assert tool.field("items").type == ListType(NamedType("Item")) and tool.field("items").constraints.min == 1
    assert g.type_alias("Item").type.field("size").type == NamedType("Size")  # type: ignore[union-attr]
    assert g.type_alias("Size").type == EnumType((1, 2, 4))  # an integer enum
    assert tool.field("speed").default == "normal" and g.type_alias("Speed").type == EnumType(("slow", "normal", "fast"))
    assert g.type_alias("Alias").type == NamedType("Speed")  # a chain stays a chain
    assert g.type_alias("Legacy").type == PrimitiveType("bool")  # draft-7 definitions
    assert tool.field("boxes").type == ListType(ListType(NamedType("Size")))
    assert tool.field("short").type == NamedType("Country") and tool.field("short").constraints.max == 2


@pytest.mark.parametrize("target", TARGETS)
def test_refs_export_import_export_byte_identical(target: str) -> None:
    grammar = _ship().grammar
    first, issues = export_tools(grammar, target)
    assert issues == ()
    text = json.dumps(first, indent=2)
    again = import_tools(json.loads(text), target, name="ship")
    assert again.issues == () and again.grammar == grammar
    assert json.dumps(export_tools(again.grammar, target)[0], indent=2) == text


def test_each_tool_carries_the_defs_it_uses_and_shared_defs_are_one_type() -> None:
    size = {"$defs": {"Size": {"type": "integer", "enum": [1, 2]}}}
    tools = [{"name": "a", "input_schema": {"type": "object", "properties": {"s": {"$ref": "#/$defs/Size"}}, **size}},
             {"name": "b", "input_schema": {"type": "object", "properties": {
                 "t": {"type": "array", "items": {"$ref": "#/$defs/Size"}}}, **size}},
             {"name": "c", "input_schema": {"type": "object", "properties": {"u": {"$ref": "#/$defs/Size"}},
                                            "$defs": {"Size": {"type": "string"}}}}]
    result = import_tools(tools, "anthropic")
    assert [t.name for t in result.grammar.types] == ["Size", "Size_2"]
    assert [i.path for i in result.issues] == ["$[2].input_schema"] and "renamed 'Size_2'" in result.issues[0].message
    data, _ = export_tools(result.grammar, "anthropic")
    assert [sorted(t["input_schema"]["$defs"]) for t in data] == [["Size"], ["Size"], ["Size_2"]]


@pytest.mark.parametrize(("ref", "key"), [("#/$defs/caf%C3%A9", "café"), ("#/%24defs/Code", "Code"),
                                          ("#/$defs/Code%7E", "Code~"), ("#/$defs/a~1b", "a/b")])
def test_a_ref_is_a_uri_fragment_percent_decoded_before_its_pointer_is_read(ref: str, key: str) -> None:
    """RFC 6901, section 6: a ``$ref`` fragment is percent-encoded, so ``%C3%A9`` is ``é`` and ``%24`` is ``$``; the
    pointer's ``~1`` and ``~0`` are read after. Such a $ref was refused (the argument read as any)."""
    from ek.interop import import_tools

    result = import_tools([{"type": "function", "function": {"name": "t", "parameters": {
        "type": "object", "properties": {"n": {"$ref": ref}}, "$defs": {key: {"type": "string", "minLength": 2}}}}}],
        "openai")
    assert not any("$ref" in issue.message for issue in result.issues), result.issues
    [alias] = result.grammar.types
    assert alias.constraints.min == 2
