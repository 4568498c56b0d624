"""Tool-call rewards for RL fine-tuning: one implementation, in the shape TRL's ``GRPOTrainer`` calls.

TRL calls ``reward_func(prompts=..., completions=..., completion_ids=..., **columns)``
where ``columns`` are the dataset's other columns (one value per completion)
and expects one float per completion (``None`` = "not applicable to this
sample"). Here the gold calls come from a dataset column (``gold_calls`` by
default) and the reward is the episode's cost-weighted F1 (see docs/rl.md).

The verl and OpenRLHF adapters (:mod:`ek.rl.verl`, :mod:`ek.rl.openrlhf`) score
through the same :class:`RewardOptions` and :func:`score_calls`, so a reward
with the same options is the same number in every trainer.

>>> reward = make_tool_call_reward(level="arg")
>>> reward(["get_weather(location='Paris')", "get_weather(location='Rome')", "no tool call here?"],
...        gold_calls=['[{"name": "get_weather", "arguments": {"location": "paris"}}]'] * 3)
[1.0, 0.5, 0.0]
"""

from __future__ import annotations

import functools
import json
import math
import threading
import types
import warnings
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import attrs

from ek.calls import ANY_CALL, Step
from ek.goldjson import any_call_gold, gold_from_json
from ek.limits import GOLD_MAX_DEPTH
from ek.parsing import ParseError, parse_calls
from ek.parsing.values import long_int_reason
from ek.scorer.accounting import Score, weights_past_float
from ek.scorer.agree import arg_keys, is_bfcl_mode, key_of
from ek.scorer.assign import OrderTooComplex
from ek.scorer.goldcheck import invalid_gold_reason
from ek.scorer.metric import ToolCallMetric, TooManyPairs
from ek.scorer.turns import is_exact
from ek.strictjson import DuplicateKeyError, unique_keys

#: How a completion's raw pieces are read: ``(output, format) -> calls`` (the reward passes its metric's).
Reader = Callable[[Any, str], Sequence[Step]]


def _parse(output: Any, format: str) -> Sequence[Step]:
    return parse_calls(output, format)


def text_calls(text: str, format: str = "auto") -> list[Step]:
    """The calls in generated text, as chat models write it: :func:`ek.parse_calls` in ``format``.

    In ``auto`` that skips a leading ``<think>...</think>``, reads ``<tool_call>``
    blocks (Hermes/Qwen templates) and the other native formats by their markers,
    ignoring the prose around them, or else reads the text as Python calls or
    JSON. Raises :class:`ParseError`.

    >>> text_calls('<think>weather, then</think> <tool_call>{"name": "f", "arguments": {"x": 1}}</tool_call>')
    [Step(name='f', args={'x': 1})]
    """
    return parse_calls(text, format)


def _content_calls(content: Any, format: str, read: Reader) -> list[Step]:
    """Calls in a message's ``content``: text, Anthropic blocks with ``tool_use``, or text-only blocks."""
    if isinstance(content, list) and content and all(
            isinstance(b, Mapping) and b.get("type") == "text" and isinstance(b.get("text"), str) for b in content):
        return list(read("\n".join(b["text"] for b in content), format))  # TRL's block-style (multimodal) messages
    return list(read(content, format))


def completion_calls(completion: Any, format: str = "auto") -> list[Step]:
    """The calls in one completion: text, one chat message, or a list of chat messages (assistant turns only).

    A message's ``tool_calls`` are read when present (they are already
    structured, so always by their shape), else its ``content`` (call text in
    ``format`` as in :func:`text_calls`, text blocks, or Anthropic-style
    ``tool_use`` blocks). A Responses API ``{"output": [...]}`` is read by its
    ``function_call`` items. Raises :class:`ParseError`.

    >>> completion_calls([{"role": "assistant", "content": "",
    ...                    "tool_calls": [{"type": "function", "function": {"name": "f", "arguments": {"x": 1}}}]}])
    [Step(name='f', args={'x': 1})]
    """
    return _completion_calls(completion, format, _parse)


def _completion_calls(completion: Any, format: str, read: Reader) -> list[Step]:
    responses = isinstance(completion, Mapping) and "output" in completion and "role" not in completion
    if isinstance(completion, str | bytes) or responses:
        return list(read(completion, format))  # text, or a Responses API response
    if not isinstance(completion, (Mapping, list, tuple)):
        raise ParseError(f"expected text or chat messages, got {type(completion).__name__}")
    messages = [completion] if isinstance(completion, Mapping) else list(completion)
    calls: list[Step] = []
    for k, message in enumerate(messages):
        if not isinstance(message, Mapping):
            raise ParseError(f"expected a chat message, got {type(message).__name__}", f"$[{k}]")
        if message.get("role", "assistant") != "assistant":
            continue
        if message.get("tool_calls"):
            calls.extend(read({"role": "assistant", "tool_calls": message["tool_calls"]}, "auto"))
        elif message.get("content"):
            calls.extend(_content_calls(message["content"], format, read))
    return calls


