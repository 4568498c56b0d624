"""Gold (and predicted) calls given as Python data -> :class:`Step`, strictly typed.

Unlike :func:`ek.parsing.parse_calls` this does not check argument *values*:
gold values may hold :class:`ek.values.OneOf` and ``OMITTABLE`` markers. It
checks the *shape* and raises ``TypeError`` naming where the bad call was.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ek.calls import Step
from ek.parsing import json_text, shapes
from ek.parsing.errors import ParseError
from ek.parsing.limits import DEFAULT_LIMITS

_SINGLE_CALL_KINDS = ("openai_call", "openai_item", "anthropic_block", "generic", "bfcl", "mcp_message")


def _show(obj: object) -> str:
    text = repr(obj)
    return text if len(text) <= 200 else text[:197] + "..."


def coerce_call(obj: object, where: str) -> Step:
    """One call as a :class:`Step`: a Step, a ``(name, args)`` pair, or one call's JSON shape.

    >>> coerce_call(("search", {"q": "cats"}), "gold[0]")
    Step(name='search', args={'q': 'cats'})
    >>> coerce_call({"name": "f", "arguments": '{"x": 1}'}, "gold[1]")
    Step(name='f', args={'x': 1})
    >>> coerce_call(("search", ["cats"]), "gold[2]")
    Traceback (most recent call last):
    ...
    TypeError: gold[2]: call arguments must be a mapping of name to value, got list: ('search', ['cats'])
    """
    if isinstance(obj, Step):
        return obj
    if isinstance(obj, (tuple, list)):
        if len(obj) != 2:
            raise TypeError(f"{where}: a call pair must be (name, args), got {len(obj)} items: {_show(obj)}")
        name, args = obj
        if not isinstance(name, str):
            raise TypeError(f"{where}: call name must be a str, got {type(name).__name__}: {_show(obj)}")
        if not isinstance(args, Mapping):
            raise TypeError(
                f"{where}: call arguments must be a mapping of name to value, got {type(args).__name__}: {_show(obj)}"
            )
        return _step(name, args, where, obj)
    if isinstance(obj, Mapping):
        return _from_mapping(obj, where)
    raise TypeError(
        f"{where}: expected a Step, a (name, args) pair or a call object, got {type(obj).__name__}: {_show(obj)}"
    )


def _step(name: str, args: Mapping[Any, Any], where: str, obj: object) -> Step:
    for key in args:
        if not isinstance(key, str):
            raise TypeError(f"{where}: argument names must be str, got {key!r}: {_show(obj)}")
    return Step(name, dict(args))


def _from_mapping(obj: Mapping[str, Any], where: str) -> Step:
    kind = shapes.classify(obj)
    if kind not in _SINGLE_CALL_KINDS:
        detail = "a whole message or response holds many calls; use parse_call_list" if kind else "unrecognised shape"
        raise TypeError(f"{where}: not one call object ({detail}): {_show(obj)}")
    if kind == "openai_call":
        inner = obj["function"]
        name, args = inner.get("name"), inner.get("arguments")
    elif kind == "openai_item":
        client = shapes.CLIENT_TOOL_ITEMS.get(obj["type"])  # (classify: function_call or one of these)
        if client is None:
            name, args = obj.get("name"), obj.get("arguments")
        elif client[0] is None:  # a custom tool: its free-form input text is its one argument
            name, text = obj.get("name"), obj.get(client[1])
            if not isinstance(text, str):
                raise TypeError(f"{where}: a custom tool call's input must be text, got {type(text).__name__}: "
                                f"{_show(obj)}")
            args = {"input": text}
        else:
            name, args = client[0], obj.get(client[1])
    elif kind == "anthropic_block":
        name, args = obj.get("name"), obj.get("input")
    elif kind == "mcp_message":
        params = obj.get("params")
        if obj.get("method") != shapes.MCP_TOOLS_CALL or not isinstance(params, Mapping):
            raise TypeError(f"{where}: not one call object (an MCP message other than a tools/call request with "
                            f"params): {_show(obj)}")
        name, args = params.get("name"), params.get("arguments")
    elif kind == "generic":
        present = [k for k in shapes.ARGUMENT_KEYS if k in obj]
        if len(present) > 1:
            raise TypeError(f"{where}: ambiguous call, both {present[0]!r} and {present[1]!r} given: {_show(obj)}")
        name, args = obj["name"], (obj[present[0]] if present else {})
    else:
        ((name, args),) = obj.items()
    if not isinstance(name, str):
        raise TypeError(f"{where}: call name must be a str, got {type(name).__name__}: {_show(obj)}")
    if args is None:
        args = {}
    if isinstance(args, str):
        try:
            args = json_text.loads(args, DEFAULT_LIMITS, "json") if args.strip() else {}
        except ParseError as exc:
            raise TypeError(f"{where}: call arguments are not valid JSON ({exc}): {_show(obj)}") from None
    if not isinstance(args, Mapping):
        raise TypeError(
            f"{where}: call arguments must be a mapping of name to value, got {type(args).__name__}: {_show(obj)}"
        )
    return _step(name, args, where, obj)


def parse_call_list(obj: object, where: str = "calls") -> list[Step]:
    """A list of calls for gold data: each item via :func:`coerce_call`.

    A whole OpenAI/Anthropic message or response, or model-output text, is
    read with :func:`ek.parsing.parse_calls` instead. A bare ``(name, args)``
    pair is one call.

    >>> parse_call_list([("a", {}), {"b": {"x": 1}}])
    [Step(name='a', args={}), Step(name='b', args={'x': 1})]
    """
    from ek.parsing.api import parse_calls

    if isinstance(obj, (str, bytes)):
        return parse_calls(obj)
    if isinstance(obj, Mapping):
        kind = shapes.classify(obj)
        if kind in ("response", "responses", "openai_message", "anthropic_message"):
            return parse_calls(obj)
        if kind is None and len(obj) > 1 and all(isinstance(v, Mapping) for v in obj.values()):
            return [coerce_call({name: args}, f"{where}[{name!r}]") for name, args in obj.items()]
        return [coerce_call(obj, where)]
    if isinstance(obj, Step):
        return [obj]
    if isinstance(obj, tuple) and len(obj) == 2 and isinstance(obj[0], str):
        return [coerce_call(obj, where)]
    if isinstance(obj, Sequence):
        return [coerce_call(item, f"{where}[{i}]") for i, item in enumerate(obj)]
    raise TypeError(f"{where}: expected a list of calls, got {type(obj).__name__}: {_show(obj)}")
