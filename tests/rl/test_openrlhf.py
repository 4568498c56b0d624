"""``ek.rl.openrlhf.reward_func``, loaded and called exactly as OpenRLHF 0.11 loads and calls a reward file.

What OpenRLHF does, from its source (openrlhf 0.11.2, ``openrlhf/utils/agent.py``, ``SingleTurnAgentExecutor``;
the same loading in ``openrlhf/utils/remote_rm_utils.py`` from 0.8 and ``experience_maker.py`` in 0.7):
- ``spec_from_file_location("reward_func", path)``, ``exec_module``, then the module's ``reward_func``;
- ``query = hf_tokenizer.decode(prompt_token_ids + action_token_ids, skip_special_tokens=False)``;
- ``_fetch_rewards_via_func``: ``asyncio.to_thread(reward_func, [query], [prompt], [label])`` per sample,
  many samples at once; then ``rewards_info.get("scores")`` (else ``"rewards"``) and ``"extra_logs"``;
  any exception is logged at INFO and the sample keeps no reward. Over HTTP the batch comes whole.
(OpenRLHF itself needs torch, CUDA and DeepSpeed to import, so it is not installed for this test.)
"""

from __future__ import annotations

import asyncio
import importlib.util
import json
import logging
from typing import Any

import pytest

import ek.rl.openrlhf
from ek.rewards import tool_call_reward
from ek.rl import adapter_path
from ek.rl.openrlhf import END_OF_TURN, LabelError, make_reward_func, response_of, reward_func

GOLD = json.dumps([{"name": "get_weather", "arguments": {"location": "Paris"}}])
HERMES = '<tool_call>\n{"name": "get_weather", "arguments": {"location": "Paris"}}\n</tool_call>'
# (prompt as the chat template renders it, end-of-turn tokens the model closes its answer with)
TEMPLATES = {
    "qwen": ("<|im_start|>system\nYou may call get_weather. Example: <tool_call>\n{\"name\": \"get_weather\", "
             "\"arguments\": {\"location\": \"Rome\"}}\n</tool_call><|im_end|>\n<|im_start|>user\nParis?<|im_end|>\n"
             "<|im_start|>assistant\n", "<|im_end|><|endoftext|>"),
    "llama3": ("<|begin_of_text|><|start_header_id|>user<|end_header_id|>\n\nParis?<|eot_id|>"
               "<|start_header_id|>assistant<|end_header_id|>\n\n", "<|eot_id|>"),
    "mistral": ("<s>[INST] Paris? [/INST]", "</s>"),
}
RESPONSES = [HERMES, "[get_weather(location='Paris')]", "[get_weather(location='Rome')]", "no call", "[get_weather("]


def _load_like_openrlhf() -> Any:
    spec = importlib.util.spec_from_file_location("reward_func", str(adapter_path("openrlhf")))
    assert spec is not None and spec.loader is not None
    reward_module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(reward_module)
    return reward_module.reward_func


def _fetch_rewards_via_func(fn: Any, queries: list[str], prompts: list[str], labels: list[Any]) -> list[Any]:
    """OpenRLHF's in-process path for every sample of a rollout at once: one thread per one-element call."""

    async def run_all() -> list[Any]:
        return await asyncio.gather(*(asyncio.to_thread(fn, [q], [p], [lab])
                                      for q, p, lab in zip(queries, prompts, labels)))

    return asyncio.run(run_all())


def test_loaded_by_file_under_the_name_reward_func() -> None:
    fn = _load_like_openrlhf()
    assert fn is ek.rl.openrlhf.reward_func  # the package's own function: one cache, pickled by reference


@pytest.mark.parametrize("template", sorted(TEMPLATES))
def test_queries_from_many_threads_equal_tool_call_reward_on_the_response(template: str) -> None:
    prompt, end = TEMPLATES[template]
    fn = _load_like_openrlhf()
    samples = RESPONSES * 10
    infos = _fetch_rewards_via_func(fn, [prompt + r + end for r in samples], [prompt] * len(samples),
                                    [GOLD] * len(samples))
    expected = tool_call_reward(samples, gold_calls=[GOLD] * len(samples))
    assert expected[:5] == [1.0, 1.0, 0.0, 0.0, 0.0]
    assert [float(info["rewards"][0]) for info in infos] == expected
    assert [float(info.get("scores")[0]) for info in infos] == expected
    logs = infos[0]["extra_logs"]
    assert sorted(logs) == ["arg_f1", "call_f1", "exact", "format_ok"]
    assert all(isinstance(v[0], float) for info in infos for v in info["extra_logs"].values())
    assert [info["extra_logs"]["format_ok"][0] for info in infos[:5]] == [1.0, 1.0, 1.0, 1.0, 0.0]