# --------------------------------------------------------------------------- options


#: How a response's calls become one number (docs/rl.md, "Reward shaping"): ``call``, ``arg`` and ``name``
#: are the metric's F1 at that level (``name``: tool selection, arguments not read); ``partial`` gives each
#: matched call credit for its name, its argument names and its values; ``exact`` is 1 for an exactly right
#: response, else 0.
REWARD_LEVELS = ("call", "arg", "partial", "exact", "name")

#: The default weights of ``partial`` credit: (tool name right, argument names right, values right).
PARTIAL_WEIGHTS = (0.2, 0.3, 0.5)


def _weights(value: Any) -> tuple[float, float, float]:
    try:
        weights = tuple(float(w) for w in value)
    except (TypeError, ValueError):
        raise ValueError(f"partial_weights must be three numbers (name, argument names, values), "
                         f"got {value!r:.80}") from None
    if len(weights) != 3 or not all(math.isfinite(w) and w >= 0 for w in weights) or sum(weights) <= 0:
        raise ValueError(f"partial_weights must be three finite numbers >= 0 with a positive sum "
                         f"(name, argument names, values), got {value!r:.80}")
    return weights  # type: ignore[return-value]


def _unparseable(value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value) or value > 1:
        raise ValueError(f"unparseable must be a finite number <= 1 (a negative one is a format penalty), "
                         f"got {value!r:.80}")
    return float(value)


def _check_level(instance: Any, attribute: Any, value: str) -> None:
    if value not in REWARD_LEVELS:
        raise ValueError(f"level must be one of {REWARD_LEVELS}, got {value!r}")


@attrs.frozen
class RewardOptions:
    """Everything that decides a reward, shared by the TRL, verl and OpenRLHF adapters.

    ``level`` (:data:`REWARD_LEVELS`), ``grammar`` (an ``.ek`` path, a generated module or a
    ``GraphGrammar``), ``canonicalizer``, ``optimal``, ``order`` and ``format`` are the
    metric's (:class:`~ek.scorer.metric.ToolCallMetric`); ``unparseable`` is the reward of an
    output that cannot be parsed (a negative value is a format penalty); ``partial_weights``
    weigh the three parts of ``partial`` credit. Bad values fail here, not on the first sample.
    """

    level: str = attrs.field(default="call", validator=_check_level)
    grammar: Any = None
    canonicalizer: Any = None
    optimal: bool = False
    order: str = "gold"
    format: str = "auto"
    unparseable: float = attrs.field(default=0.0, converter=_unparseable)
    partial_weights: tuple[float, float, float] = attrs.field(default=PARTIAL_WEIGHTS, converter=_weights)

    def range(self) -> tuple[float, float]:
        """The lowest and highest reward these options can give."""
        return min(0.0, self.unparseable), 1.0

    def __reduce__(self) -> tuple[Any, tuple[Any, ...]]:
        """Pickled as the constructor's arguments; a generated module given as the grammar travels as its
        ``GRAMMAR`` (a module cannot be pickled, and one loaded by path has no importable name elsewhere)."""
        grammar = self.grammar.GRAMMAR if isinstance(self.grammar, types.ModuleType) else self.grammar
        return RewardOptions, (self.level, grammar, self.canonicalizer, self.optimal, self.order, self.format,
                               self.unparseable, self.partial_weights)


#: The option names the adapters accept as keyword arguments (verl's ``reward_kwargs``).
OPTION_NAMES = tuple(a.name for a in attrs.fields(RewardOptions))


# --------------------------------------------------------------------------- results


@attrs.frozen
class RewardScore:
    """One response's reward and the numbers behind it (what verl and OpenRLHF log beside the reward).

    ``call_f1`` and ``arg_f1`` are the metric's F1 at each level, ``format_ok`` whether the
    output could be parsed, ``exact`` whether it is exactly right (no FP, no FN). An
    unparseable output has ``score == options.unparseable`` and zero everywhere else.
    """

    score: float
    call_f1: float
    arg_f1: float
    format_ok: bool
    exact: bool

    def extras(self) -> dict[str, float]:
        """The logged numbers, every one a float, always the same keys (verl indexes samples by them)."""
        return {"call_f1": self.call_f1, "arg_f1": self.arg_f1, "format_ok": float(self.format_ok),
                "exact": float(self.exact)}


#: The keys of :meth:`RewardScore.extras`, in order.
EXTRA_KEYS = ("call_f1", "arg_f1", "format_ok", "exact")


# --------------------------------------------------------------------------- scoring


