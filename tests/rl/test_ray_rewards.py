"""The rewards sent through a real local Ray, as the trainers send them: results identical to local calls.

- verl 0.9.1 ``reward.reward_manager.name=remote``
  (``verl/experimental/reward_loop/reward_manager/remote.py``): ``RewardComputeWorker.remote(compute_score)``,
  an actor built with ``functools.partial(_call_with_kwargs, raw_fn, reward_kwargs)`` from
  ``verl/trainer/ppo/reward.py``; the actor class is verl's own, read from the installed file.
- OpenRLHF 0.7-0.9 (``experience_maker.py``, ``remote_rm_utils.py``): the reward file loaded with
  ``spec_from_file_location("reward_func", path)``, then ``ray.remote(reward_module.reward_func)``, called
  with ``(queries, prompts, labels)`` batches.
"""

from __future__ import annotations

import importlib.util
import json
from functools import partial
from pathlib import Path
from typing import Any

import pytest
import ray
from ekcli import SCHEMAS
from verlsource import verl_defs

from ek.rewards import make_tool_call_reward, tool_call_reward
from ek.rl import adapter_path
from ek.rl.verl import compute_score, make_compute_score

pytestmark = pytest.mark.slow

GOLD = json.dumps([{"name": "get_weather", "arguments": {"location": "Paris", "unit": "celsius"}}])
RESPONSES = ["get_weather(location='Paris', unit='celsius')", "get_weather(location='Rome', unit='celsius')",
             "get_weather(location='Paris')", "get_weather(", "no call"]
TRAVEL = str(SCHEMAS / "travel-v2.ek")
PROMPT = "<|im_start|>user\nWeather in Paris?<|im_end|>\n<|im_start|>assistant\n"


def _load_reward_file(path: Path) -> Any:
    """OpenRLHF's loader: the file under the module name ``reward_func``, its attribute ``reward_func``."""
    spec = importlib.util.spec_from_file_location("reward_func", str(path))
    assert spec is not None and spec.loader is not None
    reward_module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(reward_module)
    return reward_module.reward_func


def test_verls_remote_reward_manager_actor(ray_address: str) -> None:
    worker_class = verl_defs("experimental/reward_loop/reward_manager/remote.py", ("RewardComputeWorker",),
                             {"ray": ray})["RewardComputeWorker"]
    _call_with_kwargs = verl_defs("trainer/ppo/reward.py", ("_call_with_kwargs",), {})["_call_with_kwargs"]
    for fn in (partial(_call_with_kwargs, compute_score, {"level": "arg"}),
               partial(_call_with_kwargs, make_compute_score(grammar=TRAVEL, unparseable=-0.5), {"level": "partial"})):
        worker = worker_class.remote(fn)
        try:
            remote = [ray.get(worker.compute_score.remote(data_source="t", solution_str=r, ground_truth=GOLD,
                                                          extra_info={"num_turns": 1, "rollout_reward_scores": {}}))
                      for r in RESPONSES]
        finally:
            ray.kill(worker)
        local = [fn(data_source="t", solution_str=r, ground_truth=GOLD,
                    extra_info={"num_turns": 1, "rollout_reward_scores": {}}) for r in RESPONSES]
        assert remote == local and len({json.dumps(r) for r in local}) > 1


def test_openrlhf_wraps_the_reward_file_in_ray_remote(ray_address: str, tmp_path: Path) -> None:
    own = tmp_path / "my_reward.py"  # a file of the user's own, with options (docs/rl.md)
    own.write_text("from ek.rl.openrlhf import make_reward_func\n"
                   f"reward_func = make_reward_func(level='partial', grammar={TRAVEL!r}, unparseable=-0.5)\n")
    queries, prompts = [PROMPT + r + "<|im_end|>" for r in RESPONSES], [PROMPT] * len(RESPONSES)
    for path in (adapter_path("openrlhf"), own):
        fn = _load_reward_file(path)
        remote = ray.get(ray.remote(fn).remote(queries, prompts, [GOLD] * len(RESPONSES)))
        local = fn(queries, prompts, [GOLD] * len(RESPONSES))
        assert remote == local and len(set(local["rewards"])) > 1


def test_trl_rewards_as_ray_task_arguments(ray_address: str) -> None:
    @ray.remote
    def run(reward: Any, completions: list[str], golds: list[str]) -> list[float | None]:
        return reward(completions, gold_calls=golds)  # type: ignore[no-any-return]

    for reward in (tool_call_reward, make_tool_call_reward(level="arg", grammar=TRAVEL)):
        assert ray.get(run.remote(reward, RESPONSES, [GOLD] * len(RESPONSES))) == reward(RESPONSES,
                                                                                        gold_calls=[GOLD] * 5)
