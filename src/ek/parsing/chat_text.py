"""Chat-model text: a leading ``<think>`` block to skip, and Hermes/Qwen ``<tool_call>`` blocks.

Qwen, Hermes and many open chat templates write each call as
``<tool_call>{"name": ..., "arguments": {...}}</tool_call>`` between prose;
reasoning models put their thoughts in ``<think>...</think>`` first. Tags are
found with plain ``str.find`` (linear, no regex backtracking); each block's
content is handed to a reader given by the caller, and any error it raises is
moved to the block's line and column in the whole text.
"""

from __future__ import annotations

from collections.abc import Callable

from ek.calls import Step
from ek.parsing.errors import ParseError, line_col

THINK_OPEN, THINK_CLOSE = "<think>", "</think>"
#: Reasoning blocks, each (opening tag, closing tag): the common ``<think>``, and ByteDance Seed-OSS's
#: ``<seed:think>`` (its reasoning often quotes the call it is about to make, which is no call).
THINK_TAGS = ((THINK_OPEN, THINK_CLOSE), ("<seed:think>", "</seed:think>"))
CALL_OPEN, CALL_CLOSE = "<tool_call>", "</tool_call>"


def after_think(text: str, fmt: str, tags: tuple[tuple[str, str], ...] = ()) -> int:
    """Offset where the answer starts: after a leading reasoning block (``tags``, each (opening, closing); by default
    :data:`THINK_TAGS`: ``<think>...</think>`` or Seed-OSS's ``<seed:think>...</seed:think>``), else 0. The one
    owner of this question: formats with reasoning tags of their own pass them (GLM's kin, ``glm.after_reasoning``).

    A text holding a closing tag with no opening tag before it started inside a
    thought (templates that open ``<think>`` in the prompt): the answer starts
    after the first such closing tag.

    >>> text = "<think>hm</think> f()"
    >>> text[after_think(text, "auto"):]
    ' f()'
    >>> text = "<seed:think>I will write <seed:tool_call>...</seed:think>Sure."
    >>> text[after_think(text, "auto"):]
    'Sure.'
    >>> after_think("<think>cut short", "auto")
    Traceback (most recent call last):
    ...
    ek.parsing.errors.ParseError: auto: line 1, column 1: a <think> block is not closed by </think> (output cut short?)
    """
    start = len(text) - len(text.lstrip())
    for opening, closing in tags or THINK_TAGS:
        if text.startswith(opening, start):
            end = text.find(closing, start + len(opening))
            if end == -1:
                raise ParseError(f"a {opening} block is not closed by {closing} (output cut short?)",
                                 line_col(text, start), fmt, cut_short=True)
            return end + len(closing)
    if not tags and "think>" not in text:  # fast path: both default closing tags end so; one scan for most texts
        return 0
    found = [close + len(closing) for opening, closing in tags or THINK_TAGS
             if (close := text.find(closing)) != -1 and text.find(opening, 0, close) == -1]
    return min(found) if found else 0


def has_blocks(text: str, start: int = 0) -> bool:
    """Whether ``text[start:]`` holds a ``<tool_call>`` or a stray ``</tool_call>`` tag."""
    return text.find(CALL_OPEN, start) != -1 or text.find(CALL_CLOSE, start) != -1


def blocks(text: str, start: int, fmt: str, *, open_end: bool = False,
           whole_after: str | None = None) -> list[tuple[int, int]]:
    """``(begin, end)`` offsets of each ``<tool_call>`` block's content in ``text[start:]``.

    With ``open_end``, a last block left without ``</tool_call>`` runs to the end of the text (serving
    stacks often stop on ``</tool_call>``, which then never reaches the completion): the caller reads
    it, and reports a cut-short output if its content is not a whole call (see :func:`read_blocks`).
    With ``whole_after`` (a format's closing tag, Qwen3-Coder's ``</function>``), a block whose content
    ends with that tag when the next ``<tool_call>`` opens ends there, its ``</tool_call>`` left out.

    >>> blocks("a <tool_call>1</tool_call> b <tool_call>2</tool_call>", 0, "hermes")
    [(13, 14), (40, 41)]
    >>> blocks("<tool_call>1", 0, "hermes", open_end=True)
    [(11, 12)]
    """
    spans: list[tuple[int, int]] = []
    pos = start
    # the first </tool_call> at or after ``closing_from`` (-1: none): blocks whose </tool_call> was left out
    # follow each other up to it, and each would otherwise search for it to the end of the text (quadratic)
    closing_from, closing = len(text) + 1, -1
    while True:
        opening = text.find(CALL_OPEN, pos)
        stray = text.find(CALL_CLOSE, pos, len(text) if opening == -1 else opening)
        if stray != -1:
            raise ParseError("</tool_call> without an opening <tool_call>", line_col(text, stray), fmt)
        if opening == -1:
            return spans
        begin = opening + len(CALL_OPEN)
        if not closing_from <= begin <= (len(text) if closing == -1 else closing):
            closing_from, closing = begin, text.find(CALL_CLOSE, begin)
        end = closing  # (none between closing_from and it, so it is the first at or after begin too)
        inner = text.find(CALL_OPEN, begin, len(text) if end == -1 else end)
        if inner != -1 and whole_after is not None and _ends_with(text, begin, inner, whole_after):
            spans.append((begin, inner))  # a whole call whose </tool_call> was left out, as vLLM reads it
            pos = inner
            continue
        if inner != -1:
            raise ParseError(f"<tool_call> inside an unclosed <tool_call> block (opened at line "
                             f"{line_col(text, opening)[0]}, column {line_col(text, opening)[1]})",
                             line_col(text, inner), fmt)
        if end == -1:
            if open_end:
                spans.append((begin, len(text)))
                return spans
            raise unclosed(text, opening, fmt)
        spans.append((begin, end))
        pos = end + len(CALL_CLOSE)


