"""Steps -> each supported output format: the inverse of :func:`ek.parsing.parse_calls`.

Useful for fixtures and for feeding BFCL-style tooling; the property tests
check ``parse_calls(render(calls)) == calls`` for every format.
"""

from __future__ import annotations

import json
import keyword
import math
from collections.abc import Callable, Iterable, Mapping
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


#: format name -> renderer (``python`` and ``hermes`` give text, the others decoded JSON objects).
RENDERERS: dict[str, Callable[[Iterable[Step]], Any]] = {
    "python": to_python,
    "openai": to_openai,
    "anthropic": to_anthropic,
    "json": to_json,
    "bfcl": to_bfcl,
    "hermes": to_hermes,
}
