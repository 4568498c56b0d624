"""Google Gemma's native tool calls: Gemma 4's ``<|tool_call>`` and FunctionGemma's ``<start_function_call>``.

Both write a call as ``call:NAME{ARGS}`` between two tokens, the arguments in one small JSON-like language
whose strings are delimited by a token instead of quotes (Gemma 4's chat template; vLLM's ``gemma4`` and
``functiongemma`` parsers, SGLang's ``gemma4`` detector, Ollama's parsers and renderers)::

    <|tool_call>call:get_weather{city:<|"|>Paris<|"|>,days:3}<tool_call|>
    <start_function_call>call:get_weather{city:<escape>Paris<escape>,days:3}<end_function_call>

Keys are bare (``city``) or delimited like strings (``<|"|>3<|"|>``, what the template writes for the keys of
nested declarations). A value is a delimited string (its text as it is: the format has no escapes), a number,
``true``/``false``, ``null`` (or ``None``, what the Jinja template prints for a null), an object ``{k:v,...}``
or a list ``[v,...]``; ``,`` separates, whitespace between tokens is skipped. Several calls follow one another;
prose around them is skipped, and so is Gemma 4's thinking, ``<|channel>thought\\n...<channel|>``. Gemma 4 drops
its tokens at times: a call closed by ``<turn|>``, and ``call:NAME{...}`` with no ``<|tool_call>`` (after a thought,
in prose), are read as vLLM reads them; a string token left in the prose outside any call is an error.

The reader is a recursive descent over an explicit stack (no recursion, so any ``max_depth`` is safe), tokens
found with ``str.find`` and bare words matched by a possessive, linear regex: linear in the text.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from typing import Any

import attrs

from ek.calls import Step, step_of_plain
from ek.limits import MAX_INT_DIGITS
from ek.parsing import chat_text
from ek.parsing.errors import ParseError, line_col
from ek.parsing.limits import Limits, check_text
from ek.parsing.registry import TypeHint
from ek.parsing.scan import skip_space
from ek.parsing.values import int_too_long, long_int_reason


@attrs.frozen
class Tokens:
    """One Gemma family's tokens: a call's opening and closing ones, a string's delimiter, and the tokens
    around a thought (none for FunctionGemma)."""

    call_open: str
    call_close: str
    quote: str
    thought_open: str | None = None
    thought_close: str | None = None
    #: The end-of-turn token, which may close a call whose closing token was left out (Gemma 4 writes
    #: ``...}<turn|>`` at times; vLLM's test_turn_end_closure_instead_of_tool_call_end).
    turn_end: str | None = None
    #: Whether a call written without its opening token (``call:NAME{...}`` in the prose, or glued to the end
    #: of a thought) is read, as vLLM's Gemma 4 parsers read it (test_gemma4_regex_and_bare_calls.py).
    bare_calls: bool = False

    @property
    def markers(self) -> tuple[str, ...]:
        """What ``auto`` takes for this family: its call tokens and its thought tokens (no other format writes
        any of them), and its string delimiter when a call may be written without its opening token."""
        thought = (self.thought_open, self.thought_close) if self.thought_open and self.thought_close else ()
        return (self.call_open, self.call_close, *thought, *((self.quote,) if self.bare_calls else ()))


GEMMA4 = Tokens("<|tool_call>", "<tool_call|>", '<|"|>', "<|channel>", "<channel|>", "<turn|>", bare_calls=True)
FUNCTIONGEMMA = Tokens("<start_function_call>", "<end_function_call>", "<escape>")
TOKENS = {"gemma4": GEMMA4, "functiongemma": FUNCTIONGEMMA}
CALL = "call:"
#: Gemma 4's token before a tool's response (the model stops on it; a transcript holds the response after it).
_RESPONSE_OPEN = "<|tool_response>"

#: A tool name: everything up to ``{``, but never whitespace, brackets, quotes or a token's ``<``.
_NAME = re.compile(r"""[^\s{}\[\]()<>"',]*+""")
#: A bare key or a bare value (number, ``true``...): up to a separator, a bracket, a colon, whitespace or ``<``.
_BARE = re.compile(r"[^\s,:{}\[\]<>]*+")
#: A number as JSON writes one (Python's ``str`` of an int or a float, ``1e-05`` too): no backtracking.
_NUMBER = re.compile(r"-?+(?:0|[1-9][0-9]*+)(?:\.[0-9]++)?+(?:[eE][+-]?+[0-9]++)?+")
_WORDS: dict[str, Any] = {"true": True, "false": False, "null": None, "None": None}


