"""``ek.rl.verl.compute_score``, loaded and called exactly as verl 0.9 loads and calls a custom reward function.

What verl does, from its source (verl 0.9.1):
- ``verl/trainer/ppo/reward.py`` ``get_custom_reward_fn``: ``load_extern_object(path, name)`` from
  ``verl/utils/import_utils.py`` (``pkg://`` imports the module, a file path runs it under
  ``custom_module_<hash>``), then ``partial(_call_with_kwargs, raw_fn, reward_kwargs)``, which calls
  ``raw_fn(*args, **{**kwargs, **reward_kwargs})``; a coroutine function would be awaited instead.
- ``verl/experimental/reward_loop/reward_manager/naive.py`` ``run_single``: one sample per call, on the
  event loop's thread pool, with keywords; ``extra_info`` always gains ``num_turns`` and
  ``rollout_reward_scores``; a dict result is split into the score and ``reward_extra_info``, and
  ``reward_loop.py`` indexes every sample's extras by the first sample's keys.
- ``verl/trainer/main_eval.py`` ``process_item``: ``reward_fn(data_source, r, ground_truth)``, then ``np.mean``.
- the legacy managers (``verl/workers/reward_manager/``): ``batch.py`` calls once per batch with plural keywords
  (read from its source here) and splits each dict; ``prime.py`` runs ``evaluation_func(task, completion,
  reference, extra_info)`` in a process pool and reads ``float(result[0])`` of a non-number (its functions run
  here as verl wrote them, :mod:`verlsource`).
"""

from __future__ import annotations

import asyncio
import importlib.util
import inspect
import json
import statistics
import types
from concurrent.futures import ProcessPoolExecutor
from functools import partial
from pathlib import Path
from typing import Any

import pytest
from ekcli import SCHEMAS
from verlsource import keyword_names_of_call, verl_defs

import ek.rl.verl
from ek.rewards import tool_call_reward
from ek.rl import adapter_path
from ek.rl.verl import compute_score, compute_score_batch, compute_score_prime, make_compute_score

GOLD = [{"name": "get_weather", "arguments": {"location": "Paris"}}, {"name": "search", "arguments": {"q": "cats"}}]
RESPONSES = [
    '<tool_call>\n{"name": "get_weather", "arguments": {"location": "paris"}}\n</tool_call>\n'
    '<tool_call>\n{"name": "search", "arguments": {"q": "cats"}}\n</tool_call>',
    '<think>only the weather</think><tool_call>{"name": "get_weather", "arguments": {"location": "Rome"}}</tool_call>',
    "[search(q='cats')]",
    "I won't call anything.",
    '<tool_call>{"name": "get_weather", "arguments": {"location": ',  # cut short: unparseable
]
EXTRA_KEYS = ["score", "call_f1", "arg_f1", "format_ok", "exact"]


def _call_with_kwargs(raw_fn: Any, extra_kwargs: dict[str, Any], *args: Any, **kwargs: Any) -> Any:
    """verl/trainer/ppo/reward.py's wrapper, as written there (that module imports torch, so it is not imported)."""
    merged_kwargs = {**kwargs, **extra_kwargs}
    return raw_fn(*args, **merged_kwargs)


def _verl_loader() -> Any:
    """verl's own ``load_extern_object``, from the installed verl (its import_utils needs only the stdlib)."""
    spec = importlib.util.find_spec("verl")
    if spec is None or spec.origin is None:
        pytest.skip("verl is not installed (pip install --no-deps 'verl==0.9.1' to run this test; verl 0.9.1 "
                    "runs on Python below 3.13)")
    path = Path(spec.origin).parent / "utils" / "import_utils.py"
    module_spec = importlib.util.spec_from_file_location("verl_import_utils_under_test", path)
    assert module_spec is not None and module_spec.loader is not None
    module = importlib.util.module_from_spec(module_spec)
    module_spec.loader.exec_module(module)
    return module.load_extern_object