def test_a_batch_as_served_over_http() -> None:
    prompt, end = TEMPLATES["qwen"]
    out = reward_func([prompt + r + end for r in RESPONSES], [prompt] * 5, [GOLD, json.loads(GOLD)] * 2 + [GOLD])
    assert out["rewards"] == [1.0, 1.0, 0.0, 0.0, 0.0] == out["scores"]
    assert out["extra_logs"]["exact"] == [1.0, 1.0, 0.0, 0.0, 0.0]
    json.dumps(out)  # without torch, plain lists: what an HTTP reward server sends back


def test_end_of_turn_tokens_are_what_turns_a_right_answer_into_a_score() -> None:
    python = "[get_weather(location='Paris')]"
    for token in END_OF_TURN:
        assert response_of("P" + python + token + "\n" + token, "P") == python
    assert tool_call_reward([python + "<|im_end|>"], gold_calls=[GOLD]) == [0.0]  # unstripped: unparseable
    no_strip = make_reward_func(end_tokens=())
    for end in ("<|im_end|>", "</s>", "<end_of_turn>"):
        assert no_strip(["P" + python + end], ["P"], [GOLD])["rewards"] == [0.0]
        assert reward_func(["P" + python + end], ["P"], [GOLD])["rewards"] == [1.0]


def test_a_prompt_cut_from_the_left_is_still_found() -> None:
    prompt, end = TEMPLATES["qwen"]
    kept = prompt[len(prompt) // 2:]  # OpenRLHF keeps a too-long prompt's last tokens
    assert reward_func([kept + HERMES + end], [prompt], [GOLD])["rewards"] == [1.0]
    assert response_of(prompt[-40:] + "f()", prompt) == "f()"


def test_the_example_call_in_the_system_prompt_is_not_scored() -> None:
    prompt, end = TEMPLATES["qwen"]  # the prompt holds a <tool_call> example for Rome
    assert reward_func([prompt + "no call needed" + end], [prompt], [GOLD])["rewards"] == [0.0]


def test_bad_model_output_scores_and_bad_labels_are_loud(caplog: pytest.LogCaptureFixture) -> None:
    prompt, end = TEMPLATES["qwen"]
    junk = ["", "<tool_call>", "<think>never ends", "{" * 5000, "\ud800", "[f(x=1) for x in y]"]
    out = reward_func([prompt + j + end for j in junk], [prompt] * len(junk), [GOLD] * len(junk))
    assert out["rewards"] == [0.0] * len(junk)
    penalised = make_reward_func(unparseable=-0.5)(["P<tool_call>"], ["P"], [GOLD])
    assert penalised["rewards"] == [-0.5] and penalised["scores"] == [0.0]  # scores stay in [0, 1]
    with caplog.at_level(logging.ERROR, logger="ek.rl.openrlhf"):
        for label, why in [("", "--data.label_key"), ("nope", "not JSON"), ('[{"name": 3}]', "label 0"),
                           (None, "expected the gold calls")]:
            with pytest.raises(LabelError, match=why):
                reward_func([prompt + HERMES], [prompt], [label])
        with pytest.raises(LabelError, match="does not start with its prompt"):
            reward_func(["something else entirely" + HERMES], [prompt], [GOLD])
        with pytest.raises(LabelError, match="1 queries, 2 prompts"):
            reward_func([prompt], [prompt, prompt], [GOLD])
    assert len([r for r in caplog.records if r.levelno == logging.ERROR]) == 6


@pytest.mark.slow
@pytest.mark.parametrize("framework", ["openrlhf", "verl"])
def test_python_m_prints_the_file_to_give_the_trainer(framework: str) -> None:
    import subprocess
    import sys

    out = subprocess.run([sys.executable, "-m", f"ek.rl.{framework}", "--path"], capture_output=True, text=True,
                         check=True, timeout=60)
    path = out.stdout.strip()
    assert path == str(adapter_path(framework)) and path.endswith(f"ek/rl/{framework}.py")
    spec = importlib.util.spec_from_file_location("reward_func", path)  # what the trainer then does with it
    assert spec is not None and spec.loader is not None
    spec.loader.exec_module(importlib.util.module_from_spec(spec))


def test_a_response_padded_to_max_tokens_is_stripped_in_linear_time() -> None:
    padded = "[get_weather(location='Paris')]" + "<|im_end|>" + "<|endoftext|>\n" * 100_000
    assert reward_func(["P" + padded], ["P"], [GOLD])["rewards"] == [1.0]


@pytest.mark.parametrize(("query", "prompt"), [(None, "p"), (b"pp f()", b"pp "), ("pp f()", 3)])
def test_a_query_or_prompt_that_is_not_text_is_a_label_error_saying_so(query: Any, prompt: Any) -> None:
    with pytest.raises(ek.rl.openrlhf.LabelError, match="a query and its prompt are text"):
        ek.rl.openrlhf.reward_func([query], [prompt], ["[]"])

