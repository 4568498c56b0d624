"""DeepSeek's DSML tool calls (V3.2, V4, V4.1), read by the ``deepseek`` format next to V3/R1/V3.1's.

DeepSeek V3.2 (its ``encoding_dsv32.py``; vLLM's ``deepseek_v32`` parser, SGLang's ``deepseekv32`` detector)
writes calls as XML-like tags whose names carry the token ``｜DSML｜`` (fullwidth bars, U+FF5C)::

    <｜DSML｜function_calls>
    <｜DSML｜invoke name="get_weather">
    <｜DSML｜parameter name="city" string="true">Beijing</｜DSML｜parameter>
    <｜DSML｜parameter name="days" string="false">3</｜DSML｜parameter>
    </｜DSML｜invoke>
    </｜DSML｜function_calls>

V4 (``encoding_dsv4.py``, SGLang's ``deepseekv4`` detector) names the section ``tool_calls``, and V4.1
(``encoding_dsv41.py``, SGLang's ``deepseekv41``) puts a space before each tag name: ``<｜DSML｜ calls>``,
``<｜DSML｜ invoke name="...">``, ``<｜DSML｜ parameter ...>``. The three differ only in those names
(:data:`DIALECTS`); an output is read in the dialect of its section's opening tag.

``string="true"`` marks a value written as plain text, ``string="false"`` one written as JSON. No marker of
V3's encoding (``<｜tool▁calls▁begin｜>``) can be taken for one of these, so one format name, ``deepseek``,
reads every DeepSeek encoding (:func:`read_deepseek`), as users name the family. Tags are found with
``str.find``: linear in the text, no regex.
"""

from __future__ import annotations

from functools import partial
from typing import Any

import attrs

from ek.calls import Step
from ek.parsing import chat_text, json_text, native, shapes
from ek.parsing.errors import ParseError, line_col
from ek.parsing.limits import Limits, check_text
from ek.parsing.native import typed_text
from ek.parsing.prose import where
from ek.parsing.registry import TypeHint
from ek.parsing.scan import next_in_element, skip_space

DSML = "｜DSML｜"


@attrs.frozen
class Dialect:
    """The tag names of one DeepSeek version's DSML: its section, its calls and their parameters."""

    version: str
    section: str
    invoke: str
    parameter: str

    @property
    def calls_open(self) -> str:
        return f"<{DSML}{self.section}>"

    @property
    def calls_close(self) -> str:
        return f"</{DSML}{self.section}>"

    @property
    def invoke_open(self) -> str:
        return f"<{DSML}{self.invoke}"

    @property
    def invoke_close(self) -> str:
        return f"</{DSML}{self.invoke}>"

    @property
    def param_open(self) -> str:
        return f"<{DSML}{self.parameter}"

    @property
    def param_close(self) -> str:
        return f"</{DSML}{self.parameter}>"


V32 = Dialect("V3.2", "function_calls", "invoke", "parameter")
V4 = Dialect("V4", "tool_calls", "invoke", "parameter")
#: V4.1's tag names start with a space, as its ``encoding_dsv41.py`` writes them (`` calls``, `` invoke``).
V41 = Dialect("V4.1", " calls", " invoke", " parameter")
DIALECTS = (V32, V4, V41)
#: What makes a text DSML: a tag opening or closing with the token (a JSON string holding it, ``<`` written
#: ``\\u003c`` as ek renders it, does not).
TAG_MARKERS = (f"<{DSML}", f"</{DSML}")
_V3_MARKERS = (native.DS_CALLS_BEGIN, native.DS_CALL_BEGIN)
_ATTRIBUTE_CHARS = frozenset("abcdefghijklmnopqrstuvwxyz_")


