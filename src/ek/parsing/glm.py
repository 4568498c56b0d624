"""Tool calls written as a name then key/value pairs: GLM-4.5/4.7, Tencent Hy3/Hy4, K2 Horizon, Solar Open 2.

GLM's chat template writes each call as one ``<tool_call>`` block holding the tool's name and its arguments as
bare text, a string as it is and any other value as JSON::

    <tool_call>get_weather
    <arg_key>city</arg_key>
    <arg_value>Beijing</arg_value>
    </tool_call>

GLM-4.7 drops the newlines (``<tool_call>get_weather<arg_key>city</arg_key>...``) and writes a call without
arguments as ``<tool_call>get_current_date</tool_call>``. The same ``<tool_call>`` tag holds JSON in Hermes'
format, so :func:`starts_glm_block` tells the two apart by what follows the tag.

Newer families write the same shape with other tokens (:class:`Dialect`, :data:`DIALECTS`):

- Tencent Hy4 (vLLM's ``hy_v4``): GLM-4.7's tags inside ``<tool_calls>...</tool_calls>``, every tag carrying
  the checkpoint's vocabulary suffix (``<tool_call:opensource>``; unsuffixed in some checkpoints);
- Tencent Hy3 (vLLM's ``hy_v3``, SGLang's ``hunyuan``): the same, with ``<tool_sep>`` after each name and a
  newline between tags (suffixed too in the shipping tokenizer);
- K2 Horizon / K2-V3 (vLLM's ``k2_horizon``, SGLang's ``k2_v3``): ``<ifm|tool_call>``, ``<ifm|arg_key>``,
  an optional ``<ifm|arg_type>T</ifm|arg_type>`` before the value, ``<ifm|tool_calls>`` around (optional), and
  a JSON dialect that puts ``{"name", "arguments"}`` (or a list of them) inside ``<ifm|tool_call>``;
- Upstage Solar Open 2 (vLLM's ``solar_open2``): ``<|tool_call:start|>NAME`` then
  ``<|tool_arg:start|>K<|tool_arg:value|>V<|tool_arg:end|>`` pairs and ``<|tool_call:end|>``, calls repeated
  with no wrapper.

One reader (:func:`read_pairs`) reads them all, each in its dialect. Tags are found with ``str.find`` (linear,
no regex); values are typed as Qwen3-Coder's are (:func:`ek.parsing.native.typed_text`).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any

import attrs

from ek.calls import Step
from ek.parsing import chat_text, json_text, wrapped
from ek.parsing.errors import ParseError, line_col
from ek.parsing.limits import Limits, check_text
from ek.parsing.native import typed_text
from ek.parsing.prose import calls_from_json
from ek.parsing.registry import TypeHint


@attrs.frozen
class Dialect:
    """The tokens of one family's "name, then key/value pairs" calls.

    ``value_open`` may be empty (Solar Open 2's value starts right after ``key_close``); ``sep`` is a token
    that must follow each name (Hy3's ``<tool_sep>``); ``type_open``/``type_close`` an optional type tag
    between key and value (K2's ``<ifm|arg_type>``); ``section_open``/``section_close`` an optional wrapper
    around the calls, which must be closed once opened; ``thinks`` the reasoning blocks skipped at the start;
    ``json_body``: a call's body may be JSON (K2's json dialect). ``name_sep``, ``pair_sep`` and ``call_sep``
    are the whitespace the family's template writes after the name, after each tag of a pair (not between a
    key and a value with no opening tag) and between calls (for :func:`ek.parsing.render.render`; the reader
    skips any whitespace between tags)."""

    model: str
    call_open: str
    call_close: str
    key_open: str
    key_close: str
    value_open: str
    value_close: str
    sep: str = ""
    type_open: str = ""
    type_close: str = ""
    section_open: str = ""
    section_close: str = ""
    thinks: tuple[tuple[str, str], ...] = (("<think>", "</think>"),)
    json_body: bool = False
    name_sep: str = "\n"
    pair_sep: str = "\n"
    call_sep: str = "\n"


GLM45 = Dialect("GLM-4.5/4.7", "<tool_call>", "</tool_call>", "<arg_key>", "</arg_key>", "<arg_value>",
                "</arg_value>")


def hunyuan(suffix: str = ":opensource", *, hy3: bool = False) -> Dialect:
    """Tencent Hy4's dialect (Hy3's with ``hy3``), every tag carrying the checkpoint's ``suffix`` (``""``: none).

    >>> hunyuan().call_open, hunyuan("", hy3=True).sep
    ('<tool_call:opensource>', '<tool_sep>')
    """
    def tag(name: str) -> tuple[str, str]:
        return f"<{name}{suffix}>", f"</{name}{suffix}>"

    return Dialect("Hy3" if hy3 else "Hy4", *tag("tool_call"), *tag("arg_key"), *tag("arg_value"),
                   sep=f"<tool_sep{suffix}>" if hy3 else "", section_open=tag("tool_calls")[0],
                   section_close=tag("tool_calls")[1], thinks=(tag("think"),),
                   name_sep="" if not hy3 else "\n", pair_sep="\n" if hy3 else "", call_sep="\n" if hy3 else "")


HY4 = hunyuan()
HY3 = hunyuan("", hy3=True)
K2_HORIZON = Dialect("K2 Horizon", "<ifm|tool_call>", "</ifm|tool_call>", "<ifm|arg_key>", "</ifm|arg_key>",
                     "<ifm|arg_value>", "</ifm|arg_value>", type_open="<ifm|arg_type>", type_close="</ifm|arg_type>",
                     section_open="<ifm|tool_calls>", section_close="</ifm|tool_calls>",
                     thinks=tuple((f"<ifm|{t}>", f"</ifm|{t}>") for t in ("think", "think_fast", "think_faster")),
                     json_body=True)
SOLAR_OPEN2 = Dialect("Solar Open 2", "<|tool_call:start|>", "<|tool_call:end|>", "<|tool_arg:start|>",
                      "<|tool_arg:value|>", "", "<|tool_arg:end|>", thinks=(("<|think:start|>", "<|think:end|>"),))
#: Every dialect, Hy3 and Hy4 as their open checkpoints write them (``hunyuan(suffix)`` makes the others).
DIALECTS = (GLM45, HY4, HY3, K2_HORIZON, SOLAR_OPEN2)

#: What makes a text Hunyuan's to ``auto``: ``<tool_sep`` (Hy3) or a suffixed tag (``<tool_calls:opensource>``).
#: Unsuffixed Hy4 is GLM-4.7's block inside ``<tool_calls>`` (``auto`` tells it by that wrapper).
HUNYUAN_MARKERS = ("<tool_sep", "<tool_calls:", "<tool_call:", "</tool_call:", "</tool_calls:")
K2_MARKERS = ("<ifm|tool_call", "</ifm|tool_call", K2_HORIZON.key_open, K2_HORIZON.value_close)
SOLAR_MARKERS = (SOLAR_OPEN2.call_open, SOLAR_OPEN2.call_close, SOLAR_OPEN2.key_open, SOLAR_OPEN2.key_close,
                 SOLAR_OPEN2.value_close)
#: Each key/value format's tokens no other one writes, and the dialects it reads (for :func:`_no_kin`).
_KIN = (("hunyuan", HUNYUAN_MARKERS), ("k2-horizon", K2_MARKERS), ("solar-open2", SOLAR_MARKERS))
_KIN_MODELS = {"hunyuan": ("Hy3", "Hy4"), "k2-horizon": ("K2 Horizon",), "solar-open2": ("Solar Open 2",)}
KEY_OPEN, KEY_CLOSE = GLM45.key_open, GLM45.key_close
VALUE_OPEN, VALUE_CLOSE = GLM45.value_open, GLM45.value_close
#: Two characters SGLang's GLM-4.5 detector takes for a line break between tags: a model that escaped its
#: newlines (``get_weather\\n<arg_key>``); never looked for inside a key or a value.
LITERAL_NEWLINE = "\\n"
#: Characters no tool name holds: the name ends at the first ``<`` or line break and may not hold these, so
#: JSON, Python calls and Markdown fences in a ``<tool_call>`` block stay Hermes'.
#: What a tool name cannot hold (the renderer refuses such names too: ek.parsing.render).
NOT_IN_NAME = frozenset(" \t\r\n{}[]()\"'`=,;:<>")
#: Hunyuan's tag names, each written ``<NAME>`` or ``<NAME:SUFFIX>`` (and closed ``</NAME...>``).
_HY_TAGS = ("tool_calls", "tool_call", "tool_sep", "arg_key", "arg_value", "think")


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
    return read_pairs(text, limits, types, GLM45, fmt)


def read_hunyuan(text: str, limits: Limits, types: TypeHint | None = None, fmt: str = "hunyuan") -> list[Step]:
    """Tencent's Hunyuan line: Hunyuan-A13B's JSON list in ``<tool_calls>`` (:data:`ek.parsing.wrapped.HUNYUAN_A13B`),
    and Hy3 and Hy4: the suffix of the first Hunyuan tag (``<think...>`` or ``<tool_call...>``) is every
    tag's, and a ``<tool_sep>`` with it anywhere makes the output Hy3's (each name then ``<tool_sep>``).

    >>> read_hunyuan('<tool_calls:opensource><tool_call:opensource>f<arg_key:opensource>x</arg_key:opensource>'
    ...              '<arg_value:opensource>1</arg_value:opensource></tool_call:opensource></tool_calls:opensource>',
    ...              Limits())
    [Step(name='f', args={'x': 1})]
    >>> read_hunyuan('<tool_calls>\\n<tool_call>f<tool_sep>\\n</tool_call>\\n</tool_calls>', Limits())
    [Step(name='f', args={})]
    """
    if _a13b(text, fmt):
        return wrapped.read_wrapped(text, wrapped.HUNYUAN_A13B, limits, fmt)
    suffix = _hy_suffix(text)
    hy3 = text.find(f"<tool_sep{suffix}>") != -1
    dialect = hunyuan(suffix, hy3=hy3)
    return read_pairs(text, limits, types, dialect, fmt, partial(_same_suffix, text, suffix, dialect, fmt))


def _a13b(text: str, fmt: str) -> bool:
    """Whether the output is Hunyuan-A13B's: its first unsuffixed ``<tool_calls>`` after any reasoning holds JSON
    (``[`` or ``{`` first), which Hy3's and Hy4's tags never do."""
    at = text.find(wrapped.TOOL_CALLS_OPEN, chat_text.after_think(text, fmt))
    if at == -1:
        return False
    rest = text[at + len(wrapped.TOOL_CALLS_OPEN):at + len(wrapped.TOOL_CALLS_OPEN) + 64].lstrip()
    return rest[:1] in ("[", "{")


def read_k2_horizon(text: str, limits: Limits, types: TypeHint | None = None,
                    fmt: str = "k2-horizon") -> list[Step]:
    """K2 Horizon / K2-V3's IFM calls: the xml dialect (``<ifm|arg_key>``, with or without ``<ifm|arg_type>``)
    and the json one (``{"name", "arguments"}`` or a list of them in ``<ifm|tool_call>``), after a leading
    ``<ifm|think>`` (``think_fast``, ``think_faster``).

    >>> read_k2_horizon('<ifm|tool_call>f<ifm|arg_key>n</ifm|arg_key><ifm|arg_type>string</ifm|arg_type>'
    ...                 '<ifm|arg_value>3</ifm|arg_value></ifm|tool_call>', Limits())
    [Step(name='f', args={'n': '3'})]
    """
    return read_pairs(text, limits, types, K2_HORIZON, fmt)


def read_solar_open2(text: str, limits: Limits, types: TypeHint | None = None,
                     fmt: str = "solar-open2") -> list[Step]:
    """Upstage Solar Open 2: every ``<|tool_call:start|>NAME ... <|tool_call:end|>`` after a leading
    ``<|think:start|>...<|think:end|>``.

    >>> read_solar_open2('<|tool_call:start|>f\\n<|tool_arg:start|>x<|tool_arg:value|>Seoul<|tool_arg:end|>\\n'
    ...                  '<|tool_call:end|>', Limits())
    [Step(name='f', args={'x': 'Seoul'})]
    """
    return read_pairs(text, limits, types, SOLAR_OPEN2, fmt)


def read_pairs(text: str, limits: Limits, types: TypeHint | None, dialect: Dialect, fmt: str,
               between: Callable[[int, int], None] | None = None) -> list[Step]:
    """Every call block of ``dialect`` after its leading reasoning; text with none is no calls. Prose around the
    blocks is skipped; the section tags there (if the dialect has them) must pair up, and ``between(low, high)``
    checks each stretch of it. A value is typed by ``types`` when it names the parameter's type, else by the
    ``arg_type`` the model wrote (K2), else it is the JSON value when its text parses as JSON, else the text."""
    if len(text) > limits.max_size:
        check_text(text, limits, fmt)  # values are bare text: brackets in them are not nesting
    start = after_reasoning(text, dialect, fmt)
    spans = _blocks(text, start, dialect, fmt)
    if not spans:
        _no_kin(text, start, dialect, fmt)
    gaps = _gaps(text, start, spans, dialect)
    for low, high in gaps if between is not None else ():
        between(low, high)
    _sections(text, gaps, dialect, fmt)
    _no_stray_tags(text, gaps, dialect, fmt)
    return [step for begin, end in spans for step in _call(text, begin, end, limits, types, dialect, fmt)]


def _no_stray_tags(text: str, gaps: list[tuple[int, int]], dialect: Dialect, fmt: str) -> None:
    """Prose around the blocks holds none of the tags a call is written with (a key, a value, a type, the name's
    separator, a block's closing tag): one there is a call whose opening tag was left out, or a reply that is
    not all this format's, and reading the blocks alone would drop it without a word."""
    tags = [t for t in (dialect.key_open, dialect.key_close, dialect.value_open, dialect.value_close, dialect.sep,
                        dialect.type_open, dialect.type_close, dialect.call_close) if t]
    for low, high in gaps:
        found = [(p, tag) for tag in tags if (p := text.find(tag, low, high)) != -1]
        if found:
            at, tag = min(found)
            raise ParseError(f"{tag} outside a {dialect.call_open} block: a call's tag where no call is open",
                             line_col(text, at), fmt)


def _no_kin(text: str, start: int, dialect: Dialect, fmt: str) -> None:
    """Text with no call block of ``dialect`` but another key/value family's tokens was written for that family:
    an error naming it, never a silent no-call."""
    for name, markers in _KIN:
        if dialect.model in _KIN_MODELS[name]:
            continue
        found = [p for p in (text.find(m, start) for m in markers) if p != -1]
        if found:
            raise ParseError(f"no {dialect.call_open} call, but {name}'s tokens: pass format={name!r}",
                             line_col(text, min(found)), fmt)


def after_reasoning(text: str, dialect: Dialect, fmt: str) -> int:
    """Where the answer starts: after a leading reasoning block of ``dialect`` (:func:`ek.parsing.chat_text.after_think`
    with the dialect's tags).

    >>> text = "<|think:start|>hm<|think:end|>Sure."
    >>> text[after_reasoning(text, SOLAR_OPEN2, "solar-open2"):]
    'Sure.'
    """
    return chat_text.after_think(text, fmt, dialect.thinks)


def starts_glm_block(text: str, after: int) -> bool:
    """Whether the ``<tool_call>`` block whose content starts at ``after`` is GLM's: a bare tool name followed
    by ``<arg_key>`` or by ``</tool_call>``. JSON, Python calls, fences and ``<function=`` never are.

    >>> starts_glm_block("<tool_call>f\\n<arg_key>x</arg_key>", 11), starts_glm_block("<tool_call>f</tool_call>", 11)
    (True, True)
    >>> starts_glm_block('<tool_call>{"name": "f"}</tool_call>', 11), starts_glm_block("<tool_call>f(x=1)", 11)
    (False, False)
    """
    if not bare_name_at(text, after):
        return False
    tag = _skip_blank(text, _name_end(text, after, len(text)), len(text))
    return text.startswith(KEY_OPEN, tag) or text.startswith(GLM45.call_close, tag)


def bare_name_at(text: str, after: int) -> bool:
    """Whether a bare tool name (no spaces, brackets, quotes or ``=``) starts at ``after`` and runs to the end
    of its line, the next tag or the end of the text.

    >>> bare_name_at("<tool_call>get_weather", 11), bare_name_at("<tool_call>f(x=1)", 11)
    (True, False)
    """
    name = _strip_blank(text[after:_name_end(text, after, len(text))])
    return bool(name) and not any(c in NOT_IN_NAME for c in name)


def _blocks(text: str, start: int, dialect: Dialect, fmt: str) -> list[tuple[int, int]]:
    """``(begin, end)`` of each call block's content after ``start``: a closing tag with no opening one, an
    opening tag inside an open block and a block left open (cut short) are errors."""
    opener, closer = dialect.call_open, dialect.call_close
    spans: list[tuple[int, int]] = []
    pos = start
    while True:
        opening = text.find(opener, pos)
        stray = text.find(closer, pos, len(text) if opening == -1 else opening)
        if stray != -1:
            raise ParseError(f"{closer} without an opening {opener}", line_col(text, stray), fmt)
        if opening == -1:
            return spans
        begin = opening + len(opener)
        end = text.find(closer, begin)
        inner = text.find(opener, begin, len(text) if end == -1 else end)
        if inner != -1:
            line, column = line_col(text, opening)
            raise ParseError(f"{opener} inside an unclosed {opener} block (opened at line {line}, column {column})",
                             line_col(text, inner), fmt)
        if end == -1:
            raise ParseError(f"a {opener} block is not closed by {closer} (output cut short?)",
                             line_col(text, opening), fmt, cut_short=True)
        spans.append((begin, end))
        pos = end + len(closer)


def _gaps(text: str, start: int, spans: list[tuple[int, int]], dialect: Dialect) -> list[tuple[int, int]]:
    """The stretches of ``text`` after ``start`` outside the call blocks ``spans`` (their tags included)."""
    opened_at, closed_at = len(dialect.call_open), len(dialect.call_close)
    edges = [start, *(p for begin, end in spans for p in (begin - opened_at, end + closed_at)), len(text)]
    return list(zip(edges[::2], edges[1::2], strict=True))


def _sections(text: str, gaps: list[tuple[int, int]], dialect: Dialect, fmt: str) -> None:
    """The section tags outside the blocks must pair up, each opened one closed (else the output was cut short),
    and a section holds calls only: text in it between them is an error (vLLM reads no call from it either)."""
    if not dialect.section_open:
        return
    opener, closer = dialect.section_open, dialect.section_close
    opened = -1
    for low, high in gaps:
        pos = low
        while True:
            hits = [(p, tag) for tag in (opener, closer) if (p := text.find(tag, pos, high)) != -1]
            at, tag = min(hits) if hits else (high, "")
            if opened != -1:
                _blank_inside(text, pos, at, dialect, fmt)
            if not hits:
                break
            if tag == opener and opened != -1:
                raise ParseError(f"{opener} inside an unclosed {opener}", line_col(text, at), fmt)
            if tag == closer and opened == -1:
                raise ParseError(f"{closer} without an opening {opener}", line_col(text, at), fmt)
            opened = at if tag == opener else -1
            pos = at + len(tag)
    if opened != -1:
        raise ParseError(f"the calls are not closed by {closer} (output cut short?)", line_col(text, opened), fmt,
                         cut_short=True)


def _blank_inside(text: str, pos: int, stop: int, dialect: Dialect, fmt: str) -> None:
    """``text[pos:stop]``, inside a section between its calls, must be blank; the start of a tag at the very end
    of the output is a cut-short one."""
    first = _skip_blank(text, pos, stop)
    if first >= stop:
        return
    rest = text[first:stop]
    cut = stop == len(text) and any(t.startswith(rest) for t in (dialect.call_open, dialect.section_close))
    raise ParseError(f"expected {dialect.call_open} or {dialect.section_close} between the calls"
                     + (" (output cut short?)" if cut else ""), line_col(text, first), fmt, cut_short=cut)


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


def _call(text: str, begin: int, end: int, limits: Limits, types: TypeHint | None, dialect: Dialect,
          fmt: str) -> list[Step]:
    """The call in the block ``text[begin:end]`` (between its opening and closing tags); K2's JSON dialect may
    hold several."""
    pos = _skip_blank(text, begin, end)
    if dialect.json_body and pos < end and text[pos] in "{[":
        return _json_calls(text, pos, end, limits, dialect, fmt)
    name_end = _name_end(text, pos, end)
    name = _strip_blank(text[pos:name_end])
    after_name = dialect.sep or f"{dialect.key_open} or {dialect.call_close}"
    if not name:
        raise ParseError(f"the tool name is empty: expected {dialect.call_open}NAME", line_col(text, pos), fmt)
    bad = next((i for i in range(pos, pos + len(name)) if text[i] in NOT_IN_NAME), None)
    if bad is not None:
        raise ParseError(f"expected the tool name then {after_name}, found {text[bad]!r} in the name",
                         line_col(text, bad), fmt)
    pos = name_end
    if dialect.sep:
        pos = _skip_blank(text, pos, end)
        if not text.startswith(dialect.sep, pos):
            raise ParseError(f"expected {dialect.sep} after the tool name {name!r}", line_col(text, pos), fmt)
        pos += len(dialect.sep)
    args: dict[str, Any] = {}
    while True:
        pos = _skip_blank(text, pos, end)
        if pos >= end:
            return [Step(name, args)]
        if not text.startswith(dialect.key_open, pos):
            hy3 = " (<tool_sep> after the name is Tencent Hy3's: pass format='hunyuan')" \
                if not dialect.sep and text.startswith("<tool_sep", pos) else ""
            raise ParseError(f"expected {dialect.key_open} or {dialect.call_close}{hy3}", line_col(text, pos), fmt)
        pair_at = pos
        key, written, value_at, pos = _pair(text, pair_at, end, dialect, fmt)
        if key in args:
            raise ParseError(f"parameter {key!r} given twice", line_col(text, pair_at), fmt)
        raw = text[value_at:pos - len(dialect.value_close)]
        kind = types(name, key) if types is not None else None
        if kind is None and written is not None:
            kind = "string" if written == "any" else written
        args[key] = typed_text(raw, kind, limits, fmt, partial(line_col, text, value_at))


def _pair(text: str, at: int, end: int, dialect: Dialect, fmt: str) -> tuple[str, str | None, int, int]:
    """The key/value pair at ``at``: the key, the type the model wrote for it (K2's ``arg_type``, its base name
    lowercased: ``array[string]`` is ``array``; None if absent), where the value starts, and where the pair
    ends. Each tag must be closed before the next one opens: a left-out closing tag is an error at it."""
    key_at = at + len(dialect.key_open)
    openers = tuple(t for t in (dialect.key_open, dialect.value_open, dialect.type_open) if t)
    key_close = _closing(text, key_at, end, dialect.key_close, openers, at, dialect.key_open, dialect, fmt)
    key = text[key_at:key_close].strip()
    if not key:
        raise ParseError("a parameter with an empty name", line_col(text, at), fmt)
    pos = key_close + len(dialect.key_close)
    written = None
    if dialect.type_open and text.startswith(dialect.type_open, type_at := _skip_blank(text, pos, end)):
        type_close = _closing(text, type_at + len(dialect.type_open), end, dialect.type_close, openers, type_at,
                              dialect.type_open, dialect, fmt)
        written = text[type_at + len(dialect.type_open):type_close].split("[", 1)[0].strip().lower()
        if not written:
            raise ParseError(f"an empty {dialect.type_open} for parameter {key!r}", line_col(text, type_at), fmt)
        pos = type_close + len(dialect.type_close)
    if dialect.value_open:
        pos = _skip_blank(text, pos, end)
        if not text.startswith(dialect.value_open, pos):
            raise ParseError(f"expected {dialect.value_open} after the parameter name {key!r}", line_col(text, pos),
                             fmt)
        value_at = pos + len(dialect.value_open)
    else:
        value_at = pos  # Solar Open 2: the value starts right after the key's closing token
    opener = dialect.value_open or dialect.key_close
    value_close = _closing(text, value_at, end, dialect.value_close, (dialect.key_open,), value_at - len(opener),
                           opener, dialect, fmt)
    return key, written, value_at, value_close + len(dialect.value_close)


def _closing(text: str, start: int, end: int, tag: str, openers: tuple[str, ...], opened: int, what: str,
             dialect: Dialect, fmt: str) -> int:
    """Where ``tag`` closes the ``what`` opened at ``opened`` (searched from ``start`` to ``end``); an error if it
    is missing or if one of ``openers`` comes first (the model left the closing tag out)."""
    close = text.find(tag, start, end)
    limit = end if close == -1 else close
    for opener in openers:
        inner = text.find(opener, start, limit)
        if inner != -1:
            line, column = line_col(text, opened)  # only for the error: counting lines per value is quadratic
            raise ParseError(f"{opener} before the {tag} that closes the {what} at line {line}, column {column}",
                             line_col(text, inner), fmt)
    if close == -1:
        raise ParseError(f"{what} is not closed by {tag} before {dialect.call_close}", line_col(text, opened), fmt)
    return close


def _json_calls(text: str, pos: int, end: int, limits: Limits, dialect: Dialect, fmt: str) -> list[Step]:
    """K2's json dialect: one ``{"name", "arguments"}`` object, or a list of them, as the block's content."""
    value, after = json_text.decode_at(text, pos, limits, fmt)
    rest = _skip_blank(text, after, end)
    if rest < end:
        raise ParseError(f"expected {dialect.call_close} after the JSON call", line_col(text, rest), fmt)
    return calls_from_json(value, text, pos, limits, fmt)


def _hy_suffix(text: str) -> str:
    """The suffix of the first well-formed Hunyuan tag in ``text`` (``":opensource"`` in
    ``<tool_calls:opensource>``; ``""`` for ``<tool_calls>`` or when there is none)."""
    first = (len(text), "")
    for name in ("think", "tool_calls", "tool_call"):
        for prefix in (f"<{name}", f"</{name}"):
            pos = text.find(prefix)
            while pos != -1 and pos < first[0]:
                suffix = _tag_suffix(text, pos + len(prefix))
                if suffix is not None:
                    first = (pos, suffix)
                    break
                pos = text.find(prefix, pos + 1)
    return first[1]


def _tag_suffix(text: str, pos: int) -> str | None:
    """The suffix of the tag whose name ends at ``pos``: ``""`` for ``>``, ``":X"`` for ``:X>`` (X holds no
    whitespace or ``<``, as vLLM reads it from the vocabulary), else None (another tag or text)."""
    if text.startswith(">", pos):
        return ""
    if not text.startswith(":", pos):
        return None
    close = text.find(">", pos, pos + 200)
    suffix = text[pos:close] if close != -1 else ""
    if len(suffix) < 2 or any(c in " \t\r\n<" for c in suffix):
        return None
    return suffix


def _same_suffix(text: str, suffix: str, dialect: Dialect, fmt: str, low: int, high: int) -> None:
    """A checkpoint writes one suffix: a Hunyuan tag with another one (or none) between the calls (``text[low:high]``)
    is an error at it, never prose. Inside a call the tags are read strictly, and a value is text."""
    for name in _HY_TAGS:
        for prefix in (f"<{name}", f"</{name}"):
            pos = text.find(prefix, low, high)
            while pos != -1:
                found = _tag_suffix(text, pos + len(prefix))
                if found is not None and found != suffix:
                    raise ParseError(f"{prefix}{found}>: a Hunyuan tag with another suffix than {dialect.call_open} "
                                     "(a checkpoint writes one)", line_col(text, pos), fmt)
                pos = text.find(prefix, pos + len(prefix), high)
