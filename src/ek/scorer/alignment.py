"""An episode's alignment as plain data and as readable text (pred vs gold, every FP/FN with its reason).

:meth:`ek.scorer.accounting.Explanation.to_dict` leaves out the per-argument checks of
matched pairs; the HTML report and ``assert_calls`` need them, so this module
builds its own JSON-able view, with gold markers written as in
:mod:`ek.goldjson` (``{"$oneOf": [...]}``, ``{"$omit": true}``).
"""

from __future__ import annotations

from typing import Any

from ek.goldjson import encode_value
from ek.jsontext import dumps_compact
from ek.parsing.values import int_too_long
from ek.runtime.violation import safe_repr
from ek.scorer.accounting import ABSENT, Explanation, Unit


def plain(value: Any) -> Any:
    """A JSON-able copy of a call value (gold markers encoded, tuples as lists, the rest by ``repr``).

    An int past Python's int/str conversion limit, which no JSON writer can print, becomes the text
    ``<int of N bits>``.

    Fast path for the plain values of parsed calls (exact ``str``, ``float``, ``bool``, ``None``, ``int``;
    a ``dict`` or ``list``, its items taken the same way): :func:`~ek.goldjson.encode_value` would copy each
    as it is, so they are read once, without its copy of every level below the one being read (twice
    over, nested: this function encodes each level again) and its ABC checks. Gold markers, tuples,
    subclasses and the rest take the general path, as before.
    """
    kind = type(value)
    if kind is str or kind is float or kind is bool or value is None:
        return value
    if kind is int:
        return safe_repr(value) if int_too_long(value) else value
    if kind is dict:
        return {str(k): plain(v) for k, v in value.items()}
    if kind is list:
        return [plain(v) for v in value]
    value = encode_value(value)
    if isinstance(value, dict):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    if isinstance(value, int) and not isinstance(value, bool) and int_too_long(value):
        return safe_repr(value)
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    return safe_repr(value)


class Shown(str):
    """A value already turned into (cut) display text: :func:`show` prints it as it is."""

    __slots__ = ()


def show(value: Any) -> str:
    """Compact JSON text of a value, as it appears in diffs (``<absent>`` when there is none).

    >>> show({"q": "cats"}), show(ABSENT), show(Shown('"aaa…" (9 characters)'))
    ('{"q": "cats"}', '<absent>', '"aaa…" (9 characters)')
    """
    if value is ABSENT:
        return "<absent>"
    if isinstance(value, Shown):
        return str(value)
    return dumps_compact(plain(value))


def show_plain(data: Any) -> str:
    """:func:`show` of plain data (what :func:`plain` returns, or a :class:`Shown` text: every value an
    alignment dict holds), without :func:`plain` walking it again: its JSON text as it is."""
    return str(data) if isinstance(data, Shown) else dumps_compact(data)


#: The longest JSON text of a float (``-1.7976931348623157e+308``), a bool, None or an int of 64 bits.
_SHORT_SCALAR_TEXT = 24


#: An alignment's memo of its values that are not plain scalars: id -> (the value, its plain data, their text).
_Memo = dict[int, tuple[Any, Any, str]]


def _plain_text(value: Any, memo: _Memo) -> tuple[Any, str]:
    """``plain(value)`` and its JSON text (what :func:`show` writes), each worked out once per value object of
    an alignment (:func:`alignment_dict`).

    Fast path for the values that are not plain scalars (a gold ``OneOf``, a list, a dict): an alignment
    shows such a value up to four times (its call, its argument check, its FP and FN units), and each time
    encoded and wrote it again. Safe: both are functions of the value, which no one changes while its
    alignment is built; the memo keeps the value itself, so its id is not reused meanwhile.
    """
    hit = memo.get(id(value))
    if hit is None:
        data = plain(value)
        hit = memo[id(value)] = (value, data, show_plain(data))
    return hit[1], hit[2]


def _is_scalar(value: Any) -> bool:
    """An exact ``str``, ``float``, ``bool``, ``int`` or None: what :func:`plain` returns at once (an int
    too long for text aside)."""
    kind = type(value)
    return kind is str or kind is float or kind is bool or kind is int or value is None


def _show(value: Any, memo: _Memo) -> str:
    """:func:`show` of a value of an alignment, its text written once per value (:func:`_plain_text`)."""
    if value is ABSENT or isinstance(value, Shown) or _is_scalar(value):
        return show(value)
    return _plain_text(value, memo)[1]


