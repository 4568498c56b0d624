"""MiniMax-M2's native tool calls (M2, M2.1, M2.5, M2.7): ``<invoke>`` elements in ``<minimax:tool_call>`` blocks.

MiniMax's chat template (``chat_template.jinja`` of MiniMaxAI/MiniMax-M2, copied into llama.cpp as
``models/templates/MiniMax-M2.jinja``) writes all the calls of a turn in one block, one ``<invoke>`` a call and
one ``<parameter>`` a line, a string as it is and any other value as JSON (``tojson``)::

    <minimax:tool_call>
    <invoke name="get_weather">
    <parameter name="city">Paris</parameter>
    <parameter name="days">3</parameter>
    </invoke>
    </minimax:tool_call>

The model thinks first (``<think>...</think>``, or only ``</think>`` when the prompt opened it) and may write prose
before and after a block. Tags are found with ``str.find`` (linear, no regex); values are typed as Qwen3-Coder's
and GLM's are (:func:`ek.parsing.native.typed_text`), after the whitespace around them is dropped (vLLM's parser
and MiniMax's own guide strip it).
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

CALLS_OPEN, CALLS_CLOSE = "<minimax:tool_call>", "</minimax:tool_call>"
INVOKE_OPEN, INVOKE_CLOSE = "<invoke", "</invoke>"
PARAM_OPEN, PARAM_CLOSE = "<parameter", "</parameter>"
#: What makes a text MiniMax's, for ``auto``: the block's tags (single tokens of MiniMax's vocabulary).
MARKERS = (CALLS_OPEN, CALLS_CLOSE)
#: Tags that cannot be inside a value: one before the value's ``</parameter>`` means the model left that out.
_NOT_IN_VALUE = (f"{PARAM_OPEN} name=", INVOKE_CLOSE, f"{INVOKE_OPEN} name=", CALLS_OPEN, CALLS_CLOSE)
#: An ``<invoke name=`` outside every block: a call no serving stack reads, never dropped without a word.
_STRAY_INVOKE = f"{INVOKE_OPEN} name="
_SPACE = " \t\r\n"


def read_minimax_m2(text: str, limits: Limits, types: TypeHint | None = None,
                    fmt: str = "minimax-m2") -> list[Step]:
    """Every ``<minimax:tool_call>`` block after a leading ``<think>``, in order; text with none is no calls.

    Each block holds ``<invoke name="TOOL">`` elements (whitespace between tags skipped), each holding
    ``<parameter name="KEY">VALUE</parameter>`` elements. A value is stripped of surrounding whitespace, then
    typed by ``types`` when given, else it is the JSON value when its text parses as JSON, else the text.
    Prose around the blocks is skipped; a ``</minimax:tool_call>`` or ``<invoke name=`` in it is an error.

    >>> read_minimax_m2('Sure.\\n<minimax:tool_call>\\n<invoke name="get_weather">\\n'
    ...                 '<parameter name="city">Paris</parameter>\\n<parameter name="days">3</parameter>\\n'
    ...                 '</invoke>\\n</minimax:tool_call>', Limits())
    [Step(name='get_weather', args={'city': 'Paris', 'days': 3})]
    >>> read_minimax_m2('<minimax:tool_call><invoke name="f"><parameter name="x">1', Limits())
    Traceback (most recent call last):
    ...
    ek.parsing.errors.ParseError: minimax-m2: line 1, column 37: parameter 'x' is not closed by </parameter> \