def read_gemma4(text: str, limits: Limits, types: TypeHint | None = None, fmt: str = "gemma4") -> list[Step]:
    """Gemma 4: every ``<|tool_call>call:NAME{...}<tool_call|>`` in the text, thoughts and prose skipped.

    >>> read_gemma4('<|channel>thought\\nParis first.<channel|><|tool_call>call:get_weather{city:<|"|>Paris<|"|>,'
    ...             'days:3}<tool_call|>', Limits())
    [Step(name='get_weather', args={'city': 'Paris', 'days': 3})]
    """
    return _Reader(text, limits, GEMMA4, fmt).calls()


def read_functiongemma(text: str, limits: Limits, types: TypeHint | None = None,
                       fmt: str = "functiongemma") -> list[Step]:
    """FunctionGemma: every ``<start_function_call>call:NAME{...}<end_function_call>`` in the text.

    >>> read_functiongemma('<start_function_call>call:get_weather{city:<escape>Paris<escape>}<end_function_call>'
    ...                    '<start_function_response>', Limits())
    [Step(name='get_weather', args={'city': 'Paris'})]
    """
    return _Reader(text, limits, FUNCTIONGEMMA, fmt).calls()


def bare_call(text: str, begin: int, end: int) -> int:
    """Where the first ``call:NAME{`` in ``text[begin:end]`` starts, written without Gemma 4's opening token (at
    the start of the text or of a word: after whitespace or a token's ``>``), or -1; a ``call:NAME`` that runs to
    the end of the text counts (the output was cut short there). Each ``call:`` is looked at once, and a name
    ends before the next place one could start: linear.

    >>> bare_call("Sure.<channel|>call:f{x:1}", 0, 26), bare_call("recall:f{x:1}", 0, 13), bare_call("a call:f", 0, 8)
    (15, -1, 2)
    """
    at = text.find(CALL, begin, end)
    while at != -1:
        if at == 0 or text[at - 1].isspace() or text[at - 1] == ">":
            name_end = _NAME.match(text, at + len(CALL)).end()
            if text.startswith("{", name_end) or name_end == len(text):
                return at
        at = text.find(CALL, at + 1, end)
    return -1


