"""ek grammar -> each tool-definition format ``ek export --to`` writes."""

from __future__ import annotations

import re
from typing import Any

from ek.grammar.model import GraphGrammar, ToolSpec
from ek.interop.issues import Issues, child
from ek.interop.schema_out import SchemaWriter

#: Output formats ``ek export --to`` writes.
TARGETS = ("openai", "anthropic", "mcp", "jsonschema")

_API_NAME = re.compile(r"[a-zA-Z0-9_-]{1,64}")
JSON_SCHEMA_DRAFT = "https://json-schema.org/draft/2020-12/schema"


def _parameters(writer: SchemaWriter, tool: ToolSpec, path: str) -> dict[str, Any]:
    schema = writer.parameters(tool, path)
    if tool.weight != 1.0:
        schema["x-ek-weight"] = tool.weight
    return schema


def _described(tool: ToolSpec, body: dict[str, Any]) -> dict[str, Any]:
    if tool.doc:
        body["description"] = tool.doc
    return body


#: Where each target puts a tool's argument schema, as a JSON path from the tool's index.
_SCHEMA_PATHS = {"openai": "$[{i}].function.parameters", "anthropic": "$[{i}].input_schema",
                 "mcp": "$.tools[{i}].inputSchema", "jsonschema": "$[{i}]"}


def export(grammar: GraphGrammar, target: str, issues: Issues, *, openai_strict: bool = False) -> Any:
    """The grammar's tools in ``target`` format; what the target cannot hold is reported.

    ``openai_strict`` (``target`` openai only) writes OpenAI's strict mode: ``"strict": true`` on each
    function and every property required, optional ones allowing null.
    """
    if target not in TARGETS:
        raise ValueError(f"unknown export format {target!r}; choose one of: {', '.join(TARGETS)}")
    if openai_strict and target != "openai":
        raise ValueError(f"OpenAI's strict mode applies to --to openai only, not {target!r}")
    writer = SchemaWriter(grammar, strict=openai_strict, issues=issues)
    used: set[str] = set()
    out: list[dict[str, Any]] = []
    for i, tool in enumerate(grammar.tools):
        if target in ("openai", "anthropic") and not _API_NAME.fullmatch(tool.name):
            path = f"$[{i}].function.name" if target == "openai" else f"$[{i}].name"
            issues.warn(path, f"{target} accepts tool names matching ^[a-zA-Z0-9_-]{{1,64}}$; "
                              f"{tool.name!r} is kept but the API will refuse it")
        params = _parameters(writer, tool, _SCHEMA_PATHS[target].format(i=i))
        used.update(params.get("$defs", {}))
        if target == "openai":
            function = _described(tool, {"name": tool.name}) | {"parameters": params}
            out.append({"type": "function", "function": function | {"strict": True} if openai_strict else function})
        elif target == "anthropic":
            out.append(_described(tool, {"name": tool.name}) | {"input_schema": params})
        elif target == "mcp":
            out.append(_described(tool, {"name": tool.name}) | {"inputSchema": params})
        else:
            schema: dict[str, Any] = {"$schema": JSON_SCHEMA_DRAFT, "title": tool.name}
            out.append(_described(tool, schema) | params)
    for alias in grammar.types:
        if alias.name not in used:
            issues.warn(child("types", alias.name), "type is used by no tool; tool definitions have no place for it")
    return {"tools": out} if target == "mcp" else out
