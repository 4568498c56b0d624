"""Moonshot Kimi-K3's tool calls: the ``tools`` channel of its "XTML" markup.

Kimi-K3 writes every part of a turn as a channel opened by ``<|open|>NAME ATTRS<|sep|>`` and closed by
``<|close|>NAME<|sep|>``, where ``<|open|>``, ``<|close|>`` and ``<|sep|>`` are special tokens. Its renderer,
``encoding_k3.py`` in the checkpoint (vendored as vLLM's ``vllm/tokenizers/encoding_k3.py``), writes an assistant
turn as an optional think channel, a response channel, then the calls::

    <|open|>think<|sep|>...<|close|>think<|sep|><|open|>response<|sep|>On it.<|close|>response<|sep|>
    <|open|>tools<|sep|><|open|>call tool="get_weather" index="1"<|sep|>
    <|open|>argument key="city" type="string"<|sep|>Paris<|close|>argument<|sep|>
    <|open|>argument key="days" type="number"<|sep|>3<|close|>argument<|sep|>
    <|close|>call<|sep|><|close|>tools<|sep|><|close|>message<|sep|>

(no line breaks: they are added here to be read). Attribute values are escaped, ``&`` as ``&amp;`` and ``"`` as
``&quot;``; an argument's value is not: a ``type="string"`` value is its text as written, any other type
(``number``, ``boolean``, ``null``, ``object``, ``array``) JSON. ``index`` counts the calls from 1; vLLM's
``kimi_k3`` parser and SGLang's ``KimiK3Detector`` ignore it, and so does ek (calls are in the order written).
For arguments that were not a JSON object the renderer writes one ``<|open|>json type="object"<|sep|>{...}
<|close|>json<|sep|>`` block instead; TensorRT-LLM's parser reads it, vLLM's and SGLang's do not, ek reads it.

The prompt opens the think channel (or, with thinking off, the response channel), so an output often starts
inside it: text before the first ``<|close|>think<|sep|>`` is reasoning. Markers are found with ``str.find``:
linear in the text, no regex.
"""

from __future__ import annotations

from functools import partial
from typing import Any

from ek.calls import Step
from ek.parsing import json_text, shapes
from ek.parsing.errors import ParseError, line_col
from ek.parsing.limits import Limits, check_text
from ek.parsing.native import typed_text
from ek.parsing.prose import where
from ek.parsing.registry import TypeHint
from ek.parsing.scan import SPACE, skip_space

OPEN, CLOSE, SEP = "<|open|>", "<|close|>", "<|sep|>"
THINK_OPEN, THINK_CLOSE = f"{OPEN}think{SEP}", f"{CLOSE}think{SEP}"
RESPONSE_OPEN, RESPONSE_CLOSE = f"{OPEN}response{SEP}", f"{CLOSE}response{SEP}"
TOOLS_OPEN, TOOLS_CLOSE = f"{OPEN}tools{SEP}", f"{CLOSE}tools{SEP}"
#: A call's and an argument's opening tags carry attributes before their ``<|sep|>``.
CALL_OPEN, CALL_CLOSE = f"{OPEN}call", f"{CLOSE}call{SEP}"
ARGUMENT_OPEN, ARGUMENT_CLOSE = f"{OPEN}argument", f"{CLOSE}argument{SEP}"
JSON_OPEN, JSON_CLOSE = f"{OPEN}json", f"{CLOSE}json{SEP}"
#: The end of the turn, dropped at the end of the output.
MESSAGE_CLOSE, END_OF_MESSAGE = f"{CLOSE}message{SEP}", "<|end_of_msg|>"
#: The tags of a turn, as the renderer writes them.
TAGS = (TOOLS_OPEN, TOOLS_CLOSE, f"{CALL_OPEN} ", CALL_CLOSE, f"{ARGUMENT_OPEN} ", ARGUMENT_CLOSE, THINK_OPEN,
        THINK_CLOSE, RESPONSE_OPEN, RESPONSE_CLOSE)
#: What ``auto`` takes for Kimi-K3: the two tokens every tag starts with (no other family writes them), so a tag
#: cut short (``<|open|>to``) or spaced by a detokenizer (``<|open|> tools <|sep|>``) is read, or refused, as K3.
MARKERS = (OPEN, CLOSE)
_NAME_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_")


