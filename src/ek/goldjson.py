"""Gold calls as JSON: how ``OneOf`` and ``OMITTABLE`` are written in corpus files.

A gold call is ``{"name": TOOL, "arguments": {...}}`` (``"args"`` also works).
Inside argument values, at any depth:

- ``{"$oneOf": [v1, v2, ...]}`` is :class:`~ek.values.OneOf` (any of these is right);
- ``{"$omit": true}`` is :data:`~ek.values.OMITTABLE` (leaving the argument out is right),
  alone or as one of the ``$oneOf`` alternatives.

A call may also say which gold calls must come before it: ``"after": [0, 2]``
(0-based indices into the same list) makes it a :class:`~ek.calls.GoldCall`;
an index out of range or a cycle is refused (:func:`ek.calls.after_of`).

Instead of a list, the gold may be the string ``"any_call"``: some call, whichever,
is right (:data:`~ek.calls.ANY_CALL`, BFCL's ``live_relevance``).

>>> calls = gold_from_json([{"name": "get_weather",
...     "arguments": {"unit": {"$oneOf": ["celsius", {"$omit": True}]}}}])
>>> calls
[Step(name='get_weather', args={'unit': OneOf('celsius', OMITTABLE)})]
>>> gold_to_json(calls)
[{'name': 'get_weather', 'arguments': {'unit': {'$oneOf': ['celsius', {'$omit': True}]}}}]
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ek.calls import ANY_CALL, GoldCall, Step, after_of
from ek.limits import GOLD_MAX_DEPTH
from ek.values import OMITTABLE, OneOf

ONE_OF = "$oneOf"
OMIT = "$omit"


MAX_DEPTH = GOLD_MAX_DEPTH

#: Types of the JSON values that hold no other value (and so no marker): returned as they are, a float once
#: seen finite. Python's ``json`` reads ``NaN``, ``Infinity`` and a number past a float's range (``1e400``) as
#: floats no JSON number is, which :func:`decode_value` refuses (a gold NaN equals nothing: the call could
#: never be right).
_LEAVES = frozenset({str, int, float, bool, type(None)})
_INF = float("inf")


def decode_value(value: Any, where: str = "$", _depth: int = 0) -> Any:
    """Turn ``$oneOf``/``$omit`` markers into :class:`OneOf`/``OMITTABLE``, recursively (at most MAX_DEPTH deep)."""
    if _depth > MAX_DEPTH:
        at = where if len(where) <= 60 else where[:57] + "..."
        raise ValueError(f"{at}: gold value nested too deeply (more than {MAX_DEPTH} levels)")
    # fast path: an item that is a JSON leaf, within the depth limit, is what decoding it would return, so it
    # is taken without the call and its path (built only for error messages)
    leaf = _LEAVES if _depth < MAX_DEPTH else frozenset()
    if type(value) is dict or isinstance(value, Mapping):  # a JSON object skips the ABC check
        if ONE_OF in value:
            if len(value) != 1 or not isinstance(value[ONE_OF], list) or not value[ONE_OF]:
                raise ValueError(f"{where}: {{\"$oneOf\": [...]}} takes a non-empty list and no other keys")
            return OneOf(*(decode_value(v, f"{where}.$oneOf[{i}]", _depth + 1) for i, v in enumerate(value[ONE_OF])))
        if OMIT in value:
            if len(value) != 1 or value[OMIT] is not True:
                raise ValueError(f'{where}: write an omittable argument as {{"$omit": true}}')
            return OMITTABLE
        return {k: v if type(v) in leaf and (type(v) is not float or -_INF < v < _INF)
                else decode_value(v, f"{where}.{k}", _depth + 1) for k, v in value.items()}
    if isinstance(value, list):
        return [v if type(v) in leaf and (type(v) is not float or -_INF < v < _INF)
                else decode_value(v, f"{where}[{i}]", _depth + 1) for i, v in enumerate(value)]
    if type(value) is float and not -_INF < value < _INF:
        raise not_a_json_number(value, where)
    return value


def not_a_json_number(value: float, where: str) -> ValueError:
    """The error for a gold value ``json`` read as a float that no JSON number is (NaN, an infinity)."""
    return ValueError(f"{where}: {value} is not a JSON number (JSON has no NaN or Infinity; a number past a "
                      "float's range reads as infinity)")


def encode_value(value: Any) -> Any:
    """The inverse of :func:`decode_value`: plain JSON-able data."""
    if value is OMITTABLE:
        return {OMIT: True}
    if isinstance(value, OneOf):
        return {ONE_OF: [encode_value(v) for v in value.alternatives]}
    if isinstance(value, Mapping):
        return {k: encode_value(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [encode_value(v) for v in value]
    return value


#: How :data:`ek.calls.ANY_CALL` is written where a list of gold calls would be.
ANY_CALL_JSON = "any_call"


def any_call_gold(value: Any) -> bool:
    """Whether a JSON gold value is :data:`ANY_CALL_JSON` (some call, whichever, is right)."""
    return type(value) is str and value == ANY_CALL_JSON


def gold_from_json(calls: Any, where: str = "gold") -> list[Step]:
    """Decode a JSON list of gold calls into Steps, naming the offending call on bad input."""
    if not isinstance(calls, list):
        raise TypeError(f"{where}: expected a list of calls, got {type(calls).__name__}")
    out = []
    constrained = False
    for i, call in enumerate(calls):
        here = f"{where}[{i}]"
        if type(call) is list and len(call) == 2 and type(call[0]) is str:  # a (name, args) pair, as the API takes
            call = {"name": call[0], "arguments": call[1]}                 # it, written out as JSON
        if not (type(call) is dict or isinstance(call, Mapping)) or not isinstance(call.get("name"), str):
            raise TypeError(f'{here}: expected {{"name": TOOL, "arguments": {{...}}}} or [TOOL, {{...}}], '
                            f'got {call!r:.80}')
        if not call["name"].strip():  # no output can name it: scored, it would only ever count as missed
            raise TypeError(f"{here}: a gold call names the tool it expects; got an empty name {call['name']!r}")
        if "args" in call or not _CALL_KEYS.issuperset(call):  # fast path: name, arguments and after only
            _refuse_misnamed_arguments(call, here)
        args = call["arguments"] if "arguments" in call else call.get("args", {})
        if not (type(args) is dict or isinstance(args, Mapping)):
            raise TypeError(f"{here} {call['name']!r}: arguments must be an object, got {type(args).__name__}")
        args = decode_value(dict(args), f"{here}.arguments")
        if call.get("after") is None:
            out.append(Step(call["name"], args))
            continue
        after = call["after"]
        if not isinstance(after, list) or not all(isinstance(k, int) and not isinstance(k, bool) and k >= 0
                                                  for k in after):
            raise TypeError(f"{here} {call['name']!r}: after must be a list of gold indices (integers from 0), "
                            f"got {after!r:.60}")
        out.append(GoldCall(call["name"], args, after=after) if after else Step(call["name"], args))
        constrained = constrained or bool(after)
    if constrained:  # fast path: calls without "after" have no constraint to check (after_of would pass them)
        after_of(out, where)
    return out


#: The keys a gold call object is read by; ``args`` is ``arguments``' other name.
_CALL_KEYS = frozenset({"name", "arguments", "args", "after"})


def _refuse_misnamed_arguments(call: Mapping[str, Any], here: str) -> None:
    """Refuse a call whose arguments would be lost: an object under a key this reader does not take
    (``parameters``, ``input``, a misspelling) with no ``arguments``, or under both ``arguments`` and ``args``.

    Read as it was, the call had no arguments, so a prediction calling the tool bare was scored right and
    one giving the intended arguments wrong, without a word. Other keys (an ``id``, a ``type``: not objects,
    so no arguments) are kept out of the way as before, with ``arguments`` or without it (a tool that takes
    none), and a key holding ``None`` is no key (Arrow fills a dataset's missing struct fields with ``None``).
    """
    given = [k for k in ("arguments", "args") if call.get(k) is not None]
    if len(given) == 2:
        raise TypeError(f"{here} {call['name']!r}: ambiguous call, both 'arguments' and 'args' given")
    if given or "arguments" in call or "args" in call:
        return
    others = [k for k, v in call.items() if k not in _CALL_KEYS and isinstance(v, Mapping)]
    if others:
        raise TypeError(f'{here} {call["name"]!r}: no "arguments" key, but {str(others[0])!r:.40} given: '
                        f'a gold call\'s arguments go under "arguments"')


def gold_to_json(calls: Sequence[Step]) -> list[dict[str, Any]] | str:
    """Encode Steps (possibly holding OneOf/OMITTABLE, or GoldCalls with ``after``) as JSON-able gold calls;
    :data:`~ek.calls.ANY_CALL` as :data:`ANY_CALL_JSON`."""
    if calls is ANY_CALL:
        return ANY_CALL_JSON
    out: list[dict[str, Any]] = []
    for s in calls:
        call: dict[str, Any] = {"name": s.name, "arguments": encode_value(dict(s.args))}
        if getattr(s, "after", ()):
            call["after"] = list(s.after)  # type: ignore[attr-defined]
        out.append(call)
    return out
