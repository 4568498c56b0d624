"""verl's custom reward function: ``compute_score``, scored by :mod:`ek.rewards`.

verl 0.9 reads it from the trainer config (``reward.custom_reward_function``; up to
0.8 the key was top level, and the 0.9 trainer ignores the old key)::

    reward:
      custom_reward_function:
        path: pkg://ek.rl.verl          # or the file: python -m ek.rl.verl --path
        name: compute_score
        reward_kwargs: {level: call}    # any RewardOptions field: level, grammar, unparseable, ...

verl calls it once per sample, from worker threads, with keyword arguments
(``verl/experimental/reward_loop/reward_manager/naive.py``)::

    compute_score(data_source=..., solution_str=..., ground_truth=..., extra_info=..., **reward_kwargs)

and its offline ``main_eval`` positionally, ``compute_score(data_source, solution_str,
ground_truth)``, averaging what comes back. So with ``extra_info`` (the trainer
always passes it) the result is a dict, ``{"score", "call_f1", "arg_f1", "format_ok",
"exact"}`` with the same keys and numbers only on every call (verl indexes every
sample by the first one's keys); without it, the bare score.

verl's legacy reward managers (``verl/workers/reward_manager/``, those of 0.8 and earlier)
call differently, and each has its own function here: ``batch`` calls once per batch
with ``data_sources=``, ``solution_strs=``, ``ground_truths=``, ``extra_infos=``
(:func:`compute_score_batch`: a list of those dicts), and ``prime`` calls
``compute_score(data_source, solution_str, ground_truth, extra_info)`` in a process pool
and reads ``float(result[0])`` of anything but a number (:func:`compute_score_prime`:
always the bare score).

``ground_truth`` is the gold calls as a JSON string (the safe Parquet form) or a
list of ``{"name", "arguments"}`` objects. A sample's grammar may come from
``extra_info["ek_grammar"]``, else the ``grammar`` keyword, else the default given to
:func:`make_compute_score`. A response that cannot be parsed scores (never raises);
a malformed ground truth or an unknown keyword raises ``ValueError``/``TypeError``.

>>> gold = '[{"name": "get_weather", "arguments": {"location": "Paris"}}]'
>>> compute_score("tools", '<tool_call>{"name": "get_weather", "arguments": {"location": "paris"}}</tool_call>', gold)
1.0
>>> compute_score(data_source="tools", solution_str="get_weather(location='Rome')", ground_truth=gold,
...               extra_info={"num_turns": 1, "rollout_reward_scores": {}}, level="partial")
{'score': 0.5, 'call_f1': 0.0, 'arg_f1': 0.5, 'format_ok': 1.0, 'exact': 0.0}
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from typing import Any

import attrs

from ek.rewards import OPTION_NAMES, RewardOptions, RewardScore, RewardScorer, scorer_for

#: The ``extra_info`` key naming a sample's grammar (an ``.ek`` path or a generated module's path).
GRAMMAR_KEY = "ek_grammar"

#: Keywords verl's own reward managers add when a reward-model router runs (0.9); accepted and not used.
VERL_KWARGS = frozenset({"reward_router_address", "reward_model_tokenizer"})


#: The keywords of verl's legacy ``batch`` reward manager, which calls once per batch
#: (``verl/workers/reward_manager/batch.py``): :func:`compute_score_batch` takes them.
BATCH_KWARGS = frozenset({"data_sources", "solution_strs", "ground_truths", "extra_infos"})

#: The keywords of one sample, as every other reward manager passes them: :func:`compute_score` takes them.
SAMPLE_KWARGS = frozenset({"data_source", "solution_str", "ground_truth", "extra_info"})


@attrs.frozen
class ComputeScore:
    """A ``compute_score`` with default options: what :func:`make_compute_score` builds.

    Calling it is :func:`compute_score` with its options as the defaults; :meth:`batch` and
    :meth:`prime` are :func:`compute_score_batch` and :func:`compute_score_prime`. It pickles
    (``pickle`` and cloudpickle alike) as its options: the scorer is rebuilt, and shared, wherever
    it is unpickled, so verl may hand it to a Ray actor (``reward_manager.name=remote``) or a
    process pool (``prime``).
    """

    scorer: RewardScorer

    def __call__(self, data_source: Any = None, solution_str: Any = None, ground_truth: Any = None,
                 extra_info: Mapping[str, Any] | None = None, **kwargs: Any) -> float | dict[str, float]:
        result = self._score(data_source, solution_str, ground_truth, extra_info, kwargs, "ground_truth")
        if extra_info is None:
            return result.score  # main_eval's positional call: it averages plain numbers
        return _logged(result)

    def batch(self, data_sources: Sequence[Any] = (), solution_strs: Sequence[Any] = (),
              ground_truths: Sequence[Any] = (), extra_infos: Sequence[Mapping[str, Any] | None] | None = None,
              **kwargs: Any) -> list[dict[str, float]]:
        """Every sample of a batch, as verl's legacy ``batch`` reward manager calls: one dict per sample."""
        _check_entry(kwargs, SAMPLE_KWARGS, "one sample's", "compute_score")
        count = len(solution_strs)
        extras = [None] * count if extra_infos is None else extra_infos
        if not len(data_sources) == count == len(ground_truths) == len(extras):
            raise ValueError(f"{len(data_sources)} data_sources, {count} solution_strs, {len(ground_truths)} "
                             f"ground_truths and {len(extras)} extra_infos: verl passes one of each per sample")
        return [_logged(self._score(*sample, kwargs, f"ground_truths[{i}]"))
                for i, sample in enumerate(zip(data_sources, solution_strs, ground_truths, extras))]

    def prime(self, data_source: Any = None, solution_str: Any = None, ground_truth: Any = None,
              extra_info: Mapping[str, Any] | None = None, **kwargs: Any) -> float:
        """One sample's reward alone, whether or not ``extra_info`` is given, as verl's legacy ``prime`` reward
        manager needs (it takes a number, or else the first item of a sequence)."""
        return self._score(data_source, solution_str, ground_truth, extra_info, kwargs, "ground_truth").score

    def _score(self, data_source: Any, solution: Any, ground_truth: Any, extra_info: Mapping[str, Any] | None,
               kwargs: Mapping[str, Any], name: str) -> RewardScore:
        scorer = _scorer(self.scorer, kwargs, extra_info)
        gold = scorer.gold(ground_truth, f"{name} (data_source {data_source!r})")
        return scorer.score(solution, gold, details=True)  # type: ignore[return-value]