def read_kimi_k3(text: str, limits: Limits, types: TypeHint | None = None, fmt: str = "kimi-k3") -> list[Step]:
    """The calls of a Kimi-K3 completion: those of its ``tools`` channel; an output with none is no calls.

    Before the channel, a think channel (its ``<|open|>think<|sep|>`` may be in the prompt) and a response
    channel (or the response's bare text, its opening likewise in the prompt) are context, skipped; after it,
    ``<|close|>message<|sep|>`` and ``<|end_of_msg|>``. A tools channel whose ``<|close|>tools<|sep|>`` is missing
    after whole calls is read, as vLLM and SGLang read it. A ``type="string"`` value is its text; any other
    declared type's value is its JSON value, else its text (so the scorer reports the wrong type), as vLLM and
    SGLang decode it. An argument without ``type`` is typed by ``types`` when given, else is its text (the
    serving stacks take it for a string).

    >>> read_kimi_k3('<|open|>tools<|sep|><|open|>call tool="f" index="1"<|sep|>'
    ...              '<|open|>argument key="x" type="number"<|sep|>1<|close|>argument<|sep|>'
    ...              '<|close|>call<|sep|><|close|>tools<|sep|>', Limits())
    [Step(name='f', args={'x': 1})]
    """
    if len(text) > limits.max_size:
        check_text(text, limits, fmt)  # string values are bare text: brackets in them are not nesting
    end = _body_end(text)
    start = _after_think(text, end, fmt)
    tools = text.find(TOOLS_OPEN, start, end)
    _context(text, start, end if tools == -1 else tools, fmt)
    if tools == -1:
        return []
    steps: list[Step] = []
    pos = tools + len(TOOLS_OPEN)
    while True:
        pos = skip_space(text, pos, end)
        if text.startswith(TOOLS_CLOSE, pos):
            _nothing_after(text, pos + len(TOOLS_CLOSE), end, fmt)
            return steps
        if pos >= end:
            if steps:
                return steps  # whole calls, only <|close|>tools<|sep|> missing: vLLM and SGLang read them
            cut = _at_end(text, end)
            raise ParseError("the tools channel holds no whole call" + (" (output cut short?)" if cut else ""),
                             line_col(text, tools), fmt, cut_short=cut)
        if (steps and end - pos < len(TOOLS_CLOSE) and text.startswith(CLOSE[:3], pos)
                and TOOLS_CLOSE.startswith(text[pos:end]) and _at_end(text, end)):
            return steps  # stopped inside <|close|>tools<|sep|> after whole calls: read as if it were missing
        if not _starts_tag(text, pos, end, CALL_OPEN):
            _expected(text, pos, end, (CALL_OPEN, TOOLS_CLOSE), f'{CALL_OPEN} tool="..."{SEP} or {TOOLS_CLOSE}',
                      fmt)
        step, pos = _call(text, pos, end, limits, types, fmt)
        steps.append(step)


def _body_end(text: str) -> int:
    """Where the output ends once trailing whitespace, ``<|end_of_msg|>`` and ``<|close|>message<|sep|>`` go."""
    end = len(text.rstrip())
    for token in (END_OF_MESSAGE, MESSAGE_CLOSE):
        if text.startswith(token, end - len(token)):
            end = len(text[: end - len(token)].rstrip())
    return end


def _after_think(text: str, end: int, fmt: str) -> int:
    """Where the output starts once its think channel is skipped: after ``<|close|>think<|sep|>`` when the
    output opens the channel or starts inside it (no ``<|open|>think<|sep|>`` before the close), else 0."""
    start = skip_space(text, 0, end)
    if text.startswith(THINK_OPEN, start):
        close = text.find(THINK_CLOSE, start + len(THINK_OPEN), end)
        if close == -1:
            raise ParseError(f"the think channel is not closed by {THINK_CLOSE} (output cut short?)",
                             line_col(text, start), fmt, cut_short=True)
        return close + len(THINK_CLOSE)
    close = text.find(THINK_CLOSE, 0, end)
    if close != -1 and text.find(THINK_OPEN, 0, close) == -1:
        return close + len(THINK_CLOSE)
    return 0


