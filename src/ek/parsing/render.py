"""Steps -> each supported output format: the inverse of :func:`ek.parsing.parse_calls`.

Useful for fixtures and for feeding BFCL-style tooling; the property tests
check ``parse_calls(render(calls)) == calls`` for every format.
"""

from __future__ import annotations

import json
import keyword
import math
from collections.abc import Callable, Collection, Iterable, Mapping
from typing import Any

from ek.calls import Step


def _identifier(name: str, what: str) -> str:
    if not name.isidentifier() or keyword.iskeyword(name):
        raise ValueError(f"{what} {name!r} cannot be written in Python call syntax")
    return name


class _NoLiteral(ValueError):
    """A value with no Python literal form; ``where`` grows as it propagates out of containers."""

    def __init__(self, what: str, where: str = "") -> None:
        super().__init__(what)
        self.what, self.where = what, where


def _py_value(value: Any) -> str:
    if value is None or isinstance(value, (bool, int, str)):
        return repr(value)
    if isinstance(value, float):
        if not math.isfinite(value):
            raise _NoLiteral(f"{value!r} has no literal form")
        return repr(value)
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_py_item(v, f"[{i}]") for i, v in enumerate(value)) + "]"
    if isinstance(value, Mapping):
        return "{" + ", ".join(f"{_py_value(str(k))}: {_py_item(v, f'[{str(k)!r}]')}" for k, v in value.items()) + "}"
    raise _NoLiteral(f"{type(value).__name__} has no literal form")


def _py_item(value: Any, step: str) -> str:
    try:
        return _py_value(value)
    except _NoLiteral as exc:
        raise _NoLiteral(exc.what, step + exc.where) from None


def _py_argument(index: int, call: Step, name: str, value: Any) -> str:
    try:
        return f"{_identifier(name, 'argument name')}={_py_value(value)}"
    except _NoLiteral as exc:
        raise ValueError(f"call {index} ({call.name!r}), argument {name!r}{exc.where}: {exc.what}") from None


def to_python(calls: Iterable[Step]) -> str:
    """``[name(arg=value, ...), ...]`` with literal values.

    >>> to_python([Step("math.hypot", {"x": 3, "y": -4.0}), Step("f", {"s": ["a"]})])
    "[math.hypot(x=3, y=-4.0), f(s=['a'])]"
    """
    parts = []
    for index, call in enumerate(calls):
        name = ".".join(_identifier(p, "tool name part") for p in call.name.split("."))
        args = ", ".join(_py_argument(index, call, k, v) for k, v in call.args.items())
        parts.append(f"{name}({args})")
    return "[" + ", ".join(parts) + "]"


def to_openai(calls: Iterable[Step]) -> dict[str, Any]:
    """An assistant message with ``tool_calls`` (arguments as JSON text)."""
    return {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {
                "id": f"call_{i}",
                "type": "function",
                "function": {"name": c.name, "arguments": json.dumps(dict(c.args), allow_nan=False)},
            }
            for i, c in enumerate(calls)
        ],
    }


def to_anthropic(calls: Iterable[Step]) -> dict[str, Any]:
    """An assistant message whose content is ``tool_use`` blocks."""
    return {
        "role": "assistant",
        "content": [
            {"type": "tool_use", "id": f"toolu_{i}", "name": c.name, "input": dict(c.args)}
            for i, c in enumerate(calls)
        ],
    }


def to_json(calls: Iterable[Step]) -> list[dict[str, Any]]:
    """``[{"name": ..., "arguments": {...}}, ...]``."""
    return [{"name": c.name, "arguments": dict(c.args)} for c in calls]


def to_bfcl(calls: Iterable[Step]) -> list[dict[str, Any]]:
    """BFCL's decoded form ``[{"func": {"arg": value}}, ...]``."""
    return [{c.name: dict(c.args)} for c in calls]