def _logged(result: RewardScore) -> dict[str, float]:
    """The dict verl splits into the reward and its logged numbers: the same keys, all floats, every sample."""
    return {"score": result.score, **result.extras()}


def make_compute_score(**defaults: Any) -> ComputeScore:
    """A ``compute_score`` whose default options are ``defaults`` (:class:`~ek.rewards.RewardOptions` fields).

    For a config-free setup, a file of your own holding
    ``compute_score = make_compute_score(level="arg", grammar="/abs/schemas/travel.ek")`` (and, for the
    legacy managers, ``compute_score_batch = compute_score.batch`` or ``compute_score_prime = compute_score.prime``).
    """
    return ComputeScore(scorer_for(RewardOptions(**defaults)))  # a bad grammar or format fails when verl loads it


def _check_entry(kwargs: Mapping[str, Any], wrong: frozenset[str], whose: str, entry: str) -> None:
    """A call with another reward manager's keywords names the function that manager needs."""
    given = sorted(wrong.intersection(kwargs))
    if given:
        raise TypeError(f"got {whose} keywords ({', '.join(given)}): for that reward manager, set "
                        f"reward.custom_reward_function.name to {entry} (docs/rl.md, verl)")


def _scorer(base: RewardScorer, kwargs: Mapping[str, Any], extra_info: Mapping[str, Any] | None) -> RewardScorer:
    """The scorer of one call's options: ``reward_kwargs`` over the defaults, then the sample's ``ek_grammar``."""
    unknown = sorted(k for k in kwargs if k not in OPTION_NAMES and k not in VERL_KWARGS)
    if unknown:
        _check_entry(kwargs, BATCH_KWARGS, "verl's batch reward manager's", "compute_score_batch")
        raise TypeError(f"compute_score got unknown option(s) {', '.join(map(repr, unknown))} "
                        f"(reward.custom_reward_function.reward_kwargs); options are {', '.join(OPTION_NAMES)}")
    changes = {k: v for k, v in kwargs.items() if k in OPTION_NAMES}
    options = attrs.evolve(base.options, **changes) if changes else base.options  # a bad option fails here
    grammar = extra_info.get(GRAMMAR_KEY) if isinstance(extra_info, Mapping) else None
    if grammar is not None:
        return _with_sample_grammar(options, grammar)
    return scorer_for(options) if changes else base