def _run_like_naive_manager(fn: Any, samples: list[tuple[str, Any]]) -> list[Any]:
    """Every sample at once on the default thread pool, keyword arguments, as NaiveRewardManager.run_single."""

    async def one(solution: str, ground_truth: Any) -> Any:
        extra_info: dict[str, Any] = {"index": 0}
        extra_info["num_turns"] = None
        extra_info["rollout_reward_scores"] = {}
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(None, lambda: fn(data_source="tools", solution_str=solution,
                                                           ground_truth=ground_truth, extra_info=extra_info))

    async def run_all() -> list[Any]:
        return await asyncio.gather(*(one(s, g) for s, g in samples))

    return asyncio.run(run_all())


@pytest.mark.parametrize("path", ["pkg://ek.rl.verl", "pkg://ek/rl/verl", "file", "file://"])
def test_verls_own_loader_finds_compute_score(path: str) -> None:
    load_extern_object = _verl_loader()
    if path.startswith("file"):
        path = str(adapter_path("verl")) if path == "file" else "file://" + str(adapter_path("verl"))
    raw_fn = load_extern_object(module_path=path, object_name="compute_score")
    assert not inspect.iscoroutinefunction(raw_fn)  # verl then wraps it with the synchronous _call_with_kwargs
    assert raw_fn is compute_score  # a file loaded by path hands out the package's function (one cache)
    reward_fn = partial(_call_with_kwargs, raw_fn, {"level": "arg"})
    got = _run_like_naive_manager(reward_fn, [(r, json.dumps(GOLD)) for r in RESPONSES])
    assert [g["score"] for g in got] == [g["arg_f1"] for g in got]
    assert got[0]["score"] == 1.0 and got[-1]["format_ok"] == 0.0


def test_the_adapter_file_runs_under_a_made_up_module_name() -> None:
    # what load_module does with a file path, without verl installed: absolute imports only
    spec = importlib.util.spec_from_file_location("custom_module_123", adapter_path("verl"))
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert module.compute_score is ek.rl.verl.compute_score


def test_called_from_worker_threads_it_equals_tool_call_reward_with_the_same_keys() -> None:
    samples = [(r, g) for r in RESPONSES for g in (json.dumps(GOLD), GOLD)] * 20
    got = _run_like_naive_manager(partial(_call_with_kwargs, compute_score, {}), samples)
    expected = tool_call_reward([s for s, _ in samples], gold_calls=[g for _, g in samples])
    assert [g["score"] for g in got] == expected
    keys = list(got[0].keys())  # reward_loop.py: the first sample's keys index every other sample
    assert keys == EXTRA_KEYS
    columns = {key: [info[key] for info in got] for key in keys}
    assert all(type(v) is float for values in columns.values() for v in values)
    assert columns["call_f1"][:5:2] == [1.0, 0.0, 2 / 3]
    assert columns["exact"][0] == 1.0 and columns["format_ok"][-2:] == [0.0, 0.0]


def test_main_eval_calls_it_positionally_and_averages() -> None:
    reward_fn = partial(_call_with_kwargs, compute_score, {})
    scores = [reward_fn("tools", r, json.dumps(GOLD)) for r in RESPONSES]  # main_eval.process_item
    assert all(type(s) is float for s in scores)
    assert statistics.mean(scores) == pytest.approx((1.0 + 0.0 + 2 / 3 + 0.0 + 0.0) / 5)


def test_reward_kwargs_and_extra_info_choose_the_options() -> None:
    gold = json.dumps([{"name": "book_flight", "arguments": {"flight_id": "123", "passenger_names": ["Ann"]}}])
    qwen = ("<tool_call>\n<function=book_flight>\n<parameter=flight_id>\n123\n</parameter>\n"
            "<parameter=passenger_names>\n[\"Ann\"]\n</parameter>\n</function>\n</tool_call>")
    extra = {"num_turns": 1, "rollout_reward_scores": {}}
    typed = partial(_call_with_kwargs, compute_score, {"format": "qwen3-coder", "grammar": str(SCHEMAS / "travel-v2.ek")})
    untyped = partial(_call_with_kwargs, compute_score, {"format": "qwen3-coder"})
    assert typed(data_source="t", solution_str=qwen, ground_truth=gold, extra_info=extra)["score"] == 1.0
    assert untyped(data_source="t", solution_str=qwen, ground_truth=gold, extra_info=extra)["score"] == 0.0
    per_sample = dict(extra, ek_grammar=str(SCHEMAS / "travel-v2.ek"))  # the sample's grammar wins
    assert untyped(data_source="t", solution_str=qwen, ground_truth=gold, extra_info=per_sample)["score"] == 1.0
    default = make_compute_score(format="qwen3-coder", grammar=str(SCHEMAS / "travel-v2.ek"))
    assert default("t", qwen, gold) == 1.0
    # verl's reward-model router keywords are accepted; a misspelt option is not silently ignored
    assert compute_score("t", "f()", "[]", reward_router_address=None, reward_model_tokenizer=None) == 0.0
    with pytest.raises(TypeError, match="unknown option.*'levle'"):
        partial(_call_with_kwargs, compute_score, {"levle": "arg"})("t", "f()", "[]")
    with pytest.raises(ValueError, match="level must be one of"):
        compute_score("t", "f()", "[]", level="argument")


