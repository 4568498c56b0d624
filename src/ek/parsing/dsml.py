"""DeepSeek V3.2's DSML tool calls, read by the ``deepseek`` format next to V3/R1/V3.1's.

DeepSeek V3.2 (its ``encoding_dsv32.py``; vLLM's ``deepseek_v32`` parser, SGLang's ``deepseekv32`` detector)
writes calls as XML-like tags whose names carry the token ``｜DSML｜`` (fullwidth bars, U+FF5C)::

    <｜DSML｜function_calls>
    <｜DSML｜invoke name="get_weather">
    <｜DSML｜parameter name="city" string="true">Beijing</｜DSML｜parameter>
    <｜DSML｜parameter name="days" string="false">3</｜DSML｜parameter>
    </｜DSML｜invoke>
    </｜DSML｜function_calls>

``string="true"`` marks a value written as plain text, ``string="false"`` one written as JSON. No marker of
V3's encoding (``<｜tool▁calls▁begin｜>``) can be taken for one of these, so one format name, ``deepseek``,
reads every DeepSeek encoding (:func:`read_deepseek`), as users name the family. Tags are found with
``str.find``: linear in the text, no regex.
"""

from __future__ import annotations

from functools import partial
from typing import Any

from ek.calls import Step
from ek.parsing import chat_text, json_text, native, shapes
from ek.parsing.errors import ParseError, line_col
from ek.parsing.limits import Limits, check_text
from ek.parsing.native import typed_text
from ek.parsing.prose import where
from ek.parsing.registry import TypeHint

DSML = "｜DSML｜"
CALLS_OPEN, CALLS_CLOSE = f"<{DSML}function_calls>", f"</{DSML}function_calls>"
INVOKE_OPEN, INVOKE_CLOSE = f"<{DSML}invoke", f"</{DSML}invoke>"
PARAM_OPEN, PARAM_CLOSE = f"<{DSML}parameter", f"</{DSML}parameter>"
#: What makes a text DSML: a tag opening or closing with the token (a JSON string holding it, ``<`` written
#: ``\\u003c`` as ek renders it, does not).
TAG_MARKERS = (f"<{DSML}", f"</{DSML}")
_V3_MARKERS = (native.DS_CALLS_BEGIN, native.DS_CALL_BEGIN)
_ATTRIBUTE_CHARS = frozenset("abcdefghijklmnopqrstuvwxyz_")


def read_deepseek(text: str, limits: Limits, types: TypeHint | None = None, fmt: str = "deepseek") -> list[Step]:
    """Every DeepSeek encoding: V3.2's DSML (:func:`read_dsml`) when a ``｜DSML｜`` tag is in the text, else
    V3/R1/V3.1's (:func:`ek.parsing.native.read_deepseek`). Both in one output is an error, not a choice.

    >>> read_deepseek('<｜DSML｜function_calls>\\n<｜DSML｜invoke name="f">\\n'
    ...               '<｜DSML｜parameter name="x" string="false">1</｜DSML｜parameter>\\n</｜DSML｜invoke>\\n'
    ...               '</｜DSML｜function_calls>', Limits())
    [Step(name='f', args={'x': 1})]
    """
    tags = [p for p in (text.find(m) for m in TAG_MARKERS) if p != -1]
    if not tags:
        return native.read_deepseek(text, limits, types, fmt)
    older = [p for p in (text.find(m) for m in _V3_MARKERS) if p != -1]
    if older:
        raise ParseError(f"both V3.2's {DSML} tags and V3's {native.DS_CALL_BEGIN} markers: an output is written in "
                         "one DeepSeek encoding", line_col(text, max(min(tags), min(older))), fmt)
    return read_dsml(text, limits, types, fmt)


