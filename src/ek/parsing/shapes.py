"""Decoded JSON call shapes -> steps: OpenAI, Anthropic, ``{"name", "arguments"}`` and BFCL.

Each reader takes an already-decoded object plus the JSON path it sits at, so
errors say exactly where (``$.choices[0].message.tool_calls[1].function``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ek.calls import Step
from ek.parsing import json_text
from ek.parsing.errors import ParseError
from ek.parsing.limits import Limits
from ek.parsing.values import plain_args

#: Keys that hold a generic call's arguments, in the order they are looked for.
ARGUMENT_KEYS = ("arguments", "parameters", "args", "input")
#: Anthropic content blocks and OpenAI Responses output items that are not calls, skipped in lists.
NON_CALL_BLOCKS = frozenset({"text", "thinking", "redacted_thinking", "message", "reasoning"})


def is_non_call(obj: Mapping[str, Any]) -> bool:
    """Whether a block/item is one of :data:`NON_CALL_BLOCKS` (a non-string ``type``, even a list, is not).

    >>> is_non_call({"type": "text"}), is_non_call({"type": ["text"]})
    (True, False)
    """
    kind = obj.get("type")
    return isinstance(kind, str) and kind in NON_CALL_BLOCKS


def _name(value: object, path: str, fmt: str) -> str:
    if not isinstance(value, str):
        raise ParseError(f"the tool name must be a string, got {type(value).__name__}", path, fmt)
    if not value:
        raise ParseError("the tool name is empty", path, fmt)
    return value


def _arguments(value: object, path: str, limits: Limits, fmt: str) -> dict[str, Any]:
    """Arguments given as a mapping, or as JSON text holding an object (OpenAI's way)."""
    if isinstance(value, str):
        if not value.strip():
            return {}
        value = json_text.loads(value, limits, fmt, path)
        if isinstance(value, str):
            raise ParseError("arguments must be a JSON object, got a JSON string (the arguments were encoded "
                             "twice?)", path, fmt)
        if not isinstance(value, dict):
            raise ParseError(f"arguments must be a JSON object, got {_json_kind(value)}", path, fmt)
        return value  # already checked by the strict decoder
    if value is None:
        return {}
    return plain_args(value, path, limits, fmt)


def openai_tool_call(obj: Mapping[str, Any], path: str, limits: Limits, fmt: str = "openai") -> Step:
    """``{"type": "function", "function": {"name": ..., "arguments": "<json>"}}``."""
    function = obj.get("function")
    if not isinstance(function, Mapping):
        raise ParseError("an OpenAI tool call needs a 'function' object", path, fmt)
    kind = obj.get("type", "function")
    if kind != "function":
        raise ParseError(f"unsupported OpenAI tool call type {kind!r}", f"{path}.type", fmt)
    fpath = f"{path}.function"
    name = _name(function.get("name"), f"{fpath}.name", fmt)
    return Step(name, _arguments(function.get("arguments"), f"{fpath}.arguments", limits, fmt))


def openai_message(obj: Mapping[str, Any], path: str, limits: Limits, fmt: str = "openai") -> list[Step]:
    """An assistant message: its ``tool_calls`` (``None``/absent: no calls) or legacy ``function_call``."""
    calls = obj.get("tool_calls")
    steps: list[Step] = []
    if calls is not None:
        if not isinstance(calls, list):
            raise ParseError("'tool_calls' must be a list", f"{path}.tool_calls", fmt)
        steps = [openai_tool_call(_mapping(c, f"{path}.tool_calls[{i}]", fmt), f"{path}.tool_calls[{i}]", limits, fmt)
                 for i, c in enumerate(calls)]
    legacy = obj.get("function_call")
    if legacy is not None:
        fpath = f"{path}.function_call"
        legacy = _mapping(legacy, fpath, fmt)
        steps.append(Step(_name(legacy.get("name"), f"{fpath}.name", fmt),
                          _arguments(legacy.get("arguments"), f"{fpath}.arguments", limits, fmt)))
    return steps


def openai_response(obj: Mapping[str, Any], path: str, limits: Limits, fmt: str = "openai") -> list[Step]:
    """A chat-completions response: the calls of its one choice."""
    choices = obj.get("choices")
    if not isinstance(choices, list) or len(choices) != 1:
        count = len(choices) if isinstance(choices, list) else type(choices).__name__
        raise ParseError(f"expected a response with exactly one choice, got {count}; pass one choice's message",
                         f"{path}.choices", fmt)
    choice = _mapping(choices[0], f"{path}.choices[0]", fmt)
    message = _mapping(choice.get("message"), f"{path}.choices[0].message", fmt)
    return openai_message(message, f"{path}.choices[0].message", limits, fmt)


def openai_output_item(obj: Mapping[str, Any], path: str, limits: Limits, fmt: str = "openai") -> Step:
    """A Responses API output item ``{"type": "function_call", "name": ..., "arguments": "<json>"}``."""
    return Step(_name(obj.get("name"), f"{path}.name", fmt), _arguments(obj.get("arguments"), f"{path}.arguments",
                                                                         limits, fmt))


def openai_responses(obj: Mapping[str, Any], path: str, limits: Limits, fmt: str = "openai") -> list[Step]:
    """A Responses API response: the ``function_call`` items of its ``output`` (messages, reasoning skipped)."""
    steps = []
    for i, item in enumerate(obj["output"]):
        ipath = f"{path}.output[{i}]"
        item = _mapping(item, ipath, fmt)
        if is_non_call(item):
            continue
        if item.get("type") != "function_call":
            raise ParseError(f"unsupported output item type {item.get('type')!r}", f"{ipath}.type", fmt)
        steps.append(openai_output_item(item, ipath, limits, fmt))
    return steps


def anthropic_block(obj: Mapping[str, Any], path: str, limits: Limits, fmt: str = "anthropic") -> Step:
    """``{"type": "tool_use", "name": ..., "input": {...}}``."""
    if obj.get("type") != "tool_use":
        raise ParseError(f"expected a tool_use block, got type {obj.get('type')!r}", f"{path}.type", fmt)
    if "input" not in obj:
        raise ParseError("a tool_use block needs an 'input' object", path, fmt)
    return Step(_name(obj.get("name"), f"{path}.name", fmt), plain_args(obj["input"], f"{path}.input", limits, fmt))


def anthropic_blocks(blocks: list[Any], path: str, limits: Limits, fmt: str = "anthropic") -> list[Step]:
    """A list of content blocks: the ``tool_use`` ones, text and thinking skipped."""
    steps = []
    for i, block in enumerate(blocks):
        bpath = f"{path}[{i}]"
        block = _mapping(block, bpath, fmt)
        if is_non_call(block):
            continue
        steps.append(anthropic_block(block, bpath, limits, fmt))
    return steps


def generic_call(obj: Mapping[str, Any], path: str, limits: Limits, fmt: str = "json") -> Step:
    """``{"name": ..., "arguments"|"parameters"|"args"|"input": {...}}`` (arguments may be JSON text)."""
    present = [key for key in ARGUMENT_KEYS if key in obj]
    if len(present) > 1:
        raise ParseError(f"ambiguous call: both {present[0]!r} and {present[1]!r} given", path, fmt)
    name = _name(obj.get("name"), f"{path}.name", fmt)
    if not present:
        return Step(name, {})
    key = present[0]
    return Step(name, _arguments(obj[key], f"{path}.{key}", limits, fmt))


def bfcl_call(obj: Mapping[str, Any], path: str, limits: Limits, fmt: str = "bfcl") -> list[Step]:
    """``{"func": {"arg": value}}``: each key a tool name, its value the arguments."""
    if not obj:
        raise ParseError("an empty object is not a call", path, fmt)
    steps = []
    for name, args in obj.items():
        sub = f"{path}[{name!r}]"
        steps.append(Step(_name(name, path, fmt), _arguments(args, sub, limits, fmt)))
    return steps


def _json_kind(value: object) -> str:
    """The JSON name of a decoded value's type, for messages about JSON text."""
    names = {list: "an array", bool: "a boolean", int: "a number", float: "a number", type(None): "null"}
    return names.get(type(value), type(value).__name__)


def _mapping(value: object, path: str, fmt: str) -> Mapping[str, Any]:
    if not isinstance(value, Mapping):
        raise ParseError(f"expected an object, got {type(value).__name__}", path, fmt)
    return value


def is_bfcl_call(obj: Mapping[str, Any]) -> bool:
    """One key whose value is the argument object (or its JSON text)."""
    if len(obj) != 1:
        return False
    (value,) = obj.values()
    return isinstance(value, (Mapping, str))


def is_responses(obj: Mapping[str, Any]) -> bool:
    """A Responses API response: ``"object": "response"``, or a bare ``{"output": [...]}`` wrapper whose
    items are all typed objects (as the API's own ``output`` list is).

    >>> is_responses({"output": [{"type": "function_call", "name": "f", "arguments": "{}"}]})
    True
    >>> is_responses({"name": "f", "output": [{"type": "x"}]}), is_responses({"output": []})
    (False, False)
    """
    output = obj.get("output")
    if not isinstance(output, list):
        return False
    if obj.get("object") == "response":
        return True
    return "name" not in obj and bool(output) and all(
        isinstance(item, Mapping) and isinstance(item.get("type"), str) for item in output)


def classify(obj: Mapping[str, Any]) -> str | None:
    """Which shape a dict is: ``response``, ``responses``, ``openai_message``, ``openai_call``,
    ``openai_item``, ``anthropic_block``, ``anthropic_message``, ``generic``, ``bfcl`` or ``None``.

    >>> classify({"name": "f", "arguments": "{}"})
    'generic'
    >>> classify({"f": {"x": 1}})
    'bfcl'
    """
    if "choices" in obj:
        return "response"
    if is_responses(obj):
        return "responses"
    if "tool_calls" in obj or "function_call" in obj:
        return "openai_message"
    kind = obj.get("type")
    if kind == "tool_use":
        return "anthropic_block"
    if kind == "function_call":
        return "openai_item"
    if isinstance(obj.get("content"), list):
        return "anthropic_message"
    if "role" in obj:  # a message with text only: no calls
        return "openai_message"
    if isinstance(obj.get("function"), Mapping):
        return "openai_call"
    if isinstance(obj.get("name"), str) and (any(k in obj for k in ARGUMENT_KEYS) or len(obj) == 1):
        return "generic"
    if is_bfcl_call(obj):
        return "bfcl"
    return None