def _ends_with(text: str, begin: int, end: int, suffix: str) -> bool:
    """Whether ``text[begin:end]`` ends with ``suffix``, trailing whitespace skipped (no copy of the span)."""
    while end > begin and text[end - 1] in " \t\r\n":
        end -= 1
    return end - len(suffix) >= begin and text.startswith(suffix, end - len(suffix))


def unclosed(text: str, opening: int, fmt: str) -> ParseError:
    """The error for a ``<tool_call>`` block at ``opening`` that is neither closed nor a whole call."""
    return ParseError("a <tool_call> block is not closed by </tool_call> (output cut short?)",
                      line_col(text, opening), fmt, cut_short=True)


def is_open(text: str, end: int) -> bool:
    """Whether a block ending at ``end`` (from :func:`blocks`) was left without its ``</tool_call>``."""
    return not text.startswith(CALL_CLOSE, end)


def _content(text: str, begin: int, end: int) -> tuple[int, str]:
    """A block's content without surrounding whitespace or Markdown code fence, and its offset."""
    raw = text[begin:end]
    lead = len(raw) - len(raw.lstrip())
    inner = raw.strip()
    if inner.startswith("```") and inner.endswith("```") and len(inner) >= 6 and "\n" in inner:
        newline = inner.find("\n")
        lead += newline + 1
        inner = inner[newline + 1 : -3]
        lead += len(inner) - len(inner.lstrip())
        inner = inner.strip()
    return begin + lead, inner


def read_blocks(text: str, start: int, fmt: str, read: Callable[[str], list[Step]]) -> list[Step]:
    """The calls of every ``<tool_call>`` block after ``start``, each block's content read by ``read``.

    Errors are re-raised with ``fmt`` and the position in ``text``: a line and
    column for text positions, ``<tool_call> #k (line, column) $.path`` for
    paths inside a block's decoded JSON. A last block without ``</tool_call>``
    counts when its content reads as a whole call (as vLLM and SGLang read it);
    otherwise the output was cut short inside it.

    >>> read_blocks('<tool_call>{"name": "f", "arguments": {}}', 0, "hermes", lambda s: [s])
    ['{"name": "f", "arguments": {}}']
    """
    steps: list[Step] = []
    for number, (begin, end) in enumerate(blocks(text, start, fmt, open_end=True), 1):
        offset, content = _content(text, begin, end)
        opening = begin - len(CALL_OPEN)
        if not content:
            if is_open(text, end):
                raise unclosed(text, opening, fmt)
            raise ParseError("an empty <tool_call> block", line_col(text, opening), fmt)
        try:
            steps.extend(read(content))
        except ParseError as error:
            if is_open(text, end):
                raise unclosed(text, opening, fmt) from None
            raise error.moved(shift(error.position, text, offset, number), fmt) from None
    return steps


def shift(position: object, text: str, offset: int, block: int | None = None) -> tuple[int, int] | str | None:
    """A position inside ``text[offset:]`` as a position in ``text``.

    >>> shift((2, 3), "ab\\ncd\\nef\\ngh", 3)
    (3, 3)
    >>> shift((1, 2), "ab\\ncd", 3)
    (2, 2)
    """
    line, column = line_col(text, offset)
    if isinstance(position, tuple):
        return (line + position[0] - 1, position[1] + (column - 1 if position[0] == 1 else 0))
    where = f"<tool_call> #{block} (line {line}, column {column})" if block is not None else None
    if isinstance(position, str):
        return f"{where} {position}" if where else position
    return where