(output cut short?)
    """
    if len(text) > limits.max_size:
        check_text(text, limits, fmt)  # values are bare text: brackets in them are not nesting
    end = len(text)
    pos = chat_text.after_think(text, fmt)
    steps: list[Step] = []
    while True:
        opening = text.find(CALLS_OPEN, pos)
        _no_stray_tag(text, pos, end if opening == -1 else opening, fmt)
        if opening == -1:
            return steps
        pos = _block(text, opening, end, steps, limits, types, fmt)


def _no_stray_tag(text: str, start: int, stop: int, fmt: str) -> None:
    """Prose (before, between and after the blocks) is skipped, as vLLM and SGLang skip it; a closing block tag or
    an invoke in it is an error, so no call is dropped without a word."""
    close = text.find(CALLS_CLOSE, start, stop)
    invoke = text.find(_STRAY_INVOKE, start, stop if close == -1 else close)
    if invoke != -1:
        raise ParseError(f"an invoke outside {CALLS_OPEN}: expected {CALLS_OPEN} before it (vLLM and SGLang read "
                         "no call from it)", line_col(text, invoke), fmt)
    if close != -1:
        raise ParseError(f"{CALLS_CLOSE} without an opening {CALLS_OPEN}", line_col(text, close), fmt)


def _skip_space(text: str, pos: int, end: int) -> int:
    while pos < end and text[pos] in _SPACE:
        pos += 1
    return pos


def _expected(text: str, pos: int, end: int, tags: tuple[str, ...], what: str, fmt: str) -> ParseError:
    """The error for text at ``pos`` that starts none of ``tags``: cut short when the output ends inside one."""
    rest = text[pos:end]
    cut = any(tag.startswith(rest) for tag in tags)
    return ParseError(f"expected {what}" + (" (output cut short?)" if cut else ""), line_col(text, pos), fmt,
                      cut_short=cut)


def _starts_tag(text: str, pos: int, end: int, tag: str) -> bool:
    """Whether the opening tag ``tag`` (``<invoke``, ``<parameter``) starts at ``pos``: followed by a space, or by
    the end of the output (cut short inside it), not by another letter."""
    after = pos + len(tag)
    return text.startswith(tag, pos) and (after >= end or text[after] in _SPACE)


def _block(text: str, opening: int, end: int, steps: list[Step], limits: Limits, types: TypeHint | None,
           fmt: str) -> int:
    """Read the block opened at ``opening`` into ``steps``; where it ends."""
    pos = opening + len(CALLS_OPEN)
    while True:
        pos = _skip_space(text, pos, end)
        if pos >= end:
            raise ParseError(f"the block is not closed by {CALLS_CLOSE} (output cut short?)",
                             line_col(text, opening), fmt, cut_short=True)
        if text.startswith(CALLS_CLOSE, pos):
            return pos + len(CALLS_CLOSE)
        if not _starts_tag(text, pos, end, INVOKE_OPEN):
            raise _expected(text, pos, end, (INVOKE_OPEN, CALLS_CLOSE), f'<invoke name="..."> or {CALLS_CLOSE}', fmt)
        step, pos = _invoke(text, pos, end, limits, types, fmt)
        steps.append(step)


def _invoke(text: str, at: int, end: int, limits: Limits, types: TypeHint | None, fmt: str) -> tuple[Step, int]:
    """The ``<invoke name="...">...</invoke>`` at ``at``: its call and where it ends."""
    name, pos = _name(text, at + len(INVOKE_OPEN), end, at, "invoke", fmt)
    args: dict[str, Any] = {}
    while True:
        pos = _skip_space(text, pos, end)
        if pos >= end:
            raise ParseError(f"the invoke of {name!r} is not closed by {INVOKE_CLOSE} (output cut short?)",
                             line_col(text, at), fmt, cut_short=True)
        if text.startswith(INVOKE_CLOSE, pos):
            return Step(name, args), pos + len(INVOKE_CLOSE)
        if not _starts_tag(text, pos, end, PARAM_OPEN):
            raise _expected(text, pos, end, (PARAM_OPEN, INVOKE_CLOSE), f'<parameter name="..."> or {INVOKE_CLOSE}',
                            fmt)
        param_at = pos
        key, pos = _name(text, pos + len(PARAM_OPEN), end, param_at, "parameter", fmt)
        if key in args:
            raise ParseError(f"parameter {key!r} given twice", line_col(text, param_at), fmt)
        close = _value_end(text, pos, end, key, param_at, fmt)
        raw = text[pos:close]
        value = raw.strip(_SPACE)
        value_at = pos + len(raw) - len(raw.lstrip(_SPACE))
        kind = types(name, key) if types is not None else None
        args[key] = typed_text(value, kind, limits, fmt, partial(line_col, text, value_at))
        pos = close + len(PARAM_CLOSE)


def _value_end(text: str, pos: int, end: int, key: str, opened: int, fmt: str) -> int:
    """Where the value starting at ``pos`` ends: at the first ``</parameter>`` (the format has no escaping). A tag
    of the format before it means the model left ``</parameter>`` out: an error at that tag."""
    close = text.find(PARAM_CLOSE, pos, end)
    stop = end if close == -1 else close
    inner = [(p, tag) for tag in _NOT_IN_VALUE if (p := text.find(tag, pos, stop)) != -1]
    if inner:
        found, tag = min(inner)
        line, column = line_col(text, opened)
        raise ParseError(f"{tag.removesuffix(' name=')} inside parameter {key!r} (opened at line {line}, column "
                         f"{column}): expected {PARAM_CLOSE} before it", line_col(text, found), fmt)
    if close == -1:
        raise ParseError(f"parameter {key!r} is not closed by {PARAM_CLOSE} (output cut short?)",
                         line_col(text, opened), fmt, cut_short=True)
    return close


def _name(text: str, pos: int, end: int, opened: int, what: str, fmt: str) -> tuple[str, int]:
    """The ``name="..."`` of the tag opened at ``opened`` (its attributes start at ``pos``) and where the tag ends.

    The template writes ``name="..."``; ``name='...'`` and an unquoted ``name=...`` are read too (vLLM's parser and
    MiniMax's own guide take both). A quoted name holds no ``<``, ``>`` or line break; surrounding spaces are
    dropped. Any other attribute is an error."""
    def cut() -> ParseError:  # built only when raised: line_col counts the lines before it
        return ParseError(f"the output ends inside the <{what}> tag (cut short?)", line_col(text, opened), fmt,
                          cut_short=True)

    start = _skip_space(text, pos, end)
    if start >= end:
        raise cut()
    if not text.startswith("name=", start):
        if "name=".startswith(text[start:end]):
            raise cut()
        raise ParseError(f'expected name="..." in the <{what}> tag', line_col(text, start), fmt)
    pos = start + len("name=")
    if pos >= end:
        raise cut()
    quote = text[pos]
    if quote in "\"'":
        close = text.find(quote, pos + 1, end)
        stop = end if close == -1 else close
        bad = [p for p in (text.find(c, pos + 1, stop) for c in "<>\n") if p != -1]
        if bad:
            raise ParseError(f"the {what} name is not closed by {quote}", line_col(text, min(bad)), fmt)
        if close == -1:
            raise cut()
        name, pos = text[pos + 1:close].strip(), close + 1
    else:
        stop = pos
        while stop < end and text[stop] not in _SPACE and text[stop] not in "<>\"'/":
            stop += 1
        name = text[pos:stop]
        if stop < end and text[stop] in "<\"'/":
            raise ParseError(f'expected the {what} name written name="..."', line_col(text, stop), fmt)
        pos = stop
    if not name:
        raise ParseError(f"a{'n' if what == 'invoke' else ''} {what} without a name", line_col(text, opened), fmt)
    pos = _skip_space(text, pos, end)
    if pos >= end:
        raise cut()
    if text[pos] != ">":
        raise ParseError(f"expected '>' after the {what} name {name!r} (the template writes no other attribute)",
                         line_col(text, pos), fmt)
    return name, pos + 1
