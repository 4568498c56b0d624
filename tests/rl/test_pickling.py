"""Every public reward object pickles, with ``pickle`` and with cloudpickle (what Ray uses).

Trainers move reward functions between processes: verl's ``remote`` reward manager hands
``functools.partial(_call_with_kwargs, compute_score, reward_kwargs)`` to a Ray actor, its legacy
``prime`` manager to a process pool (``pickle``), and OpenRLHF 0.7-0.9 wrap ``reward_func`` in
``ray.remote``. The module-level functions pickle by reference; what a factory builds pickles by
value, as its options, and its scorer (metrics, a lock) is rebuilt where it is unpickled.
The same through a real Ray: tests/rl/test_ray_rewards.py.
"""

from __future__ import annotations

import json
import pickle
import subprocess
import sys
from functools import partial
from pathlib import Path
from typing import Any

import pytest
from ekcli import SCHEMAS
from ray import cloudpickle

from ek.rewards import RewardOptions, make_tool_call_reward, scorer_for, tool_call_reward
from ek.rl.openrlhf import make_reward_func, reward_func
from ek.rl.verl import compute_score, make_compute_score

GOLD = json.dumps([{"name": "get_weather", "arguments": {"location": "Paris", "unit": "celsius"}}])
RESPONSES = ["get_weather(location='Paris', unit='celsius')", "get_weather(location='Rome', unit='celsius')",
             "get_weather(location='Paris')", "get_weather(", "no call"]
TRAVEL = str(SCHEMAS / "travel-v2.ek")
DUMPS = {"pickle": pickle.dumps, "cloudpickle": cloudpickle.dumps}


def _call_with_kwargs(raw_fn: Any, extra_kwargs: dict[str, Any], *args: Any, **kwargs: Any) -> Any:
    """verl/trainer/ppo/reward.py's wrapper, as written there (that module imports torch, so it is not imported)."""
    merged_kwargs = {**kwargs, **extra_kwargs}
    return raw_fn(*args, **merged_kwargs)


def _verl_results(fn: Any) -> list[Any]:
    return [fn(data_source="t", solution_str=r, ground_truth=GOLD, extra_info={}) for r in RESPONSES]


def _openrlhf_results(fn: Any) -> dict[str, Any]:
    return fn(["P " + r for r in RESPONSES], ["P "] * len(RESPONSES), [GOLD] * len(RESPONSES))


@pytest.mark.parametrize("dumps", sorted(DUMPS))
@pytest.mark.parametrize("obj", [tool_call_reward, compute_score, reward_func],
                         ids=["tool_call_reward", "compute_score", "reward_func"])
def test_the_module_level_rewards_pickle_by_reference(obj: Any, dumps: str) -> None:
    data = DUMPS[dumps](obj)
    assert pickle.loads(data) is obj
    assert len(data) < 200  # a module and a name, not the code and the scorer


@pytest.mark.parametrize("dumps", sorted(DUMPS))
def test_what_the_factories_build_pickles_by_value_with_its_options(dumps: str) -> None:
    trl = make_tool_call_reward(level="partial", grammar=TRAVEL, gold_column="answer", unparseable=-0.5)
    verl = make_compute_score(level="arg", grammar=TRAVEL, unparseable=-0.25)
    for obj in (trl, verl):
        copy = pickle.loads(DUMPS[dumps](obj))
        assert type(copy) is type(obj) and copy.scorer.options == obj.scorer.options
    copy = pickle.loads(DUMPS[dumps](trl))
    assert copy(RESPONSES, answer=[GOLD] * len(RESPONSES)) == trl(RESPONSES, answer=[GOLD] * len(RESPONSES))
    assert copy.__name__ == "tool_call_partial"
    assert _verl_results(pickle.loads(DUMPS[dumps](verl))) == _verl_results(verl)
    wrapped = partial(_call_with_kwargs, compute_score, {"level": "exact"})  # what verl hands its managers
    assert _verl_results(pickle.loads(DUMPS[dumps](wrapped))) == _verl_results(wrapped)


def test_openrlhfs_factory_function_pickles_by_value_with_cloudpickle() -> None:
    """A function, because ``ray.remote`` takes nothing else; Ray pickles it with cloudpickle, by value."""
    fn = make_reward_func(level="arg", grammar=TRAVEL, end_tokens=("<|im_end|>",))
    copy = cloudpickle.loads(cloudpickle.dumps(fn))
    assert copy is not fn and _openrlhf_results(copy) == _openrlhf_results(fn)


def test_a_scorer_travels_as_its_options_and_is_shared_where_it_lands() -> None:
    scorer = scorer_for(RewardOptions(level="arg", grammar=TRAVEL))
    assert pickle.loads(pickle.dumps(scorer)) is scorer  # this process already has that options' scorer


def test_a_generated_module_grammar_travels_as_its_grammar(travel_module: Any) -> None:
    reward = make_compute_score(level="arg", grammar=travel_module)
    copy = pickle.loads(pickle.dumps(reward))
    assert copy.scorer.options.grammar == travel_module.GRAMMAR
    assert _verl_results(copy) == _verl_results(reward)


def test_unpickled_in_a_fresh_process_they_score_as_here(tmp_path: Path) -> None:
    objs = {"trl": make_tool_call_reward(level="arg", grammar=TRAVEL),
            "verl": partial(make_compute_score(grammar=TRAVEL), level="partial"),
            "openrlhf": reward_func}
    (tmp_path / "objs.pkl").write_bytes(pickle.dumps(objs))
    script = f"""
import json, pickle, sys
objs = pickle.loads(open(sys.argv[1], "rb").read())
responses, gold = {RESPONSES!r}, {GOLD!r}
print(json.dumps([objs["trl"](responses, gold_calls=[gold] * len(responses)),
                  [objs["verl"](data_source="t", solution_str=r, ground_truth=gold, extra_info={{}}) for r in responses],
                  objs["openrlhf"](["P " + r for r in responses], ["P "] * len(responses), [gold] * len(responses))]))
"""
    src = Path(__file__).resolve().parents[2] / "src"
    out = subprocess.run([sys.executable, "-c", script, str(tmp_path / "objs.pkl")], capture_output=True, text=True,
                         env={"PYTHONPATH": str(src)}, check=False, timeout=120)
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout) == [objs["trl"](RESPONSES, gold_calls=[GOLD] * len(RESPONSES)),
                                      _verl_results(objs["verl"]), _openrlhf_results(reward_func)]