class RewardScorer:
    """The metrics behind one :class:`RewardOptions`, built once and shared by every thread.

    ``ToolCallMetric`` resolves the grammar when it is built (loading a schema file), so
    building one per sample would dominate a verl run that passes options per call.
    A scorer pickles as its options and is rebuilt (by :func:`scorer_for`) where it is
    unpickled: its lock and metrics stay behind, so a reward holding one can travel to a
    Ray worker or a process pool.
    """

    def __init__(self, options: RewardOptions) -> None:
        self.options = options
        self.call = self._metric("call")
        grammar = self.call.grammar
        reason = weights_past_float(grammar) if grammar is not None else None
        if reason is not None:  # every sample would raise: the options are bad, and fail when built
            raise ValueError(f"grammar {grammar.key}: {reason}")
        #: the metrics of the levels only some options use (``arg``, ``name``), built when first asked for
        self._built: dict[str, ToolCallMetric] = {}
        self._lock = threading.Lock()
        #: gold JSON text -> what the grammar rejects in it: a GRPO group's completions share one gold
        self._checked: dict[str, tuple[str, ...]] = {}
        #: a label given as a list -> what the grammar rejects in it, keyed by :func:`_list_key` (a list's content,
        #: never its id(): a list can be changed between calls); apart from the JSON texts' keys, which are text too
        self._checked_lists: dict[str, tuple[str, ...]] = {}

    def __reduce__(self) -> tuple[Any, tuple[RewardOptions]]:
        return scorer_for, (self.options,)

    def __repr__(self) -> str:
        return f"RewardScorer({self.options!r})"

    def _metric(self, level: str) -> ToolCallMetric:
        o = self.options
        return ToolCallMetric(level, grammar=o.grammar, canonicalizer=o.canonicalizer, optimal=o.optimal,
                              order=o.order, format=o.format)

    def _built_once(self, level: str) -> ToolCallMetric:
        """The metric of ``level``, built by the first thread that asks for it and shared by every other."""
        metric = self._built.get(level)
        if metric is None:
            with self._lock:
                metric = self._built.get(level)
                if metric is None:
                    metric = self._built[level] = self._metric(level)
        return metric

    @property
    def arg(self) -> ToolCallMetric:
        return self._built_once("arg")

    @property
    def name(self) -> ToolCallMetric:
        """The ``name`` level's metric (tool selection)."""
        return self._built_once("name")

    def gold(self, value: Any, where: str = "gold") -> tuple[Step, ...]:
        """A label's gold calls (:func:`gold_calls`), refused like a malformed one when the grammar rejects them.

        ``ek score`` makes such a line an error (``gold does not fit GRAMMAR: ...``); scored, a gold call to a
        tool the grammar lacks, or with a value its schema refuses, could never be matched by a valid call, and
        the policy would be pushed away from right answers without a word. Raises ``ValueError`` naming
        ``where`` (as :func:`gold_calls` does), or :func:`gold_calls`' own errors.
        """
        gold, key = _gold_and_key(value, where)
        if self.call.grammar is None or gold is ANY_CALL:
            return gold
        if type(value) is str:
            # a text is kept as its decoded gold is: up to _GOLD_CACHE_MAX_CHARS
            checked, key = self._checked, value if len(value) <= _GOLD_CACHE_MAX_CHARS else None
        else:
            checked = self._checked_lists
        problems = checked.get(key) if key is not None else None
        if problems is None:
            problems = self.call.gold_problems(gold)
            if key is not None:
                if len(checked) >= _GOLD_CACHE_SIZE:
                    checked.clear()
                checked[key] = problems
        if problems:
            raise ValueError(f"{where}: {invalid_gold_reason(self.call.grammar, problems)}")
        return gold

    def read(self, output: Any, fmt: str) -> Sequence[Step]:
        return self.call.read(output, format=fmt)

    def calls(self, completion: Any) -> list[Step]:
        """The calls in a completion (text, a message, messages, a Responses API response); raises ParseError."""
        return _completion_calls(completion, self.options.format, self.read)

    def reward(self, calls: Sequence[Step], gold: Sequence[Step]) -> float:
        """The reward of parsed ``calls`` against ``gold``: what :func:`score_calls` gives as ``score``."""
        try:  # free until raised: an output too large or entangled to pair earns the unparseable score
            if gold is ANY_CALL:
                return _any_call_score(calls).score
            level = self.options.level
            if level == "name":
                return self.name(calls, gold).f1
            counts = _plain_call_counts(self.call, calls, gold)
            if level == "call":
                return _counts_f1(counts) if counts is not None else self.call(calls, gold).f1
            if level == "exact":
                exact = _counts_exact(counts) if counts is not None else is_exact(self.call(calls, gold))
                return 1.0 if exact else 0.0
            decided = _decided_by_calls(counts, calls, gold)
            if decided is not None:
                return decided
            if level == "arg":
                return self.arg(calls, gold).f1
            return _partial_credit(self.arg(calls, gold, explain_now=True), self.options.partial_weights)
        except (TooManyPairs, OrderTooComplex):
            return self.options.unparseable

    def breakdown(self, calls: Sequence[Step], gold: Sequence[Step]) -> RewardScore:
        """The reward and every logged number of parsed ``calls``."""
        try:  # free until raised: an output too large or entangled to pair earns the unparseable score
            if gold is ANY_CALL:
                return _any_call_score(calls)
            counts = _plain_call_counts(self.call, calls, gold)
            if counts is not None:
                call_f1, exact = _counts_f1(counts), _counts_exact(counts)
            else:
                call_score = self.call(calls, gold)
                call_f1, exact = call_score.f1, is_exact(call_score)
            decided = _decided_by_calls(counts, calls, gold)
            level = self.options.level
            arg_score = self.arg(calls, gold, explain_now=level == "partial") if decided is None else None
            arg_f1 = arg_score.f1 if arg_score is not None else decided
            assert arg_f1 is not None
            if level == "partial":
                score = _partial_credit(arg_score, self.options.partial_weights) if arg_score is not None else arg_f1
            elif level == "name":
                score = self.name(calls, gold).f1
            else:
                score = {"call": call_f1, "arg": arg_f1, "exact": 1.0 if exact else 0.0}[level]
            return RewardScore(score, call_f1, arg_f1, True, exact)
        except (TooManyPairs, OrderTooComplex):
            return self.unparseable()

    def unparseable(self) -> RewardScore:
        return RewardScore(self.options.unparseable, 0.0, 0.0, False, False)

    def score(self, completion: Any, gold: Sequence[Step], *, details: bool = False) -> float | RewardScore:
        """:func:`score_calls` with this scorer's options (adapters keep their scorer, sparing the lookup)."""
        try:
            calls = self.calls(completion)
        except ParseError:
            return self.unparseable() if details else self.options.unparseable
        return self.breakdown(calls, gold) if details else self.reward(calls, gold)


