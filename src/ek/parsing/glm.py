"""Zhipu GLM-4.5/4.6/4.7's native tool calls: ``<tool_call>NAME`` then ``<arg_key>``/``<arg_value>`` pairs.

GLM's chat template writes each call as one ``<tool_call>`` block holding the tool's name and its arguments as
bare text, a string as it is and any other value as JSON::

    <tool_call>get_weather
    <arg_key>city</arg_key>
    <arg_value>Beijing</arg_value>
    </tool_call>

GLM-4.7 drops the newlines (``<tool_call>get_weather<arg_key>city</arg_key>...``) and writes a call without
arguments as ``<tool_call>get_current_date</tool_call>``. The same ``<tool_call>`` tag holds JSON in Hermes'
format, so :func:`starts_glm_block` tells the two apart by what follows the tag. Tags are found with
``str.find`` (linear, no regex); values are typed as Qwen3-Coder's are (:func:`ek.parsing.native.typed_text`).
"""

from __future__ import annotations

from functools import partial
from typing import Any

from ek.calls import Step
from ek.parsing import chat_text
from ek.parsing.errors import ParseError, line_col
from ek.parsing.limits import Limits, check_text
from ek.parsing.native import typed_text
from ek.parsing.registry import TypeHint

KEY_OPEN, KEY_CLOSE = "<arg_key>", "</arg_key>"
VALUE_OPEN, VALUE_CLOSE = "<arg_value>", "</arg_value>"
#: Two characters SGLang's GLM-4.5 detector takes for a line break between tags: a model that escaped its
#: newlines (``get_weather\\n<arg_key>``); never looked for inside a key or a value.
LITERAL_NEWLINE = "\\n"
#: Characters no GLM tool name holds: the name ends at the first ``<`` and may not hold these, so JSON,
#: Python calls and Markdown fences in a ``<tool_call>`` block stay Hermes'.
_NOT_IN_NAME = frozenset(" \t\r\n{}[]()\"'`=,;:<>")


def read_glm45(text: str, limits: Limits, types: TypeHint | None = None, fmt: str = "glm45") -> list[Step]:
    """GLM-4.5/4.6/4.7: every ``<tool_call>`` block after a leading ``<think>``; text with none is no calls.

    Each block holds the tool's name (on the tag's line, or right before the first ``<arg_key>``) and
    ``<arg_key>K</arg_key><arg_value>V</arg_value>`` pairs, whitespace between tags skipped. A value is
    typed by ``types`` when given (GLM's servers decode it as JSON unless the schema says string),
    else it is the JSON value when its text parses as JSON, else the text.

    >>> read_glm45('Sure.<tool_call>get_weather\\n<arg_key>city</arg_key>\\n<arg_value>Beijing</arg_value>\\n'
    ...            '<arg_key>days</arg_key>\\n<arg_value>3</arg_value>\\n</tool_call>', Limits())
    [Step(name='get_weather', args={'city': 'Beijing', 'days': 3})]
    >>> read_glm45('<tool_call>get_current_date</tool_call>', Limits())
    [Step(name='get_current_date', args={})]
    """
    if len(text) > limits.max_size:
        check_text(text, limits, fmt)  # values are bare text: brackets in them are not nesting
    start = chat_text.after_think(text, fmt)
    return [_call(text, begin, end, limits, types, fmt) for begin, end in chat_text.blocks(text, start, fmt)]


def starts_glm_block(text: str, after: int) -> bool:
    """Whether the ``<tool_call>`` block whose content starts at ``after`` is GLM's: a bare tool name followed
    by ``<arg_key>`` or by ``</tool_call>``. JSON, Python calls, fences and ``<function=`` never are.

    >>> starts_glm_block("<tool_call>f\\n<arg_key>x</arg_key>", 11), starts_glm_block("<tool_call>f</tool_call>", 11)
    (True, True)
    >>> starts_glm_block('<tool_call>{"name": "f"}</tool_call>', 11), starts_glm_block("<tool_call>f(x=1)", 11)
    (False, False)
    """
    name_end = _name_end(text, after, len(text))
    name = _strip_blank(text[after:name_end])
    if not name or any(c in _NOT_IN_NAME for c in name):
        return False
    tag = _skip_blank(text, name_end, len(text))
    return text.startswith(KEY_OPEN, tag) or text.startswith(chat_text.CALL_CLOSE, tag)