def to_hermes(calls: Iterable[Step]) -> str:
    """Hermes/Qwen chat text: one ``<tool_call>`` block per call. ``<`` in values is written ``\\u003c``
    so no value can close its block early."""
    return "\n".join(
        "<tool_call>\n" + json.dumps({"name": c.name, "arguments": dict(c.args)}, allow_nan=False)
        .replace("<", "\\u003c") + "\n</tool_call>"
        for c in calls
    )


def _json(value: Any) -> str:
    """Compact-ish JSON with ``<`` written ``\\u003c``: no string value can form a format's tag."""
    return json.dumps(value, allow_nan=False, ensure_ascii=False).replace("<", "\\u003c")


def to_llama3(calls: Iterable[Step]) -> str:
    """Llama 3.1 custom tools: ``<|python_tag|>`` then ``{"name", "parameters"}`` objects joined by ``; ``."""
    calls = list(calls)
    if not calls:
        return ""  # no calls: the model writes no tag at all
    return "<|python_tag|>" + "; ".join(_json({"name": c.name, "parameters": dict(c.args)}) for c in calls)


def to_mistral(calls: Iterable[Step]) -> str:
    """Mistral (v11+ templates): ``[TOOL_CALLS]name[ARGS]{...}`` per call. A tool name is written bare, so one
    holding a space, a quote, a bracket or a brace (which the reader refuses, or takes for [ARGS]) is refused."""
    return "".join(f"[TOOL_CALLS]{_bare_name(c.name, 'tool name', 'Mistral', _MISTRAL_UNWRITABLE)}"
                   f"[ARGS]{_json(dict(c.args))}" for c in calls)


#: What a Mistral tool name cannot hold (its reader's rule: the name ends at a bracket or brace).
_MISTRAL_UNWRITABLE = " \t\r\n[]{}\"'"


def _bare_name(name: str, what: str, family: str, unwritable: Collection[str]) -> str:
    """A name written as it is between a format's tokens, which its reader strips of surrounding spaces: refused
    (ValueError) when it is empty, has spaces at either end (it would read back without them) or holds one of
    ``unwritable`` (it would end the name, or open a token)."""
    if not name or name != name.strip() or any(c in name for c in unwritable):
        raise ValueError(f"the {what} {name!r} cannot be written in {family}'s format")
    return name


def to_qwen3_coder(calls: Iterable[Step]) -> str:
    """Qwen3-Coder XML, one ``<tool_call>`` per call; values as :func:`ek.parsing.native.render_xml_value` writes
    them, so reading without a grammar gives them back."""
    from ek.parsing.native import render_xml_value  # the reader owns the value convention it reads

    return "\n".join(
        "<tool_call>\n<function=" + _bare_name(c.name, "tool name", "Qwen3-Coder", _QWEN3_UNWRITABLE) + ">\n"
        + "".join(f"<parameter={_bare_name(k, 'parameter name', 'Qwen3-Coder', _QWEN3_UNWRITABLE)}>\n"
                  f"{render_xml_value(v)}\n</parameter>\n" for k, v in c.args.items())
        + "</function>\n</tool_call>"
        for c in calls)


#: What a Qwen3-Coder name cannot hold: ``>`` ends it, ``<`` could open a tag, and a line break is dropped.
_QWEN3_UNWRITABLE = "<>\n"


def to_deepseek(calls: Iterable[Step]) -> str:
    """DeepSeek V3/R1: typed calls with a fenced JSON object each, inside the calls block."""
    calls = list(calls)
    if not calls:
        return ""  # no calls: the model writes no tag at all
    body = "".join(f"<｜tool▁call▁begin｜>function<｜tool▁sep｜>{_deepseek_name(c.name)}\n```json\n"
                   f"{_json(dict(c.args))}\n```<｜tool▁call▁end｜>" for c in calls)
    return f"<｜tool▁calls▁begin｜>{body}<｜tool▁calls▁end｜>"