def _kept(value: Any, limit: int | None, memo: _Memo | None = None) -> Any:
    """``value`` as plain data, or its display text cut to ``limit`` characters when that is longer
    (``memo``: the alignment's, see :func:`_plain_text`)."""
    if memo is not None and not _is_scalar(value):
        data, text = _plain_text(value, memo)
        # the text measured, as below for what the scalar test does not settle (it only spares writing it)
        return data if limit is None else _within(data, text, limit)
    data = plain(value)
    if limit is None:
        return data
    # Fast path: a scalar whose JSON text cannot be longer than ``limit`` is kept without writing that text
    # (the HTML report's 200 alignments wrote one for every value). A str's text is at most 6 characters a
    # character (an escape, ``\u001f``) and its two quotes; a float's, a bool's, None's or a 64-bit int's
    # at most _SHORT_SCALAR_TEXT. Anything else is measured as before.
    kind = type(data)
    if (6 * len(data) + 2 <= limit if kind is str
            else limit >= _SHORT_SCALAR_TEXT and (kind is float or kind is bool or data is None
                                                  or (kind is int and -(2**63) <= data < 2**63))):
        return data
    return _within(data, show_plain(data), limit)


def _within(data: Any, text: str, limit: int) -> Any:
    """Plain ``data`` whose JSON text is ``text``, or that text cut to ``limit`` characters when it is longer."""
    return data if len(text) <= limit else Shown(f"{text[:limit]}… ({len(text):,} characters)")


def _unit(u: Unit, limit: int | None, memo: _Memo | None = None) -> dict[str, Any]:
    text = u.describe()
    out: dict[str, Any] = {"kind": u.kind, "reason": u.reason, "weight": u.weight, "tool": u.tool,
                           "arg": u.arg, "pred_index": u.pred_index, "gold_index": u.gold_index,
                           "text": text if limit is None or len(text) <= limit else text[:limit] + "…"}
    if u.expected is not ABSENT:
        out["expected"] = _kept(u.expected, limit, memo)
    if u.got is not ABSENT:
        out["got"] = _kept(u.got, limit, memo)
    if u.detail:
        out["detail"] = u.detail
    return out


def _check(c: Any, limit: int | None, memo: _Memo) -> dict[str, Any]:
    expected, got, where = _show(c.expected, memo), _show(c.got, memo), ""
    if limit is not None:
        expected, got, where = _differing(expected, got, limit)
    return {"arg": c.arg, "status": c.status, "weight": c.weight, "ok": c.ok, "expected": expected, "got": got,
            "where": where.strip(), "detail": c.detail}


def alignment_dict(explanation: Explanation, limit: int | None = None) -> dict[str, Any]:
    """Everything the per-episode view shows: calls, pairs with argument checks, unmatched calls, error units.

    With ``limit``, every value longer than that as text is cut (argument checks
    keep a window around their first difference), so a report that keeps
    hundreds of alignments stays small whatever the corpus holds.
    """
    memo: _Memo = {}  # each value that is not a plain scalar encoded and written once (_plain_text)
    return {
        "pred": [{"name": s.name, "args": {k: _kept(v, limit, memo) for k, v in s.args.items()}}
                 for s in explanation.pred],
        "gold": [{"name": s.name, "args": {k: _kept(v, limit, memo) for k, v in s.args.items()}}
                 for s in explanation.gold],
        "pairs": [
            {
                "pred": p.pred_index, "gold": p.gold_index, "tool": p.tool, "exact": p.exact,
                "checks": [_check(c, limit, memo) for c in p.checks],
            }
            for p in explanation.pairs
        ],
        "unmatched_pred": list(explanation.unmatched_pred),
        "unmatched_gold": list(explanation.unmatched_gold),
        "out_of_order": [{"pred": i, "gold": j} for i, j in explanation.out_of_order],
        "errors": [_unit(u, limit, memo) for u in explanation.errors()],
        "parse_error": explanation.parse_error,
        **({"any_call": True} if explanation.any_call else {}),
    }


#: Longest value text a diff line shows in full; longer ones are cut (around their first difference in checks).
CLIP = 60


