"""Where the tools are in each input format: OpenAI, Anthropic, MCP, JSON Schema and BFCL.

Each reader yields :class:`RawTool` s (name, description, argument schema,
the document ``$ref`` s resolve in, and the JSON path) and reports tool-level
keys it cannot keep.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

import attrs

from ek.interop.issues import Issues, child

#: Input formats ``ek import --from`` accepts.
SOURCES = ("openai", "anthropic", "mcp", "jsonschema", "bfcl")


@attrs.frozen
class RawTool:
    name: str
    description: str | None
    schema: Mapping[str, Any]  # the arguments' object schema
    root: Mapping[str, Any]  # what "#/..." refers to
    path: str  # JSON path of the argument schema
    weight: Any = None
    strict: bool = False  # OpenAI strict mode: optional arguments are required properties that may be null


def _listed(data: Any, key: str, issues: Issues) -> tuple[list[Any], str]:
    """The tool items of ``data`` (a list, ``{key: [...]}`` or a JSON-RPC ``{"result": {key: [...]}}``) and their path.

    A single object is one tool, at ``$``; a ``key`` that does not hold a list is an error.
    """
    container, base = data, "$"
    if isinstance(data, Mapping) and isinstance(data.get("result"), Mapping) and key in data["result"]:
        container, base = data["result"], "$.result"
    if isinstance(container, Mapping) and key in container:
        value, path = container[key], child(base, key)
        if not isinstance(value, (list, tuple)):
            issues.error(path, f"{key!r} must be a list of tools, got {type(value).__name__}; nothing imported")
            return [], path
        return list(value), path
    if isinstance(data, (list, tuple)):
        return list(data), "$"
    return [data], "$"


def _item_path(base: str, index: int, single: bool) -> str:
    return base if single else child(base, index)


def _extra_keys(obj: Mapping[str, Any], known: frozenset[str], path: str, issues: Issues) -> None:
    for key in obj:
        if key not in known:
            issues.warn(child(path, key), f"tool field {key!r} has no place in .ek; dropped")


def _description(obj: Mapping[str, Any], path: str, issues: Issues) -> str | None:
    value = obj.get("description")
    if value is None or isinstance(value, str):
        return value or None
    issues.warn(child(path, "description"), "description is not a string; dropped")
    return None


#: The key holding the argument schema in each format, for hints when a file is read as the wrong one.
_SCHEMA_KEYS = {"input_schema": "anthropic", "inputSchema": "mcp", "parameters": "openai"}


def format_hint(obj: Mapping[str, Any], schema_key: str = "") -> str:
    """`` (... use --from X)`` when ``obj`` looks like a tool of another format, else ``""``.

    >>> format_hint({"name": "f", "inputSchema": {}}, "input_schema")
    ' (it looks like an mcp tool: use --from mcp)'
    """
    if "ground_truth" in obj:
        return " (it is a BFCL possible_answer entry, not a function: import the question file)"
    if "question" in obj and "function" in obj:
        return " (it looks like a BFCL question entry: use --from bfcl)"
    if isinstance(obj.get("function"), Mapping):
        return " (it looks like an OpenAI tool: use --from openai)"
    for key, source in _SCHEMA_KEYS.items():
        if key != schema_key and key in obj and not (key == "parameters" and schema_key == ""):
            return f" (it looks like an {source} tool: use --from {source})"
    return ""


def _known(schema_key: str, *others: str) -> frozenset[str]:
    """The keys a tool object of one format may hold: its schema key, ``name``, ``description``,
    ``x-ek-weight`` and the format's ``others`` (worked out once per format, not per tool)."""
    return frozenset({"name", "description", schema_key, "x-ek-weight", *others})


_OPENAI_KEYS = _known("parameters", "type", "strict")
_ANTHROPIC_KEYS = _known("input_schema", "type")
_MCP_KEYS = _known("inputSchema")
_BFCL_KEYS = _known("parameters")


def _tool(obj: Any, schema_key: str, path: str, issues: Issues, known: frozenset[str]) -> RawTool | None:
    """The tool in ``obj`` (``known``: the keys it may hold, :func:`_known`), or None when it is skipped.

    ``type(...) is dict`` is tested before each abstract ``Mapping`` isinstance (a Python-level ABC check):
    a decoded object is a ``dict``, which is a ``Mapping``, so the answer is the same without the check.
    """
    if type(obj) is not dict and not isinstance(obj, Mapping):
        issues.error(path, f"a tool must be an object, got {type(obj).__name__}; skipped")
        return None
    name = obj.get("name")
    if not isinstance(name, str) or not name:
        issues.error(child(path, "name"), f"a tool needs a non-empty string name, got {name!r}; skipped"
                                          f"{format_hint(obj, schema_key)}")
        return None
    if schema_key not in obj:
        hint = format_hint(obj, schema_key)
        if hint:
            issues.error(path, f"tool {name!r} has no {schema_key!r}; skipped{hint}")
            return None
    schema = obj.get(schema_key, {"type": "object", "properties": {}})
    if type(schema) is not dict and not isinstance(schema, Mapping):
        issues.error(child(path, schema_key), f"{schema_key} must be an object; tool {name!r} skipped")
        return None
    _extra_keys(obj, known, path, issues)
    weight = obj.get("x-ek-weight", schema.get("x-ek-weight"))
    return RawTool(name, _description(obj, path, issues), schema, schema, child(path, schema_key), weight)


