"""Decoded JSON call shapes -> steps: OpenAI, Anthropic, ``{"name", "arguments"}`` and BFCL.

Each reader takes an already-decoded object plus the JSON path it sits at, so
errors say exactly where (``$.choices[0].message.tool_calls[1].function``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ek.calls import Step, step_of_plain
from ek.parsing import json_text
from ek.parsing.errors import ParseError
from ek.parsing.limits import Limits
from ek.parsing.values import already_plain, plain_args

#: Keys that hold a generic call's arguments, in the order they are looked for.
ARGUMENT_KEYS = ("arguments", "parameters", "args", "input")
#: Blocks and output items of the tools a provider runs itself: Anthropic's server tools (``server_tool_use``, the
#: MCP connector's ``mcp_tool_use``) and their results, and the Responses API's hosted tools. The response already
#: holds what they returned and the client never runs them: each SDK's tool runner answers only ``tool_use`` blocks
#: and ``function_call`` items, and ek reads only those as calls.
SERVER_TOOL_BLOCKS = frozenset({
    "server_tool_use", "web_search_tool_result", "web_fetch_tool_result", "code_execution_tool_result",
    "bash_code_execution_tool_result", "text_editor_code_execution_tool_result", "tool_search_tool_result",
    "mcp_tool_use", "mcp_tool_result", "container_upload",
    "web_search_call", "file_search_call", "code_interpreter_call", "image_generation_call", "mcp_call",
    "mcp_list_tools", "mcp_approval_request",
})
#: Responses API items of the tools the client runs, besides ``function_call``: each is a call, named by its
#: tool (a custom tool's own name; a built-in tool's type) with the arguments ek reads from it: a custom tool's
#: free-form ``input`` text as the one argument ``input``, a built-in tool's ``action`` (``operation`` for
#: ``apply_patch``) object as it is written (its own ``type`` included: ``{"type": "click", "x": 1, ...}``).
#: Maps the item's type to (the call's name, or None for the item's ``name``; the key its arguments are under).
CLIENT_TOOL_ITEMS: dict[str, tuple[str | None, str]] = {
    "custom_tool_call": (None, "input"),
    "computer_call": ("computer", "action"),
    "local_shell_call": ("local_shell", "action"),
    "shell_call": ("shell", "action"),
    "apply_patch_call": ("apply_patch", "operation"),
}
#: Responses API input items that answer a call (what the client's tool returned) or an approval: context in a
#: list of items, never calls.
TOOL_OUTPUT_ITEMS = frozenset({
    "function_call_output", "custom_tool_call_output", "computer_call_output", "local_shell_call_output",
    "shell_call_output", "apply_patch_call_output", "mcp_approval_response",
})
#: Anthropic content blocks and OpenAI Responses output items that are not calls, skipped in lists.
NON_CALL_BLOCKS = frozenset({"text", "thinking", "redacted_thinking", "message", "reasoning"}) | SERVER_TOOL_BLOCKS


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
    if already_plain(value, limits):
        # Fast path: a dict that is plain JSON within the limits is what plain_args would copy it to; only its
        # top level is copied (the step owns its argument dict; nested values are shared, never changed).
        return dict(value)  # type: ignore[arg-type]
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
    """A Responses API output item ``{"type": "function_call", "name": ..., "arguments": "<json>"}``, or one of a
    tool the client runs (:data:`CLIENT_TOOL_ITEMS`): ``{"type": "custom_tool_call", "name": "apply_patch",
    "input": "*** Begin Patch..."}`` is ``apply_patch(input="*** Begin Patch...")``."""
    kind = obj.get("type")
    client = CLIENT_TOOL_ITEMS.get(kind) if isinstance(kind, str) else None
    if client is None:
        return Step(_name(obj.get("name"), f"{path}.name", fmt),
                    _arguments(obj.get("arguments"), f"{path}.arguments", limits, fmt))
    name, key = client
    value, where = obj.get(key), f"{path}.{key}"
    if name is None:  # a custom tool: its input is free-form text
        if not isinstance(value, str):
            raise ParseError(f"a custom tool call's 'input' must be text, got {_json_kind(value)}", where, fmt)
        return Step(_name(obj.get("name"), f"{path}.name", fmt), plain_args({"input": value}, where, limits, fmt))
    if not isinstance(value, Mapping):
        raise ParseError(f"a {kind} item needs an {key!r} object, got {_json_kind(value)}", where, fmt)
    return Step(name, plain_args(value, where, limits, fmt))


def is_tool_output(obj: Mapping[str, Any]) -> bool:
    """Whether a Responses item is one of :data:`TOOL_OUTPUT_ITEMS` (a non-string ``type`` is not)."""
    kind = obj.get("type")
    return isinstance(kind, str) and kind in TOOL_OUTPUT_ITEMS


def is_client_tool_item(kind: object) -> bool:
    """Whether a Responses item's ``type`` is a call of the client's: ``function_call`` or
    :data:`CLIENT_TOOL_ITEMS`."""
    return kind == "function_call" or (isinstance(kind, str) and kind in CLIENT_TOOL_ITEMS)


def openai_responses(obj: Mapping[str, Any], path: str, limits: Limits, fmt: str = "openai") -> list[Step]:
    """A Responses API response: the ``function_call`` items of its ``output`` (messages, reasoning skipped)."""
    steps = []
    for i, item in enumerate(obj["output"]):
        ipath = f"{path}.output[{i}]"
        item = _mapping(item, ipath, fmt)
        if is_non_call(item):
            continue
        if not is_client_tool_item(item.get("type")):
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


def bfcl_plain_calls(items: list[Any], limits: Limits) -> list[Step] | None:
    """Fast path of reading a decoded BFCL list (``[{"f": {...}}, ...]``): its steps when every item is a
    non-empty ``dict`` (not another call's shape, :func:`bfcl_other_call`) of non-empty string tool names to arguments that are a ``dict`` of plain JSON within
    ``limits`` (:func:`ek.parsing.values.already_plain`) or, as BFCL saves a function-calling model's
    calls, the JSON text of an object (:func:`ek.parsing.json_text.plain_object`); ``None`` for anything
    else, which the general reader (:func:`bfcl_call` per item) reads or refuses with the error at its path.

    It gives what :func:`bfcl_call` gives on such items (a dict argument copied at its top level, as
    :func:`_arguments` copies it; JSON text decoded by the same strict decoder) without building the JSON
    paths that only errors use.
    """
    steps: list[Step] = []
    for item in items:
        if type(item) is not dict or not item or (len(item) > 1 and bfcl_other_call(item) is not None):
            return None  # several keys that are another call's shape ({"name", "arguments"}): the reader's
        for name, args in item.items():
            if type(name) is not str or not name or (args := _plain_arguments(args, limits)) is None:
                return None
            steps.append(step_of_plain(name, args))
    return steps


def plain_generic_call(obj: Any, limits: Limits) -> Step | None:
    """Fast path of :func:`classify` and :func:`generic_call` on a decoded ``{"name": "f", "arguments": {...}}``
    (a Hermes block's call): its step when ``obj`` is a ``dict`` of exactly a non-empty string ``name`` and one
    argument key (:data:`ARGUMENT_KEYS`) whose value :func:`_plain_arguments` takes; ``None`` for anything else,
    which the general reader reads or refuses with the error at its path.

    It gives what ``from_object`` gives on such an object (it is ``generic`` to :func:`classify`, and
    :func:`generic_call` reads its one argument key as :func:`_plain_arguments` does), without the shape search,
    the JSON paths and the checks that only errors need.

    >>> plain_generic_call({"name": "f", "arguments": {"x": 1}}, Limits()), plain_generic_call({"name": "f"}, Limits())
    (Step(name='f', args={'x': 1}), None)
    """
    if type(obj) is not dict or len(obj) != 2 or not obj.keys() <= _NAME_AND_ARGUMENTS:
        return None
    name = obj.get("name")
    if type(name) is not str or not name:
        return None
    (key,) = (k for k in obj if k != "name")
    args = _plain_arguments(obj[key], limits)
    return None if args is None else step_of_plain(name, args)


def _plain_arguments(args: Any, limits: Limits) -> dict[str, Any] | None:
    """A call's arguments as the fast paths take them: a ``dict`` of plain JSON within ``limits``
    (:func:`ek.parsing.values.already_plain`), copied at its top level as :func:`_arguments` copies it, or the JSON
    text of an object (:func:`ek.parsing.json_text.plain_object`: the same strict decoder); else None."""
    if type(args) is dict:
        return dict(args) if already_plain(args, limits) else None
    if type(args) is str:
        return json_text.plain_object(args, limits)
    return None


def _json_kind(value: object) -> str:
    """The JSON name of a decoded value's type, for messages about JSON text."""
    names = {list: "an array", bool: "a boolean", int: "a number", float: "a number", type(None): "null"}
    return names.get(type(value), type(value).__name__)


json_kind = _json_kind


def _mapping(value: object, path: str, fmt: str) -> Mapping[str, Any]:
    if not isinstance(value, Mapping):
        raise ParseError(f"expected an object, got {type(value).__name__}", path, fmt)
    return value


#: Call objects the ``bfcl`` format reads by their own shape: one call each, never a one-key object (BFCL's form).
_BFCL_OTHER_CALLS = frozenset({"generic", "openai_call", "openai_item", "anthropic_block", "mcp_message"})


def bfcl_other_call(obj: Mapping[str, Any]) -> str | None:
    """The kind (:func:`classify`) of an object of several keys that the ``bfcl`` format reads as the one call
    it is, not as one call per key: ``{"name": "f", "arguments": {...}}`` (a locally served function-calling
    model's call, which BFCL's handlers for it read), an OpenAI or Responses tool call, an Anthropic
    ``tool_use``, an MCP ``tools/call``; None for any other object (a one-key one is BFCL's ``{"f": {...}}``).

    >>> bfcl_other_call({"name": "f", "arguments": {}}), bfcl_other_call({"f": {}, "g": {}})
    ('generic', None)
    """
    if len(obj) < 2:
        return None
    kind = classify(obj)
    return kind if kind in _BFCL_OTHER_CALLS else None


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
    ``openai_item``, ``anthropic_block``, ``anthropic_message``, ``gemini_response``, ``gemini_content``,
    ``gemini_part``, ``bedrock_response``, ``bedrock_message``, ``bedrock_block``, ``langchain_message``,
    ``wrapped`` (``{"message": {...}}``: Ollama's response, Bedrock's ``output``), ``transcript``
    (``{"messages": [...]}``), ``mcp_message`` (a JSON-RPC 2.0 message), ``generic``, ``bfcl`` or ``None``.

    ``bfcl`` (any one-key object) is only a guess from the shape: callers reading model output take it
    as a call in BFCL's format only, never when telling formats apart.

    >>> classify({"name": "f", "arguments": "{}"})
    'generic'
    >>> classify({"f": {"x": 1}}), classify({"functionCall": {"name": "f", "args": {}}})
    ('bfcl', 'gemini_part')
    """
    if len(obj) == 2 and type(obj.get("name")) is str and obj.keys() <= _NAME_AND_ARGUMENTS:
        # Fast path: ``{"name": "f", "arguments": ...}``, the call object of Hermes-style blocks and of most JSON
        # calls. Skips a dozen looks for other shapes' keys (a third of reading such a block). Safe: every other
        # shape is told by a key this object does not have, so _classify_shape gives "generic" too
        # (tests/parsing/test_parse_formats.py holds the two alike).
        return "generic"
    return _classify_shape(obj)


#: The keys of a ``{"name", "arguments"}`` call object, whichever argument key it uses (:func:`classify`).
_NAME_AND_ARGUMENTS = frozenset({"name", *ARGUMENT_KEYS})


def _classify_shape(obj: Mapping[str, Any]) -> str | None:
    """:func:`classify`'s general path: each shape looked for in turn."""
    if obj.get("jsonrpc") == "2.0":
        return "mcp_message"
    if "choices" in obj:
        return "response"
    if "candidates" in obj:
        return "gemini_response"
    if is_responses(obj):
        return "responses"
    if isinstance(obj.get("parts"), list):
        return "gemini_content"
    if gemini_part_call(obj) is not None:
        return "gemini_part"
    if isinstance(obj.get("toolUse"), Mapping):
        return "bedrock_block"
    output = obj.get("output")
    if isinstance(output, Mapping) and isinstance(output.get("message"), Mapping):
        return "bedrock_response"
    if isinstance(obj.get("message"), Mapping) and "name" not in obj:
        return "wrapped"
    if isinstance(obj.get("messages"), list) and "name" not in obj:
        return "transcript"
    if is_langchain_calls(obj.get("tool_calls")) or is_langchain_ai(obj):
        return "langchain_message"
    if "tool_calls" in obj or "function_call" in obj:
        return "openai_message"
    kind = obj.get("type")
    if kind == "tool_use":
        return "anthropic_block"
    if isinstance(kind, str) and kind in SERVER_TOOL_BLOCKS:
        return None  # a tool the provider ran (it has a name and an input, but is no call of the model's to score)
    if is_client_tool_item(kind):
        return "openai_item"
    content = obj.get("content")
    if isinstance(content, list):
        return "bedrock_message" if is_bedrock_content(content) else "anthropic_message"
    if "role" in obj:  # a message with text only: no calls
        return "openai_message"
    if isinstance(obj.get("function"), Mapping):
        return "openai_call"
    if isinstance(obj.get("name"), str) and (any(k in obj for k in ARGUMENT_KEYS) or len(obj) == 1):
        return "generic"
    if is_bfcl_call(obj):
        return "bfcl"
    return None


# --------------------------------------------------------------------------- MCP

#: The JSON-RPC method of an MCP client's tool call.
MCP_TOOLS_CALL = "tools/call"


def mcp_message(obj: Mapping[str, Any], path: str, limits: Limits, fmt: str = "mcp") -> list[Step]:
    """A JSON-RPC 2.0 message of the Model Context Protocol: a ``tools/call`` request is a call of
    ``params.name`` with ``params.arguments`` (an object; absent: none); every other message holds none (another
    method such as ``initialize`` or ``tools/list``, a notification, a response's ``result`` or ``error``), so a
    session's messages, or a batch, read as the calls the client made, in order.

    >>> mcp_message({"jsonrpc": "2.0", "id": 3, "method": "tools/call",
    ...              "params": {"name": "get_weather", "arguments": {"city": "Paris"}}}, "$", Limits())
    [Step(name='get_weather', args={'city': 'Paris'})]
    """
    if obj.get("method") != MCP_TOOLS_CALL:
        return []
    params = _mapping(obj.get("params"), f"{path}.params", fmt)
    return [Step(_name(params.get("name"), f"{path}.params.name", fmt),
                 _arguments(params.get("arguments"), f"{path}.params.arguments", limits, fmt))]


# --------------------------------------------------------------------------- coding agents' session logs


def session_log(items: list[Any]) -> str | None:
    """Which coding agent's session log a list of records is, or None: ``claude-code`` (Claude Code's session
    JSONL: ``{"type": "user" | "assistant", "message": {...}, ...}`` records among housekeeping ones) or
    ``codex`` (a Codex rollout: ``{"timestamp", "type": "response_item" | "event_msg" | ..., "payload": {...}}``).
    Told by one record of the kind that carries the conversation."""
    for item in items:
        if not isinstance(item, Mapping):
            continue
        kind = item.get("type")
        if kind == "response_item" and isinstance(item.get("payload"), Mapping):
            return "codex"
        if (kind == "assistant" or kind == "user") and isinstance(item.get("message"), Mapping) \
                and "role" in item["message"]:
            return "claude-code"
    return None


def claude_code_calls(items: list[Any], path: str, limits: Limits, fmt: str = "anthropic") -> list[Step]:
    """The calls of a Claude Code session log (:func:`session_log`): the ``tool_use`` blocks of each assistant
    record's message, in order (a subagent's records, ``isSidechain``, too: its calls are the session's).
    Every other record is context: the user's turns and the tool results they carry, and the housekeeping
    records (``summary``, ``system``, ``file-history-snapshot``, ``progress``, ...), whose types keep growing."""
    steps: list[Step] = []
    for i, item in enumerate(items):
        ipath = f"{path}[{i}]"
        item = _mapping(item, ipath, fmt)
        message = item.get("message")
        if item.get("type") != "assistant" or not isinstance(message, Mapping):
            continue
        content = message.get("content")
        if isinstance(content, list):  # (text content: an answer with no call)
            steps.extend(anthropic_blocks(content, f"{ipath}.message.content", limits, fmt))
    return steps


def codex_rollout_calls(items: list[Any], path: str, limits: Limits, fmt: str = "openai") -> list[Step]:
    """The calls of a Codex rollout (:func:`session_log`): each ``response_item`` record's payload that is a
    call of the client's (``function_call`` and :data:`CLIENT_TOOL_ITEMS`: Codex's ``shell``,
    ``apply_patch``, ...), in order. Every other record is context: the session's metadata, turn contexts,
    events (``event_msg``, which repeat what the items hold), and the items that are messages, reasoning, the
    tools' outputs or tools the provider ran."""
    steps: list[Step] = []
    for i, item in enumerate(items):
        ipath = f"{path}[{i}]"
        item = _mapping(item, ipath, fmt)
        payload = item.get("payload")
        if item.get("type") == "response_item" and isinstance(payload, Mapping) \
                and is_client_tool_item(payload.get("type")):
            steps.append(openai_output_item(payload, f"{ipath}.payload", limits, fmt))
    return steps


# --------------------------------------------------------------------------- Gemini, Bedrock, LangChain

#: Gemini parts that are not calls: text, thoughts, code the model ran, results it was given, media and its
#: metadata, and the server-side tools Gemini runs itself (``toolCall``/``toolResponse``, e.g. Google Search: the
#: SDK's ``response.function_calls`` holds only ``functionCall`` parts). REST and SDK spellings.
GEMINI_NON_CALL_PARTS = frozenset({"text", "thought", "thoughtSignature", "thought_signature", "executableCode",
                                   "executable_code", "codeExecutionResult", "code_execution_result",
                                   "inlineData", "inline_data", "fileData", "file_data", "videoMetadata",
                                   "video_metadata", "mediaResolution", "media_resolution", "partMetadata",
                                   "part_metadata", "functionResponse", "function_response", "toolCall", "tool_call",
                                   "toolResponse", "tool_response"})
#: Roles whose messages hold the model's calls in a transcript; every other role is context.
ASSISTANT_ROLES = frozenset({"assistant", "model", "ai"})


def gemini_part_call(obj: Mapping[str, Any]) -> Mapping[str, Any] | None:
    """A Gemini part's ``functionCall`` (REST) or ``function_call`` (Python SDK, with ``args``), or None."""
    call = obj.get("functionCall")
    if isinstance(call, Mapping):
        return call
    call = obj.get("function_call")
    if isinstance(call, Mapping) and "args" in call and "arguments" not in call:
        return call
    return None


def gemini_call(obj: Mapping[str, Any], path: str, limits: Limits, fmt: str = "gemini") -> Step:
    """A part ``{"functionCall": {"name": ..., "args": {...}}}`` (or the SDK's ``function_call``)."""
    key = "functionCall" if "functionCall" in obj else "function_call"
    call = _mapping(obj.get(key), f"{path}.{key}", fmt)
    cpath = f"{path}.{key}"
    return Step(_name(call.get("name"), f"{cpath}.name", fmt), plain_args(call.get("args") or {}, f"{cpath}.args",
                                                                           limits, fmt))


def gemini_parts(parts: object, path: str, limits: Limits, fmt: str = "gemini") -> list[Step]:
    """The calls of a Content's ``parts``: text and thought parts skipped, anything unknown an error."""
    if not isinstance(parts, list):
        raise ParseError("'parts' must be a list", path, fmt)
    steps = []
    for i, part in enumerate(parts):
        ppath = f"{path}[{i}]"
        part = _mapping(part, ppath, fmt)
        if gemini_part_call(part) is not None:
            steps.append(gemini_call(part, ppath, limits, fmt))
        elif not all(key in GEMINI_NON_CALL_PARTS for key, value in part.items() if value is not None):
            # a None field is one the part does not have: the SDK's model_dump() writes every field
            keys = ", ".join(repr(k) for k, v in part.items() if v is not None and k not in GEMINI_NON_CALL_PARTS)
            raise ParseError(f"not a Gemini part ek reads: keys {keys}", ppath, fmt)
    return steps


def gemini_response(obj: Mapping[str, Any], path: str, limits: Limits, fmt: str = "gemini") -> list[Step]:
    """A GenerateContentResponse: the calls of its one candidate's content."""
    candidates = obj.get("candidates")
    if not isinstance(candidates, list) or len(candidates) != 1:
        count = len(candidates) if isinstance(candidates, list) else type(candidates).__name__
        raise ParseError(f"expected a response with exactly one candidate, got {count}; pass one candidate's "
                         "content", f"{path}.candidates", fmt)
    candidate = _mapping(candidates[0], f"{path}.candidates[0]", fmt)
    content = candidate.get("content")
    if content is None:
        return []  # a candidate stopped before writing anything (safety, max tokens)
    content = _mapping(content, f"{path}.candidates[0].content", fmt)
    return gemini_parts(content.get("parts", []), f"{path}.candidates[0].content.parts", limits, fmt)


def bedrock_block(obj: Mapping[str, Any], path: str, limits: Limits, fmt: str = "bedrock") -> Step:
    """A Converse content block ``{"toolUse": {"toolUseId": ..., "name": ..., "input": {...}}}``."""
    use = _mapping(obj.get("toolUse"), f"{path}.toolUse", fmt)
    upath = f"{path}.toolUse"
    if "input" not in use:
        raise ParseError("a toolUse block needs an 'input' object", upath, fmt)
    return Step(_name(use.get("name"), f"{upath}.name", fmt), plain_args(use["input"], f"{upath}.input", limits, fmt))


def bedrock_blocks(blocks: list[Any], path: str, limits: Limits, fmt: str = "bedrock") -> list[Step]:
    """A Converse message's content: the ``toolUse`` blocks (text, reasoning and others skipped)."""
    steps = []
    for i, block in enumerate(blocks):
        bpath = f"{path}[{i}]"
        block = _mapping(block, bpath, fmt)
        if "toolUse" in block:
            steps.append(bedrock_block(block, bpath, limits, fmt))
    return steps


def is_bedrock_content(blocks: list[Any]) -> bool:
    """Converse blocks are keyed by kind (``{"text": ...}``, ``{"toolUse": ...}``), never typed."""
    return bool(blocks) and all(isinstance(b, Mapping) and "type" not in b for b in blocks) and any(
        "toolUse" in b or "text" in b or "reasoningContent" in b for b in blocks)


#: LangChain's AI message types: ``type`` of a dump, ``message_to_dict``'s ``type``, ``dumpd``'s class name.
LANGCHAIN_AI_TYPES = frozenset({"ai", "AIMessageChunk", "AIMessage"})


def langchain_serialized(obj: Mapping[str, Any]) -> tuple[str, Mapping[str, Any], str] | None:
    """A LangChain message as its serializers write it: ``dumpd``'s ``{"lc": 1, "type": "constructor", "id":
    [..., "AIMessage"], "kwargs": {...}}`` and ``message_to_dict``'s ``{"type": "ai", "data": {...}}`` (chat
    histories): its type (class name or ``type``), its fields and the key holding them; None for anything else.

    >>> langchain_serialized({"type": "ai", "data": {"content": "hi"}})
    ('ai', {'content': 'hi'}, 'data')
    """
    kwargs, ids = obj.get("kwargs"), obj.get("id")
    if obj.get("lc") == 1 and obj.get("type") == "constructor" and isinstance(kwargs, Mapping) \
            and isinstance(ids, list) and ids and isinstance(ids[-1], str):
        return ids[-1], kwargs, "kwargs"
    data, kind = obj.get("data"), obj.get("type")
    if len(obj) == 2 and isinstance(data, Mapping) and isinstance(kind, str):
        return kind, data, "data"
    return None


def is_langchain_ai(obj: Mapping[str, Any]) -> bool:
    """An AIMessage (or chunk) in any of LangChain's dict forms: a dump (``type: "ai"``) or serialized."""
    serialized = langchain_serialized(obj)
    kind = serialized[0] if serialized is not None else obj.get("type")
    return isinstance(kind, str) and kind in LANGCHAIN_AI_TYPES


def langchain_message(obj: Mapping[str, Any], path: str, limits: Limits, fmt: str = "langchain") -> list[Step]:
    """An AIMessage as a dict (``model_dump()``, or serialized: :func:`langchain_serialized`): ``tool_calls:
    [{"name", "args", "id"}]``, or, when it has none, the provider's raw OpenAI calls in
    ``additional_kwargs.tool_calls`` (older integrations), read as AIMessage reads them; calls LangChain itself
    could not parse (``invalid_tool_calls``) are an error naming LangChain's reason."""
    serialized = langchain_serialized(obj)
    if serialized is not None:
        _kind, obj, key = serialized
        path = f"{path}.{key}"
    if not any(obj.get(k) for k in ("tool_calls", "invalid_tool_calls", "tool_call_chunks")):
        extra = obj.get("additional_kwargs")
        raw = extra.get("tool_calls") if isinstance(extra, Mapping) else None
        if raw:
            return _langchain_raw_calls(raw, f"{path}.additional_kwargs.tool_calls", limits, fmt)
    invalid = obj.get("invalid_tool_calls")
    if isinstance(invalid, list) and invalid:
        first = invalid[0] if isinstance(invalid[0], Mapping) else {}
        raise ParseError(f"LangChain could not parse call {first.get('name')!r}: {first.get('error')}",
                         f"{path}.invalid_tool_calls[0]", fmt)
    calls = obj.get("tool_calls")
    if calls is None:
        return []
    if not isinstance(calls, list):
        raise ParseError("'tool_calls' must be a list", f"{path}.tool_calls", fmt)
    steps = []
    for i, call in enumerate(calls):
        cpath = f"{path}.tool_calls[{i}]"
        call = _mapping(call, cpath, fmt)
        steps.append(Step(_name(call.get("name"), f"{cpath}.name", fmt),
                          _arguments(call.get("args"), f"{cpath}.args", limits, fmt)))
    return steps


def _langchain_raw_calls(raw: object, path: str, limits: Limits, fmt: str) -> list[Step]:
    """``additional_kwargs.tool_calls``: OpenAI tool calls, which AIMessage's validator turns into its
    ``tool_calls`` when it was given none (an item without a ``function`` is skipped there too)."""
    if not isinstance(raw, list):
        raise ParseError("'tool_calls' must be a list", path, fmt)
    return [openai_tool_call(call, f"{path}[{i}]", limits, fmt) for i, call in enumerate(raw)
            if isinstance(call, Mapping) and "function" in call]


def is_langchain_calls(calls: object) -> bool:
    """LangChain's ``tool_calls`` items carry ``args`` and no OpenAI ``function`` object."""
    return isinstance(calls, list) and bool(calls) and all(
        isinstance(c, Mapping) and "function" not in c and "args" in c for c in calls)