class _Reader:
    """One completion's reading: ``pos`` moves forward only, so the text is read once."""

    def __init__(self, text: str, limits: Limits, tokens: Tokens, fmt: str) -> None:
        if len(text) > limits.max_size:
            check_text(text, limits, fmt)  # the size message; brackets in strings are not nesting here
        self.text, self.limits, self.tokens, self.fmt = text, limits, tokens, fmt
        self._found: dict[str, int] = {}  # each token's next occurrence found by _next, and where it was asked
        self._asked: dict[str, int] = {}

    # ----------------------------------------------------------------- errors

    def _error(self, reason: str, pos: int, *, cut: bool = False) -> ParseError:
        return ParseError(reason + (" (output cut short?)" if cut else ""), line_col(self.text, pos), self.fmt,
                          cut_short=cut)

    def _ends_in(self, pos: int, *expected: str) -> bool:
        """Whether the text ends at ``pos`` or inside one of ``expected`` started there: cut short."""
        left = len(self.text) - pos  # the rest is sliced only when shorter than a token: no copy of the text
        return left <= 0 or any(left < len(e) and e.startswith(self.text[pos:]) for e in expected)

    def _expected(self, what: str, pos: int, *tokens: str) -> ParseError:
        found = self.text[pos:pos + 12]
        cut = self._ends_in(pos, *tokens)
        return self._error(f"expected {what}" + ("" if cut else f", found {found!r}"), pos, cut=cut)

    # ----------------------------------------------------------------- the completion

    def calls(self) -> list[Step]:
        pos = chat_text.after_think(self.text, self.fmt)
        pos = self._after_open_thought(pos)
        steps: list[Step] = []
        while True:
            opening = self._prose(pos)
            if opening == -1:
                return steps
            step, pos = self._call(opening)
            steps.append(step)

    def _bare_call(self, begin: int, end: int) -> int:
        """Where the first call written without its opening token starts in the prose ``text[begin:end]``, or
        -1 (:func:`bare_call`)."""
        return bare_call(self.text, begin, end) if self.tokens.bare_calls else -1

    def _after_open_thought(self, pos: int) -> int:
        """A thought whose opening token was in the prompt: the answer starts after its closing token."""
        tok = self.tokens
        if tok.thought_close is None or tok.thought_open is None:
            return pos
        close = self.text.find(tok.thought_close, pos)
        if close != -1 and self.text.find(tok.thought_open, pos, close) == -1 \
                and self.text.find(tok.call_open, pos, close) == -1:
            return close + len(tok.thought_close)
        return pos

    def _prose(self, pos: int) -> int:
        """Skip prose and thoughts from ``pos``: where the next call opens (its opening token, or a bare
        ``call:`` for Gemma 4), or -1 at the end of the text. A stray closing token, a string token outside any
        call, or a thought left open, is an error. Every token is looked for through :meth:`_next`, so the text
        is searched once for each, however many calls and thoughts there are."""
        text, tok = self.text, self.tokens
        while True:
            opening = self._next(tok.call_open, pos)
            limit = len(text) if opening == -1 else opening
            thought = -1 if tok.thought_open is None else self._next(tok.thought_open, pos)
            prose_end = limit if thought == -1 or thought > limit else thought
            bare = self._bare_call(pos, prose_end)
            prose_stop = prose_end if bare == -1 else bare  # the prose ends at a bare call's start
            stray = self._next(tok.call_close, pos)
            if stray != -1 and stray < prose_stop:
                raise self._error(f"{tok.call_close} without an opening {tok.call_open}", stray)
            quote = self._next(tok.quote, pos) if tok.bare_calls else -1
            if quote != -1 and quote < prose_stop and not 0 <= self._next(_RESPONSE_OPEN, pos) < quote:
                # Gemma 4's string token in prose (a tool's response after <|tool_response> quotes freely): a
                # call ek cannot make out (<call>f{...}, which vLLM reads), never prose
                raise self._error(f"a {tok.quote} string outside any call (expected {tok.call_open}{CALL}NAME{{...}})",
                                  quote)
            if bare != -1:
                return bare
            if prose_end == limit or tok.thought_open is None or tok.thought_close is None:
                return opening
            close = self._next(tok.thought_close, thought + len(tok.thought_open))
            if close == -1:
                raise self._error(f"a thought ({tok.thought_open}) is not closed by {tok.thought_close}", thought,
                                  cut=True)
            pos = close + len(tok.thought_close)

    def _next(self, token: str, pos: int) -> int:
        """Where ``token`` next occurs at or after ``pos`` (-1: nowhere), remembering the answer: reading only
        moves forward, so each token's occurrences are found once (prose between many bare calls, or many
        thoughts, is not searched again for a token far ahead)."""
        found = self._found.get(token)
        if found is None or (found != -1 and found < pos) or (found == -1 and self._asked[token] > pos):
            found = self.text.find(token, pos)
            self._found[token], self._asked[token] = found, pos
        return found

    def _skip(self, pos: int) -> int:
        return skip_space(self.text, pos)

    def _call(self, opening: int) -> tuple[Step, int]:
        """The call whose opening token is at ``opening``: its step and where reading goes on."""
        text, tok = self.text, self.tokens
        bare = text.startswith(CALL, opening)  # a call whose opening token was left out (_bare_call)
        pos = opening if bare else self._skip(opening + len(tok.call_open))
        if not bare and tok.bare_calls and text.startswith(":" + CALL, pos):
            pos += 1  # <|tool_call>:call:NAME{...}: a stray colon (vLLM's test_colon_prefixed_tool_call)
        if not text.startswith(CALL, pos):
            raise self._expected(f"{CALL}NAME{{...}} after {tok.call_open}", pos, CALL)
        at = pos + len(CALL)
        pos = _NAME.match(text, at).end()
        name = text[at:pos]
        if pos >= len(text):
            raise self._error("the output ends in the tool name, before its {", at, cut=True)
        if not name:
            raise self._error(f"expected a tool name after {CALL}, found {text[at:at + 12]!r}", at)
        pos = self._skip(pos)
        if pos >= len(text):
            raise self._error(f"the output ends after the tool name {name!r}, before its {{", pos, cut=True)
        if text[pos] != "{":
            raise self._error(f"expected {{ after the tool name {name!r}, found {text[pos]!r}", pos)
        args, pos = self._value(pos)
        after = self._skip(pos)
        if text.startswith(tok.call_close, after):
            end = after + len(tok.call_close)
            while text.startswith(tok.call_close, self._skip(end)):  # Gemma 4 repeats it at times: Ollama drops
                end = self._skip(end) + len(tok.call_close)  # the copies, which close nothing
            return step_of_plain(name, args), end
        if tok.turn_end is not None and text.startswith(tok.turn_end, after):
            return step_of_plain(name, args), after + len(tok.turn_end)  # the turn ended the call
        if bare or after >= len(text) or text.startswith(tok.call_open, after):
            # whole arguments, the closing token left out (as Ollama); a bare call has none to expect, and prose
            # may follow it (as vLLM reads it)
            return step_of_plain(name, args), after
        raise self._expected(f"{tok.call_close} after the arguments of {name!r}", after, tok.call_close)

    # ----------------------------------------------------------------- values

    def _value(self, pos: int) -> tuple[Any, int]:
        """The value starting at ``pos`` (whitespace skipped first): recursive descent with an explicit stack
        of the objects and lists still open, each frame ``[container, key, where it opened]``."""
        text, limit = self.text, self.limits.max_depth
        stack: list[list[Any]] = []
        while True:
            pos = self._skip(pos)
            if pos >= len(text):
                raise self._error("the output ends where a value was expected", pos, cut=True)
            char = text[pos]
            if char == "{" or char == "[":
                if len(stack) >= limit:
                    raise self._error(f"nesting deeper than {limit} brackets (limit max_depth={limit})", pos)
                inner = self._skip(pos + 1)
                closer = "}" if char == "{" else "]"
                if inner < len(text) and text[inner] == closer:
                    value: Any = {} if char == "{" else []
                    pos = inner + 1
                else:
                    frame: list[Any] = [{} if char == "{" else [], None, pos]
                    stack.append(frame)
                    pos = self._key(frame, inner) if char == "{" else inner
                    continue
            else:
                value, pos = self._scalar(pos)
            while True:  # the value is whole: put it in the container it closes, or return it
                if not stack:
                    return value, pos
                frame = stack[-1]
                container = frame[0]
                if type(container) is dict:
                    container[frame[1]] = value
                else:
                    container.append(value)
                pos = self._skip(pos)
                closer = "}" if type(container) is dict else "]"
                if pos < len(text) and text[pos] == ",":
                    pos = self._key(frame, self._skip(pos + 1)) if closer == "}" else pos + 1
                    break
                if pos < len(text) and text[pos] == closer:
                    stack.pop()
                    value, pos = container, pos + 1
                    continue
                if pos >= len(text):
                    raise self._error(f"the output ends inside the {'object' if closer == '}' else 'list'} opened "
                                      f"at line {line_col(text, frame[2])[0]}, column {line_col(text, frame[2])[1]}",
                                      pos, cut=True)
                raise self._error(f"expected ',' or {closer!r}, found {text[pos:pos + 12]!r}", pos)

    def _key(self, frame: list[Any], pos: int) -> int:
        """The key at ``pos`` (bare or delimited) and its ``:``; sets it as the frame's pending key and returns
        where its value starts. A key given twice is an error."""
        text, quote = self.text, self.tokens.quote
        if text.startswith(quote, pos):
            key, end = self._string(pos)
        else:
            end = _BARE.match(text, pos).end()
            key = text[pos:end]
            if end >= len(text) or self._ends_in(pos, quote):
                raise self._error("the output ends in a key", pos, cut=True)
            if not key:
                raise self._error(f"expected a key (bare, or {quote}...{quote}), found {text[pos:pos + 12]!r}", pos)
        colon = self._skip(end)
        if colon >= len(text):
            raise self._error(f"the output ends after the key {key!r}, before its ':'", colon, cut=True)
        if text[colon] != ":":
            raise self._error(f"expected ':' after the key {key!r}, found {text[colon:colon + 12]!r}", colon)
        if key in frame[0]:
            raise self._error(f"key {key!r} given twice", pos)
        frame[1] = key
        return colon + 1

    def _string(self, pos: int) -> tuple[str, int]:
        """The delimited string at ``pos``: its text (as it is) and where it ends."""
        text, tok = self.text, self.tokens
        start = pos + len(tok.quote)
        close = text.find(tok.quote, start)
        if close == -1:
            cut = text.find(tok.call_close, start) == -1  # no closing token after it either: stopped inside
            raise self._error(f"a string opened with {tok.quote} is not closed by {tok.quote}", pos, cut=cut)
        return text[start:close], close + len(tok.quote)

    def _scalar(self, pos: int) -> tuple[Any, int]:
        """A string, a number, ``true``/``false`` or ``null``/``None`` at ``pos``."""
        text, quote = self.text, self.tokens.quote
        if text.startswith(quote, pos):
            return self._string(pos)
        end = _BARE.match(text, pos).end()
        word = text[pos:end]
        if end >= len(text) or self._ends_in(pos, quote):
            raise self._error("the output ends inside a value", pos, cut=True)
        if word in _WORDS:
            return _WORDS[word], end
        number = _NUMBER.fullmatch(word)
        if number is None:
            found = word or text[pos:pos + 12]
            raise self._error(f"expected a value ({quote}string{quote}, a number, true, false, null, {{...}} or "
                              f"[...]), found {found!r}", pos)
        if "." in word or "e" in word or "E" in word:
            value = float(word)
            if not math.isfinite(value):
                raise self._error(f"the number {word[:20]!r} is too large for a float", pos)
            return value, end
        if len(word) - word.startswith("-") > MAX_INT_DIGITS:
            raise self._error(long_int_reason(), pos)
        return int(word), end