def _name_end(text: str, pos: int, end: int) -> int:
    """Where the tool name starting at ``pos`` ends: at the end of its line (GLM-4.5) or at the first tag
    (GLM-4.7 writes ``<arg_key>`` or ``</tool_call>`` right after it)."""
    found = [i for i in (text.find("\n", pos, end), text.find("<", pos, end)) if i != -1]
    return min(found) if found else end


def _strip_blank(name: str) -> str:
    """``name`` without surrounding whitespace and literal ``\\n`` pairs."""
    name = name.strip()
    while name.endswith(LITERAL_NEWLINE):
        name = name[: -len(LITERAL_NEWLINE)].rstrip()
    return name


def _skip_blank(text: str, pos: int, end: int) -> int:
    """Past whitespace and literal ``\\n`` pairs from ``pos`` (not beyond ``end``)."""
    while pos < end:
        if text[pos] in " \t\r\n":
            pos += 1
        elif text.startswith(LITERAL_NEWLINE, pos) and pos + len(LITERAL_NEWLINE) <= end:
            pos += len(LITERAL_NEWLINE)
        else:
            return pos
    return pos


def _call(text: str, begin: int, end: int, limits: Limits, types: TypeHint | None, fmt: str) -> Step:
    """The call in the block ``text[begin:end]`` (between ``<tool_call>`` and ``</tool_call>``)."""
    pos = _skip_blank(text, begin, end)
    name_end = _name_end(text, pos, end)
    name = _strip_blank(text[pos:name_end])
    if not name:
        raise ParseError("the tool name is empty: expected <tool_call>NAME", line_col(text, pos), fmt)
    bad = next((i for i in range(pos, pos + len(name)) if text[i] in _NOT_IN_NAME), None)
    if bad is not None:
        raise ParseError(f"expected the tool name then {KEY_OPEN} or </tool_call>, found {text[bad]!r} in the name",
                         line_col(text, bad), fmt)
    args: dict[str, Any] = {}
    pos = name_end
    while True:
        pos = _skip_blank(text, pos, end)
        if pos >= end:
            return Step(name, args)
        if not text.startswith(KEY_OPEN, pos):
            raise ParseError(f"expected {KEY_OPEN} or </tool_call>", line_col(text, pos), fmt)
        pair_at = pos
        key, value_at, pos = _pair(text, pair_at, end, fmt)
        if key in args:
            raise ParseError(f"parameter {key!r} given twice", line_col(text, pair_at), fmt)
        raw = text[value_at:pos - len(VALUE_CLOSE)]
        kind = types(name, key) if types is not None else None
        args[key] = typed_text(raw, kind, limits, fmt, partial(line_col, text, value_at))


def _pair(text: str, at: int, end: int, fmt: str) -> tuple[str, int, int]:
    """The ``<arg_key>K</arg_key><arg_value>V</arg_value>`` at ``at``: the key, where V starts, and where the
    pair ends. Each tag must be closed before the next one opens: a left-out closing tag is an error at it."""
    key_at = at + len(KEY_OPEN)
    key_close = _closing(text, key_at, end, KEY_CLOSE, (KEY_OPEN, VALUE_OPEN), at, fmt)
    key = text[key_at:key_close].strip()
    if not key:
        raise ParseError("a parameter with an empty name", line_col(text, at), fmt)
    pos = _skip_blank(text, key_close + len(KEY_CLOSE), end)
    if not text.startswith(VALUE_OPEN, pos):
        raise ParseError(f"expected {VALUE_OPEN} after the parameter name {key!r}", line_col(text, pos), fmt)
    value_at = pos + len(VALUE_OPEN)
    value_close = _closing(text, value_at, end, VALUE_CLOSE, (KEY_OPEN,), pos, fmt)
    return key, value_at, value_close + len(VALUE_CLOSE)


def _closing(text: str, start: int, end: int, tag: str, openers: tuple[str, ...], opened: int, fmt: str) -> int:
    """Where ``tag`` closes the element opened at ``opened`` (searched from ``start`` to ``end``); an error if it
    is missing or if one of ``openers`` comes first (the model left the closing tag out)."""
    close = text.find(tag, start, end)
    limit = end if close == -1 else close
    for opener in openers:
        inner = text.find(opener, start, limit)
        if inner != -1:
            raise ParseError(f"{opener} before the {tag} that closes the {tag.replace('/', '')} at line "
                             f"{line_col(text, opened)[0]}, column {line_col(text, opened)[1]}",
                             line_col(text, inner), fmt)
    if close == -1:
        raise ParseError(f"{tag.replace('/', '')} is not closed by {tag} before </tool_call>", line_col(text, opened),
                         fmt)
    return close