def _deepseek_name(name: str) -> str:
    """A tool name on its line after ``<｜tool▁sep｜>``: no line break (the name ends at one), no spaces around it,
    and no ``{`` first (the reader would take the line for V3.1's arguments)."""
    if name.startswith("{"):
        raise ValueError(f"the tool name {name!r} cannot be written in DeepSeek's format")
    return _bare_name(name, "tool name", "DeepSeek", "\n")


def to_deepseek_v32(calls: Iterable[Step]) -> str:
    """DeepSeek V3.2's DSML, as its ``encoding_dsv32.py`` writes it: strings as text (``string="true"``), other
    values as JSON (``string="false"``). A string holding ``<`` (the format has no escaping, and a tag of any
    format in a value would be read as one) is written as a JSON string with ``<`` as ``\\u003c``, which reads
    back the same. The ``deepseek`` format reads
    it; :func:`render` with ``"deepseek"`` writes V3's encoding.

    >>> to_deepseek_v32([Step("f", {"city": "Paris", "n": 3})]).splitlines()[2]
    '<｜DSML｜parameter name="city" string="true">Paris</｜DSML｜parameter>'
    """
    from ek.parsing.dsml import V32  # the reader owns the tags it reads

    return _dsml(calls, V32)


def to_deepseek_v4(calls: Iterable[Step]) -> str:
    """DeepSeek V4's DSML (``encoding_dsv4.py``): V3.2's, in a ``<｜DSML｜tool_calls>`` section.

    >>> to_deepseek_v4([Step("f", {"n": 3})]).splitlines()[0::4]
    ['<｜DSML｜tool_calls>', '</｜DSML｜tool_calls>']
    """
    from ek.parsing.dsml import V4

    return _dsml(calls, V4)


def to_deepseek_v41(calls: Iterable[Step]) -> str:
    """DeepSeek V4.1's DSML (``encoding_dsv41.py``): V4's, with a space before each tag name.

    >>> to_deepseek_v41([Step("f", {"n": 3})]).splitlines()[1:3]
    ['<｜DSML｜ invoke name="f">', '<｜DSML｜ parameter name="n" string="false">3</｜DSML｜ parameter>']
    """
    from ek.parsing.dsml import V41

    return _dsml(calls, V41)


def _dsml(calls: Iterable[Step], dialect: Any) -> str:
    """``calls`` in one DSML section of ``dialect`` (an :class:`ek.parsing.dsml.Dialect`), as DeepSeek's
    encoders write it (see :func:`to_deepseek_v32` for how values are written)."""
    calls = list(calls)
    if not calls:
        return ""  # no calls: the model writes no tag at all

    def parameter(key: str, value: Any) -> str:
        as_text = isinstance(value, str) and "<" not in value
        body = value if as_text else _json(value)
        return (f'{dialect.param_open} name="{_attribute(key)}" string="{"true" if as_text else "false"}">{body}'
                f"{dialect.param_close}")

    invokes = [f'{dialect.invoke_open} name="{_attribute(c.name)}">\n'
               + "".join(parameter(k, v) + "\n" for k, v in c.args.items()) + dialect.invoke_close for c in calls]
    return f"{dialect.calls_open}\n" + "\n".join(invokes) + f"\n{dialect.calls_close}"


def _attribute(name: str, fmt: str = "DSML") -> str:
    """A tool or parameter name as a DSML (or MiniMax) attribute value: it has no escaping, so a name holding
    ``"``, ``<``, ``>`` or a line break cannot be written, nor one with surrounding spaces (readers drop them)."""
    if not name or any(c in name for c in '"<>\n') or name != name.strip():
        raise ValueError(f"the name {name!r} cannot be written as a {fmt} attribute")
    return name