def _context(text: str, start: int, end: int, fmt: str) -> None:
    """``text[start:end]``, before the tools channel, is the response: its text and its channel's two tokens. Any
    other ``<|open|>``/``<|close|>`` token there is an error (a call outside the channel is never dropped without
    a word); the output ending inside ``<|open|>tools<|sep|>`` is cut short."""
    pos = start
    next_open, next_close = text.find(OPEN, pos, end), text.find(CLOSE, pos, end)
    while next_open != -1 or next_close != -1:
        token = min(p for p in (next_open, next_close) if p != -1)  # each found once: linear in the text
        if text.startswith(RESPONSE_OPEN, token) or text.startswith(RESPONSE_CLOSE, token):
            pos = text.find(SEP, token) + len(SEP)
            if next_open != -1 and next_open < pos:
                next_open = text.find(OPEN, pos, end)
            if next_close != -1 and next_close < pos:
                next_close = text.find(CLOSE, pos, end)
            continue
        if _at_end(text, end) and TOOLS_OPEN.startswith(text[token:end]):
            break  # the output ends inside <|open|>tools<|sep|>: cut short, below
        head = OPEN if text.startswith(OPEN, token) else CLOSE
        if text[token + len(head):token + len(head) + 1] in (" ", "\n"):
            raise ParseError(f"a tag written with spaces, {_token_at(text, token, end)}: ek reads the tokens as the "
                             "model writes them (vLLM's detokenizer adds the spaces unless "
                             "spaces_between_special_tokens is off)", line_col(text, token), fmt)
        raise ParseError(f"{_token_at(text, token, end)} outside the tools channel (expected the response, then "
                         f"{TOOLS_OPEN})", line_col(text, token), fmt)
    tail = text.rfind("<|", start, end)
    if tail != -1 and _at_end(text, end) and TOOLS_OPEN.startswith(text[tail:end]):
        raise ParseError(f"the output ends inside {TOOLS_OPEN} (cut short?)", line_col(text, tail), fmt,
                         cut_short=True)


def _at_end(text: str, end: int) -> bool:
    """Whether ``end`` is the end of the output (no end-of-turn token after it): stopping there is stopping short."""
    return end == len(text.rstrip())


def _ends_inside(text: str, end: int, opened: int, tag: str, fmt: str) -> None:
    """Raise: the ``<|open|>TAG`` opened at ``opened`` has no ``<|sep|>`` before ``end``."""
    cut = _at_end(text, end)
    raise ParseError(f"the <|open|>{tag} tag is not closed by {SEP}" + (" (output cut short?)" if cut else ""),
                     line_col(text, opened), fmt, cut_short=cut)


def _token_at(text: str, pos: int, end: int) -> str:
    """The XTML tag at ``pos`` as written, for an error: to its ``<|sep|>``, or to the next token (or short)."""
    head = OPEN if text.startswith(OPEN, pos) else CLOSE
    stop = text.find("<|", pos + len(head), min(end, pos + 80))
    if stop == -1:
        stop = min(end, pos + len(head) + 20)
    elif text.startswith(SEP, stop):
        stop += len(SEP)
    return repr(text[pos:stop])


def _starts_tag(text: str, pos: int, end: int, tag: str) -> bool:
    """Whether ``tag`` (an opening tag's start, ``<|open|>call``) opens at ``pos``: followed by a space or
    ``<|sep|>``, so ``<|open|>caller`` is not it."""
    after = pos + len(tag)
    return text.startswith(tag, pos) and after < end and (text[after] in SPACE or text.startswith(SEP, after))


def _expected(text: str, pos: int, end: int, tags: tuple[str, ...], what: str, fmt: str) -> None:
    """Raise: ``what`` was expected at ``pos``; cut short when the output ends inside one of ``tags``."""
    rest = text[pos:end]
    cut = _at_end(text, end) and (pos >= end or any(
        tag.startswith(rest) or (rest.startswith(tag) and rest[len(tag):].strip(SPACE) == "") for tag in tags))
    raise ParseError(f"expected {what}" + (" (output cut short?)" if cut else ""), line_col(text, pos), fmt,
                     cut_short=cut)


def _nothing_after(text: str, pos: int, end: int, fmt: str) -> None:
    """Text after the tools channel is skipped, as vLLM and SGLang skip it; an XTML token there is an error, so no
    call is ever dropped without a word."""
    found = [p for p in (text.find(OPEN, pos, end), text.find(CLOSE, pos, end)) if p != -1]
    if found:
        raise ParseError(f"{_token_at(text, min(found), end)} after {TOOLS_CLOSE}: expected one tools channel, then "
                         f"the end of the turn", line_col(text, min(found)), fmt)


