"""``parse_calls``: any supported model output -> list of :class:`Step`, or a :class:`ParseError`.

Text is decoded (bytes must be UTF-8); in ``auto``/``hermes`` a leading
``<think>`` is skipped and ``<tool_call>`` blocks are read one by one
(:mod:`ek.parsing.chat_text`); other text is stripped of a surrounding Markdown
code fence, size- and depth-checked, then read as JSON or Python call syntax.
Already-decoded objects (dict/list) are read by their shape.
"""

from __future__ import annotations

import re
import textwrap
from collections.abc import Mapping
from typing import Any

from ek.calls import Step
from ek.parsing import (
    chat_text,
    dsml,
    gemma,
    glm,
    harmony,
    invoke,
    json_text,
    kimi,
    kimi_k3,
    minimax,
    native,
    plamo,
    prose,
    registry,
    shapes,
    wrapped,
)
from ek.parsing.errors import ParseError, line_col
from ek.parsing.limits import DEFAULT_LIMITS, DEFAULT_MAX_DEPTH, DEFAULT_MAX_SIZE, Limits, check_text
from ek.parsing.python_calls import _plain_calls, parse_python
from ek.parsing.registry import Reading
from ek.parsing.scan import first_of, skip_space

#: The built-in format names (``registry.names()`` adds the registered ones).
FORMATS = ("auto", "python", "openai", "anthropic", "json", "bfcl", "hermes", "llama3", "mistral", "qwen3-coder",
           "deepseek", "granite", "phi4", "gemini", "bedrock", "langchain", "ollama", "mcp",
           "harmony", "kimi-k2", "glm45", "hunyuan", "k2-horizon", "solar-open2", "kimi-k3", "minimax-m2",
           "minimax-m3", "step3", "dots", "minicpm", "gemma4", "functiongemma", "plamo3", *wrapped.WRAPPERS)
#: Formats read from text only (bytes are decoded first); a decoded object is an error.
TEXT_FORMATS = frozenset({"python", "hermes", "llama3", "mistral", "qwen3-coder", "deepseek", "granite", "phi4",
                          "harmony", "kimi-k2", "glm45", "hunyuan", "k2-horizon", "solar-open2", "kimi-k3",
                          "minimax-m2", "minimax-m3", "step3", "dots", "minicpm", "gemma4", "functiongemma", "plamo3",
                          *wrapped.WRAPPERS})