def to_glm45(calls: Iterable[Step]) -> str:
    """GLM-4.5/4.6's ``<tool_call>`` blocks, one per call, as its chat template writes them; values as
    :func:`ek.parsing.native.render_xml_value` writes them, so reading without a grammar gives them back.

    >>> to_glm45([Step("f", {"city": "Paris", "n": 3})]).splitlines()[:4]
    ['<tool_call>f', '<arg_key>city</arg_key>', '<arg_value>Paris</arg_value>', '<arg_key>n</arg_key>']
    """
    from ek.parsing.glm import GLM45  # the reader owns the tags it reads

    return _pairs(calls, GLM45)


def to_hunyuan(calls: Iterable[Step]) -> str:
    """Tencent Hy4's calls as its open checkpoint writes them: GLM-4.7's tags with the ``:opensource`` suffix,
    in one ``<tool_calls:opensource>`` section, no whitespace between tags (values as :func:`to_glm45`'s).

    >>> to_hunyuan([Step("f", {"n": 3})])[:67]
    '<tool_calls:opensource><tool_call:opensource>f<arg_key:opensource>n'
    """
    from ek.parsing.glm import HY4

    return _pairs(calls, HY4)


def to_hunyuan_hy3(calls: Iterable[Step]) -> str:
    """Tencent Hy3's calls: ``<tool_calls>``, each call ``<tool_call>NAME<tool_sep>`` then one tag a line. The
    ``hunyuan`` format reads it.

    >>> to_hunyuan_hy3([Step("f", {"n": 3})]).splitlines()[:3]
    ['<tool_calls>', '<tool_call>f<tool_sep>', '<arg_key>n</arg_key>']
    """
    from ek.parsing.glm import HY3

    return _pairs(calls, HY3)


def to_k2_horizon(calls: Iterable[Step]) -> str:
    """K2 Horizon's xml tool-call format, as its template's ``render_tool_calls_block`` writes it: GLM-4.5's
    layout with ``<ifm|...>`` tags, inside ``<ifm|tool_calls>``.

    >>> to_k2_horizon([Step("f", {"n": 3})]).splitlines()[:3]
    ['<ifm|tool_calls>', '<ifm|tool_call>f', '<ifm|arg_key>n</ifm|arg_key>']
    """
    from ek.parsing.glm import K2_HORIZON

    return _pairs(calls, K2_HORIZON)


def to_solar_open2(calls: Iterable[Step]) -> str:
    """Solar Open 2's calls: ``<|tool_call:start|>NAME``, one ``<|tool_arg:start|>K<|tool_arg:value|>V
    <|tool_arg:end|>`` a line, ``<|tool_call:end|>``; calls one after another.

    >>> to_solar_open2([Step("f", {"n": 3})]).splitlines()
    ['<|tool_call:start|>f', '<|tool_arg:start|>n<|tool_arg:value|>3<|tool_arg:end|>', '<|tool_call:end|>']
    """
    from ek.parsing.glm import SOLAR_OPEN2

    return _pairs(calls, SOLAR_OPEN2)


def _pairs(calls: Iterable[Step], dialect: Any) -> str:
    """``calls`` in ``dialect`` (an :class:`ek.parsing.glm.Dialect`), laid out as its template writes them; values
    as :func:`ek.parsing.native.render_xml_value` writes them (a string holding ``<`` or reading as JSON is a JSON
    string, ``<`` as ``\\u003c``), so no value can form a tag and reading without a grammar gives them back."""
    from ek.parsing.native import render_xml_value  # the reader owns the value convention it reads

    calls = list(calls)
    if not calls:
        return ""  # no calls: the model writes no tag at all
    d = dialect
    mid = d.pair_sep if d.value_open else ""  # Solar Open 2's value starts right after its key's closing token
    blocks = d.call_sep.join(
        f"{d.call_open}{_glm_tool_name(c.name)}{d.sep}{d.name_sep}" + "".join(
            f"{d.key_open}{_glm_name(k, 'parameter name')}{d.key_close}{mid}{d.value_open}{render_xml_value(v)}"
            f"{d.value_close}{d.pair_sep}" for k, v in c.args.items()) + d.call_close for c in calls)
    if not d.section_open:
        return blocks
    return f"{d.section_open}{d.call_sep}{blocks}{d.call_sep}{d.section_close}"


