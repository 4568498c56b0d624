"""``parse_calls``: any supported model output -> list of :class:`Step`, or a :class:`ParseError`.

Text is decoded (bytes must be UTF-8); in ``auto``/``hermes`` a leading
``<think>`` is skipped and ``<tool_call>`` blocks are read one by one
(:mod:`ek.parsing.chat_text`); other text is stripped of a surrounding Markdown
code fence, size- and depth-checked, then read as JSON or Python call syntax.
Already-decoded objects (dict/list) are read by their shape.
"""

from __future__ import annotations

import textwrap
from collections.abc import Mapping
from typing import Any

from ek.calls import Step
from ek.parsing import chat_text, json_text, shapes
from ek.parsing.errors import ParseError
from ek.parsing.limits import DEFAULT_LIMITS, DEFAULT_MAX_DEPTH, DEFAULT_MAX_SIZE, Limits, check_text
from ek.parsing.python_calls import parse_python

#: The names ``format=`` accepts.
FORMATS = ("auto", "python", "openai", "anthropic", "json", "bfcl", "hermes")


def parse_calls(
    output: str | bytes | Mapping[str, Any] | list[Any],
    format: str = "auto",
    *,
    max_size: int = DEFAULT_MAX_SIZE,
    max_depth: int = DEFAULT_MAX_DEPTH,
) -> list[Step]:
    """Read the tool calls in a model's output, never executing any of it.

    ``format`` is one of :data:`FORMATS`; ``"auto"`` tells them apart by shape.
    ``max_size`` (characters; bytes for ``bytes``) and ``max_depth`` (bracket
    nesting) bound the work. Empty text means no calls.

    >>> parse_calls('[search(q="cats"), math.hypot(x=3, y=-4)]')
    [Step(name='search', args={'q': 'cats'}), Step(name='math.hypot', args={'x': 3, 'y': -4})]
    >>> parse_calls('{"tool_calls": [{"type": "function", "function": {"name": "f", "arguments": "{\\\\"x\\\\": 1}"}}]}')
    [Step(name='f', args={'x': 1})]
    >>> parse_calls([{"type": "text", "text": "ok"}, {"type": "tool_use", "id": "t1", "name": "f", "input": {}}])
    [Step(name='f', args={})]
    >>> parse_calls('<think>hm</think>Sure. <tool_call>{"name": "f", "arguments": {"x": 1}}</tool_call>')
    [Step(name='f', args={'x': 1})]
    >>> parse_calls('[{"f": {"x": 1}}]', format="bfcl")
    [Step(name='f', args={'x': 1})]
    >>> parse_calls("f(x=os.system('rm -rf /'))")
    Traceback (most recent call last):
    ...
    ek.parsing.errors.ParseError: python: line 1, column 5: a call is not a value (nested calls are never evaluated)
    """
    if format not in FORMATS:
        raise ValueError(f"unknown format {format!r}; choose one of: {', '.join(FORMATS)}")
    if max_size == DEFAULT_MAX_SIZE and max_depth == DEFAULT_MAX_DEPTH:
        limits = DEFAULT_LIMITS
    else:
        limits = Limits(max_size=max_size, max_depth=max_depth)
    if isinstance(output, bytes | bytearray | memoryview):
        output = _decode(bytes(output), limits, format)
    if isinstance(output, str):
        return _from_text(output, format, limits)
    if isinstance(output, Mapping | list | tuple):
        if format in ("python", "hermes"):
            raise ParseError(f"the {format} format reads text; got a decoded object", "$", format)
        return from_object(output, format, limits)
    if output is None:
        raise ParseError("cannot read tool calls from None", None, format)
    kind = type(output).__name__
    raise ParseError(f"cannot read tool calls from {'an' if kind[0] in 'aeiou' else 'a'} {kind}", None, format)