def parse_calls(
    output: str | bytes | Mapping[str, Any] | list[Any],
    format: str = "auto",
    *,
    max_size: int = DEFAULT_MAX_SIZE,
    max_depth: int = DEFAULT_MAX_DEPTH,
    types: registry.TypeHint | None = None,
) -> list[Step]:
    """Read the tool calls in a model's output, never executing any of it.

    ``format`` is a registered format name (:data:`FORMATS` and any added with
    :func:`ek.parsing.register_format`); ``"auto"`` tells them apart by their
    markers and keys, and reports two possible readings rather than picking one.
    ``max_size`` (characters; bytes for ``bytes``) and ``max_depth`` (bracket
    nesting) bound the work. Empty text, and in ``auto`` prose with no call
    syntax, means no calls. ``types(tool, argument)`` names an argument's
    declared type, for formats that write values as bare text (``qwen3-coder``;
    see :func:`ek.parsing.native.typed_text`): the scorer passes its grammar's.

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
    if format == "bfcl" and type(output) is list and max_size == DEFAULT_MAX_SIZE and max_depth == DEFAULT_MAX_DEPTH:
        plain = shapes.bfcl_plain_calls(output, DEFAULT_LIMITS)  # fast path: see read_plain_bfcl
        if plain is not None:
            return plain
    if type(output) is str and max_size == DEFAULT_MAX_SIZE and max_depth == DEFAULT_MAX_DEPTH:
        if format == "bfcl" or format == "python":
            plain = _plain_call_text(output, format)  # fast path: see there
            if plain is not None:
                return plain
        elif format == "auto":
            plain = _plain_auto_text(output)  # fast path: see there
            if plain is not None:
                return plain
    fmt = registry.get(format) if isinstance(format, str) else None
    if fmt is None:
        raise ValueError(f"format must be a string, got {type(format).__name__}")
    if max_size == DEFAULT_MAX_SIZE and max_depth == DEFAULT_MAX_DEPTH:
        limits = DEFAULT_LIMITS
    else:
        limits = Limits(max_size=max_size, max_depth=max_depth)
    if isinstance(output, bytes | bytearray | memoryview):
        output = _decode(bytes(output), limits, format)
    if output is None:
        raise ParseError("cannot read tool calls from None", None, format)
    if not isinstance(output, str | Mapping | list | tuple):
        kind = type(output).__name__
        raise ParseError(f"cannot read tool calls from {'an' if kind[0] in 'aeiou' else 'a'} {kind}", None, format)
    if limits is DEFAULT_LIMITS and types is None:
        reading = _DEFAULT_READINGS.get(format) or _DEFAULT_READINGS.setdefault(format, Reading(limits, None, format))
    else:
        reading = Reading(limits, types, format)
    return fmt.read(output, reading)


def read_plain_bfcl(output: list[Any]) -> list[Step] | None:
    """Fast path of ``parse_calls(output, "bfcl")`` on a decoded list (``[{"f": {...}}, ...]``): its steps when
    the built-in (never replaced) bfcl reader takes it at once, every item a ``dict`` of tool names to plain
    JSON arguments within the default limits (:func:`ek.parsing.shapes.bfcl_plain_calls`); None when
    ``parse_calls`` must read it (or refuse it, at its path).

    What it skips: finding the format, building a Reading and going through its reader (a type hint plays no
    part in decoded objects). For callers that read many decoded outputs (the scorer), one call instead of
    ``parse_calls``' keyword arguments and tests; an empty list reads as no call, as there.

    >>> read_plain_bfcl([{"f": {"x": 1}}]), read_plain_bfcl([{"f": {"x": {1, 2}}}])
    ([Step(name='f', args={'x': 1})], None)
    """
    return shapes.bfcl_plain_calls(output, DEFAULT_LIMITS)


#: The Reading of each format with the default limits and no type hint (frozen: one serves every call).
_DEFAULT_READINGS: dict[str, Reading] = {}


def _plain_call_text(text: str, fmt: str) -> list[Step] | None:
    """Fast path of the built-in ``python`` and ``bfcl`` readers (never replaced) on call text as models
    mostly write it, ``[f(a=1), g(b='x')]``: the steps, or None to let the reader decide.

    What it skips, and why that is safe: finding the format and building its :class:`Reading` (neither
    reader looks at the type hint); removing a BOM and a code fence and stripping (a text that starts with
    ``[`` or an identifier character and ends with ``)`` or ``]`` has no BOM, no fence and no surrounding
    whitespace, so those leave it as it is); the readers' calls down to :func:`parse_python`; and
    ``check_text`` with the default limits, which every text ``_plain_calls`` reads passes (it reads none
    longer or nesting deeper than those limits allow). What it keeps is every other test they make on such a
    text: ``[`` must begin a list of calls, not JSON (:func:`_python_list`), bfcl reads text without call
    syntax as no call (:data:`_CALL_SYNTAX`), and then :func:`parse_python`'s own plain path,
    ``_plain_calls``. Any other text, and an error, takes the reader's way, which reads it or words the
    error (tests/parsing/test_parse_plain_calls.py compares the two on random texts).
    """
    if not text or text[-1] not in ")]":
        return None
    first = text[0]
    if first == "[":
        second = text[1]  # the text ends with "]" or ")": it has one
        if second == " " or second == "\t":
            if not _python_list(text):
                return None
        elif second == "]" or text.startswith(_JSON_WORDS, 1):
            return None  # what _python_list refuses, for the rest of what _plain_calls reads: [] and [true...
    elif not first.isidentifier() or (fmt == "bfcl" and _CALL_SYNTAX.search(text) is None):
        return None
    return _plain_calls(text)


def _plain_auto_text(text: str) -> list[Step] | None:
    """Fast path of the built-in ``auto`` reader (never replaced) on Python call text, ``[f(a=1)]`` or
    ``f(a=1)`` (BFCL's prompting models' answers): the steps, or None to let the reader decide.

    What it skips: the reader's way down to the Python reader. Safe: a text without ``<`` has no reasoning block
    (every tag :func:`ek.parsing.chat_text.after_think` knows starts with ``<``), and with no marker
    (:func:`detect_text`) and no registered format that detects formats, ``auto`` reads it as text with no marker
    (``_auto_plain``). There a text that starts with ``[`` is read as ``bfcl`` reads it (a list of calls, or
    JSON), and one that starts with a call (:data:`_CALL_START`) as Python, which :func:`_plain_call_text` gives
    (it leaves anything else, BOMs, fences and spaces included, to the reader);
    tests/parsing/test_parse_plain_calls.py compares the two on random texts.
    """
    if not text or "<" in text or registry.user_formats() or detect_text(text):
        return None
    first = text[0]
    if first == "[":
        return _plain_call_text(text, "bfcl")
    if _CALL_START.match(text) is None:
        return None  # prose, JSON or a fence: the reader's
    return _plain_call_text(text, "python")


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


# --------------------------------------------------------------------------- text


def _from_text(text: str, fmt: str, limits: Limits) -> list[Step]:
    raw = text.removeprefix("\ufeff")
    if fmt in ("auto", "hermes"):
        return _chat_text(raw, fmt, limits)
    return _plain_text(raw, fmt, limits)


def _chat_text(raw: str, fmt: str, limits: Limits) -> list[Step]:
    """``hermes``: skip a leading ``<think>``, read the ``<tool_call>`` blocks."""
    if len(raw) > limits.max_size:
        check_text(raw, limits, fmt)  # the size message
    start = chat_text.after_think(raw, fmt)
    return chat_text.read_blocks(raw, start, fmt, lambda block: _block(block, limits))


def _block(text: str, limits: Limits) -> list[Step]:
    """One Hermes ``<tool_call>`` block: JSON (any call shape, usually ``{"name", "arguments"}``)."""
    plain = _plain_json_call(text.strip(), limits)
    if plain is not None:
        return plain
    return from_object(json_text.loads(text, limits, "hermes"), "auto", limits)


def _plain_json_call(text: str, limits: Limits) -> list[Step] | None:
    """Fast path of reading the stripped JSON text of one ``{"name": "f", "arguments": {...}}`` call (a Hermes
    ``<tool_call>`` block's, or a reply that is one JSON call) in ``hermes``, ``auto`` and ``json``: its call, or
    None to let the reader decide.

    What it skips: the JSON error machinery, the search of every decoded shape and the JSON paths of the
    reader's way (``json_text.loads``, then ``from_object``), half of reading a block. Safe: the same limits check
    and strict decoder (:func:`ek.parsing.json_text.plain_object`, which gives what ``loads`` gives), and
    :func:`ek.parsing.shapes.plain_generic_call` gives what ``from_object`` gives such an object in these three
    formats; text that starts otherwise (a fence, a list, Python calls) or holds anything else takes the reader's
    way (tests/parsing/test_parse_formats.py compares the two).
    """
    if not text.startswith("{"):
        return None
    obj = json_text.plain_object(text, limits)
    step = shapes.plain_generic_call(obj, limits) if obj is not None else None
    return None if step is None else [step]


def _plain_text(raw: str, fmt: str, limits: Limits) -> list[Step]:
    return _plain_stripped(strip_fence(raw), raw, fmt, limits)


def _plain_stripped(text: str, raw: str, fmt: str, limits: Limits) -> list[Step]:
    """:func:`_plain_text` given ``text = strip_fence(raw)`` already."""
    if fmt == "python":
        return _python(text, raw, limits)
    if fmt == "bfcl" and not text:
        return []  # BFCL's empty answer: no call
    if fmt == "bfcl" and (text[0] not in "[{" or _python_list(text)):
        if text[0] not in "[{" and _CALL_SYNTAX.search(text) is None:
            return []  # prose: BFCL's answer to an irrelevant question (its decoder finds no call)
        try:
            return _python(text, raw, limits)  # BFCL's own decoder reads Python call text too
        except ParseError:
            cleaned = bfcl_cleaned(text)  # what BFCL's decoder reads: [f(x=1) or `f(x=1)` is a call to it
            if cleaned == text:
                raise
            try:
                return _python(cleaned, cleaned, limits)
            except ParseError:
                pass
            raise  # the error of the text as written (its positions are the text's)
    if (fmt == "auto" or fmt == "json") and text[:1] == "{":
        plain = _plain_json_call(text, limits)  # fast path: see there
        if plain is not None:
            return plain
    if fmt != "auto" and (fmt != "bfcl" or text[0] != "["):
        if not text or (text[0] not in _JSON_OUTPUT_START and fmt != "json"):
            return []  # empty text; prose (``null`` too) where an API's message is expected: no call
        return from_object(json_text.loads(text, limits, fmt), fmt, limits)
    if not text:
        return []
    if text[0] not in "[{" or _python_list(text):
        return _python(text, raw, limits)
    # auto, and a bfcl list not plainly Python: JSON, else Python calls (a comment before the first), else both errors
    try:
        decoded = json_text.loads(text, limits, "json" if fmt == "auto" else fmt)
    except ParseError as json_error:
        if text[0] == "{" or not json_error.reason.startswith("invalid JSON"):
            raise  # valid JSON syntax with rejected content (duplicates, NaN), or a limit: not Python
        try:
            return _python(text, raw, limits)
        except ParseError as python_error:
            raise ParseError(
                f"neither JSON ({_short(json_error)}) nor Python calls ({_short(python_error)})", None, fmt,
                cut_short=json_error.cut_short or python_error.cut_short,
            ) from None
    return from_object(decoded, fmt, limits)


def bfcl_cleaned(text: str, *, fence_word: bool = False) -> str:
    """A prompting model's text as BFCL's decoder (``default_decode_ast_prompting``) cleans it before reading:
    backticks, newlines and spaces stripped at both ends, and the list's brackets added where missing
    (``[f(x=1)`` and ```` `f(x=1)` ```` read as ``[f(x=1)]``); ek also drops the language word of a fence
    (```` ```python ````, ```` ```json ````: BFCL keeps it, and fails to read the text), unless ``fence_word``
    asks for BFCL's text as it is (:func:`ek.bfcl.decoding.decodes_to_calls`, which answers as BFCL's decoder
    does).

    >>> bfcl_cleaned("[f(x=1)"), bfcl_cleaned("`f(x=1)`"), bfcl_cleaned("```python\\n[f(x=1)]\\n```")
    ('[f(x=1)]', '[f(x=1)]', '[f(x=1)]')
    >>> bfcl_cleaned("```json\\n[f(x=1)]\\n```"), bfcl_cleaned("```\\nf\\n{}\\n```")
    ('[f(x=1)]', '[f\\n{}]')
    >>> bfcl_cleaned("```python\\n[f(x=1)]\\n```", fence_word=True)
    '[python\\n[f(x=1)]'
    """
    if not fence_word:
        fence = _FENCE_LANGUAGE.match(text.lstrip("\n "))  # ```json, ```tool_code...: the word is the fence's
        if fence is not None:
            text = text.lstrip("\n ")[fence.end():]
    text = text.strip("`\n ")
    if not fence_word and text.startswith("python\n"):
        text = text[len("python\n"):]
    if not text.startswith("["):
        text = "[" + text
    if not text.endswith("]"):
        text = text + "]"
    return text


#: A fence's language word, right after its backticks (```` ```json ````), at most 32 characters: bounded.
_FENCE_LANGUAGE = re.compile(r"`{3}[A-Za-z][\w+#.-]{0,31}[ \t]*\n")


def _python_list(text: str) -> bool:
    """``[name(...`` and ``[(...`` cannot be JSON: skip the JSON attempt (``[true]``/``[null]`` still go to
    JSON). A parenthesis is Python's (``[(f(x=1))]``: a call in redundant parentheses, which Python's parser
    reads as the call, as BFCL's decoder does); JSON has none."""
    if text[0] != "[":
        return False
    rest = text[1:].lstrip()
    return rest[:1] == "(" or rest[:1].isidentifier() and not rest.startswith(_JSON_WORDS)


#: JSON's words, which :func:`_python_list` leaves to JSON after ``[``.
_JSON_WORDS = ("true", "false", "null")


def _short(error: ParseError) -> str:
    return str(error).split(": ", 1)[1] if ": " in str(error) else str(error)


# --------------------------------------------------------------------------- auto


#: Built-in text formats ``auto`` recognises, each by its markers (found with ``str.find``).
_MARKERS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("llama3", (native.PYTHON_TAG, native.PYTHON_START)),
    ("mistral", (native.TOOL_CALLS,)),
    ("deepseek", (native.DS_CALLS_BEGIN, native.DS_CALL_BEGIN, *dsml.TAG_MARKERS)),
    ("granite", (native.GRANITE_TAG, native.GRANITE_FC_TAG)),
    ("harmony", harmony.MARKERS),
    # Kimi-K2's tokens but <|tool_call_end|>, which LFM2 and openPangu write too (wrapped.detect tells those)
    ("kimi-k2", tuple(m for m in kimi.MARKERS if m != kimi.CALL_END)),
    ("minimax-m2", minimax.MARKERS),
    # MiniMax-M3's ]<]minimax[>[ before every tag: its <tool_call> is not a Hermes block (_detect_all)
    ("minimax-m3", invoke.MINIMAX_M3.markers),
    # Step-3's <｜tool_calls_begin｜> (fullwidth bars, '_') is not DeepSeek V3's <｜tool▁calls▁begin｜> ('▁')
    ("step3", invoke.STEP3.markers),
    ("dots", invoke.DOTS.markers),
    # MiniCPM's bare <function name="f"> (or <functionname=): not Llama's or Qwen3-Coder's <function=f>
    ("minicpm", invoke.MINICPM.markers),
    ("gemma4", gemma.GEMMA4.markers),
    ("functiongemma", gemma.FUNCTIONGEMMA.markers),
    ("kimi-k3", kimi_k3.MARKERS),
    ("hunyuan", glm.HUNYUAN_MARKERS),
    ("k2-horizon", glm.K2_MARKERS),
    ("solar-open2", glm.SOLAR_MARKERS),
    ("plamo3", plamo.MARKERS),  # the <|plamo: namespace, which no other family writes
)
# A call's start (``name(`` at the very beginning) and call syntax anywhere (``x(``, ``[``, ``{``). Possessive
# runs and no nested quantifiers: linear on any text.
_CALL_START = re.compile(r"""[^\s()\[\]{}.,;:!?"'#][^\s()]*+[ \t]*+\(""")
#: How the text of an output in an API's JSON format (``openai``, ``anthropic``, the SDK shapes) can start: an
#: object, a list, or a string (a message encoded twice, which reads as the error it is). Other text (prose,
#: ``null``) is the reply of a chat model that called nothing (SCORING.md's abstention), where a log keeps the
#: message's text rather than the message. Format ``json`` stays strict: prose there is a model that did not
#: write the JSON it was asked for. Empty text is no call in every format.
_JSON_OUTPUT_START = ("{", "[", '"')
_CALL_SYNTAX = re.compile(r"""[^\s()\[\]{}.,;:!?"'][(]|[\[{]""")


def detect_text(text: str, start: int = 0) -> list[tuple[str, int]]:
    """The built-in formats whose markers appear in ``text[start:]``, with where each was first seen.

    >>> detect_text('[TOOL_CALLS]f[ARGS]{}')
    [('mistral', 0)]
    >>> detect_text('<tool_call>\\n<function=f>\\n</function>\\n</tool_call>')
    [('qwen3-coder', 0)]
    """
    if text.find("<", start) == -1:
        # Fast path: every marker but Mistral's, and <tool_call>, </tool_call>, <function= and Llama's end tokens,
        # hold a '<': a text without one (Python call text, JSON, prose) can hold only the markers of
        # _MARKERS_WITHOUT_ANGLE and Phi-4's functools[. Skips twenty finds, a sixth of auto's time on a short
        # Python call; tests/parsing/test_parse_formats.py holds it to the full search (_detect_all).
        found = _marker_hits(text, start, _MARKERS_WITHOUT_ANGLE)
    else:
        found = _detect_all(text, start)
    if not found and (bare := gemma.bare_call(text, start, len(text))) != -1:
        # call:NAME{...} and no format's marker: Gemma 4's call whose <|tool_call> was lost (vLLM reads it)
        found.append(("gemma4", bare))
    return found


#: The markers of :data:`_MARKERS` that hold no ``<`` (Mistral's ``[TOOL_CALLS]``; MiniMax-M3's ``]<]minimax[>[``
#: holds one), by format.
_MARKERS_WITHOUT_ANGLE = tuple((name, tuple(m for m in markers if "<" not in m)) for name, markers in _MARKERS
                               if any("<" not in m for m in markers))


#: The markers of :data:`_MARKERS` that do not start with ``<`` (Mistral's ``[TOOL_CALLS]``, MiniMax-M3's
#: ``]<]minimax[>[``), by format: what :func:`_marker_hits`' walk over the ``<`` of a text does not meet.
_MARKERS_NOT_AT_ANGLE = tuple((name, tuple(m for m in markers if m[0] != "<")) for name, markers in _MARKERS
                              if any(m[0] != "<" for m in markers))


def _marker_hits(text: str, start: int, table: tuple[tuple[str, tuple[str, ...]], ...]) -> list[tuple[str, int]]:
    """The formats of ``table`` whose markers are in ``text[start:]``, and Phi-4 for a ``functools[`` list, each
    with where it was first seen, in ``table``'s order.

    Fast path: a text with few ``<`` (a chat reply has a handful) is walked from ``<`` to ``<``, and only the
    markers that begin with the four characters there are compared (:func:`_angle_marker_hits`; the few that
    start otherwise, :data:`_MARKERS_NOT_AT_ANGLE`, are looked for as they are); a text with many looks for each
    marker whose first two characters it holds (:data:`_MARKER_HEADS`). Either skips most of the fifty-odd
    ``find`` s of looking for every marker (a Hermes reply: 12.6 µs of its 32 in ``auto`` at stop 39, then 10 µs
    with the heads alone). Safe: every marker that starts with ``<`` is longer than four characters, and one found
    at or after ``start`` starts at a ``<`` there (or has its first two characters there);
    tests/parsing/test_parse_formats.py holds both ways to every marker looked for."""
    first: dict[str, int] = {}
    if table is not _MARKERS:  # a table of a few markers (detect_text's fast path: Mistral's alone)
        _find_each(text, start, table, first)
    elif text.count("<", start) <= _ANGLE_WALK_LIMIT:
        _angle_marker_hits(text, start, first)
        _find_each(text, start, _MARKERS_NOT_AT_ANGLE, first)
    else:
        present = _heads_in(text, start)
        for name, markers in table:
            if present.isdisjoint(_HEADS_OF[name]):
                continue
            hits = [p for p in (text.find(m, start) for m in markers if m[:2] in present) if p != -1]
            if hits:
                first[name] = min(hits)
    found = [(name, first[name]) for name, _markers in table if name in first] if first else []
    phi = native.find_phi4(text[start:]) if "functools" in text else -1
    if phi != -1:
        found.append(("phi4", start + phi))
    return found


#: The first two characters of every marker of :data:`_MARKERS`, and of each format's (:func:`_marker_hits`).
_MARKER_HEADS = tuple(sorted({m[:2] for _name, markers in _MARKERS for m in markers}))
_HEADS_OF = {name: frozenset(m[:2] for m in markers) for name, markers in _MARKERS}
#: How many ``<`` a text may hold for :func:`_marker_hits` to walk them; past it, a few ``find`` s per marker are
#: cheaper than a step of Python per ``<`` (and the walk's cost stays bounded on hostile text).
_ANGLE_WALK_LIMIT = 64


def _find_each(text: str, start: int, table: tuple[tuple[str, tuple[str, ...]], ...], first: dict[str, int]) -> None:
    """Record in ``first`` where each format of ``table`` has its first marker in ``text[start:]``."""
    for name, markers in table:
        at = first_of(text, markers, start, len(text))
        if at != -1:
            first[name] = at


def _heads_in(text: str, start: int) -> frozenset[str]:
    """Which of :data:`_MARKER_HEADS` occur in ``text[start:]``."""
    return frozenset(h for h in _MARKER_HEADS if text.find(h, start) != -1)


def _by_angle_key(table: tuple[tuple[str, tuple[str, ...]], ...]) -> dict[str, tuple[tuple[str, str], ...]]:
    """The markers of ``table`` that start with ``<``, as (format, marker) pairs keyed by their first four
    characters (every marker is longer)."""
    keyed: dict[str, list[tuple[str, str]]] = {}
    for name, markers in table:
        for marker in markers:
            if marker[0] == "<":
                keyed.setdefault(marker[:4], []).append((name, marker))
    return {key: tuple(pairs) for key, pairs in keyed.items()}


_MARKERS_BY_ANGLE_KEY = _by_angle_key(_MARKERS)


def _angle_marker_hits(text: str, start: int, first: dict[str, int]) -> None:
    """Record in ``first`` where each format's first marker that starts with ``<`` is in ``text[start:]``,
    walking the text's ``<`` in order (:func:`_marker_hits`'s fast path)."""
    keyed = _MARKERS_BY_ANGLE_KEY
    at = text.find("<", start)
    while at != -1:
        for name, marker in keyed.get(text[at:at + 4], ()):
            if name not in first and text.startswith(marker, at):
                first[name] = at
        at = text.find("<", at + 1)


def _detect_all(text: str, start: int) -> list[tuple[str, int]]:
    """:func:`detect_text`'s general path: every format's markers looked for."""
    found = _marker_hits(text, start, _MARKERS)
    found.extend(wrapped.detect(text, start))
    names = {name for name, _ in found}  # kept as found grows: what the tests below ask
    if names.isdisjoint(("kimi-k2", "lfm2", "pangu")):
        stray = text.find(wrapped.CALL_END, start)  # a close token alone: LFM2's reader says it was never opened
        if stray != -1:
            found.append(("lfm2", stray))
            names.add("lfm2")
    call = text.find(chat_text.CALL_OPEN, start)
    stray = text.find(chat_text.CALL_CLOSE, start)
    if "hunyuan" in names or "minimax-m3" in names:
        pass  # Hy3's <tool_call>NAME<tool_sep>, MiniMax-M3's ]<]minimax[>[<tool_call>: not a Hermes or GLM block
    elif call != -1:
        after = skip_space(text, call + len(chat_text.CALL_OPEN))
        if text.startswith(native.FUNCTION_OPEN, after):
            found.append(("qwen3-coder", call))
        elif text.startswith("{", after):
            # Fast path: a JSON object, Hermes' call (most chat replies); skips the two looks for a bare name
            # below, which a '{' never is (glm.NOT_IN_NAME), and Granite's list.
            found.append(("hermes", call))
        elif glm.starts_glm_block(text, after):
            in_section = text.find(glm.HY3.section_open, start, call) != -1
            found.append(("hunyuan" if in_section else "glm45", call))  # GLM never writes Hy4's <tool_calls>
        elif glm.bare_name_at(text, after) and text.find(glm.HY3.section_open, start, call) != -1:
            found.append(("hunyuan", call))  # Hy3 or Hy4 cut short after a name: no Hermes block starts so
        elif stray == -1 and text.startswith("[", after) and "granite" not in names:
            found.append(("granite", call))
        else:
            found.append(("hermes", call))
    elif stray != -1:
        # a Qwen3-Coder function whose <tool_call> was lost, closed by </tool_call> (its reader takes that): not a
        # Hermes block, whose reader would only say the </tool_call> was never opened
        function = text.find(native.FUNCTION_OPEN, start, stray)
        if function != -1 and "llama3" not in names and native.function_form(text, function) == "qwen3-coder":
            found.append(("qwen3-coder", function))
        else:
            found.append(("hermes", stray))
    else:
        function = text.find(native.FUNCTION_OPEN, start)  # <function=NAME> with no <tool_call> around it
        if function != -1 and "llama3" not in names:
            form = native.function_form(text, function)
            found.append((form, function))
            names.add(form)
    if "llama3" not in names:
        tail = text.rstrip()
        for end in native.LLAMA_ENDS[:2]:
            if tail.endswith(end):
                found.append(("llama3", len(tail) - len(end)))
                break
    return found


def _read_auto(output: Any, reading: Reading) -> list[Step]:
    limits = reading.limits
    users = [f for f in registry.user_formats() if f.detect(output)]
    if isinstance(output, str):
        raw = output.removeprefix("\ufeff")
        if len(raw) > limits.max_size:
            check_text(raw, limits, "auto")  # the size message
        start = _answer_start(raw)
        found = detect_text(raw, start)
        claims = [(f.name, None) for f in users] + found
        if len(claims) > 1:
            raise ParseError(_ambiguous(raw, claims), None, "auto")
        if users:
            return users[0].read(output, Reading(limits, reading.types, users[0].name))
        if found:
            return _native_auto(raw, start, found[0][0], reading)
        return _shifted_plain(raw, start, limits)
    if len(users) > 1:
        raise ParseError(_ambiguous("", [(f.name, None) for f in users]), None, "auto")
    if users:
        return users[0].read(output, Reading(limits, reading.types, users[0].name))
    return from_object(output, "auto", limits)


def _answer_start(raw: str) -> int:
    """Where ``auto`` reads the answer from: after a leading reasoning block (:func:`chat_text.after_think`), or, when
    that block is never closed but a Kimi-K2 section opens inside it, at that section: Kimi-K2 starts its calls
    without closing its thought, and SGLang's Kimi-K2 reasoning parser ends the thought there
    (test_tool_call_inside_think_without_close_tag); format ``kimi-k2`` reads the section wherever it stands."""
    try:
        return chat_text.after_think(raw, "auto")
    except ParseError:
        section = first_of(raw, kimi.SECTION_BEGINS, 0, len(raw))
        if section == -1:
            raise
        return section


def _ambiguous(text: str, claims: list[tuple[str, int | None]]) -> str:
    parts = []
    for name, offset in claims:
        if offset is None:
            parts.append(f"{name} (its detect() accepts it)")
        else:
            line, column = line_col(text, offset)
            parts.append(f"{name} (a marker at line {line}, column {column})")
    return (f"two readings are possible: {' and '.join(parts)}; pass format= (--format, a line's \"format\") "
            "to choose one")


def _native_auto(raw: str, start: int, name: str, reading: Reading) -> list[Step]:
    """Read the text after any ``<think>`` as format ``name``; error positions point into the whole text."""
    if name == "hermes":
        return chat_text.read_blocks(raw, start, "hermes",
                                     lambda block: _plain_text(block, "auto", reading.limits))
    reader = registry.get(name).read
    try:
        return reader(raw[start:] if start else raw, Reading(reading.limits, reading.types, name))
    except ParseError as error:
        if not start:
            raise
        raise error.moved(chat_text.shift(error.position, raw, start), error.format) from None


def _shifted_plain(raw: str, start: int, limits: Limits) -> list[Step]:
    try:
        return _auto_plain(raw[start:] if start else raw, limits)
    except ParseError as error:
        if not start:
            raise
        raise error.moved(chat_text.shift(error.position, raw, start), error.format) from None


#: What ``auto`` tries on text with no format's marker, named in its error.
_TRIED = ("python", "json", "hermes", "llama3", "mistral", "qwen3-coder", "deepseek", "granite", "phi4",
          "harmony", "kimi-k2", "glm45", "hunyuan", "k2-horizon", "solar-open2", "kimi-k3", "minimax-m2",
          "minimax-m3", "step3", "dots", "minicpm", "gemma4", "functiongemma", "plamo3", *wrapped.WRAPPERS,
          "JSON or Python in ``` fences")


def _auto_plain(raw: str, limits: Limits) -> list[Step]:
    """Text with no marker: a JSON or Python answer, calls in fences or bare JSON in prose, or prose."""
    text = strip_fence(raw)
    if text.startswith("{"):
        try:
            return _plain_stripped(text, raw, "auto", limits)
        except ParseError as error:
            if not error.reason.startswith("invalid JSON: Extra data"):
                raise  # one broken object; several objects (Llama's `{...}; {...}`) are read below
    elif text.startswith("["):
        try:
            return _plain_stripped(text, raw, "auto", limits)
        except ParseError:
            spans = native.lists_in_prose(raw, "auto")
            if spans is None:
                raise
            return _lists_in_prose(raw, spans, limits)
    elif not text or text[0] == "#":
        return _plain_stripped(text, raw, "auto", limits)
    elif (start := _CALL_START.match(text)) is not None:
        if not start.group()[-2].isspace():
            return _plain_stripped(text, raw, "auto", limits)
        try:  # a word, a space, then "(": a call written with a space (rare), or prose ("Done (no changes).")
            return _plain_stripped(text, raw, "auto", limits)
        except ParseError as error:
            if error.cut_short:
                raise  # a call that breaks off stays unreadable
    check_text(raw, limits, "auto")
    blocks = [b for b in prose.fenced_blocks(raw, "auto") if b[0] in prose.CALL_FENCES]
    if blocks:
        steps: list[Step] = []
        for _, begin, end in blocks:
            steps.extend(_block_at(raw, begin, end, limits))
        return steps
    spans = prose.json_objects(raw, "auto")
    if spans:
        _no_other_calls(raw, spans)
        steps = []
        for begin, _ in spans:
            value, _end = json_text.decode_at(raw, begin, limits, "auto")
            try:
                steps.extend(from_object(value, "auto", limits))
            except ParseError as error:
                raise error.moved(prose.where(raw, begin, error.position), "auto") from None
        return steps
    lists = prose.call_lists(raw, "auto")
    if lists:
        return _lists_in_prose(raw, lists, limits)
    found = _CALL_SYNTAX.search(raw)
    if found is None:
        _no_unread_markup(raw, 0, len(raw))
        return []  # prose: a reply with no call in it
    raise ParseError(f"call syntax in prose, but no tool call ek can read (tried: {', '.join(_TRIED)}); "
                     "pass format= if the model writes calls another way", line_col(raw, found.start()), "auto")


def _lists_in_prose(raw: str, spans: list[tuple[int, int]], limits: Limits) -> list[Step]:
    """Llama 3.2/4's ``[f(x=1)]`` lists between sentences, as SGLang reads them; the prose around must hold no
    other call syntax, as around JSON calls."""
    _no_other_calls(raw, spans)
    return native.read_lists(raw, spans, limits, "auto")


def _no_other_calls(raw: str, spans: list[tuple[int, int]]) -> None:
    """Prose around JSON calls must not hold other call syntax, nor tool-call markup no format reads: half an
    output is never scored as all of it."""
    edges = [0, *(p for span in spans for p in span), len(raw)]
    for begin, end in zip(edges[::2], edges[1::2], strict=True):
        found = _CALL_SYNTAX.search(raw, begin, end)
        if found is not None:
            raise ParseError("call syntax outside the JSON calls found in this text; ek reads all of an output "
                             "or none of it (pass format= to name how the model writes calls)",
                             line_col(raw, found.start()), "auto")
        _no_unread_markup(raw, begin, end, wrappers=False)  # tags around the JSON calls are their wrappers


def _no_unread_markup(raw: str, begin: int, end: int, *, wrappers: bool = True) -> None:
    """Text ``auto`` would read as prose (no call) must hold no tool-call markup of a syntax ek has no reader for
    (:func:`ek.parsing.prose.tool_markup`): that is a call ek cannot read, never an abstention."""
    found = prose.tool_markup(raw, begin, end, wrappers=wrappers)
    if found is not None:
        raise ParseError(f"tool-call markup that no ek format reads ({found.group()!r}): the model called a tool in "
                         "a syntax ek has no reader for, which is not the same as calling none (pass format= if "
                         "one of ek's formats reads it, or add a reader with register_format)",
                         line_col(raw, found.start()), "auto")


def _block_at(raw: str, begin: int, end: int, limits: Limits) -> list[Step]:
    inner = raw[begin:end]
    lead = len(inner) - len(inner.lstrip())
    try:
        return _plain_text(inner, "auto", limits)
    except ParseError as error:
        raise error.moved(chat_text.shift(error.position, raw, begin + lead), "auto") from None


# --------------------------------------------------------------------------- decoded objects


def from_object(obj: Any, fmt: str, limits: Limits, path: str = "$") -> list[Step]:
    """Steps from a decoded dict or list, read as format ``fmt`` (``"auto"``: by shape)."""
    if fmt == "bfcl" and type(obj) is list:
        plain = shapes.bfcl_plain_calls(obj, limits)
        if plain is not None:
            return plain
    if isinstance(obj, Mapping):
        return _from_mapping(obj, fmt, limits, path)
    if isinstance(obj, list | tuple):
        items = list(obj)
        log = shapes.session_log(items) if fmt in ("auto", "anthropic", "openai") else None
        if log == "claude-code" and fmt != "openai":
            return shapes.claude_code_calls(items, path, limits, _named(fmt, "anthropic"))
        if log == "codex" and fmt != "anthropic":
            return shapes.codex_rollout_calls(items, path, limits, _named(fmt, "openai"))
        if fmt == "anthropic" and not _is_transcript(items):
            return shapes.anthropic_blocks(items, path, limits, fmt)
        if fmt in ("auto", "bedrock") and shapes.is_bedrock_content(items):
            return shapes.bedrock_blocks(items, path, limits, _named(fmt, "bedrock"))
        if fmt in ("auto", "gemini") and any(isinstance(i, Mapping) and shapes.gemini_part_call(i) is not None
                                             for i in items):
            return shapes.gemini_parts(items, path, limits, _named(fmt, "gemini"))
        transcript = fmt not in ("json", "bfcl") and _is_transcript(items)
        steps: list[Step] = []
        for i, item in enumerate(items):
            ipath = f"{path}[{i}]"
            if not isinstance(item, Mapping):
                raise ParseError(f"expected a call object, got {type(item).__name__}", ipath, fmt)
            if fmt in ("auto", "openai") and (shapes.is_non_call(item) or shapes.is_tool_output(item)):
                continue  # text/thinking blocks, Responses message/reasoning items, tool results
            if transcript and _is_message(item):
                if _is_assistant(item):
                    steps.extend(_from_mapping(item, fmt, limits, ipath))
                continue  # user, system and tool-result messages are context, never calls
            kind = _expected_kind(item, fmt, ipath)
            if kind in ("response", "responses", "gemini_response", "bedrock_response"):
                raise ParseError("a list of calls cannot hold whole responses; pass one response", ipath, fmt)
            if kind == "skipped":
                continue
            steps.extend(_one(item, kind, fmt, limits, ipath))
        return steps
    raise ParseError(f"expected a JSON object or array of calls, got {type(obj).__name__}", path, fmt)


_MESSAGE_TYPES = frozenset({"human", "ai", "system", "tool", "function", "chat"})


def _is_message(item: Any) -> bool:
    """A chat message (OpenAI, Anthropic, Gemini ``role``; LangChain ``type``), not a call or a block."""
    if not isinstance(item, Mapping):
        return False
    if isinstance(item.get("role"), str):
        return True
    serialized = shapes.langchain_serialized(item)  # dumpd's or message_to_dict's form: the fields inside
    fields = serialized[1] if serialized is not None else item
    kind = fields.get("type")
    return isinstance(kind, str) and kind in _MESSAGE_TYPES and "content" in fields


def _is_assistant(item: Mapping[str, Any]) -> bool:
    return item.get("role") in shapes.ASSISTANT_ROLES or (item.get("role") is None and shapes.is_langchain_ai(item))


def _is_transcript(items: list[Any]) -> bool:
    return any(_is_message(i) for i in items)


def _named(fmt: str, name: str) -> str:
    return name if fmt == "auto" else fmt


_KINDS_BY_FORMAT = {
    "openai": ("response", "responses", "openai_message", "openai_call", "openai_item", "transcript"),
    "anthropic": ("anthropic_message", "anthropic_block", "transcript"),
    "json": ("generic",),
    "bfcl": ("bfcl",),
    "gemini": ("gemini_response", "gemini_content", "gemini_part", "transcript"),
    "bedrock": ("bedrock_response", "bedrock_message", "bedrock_block", "wrapped", "transcript"),
    "langchain": ("langchain_message", "transcript"),
    "ollama": ("wrapped", "openai_message", "openai_call", "transcript"),
    "mcp": ("mcp_message",),
}

_KIND_FORMAT = {kind: name for name, kinds in _KINDS_BY_FORMAT.items() for kind in kinds}
_KIND_FORMAT.update({"transcript": "auto", "wrapped": "auto"})

#: The shapes ``auto`` knows, named in the error for an object that is none of them.
_SHAPES = ("OpenAI message/response/tool call", "Responses API output", "Anthropic message/tool_use",
           "Gemini response/Content/functionCall", "Bedrock Converse message/toolUse", "LangChain AIMessage",
           "Ollama chat response", "MCP tools/call request", "{\"name\", \"arguments\"}")


def _expected_kind(obj: Mapping[str, Any], fmt: str, path: str) -> str:
    if fmt == "bfcl":
        # BFCL's {"func": {...}} has one key. An object of several that is another call's shape is that call
        # (a local FC model's [{"name": "f", "arguments": {...}}], which BFCL's handler reads, or OpenAI tool
        # calls), not one call per key; anything else is read as BFCL's calls, whose errors name the place.
        return shapes.bfcl_other_call(obj) or "bfcl"
    if fmt == "json":
        return "generic"
    kind = shapes.classify(obj)
    if kind is None and shapes.is_non_call(obj) and fmt in ("auto", "anthropic", "openai"):
        return "skipped"
    if kind == "anthropic_message" and fmt == "bedrock" and not obj["content"]:
        kind = "bedrock_message"  # an empty content list is either; no calls in both
    if kind == "bfcl" and fmt == "auto":
        kind = None  # a one-key object is a BFCL call only in the bfcl format
    if kind is None or (fmt != "auto" and kind not in _KINDS_BY_FORMAT[fmt]):
        keys = ", ".join(repr(k) for k in list(obj)[:6])
        what = f"unrecognised object with keys {keys}" if keys else "an empty object"
        if fmt == "auto":
            hint = " (a one-key {\"tool\": {...}} is a BFCL call only with format='bfcl')" \
                if shapes.is_bfcl_call(obj) or (len(obj) > 1 and all(isinstance(v, Mapping) for v in obj.values())) \
                else ""
            raise ParseError(f"not a tool call: {what}; tried {', '.join(_SHAPES)}{hint}", path, fmt)
        wanted = f"an {fmt} tool call" if fmt[0] in "aeiou" else f"an {fmt} call" if fmt == "mcp" else f"a {fmt} call"
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
    if kind == "gemini_response":
        return shapes.gemini_response(obj, path, limits, f)
    if kind == "gemini_content":
        return shapes.gemini_parts(obj["parts"], f"{path}.parts", limits, f)
    if kind == "gemini_part":
        return [shapes.gemini_call(obj, path, limits, f)]
    if kind == "bedrock_block":
        return [shapes.bedrock_block(obj, path, limits, f)]
    if kind == "bedrock_message":
        return shapes.bedrock_blocks(obj["content"], f"{path}.content", limits, f)
    if kind == "bedrock_response":
        return from_object(obj["output"]["message"], fmt, limits, f"{path}.output.message")
    if kind == "mcp_message":
        return shapes.mcp_message(obj, path, limits, f)
    if kind == "wrapped":
        return from_object(obj["message"], fmt, limits, f"{path}.message")
    if kind == "transcript":
        return from_object(obj["messages"], fmt, limits, f"{path}.messages")
    if kind == "langchain_message":
        return shapes.langchain_message(obj, path, limits, f)
    return shapes.bfcl_call(obj, path, limits, f)


# --------------------------------------------------------------------------- the built-in formats


def _text_reader(name: str, read: Any) -> Any:
    def reader(output: Any, reading: Reading) -> list[Step]:
        if not isinstance(output, str):
            raise ParseError(f"the {name} format reads text; got a decoded object", "$", name)
        text = output.removeprefix("\ufeff")
        inner = _unfenced(text)
        if inner is text:
            return read(text, reading.limits, reading.types, name)
        offset = text.find(inner)  # a whole output in one code fence: read inside, errors placed in the whole
        try:
            return read(inner, reading.limits, reading.types, name)
        except ParseError as error:
            raise error.moved(chat_text.shift(error.position, text, offset), error.format) from None

    return reader


def _object_reader(name: str) -> Any:
    def reader(output: Any, reading: Reading) -> list[Step]:
        if isinstance(output, str):
            if name in ("python", "hermes"):
                return _from_text(output, name, reading.limits)
            return _plain_text(output.removeprefix("\ufeff"), name, reading.limits)
        if name in ("python", "hermes"):
            raise ParseError(f"the {name} format reads text; got a decoded object", "$", name)
        return from_object(output, name, reading.limits)

    return reader


_SUMMARIES = {
    "auto": "every built-in format, told apart by markers and keys",
    "python": "Python call syntax: [f(a=1), g()]",
    "openai": "Chat Completions / Responses API messages, responses and tool calls",
    "anthropic": "Messages API content with tool_use blocks",
    "json": '{"name": ..., "arguments": {...}}, one or a list',
    "bfcl": 'BFCL: [{"f": {"a": 1}}] or Python call text',
    "hermes": "Hermes/Qwen <tool_call>{...}</tool_call> blocks in chat text",
    "llama3": "Llama 3.x/4: <|python_tag|> JSON, plain JSON, pythonic lists",
    "mistral": "[TOOL_CALLS] JSON list, or [TOOL_CALLS]name[ARGS]{...}",
    "qwen3-coder": "<tool_call><function=f><parameter=p>value</parameter></function></tool_call>",
    "deepseek": "DeepSeek V3/R1/V3.1 <｜tool▁call▁begin｜> blocks, V3.2/V4/V4.1 DSML <｜DSML｜invoke> sections",
    "granite": "Granite <|tool_call|>[...] or <tool_call>[...]",
    "phi4": "Phi-4-mini functools[...]",
    "gemini": "Gemini GenerateContentResponse, Content or functionCall parts",
    "bedrock": "Bedrock Converse responses, messages and toolUse blocks",
    "langchain": "LangChain AIMessage dicts with tool_calls [{name, args, id}]",
    "ollama": "Ollama chat responses and messages (arguments as objects)",
    "mcp": "MCP JSON-RPC messages: tools/call requests are the calls, one or a session's list",
    "harmony": "gpt-oss Harmony messages: <|channel|>commentary to=functions.f<|message|>{...}<|call|>",
    "kimi-k2": "Kimi-K2 <|tool_call_begin|>functions.f:0<|tool_call_argument_begin|>{...} sections",
    "glm45": "GLM-4.5/4.6/4.7 <tool_call>name<arg_key>k</arg_key><arg_value>v</arg_value></tool_call>",
    "kimi-k3": 'Kimi-K3 XTML <|open|>tools<|sep|><|open|>call tool="f" index="1"<|sep|><|open|>argument ... channels',
    "minimax-m2": 'MiniMax-M2/M2.x <minimax:tool_call><invoke name="f"><parameter name="k">v</parameter></invoke>',
    "minimax-m3": 'MiniMax-M3 ]<]minimax[>[<tool_call>]<]minimax[>[<invoke name="f">]<]minimax[>[<k>v]<]minimax[>[</k>'
                  '... (every tag after ]<]minimax[>[; values nest: <item> lists, key objects)',
    "step3": 'Step-3 <｜tool_calls_begin｜><｜tool_call_begin｜>function<｜tool_sep｜><steptml:invoke name="f">'
             '<steptml:parameter name="k">v</steptml:parameter></steptml:invoke><｜tool_call_end｜>',
    "dots": 'dots.llm <dots_function_call><invoke name="f"><parameter name="k">v</parameter></invoke>, or {name, '
            'arguments}',
    "minicpm": 'MiniCPM 4/5 <function name="f"><param name="k">v or <![CDATA[v]]></param></function>',
    "gemma4": 'Gemma 4 <|tool_call>call:f{k:<|"|>v<|"|>,n:1}<tool_call|>',
    "functiongemma": "FunctionGemma <start_function_call>call:f{k:<escape>v<escape>}<end_function_call>",
    "plamo3": "PLaMo 3 <|plamo:begin_tool_requests:plamo|><|plamo:begin_tool_request:plamo|> requests, each "
              "<|plamo:begin_tool_name:plamo|>f<|plamo:end_tool_name:plamo|> and JSON arguments",
    "jamba": "AI21 Jamba <tool_calls>[{name, arguments}]</tool_calls>",
    "nemotron": "NVIDIA Nemotron <TOOLCALL>[{name, arguments}]</TOOLCALL>",
    "lfm2": "Liquid LFM2/LFM2.5 <|tool_call_start|>[f(a=1), g()]<|tool_call_end|>",
    "pangu": "openPangu <|tool_call_start|>[{name, arguments}]<|tool_call_end|>",
    "apertus": "Swiss AI Apertus <|tools_prefix|>[{\"f\": {...}}]<|tools_suffix|>",
    "cohere": "Cohere Command <|START_ACTION|>[{tool_call_id, tool_name, parameters}]<|END_ACTION|>",
    "qwen25-coder": "Qwen2.5-Coder <tools>{name, arguments} or [...]</tools>",
    "olmo3": "AI2 OLMo 3 <function_calls>f(a=1)\\ng(b=null)</function_calls>, one Python call a line",
    "internlm2": "InternLM2/2.5 <|action_start|><|plugin|>{name, parameters}<|action_end|>",
    "longcat": "Meituan LongCat-Flash <longcat_tool_call>{name, arguments}</longcat_tool_call>",
    "gigachat3": "GigaChat 3 function call<|role_sep|>{name, arguments}, 3.1 <|function_call|>{name, arguments}",
    "hunyuan": "Tencent Hy4 <tool_calls:SUFFIX><tool_call:SUFFIX>name<arg_key:SUFFIX>k..., Hy3 name<tool_sep>, "
               "and Hunyuan-A13B <tool_calls>[{name, arguments}]</tool_calls>",
    "k2-horizon": "K2 Horizon / K2-V3 <ifm|tool_call>name<ifm|arg_key>k</ifm|arg_key><ifm|arg_value>v..., or JSON",
    "solar-open2": "Solar Open 2 <|tool_call:start|>name <|tool_arg:start|>k<|tool_arg:value|>v<|tool_arg:end|>",
}


def _register_builtins() -> None:
    text_readers = {"llama3": native.read_llama3, "mistral": native.read_mistral,
                    "qwen3-coder": native.read_qwen3_coder, "deepseek": dsml.read_deepseek,
                    "granite": native.read_granite, "phi4": native.read_phi4, "glm45": glm.read_glm45,
                    "harmony": harmony.read_harmony, "kimi-k2": kimi.read_kimi_k2,
                    "kimi-k3": kimi_k3.read_kimi_k3, "minimax-m2": minimax.read_minimax_m2,
                    "minimax-m3": invoke.reader("minimax-m3"),
                    "step3": invoke.reader("step3"), "dots": invoke.reader("dots"),
                    "minicpm": invoke.reader("minicpm"), "gemma4": gemma.read_gemma4,
                    "functiongemma": gemma.read_functiongemma, "plamo3": plamo.read_plamo3,
                    "hunyuan": glm.read_hunyuan, "k2-horizon": glm.read_k2_horizon,
                    "solar-open2": glm.read_solar_open2}
    text_readers.update({name: wrapped.reader(name) for name in wrapped.WRAPPERS})
    for name in FORMATS:
        if name == "auto":
            read = _read_auto
        elif name in text_readers:
            read = _text_reader(name, text_readers[name])
        else:
            read = _object_reader(name)
        registry.add(registry.Format(name, read, builtin=True, summary=_SUMMARIES[name]))


_register_builtins()