def _any_call_score(calls: Sequence[Step]) -> RewardScore:
    """Gold :data:`ek.calls.ANY_CALL` (some call, whichever): 1 when the completion holds a call, else 0, at
    every level, as :class:`~ek.scorer.metric.ToolCallMetric` scores it (one unit, TP iff a call)."""
    hit = 1.0 if calls else 0.0
    return RewardScore(hit, hit, hit, True, bool(calls))


_SCORERS: dict[RewardOptions, RewardScorer] = {}
_SCORERS_LOCK = threading.Lock()
#: Distinct option sets kept; past this (options built per sample with a fresh grammar object each time)
#: scorers are built and dropped, correct but slow.
_MAX_SCORERS = 64


def scorer_for(options: RewardOptions) -> RewardScorer:
    """The shared scorer of ``options`` (built once per distinct options; safe from many threads).

    Options holding an unhashable grammar or canonicalizer get a scorer of their own each call.
    """
    try:
        hash(options)
    except TypeError:
        return RewardScorer(options)
    scorer = _SCORERS.get(options)
    if scorer is None:
        with _SCORERS_LOCK:
            scorer = _SCORERS.get(options)
            if scorer is None:
                scorer = RewardScorer(options)
                if len(_SCORERS) < _MAX_SCORERS:
                    _SCORERS[options] = scorer
    return scorer


def score_calls(completion: Any, gold: Sequence[Step], options: RewardOptions = RewardOptions(), *,
                details: bool = False) -> float | RewardScore:
    """The reward of one completion against its gold calls (Steps, see :func:`gold_calls`).

    Never raises on model output: what cannot be parsed scores ``options.unparseable``.
    ``details=True`` returns the :class:`RewardScore` with the numbers the trainers log.
    ``gold`` is scored as it is; the TRL, verl and OpenRLHF rewards read a label with
    :meth:`RewardScorer.gold`, which also refuses gold the grammar rejects.

    >>> gold = gold_calls('[{"name": "f", "arguments": {"x": 1, "y": 2}}]')
    >>> score_calls("f(x=1, y=3)", gold), score_calls("f(x=1, y=3)", gold, RewardOptions(level="partial"))
    (0.0, 0.75)
    >>> score_calls("f(x=", gold, RewardOptions(unparseable=-1.0), details=True)
    RewardScore(score=-1.0, call_f1=0.0, arg_f1=0.0, format_ok=False, exact=False)
    """
    return scorer_for(options).score(completion, gold, details=details)


# --------------------------------------------------------------------------- fast paths and shaping


def _plain_call_counts(metric: ToolCallMetric, pred: Sequence[Step],
                       gold: Sequence[Step]) -> tuple[int, int, int] | None:
    """``(exact pairs, predicted calls, gold calls)`` of a call-level score, or None where this does not apply.

    Fast path: skips the metric's assignment, per-pair comparison, units and explanation, which
    a reward never shows. Safe because, with no grammar (every weight 1, no schema checks), no
    BFCL mode and no order to honour, the metric first pairs calls whose per-argument normal
    forms (:func:`ek.scorer.agree.arg_keys`, equal exactly when the calls agree) are equal, as
    a multiset; no pair formed after that is exact; and at call level an exact pair is one TP,
    every other call one FP or FN, so F1 = 2 * exact / (predicted + gold). A call whose normal
    form does not exist (``OneOf``, ``OMITTABLE``, NaN, exotic types) sends the episode to the metric.
    """
    if (metric.grammar is not None or is_bfcl_mode(metric.canonicalizer) or metric.order == "strict"
            or any(getattr(g, "after", ()) for g in gold)):
        return None
    canon = metric.canonicalizer
    try:
        pred_keys = _call_keys(pred, canon)
        gold_keys = _call_keys(gold, canon) if pred_keys is not None else None
        if gold_keys is None:
            return None
        counts = Counter(gold_keys)
        exact = 0
        for key in pred_keys:  # the size of the multisets' intersection
            left = counts.get(key, 0)
            if left:
                counts[key] = left - 1
                exact += 1
    except (RecursionError, TypeError):  # absurd nesting, unhashable leftovers: the metric says what is wrong
        return None
    return exact, len(pred), len(gold)