def _decode(data: bytes, limits: Limits, fmt: str) -> str:
    if len(data) > limits.max_size:
        raise ParseError(f"output has {len(data):,} bytes, more than the limit of {limits.max_size:,} (max_size)",
                         None, fmt)
    try:
        return data.decode("utf-8").removeprefix("\ufeff")
    except UnicodeDecodeError as exc:
        raise ParseError(f"invalid UTF-8: {exc.reason} (byte {data[exc.start]:#04x})", f"byte {exc.start}",
                         fmt) from None


def strip_fence(text: str) -> str:
    """The text inside one surrounding Markdown code fence (```python ... ```), else the stripped text.

    >>> strip_fence("```json\\n[1]\\n```")
    '[1]'
    """
    return _unfenced(text).strip()


def _unfenced(text: str) -> str:
    """The text inside one surrounding code fence, its lines' indentation kept; else ``text``."""
    stripped = text.strip()
    if stripped.startswith("```") and stripped.endswith("```") and len(stripped) >= 6:
        first_newline = stripped.find("\n")
        if first_newline != -1:
            return stripped[first_newline + 1 : -3]
    return text


def _python(text: str, raw: str, limits: Limits) -> list[Step]:
    """Python call text; if every line is indented alike (a model indenting its answer), read it dedented."""
    try:
        return parse_python(text, limits)
    except ParseError as error:
        if error.reason != "invalid Python: unexpected indent":
            raise
        dedented = textwrap.dedent(_unfenced(raw)).strip()
        if dedented == text:
            raise
        try:
            return parse_python(dedented, limits)
        except ParseError:
            raise error from None


def _from_text(text: str, fmt: str, limits: Limits) -> list[Step]:
    raw = text.removeprefix("\ufeff")
    if fmt in ("auto", "hermes"):
        return _chat_text(raw, fmt, limits)
    return _plain_text(raw, fmt, limits)


def _chat_text(raw: str, fmt: str, limits: Limits) -> list[Step]:
    """Skip a leading ``<think>``; read ``<tool_call>`` blocks, or (auto only) the rest as plain text."""
    if len(raw) > limits.max_size:
        check_text(raw, limits, fmt)  # the size message
    start = chat_text.after_think(raw, fmt)
    if fmt == "hermes":
        return chat_text.read_blocks(raw, start, fmt, lambda block: _block(block, limits))
    if chat_text.has_blocks(raw, start):
        return chat_text.read_blocks(raw, start, fmt, lambda block: _plain_text(block, "auto", limits))
    if start == 0:
        return _plain_text(raw, fmt, limits)
    try:
        return _plain_text(raw[start:], fmt, limits)
    except ParseError as error:
        raise ParseError(error.reason, chat_text.shift(error.position, raw, start), fmt) from None


def _block(text: str, limits: Limits) -> list[Step]:
    """One Hermes ``<tool_call>`` block: JSON (any call shape, usually ``{"name", "arguments"}``)."""
    return from_object(json_text.loads(text, limits, "hermes"), "auto", limits)


def _plain_text(raw: str, fmt: str, limits: Limits) -> list[Step]:
    text = strip_fence(raw)
    if fmt == "python":
        return _python(text, raw, limits)
    if fmt != "auto":
        return from_object(json_text.loads(text, limits, fmt), fmt, limits)
    if not text:
        return []
    if text[0] not in "[{" or _python_list(text):
        return _python(text, raw, limits)
    try:
        decoded = json_text.loads(text, limits, "json")
    except ParseError as json_error:
        if text[0] == "{" or not json_error.reason.startswith("invalid JSON"):
            raise  # valid JSON syntax with rejected content (duplicates, NaN), or a limit: not Python
        try:
            return _python(text, raw, limits)
        except ParseError as python_error:
            raise ParseError(
                f"neither JSON ({_short(json_error)}) nor Python calls ({_short(python_error)})", None, "auto"
            ) from None
    return from_object(decoded, "auto", limits)


def _python_list(text: str) -> bool:
    """``[name(...`` cannot be JSON: skip the JSON attempt (``[true]``/``[null]`` still go to JSON)."""
    if text[0] != "[":
        return False
    rest = text[1:].lstrip()
    return rest[:1].isidentifier() and not rest.startswith(("true", "false", "null"))