def test_bad_model_output_scores_and_a_malformed_ground_truth_raises() -> None:
    extra = {"num_turns": 1, "rollout_reward_scores": {}}
    for junk in [None, "", "<tool_call>", "f(", "\x00" * 10, "[" * 10_000, 12]:
        got = compute_score(data_source="t", solution_str=junk, ground_truth=json.dumps(GOLD), extra_info=extra)
        assert list(got) == EXTRA_KEYS and got["score"] == 0.0
    for bad, why in [("not json", "not JSON"), (None, "expected the gold calls"), ('{"name": "f"}', "got dict"),
                     ('[{"arguments": {}}]', "expected"), ('[{"name": "f", "arguments": [1]}]', "must be an object"),
                     ('[{"name": "f", "arguments": {"x": %s}}]' % ("9" * 5000), "int/str conversion limit")]:
        with pytest.raises(ValueError, match=why):
            compute_score("t", "f()", bad, {"num_turns": 1})


def test_ground_truth_as_pandas_reads_a_parquet_list_column() -> None:
    np = pytest.importorskip("numpy", reason="numpy is not installed (pandas hands Parquet lists over as arrays)")
    call = {"name": "book_flight", "arguments": {"flight_id": "UA1", "passenger_names": np.array(["Ann", "Bo"]),
                                                 "seats": np.int64(2)}}
    ground_truth = np.array([call], dtype=object)
    extra = {"num_turns": 1, "rollout_reward_scores": {}}
    right = "[book_flight(flight_id='UA1', passenger_names=['Ann', 'Bo'], seats=2)]"
    got = compute_score(data_source="t", solution_str=right, ground_truth=ground_truth, extra_info=extra)
    assert got["score"] == 1.0 and got["exact"] == 1.0


def _prime_scoring() -> Any:
    """verl's ``run_reward_scoring`` (``verl/workers/reward_manager/prime.py``), as written there; psutil (only used
    to stop the pool's processes afterwards) is not installed, so a stand-in that finds none."""

    def no_process(pid: int) -> Any:
        raise RuntimeError("psutil is not installed for the tests")

    psutil = types.SimpleNamespace(Process=no_process, TimeoutExpired=TimeoutError)
    loop_ns = verl_defs("utils/ray_utils.py", ("get_event_loop",), {"asyncio": asyncio})
    ns = verl_defs("workers/reward_manager/prime.py",
                   ("single_compute_score", "parallel_compute_score_async", "run_reward_scoring"),
                   {"asyncio": asyncio, "ProcessPoolExecutor": ProcessPoolExecutor, "partial": partial,
                    "psutil": psutil, "get_event_loop": loop_ns["get_event_loop"]})
    return ns["run_reward_scoring"]


