"""OpenAI gpt-oss's Harmony format: messages with headers, a call is a message addressed ``to=`` a tool.

A completion is a run of messages, ``<|start|>ROLE HEADER<|message|>CONTENT`` closed by ``<|end|>``,
``<|call|>`` or ``<|return|>``. The header names a channel (``<|channel|>analysis``, ``commentary``,
``final``), may name a recipient (``to=functions.get_weather``, before or after the channel) and a content
type (``<|constrain|>json``, or a bare ``json``/``code``). An assistant message with a recipient is a tool
call; everything else (reasoning, preambles, the final answer, a tool's own reply) is context, never a call.

Servers return the text of the completion only: it starts after the prompt's ``<|start|>assistant`` (at
``<|channel|>``, or at `` to=...``), and a stop token (``<|call|>``, ``<|return|>``) at the end may be missing.
Tokens are found with ``str.find`` and each region of the text is scanned once; a call's JSON is decoded in
place, so a token written inside a JSON string never ends a call early.
"""

from __future__ import annotations

from typing import Any

import attrs

from ek.calls import Step
from ek.parsing import json_text
from ek.parsing.errors import ParseError, line_col
from ek.parsing.limits import Limits, check_text
from ek.parsing.prose import object_call
from ek.parsing.registry import TypeHint
from ek.parsing.scan import cut_inside, skip_space

START, MESSAGE, CHANNEL, CONSTRAIN = "<|start|>", "<|message|>", "<|channel|>", "<|constrain|>"
END, CALL, RETURN = "<|end|>", "<|call|>", "<|return|>"
ENDS = (END, CALL, RETURN)
#: What ``auto`` takes for Harmony: tokens no other format writes (``<|end|>`` is Phi's too, so not it).
MARKERS = (START, CHANNEL, MESSAGE, CONSTRAIN, CALL, RETURN)
_TOKENS = (START, MESSAGE, CHANNEL, CONSTRAIN, *ENDS)
#: The prefix of the recipients of the developer's own tools; built-in tools (``browser.search``, ``python``,
#: ``container.exec``) have none, and keep their names as written.
FUNCTIONS = "functions."
#: The built-in tool whose message is code, not JSON: its call is read as ``python(code=...)``.
PYTHON = "python"


@attrs.frozen
class Header:
    """A message's header: who writes it, to whom, on which channel, in which content type."""

    role: str
    recipient: str | None = None
    channel: str | None = None
    content_type: str | None = None


def read_harmony(text: str, limits: Limits, types: TypeHint | None = None, fmt: str = "harmony") -> list[Step]:
    """The tool calls of a gpt-oss completion in Harmony format, in order.

    Text without any Harmony token is no calls (an answer whose tokens were stripped). Text before the first
    message (SGLang keeps it as content) and text after the last one that holds no token are skipped.

    >>> read_harmony('<|channel|>analysis<|message|>Need the weather.<|end|><|start|>assistant<|channel|>'
    ...              'commentary to=functions.get_weather <|constrain|>json<|message|>{"city": "Tokyo"}<|call|>',
    ...              Limits())
    [Step(name='get_weather', args={'city': 'Tokyo'})]
    """
    check_text(text, limits, fmt)
    first = _next_token(text, 0, len(text))
    if first == -1:
        return []
    start = _first_header(text, first, fmt)
    if start is None:
        return []
    pos, role = start
    ends = _Ends(text)
    steps: list[Step] = []
    while True:
        header_end = text.find(MESSAGE, pos)
        stray = _next_token(text, pos, len(text) if header_end == -1 else header_end, (START, *ENDS))
        if header_end == -1 or stray != -1:
            raise _no_message(text, pos, stray, fmt)
        header = _header(text, pos, header_end, role, fmt)
        body = header_end + len(MESSAGE)
        if header.role == "assistant" and header.recipient is not None:
            step, end = _call(text, body, header, ends, limits, fmt)
            steps.append(step)
        else:
            end = _content_end(text, body, ends, header, fmt)
        pos = _next_message(text, end, fmt)
        if pos == -1:
            return steps
        role = None


def _next_token(text: str, begin: int, end: int, tokens: tuple[str, ...] = _TOKENS) -> int:
    """Where the first of ``tokens`` starts in ``text[begin:end]``, or -1 (one bounded ``find`` per token)."""
    found = [p for p in (text.find(t, begin, end) for t in tokens) if p != -1]
    return min(found) if found else -1


