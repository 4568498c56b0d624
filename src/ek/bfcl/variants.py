"""Plausible model outputs derived from a BFCL ground truth: right ones and typically wrong ones.

For testing a checker against another (ek's against BFCL's) and for
benchmarks. Outputs are in BFCL's decoded form ``[{"func": {"arg": value}}]``;
in Java/JavaScript categories values are rendered as source-code strings, as
models emit them there. Deterministic for a given ``random.Random``.
"""

from __future__ import annotations

import json
import random
from collections.abc import Mapping, Sequence
from typing import Any

from ek.bfcl.typemap import JAVA, JAVASCRIPT, language_of

Decoded = list[dict[str, dict[str, Any]]]


def _pick(options: list[Any], rng: random.Random, first: bool) -> Any:
    """One acceptable value (``""`` means: leave the argument out)."""
    option = options[0] if first else rng.choice(options)
    return _materialize(option, rng, first)


def _materialize(value: Any, rng: random.Random, first: bool) -> Any:
    if isinstance(value, dict):  # nested answers: each key lists its alternatives
        out = {}
        for key, options in value.items():
            chosen = _pick(options, rng, first) if isinstance(options, list) and options else options
            if chosen != "":
                out[key] = chosen
        return out
    if isinstance(value, list):
        return [_materialize(v, rng, first) for v in value]
    return value


def correct_output(ground_truth: Sequence[Mapping[str, Any]], rng: random.Random, *, first: bool = False) -> Decoded:
    """One call per answer, each argument one of its acceptable values (or omitted when allowed)."""
    out = []
    for call in ground_truth:
        ((name, params),) = call.items()
        args = {}
        for param, options in params.items():
            if not options:  # BFCL data bug: no acceptable value at all
                continue
            chosen = _pick(options, rng, first)
            if chosen != "":
                args[param] = chosen
        out.append({name: args})
    return out


def _mutate_value(value: Any, rng: random.Random) -> Any:
    if isinstance(value, bool):
        return not value
    if isinstance(value, int):
        return value + rng.choice([1, -1, 100])
    if isinstance(value, float):
        return value + 0.5
    if isinstance(value, str):
        return value + " extra" if value else "x"
    if isinstance(value, list):
        return value + value[:1] if value else [1]
    if isinstance(value, dict):
        return {**value, "unexpected_key": 1}
    return "x"


def _float_params(functions: Sequence[Mapping[str, Any]], name: str) -> dict[str, bool]:
    """Parameter -> True if a float itself, False if an array of floats."""
    for func in functions:
        if func.get("name") == name:
            out = {}
            for param, detail in func.get("parameters", {}).get("properties", {}).items():
                if detail.get("type") == "float":
                    out[param] = True
                elif (detail.get("items") or {}).get("type") == "float":
                    out[param] = False
            return out
    return {}


def _ints(value: Any) -> Any:
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, list):
        return [_ints(v) for v in value]
    return value


def variants(functions: Sequence[Mapping[str, Any]], ground_truth: Sequence[Mapping[str, Any]], category: str,
             rng: random.Random) -> list[tuple[str, Decoded]]:
    """Labelled outputs: correct ones, reordered, case-changed, and one of each common mistake."""
    base = correct_output(ground_truth, rng, first=True)
    out: list[tuple[str, Decoded]] = [("first", base), ("random", correct_output(ground_truth, rng))]
    name, args = next(iter(base[0].items()))
    out.append(("wrong_name", [{name + "_v2": args}, *base[1:]]))
    out.append(("extra_param", [{name: {**args, "unexpected_param": 1}}, *base[1:]]))
    if args:
        victim = rng.choice(sorted(args))
        out.append(("missing_param", [{name: {k: v for k, v in args.items() if k != victim}}, *base[1:]]))
        out.append(("wrong_value", [{name: {**args, victim: _mutate_value(args[victim], rng)}}, *base[1:]]))
        out.append(("stringified", [{name: {**args, victim: json.dumps(args[victim])}}, *base[1:]]))
        texts = {k: v for k, v in args.items() if isinstance(v, str)}
        if texts:
            k = rng.choice(sorted(texts))
            out.append(("case_and_punctuation", [{name: {**args, k: texts[k].upper().replace(" ", "-")}}, *base[1:]]))
    floats = _float_params(functions, name)
    if any(k in floats for k in args):
        out.append(("int_for_float", [{name: {k: _ints(v) if k in floats else v for k, v in args.items()}},
                                      *base[1:]]))
    if len(base) > 1:
        out.append(("reversed", base[::-1]))
        out.append(("shuffled", rng.sample(base, len(base))))
        out.append(("dropped_call", base[:-1]))
    out.append(("duplicated_call", base + base[:1]))
    out.append(("no_calls", []))
    language = language_of(category)
    if language in (JAVA, JAVASCRIPT):
        return [(label, render_javalike(functions, decoded, language)) for label, decoded in out]
    return out


def render_javalike(functions: Sequence[Mapping[str, Any]], decoded: Decoded, language: str) -> Decoded:
    """Values as the Java/JavaScript source strings a model writes in those categories."""
    details = {f["name"]: f.get("parameters", {}).get("properties", {}) for f in functions}
    out = []
    for call in decoded:
        ((name, args),) = call.items()
        props = details.get(name, {})
        rendered = {}
        for param, value in args.items():
            detail = props.get(param, {})
            type_name, item_type = detail.get("type", "any"), (detail.get("items") or {}).get("type")
            render = _java if language == JAVA else _js
            # A string answer is written as is: a variable name, or the text of a String.
            rendered[param] = value if isinstance(value, str) else render(value, type_name, item_type)
        out.append({name: rendered})
    return out


def _java(value: Any, type_name: str, item_type: str | None = None) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if type_name == "long" and isinstance(value, int):
        return f"{value}L"
    if type_name == "float" and isinstance(value, (int, float)):
        return f"{float(value)}f"
    if isinstance(value, (int, float)):
        return str(value)
    if isinstance(value, list):
        items = ", ".join(_java_item(v, item_type) for v in value)
        if type_name == "ArrayList":
            return f"new ArrayList<>(Arrays.asList({items}))"
        java_item = {"integer": "int", "String": "String", "float": "float", "double": "double",
                     "long": "long", "boolean": "boolean"}.get(item_type or "", "Object")
        return f"new {java_item}[]{{{items}}}"
    if isinstance(value, dict):
        puts = " ".join(f"put({_java_item(k, 'String')}, {_java_item(v, None)});" for k, v in value.items())
        return f"new HashMap<String, Object>() {{{{ {puts} }}}}"
    return str(value)


def _java_item(value: Any, item_type: str | None) -> str:
    if isinstance(value, str):
        return json.dumps(value)
    return _java(value, item_type or "any")


def _js(value: Any, type_name: str, item_type: str | None = None) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if type_name == "Bigint" and isinstance(value, int):
        return f"{value}n"
    if isinstance(value, (int, float)):
        return str(value)
    if isinstance(value, str):
        return json.dumps(value)
    if isinstance(value, list):
        return "[" + ", ".join(_js(v, "any") for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{json.dumps(k)}: {_js(v, 'any')}" for k, v in value.items()) + "}"
    return str(value)