def read_deepseek(text: str, limits: Limits, types: TypeHint | None = None, fmt: str = "deepseek") -> list[Step]:
    """Every DeepSeek encoding: DSML (V3.2, V4, V4.1: :func:`read_dsml`) when a ``｜DSML｜`` tag is in the text, else
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
        raise ParseError(f"both DSML's {DSML} tags and V3's {native.DS_CALL_BEGIN} markers: an output is written in "
                         "one DeepSeek encoding", line_col(text, max(min(tags), min(older))), fmt)
    return read_dsml(text, limits, types, fmt)


def read_dsml(text: str, limits: Limits, types: TypeHint | None = None, fmt: str = "deepseek") -> list[Step]:
    """The calls of the one DSML section (``<｜DSML｜function_calls>``, V4's ``<｜DSML｜tool_calls>`` or V4.1's
    ``<｜DSML｜ calls>``: the first one opened sets the dialect; prose before it, a leading ``<think>`` and a
    final ``<｜end▁of▁sentence｜>`` skipped). Each invoke holds parameters or, as SGLang reads it, one JSON
    object of arguments. A ``string="true"`` value is its text (typed by ``types`` when the tool declares a
    non-string type, as vLLM does); a ``string="false"`` one is typed by ``types``, else its JSON value (its text
    when it is not JSON, so the scorer reports the wrong type).
    """
    if len(text) > limits.max_size:
        check_text(text, limits, fmt)  # string="true" values are bare text: brackets in them are not nesting
    start = chat_text.after_think(text, fmt)
    end = _body_end(text)
    opening, dialect = _section(text, start, end)
    stray = _find_tag(text, start, end if opening == -1 else opening)
    if stray != -1 and opening == -1 and _ends_inside(text, stray, end, _SECTION_OPENS):
        raise ParseError("the output ends inside a DSML section's opening tag (cut short?)", line_col(text, stray),
                         fmt, cut_short=True)
    if stray != -1:
        raise ParseError(f"a {DSML} tag outside a section of calls ({_SECTIONS_NAMED})", line_col(text, stray), fmt)
    if opening == -1:
        return []
    steps: list[Step] = []
    pos = opening + len(dialect.calls_open)
    while True:
        pos = skip_space(text, pos, end)
        if pos >= end:
            raise ParseError(f"the calls are not closed by {dialect.calls_close} (output cut short?)",
                             line_col(text, opening), fmt, cut_short=True)
        if text.startswith(dialect.calls_close, pos):
            _nothing_after(text, pos + len(dialect.calls_close), end, dialect, fmt)
            return steps
        _expect(text, pos, end, (dialect.invoke_open, dialect.calls_close),
                f'{dialect.invoke_open} name="..."> or {dialect.calls_close}', fmt)
        step, pos = _invoke(text, pos, end, limits, types, dialect, fmt)
        steps.append(step)


#: Each dialect's section opening tag, and the three named for an error.
_SECTION_OPENS = tuple(d.calls_open for d in DIALECTS)
_SECTIONS_NAMED = ", ".join(f"{d.calls_open} in {d.version}" for d in DIALECTS)


def _section(text: str, start: int, end: int) -> tuple[int, Dialect]:
    """Where the first section of calls opens in ``text[start:end]`` and its dialect; -1 (and V3.2) if none."""
    found = [(p, d) for d in DIALECTS if (p := text.find(d.calls_open, start, end)) != -1]
    return min(found, key=lambda hit: hit[0]) if found else (-1, V32)


def _body_end(text: str) -> int:
    """Where the text ends once trailing whitespace and end-of-turn tokens are dropped."""
    end = len(text.rstrip())
    for token in native.DS_ENDS:
        if text.startswith(token, end - len(token)):
            end = len(text[: end - len(token)].rstrip())
    return end


def _ends_inside(text: str, pos: int, end: int, tags: tuple[str, ...]) -> bool:
    """Whether ``text[pos:end]`` is the start of one of ``tags``: the output stopped inside it."""
    rest = text[pos:end]
    return any(tag.startswith(rest) for tag in tags)


def _find_tag(text: str, start: int, end: int) -> int:
    """Where the first tag opening or closing with ``｜DSML｜`` is in ``text[start:end]``, or -1."""
    found = [p for p in (text.find(m, start, end) for m in TAG_MARKERS) if p != -1]
    return min(found) if found else -1


def _nothing_after(text: str, pos: int, end: int, dialect: Dialect, fmt: str) -> None:
    """Prose after the section is skipped, as vLLM and SGLang skip it; another DSML tag there is an error, so no
    call is ever dropped without a word."""
    again = _find_tag(text, pos, end)
    if again != -1:
        raise ParseError(f"a {DSML} tag after {dialect.calls_close}: expected one section of calls",
                         line_col(text, again), fmt)


def _expect(text: str, pos: int, end: int, tags: tuple[str, ...], what: str, fmt: str) -> None:
    """``tags[0]`` must start at ``pos`` (the caller has handled the others); the output ending inside one of
    ``tags`` is cut short, anything else is an error."""
    if text.startswith(tags[0], pos):
        return
    cut = _ends_inside(text, pos, end, tags)
    raise ParseError(f"expected {what}" + (" (output cut short?)" if cut else ""), line_col(text, pos), fmt,
                     cut_short=cut)


def _invoke(text: str, at: int, end: int, limits: Limits, types: TypeHint | None, dialect: Dialect,
            fmt: str) -> tuple[Step, int]:
    """The ``<｜DSML｜invoke name="...">...</｜DSML｜invoke>`` at ``at`` (in ``dialect``): its call and where it
    ends."""
    attributes, pos = _attributes(text, at + len(dialect.invoke_open), end, at, ("name",), fmt)
    name = attributes.get("name", "").strip()
    if not name:
        raise ParseError('an invoke without a tool name: expected name="..."', line_col(text, at), fmt)
    pos = skip_space(text, pos, end)
    if pos < end and text[pos] == "{":
        return _json_invoke(text, at, pos, end, name, limits, dialect, fmt)
    args: dict[str, Any] = {}
    while True:
        pos, closed = next_in_element(text, pos, end, dialect.invoke_close, at, "invoke", name, fmt)
        if closed:
            return Step(name, args), pos + len(dialect.invoke_close)
        _expect(text, pos, end, (dialect.param_open, dialect.invoke_close),
                f'{dialect.param_open} name="..." string="true|false"> or {dialect.invoke_close}', fmt)
        param_at = pos
        key, is_text, value_at, pos = _parameter(text, param_at, end, dialect, fmt)
        if key in args:
            raise ParseError(f"parameter {key!r} given twice", line_col(text, param_at), fmt)
        kind = types(name, key) if types is not None else None
        raw = text[value_at:pos - len(dialect.param_close)]
        args[key] = raw if is_text and kind is None else typed_text(raw, kind, limits, fmt,
                                                                    partial(line_col, text, value_at))


def _json_invoke(text: str, at: int, pos: int, end: int, name: str, limits: Limits, dialect: Dialect,
                 fmt: str) -> tuple[Step, int]:
    """An invoke whose body is one JSON object of arguments (SGLang reads it; DeepSeek's template never writes it)."""
    value, after = json_text.decode_at(text, pos, limits, fmt)
    if not isinstance(value, dict):
        raise ParseError(f"arguments must be a JSON object, got {shapes.json_kind(value)}", line_col(text, pos), fmt)
    after = skip_space(text, after, end)
    _expect(text, after, end, (dialect.invoke_close,), f"{dialect.invoke_close} after the arguments", fmt)
    try:
        step = shapes.generic_call({"name": name, "arguments": value}, "$", limits, fmt)
    except ParseError as error:
        raise error.moved(where(text, at, error.position), fmt) from None
    return step, after + len(dialect.invoke_close)


def _parameter(text: str, at: int, end: int, dialect: Dialect, fmt: str) -> tuple[str, bool, int, int]:
    """The ``<｜DSML｜parameter ...>value</｜DSML｜parameter>`` at ``at``: its name, whether its value is text
    (``string="true"``), where the value starts and where the parameter ends. A value runs to the first closing
    tag; another DSML tag before it means the model left the closing tag out, an error at that tag."""
    attributes, pos = _attributes(text, at + len(dialect.param_open), end, at, ("name", "string"), fmt)
    key = attributes.get("name", "").strip()
    if not key:
        raise ParseError('a parameter without a name: expected name="..."', line_col(text, at), fmt)
    if attributes.get("string") not in ("true", "false"):
        raise ParseError(f'parameter {key!r}: expected string="true" or string="false"', line_col(text, at), fmt)
    close = text.find(dialect.param_close, pos, end)
    inner = _find_tag(text, pos, end if close == -1 else close)
    if inner != -1 and not (close == -1 and dialect.param_close.startswith(text[inner:end])):
        raise ParseError(f"a DSML tag inside parameter {key!r}, before the {dialect.param_close} that closes it",
                         line_col(text, inner), fmt)
    if close == -1:
        raise ParseError(f"parameter {key!r} is not closed by {dialect.param_close} (output cut short?)",
                         line_col(text, at), fmt, cut_short=True)
    return key, attributes["string"] == "true", pos, close + len(dialect.param_close)


def _attributes(text: str, pos: int, end: int, opened: int, allowed: tuple[str, ...],
                fmt: str) -> tuple[dict[str, str], int]:
    """A tag's ``key="value"`` attributes from ``pos`` to its ``>``: the attributes and where the tag ends.
    Each must be one of ``allowed`` and given once; values hold no ``"``, ``<``, ``>`` or line break."""
    attributes: dict[str, str] = {}
    while True:
        start = skip_space(text, pos, end)
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
