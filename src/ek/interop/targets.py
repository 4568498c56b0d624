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


#: The warning at each ``any`` of a tool ``--openai-strict`` writes without ``"strict": true``.
_NOT_STRICT = ("tool {tool!r} is written without \"strict\": true: {part} may hold any value (type any), which "
               "OpenAI's strict mode cannot express (it refuses a schema without a 'type', and its objects admit "
               "only the keys they list); give it a type to make the tool strict")


def _part(where: str, parameters: str) -> str:
    """What a JSON path under a tool's ``parameters`` names, for a message: ``argument 'a'``, ``'a.b.items'``
    below one, or ``named type 'T'`` (a ``$defs`` entry).

    >>> _part("$[0].function.parameters.properties.a", "$[0].function.parameters")
    "argument 'a'"
    >>> _part("$[0].p.properties.a.properties.b.items", "$[0].p"), _part("$[0].p.$defs.Blob", "$[0].p")
    ("'a.b.items' of argument 'a'", "named type 'Blob'")
    """
    inner = where.removeprefix(parameters)
    if inner.startswith(".$defs."):
        return f"named type {inner.removeprefix('.$defs.')!r}"
    parts = inner.replace(".properties.", ".").strip(".")
    argument = parts.split(".", 1)[0]
    return f"argument {argument!r}" if parts == argument else f"{parts!r} of argument {argument!r}"


def export(grammar: GraphGrammar, target: str, issues: Issues, *, openai_strict: bool = False) -> Any:
    """The grammar's tools in ``target`` format; what the target cannot hold is reported.

    ``openai_strict`` (``target`` openai only) writes OpenAI's strict mode: ``"strict": true`` on each
    function and every property required, optional ones allowing null. A tool strict mode cannot describe (an
    argument, or a part of one, of type ``any``) is written as without ``openai_strict``, no ``"strict"`` key,
    with a warning at each such value: OpenAI refuses a strict function whose schema has a part without a
    ``type`` ("schema must have a 'type' key"), and no strict schema admits every JSON value (its objects
    list every key they may hold), so a narrower one would stop the model from sending what the tool accepts.
    """
    if target not in TARGETS:
        raise ValueError(f"unknown export format {target!r}; choose one of: {', '.join(TARGETS)}")
    if openai_strict and target != "openai":
        raise ValueError(f"OpenAI's strict mode applies to --to openai only, not {target!r}")
    writer = SchemaWriter(grammar, strict=openai_strict, issues=issues)
    loose = SchemaWriter(grammar, issues=issues) if openai_strict else writer  # the tools strict mode cannot hold
    used: set[str] = set()
    out: list[dict[str, Any]] = []
    for i, tool in enumerate(grammar.tools):
        if target in ("openai", "anthropic") and not _API_NAME.fullmatch(tool.name):
            path = f"$[{i}].function.name" if target == "openai" else f"$[{i}].name"
            issues.warn(path, f"{target} accepts tool names matching ^[a-zA-Z0-9_-]{{1,64}}$; "
                              f"{tool.name!r} is kept but the API will refuse it")
        path = _SCHEMA_PATHS[target].format(i=i)
        params = _parameters(writer, tool, path)
        strict = openai_strict and not writer.not_strict
        if openai_strict and not strict:
            for where in writer.not_strict:
                issues.warn(where, _NOT_STRICT.format(tool=tool.name, part=_part(where, path)))
            params = _parameters(loose, tool, path)
        used.update(params.get("$defs", {}))
        if target == "openai":
            function = _described(tool, {"name": tool.name}) | {"parameters": params}
            out.append({"type": "function", "function": function | {"strict": True} if strict else function})
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