# --------------------------------------------------------------------------- rendering


def render_gemma(calls: list[Step], tokens: Tokens) -> str:
    """Calls as the Gemma chat templates write them: ``call:NAME{...}`` between the family's tokens, keys in
    Jinja's ``dictsort`` order (case-insensitive), strings delimited, ``true``/``false``, numbers as Python's
    ``str`` writes them and a null as ``None`` (the Jinja template prints Python's ``None``). A key that is not a
    bare word is written delimited, as the template writes the keys of nested declarations. A string holding
    the delimiter has no form in the format (it has no escapes), and is refused.

    >>> render_gemma([Step("f", {"city": "Paris", "n": [1, True]})], GEMMA4)
    '<|tool_call>call:f{city:<|"|>Paris<|"|>,n:[1,true]}<tool_call|>'
    """
    parts = []
    for index, call in enumerate(calls):
        if not call.name or _NAME.fullmatch(call.name) is None:
            raise ValueError(f"tool name {call.name!r} cannot be written in a Gemma call")
        try:
            body = _render_object(call.args, tokens)
        except _Unwritable as exc:
            raise ValueError(f"call {index} ({call.name!r}): {exc}") from None
        parts.append(f"{tokens.call_open}{CALL}{call.name}{body}{tokens.call_close}")
    return "".join(parts)


