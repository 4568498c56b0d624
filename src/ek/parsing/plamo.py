"""Preferred Networks' PLaMo 3: calls in ``<|plamo:...|>`` tags, a name and JSON arguments each.

The model writes its calls in one block of requests, each request a name and its arguments, the arguments a JSON
object after a constraint marker (vLLM's and SGLang's ``plamo3`` parsers; SGLang's structural tag)::

    <|plamo:begin_tool_requests:plamo|>
      <|plamo:begin_tool_request:plamo|>
        <|plamo:begin_tool_name:plamo|>get_weather<|plamo:end_tool_name:plamo|>
        <|plamo:begin_tool_arguments:plamo|><|plamo:constrain|>json<|plamo:msg|>{"city": "Tokyo"}
        <|plamo:end_tool_arguments:plamo|>
      <|plamo:end_tool_request:plamo|>
    <|plamo:end_tool_requests:plamo|><|plamo:tag|>

(written with no space between the tags; spaces and line breaks between them are skipped, as SGLang skips them).
``<|plamo:tag|>`` ends the turn: text after it is not the model's answer (vLLM cuts the output there). A leading
``<|plamo:begin_think:plamo|>`` ... ``<|plamo:end_think:plamo|>`` block is reasoning, skipped. Tags are found with
``str.find``; the arguments' JSON is decoded in place, so a tag inside a JSON string never ends a call early.
Prose before and after a block is skipped; a request outside a block, or a block never closed, is an error (the
latter cut short), never no call.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from ek.calls import Step
from ek.parsing import chat_text, json_text
from ek.parsing.errors import ParseError, line_col
from ek.parsing.limits import Limits, check_text
from ek.parsing.prose import object_call
from ek.parsing.registry import TypeHint
from ek.parsing.scan import first_of, skip_space

FORMAT = "plamo3"
REQUESTS_OPEN, REQUESTS_CLOSE = "<|plamo:begin_tool_requests:plamo|>", "<|plamo:end_tool_requests:plamo|>"
REQUEST_OPEN, REQUEST_CLOSE = "<|plamo:begin_tool_request:plamo|>", "<|plamo:end_tool_request:plamo|>"
NAME_OPEN, NAME_CLOSE = "<|plamo:begin_tool_name:plamo|>", "<|plamo:end_tool_name:plamo|>"
ARGS_OPEN, ARGS_CLOSE = "<|plamo:begin_tool_arguments:plamo|>", "<|plamo:end_tool_arguments:plamo|>"
#: What the model writes before the arguments' JSON: the constraint (``json``) and the start of the message.
CONSTRAIN, MSG = "<|plamo:constrain|>", "<|plamo:msg|>"
THINK = ("<|plamo:begin_think:plamo|>", "<|plamo:end_think:plamo|>")
#: The end of the model's turn.
EOT = "<|plamo:tag|>"
#: The tool-call tags: any of them outside the place the format gives it is an error.
TOOL_TAGS = (REQUESTS_OPEN, REQUESTS_CLOSE, REQUEST_OPEN, REQUEST_CLOSE, NAME_OPEN, NAME_CLOSE, ARGS_OPEN,
             ARGS_CLOSE, CONSTRAIN, MSG)
#: What makes a text PLaMo's to ``auto``: the tags' namespace, which no other family writes.
MARKERS = ("<|plamo:",)


def read_plamo3(text: str, limits: Limits, types: TypeHint | None = None, fmt: str = FORMAT) -> list[Step]:
    """The calls of a PLaMo 3 completion: every block of requests, in order; text with none is no calls.

    >>> read_plamo3('Checking.<|plamo:begin_tool_requests:plamo|><|plamo:begin_tool_request:plamo|>'
    ...             '<|plamo:begin_tool_name:plamo|>get_weather<|plamo:end_tool_name:plamo|>'
    ...             '<|plamo:begin_tool_arguments:plamo|><|plamo:constrain|>json<|plamo:msg|>{"city": "Tokyo"}'
    ...             '<|plamo:end_tool_arguments:plamo|><|plamo:end_tool_request:plamo|>'
    ...             '<|plamo:end_tool_requests:plamo|><|plamo:tag|>', Limits())
    [Step(name='get_weather', args={'city': 'Tokyo'})]
    >>> read_plamo3('Sure.<|plamo:begin_tool_requests:plamo|><|plamo:begin_tool_request:plamo|>', Limits())
    Traceback (most recent call last):
    ...
    ek.parsing.errors.ParseError: plamo3: line 1, column 6: a <|plamo:begin_tool_requests:plamo|> block is not closed by <|plamo:end_tool_requests:plamo|> (output cut short?)
    """
    check_text(text, limits, fmt)
    pos = chat_text.after_think(text, fmt, (THINK,))
    end = _turn_end(text, pos, fmt)
    steps: list[Step] = []
    while True:
        at = text.find(REQUESTS_OPEN, pos, end)
        _prose(text, pos, end if at == -1 else at, fmt)
        if at == -1:
            return steps
        found, pos = _block(text, at, end, limits, fmt)
        steps.extend(found)


def _turn_end(text: str, pos: int, fmt: str) -> int:
    """Where the answer ends: at ``<|plamo:tag|>`` (vLLM drops what follows), else at the end of the text. A tool
    tag after the end of the turn is an error: a call there is one no stack reads, and ek does not drop it."""
    eot = text.find(EOT, pos)
    if eot == -1:
        return len(text)
    stray = first_of(text, TOOL_TAGS, eot, len(text))
    if stray != -1:
        raise ParseError(f"a PLaMo tool tag after the end of the turn ({EOT})", line_col(text, stray), fmt)
    return eot


def _prose(text: str, begin: int, end: int, fmt: str) -> None:
    """Text outside the blocks, which the stacks skip: refused when it holds a tool tag (a request with no block
    around it, a block closed twice), or ends in the first part of a block's open tag (cut short there)."""
    stray = first_of(text, TOOL_TAGS, begin, end)
    if stray != -1:
        raise ParseError(f"a PLaMo tool tag outside a {REQUESTS_OPEN} block", line_col(text, stray), fmt)
    if end == len(text):
        tail = text.rfind("<|", begin, end)
        if tail != -1 and len(text) - tail >= len(MARKERS[0]) and REQUESTS_OPEN.startswith(text[tail:]):
            raise ParseError(f"the output ends inside {REQUESTS_OPEN} (cut short?)", line_col(text, tail), fmt,
                             cut_short=True)