def test_verls_prime_manager_scores_with_compute_score_prime() -> None:
    run_reward_scoring = _prime_scoring()
    gold = [json.dumps(GOLD)] * len(RESPONSES)
    extra = [{"index": i} for i in range(len(RESPONSES))]
    expected = tool_call_reward(RESPONSES, gold_calls=gold)
    for fn in (partial(_call_with_kwargs, compute_score_prime, {}),  # what get_custom_reward_fn hands prime
               make_compute_score().prime):  # a file of your own: compute_score_prime = make_compute_score(...).prime
        for extra_info in (extra, None):
            got = run_reward_scoring(fn, RESPONSES, gold, ["tools"] * len(RESPONSES), extra_info=extra_info,
                                     num_processes=2)
            assert got == expected
    # why prime has its own function: compute_score's dict has no item 0, and PrimeRewardManager.verify catches
    # what run_reward_scoring raises and scores every sample of the batch 0.0
    with pytest.raises(KeyError):
        run_reward_scoring(partial(_call_with_kwargs, compute_score, {}), RESPONSES, gold,
                           ["tools"] * len(RESPONSES), extra_info=extra, num_processes=2)
    arg = run_reward_scoring(partial(_call_with_kwargs, compute_score_prime, {"level": "arg"}), RESPONSES, gold,
                             ["tools"] * len(RESPONSES), extra_info=extra, num_processes=2)
    assert arg == [compute_score("tools", r, gold[0], {}, level="arg")["arg_f1"] for r in RESPONSES]


def test_verls_batch_manager_scores_with_compute_score_batch() -> None:
    np = pytest.importorskip("numpy", reason="numpy is not installed (verl passes its batch as arrays)")
    keywords = keyword_names_of_call("workers/reward_manager/batch.py", "verify", "self.compute_score")
    assert keywords == {"data_sources", "solution_strs", "ground_truths", "extra_infos", "**self.reward_kwargs"}
    gold = [json.dumps(GOLD)] * len(RESPONSES)
    extras = np.array([{"index": i, "rollout_reward_scores": {}} for i in range(len(RESPONSES))], dtype=object)
    batch = dict(data_sources=np.array(["tools"] * len(RESPONSES), dtype=object), solution_strs=RESPONSES,
                 ground_truths=gold, extra_infos=extras)
    scores = partial(_call_with_kwargs, compute_score_batch, {"level": "partial"})(**batch)
    single = [compute_score("tools", r, g, {}, level="partial") for r, g in zip(RESPONSES, gold)]
    assert scores == single  # batch.py: a dict's "score" is the reward, every key logged per sample
    own = make_compute_score(level="partial").batch  # a file of your own: compute_score_batch = ....batch
    assert own(**batch) == single
    with pytest.raises(TypeError, match="batch reward manager's keywords .*name to compute_score_batch"):
        partial(_call_with_kwargs, compute_score, {"level": "arg"})(**batch)
    with pytest.raises(TypeError, match="one sample's keywords .*name to compute_score "):
        compute_score_batch(data_source="tools", solution_str="f()", ground_truth="[]", extra_info={})
    with pytest.raises(ValueError, match="5 data_sources, 4 solution_strs"):
        compute_score_batch(**dict(batch, solution_strs=RESPONSES[:4]))
    with pytest.raises(ValueError, match=r"ground_truths\[1\] \(data_source 'tools'\): a string but not JSON"):
        compute_score_batch(**dict(batch, ground_truths=[gold[0], "nope"] + gold[2:]))


@pytest.mark.parametrize(("grammar", "why"), [
    ("", "is empty"), ("  ", "is empty"), (float("nan"), "must be the path .*got float: nan"),
    (3, "must be the path .*got int"), ("/no/such/schema.ek", "cannot be used: .*cannot read schema"),
    ("/no/such/module.py", "cannot be used: no generated module at"), ("no_such_grammar_module", "cannot be used"),
])
def test_a_bad_ek_grammar_is_one_value_error_naming_it(grammar: Any, why: str) -> None:
    """A sample's grammar that cannot be used raised whatever the loader did (``ValueError: Empty module name``,
    ``TypeError``, ``SchemaError``, ``FileNotFoundError``); now one ``ValueError`` naming ``extra_info['ek_grammar']``
    and what is wrong, from every entry point."""
    extra = {"num_turns": 1, "ek_grammar": grammar}
    match = r"^extra_info\['ek_grammar'\] (= .* )?" + why
    with pytest.raises(ValueError, match=match) as caught:
        compute_score("t", "f()", "[]", extra)
    assert type(caught.value) is ValueError
    with pytest.raises(ValueError, match=match):
        compute_score_prime("t", "f()", "[]", extra)
    with pytest.raises(ValueError, match=match):
        compute_score_batch(data_sources=["t"], solution_strs=["f()"], ground_truths=["[]"], extra_infos=[extra])