def _call_keys(calls: Sequence[Step], canon: Any) -> list[tuple[str, Any]] | None:
    """Each call's name and argument normal forms (:func:`ek.scorer.agree.arg_keys`, no rules), or None when one
    has none."""
    out = []
    for step in calls:
        keys = arg_keys(step.args, None, canon)
        if keys is None:
            return None
        out.append((step.name, key_of(keys)))
    return out


def _counts_f1(counts: tuple[int, int, int]) -> float:
    """Call-level F1 from ``(exact, predicted, gold)``: 2 * exact / (predicted + gold), 1.0 for nothing vs nothing.

    The metric's ``Score.f1`` is the correctly rounded ``Fraction(2 tp, 2 tp + fp + fn)``; int true
    division is correctly rounded too, so the two floats are identical.
    """
    exact, predicted, expected = counts
    return 2 * exact / (predicted + expected) if predicted + expected else 1.0


def _counts_exact(counts: tuple[int, int, int]) -> bool:
    """No FP and no FN at call level: every predicted and every gold call is in an exact pair."""
    return counts[0] == counts[1] == counts[2]


def _decided_by_calls(counts: tuple[int, int, int] | None, pred: Sequence[Step], gold: Sequence[Step]) -> float | None:
    """The arg-level F1 (and ``partial`` credit) where the call level already decides it, else None.

    Fast path: skips the arg-level metric. Safe under :func:`_plain_call_counts`' conditions
    (``counts`` is None otherwise): the assignment does not depend on the level, so when every
    call is in an exact pair every arg-level unit is a TP (F1 1.0, and every pair earns full
    partial credit); when no tool is both predicted and expected there is no pair, only FP and
    FN units (F1 0.0, no credit).
    """
    if counts is None:
        return None
    if _counts_exact(counts):
        return 1.0
    if not {s.name for s in pred} & {s.name for s in gold}:
        return 0.0
    return None


def _near_one(weights: tuple[float, float, float]) -> tuple[float, float, float]:
    """``partial_weights`` scaled by the power of two that puts the largest in [0.5, 1).

    The credit's sums then stay finite and keep their digits: weights near a float's limit summed to
    infinity (a NaN credit, clipped to 1.0 for any answer) and subnormal ones rounded ``c * values`` to 0.
    A power of two scales every sum and quotient exactly, so weights already near 1 (the default) give
    the same floats as before.
    """
    exponent = math.frexp(max(weights))[1]
    return (math.ldexp(weights[0], -exponent), math.ldexp(weights[1], -exponent), math.ldexp(weights[2], -exponent))


#: Check statuses where the predicted call names the argument gold expects (rightly or wrongly valued).
_NAMED = frozenset({"match", "wrong_value", "invalid_value"})


def _partial_credit(score: Score, weights: tuple[float, float, float]) -> float:
    """``partial`` shaping from an arg-level score's explanation (formula in docs/rl.md).

    Each matched pair (same tool, the metric's assignment) earns
    ``(a + b * names + c * values) / (a + b + c)``: ``names`` is the importance-weighted share of
    its compared arguments present on both sides, ``values`` the share that match (both 1 when
    the call has no argument). The score is ``2 * sum(w * credit) / (sum of predicted call weights
    + sum of gold call weights)``, ``w`` the tool's weight: a soft F1, in [0, 1], equal to call-level
    F1 when every pair is exact or absent.
    """
    explanation = score.explanation
    assert explanation is not None  # ToolCallMetric always explains
    a, b, c = _near_one(weights)
    pred_w: dict[int, float] = {}
    gold_w: dict[int, float] = {}
    for unit in explanation.units:  # each call's own unit (arg None) carries its tool's weight
        if unit.arg is None:
            if unit.pred_index is not None:
                pred_w[unit.pred_index] = unit.weight
            if unit.gold_index is not None:
                gold_w[unit.gold_index] = unit.weight
    total = sum(pred_w.values()) + sum(gold_w.values())
    if not total:
        return 1.0  # nothing that weighs: as the metric's F1 (nothing expected, nothing predicted is right)
    scale = 1.0
    if math.isinf(total):  # calls of weights near a float's limit: every weight scaled down by the same power
        scale = 2.0 ** -(len(pred_w) + len(gold_w)).bit_length()  # of two (exact), so the sums fit and the
        total = sum(w * scale for w in pred_w.values()) + sum(w * scale for w in gold_w.values())  # ratio holds
    earned = 0.0
    for pair in explanation.pairs:  # a pair's importances sum to a finite float (RewardScorer checks the grammar)
        counted = [check for check in pair.checks if check.status != "ignored"]
        weight = sum(check.weight for check in counted)
        names = sum(ch.weight for ch in counted if ch.status in _NAMED) / weight if weight else 1.0
        values = sum(ch.weight for ch in counted if ch.status == "match") / weight if weight else 1.0
        earned += gold_w[pair.gold_index] * scale * (a + b * names + c * values) / (a + b + c)
    return min(1.0, 2 * earned / total)


