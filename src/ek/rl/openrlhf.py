"""OpenRLHF's reward function file: ``reward_func``, scored by :mod:`ek.rewards`.

Give OpenRLHF (0.11) this file as the remote reward URL, and the dataset column
holding the gold calls as the label key::

    --reward.remote_url "$(python -m ek.rl.openrlhf --path)" --data.label_key gold_calls

(up to 0.10.1 the flags were ``--remote_rm_url`` and ``--label_key``). OpenRLHF loads
the file under the module name ``reward_func`` and takes its attribute ``reward_func``
(``openrlhf/utils/agent.py``, ``SingleTurnAgentExecutor``), so everything here is
imported absolutely. It calls it positionally, ``reward_func(queries, prompts,
labels)``, with lists (one element per call in process, a batch over HTTP), from
many threads at once. Each query is the prompt **plus** the response, decoded with
special tokens kept: the response is what follows the prompt, with the chat
template's end-of-turn tokens (:data:`END_OF_TURN`) stripped from its end.

The result is ``{"rewards", "scores", "extra_logs"}``: the reward, the reward
clipped to [0, 1] (OpenRLHF's dynamic filtering reads ``scores``), and
``call_f1``, ``arg_f1``, ``format_ok`` and ``exact`` per sample; tensors when torch is
installed, lists otherwise. OpenRLHF swallows exceptions (the sample's reward is
then left empty), so a response that cannot be parsed scores, and a malformed label
or a query that does not hold its prompt is logged as an error before it raises.

>>> prompt = "<|im_start|>user\\nWeather in Paris?<|im_end|>\\n<|im_start|>assistant\\n"
>>> call = '<tool_call>\\n{"name": "get_weather", "arguments": {"location": "Paris"}}\\n</tool_call>'
>>> out = reward_func([prompt + call + "<|im_end|>"], [prompt],
...                   ['[{"name": "get_weather", "arguments": {"location": "Paris"}}]'])
>>> [float(x) for x in out["rewards"]], sorted(out["extra_logs"])
([1.0], ['arg_f1', 'call_f1', 'exact', 'format_ok'])
"""

from __future__ import annotations

import functools
import importlib
import logging
from collections.abc import Callable, Sequence
from typing import Any

from ek.rewards import EXTRA_KEYS, RewardOptions, RewardScore, RewardScorer, scorer_for

logger = logging.getLogger(__name__ if __name__.startswith("ek.") else "ek.rl.openrlhf")

#: End-of-turn and end-of-text tokens chat templates close a response with (ChatML/Qwen, Llama 3, Llama 2 and
#: Mistral, GPT-2/Qwen base, Phi, Gemma, DeepSeek, gpt-oss); stripped from the response's end, repeatedly.
END_OF_TURN = ("<|im_end|>", "<|eot_id|>", "<|eom_id|>", "<|end_of_text|>", "<|endoftext|>", "</s>", "<|end|>",
               "<end_of_turn>", "<eos>", "<｜end▁of▁sentence｜>", "<|return|>")

#: The least of a prompt cut from the left (characters) that is taken as its kept end; a shorter overlap of
#: query and prompt is more likely chance than truncation.
_MIN_KEPT = 32


class LabelError(ValueError):
    """A label (the gold calls) or a query that the reward cannot use: the dataset's or the setup's fault."""


def response_of(query: str, prompt: str, end_tokens: Sequence[str] = END_OF_TURN) -> str:
    """The response in an OpenRLHF query: the text after the prompt, end-of-turn tokens stripped from its end.

    OpenRLHF keeps only a prompt's last tokens when it is too long, so a query may start
    inside its prompt; that is found too. Raises :class:`LabelError` when the query holds
    no form of its prompt (a tokenizer whose decoding does not give the prompt back).

    >>> response_of("<|im_start|>user\\nhi<|im_end|>\\n<|im_start|>assistant\\nf()<|im_end|>",
    ...             "<|im_start|>user\\nhi<|im_end|>\\n<|im_start|>assistant\\n")
    'f()'
    >>> cut = "<|im_start|>user\\nWeather in Paris, please?<|im_end|>\\n<|im_start|>assistant\\n"
    >>> response_of(cut[20:] + "f()<|im_end|><|endoftext|>", "<|im_start|>system\\nBe brief.<|im_end|>\\n" + cut)
    'f()'
    """
    if not isinstance(query, str) or not isinstance(prompt, str):
        raise LabelError(f"a query and its prompt are text (OpenRLHF decodes them), got {type(query).__name__} "
                         f"and {type(prompt).__name__}")
    start = _prompt_end(query, prompt)
    if start is None:
        raise LabelError(f"the query does not start with its prompt (nor with the end of it): query "
                         f"{query[:60]!r}..., prompt ...{prompt[-60:]!r}; does the tokenizer decode the prompt "
                         "back to the same text?")
    return strip_end_tokens(query[start:], end_tokens)


def _prompt_end(query: str, prompt: str) -> int | None:
    """Where the response starts in ``query``: after ``prompt``, or after the part of it that was kept."""
    if query.startswith(prompt):
        return len(prompt)
    kept = _overlap(prompt, query[: len(prompt)])
    return kept if kept >= _MIN_KEPT else None