def _short(error: ParseError) -> str:
    return str(error).split(": ", 1)[1] if ": " in str(error) else str(error)


def from_object(obj: Any, fmt: str, limits: Limits, path: str = "$") -> list[Step]:
    """Steps from a decoded dict or list, read as format ``fmt`` (``"auto"``: by shape)."""
    if isinstance(obj, Mapping):
        return _from_mapping(obj, fmt, limits, path)
    if isinstance(obj, list | tuple):
        if fmt == "anthropic":
            return shapes.anthropic_blocks(list(obj), path, limits, fmt)
        steps: list[Step] = []
        for i, item in enumerate(obj):
            ipath = f"{path}[{i}]"
            if not isinstance(item, Mapping):
                raise ParseError(f"expected a call object, got {type(item).__name__}", ipath, fmt)
            if fmt in ("auto", "openai") and shapes.is_non_call(item):
                continue  # text/thinking blocks, Responses message/reasoning items
            kind = _expected_kind(item, fmt, ipath)
            if kind in ("response", "responses", "openai_message", "anthropic_message"):
                raise ParseError("a list of calls cannot hold whole messages; pass one message", ipath, fmt)
            if kind == "skipped":
                continue
            steps.extend(_one(item, kind, fmt, limits, ipath))
        return steps
    raise ParseError(f"expected a JSON object or array of calls, got {type(obj).__name__}", path, fmt)


_KINDS_BY_FORMAT = {
    "openai": ("response", "responses", "openai_message", "openai_call", "openai_item"),
    "anthropic": ("anthropic_message", "anthropic_block"),
    "json": ("generic",),
    "bfcl": ("bfcl",),
}


_KIND_FORMAT = {kind: name for name, kinds in _KINDS_BY_FORMAT.items() for kind in kinds}


def _expected_kind(obj: Mapping[str, Any], fmt: str, path: str) -> str:
    if fmt == "bfcl":
        return "bfcl"
    if fmt == "json":
        return "generic"
    kind = shapes.classify(obj)
    if kind is None and shapes.is_non_call(obj) and fmt in ("auto", "anthropic", "openai"):
        return "skipped"
    if kind is None or (fmt != "auto" and kind not in _KINDS_BY_FORMAT[fmt]):
        keys = ", ".join(repr(k) for k in list(obj)[:6])
        wanted = "a tool call" if fmt == "auto" else f"an {fmt} tool call" if fmt[0] in "aeiou" else f"a {fmt} call"
        what = f"unrecognised object with keys {keys}" if keys else "an empty object"
        if fmt == "auto" and len(obj) > 1 and all(isinstance(v, Mapping) for v in obj.values()):
            what += " (several BFCL calls in one object? read them with format='bfcl')"
        raise ParseError(f"not {wanted}: {what}", path, fmt)
    return kind


def _from_mapping(obj: Mapping[str, Any], fmt: str, limits: Limits, path: str) -> list[Step]:
    kind = _expected_kind(obj, fmt, path)
    return [] if kind == "skipped" else _one(obj, kind, fmt, limits, path)


def _one(obj: Mapping[str, Any], kind: str, fmt: str, limits: Limits, path: str) -> list[Step]:
    f = _KIND_FORMAT[kind] if fmt == "auto" else fmt
    if kind == "response":
        return shapes.openai_response(obj, path, limits, f)
    if kind == "openai_message":
        return shapes.openai_message(obj, path, limits, f)
    if kind == "openai_call":
        return [shapes.openai_tool_call(obj, path, limits, f)]
    if kind == "responses":
        return shapes.openai_responses(obj, path, limits, f)
    if kind == "openai_item":
        return [shapes.openai_output_item(obj, path, limits, f)]
    if kind == "anthropic_message":
        return shapes.anthropic_blocks(obj["content"], f"{path}.content", limits, f)
    if kind == "anthropic_block":
        return [shapes.anthropic_block(obj, path, limits, f)]
    if kind == "generic":
        return [shapes.generic_call(obj, path, limits, f)]
    return shapes.bfcl_call(obj, path, limits, f)