def _call(text: str, at: int, end: int, limits: Limits, types: TypeHint | None, fmt: str) -> tuple[Step, int]:
    """The ``<|open|>call tool="..." index="N"<|sep|>...<|close|>call<|sep|>`` at ``at``: its step and where it
    ends."""
    attributes, pos = _attributes(text, at + len(CALL_OPEN), end, at, "call", ("tool", "index"), fmt)
    name = attributes.get("tool", "")
    if not name.strip():
        raise ParseError('a call without a tool name: expected tool="..."', line_col(text, at), fmt)
    index = attributes.get("index")
    if index is not None and not (index.isdigit() and index.isascii()):
        raise ParseError(f"call {name!r}: index must be a number counting the calls from 1, got {index!r}",
                         line_col(text, at), fmt)
    args: dict[str, Any] = {}
    while True:
        pos = skip_space(text, pos, end)
        if text.startswith(CALL_CLOSE, pos):
            return Step(name, args), pos + len(CALL_CLOSE)
        if pos >= end:
            cut = _at_end(text, end)
            raise ParseError(f"the call of {name!r} is not closed by {CALL_CLOSE}" + (" (output cut short?)" if cut
                             else " before the end of the turn"), line_col(text, at), fmt, cut_short=cut)
        if not args and _starts_tag(text, pos, end, JSON_OPEN):
            value, pos = _json_block(text, pos, end, name, limits, fmt)
            pos = skip_space(text, pos, end)
            if not text.startswith(CALL_CLOSE, pos):
                _expected(text, pos, end, (CALL_CLOSE,), f"{CALL_CLOSE} after the call's JSON arguments", fmt)
            return value, pos + len(CALL_CLOSE)
        if not _starts_tag(text, pos, end, ARGUMENT_OPEN):
            _expected(text, pos, end, (ARGUMENT_OPEN, CALL_CLOSE, JSON_OPEN),
                      f'{ARGUMENT_OPEN} key="..." type="..."{SEP} or {CALL_CLOSE}', fmt)
        arg_at = pos
        attributes, value_at = _attributes(text, pos + len(ARGUMENT_OPEN), end, arg_at, "argument", ("key", "type"),
                                           fmt)
        key = attributes.get("key")
        if not key:
            raise ParseError(f'an argument of {name!r} without a name: expected key="..."', line_col(text, arg_at),
                             fmt)
        if key in args:
            raise ParseError(f"argument {key!r} given twice", line_col(text, arg_at), fmt)
        close = _value_end(text, value_at, end, key, arg_at, ARGUMENT_CLOSE, fmt)
        raw = text[value_at:close]
        declared = attributes.get("type")
        if declared == "string":
            args[key] = raw
        elif declared is not None:  # number, boolean, null, object, array (or a name the stacks also decode)
            args[key] = typed_text(raw, None, limits, fmt, partial(line_col, text, value_at))
        else:
            kind = types(name, key) if types is not None else None
            args[key] = raw if kind is None else typed_text(raw, kind, limits, fmt, partial(line_col, text, value_at))
        pos = close + len(ARGUMENT_CLOSE)


def _value_end(text: str, pos: int, end: int, key: str, opened: int, close_tag: str, fmt: str) -> int:
    """Where the value starting at ``pos`` ends: at the first ``close_tag``. A value holds no other ``<|open|>``
    or ``<|close|>`` token (one there means the model left ``close_tag`` out: an error at it); a value running
    to the end of the output is cut short."""
    close = text.find(close_tag, pos, end)
    stop = end if close == -1 else close
    found = [p for p in (text.find(OPEN, pos, stop), text.find(CLOSE, pos, stop)) if p != -1]
    if found:
        token = min(found)
        if close == -1 and _at_end(text, end) and close_tag.startswith(text[token:end]):
            found = []  # the output ends inside the closing tag itself
        else:
            raise ParseError(f"{_token_at(text, token, end)} inside the value of {key!r}, before the {close_tag} "
                             "that closes it", line_col(text, token), fmt)
    if close == -1:
        cut = _at_end(text, end)
        raise ParseError(f"the value of {key!r} is not closed by {close_tag}" + (" (output cut short?)" if cut else
                         " before the end of the turn"), line_col(text, opened), fmt, cut_short=cut)
    return close


def _json_block(text: str, at: int, end: int, name: str, limits: Limits, fmt: str) -> tuple[Step, int]:
    """The ``<|open|>json type="object"<|sep|>{...}<|close|>json<|sep|>`` at ``at``: the call with those
    arguments, and where the block ends."""
    attributes, pos = _attributes(text, at + len(JSON_OPEN), end, at, "json", ("type",), fmt)
    if attributes.get("type", "object") != "object":
        raise ParseError(f'a json block must be type="object", got {attributes["type"]!r}', line_col(text, at), fmt)
    pos = skip_space(text, pos, end)
    if pos >= end:
        _expected(text, pos, end, (), "a JSON object of arguments", fmt)
    if text[pos] != "{":
        raise ParseError("expected a JSON object of arguments", line_col(text, pos), fmt)
    value, after = json_text.decode_at(text, pos, limits, fmt)
    try:
        step = shapes.generic_call({"name": name, "arguments": value}, "$", limits, fmt)
    except ParseError as error:
        raise error.moved(where(text, at, error.position), fmt) from None
    after = skip_space(text, after, end)
    if not text.startswith(JSON_CLOSE, after):
        _expected(text, after, end, (JSON_CLOSE,), f"{JSON_CLOSE} after the JSON arguments", fmt)
    return step, after + len(JSON_CLOSE)