def _glm_name(name: str, what: str) -> str:
    """A name GLM's format can hold: no ``<`` (it would start a tag) and no surrounding or inner line breaks."""
    return _bare_name(name, what, "GLM", "<\n")


def _glm_tool_name(name: str) -> str:
    """A tool name of GLM's family of formats: none of the characters its reader refuses in one (spaces, brackets,
    quotes and the like: :data:`ek.parsing.glm.NOT_IN_NAME`)."""
    from ek.parsing.glm import NOT_IN_NAME  # the reader owns the rule

    return _bare_name(name, "tool name", "GLM", NOT_IN_NAME)


def to_minimax_m2(calls: Iterable[Step]) -> str:
    """MiniMax-M2's ``<minimax:tool_call>`` block, all calls in one, as its chat template writes them (one
    ``<invoke>`` a call, one ``<parameter>`` a line); values as :func:`ek.parsing.native.render_xml_value` writes
    them (the template writes strings as they are, so a string that would read as JSON, has surrounding
    whitespace or holds ``<`` is written as a JSON string, ``<`` as ``\\u003c``), so reading without a grammar
    gives them back.

    >>> print(to_minimax_m2([Step("f", {"city": "Paris", "n": 3})]))
    <minimax:tool_call>
    <invoke name="f">
    <parameter name="city">Paris</parameter>
    <parameter name="n">3</parameter>
    </invoke>
    </minimax:tool_call>
    """
    calls = list(calls)
    if not calls:
        return ""  # no calls: the model writes no tag at all
    from ek.parsing.invoke import MINIMAX_M2

    return (f"{MINIMAX_M2.block_open}\n{_invoke_text(calls, 'minimax-m2', '', '', chr(10), 'MiniMax')}\n"
            f"{MINIMAX_M2.block_close}")


def to_minimax_m3(calls: Iterable[Step]) -> str:
    """MiniMax-M3's block, all calls in one, as its chat template writes them: ``]<]minimax[>[`` before every tag,
    one ``<invoke>`` a line, each argument an element named by its key (no line breaks inside the invoke), a dict
    as one element a key and a list as one ``<item>`` element an item (the template's ``to_xml``). A leaf is
    written as :func:`ek.parsing.native.render_xml_value` writes it, so reading without a grammar gives it back;
    so are the values the template's elements cannot give back (an empty list or dict, which it writes as nothing,
    a dict of the one key ``item``, which reads as a list, and a dict with a key no tag can hold); a string that
    would make another format's marker with the tokens around it (``[TOOL_CALLS`` before ``]<]``) is written as a
    JSON string too, so ``auto`` reads the text as MiniMax-M3's.

    >>> print(to_minimax_m3([Step("f", {"city": "Paris", "tags": ["a", "b"]})]).replace("]<]minimax[>[", "~"))
    ~<tool_call>
    ~<invoke name="f">~<city>Paris~</city>~<tags>~<item>a~</item>~<item>b~</item>~</tags>~</invoke>
    ~</tool_call>
    """
    calls = list(calls)
    if not calls:
        return ""  # no calls: the model writes no tag at all
    from ek.parsing.api import detect_text
    from ek.parsing.invoke import MINIMAX_M3, NS, tag_name_problem
    from ek.parsing.native import render_xml_value

    def own(fragment: str) -> bool:  # no other format's marker, even across the tokens around it, for auto
        return all(name == "minimax-m3" for name, _ in detect_text(f"{NS}{fragment}{NS}"))

    def tag(key: str) -> bool:
        return tag_name_problem(key) is None and own(f"<{key}>") and own(f"</{key}>")

    def element(key: str, value: Any) -> str:
        if not tag(key):
            raise ValueError(f"the key {key!r} cannot be written as a MiniMax-M3 element")
        return f"{NS}<{key}>{body(value)}{NS}</{key}>"

    def body(value: Any) -> str:
        if isinstance(value, list) and value:
            return "".join(element("item", v) for v in value)
        if isinstance(value, dict) and value and set(value) != {"item"} and all(tag(k) for k in value):
            return "".join(element(k, v) for k, v in value.items())
        text = render_xml_value(value)
        return text if own(f">{text}") else json.dumps(text if isinstance(value, str) else value, ensure_ascii=False)

    invokes = "\n".join(f'{MINIMAX_M3.invoke_open} name="{_attribute(c.name, "MiniMax")}">'
                        + "".join(element(k, v) for k, v in c.args.items()) + MINIMAX_M3.invoke_close
                        for c in calls)
    return f"{MINIMAX_M3.block_open}\n{invokes}\n{MINIMAX_M3.block_close}"