def read_dsml(text: str, limits: Limits, types: TypeHint | None = None, fmt: str = "deepseek") -> list[Step]:
    """The calls of the one ``<｜DSML｜function_calls>`` section (prose before it, a leading ``<think>`` and a
    final ``<｜end▁of▁sentence｜>`` skipped). Each ``<｜DSML｜invoke name="...">`` holds parameters or, as SGLang
    reads it, one JSON object of arguments. A ``string="true"`` value is its text (typed by ``types`` when the
    tool declares a non-string type, as vLLM does); a ``string="false"`` one is typed by ``types``, else its JSON
    value (its text when it is not JSON, so the scorer reports the wrong type).
    """
    if len(text) > limits.max_size:
        check_text(text, limits, fmt)  # string="true" values are bare text: brackets in them are not nesting
    start = chat_text.after_think(text, fmt)
    end = _body_end(text)
    opening = text.find(CALLS_OPEN, start, end)
    stray = _find_tag(text, start, end if opening == -1 else opening)
    if stray != -1 and opening == -1 and _ends_inside(text, stray, end, (CALLS_OPEN,)):
        raise ParseError(f"the output ends inside {CALLS_OPEN} (cut short?)", line_col(text, stray), fmt,
                         cut_short=True)
    if stray != -1:
        raise ParseError(f"a {DSML} tag outside {CALLS_OPEN}", line_col(text, stray), fmt)
    if opening == -1:
        return []
    steps: list[Step] = []
    pos = opening + len(CALLS_OPEN)
    while True:
        pos = _skip_space(text, pos, end)
        if pos >= end:
            raise ParseError(f"the calls are not closed by {CALLS_CLOSE} (output cut short?)",
                             line_col(text, opening), fmt, cut_short=True)
        if text.startswith(CALLS_CLOSE, pos):
            _nothing_after(text, pos + len(CALLS_CLOSE), end, fmt)
            return steps
        _expect(text, pos, end, (INVOKE_OPEN, CALLS_CLOSE), f'{INVOKE_OPEN} name="..."> or {CALLS_CLOSE}', fmt)
        step, pos = _invoke(text, pos, end, limits, types, fmt)
        steps.append(step)


def _body_end(text: str) -> int:
    """Where the text ends once trailing whitespace and end-of-turn tokens are dropped."""
    end = len(text.rstrip())
    for token in native.DS_ENDS:
        if text.startswith(token, end - len(token)):
            end = len(text[: end - len(token)].rstrip())
    return end


def _skip_space(text: str, pos: int, end: int) -> int:
    while pos < end and text[pos] in " \t\r\n":
        pos += 1
    return pos


def _ends_inside(text: str, pos: int, end: int, tags: tuple[str, ...]) -> bool:
    """Whether ``text[pos:end]`` is the start of one of ``tags``: the output stopped inside it."""
    rest = text[pos:end]
    return any(tag.startswith(rest) for tag in tags)


def _find_tag(text: str, start: int, end: int) -> int:
    """Where the first tag opening or closing with ``｜DSML｜`` is in ``text[start:end]``, or -1."""
    found = [p for p in (text.find(m, start, end) for m in TAG_MARKERS) if p != -1]
    return min(found) if found else -1


def _nothing_after(text: str, pos: int, end: int, fmt: str) -> None:
    """Prose after the section is skipped, as vLLM and SGLang skip it; another DSML tag there is an error, so no
    call is ever dropped without a word."""
    again = _find_tag(text, pos, end)
    if again != -1:
        raise ParseError(f"a {DSML} tag after {CALLS_CLOSE}: expected one section of calls",
                         line_col(text, again), fmt)


def _expect(text: str, pos: int, end: int, tags: tuple[str, ...], what: str, fmt: str) -> None:
    """``tags[0]`` must start at ``pos`` (the caller has handled the others); the output ending inside one of
    ``tags`` is cut short, anything else is an error."""
    if text.startswith(tags[0], pos):
        return
    cut = _ends_inside(text, pos, end, tags)
    raise ParseError(f"expected {what}" + (" (output cut short?)" if cut else ""), line_col(text, pos), fmt,
                     cut_short=cut)


def _invoke(text: str, at: int, end: int, limits: Limits, types: TypeHint | None, fmt: str) -> tuple[Step, int]:
    """The ``<｜DSML｜invoke name="...">...</｜DSML｜invoke>`` at ``at``: its call and where it ends."""
    attributes, pos = _attributes(text, at + len(INVOKE_OPEN), end, at, ("name",), fmt)
    name = attributes.get("name", "").strip()
    if not name:
        raise ParseError('an invoke without a tool name: expected name="..."', line_col(text, at), fmt)
    pos = _skip_space(text, pos, end)
    if pos < end and text[pos] == "{":
        return _json_invoke(text, at, pos, end, name, limits, fmt)
    args: dict[str, Any] = {}
    while True:
        pos = _skip_space(text, pos, end)
        if pos >= end:
            raise ParseError(f"the invoke of {name!r} is not closed by {INVOKE_CLOSE} (output cut short?)",
                             line_col(text, at), fmt, cut_short=True)
        if text.startswith(INVOKE_CLOSE, pos):
            return Step(name, args), pos + len(INVOKE_CLOSE)
        _expect(text, pos, end, (PARAM_OPEN, INVOKE_CLOSE),
                f'{PARAM_OPEN} name="..." string="true|false"> or {INVOKE_CLOSE}', fmt)
        param_at = pos
        key, is_text, value_at, pos = _parameter(text, param_at, end, fmt)
        if key in args:
            raise ParseError(f"parameter {key!r} given twice", line_col(text, param_at), fmt)
        kind = types(name, key) if types is not None else None
        raw = text[value_at:pos - len(PARAM_CLOSE)]
        args[key] = raw if is_text and kind is None else typed_text(raw, kind, limits, fmt,
                                                                    partial(line_col, text, value_at))