def _expect(text: str, pos: int, end: int, tags: Sequence[str], what: str, opened: int, fmt: str) -> str:
    """The tag of ``tags`` at ``pos`` (spaces before it skipped by the caller), or the error: cut short when the
    answer ends there or inside the tag, else what was expected there."""
    for tag in tags:
        if text.startswith(tag, pos, end):
            return tag
    rest = text[pos:end]
    if end == len(text) and (not rest or any(t.startswith(rest) for t in TOOL_TAGS)):
        raise ParseError(f"a {REQUESTS_OPEN} block is not closed by {REQUESTS_CLOSE} (output cut short?)",
                         line_col(text, opened), fmt, cut_short=True)
    raise ParseError(f"expected {what}", line_col(text, pos), fmt)


def _block(text: str, at: int, end: int, limits: Limits, fmt: str) -> tuple[list[Step], int]:
    """The calls of the block whose open tag is at ``at``, and where reading goes on."""
    pos = at + len(REQUESTS_OPEN)
    steps: list[Step] = []
    while True:
        pos = skip_space(text, pos, end)
        tag = _expect(text, pos, end, (REQUEST_OPEN, REQUESTS_CLOSE), f"{REQUEST_OPEN} or {REQUESTS_CLOSE}", at, fmt)
        if tag == REQUESTS_CLOSE:
            return steps, pos + len(REQUESTS_CLOSE)
        step, pos = _request(text, pos + len(REQUEST_OPEN), end, at, limits, fmt)
        steps.append(step)