def _first_header(text: str, first: int, fmt: str) -> tuple[int, str | None] | None:
    """Where the first message's header starts, and its role when the header leaves it out; None when no
    message follows.

    The completion usually starts inside the header the prompt opened (``<|start|>assistant``): at
    ``<|channel|>``, or at ``assistant``/`` to=NAME`` before it; its role is then the assistant's. Text
    before the first token that is not such a header start is prose (skipped, as SGLang keeps it as content);
    a first token that ends a message closes one whose header is missing (harmony's lenient parser reads
    that text as content), and the next message must start with ``<|start|>``.
    """
    if text.startswith(START, first):
        return first + len(START), None
    if text.startswith(ENDS, first):
        after = _next_message(text, first, fmt)
        return None if after == -1 else (after, None)
    lead = text[:first].split()
    if lead and lead[0] == "assistant" and len(lead) <= 2 and all(w.startswith("to=") for w in lead[1:]):
        return 0, None
    if len(lead) == 1 and lead[0].startswith("to="):
        return 0, "assistant"
    return first, "assistant"


def _no_message(text: str, pos: int, stray: int, fmt: str) -> ParseError:
    """The error for a header that ``<|message|>`` does not close: cut short at the end, else what came."""
    if stray == -1:
        return ParseError(f"a message header without {MESSAGE} (output cut short?)", line_col(text, pos), fmt,
                          cut_short=True)
    token = text[stray: text.find("|>", stray) + 2]
    return ParseError(f"expected {MESSAGE} to end the message header, found {token}", line_col(text, stray), fmt)


def _header(text: str, begin: int, end: int, role: str | None, fmt: str) -> Header:
    """Read ``text[begin:end]``: ``ROLE [to=R]`` then ``<|channel|>CHANNEL [to=R] [TYPE | <|constrain|>TYPE]``.

    Harmony puts the recipient before or after the channel and writes the content type with or without
    ``<|constrain|>`` (and with or without a space before it); any other token or word is an error.
    """
    channel_at = text.find(CHANNEL, begin, end)
    constrain_at = text.find(CONSTRAIN, begin, end)
    odd = text.find("<|", begin, end)
    while odd != -1 and odd in (channel_at, constrain_at):
        odd = text.find("<|", odd + 2, end)
    if odd != -1:
        raise ParseError("an unknown or repeated token in a message header", line_col(text, odd), fmt)
    if channel_at != -1 and constrain_at != -1 and constrain_at < channel_at:
        raise ParseError(f"{CONSTRAIN} before {CHANNEL} in a message header", line_col(text, constrain_at), fmt)
    fields: dict[str, str | None] = {"role": role, "recipient": None, "channel": None, "content_type": None}
    cuts = [p for p in (channel_at, constrain_at) if p != -1]
    _words(text, begin, cuts[0] if cuts else end, ("role",), fields, fmt)
    if channel_at != -1:
        _words(text, channel_at + len(CHANNEL), constrain_at if constrain_at != -1 else end,
               ("channel", "content_type"), fields, fmt)
    if constrain_at != -1:
        if fields["content_type"] is not None:
            raise ParseError("a content type given twice in a message header", line_col(text, constrain_at), fmt)
        _words(text, constrain_at + len(CONSTRAIN), end, ("content_type",), fields, fmt)
    if not fields["role"]:
        raise ParseError("a message header without a role (expected e.g. <|start|>assistant)",
                         line_col(text, begin), fmt)
    return Header(**fields)  # type: ignore[arg-type]


def _words(text: str, begin: int, end: int, slots: tuple[str, ...], fields: dict[str, str | None],
           fmt: str) -> None:
    """Put the words of ``text[begin:end]`` into ``fields``: ``to=R`` is the recipient, the others fill
    ``slots`` in order; a word with no slot left is an error at its position."""
    free = [s for s in slots if fields[s] is None]
    pos = begin
    for word in text[begin:end].split():
        pos = text.find(word, pos, end)
        if word.startswith("to="):
            if fields["recipient"] is not None:
                raise ParseError("a second recipient in a message header", line_col(text, pos), fmt)
            if len(word) == 3:
                raise ParseError("an empty recipient (to=)", line_col(text, pos), fmt)
            fields["recipient"] = word[3:]
        elif free:
            fields[free.pop(0)] = word
        else:
            raise ParseError(f"unexpected {word!r} in a message header", line_col(text, pos), fmt)
        pos += len(word)