def _invoke_text(calls: list[Step], fmt: str, call_open: str, call_close: str, sep: str, family: str) -> str:
    """Each call as an ``invoke`` element of ``fmt``'s dialect (:mod:`ek.parsing.invoke`), wrapped in
    ``call_open``/``call_close``, joined by ``sep``; values as :func:`ek.parsing.native.render_xml_value` writes
    them, so reading without a grammar gives them back."""
    from ek.parsing.invoke import DIALECTS  # the reader owns the tags it reads
    from ek.parsing.native import render_xml_value

    d = DIALECTS[fmt]
    return sep.join(f'{call_open}<{d.invoke} name="{_attribute(c.name, family)}">{sep}' + "".join(
        f'<{d.parameter} name="{_attribute(k, family)}">{render_xml_value(v)}{d.param_close}{sep}'
        for k, v in c.args.items()) + f"{d.invoke_close}{call_close}" for c in calls)


def to_step3(calls: Iterable[Step]) -> str:
    """Step-3's section, as SGLang's detector documents it: ``<｜tool_calls_begin｜>``, then each call in
    ``<｜tool_call_begin｜>function<｜tool_sep｜>`` ... ``<｜tool_call_end｜>`` on its own line, one
    ``<steptml:parameter>`` a line.

    >>> print(to_step3([Step("f", {"city": "Paris", "n": 3})]))
    <｜tool_calls_begin｜>
    <｜tool_call_begin｜>function<｜tool_sep｜><steptml:invoke name="f">
    <steptml:parameter name="city">Paris</steptml:parameter>
    <steptml:parameter name="n">3</steptml:parameter>
    </steptml:invoke><｜tool_call_end｜>
    <｜tool_calls_end｜>
    """
    calls = list(calls)
    if not calls:
        return ""  # no calls: the model writes no tag at all
    from ek.parsing.invoke import STEP3

    body = _invoke_text(calls, "step3", f"{STEP3.call_open}{STEP3.header}", str(STEP3.call_close), "\n", "Step-3")
    return f"{STEP3.block_open}\n{body}\n{STEP3.block_close}"


def to_dots(calls: Iterable[Step]) -> str:
    """dots.llm's ``<dots_function_call>`` block, all calls in one, one ``<invoke>`` a call and one ``<parameter>``
    a line, as vLLM's and SGLang's parsers document the canonical body.

    >>> print(to_dots([Step("f", {"city": "Paris"})]))
    <dots_function_call>
    <invoke name="f">
    <parameter name="city">Paris</parameter>
    </invoke>
    </dots_function_call>
    """
    calls = list(calls)
    if not calls:
        return ""  # no calls: the model writes no tag at all
    from ek.parsing.invoke import DOTS

    return f"{DOTS.block_open}\n{_invoke_text(calls, 'dots', '', '', chr(10), 'dots')}\n{DOTS.block_close}"


