"""BFCL's ``multi_turn_*`` categories as ek episodes: per-turn ground-truth calls, per-turn model outputs.

A multi-turn possible answer lists, per turn, the ground-truth calls as
Python call strings (``[["cd(folder='document')", ...], [...]]``); a result
file holds, per turn, the model's step outputs (each step one reply: decoded
calls, or text that ends the turn). ek scores each turn's calls as one
multiset against that turn's ground truth; BFCL instead executes both and
compares the resulting state (see docs/bfcl.md, "Multi-turn").
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ek.bfcl.decoding import decodes_to_calls
from ek.bfcl.signatures import Signatures
from ek.calls import Step
from ek.parsing import ParseError, parse_calls
from ek.parsing.limits import DEFAULT_LIMITS
from ek.parsing.python_calls import parse_python


def is_multi_turn_answer(ground_truth: Sequence[Any]) -> bool:
    """A ground truth made of per-turn lists of call strings (as in ``BFCL_v4_multi_turn_base.json``).

    >>> is_multi_turn_answer([["cd(folder='a')"], []]), is_multi_turn_answer([{"f": {"x": [1]}}])
    (True, False)
    """
    return bool(ground_truth) and all(isinstance(turn, list) and all(isinstance(c, str) for c in turn)
                                      for turn in ground_truth)


def ground_truth_turns(ground_truth: Sequence[Sequence[str]],
                       signatures: Signatures | None = None) -> tuple[tuple[Step, ...], ...]:
    """Each turn's ground-truth call strings as gold :class:`Step` s (plain values: BFCL lists one answer).

    An argument passed by position (``sort('final_report.pdf')``) is bound to its parameter by
    ``signatures`` (BFCL's API methods, :mod:`ek.bfcl.signatures`), as BFCL's execution binds it.
    Raises ``ValueError`` naming the turn and call a string cannot be read from (e.g. a positional
    argument with no signatures, or for a method they do not know).

    >>> ground_truth_turns([["cd(folder='document')", "mkdir(dir_name='temp')"], []])
    ((Step(name='cd', args={'folder': 'document'}), Step(name='mkdir', args={'dir_name': 'temp'})), ())
    >>> ground_truth_turns([["sort('a.pdf')"]], Signatures("<src>", {"sort": (("file_name",),)}))
    ((Step(name='sort', args={'file_name': 'a.pdf'}),),)
    """
    params = signatures.params if signatures is not None else None
    turns = []
    for t, calls in enumerate(ground_truth):
        steps: list[Step] = []
        for c, text in enumerate(calls):
            try:
                steps.extend(parse_python(text, DEFAULT_LIMITS, params))
            except ParseError as exc:
                raise ValueError(f"ground_truth turn {t} call {c} {text[:80]!r}: {exc}"
                                 + _unbound_hint(exc, text, signatures)) from None
        turns.append(tuple(steps))
    return tuple(turns)


def _unbound_hint(error: ParseError, text: str, signatures: Signatures | None) -> str:
    """What to do about a positional argument ek could not bind."""
    if "positional argument" not in error.reason:
        return ""
    if signatures is None:
        return (" (BFCL's API source gives the parameter order: install bfcl-eval, or pass --bfcl-source "
                "pointing at bfcl_eval/eval_checker/multi_turn_eval/func_source_code)")
    name = text.split("(", 1)[0].strip()
    return f" ({signatures.why_not(name)})"


def is_steps(turn_output: Any) -> bool:
    """A turn's output given as a list of step outputs (text, or a list of decoded calls, per step), as BFCL's
    result files hold it, rather than one output (a list of call objects).

    >>> is_steps(["[cd(folder='a')]", "Done."]), is_steps([[{"cd": '{"folder": "a"}'}]]), is_steps([{"cd": {}}])
    (True, True, False)
    """
    return isinstance(turn_output, list) and not any(isinstance(step, Mapping) for step in turn_output)


def turn_calls(steps: Sequence[Any]) -> tuple[Step, ...] | str:
    """Every call the model made in one turn, step after step; or the text of a step ek cannot read although
    BFCL's decoder reads calls in it, which the metric then scores as the turn's unreadable output.

    A step that holds no readable call (the model's text reply, which ends a turn in BFCL) adds none, as in
    BFCL, where a reply that does not decode is the model talking to the user. A step BFCL's decoder does read
    as calls (:func:`ek.bfcl.decoding.decodes_to_calls`) but ek's reader refuses, such as ``[sort('a.pdf')]``,
    whose positional argument BFCL's decoder drops (it calls ``sort()``, and the turn fails there), is no text
    reply: the turn is unparseable_output with the reader's reason, where it was read as a turn without a call
    (``missed_call``, or an abstention right on a turn whose gold is no call).

    >>> turn_calls(["[cd(folder='a')]", [{"ls": "{}"}], "All done."])
    (Step(name='cd', args={'folder': 'a'}), Step(name='ls', args={}))
    >>> turn_calls(["[cd(folder='a')]", "[sort('a.pdf')]", "Done."])
    "[sort('a.pdf')]"
    """
    calls: list[Step] = []
    for step in steps:
        if step is None or step == [] or step == "":
            continue
        try:
            calls.extend(parse_calls(step, "bfcl"))  # BFCL output: Python calls or its one-key JSON objects
        except ParseError:
            if isinstance(step, str) and decodes_to_calls(step):
                return step
            continue
    return tuple(calls)


def category_of_id(entry_id: Any) -> str | None:
    """A BFCL entry's category from its id, as BFCL's checker reads it (``id.rsplit("_", 1)[0]``).

    >>> category_of_id("multi_turn_base_12"), category_of_id("live_simple_124-80-0"), category_of_id(7)
    ('multi_turn_base', 'live_simple', None)
    """
    if not isinstance(entry_id, str) or "_" not in entry_id:
        return None
    return entry_id.rsplit("_", 1)[0]


__all__ = ["category_of_id", "ground_truth_turns", "is_multi_turn_answer", "is_steps", "turn_calls"]