def _attributes(text: str, pos: int, end: int, opened: int, tag: str, allowed: tuple[str, ...],
                fmt: str) -> tuple[dict[str, str], int]:
    """An opening tag's `` key="value"`` attributes from ``pos`` to its ``<|sep|>``: the attributes (``&amp;``
    and ``&quot;`` unescaped, as the renderer escapes them) and where the tag ends. Each must be one of
    ``allowed`` and given once; a value holds no ``"`` and no ``<|``."""
    attributes: dict[str, str] = {}
    while True:
        start = skip_space(text, pos, end)
        if text.startswith(SEP, start):
            return attributes, start + len(SEP)
        if start >= end or (end - start < len(SEP) and SEP.startswith(text[start:end])):
            _ends_inside(text, end, opened, tag, fmt)
        if start == pos:
            raise ParseError(f"expected a space then an attribute, or {SEP}", line_col(text, start), fmt)
        stop = start
        while stop < end and text[stop] in _NAME_CHARS:
            stop += 1
        key = text[start:stop]
        if stop >= end or (text[stop] == "=" and stop + 1 >= end):
            _ends_inside(text, end, opened, tag, fmt)
        if not key or text[stop] != "=" or text[stop + 1] != '"':
            raise ParseError(f'expected an attribute written key="value", or {SEP}', line_col(text, start), fmt)
        if key not in allowed:
            raise ParseError(f"unknown attribute {key!r} of <|open|>{tag} (expected {' and '.join(allowed)})",
                             line_col(text, start), fmt)
        if key in attributes:
            raise ParseError(f"attribute {key!r} given twice", line_col(text, start), fmt)
        quote = text.find('"', stop + 2, end)
        token = text.find("<|", stop + 2, end if quote == -1 else quote)
        if token != -1 and not (quote == -1 and _at_end(text, end) and SEP.startswith(text[token:end])):
            raise ParseError(f"the value of attribute {key!r} is not closed by '\"'", line_col(text, token), fmt)
        if quote == -1:
            _ends_inside(text, end, opened, tag, fmt)
        attributes[key] = text[stop + 2:quote].replace("&quot;", '"').replace("&amp;", "&")
        pos = quote + 1


def render_kimi_k3(calls: list[Step], dumps: Any) -> str:
    """Calls as Kimi-K3's renderer writes them: one tools channel, calls counted from 1, attribute values
    escaped, a string argument as its text and any other as JSON (``dumps`` writes ``<`` escaped, so no JSON
    value holds a token). A name or string holding ``<|`` in an attribute, or ``<|open|>``/``<|close|>`` in a
    value, cannot be written: the format has no escape for them."""
    if not calls:
        return ""  # no calls: the model writes no tools channel
    parts = [TOOLS_OPEN]
    for index, call in enumerate(calls, 1):
        parts.append(f'{CALL_OPEN} tool="{_attribute(call.name, "tool name")}" index="{index}"{SEP}')
        for key, value in call.args.items():
            parts.append(f'{ARGUMENT_OPEN} key="{_attribute(key, "argument name")}" type="{_type(value)}"{SEP}')
            if isinstance(value, str):
                if OPEN in value or CLOSE in value:
                    raise ValueError(f"the value of {key!r} holds an XTML token, which Kimi-K3's format cannot write")
                parts.append(value)
            else:
                parts.append(dumps(value))
            parts.append(ARGUMENT_CLOSE)
        parts.append(CALL_CLOSE)
    parts.append(TOOLS_CLOSE)
    return "".join(parts)


def _attribute(value: str, what: str) -> str:
    if not value.strip() or "<|" in value:
        raise ValueError(f"the {what} {value!r} cannot be written in a Kimi-K3 attribute")
    return value.replace("&", "&amp;").replace('"', "&quot;")


def _type(value: Any) -> str:
    """The ``type`` the renderer writes for a value (``bool`` before ``int``: True is a boolean)."""
    if isinstance(value, bool):
        return "boolean"
    if value is None:
        return "null"
    if isinstance(value, int | float):
        return "number"
    if isinstance(value, str):
        return "string"
    return "object" if isinstance(value, dict) else "array"