def _overlap(text: str, pattern: str) -> int:
    """The length of the longest prefix of ``pattern`` that ``text`` ends with (Knuth-Morris-Pratt: linear)."""
    if not pattern:
        return 0
    fail = [0] * len(pattern)
    k = 0
    for i in range(1, len(pattern)):
        while k and pattern[i] != pattern[k]:
            k = fail[k - 1]
        if pattern[i] == pattern[k]:
            k += 1
        fail[i] = k
    k = 0
    for ch in text:
        while k and (k == len(pattern) or ch != pattern[k]):
            k = fail[k - 1]
        if ch == pattern[k]:
            k += 1
    return k


def strip_end_tokens(text: str, end_tokens: Sequence[str] = END_OF_TURN) -> str:
    """``text`` without trailing whitespace and end-of-turn tokens (any number, in any order).

    >>> strip_end_tokens("f()<|im_end|>\\n<|endoftext|><|endoftext|>")
    'f()'
    """
    tokens = [t for t in end_tokens if t]
    end = len(text)
    while True:  # linear in what is stripped: no slice is made until the end is known
        while end and text[end - 1].isspace():
            end -= 1
        token = next((t for t in tokens if text.endswith(t, 0, end)), None)
        if token is None:
            return text[:end]
        end -= len(token)


def _loud(error: Exception) -> Exception:
    logger.error("ek reward: %s", error)  # OpenRLHF only logs a failing reward at INFO level
    return error


def _gold(scorer: RewardScorer, label: Any, index: int) -> Any:
    if isinstance(label, str) and not label.strip():
        raise _loud(LabelError(f"label {index} is empty: pass --data.label_key (before 0.11: --label_key) naming "
                               "the dataset column that holds the gold calls"))
    try:
        return scorer.gold(label, f"label {index}")
    except ValueError as exc:
        raise _loud(LabelError(str(exc))) from None


@functools.cache  # looked up once per process (a failed import searches the whole path every time)
def _torch() -> Any:
    try:
        return importlib.import_module("torch")
    except ImportError:
        return None


def _as_numbers(values: list[float]) -> Any:
    """A float tensor when torch is installed (what OpenRLHF's trainer expects), else the list."""
    torch = _torch()
    return values if torch is None else torch.tensor(values, dtype=torch.float)


def pack(results: Sequence[RewardScore]) -> dict[str, Any]:
    """OpenRLHF's reward dict: ``rewards``, ``scores`` (the reward clipped to [0, 1]), ``extra_logs``."""
    rewards = [r.score for r in results]
    extras = [r.extras() for r in results]
    return {"rewards": _as_numbers(rewards),
            "scores": _as_numbers([min(1.0, max(0.0, r)) for r in rewards]),
            "extra_logs": {key: _as_numbers([e[key] for e in extras]) for key in EXTRA_KEYS}}


def make_reward_func(end_tokens: Sequence[str] = END_OF_TURN, **options: Any) -> Callable[..., dict[str, Any]]:
    """A ``reward_func`` with these :class:`~ek.rewards.RewardOptions` (and end-of-turn tokens).

    OpenRLHF passes no options, so to change them give it a file of your own::

        from ek.rl.openrlhf import make_reward_func
        reward_func = make_reward_func(level="arg", grammar="/abs/path/schemas/travel-v2.ek")

    It is a function (OpenRLHF 0.7-0.9 wrap it in ``ray.remote``, which takes only functions and
    classes), so it pickles by value with cloudpickle, as Ray does: its scorer travels as its options
    and is rebuilt in the worker. Python's own ``pickle`` cannot pickle a function by value.
    """
    scorer = scorer_for(RewardOptions(**options))  # a bad grammar or format fails when OpenRLHF loads the file
    tokens = tuple(end_tokens)

    def reward_func(queries: Sequence[str], prompts: Sequence[str], labels: Sequence[Any],
                    **_unused: Any) -> dict[str, Any]:
        return _rewards(scorer, tokens, queries, prompts, labels)

    return reward_func


def _rewards(scorer: RewardScorer, tokens: Sequence[str], queries: Sequence[str], prompts: Sequence[str],
             labels: Sequence[Any]) -> dict[str, Any]:
    if not len(queries) == len(prompts) == len(labels):
        raise _loud(LabelError(f"{len(queries)} queries, {len(prompts)} prompts and {len(labels)} labels; "
                               "OpenRLHF passes one of each per sample"))
    results = []
    for i, (query, prompt, label) in enumerate(zip(queries, prompts, labels)):
        gold = _gold(scorer, label, i)
        try:
            response = response_of(query, prompt, tokens)
        except LabelError as exc:
            raise _loud(exc) from None
        results.append(scorer.score(response, gold, details=True))
    return pack(results)


_DEFAULT_SCORER = scorer_for(RewardOptions())


def reward_func(queries: Sequence[str], prompts: Sequence[str], labels: Sequence[Any],
                **_unused: Any) -> dict[str, Any]:
    """The attribute OpenRLHF takes from this file: the default options' rewards of a batch of samples.

    A module-level function, so it pickles by reference.
    """
    return _rewards(_DEFAULT_SCORER, END_OF_TURN, queries, prompts, labels)


if __name__ not in ("ek.rl.openrlhf", "__main__"):
    # Loaded by file path (OpenRLHF names the module reward_func): hand out the package's own objects, so every
    # copy shares one function and Ray (OpenRLHF 0.7-0.9 wraps it in ray.remote) pickles it by reference.
    from ek.rl.openrlhf import make_reward_func, reward_func  # noqa: F811

__all__ = ["END_OF_TURN", "LabelError", "make_reward_func", "pack", "response_of", "reward_func",
           "strip_end_tokens"]

if __name__ == "__main__":
    from ek.rl import main

    main("openrlhf")