class _Unwritable(ValueError):
    """A value the Gemma format cannot hold."""


def _render_object(mapping: Any, tokens: Tokens) -> str:
    items = sorted(mapping.items(), key=lambda item: item[0].lower())
    return "{" + ",".join(f"{_render_key(k, tokens)}:{_render_value(v, tokens)}" for k, v in items) + "}"


def _render_key(key: str, tokens: Tokens) -> str:
    if key and _BARE.fullmatch(key) is not None:
        return key
    return _render_string(key, tokens)


def _render_string(value: str, tokens: Tokens) -> str:
    if tokens.quote in value:
        raise _Unwritable(f"the string {value[:40]!r} holds {tokens.quote}, which no Gemma string can hold")
    return f"{tokens.quote}{value}{tokens.quote}"


def _render_value(value: Any, tokens: Tokens) -> str:
    if isinstance(value, str):
        return _render_string(value, tokens)
    if value is True or value is False:
        return "true" if value else "false"
    if value is None:
        return "None"
    if isinstance(value, int):
        if int_too_long(value):
            raise _Unwritable(long_int_reason())
        return str(value)
    if isinstance(value, float):
        if not math.isfinite(value):
            raise _Unwritable(f"{value!r} has no form in the Gemma format")
        return repr(value)
    if isinstance(value, Mapping):
        return _render_object(value, tokens)
    if isinstance(value, (list, tuple)):
        return "[" + ",".join(_render_value(v, tokens) for v in value) + "]"
    raise _Unwritable(f"a {type(value).__name__} has no form in the Gemma format")