def _request(text: str, pos: int, end: int, opened: int, limits: Limits, fmt: str) -> tuple[Step, int]:
    """One request after its open tag: the name, the arguments, and the tags that close them."""
    pos = skip_space(text, pos, end)
    pos += len(_expect(text, pos, end, (NAME_OPEN,), NAME_OPEN, opened, fmt))
    close = text.find("<|", pos, end)
    if close == -1:
        _expect(text, end, end, (), NAME_CLOSE, opened, fmt)  # the answer ends inside the name: cut short
    _expect(text, close, end, (NAME_CLOSE,), f"{NAME_CLOSE} after the tool name", opened, fmt)
    name = text[pos:close].strip()
    if not name or any(c.isspace() for c in name):
        raise ParseError(f"a tool name must be one word, got {name!r}", line_col(text, pos), fmt)
    pos = skip_space(text, close + len(NAME_CLOSE), end)
    pos += len(_expect(text, pos, end, (ARGS_OPEN,), ARGS_OPEN, opened, fmt))
    pos = _constraint(text, skip_space(text, pos, end), end, opened, fmt)
    if not text.startswith("{", pos, end):
        _expect(text, pos, end, (), "a JSON object of arguments", opened, fmt)  # cut short there, or an error
    value, after = json_text.decode_at(text, pos, limits, fmt)
    if after > end:
        raise ParseError(f"the turn ends ({EOT}) inside the arguments' JSON", line_col(text, end), fmt)
    step = object_call(name, value, text, pos, limits, fmt)
    for tag in (ARGS_CLOSE, REQUEST_CLOSE):
        after = skip_space(text, after, end)
        after += len(_expect(text, after, end, (tag,), f"{tag} after the arguments", opened, fmt))
    return step, after


def _constraint(text: str, pos: int, end: int, opened: int, fmt: str) -> int:
    """Past ``<|plamo:constrain|>json<|plamo:msg|>`` (or ``<|plamo:msg|>`` alone) at ``pos``, which the model
    writes before the JSON; SGLang reads the JSON without them too, and so does ek."""
    if text.startswith(CONSTRAIN, pos, end):
        pos += len(CONSTRAIN)
        if not text.startswith("json", pos, end):
            if end == len(text) and "json".startswith(text[pos:end]):
                _expect(text, end, end, (), "json", opened, fmt)
            raise ParseError(f"expected json{MSG} after {CONSTRAIN} (the arguments are JSON)", line_col(text, pos),
                             fmt)
        pos += len("json")
        pos += len(_expect(text, pos, end, (MSG,), f"{MSG} after {CONSTRAIN}json", opened, fmt))
    elif text.startswith(MSG, pos, end):
        pos += len(MSG)
    return skip_space(text, pos, end)


# --------------------------------------------------------------------------- render


def render_plamo3(calls: Sequence[Step], dumps: Callable[[Any], str]) -> str:
    """Calls as PLaMo 3 writes them: one block of requests, each with its constraint marker, then the end of the
    turn (no calls: no block). ``dumps`` writes JSON with ``<`` escaped, so no value can hold a tag.

    >>> from ek.parsing.render import _json
    >>> render_plamo3([Step("f", {"x": 1})], _json).count("<|plamo:begin_tool_request:plamo|>")
    1
    """
    if not calls:
        return ""
    parts = []
    for call in calls:
        if not call.name or any(c.isspace() for c in call.name) or "<|" in call.name:
            raise ValueError(f"tool name {call.name!r} cannot be written between PLaMo 3's name tags")
        parts.append(f"{REQUEST_OPEN}{NAME_OPEN}{call.name}{NAME_CLOSE}{ARGS_OPEN}{CONSTRAIN}json{MSG}"
                     f"{dumps(dict(call.args))}{ARGS_CLOSE}{REQUEST_CLOSE}")
    return REQUESTS_OPEN + "".join(parts) + REQUESTS_CLOSE + EOT