# --------------------------------------------------------------------------- gold


#: Gold JSON strings kept decoded: in GRPO every completion of a prompt (8-64) shares the prompt's gold.
_GOLD_CACHE_SIZE = 1024
#: Longer gold strings are decoded every time. Decoded, a character of JSON can take ~26 bytes (``{}`` is a
#: 64-byte dict): at 64 KiB a string the cache could hold 1.6 GB; at 2,048 characters at most ~55 MB, and
#: real golds (a few calls) are a few hundred.
_GOLD_CACHE_MAX_CHARS = 2048


class _UnreadableNumber(ValueError):
    """Gold JSON holding an integer past Python's int/str conversion limit (it cannot be read)."""


class _TooDeep(ValueError):
    """Gold JSON nested past what Python's JSON decoder can recurse through (a RecursionError inside it)."""


def _gold_from_text(text: str) -> tuple[Step, ...]:
    """Decoded gold calls of a JSON string, cached when the string is short enough."""
    return _cached_gold(text) if len(text) <= _GOLD_CACHE_MAX_CHARS else _decode_gold(text)


#: Gold JSON text's decoder: ``json.loads``', refusing a key given twice (built once: ``json.loads`` with a hook
#: builds a decoder per call).
_GOLD_DECODER = json.JSONDecoder(object_pairs_hook=unique_keys)


def _decode_gold(text: str) -> tuple[Step, ...]:
    try:
        value = _GOLD_DECODER.decode(text)
    except (json.JSONDecodeError, DuplicateKeyError):
        raise
    except ValueError as exc:  # the only other ValueError json.loads raises: the int/str conversion limit
        raise _UnreadableNumber(long_int_reason(exc)) from None
    except RecursionError:
        raise _TooDeep("JSON nested too deeply to decode (gold values nest at most "
                       f"{GOLD_MAX_DEPTH} levels)") from None
    return tuple(gold_from_json(value, "gold"))


_cached_gold = functools.lru_cache(maxsize=_GOLD_CACHE_SIZE)(_decode_gold)  # thread-safe; errors are not cached


def _label_text(text: str, where: str) -> Any:
    """A label given as JSON text: its gold calls (a tuple of Steps, decoded once and cached), or, when the
    JSON is not a list of gold calls, the decoded value, for ``gold_from_json`` to name the bad call.

    Raises ``ValueError`` when the text is not JSON, :class:`_UnreadableNumber` when it holds a number
    Python cannot read (both naming ``where``): each caller decides what a broken label costs.
    """
    try:
        return _gold_from_text(text)
    except json.JSONDecodeError as exc:
        raise ValueError(f"{where}: a string but not JSON: {exc}") from None
    except _UnreadableNumber as exc:
        raise _UnreadableNumber(f"{where}: {exc}") from None
    except (_TooDeep, DuplicateKeyError) as exc:
        raise ValueError(f"{where}: {exc}") from None
    except (TypeError, ValueError):
        return json.loads(text)  # decodes (it did above); the caller's gold_from_json names the bad call


#: Types of the values a list label's key (:func:`_list_key`) takes: exact types, whose ``repr`` is their literal.
_KEYED_LEAVES = frozenset({str, int, float, bool, type(None)})
#: Values (in all its lists and objects) a list label's key looks at, at most: a larger label is decoded every time,
#: as a JSON string longer than :data:`_GOLD_CACHE_MAX_CHARS` is, so walking it is never a cost of its own.
_KEY_MAX_VALUES = 256
#: A label given as a list, by :func:`_list_key` -> its gold calls (decoded once, as a JSON string's are).
_list_golds: dict[str, tuple[Step, ...]] = {}