def to_minicpm(calls: Iterable[Step]) -> str:
    """MiniCPM 4/5's bare calls, one ``<function>`` a line, its ``<param>`` elements inline, as vLLM's and SGLang's
    tests write them.

    >>> to_minicpm([Step("f", {"city": "Paris", "n": 3})])
    '<function name="f"><param name="city">Paris</param><param name="n">3</param></function>'
    """
    calls = list(calls)
    return "\n".join(_invoke_text([c], "minicpm", "", "", "", "MiniCPM") for c in calls)


def to_granite(calls: Iterable[Step]) -> str:
    """Granite 3.0: ``<|tool_call|>`` then a JSON list of ``{"name", "arguments"}``."""
    calls = list(calls)
    if not calls:
        return ""  # no calls: the model writes no tag at all
    return "<|tool_call|>" + _json(to_json(calls))


def to_phi4(calls: Iterable[Step]) -> str:
    """Phi-4-mini: ``functools`` then a JSON list of ``{"name", "arguments"}``."""
    calls = list(calls)
    if not calls:
        return ""  # no calls: the model writes no tag at all
    return "functools" + _json(to_json(calls))


def to_harmony(calls: Iterable[Step]) -> str:
    """gpt-oss Harmony: one ``commentary`` message to ``functions.NAME`` per call, each ending ``<|call|>``."""
    from ek.parsing.harmony import render_harmony  # the reader owns the tokens it reads

    return render_harmony(list(calls), _json)


def to_kimi_k2(calls: Iterable[Step]) -> str:
    """Kimi-K2: one tool-call section, call ids ``functions.NAME:IDX``."""
    from ek.parsing.kimi import render_kimi_k2  # the reader owns the tokens it reads

    return render_kimi_k2(list(calls), _json)


def to_kimi_k3(calls: Iterable[Step]) -> str:
    """Kimi-K3: one XTML tools channel, a call's arguments typed (a string as its text, any other value JSON)."""
    from ek.parsing.kimi_k3 import render_kimi_k3  # the reader owns the tokens it reads

    return render_kimi_k3(list(calls), _json)


def to_gemma4(calls: Iterable[Step]) -> str:
    """Gemma 4: ``<|tool_call>call:NAME{...}<tool_call|>`` per call, as its chat template writes them."""
    from ek.parsing.gemma import GEMMA4, render_gemma  # the reader owns the tokens it reads

    return render_gemma(list(calls), GEMMA4)


def to_functiongemma(calls: Iterable[Step]) -> str:
    """FunctionGemma: ``<start_function_call>call:NAME{...}<end_function_call>`` per call, strings in ``<escape>``."""
    from ek.parsing.gemma import FUNCTIONGEMMA, render_gemma  # the reader owns the tokens it reads

    return render_gemma(list(calls), FUNCTIONGEMMA)


def to_plamo3(calls: Iterable[Step]) -> str:
    """PLaMo 3: one block of requests, each a name and ``<|plamo:constrain|>json<|plamo:msg|>`` JSON arguments."""
    from ek.parsing.plamo import render_plamo3  # the reader owns the tokens it reads

    return render_plamo3(list(calls), _json)


def to_gemini(calls: Iterable[Step]) -> dict[str, Any]:
    """A Gemini ``Content`` of the model with one ``functionCall`` part per call."""
    return {"role": "model", "parts": [{"functionCall": {"name": c.name, "args": dict(c.args)}} for c in calls]}


def to_bedrock(calls: Iterable[Step]) -> dict[str, Any]:
    """A Bedrock Converse assistant message with ``toolUse`` content blocks."""
    return {"role": "assistant", "content": [{"toolUse": {"toolUseId": f"tooluse_{i}", "name": c.name,
                                                          "input": dict(c.args)}} for i, c in enumerate(calls)]}


def to_langchain(calls: Iterable[Step]) -> dict[str, Any]:
    """A LangChain ``AIMessage`` as a dict, ``tool_calls`` as ``{"name", "args", "id"}``."""
    return {"type": "ai", "content": "", "tool_calls": [{"name": c.name, "args": dict(c.args), "id": f"call_{i}",
                                                        "type": "tool_call"} for i, c in enumerate(calls)]}