def _clip(text: str, limit: int = CLIP) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _call_text(call: dict[str, Any]) -> str:
    args = ", ".join(f"{k}={_clip(show(v))}" for k, v in call["args"].items())
    return f"{call['name']}({args})"


def _differing(expected: str, got: str, limit: int = CLIP) -> tuple[str, str, str]:
    """Both value texts cut to a window around where they first differ, and a note saying where.

    >>> _differing('"' + "a" * 100 + 'b"', '"' + "a" * 100 + 'c"', 20)
    ('…aaaaaaaaaaaaaaaaaab"', '…aaaaaaaaaaaaaaaaaac"', ' (first difference at character 101)')
    """
    if len(expected) <= limit and len(got) <= limit:
        return expected, got, ""
    at = next((i for i, (x, y) in enumerate(zip(expected, got)) if x != y), min(len(expected), len(got)))
    start = max(0, at - limit // 2 - 8)
    lead = "…" if start else ""
    char = at if expected.startswith('"') and got.startswith('"') else at + 1  # 1-based, inside the string
    return (lead + _clip(expected[start:], limit), lead + _clip(got[start:], limit),
            f" (first difference at character {char})")


def format_alignment(view: dict[str, Any]) -> str:
    """A diff people read: each gold call next to the predicted call it was matched with, then the leftovers.

    >>> from ek.scorer.metric import ToolCallMetric
    >>> e = ToolCallMetric()([("search", {"q": "dogs"}), ("delete_all", {})], [("search", {"q": "cats"})]).explanation
    >>> print(format_alignment(alignment_dict(e)))
    gold #0 search(q="cats")
     pred #0 search(q="dogs")  INEXACT
        q: wrong_value  expected "cats", got "dogs"
    extra pred #1 delete_all()  (wrong_tool)
    """
    lines: list[str] = []
    if view.get("parse_error"):
        lines.append(f"output could not be parsed: {view['parse_error']}")
    pred, gold = view["pred"], view["gold"]
    reason_of_pred = {u["pred_index"]: u["reason"] for u in view["errors"]
                      if u["gold_index"] is None and u["pred_index"] is not None}
    reason_of_gold = {u["gold_index"]: u["reason"] for u in view["errors"]
                      if u["pred_index"] is None and u["gold_index"] is not None}
    pair_of_gold = {p["gold"]: p for p in view["pairs"]}
    late = {p["gold"]: p["pred"] for p in view.get("out_of_order", ())}
    why_late = {u["gold_index"]: u.get("detail", "") for u in view["errors"]
                if u["reason"] == "out_of_order" and u["pred_index"] is None}
    if view.get("any_call"):  # gold ANY_CALL: some call, whichever (BFCL's live_relevance)
        lines.append("gold: some call, whichever")
        lines.extend(f" pred #{i} {_call_text(call)}  ok" for i, call in enumerate(pred))
        if not pred:
            lines.append(f" pred: none  ({view['errors'][0]['reason'] if view['errors'] else 'missed_call'})")
    for j, call in enumerate(gold):
        lines.append(f"gold #{j} {_call_text(call)}")
        pair = pair_of_gold.get(j)
        if pair is None and j in late:
            lines.append(f" pred #{late[j]} {_call_text(pred[late[j]])}  OUT OF ORDER: {why_late.get(j, '')}")
            continue
        if pair is None:
            lines.append(f" pred: none  ({reason_of_gold.get(j, 'missing_call')})")
            continue
        mark = "ok" if pair["exact"] else "INEXACT"
        lines.append(f" pred #{pair['pred']} {_call_text(pred[pair['pred']])}  {mark}")
        for check in pair["checks"]:
            if not check["ok"]:
                detail = f" ({check['detail']})" if check["detail"] else ""
                expected, got, where = (check["expected"], check["got"], f" {check['where']}") if check.get(
                    "where") else _differing(check["expected"], check["got"])
                lines.append(f"    {check['arg']}: {check['status']}  expected {expected}, "
                             f"got {got}{where}{detail}")
    for i in view["unmatched_pred"]:
        if i in late.values():
            continue
        lines.append(f"extra pred #{i} {_call_text(pred[i])}  ({reason_of_pred.get(i, 'extra_call')})")
    if not lines:
        lines.append("nothing predicted, nothing expected")
    return "\n".join(lines)


__all__ = ["Shown", "alignment_dict", "format_alignment", "plain", "show", "show_plain"]