def _with_sample_grammar(options: RewardOptions, grammar: Any) -> RewardScorer:
    """The scorer of ``options`` with a sample's ``extra_info["ek_grammar"]``; what is wrong with it is one
    ``ValueError`` naming it (the dataset's fault, as a malformed ground truth is), whatever the loader raised."""
    where = f"extra_info[{GRAMMAR_KEY!r}]"
    if not isinstance(grammar, (str, os.PathLike)):
        raise ValueError(f"{where} must be the path of an .ek schema or of a generated module, "
                         f"got {type(grammar).__name__}: {grammar!r:.80}")
    if not os.fspath(grammar).strip():
        raise ValueError(f"{where} is empty: give the path of an .ek schema or of a generated module, or leave "
                         "it out (None) for the grammar of the options")
    try:
        return scorer_for(attrs.evolve(options, grammar=grammar))
    except (OSError, ImportError, ValueError, TypeError) as exc:  # a SchemaError is a ValueError
        raise ValueError(f"{where} = {grammar!r:.200} cannot be used: {exc}") from exc


_DEFAULT = make_compute_score()


def compute_score(data_source: Any = None, solution_str: Any = None, ground_truth: Any = None,
                  extra_info: Mapping[str, Any] | None = None, **kwargs: Any) -> float | dict[str, float]:
    """The function verl's config names (``name: compute_score``): one sample's reward, default options.

    A module-level function, so it pickles by reference.
    """
    return _DEFAULT(data_source, solution_str, ground_truth, extra_info, **kwargs)


def compute_score_batch(data_sources: Sequence[Any] = (), solution_strs: Sequence[Any] = (),
                        ground_truths: Sequence[Any] = (),
                        extra_infos: Sequence[Mapping[str, Any] | None] | None = None,
                        **kwargs: Any) -> list[dict[str, float]]:
    """For verl's legacy ``batch`` reward manager (``name: compute_score_batch``): every sample of a batch, called
    with ``data_sources=``, ``solution_strs=``, ``ground_truths=``, ``extra_infos=``; one dict per sample, as
    :func:`compute_score` returns with ``extra_info``."""
    return _DEFAULT.batch(data_sources, solution_strs, ground_truths, extra_infos, **kwargs)


def compute_score_prime(data_source: Any = None, solution_str: Any = None, ground_truth: Any = None,
                        extra_info: Mapping[str, Any] | None = None, **kwargs: Any) -> float:
    """For verl's legacy ``prime`` reward manager (``name: compute_score_prime``): one sample's reward as a bare
    number, ``extra_info`` or not (``prime`` reads ``float(result[0])`` of anything but a number, and a dict
    has no item 0: every reward would be 0.0)."""
    return _DEFAULT.prime(data_source, solution_str, ground_truth, extra_info, **kwargs)


if __name__ not in ("ek.rl.verl", "__main__"):
    # Loaded by file path (verl names the module custom_module_<hash>): hand out the package's own objects,
    # so every copy shares one function and pickles by reference.
    from ek.rl.verl import (  # noqa: F811
        ComputeScore,
        compute_score,
        compute_score_batch,
        compute_score_prime,
        make_compute_score,
    )

__all__ = ["BATCH_KWARGS", "GRAMMAR_KEY", "SAMPLE_KWARGS", "VERL_KWARGS", "ComputeScore", "compute_score",
           "compute_score_batch", "compute_score_prime", "make_compute_score"]

if __name__ == "__main__":
    from ek.rl import main

    main("verl")