def _json_invoke(text: str, at: int, pos: int, end: int, name: str, limits: Limits, fmt: str) -> tuple[Step, int]:
    """An invoke whose body is one JSON object of arguments (SGLang reads it; DeepSeek's template never writes it)."""
    value, after = json_text.decode_at(text, pos, limits, fmt)
    if not isinstance(value, dict):
        raise ParseError(f"arguments must be a JSON object, got {shapes.json_kind(value)}", line_col(text, pos), fmt)
    after = _skip_space(text, after, end)
    _expect(text, after, end, (INVOKE_CLOSE,), f"{INVOKE_CLOSE} after the arguments", fmt)
    try:
        step = shapes.generic_call({"name": name, "arguments": value}, "$", limits, fmt)
    except ParseError as error:
        raise error.moved(where(text, at, error.position), fmt) from None
    return step, after + len(INVOKE_CLOSE)


def _parameter(text: str, at: int, end: int, fmt: str) -> tuple[str, bool, int, int]:
    """The ``<｜DSML｜parameter ...>value</｜DSML｜parameter>`` at ``at``: its name, whether its value is text
    (``string="true"``), where the value starts and where the parameter ends. A value runs to the first closing
    tag; another DSML tag before it means the model left the closing tag out, an error at that tag."""
    attributes, pos = _attributes(text, at + len(PARAM_OPEN), end, at, ("name", "string"), fmt)
    key = attributes.get("name", "").strip()
    if not key:
        raise ParseError('a parameter without a name: expected name="..."', line_col(text, at), fmt)
    if attributes.get("string") not in ("true", "false"):
        raise ParseError(f'parameter {key!r}: expected string="true" or string="false"', line_col(text, at), fmt)
    close = text.find(PARAM_CLOSE, pos, end)
    inner = _find_tag(text, pos, end if close == -1 else close)
    if inner != -1 and not (close == -1 and PARAM_CLOSE.startswith(text[inner:end])):
        raise ParseError(f"a DSML tag inside parameter {key!r}, before the {PARAM_CLOSE} that closes it",
                         line_col(text, inner), fmt)
    if close == -1:
        raise ParseError(f"parameter {key!r} is not closed by {PARAM_CLOSE} (output cut short?)", line_col(text, at),
                         fmt, cut_short=True)
    return key, attributes["string"] == "true", pos, close + len(PARAM_CLOSE)


def _attributes(text: str, pos: int, end: int, opened: int, allowed: tuple[str, ...],
                fmt: str) -> tuple[dict[str, str], int]:
    """A tag's ``key="value"`` attributes from ``pos`` to its ``>``: the attributes and where the tag ends.
    Each must be one of ``allowed`` and given once; values hold no ``"``, ``<``, ``>`` or line break."""
    attributes: dict[str, str] = {}
    while True:
        start = _skip_space(text, pos, end)
        if start >= end:
            raise ParseError("the output ends inside a DSML tag (cut short?)", line_col(text, opened), fmt,
                             cut_short=True)
        if text[start] == ">":
            return attributes, start + 1
        if start == pos:
            raise ParseError("expected a space then an attribute, or '>'", line_col(text, start), fmt)
        stop = start
        while stop < end and text[stop] in _ATTRIBUTE_CHARS:
            stop += 1
        key = text[start:stop]
        if stop >= end or (text[stop] == "=" and stop + 1 >= end):
            raise ParseError("the output ends inside a DSML tag (cut short?)", line_col(text, opened), fmt,
                             cut_short=True)
        if not key or text[stop] != "=" or not text.startswith('"', stop + 1):
            raise ParseError('expected an attribute written key="value", or \'>\'', line_col(text, start), fmt)
        if key not in allowed:
            raise ParseError(f"unknown attribute {key!r} (expected {' and '.join(allowed)})", line_col(text, start),
                             fmt)
        if key in attributes:
            raise ParseError(f"attribute {key!r} given twice", line_col(text, start), fmt)
        quote = text.find('"', stop + 2, end)
        bad = next((i for i in range(stop + 2, end if quote == -1 else quote) if text[i] in '<>\n'), None)
        if bad is not None:
            raise ParseError(f"the value of attribute {key!r} is not closed by '\"'", line_col(text, bad), fmt)
        if quote == -1:
            raise ParseError("the output ends inside a DSML tag (cut short?)", line_col(text, opened), fmt,
                             cut_short=True)
        attributes[key] = text[stop + 2:quote]
        pos = quote + 1