def _call(text: str, body: int, header: Header, ends: _Ends, limits: Limits, fmt: str) -> tuple[Step, int]:
    """The call in an assistant message to ``header.recipient`` whose content starts at ``body``; and where
    its content ends (at its end token, or at the end of the output: servers drop the stop token)."""
    recipient = header.recipient or ""
    name = recipient.removeprefix(FUNCTIONS)
    if not name:
        raise ParseError(f"the tool name is empty (to={recipient})", line_col(text, body), fmt)
    if recipient == PYTHON:
        end = ends.after(body)
        end = len(text) if end == -1 else end
        code = text[body:end]
        if _next_token(text, body, end, (START, MESSAGE, CHANNEL, CONSTRAIN)) != -1:
            raise _unclosed(text, body, end, fmt)
        return Step(name, {"code": code}), end
    pos = skip_space(text, body)
    if pos >= len(text) or text.startswith(ENDS, pos):
        return Step(name, {}), pos  # no arguments at all: {} (vLLM passes "", SGLang {})
    if text[pos] != "{":
        raise ParseError(f"expected a JSON object of arguments for {recipient}", line_col(text, pos), fmt)
    value, end = json_text.decode_at(text, pos, limits, fmt)
    step = object_call(name, value, text, pos, limits, fmt)
    after = skip_space(text, end)
    if after < len(text) and not text.startswith(ENDS, after):
        cut = cut_inside(text, after, ENDS)
        what = " (output cut short?)" if cut else ""
        raise ParseError(f"expected {CALL} after the arguments{what}", line_col(text, after), fmt, cut_short=cut)
    return step, after


@attrs.define
class _Ends:
    """The next end token at or after a position, each token's next place remembered, so that reading every
    message's content scans the text once per token instead of once per message."""

    text: str
    _next: dict[str, int] = attrs.field(factory=dict)

    def after(self, pos: int) -> int:
        best = -1
        for token in ENDS:
            at = self._next.get(token, -2)
            if at != -1 and at < pos:
                at = self.text.find(token, pos)
                self._next[token] = at
            if at != -1 and (best == -1 or at < best):
                best = at
        return best


def _content_end(text: str, body: int, ends: _Ends, header: Header, fmt: str) -> int:
    """Where a message that is not a call ends: at its end token. A final answer may run to the end (the
    server dropped ``<|return|>``); another message that does was cut short. A message that runs into the
    next header lost its end token, and is an error rather than a message swallowing a call."""
    end = ends.after(body)
    if end == -1:
        if header.channel != "final":
            what = f"the {header.channel} message" if header.channel else "a message"
            raise ParseError(f"{what} is not closed by {END} (output cut short?)", line_col(text, body), fmt,
                             cut_short=True)
        end = len(text)
    if _next_token(text, body, end, (START, MESSAGE, CHANNEL, CONSTRAIN)) != -1:
        raise _unclosed(text, body, end, fmt)
    return end


def _unclosed(text: str, body: int, end: int, fmt: str) -> ParseError:
    inner = _next_token(text, body, end, (START, MESSAGE, CHANNEL, CONSTRAIN))
    return ParseError(f"a message's content runs into a new header: expected {END} before it",
                      line_col(text, inner), fmt)


def _next_message(text: str, end: int, fmt: str) -> int:
    """Past the end token at ``end`` (if any): where the next message's header starts, or -1 at the end.

    Only ``<|start|>`` may follow a message; text after the last one holding no Harmony token is prose
    (skipped, as SGLang keeps it as content), and one holding a token is an error.
    """
    for token in ENDS:
        if text.startswith(token, end):
            end += len(token)
            break
    pos = skip_space(text, end)
    if pos >= len(text):
        return -1
    if text.startswith(START, pos):
        return pos + len(START)
    if _next_token(text, pos, len(text)) == -1:
        tail = text.rfind("<|", pos)
        if tail != -1 and cut_inside(text, tail, _TOKENS):
            raise ParseError("the output ends inside a token (cut short?)", line_col(text, tail), fmt,
                             cut_short=True)
        return -1
    raise ParseError(f"unexpected text after a message: expected {START} or the end of the output",
                     line_col(text, pos), fmt)


def render_harmony(calls: list[Step], dumps: Any) -> str:
    """Calls as gpt-oss writes them: one ``commentary`` message to ``functions.NAME`` per call, JSON
    arguments (``dumps`` writes them with ``<`` escaped, so no value can hold a token)."""
    out = []
    for call in calls:
        if not call.name or any(c.isspace() for c in call.name) or "<|" in call.name:
            raise ValueError(f"tool name {call.name!r} cannot be written as a Harmony recipient")
        out.append(f"{START}assistant{CHANNEL}commentary to={FUNCTIONS}{call.name} {CONSTRAIN}json{MESSAGE}"
                   f"{dumps(dict(call.args))}{CALL}")
    return "".join(out)
