"""Tool-call rewards for RL fine-tuning, in the shape TRL's ``GRPOTrainer`` calls reward functions.

TRL calls ``reward_func(prompts=..., completions=..., completion_ids=..., **columns)``
where ``columns`` are the dataset's other columns (one value per completion)
and expects one float per completion (``None`` = "not applicable to this
sample"). Here the gold calls come from a dataset column (``gold_calls`` by
default) and the reward is the episode's cost-weighted F1 (see docs/rl.md).

>>> reward = make_tool_call_reward(level="arg")
>>> reward(["get_weather(location='Paris')", "get_weather(location='Rome')", "no tool call here?"],
...        gold_calls=['[{"name": "get_weather", "arguments": {"location": "paris"}}]'] * 3)
[1.0, 0.5, 0.0]
"""

from __future__ import annotations

import json
import warnings
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from ek.calls import Step
from ek.goldjson import gold_from_json
from ek.parsing import ParseError, parse_calls
from ek.parsing.values import long_int_reason
from ek.scorer.metric import ToolCallMetric

RewardFunction = Callable[..., list[float | None]]


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


def _gold(value: Any, index: int) -> list[Step] | None:
    """The row's gold calls; None when there are none, or when they hold a number Python cannot read (the
    row is skipped with a warning: one broken row must not stop a training run)."""
    if value is None:
        return None
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except json.JSONDecodeError as exc:
            raise ValueError(f"gold calls of completion {index} are a string but not JSON: {exc}") from None
        except ValueError as exc:  # an integer past Python's int/str conversion limit
            warnings.warn(f"gold calls of completion {index}: {long_int_reason(exc)}; its reward is None",
                          RuntimeWarning, stacklevel=3)
            return None
    return gold_from_json(value, f"gold[{index}]")


def make_tool_call_reward(level: str = "call", grammar: Any = None, gold_column: str = "gold_calls", *,
                          canonicalizer: str | None = None, optimal: bool = False,
                          unparseable: float = 0.0, order: str = "gold", format: str = "auto") -> RewardFunction:
    """A GRPO reward function: cost-weighted F1 of each completion's calls against the row's gold calls.

    ``level="arg"`` gives partial credit per argument (a denser signal);
    ``grammar`` brings weights, compare policies, defaults and validation.
    A completion whose output cannot be parsed gets ``unparseable`` (so
    garbage never earns the 1.0 of "no call expected, none made"). A row whose
    gold is ``None`` gets ``None`` (TRL skips it for this reward). ``order``: ``any``, ``strict`` or ``gold``
    (default: the gold calls' ``"after"`` constraints), as in ``ek score --order``. ``format`` names how
    the completions write calls (any registered format, as in ``ek score --format``); they are read by the
    metric, so a grammar's declared argument types type bare-text values (``qwen3-coder``) here too.
    """
    metric = ToolCallMetric(level, grammar=grammar, canonicalizer=canonicalizer, optimal=optimal, order=order,
                            format=format)

    def read(output: Any, fmt: str) -> Sequence[Step]:
        return metric.read(output, format=fmt)

    def reward(completions: Sequence[Any], **kwargs: Any) -> list[float | None]:
        if gold_column not in kwargs:
            names = ", ".join(sorted(k for k in kwargs if k not in ("prompts", "completion_ids", "trainer_state")))
            raise KeyError(f"no {gold_column!r} column among the reward kwargs (got: {names or 'none'}); "
                           f"add it to the dataset or pass gold_column=...")
        golds = kwargs[gold_column]
        if len(golds) != len(completions):
            raise ValueError(f"{len(completions)} completions but {len(golds)} values in {gold_column!r}")
        rewards: list[float | None] = []
        for i, (completion, gold_value) in enumerate(zip(completions, golds)):
            gold = _gold(gold_value, i)
            if gold is None:
                rewards.append(None)
                continue
            try:
                calls = _completion_calls(completion, format, read)
            except ParseError:
                rewards.append(unparseable)
                continue
            rewards.append(metric(calls, gold).f1)
        return rewards

    reward.__name__ = f"tool_call_{level}_f1"
    reward.__qualname__ = reward.__name__
    return reward


#: The default reward: call-level F1 against the ``gold_calls`` column.
tool_call_reward: RewardFunction = make_tool_call_reward()

__all__ = ["completion_calls", "make_tool_call_reward", "text_calls", "tool_call_reward"]