def _list_key(value: list[Any]) -> str | None:
    """A key of a label given as a list, for the caches of its decoded and its checked gold: its ``repr``, when it
    holds only lists, objects with string keys and JSON scalars, each of exactly that Python type (``dict``,
    ``list``, ``str``, ``int``, ``float``, ``bool``, None), at most :data:`_KEY_MAX_VALUES` of them, and the
    ``repr`` is at most :data:`_GOLD_CACHE_MAX_CHARS` long; else None: not cached.

    Safe because of those types: the ``repr`` of such a value is its literal, which reads back as an equal value of
    the same types in the same key order (``1``, ``1.0`` and ``True`` differ; so do ``{"1": ...}`` and a key
    ``1``, refused here), so one key is one label, and decoding and checking it (a function of the label) give
    what they gave. Any other type may ``repr`` as anything (a subclass, a NumPy array shortened with ``...``):
    such a label is decoded every time. A list's ``id()`` would be no key: a list can be changed between calls,
    and a new one can take a freed list's ``id()``. A cycle ends the walk at the count of values."""
    todo: list[Any] = [value]
    seen = 0
    while todo:
        node = todo.pop()
        seen += len(node)
        if seen > _KEY_MAX_VALUES:
            return None
        if type(node) is dict:
            if any(type(k) is not str for k in node):
                return None
            node = node.values()
        for item in node:
            kind = type(item)
            if kind is dict or kind is list:
                todo.append(item)
            elif kind not in _KEYED_LEAVES:
                return None
    try:
        key = repr(value)
    except ValueError:  # an int past Python's int/str conversion limit: decoding the label says so, every time
        return None
    return key if len(key) <= _GOLD_CACHE_MAX_CHARS else None


def gold_calls(value: Any, where: str = "gold") -> tuple[Step, ...]:
    """Gold calls from a label: a JSON string (the safe Parquet/Arrow form) or a list of call objects.

    Raises ``ValueError`` (naming ``where``) on anything else: a malformed label is the
    dataset's fault and must be seen, not scored. A JSON string is decoded once and cached
    (the Steps are shared and never modified), and so is a small list of plain JSON values
    (:func:`_list_key`).

    >>> gold_calls('[{"name": "f", "arguments": {"x": 1}}]')
    (Step(name='f', args={'x': 1}),)
    >>> gold_calls("any_call")  # some call, whichever, is right
    ANY_CALL
    """
    return _gold_and_key(value, where)[0]


def _gold_and_key(value: Any, where: str) -> tuple[tuple[Step, ...], str | None]:
    """:func:`gold_calls` of a label, and its :func:`_list_key` when it is a list that has one (else None)."""
    key = _list_key(value) if type(value) is list else None
    if key is not None:
        hit = _list_golds.get(key)
        if hit is not None:
            return hit, key
        gold = _decoded_label(value, where)
        if len(_list_golds) >= _GOLD_CACHE_SIZE:  # bounded, as the JSON texts' cache is
            _list_golds.clear()
        _list_golds[key] = gold  # (errors are raised above, never kept)
        return gold, key
    return _decoded_label(value, where), None


def _decoded_label(value: Any, where: str) -> tuple[Step, ...]:
    value = _without_arrays(value, where)  # NumPy's strings and numbers as Python's: np.str_("any_call") too
    if any_call_gold(value):
        return ANY_CALL
    if type(value) is str:
        value = _label_text(value, where)
        if type(value) is tuple:
            return value
    if not isinstance(value, list):
        raise ValueError(f"{where}: expected the gold calls as a JSON string or a list of "
                         f'{{"name", "arguments"}} objects, got {type(value).__name__}: {value!r:.80}')
    try:
        return tuple(gold_from_json(value, where))
    except (TypeError, ValueError) as exc:
        raise ValueError(str(exc)) from None


#: Python's own types of the values a label holds that hold no other value: taken as they are.
_PLAIN = frozenset({str, int, float, bool, bytes, type(None)})


def _without_arrays(value: Any, where: str, depth: int = 0) -> Any:
    """``value`` with NumPy arrays, scalars and strings as Python's lists, numbers and strings, at any depth.

    pandas hands a Parquet list-of-structs column over (verl's ground truth) as an array of
    dicts whose list fields are arrays too; read as they are, an array never equals a list.
    Every value comes out of Python's own type, so the gold's checks see it as they see JSON:
    ``np.str_("any_call")`` is the marker, an ``np.float64`` NaN is refused as ``float("nan")``
    is, and a float32 (or float16) is the shortest decimal that reads back as it, as NumPy
    prints it: ``np.float32(0.1)`` is ``0.1``, not the ``0.10000000149011612`` it widens to.
    """
    if type(value) in _PLAIN:
        return value
    if depth > GOLD_MAX_DEPTH:
        raise ValueError(f"{where}: gold value nested too deeply (more than {GOLD_MAX_DEPTH} levels)")
    if isinstance(value, Mapping):
        return {_without_arrays(k, where, depth + 1): _without_arrays(v, where, depth + 1) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_without_arrays(v, where, depth + 1) for v in value]
    for plain in (str, bytes, float, int):  # subclasses: np.str_, np.bytes_, np.float64
        if isinstance(value, plain):
            return plain(value)
    dtype = getattr(value, "dtype", None)
    if dtype is not None and hasattr(value, "tolist"):  # a NumPy array or scalar
        if getattr(value, "ndim", 0):
            return [_without_arrays(v, where, depth + 1) for v in value]  # its items, as NumPy scalars (tolist widens)
        if dtype.kind == "f" and dtype.itemsize != 8:
            return float(str(value))  # float32, float16, longdouble: their shortest decimal, as JSON would hold it
        return _without_arrays(value.tolist(), where, depth + 1)
    return value


# --------------------------------------------------------------------------- TRL