def to_ollama(calls: Iterable[Step]) -> dict[str, Any]:
    """An Ollama chat message: ``tool_calls`` with arguments as objects."""
    return {"role": "assistant", "content": "",
            "tool_calls": [{"function": {"name": c.name, "arguments": dict(c.args)}} for c in calls]}


def to_mcp(calls: Iterable[Step]) -> list[dict[str, Any]]:
    """MCP JSON-RPC ``tools/call`` requests, one per call, numbered from 1 (a batch, as a session sends them)."""
    return [{"jsonrpc": "2.0", "id": i, "method": "tools/call", "params": {"name": c.name, "arguments": dict(c.args)}}
            for i, c in enumerate(calls, 1)]


def _wrapped(fmt: str) -> Callable[[Iterable[Step]], str]:
    """The renderer of a family that wraps JSON or Python calls in tokens of its own (``ek.parsing.wrapped``)."""

    def write(calls: Iterable[Step]) -> str:
        from ek.parsing.wrapped import render_wrapped  # the reader owns the tokens it reads

        return render_wrapped(list(calls), fmt, _json, to_python)

    write.__name__ = write.__qualname__ = f"to_{fmt.replace('-', '_')}"
    write.__doc__ = f"Calls as the ``{fmt}`` format writes them: one block, as the family's chat template does."
    return write


#: format name -> renderer (``python`` and ``hermes`` give text, the others decoded JSON objects).
RENDERERS: dict[str, Callable[[Iterable[Step]], Any]] = {
    "python": to_python,
    "openai": to_openai,
    "anthropic": to_anthropic,
    "json": to_json,
    "bfcl": to_bfcl,
    "hermes": to_hermes,
    "llama3": to_llama3,
    "mistral": to_mistral,
    "qwen3-coder": to_qwen3_coder,
    "deepseek": to_deepseek,
    "granite": to_granite,
    "phi4": to_phi4,
    "gemini": to_gemini,
    "bedrock": to_bedrock,
    "langchain": to_langchain,
    "ollama": to_ollama,
    "mcp": to_mcp,
    "harmony": to_harmony,
    "kimi-k2": to_kimi_k2,
    "glm45": to_glm45,
    "kimi-k3": to_kimi_k3,
    "minimax-m2": to_minimax_m2,
    "minimax-m3": to_minimax_m3,
    "step3": to_step3,
    "dots": to_dots,
    "minicpm": to_minicpm,
    "gemma4": to_gemma4,
    "functiongemma": to_functiongemma,
    "plamo3": to_plamo3,
    **{fmt: _wrapped(fmt) for fmt in ("jamba", "nemotron", "lfm2", "pangu", "apertus", "cohere",
                                      "qwen25-coder", "olmo3", "internlm2", "longcat", "gigachat3")},
    "hunyuan": to_hunyuan,
    "k2-horizon": to_k2_horizon,
    "solar-open2": to_solar_open2,
}


def render(calls: Iterable[Step], format: str) -> Any:
    """``calls`` written as ``format`` writes them (text for chat-text formats, decoded JSON otherwise).

    >>> render([Step("f", {"x": 1})], "mistral")
    '[TOOL_CALLS]f[ARGS]{"x": 1}'
    """
    try:
        renderer = RENDERERS[format]
    except KeyError:
        raise ValueError(f"no renderer for format {format!r}; formats with one: {', '.join(RENDERERS)}") from None
    calls = list(calls)
    rendered = renderer(calls)  # (first: a format that refuses such a name says so in its own words)
    empty = next((k for k, c in enumerate(calls) if not c.name), None)
    if empty is not None:  # every reader refuses it ("the tool name is empty")
        raise ValueError(f"call {empty}: an empty tool name cannot be written in any format (no reader takes one)")
    return rendered