def openai_tools(data: Any, issues: Issues) -> Iterator[RawTool]:
    """``[{"type": "function", "function": {...}}]``, ``{"tools": [...]}`` or bare function objects."""
    items, base = _listed(data, "tools", issues)
    single = base == "$" and not isinstance(data, (list, tuple))
    for i, item in enumerate(items):
        path = _item_path(base, i, single)
        if isinstance(item, Mapping) and isinstance(item.get("function"), Mapping):
            if item.get("type", "function") != "function":
                issues.error(path, f"tool type {item.get('type')!r} is not a function; skipped")
                continue
            _extra_keys(item, {"type", "function"}, path, issues)
            item, path = item["function"], child(path, "function")
        elif isinstance(item, Mapping) and item.get("type") not in (None, "function"):
            issues.error(path, f"tool type {item.get('type')!r} is not a function; skipped")
            continue
        tool = _tool(item, "parameters", path, issues, _OPENAI_KEYS)
        if tool is not None:
            if isinstance(item, Mapping) and item.get("strict") is True:
                issues.warn(child(path, "strict"), "OpenAI's strict flag has no place in .ek (its required "
                                                   "properties that may be null are read as optional arguments; "
                                                   "ek export --to openai --openai-strict writes it back); dropped")
                tool = attrs.evolve(tool, strict=True)
            elif isinstance(item, Mapping) and "strict" in item:
                issues.warn(child(path, "strict"), f"OpenAI's strict flag {item['strict']!r:.20} has no place in "
                                                   f".ek; dropped")
            yield tool


def anthropic_tools(data: Any, issues: Issues) -> Iterator[RawTool]:
    """``[{"name", "description", "input_schema"}]`` or ``{"tools": [...]}``; server tools are reported."""
    items, base = _listed(data, "tools", issues)
    single = base == "$" and not isinstance(data, (list, tuple))
    for i, item in enumerate(items):
        path = _item_path(base, i, single)
        if isinstance(item, Mapping) and "input_schema" not in item and item.get("type") not in (None, "custom"):
            issues.error(path, f"server tool of type {item.get('type')!r} has no input schema; skipped"
                               f"{format_hint(item, 'input_schema')}")
            continue
        tool = _tool(item, "input_schema", path, issues, _ANTHROPIC_KEYS)
        if tool is not None:
            yield tool


def mcp_tools(data: Any, issues: Issues) -> Iterator[RawTool]:
    """An MCP ``tools/list`` result (``{"tools": [...]}``, possibly under ``result``) or a list of tools."""
    items, base = _listed(data, "tools", issues)
    single = base == "$" and not isinstance(data, (list, tuple))
    for i, item in enumerate(items):
        tool = _tool(item, "inputSchema", _item_path(base, i, single), issues, _MCP_KEYS)
        if tool is not None:
            yield tool


def jsonschema_tools(data: Any, issues: Issues) -> Iterator[RawTool]:
    """One object schema per tool (or a list of them), each named by its ``title``."""
    items, base = (list(data), "$") if isinstance(data, (list, tuple)) else ([data], "$")
    for i, item in enumerate(items):
        path = child(base, i) if isinstance(data, (list, tuple)) else base
        if not isinstance(item, Mapping):
            issues.error(path, f"a tool schema must be an object, got {type(item).__name__}; skipped")
            continue
        name = item.get("title")
        if not isinstance(name, str) or not name:
            issues.error(child(path, "title"), "a JSON Schema tool needs a 'title' naming the tool; skipped")
            continue
        schema = {k: v for k, v in item.items() if k not in ("title", "description", "x-ek-weight")}
        yield RawTool(name, _description(item, path, issues), schema, item, path, item.get("x-ek-weight"))


def bfcl_tools(data: Any, issues: Issues) -> Iterator[RawTool]:
    """BFCL function descriptions: a question entry or a list of them, or functions themselves."""
    items = list(data) if isinstance(data, (list, tuple)) else [data]
    for i, item in enumerate(items):
        path = child("$", i) if isinstance(data, (list, tuple)) else "$"
        if (type(item) is dict or isinstance(item, Mapping)) and "function" in item and "name" not in item:
            functions = item["function"] if isinstance(item["function"], list) else [item["function"]]
            for j, func in enumerate(functions):
                tool = _tool(func, "parameters", child(child(path, "function"), j), issues, _BFCL_KEYS)
                if tool is not None:
                    yield tool
            continue
        tool = _tool(item, "parameters", path, issues, _BFCL_KEYS)
        if tool is not None:
            yield tool


READERS = {
    "openai": openai_tools,
    "anthropic": anthropic_tools,
    "mcp": mcp_tools,
    "jsonschema": jsonschema_tools,
    "bfcl": bfcl_tools,
}