def _row_gold(scorer: RewardScorer, value: Any, index: int) -> tuple[Step, ...] | None:
    """The row's gold calls, as :meth:`RewardScorer.gold` reads them (a malformed label, or one the grammar rejects,
    raises its ``ValueError``, named ``gold[index]``); None when there are none, or when they hold a number Python
    cannot read: valid JSON past Python's int/str limit, the one broken label that skips its row (with a warning)
    instead (docs/rl.md)."""
    if value is None:
        return None
    try:
        return scorer.gold(value, f"gold[{index}]")
    except _UnreadableNumber as exc:
        warnings.warn(f"{exc}; its reward is None", RuntimeWarning, stacklevel=3)
        return None


@attrs.frozen
class ToolCallReward:
    """A GRPO reward function: what :func:`make_tool_call_reward` builds, called as TRL calls it.

    It pickles (``pickle`` and cloudpickle alike) as its options and gold column: the scorer
    is rebuilt, and shared, wherever it is unpickled. ``__name__`` is what TRL logs it under.
    """

    scorer: RewardScorer
    gold_column: str = "gold_calls"

    @property
    def __name__(self) -> str:  # TRL names a reward function by its __name__
        level = self.scorer.options.level
        return f"tool_call_{level}_f1" if level in ("call", "arg", "name") else f"tool_call_{level}"

    def __call__(self, completions: Sequence[Any], **kwargs: Any) -> list[float | None]:
        gold_column = self.gold_column
        if gold_column not in kwargs:
            names = ", ".join(sorted(k for k in kwargs if k not in ("prompts", "completion_ids", "trainer_state")))
            raise KeyError(f"no {gold_column!r} column among the reward kwargs (got: {names or 'none'}); "
                           f"add it to the dataset or pass gold_column=...")
        golds = kwargs[gold_column]
        if len(golds) != len(completions):
            raise ValueError(f"{len(completions)} completions but {len(golds)} values in {gold_column!r}")
        scorer = self.scorer
        rewards: list[float | None] = []
        for i, (completion, gold_value) in enumerate(zip(completions, golds)):
            gold = _row_gold(scorer, gold_value, i)
            if gold is None:
                rewards.append(None)
                continue
            try:
                calls = scorer.calls(completion)
            except ParseError:
                rewards.append(scorer.options.unparseable)
                continue
            rewards.append(scorer.reward(calls, gold))
        return rewards


def make_tool_call_reward(level: str = "call", grammar: Any = None, gold_column: str = "gold_calls", *,
                          canonicalizer: str | None = None, optimal: bool = False,
                          unparseable: float = 0.0, order: str = "gold", format: str = "auto",
                          partial_weights: Sequence[float] = PARTIAL_WEIGHTS) -> ToolCallReward:
    """A GRPO reward function: each completion's reward against the row's gold calls.

    ``level``: ``"call"`` (cost-weighted F1, credit for exactly right calls), ``"arg"`` (partial
    credit per argument, a denser signal), ``"partial"`` (credit per call for its name, argument
    names and values, weighed by ``partial_weights``) or ``"exact"`` (1 for an exactly right
    response, else 0); formulas in docs/rl.md. ``grammar`` brings weights, compare policies,
    defaults and validation. A completion whose output cannot be parsed gets ``unparseable``
    (so garbage never earns the 1.0 of "no call expected, none made"; a negative value is a
    format penalty). A row whose gold is ``None`` gets ``None`` (TRL skips it for this reward).
    ``order``: ``any``, ``strict`` or ``gold`` (default: the gold calls' ``"after"`` constraints),
    as in ``ek score --order``. ``format`` names how the completions write calls (any registered
    format, as in ``ek score --format``); they are read by the metric, so a grammar's declared
    argument types type bare-text values (``qwen3-coder``) here too.
    """
    options = RewardOptions(level, grammar, canonicalizer, optimal, order, format, unparseable,
                            tuple(partial_weights))  # type: ignore[arg-type]
    return ToolCallReward(scorer_for(options), gold_column)  # builds the metric now: a bad grammar fails here


_DEFAULT_REWARD = make_tool_call_reward()


def tool_call_reward(completions: Sequence[Any], **kwargs: Any) -> list[float | None]:
    """The default reward, ``make_tool_call_reward()``: call-level F1 against the ``gold_calls`` column.

    A module-level function, so it pickles by reference; TRL logs it as ``tool_call_call_f1``.
    """
    return _DEFAULT_REWARD(completions, **kwargs)


tool_call_reward.__name__ = _DEFAULT_REWARD.__name__  # what TRL logs it under; its __qualname__ stays, for pickle

__all__ = ["EXTRA_KEYS", "OPTION_NAMES", "PARTIAL_WEIGHTS", "REWARD_LEVELS", "RewardOptions", "RewardScore",
           "RewardScorer", "ToolCallReward",
           "completion_calls", "gold_calls", "make_tool_call_reward", "score_calls", "scorer_for", "text_calls",
           "tool_call_reward"]
