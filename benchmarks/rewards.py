"""Reward functions against a bare baseline: how many times the baseline's CPU time ``ek``'s rewards take.

Run: ``.venv/bin/python benchmarks/rewards.py [--quick]``

The workload is what a GRPO step scores: groups of completions (8 per prompt)
written the way Qwen/Hermes chat templates write calls (``<tool_call>{json}</tool_call>``
blocks, some after a ``<think>`` block), each against the prompt's gold calls as a
JSON string (the dataset column). About a third have a mistake: a wrong value, a
missing or an extra call, or a broken block.

The **baseline** is the least a reward can do: ``json.loads`` the gold and each
``<tool_call>`` block, and count calls whose name and argument dict are equal
(F1 = 2 * matched / (predicted + gold)); a broken block scores 0. It does none of
what ``ek`` adds (string canonicalization, ``1 == 1.0`` but ``True != 1``,
bounded parsing, other formats, a grammar's weights).

Measured: each contender scores the whole batch once per round; rounds are
interleaved (baseline, ek, baseline, ...) so load on the shared machine hits
all alike; CPU time of this process (``time.process_time``); the median round
is reported, and the ratio ek / baseline (the target is <= 8x for
``tool_call_reward``). The verl and OpenRLHF adapters are timed alike, called
one sample at a time as those trainers call them.
"""

from __future__ import annotations

import argparse
import json
import platform
import random
import re
import statistics
import sys
import time
from collections.abc import Callable

from ek.rewards import tool_call_reward
from ek.rl.openrlhf import reward_func as openrlhf_reward
from ek.rl.verl import compute_score as verl_compute_score

CITIES = ["Paris", "Rome", "Oslo", "Lima", "Tokyo", "Cairo", "Quito", "Accra"]
AIRPORTS = ["SFO", "JFK", "LHR", "CDG", "NRT", "BOS"]
PROMPT = ("<|im_start|>system\nYou are a helpful assistant with tools.<|im_end|>\n"
          "<|im_start|>user\nPlan my trip.<|im_end|>\n<|im_start|>assistant\n")


def _gold(rng: random.Random) -> list[dict]:
    origin, dest = rng.sample(AIRPORTS, 2)
    calls = [{"name": "search_flights", "arguments": {
        "origin": origin, "destination": dest, "date": f"2025-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}",
        "passengers": rng.randint(1, 4)}}]
    if rng.random() < 0.6:
        calls.append({"name": "get_weather", "arguments": {"location": rng.choice(CITIES), "unit": "celsius"}})
    if rng.random() < 0.3:
        calls.append({"name": "book_flight", "arguments": {"flight_id": f"UA{rng.randint(1, 999)}",
                                                           "passenger_names": ["Ann Lee"]}})
    return calls


def _completion(rng: random.Random, gold: list[dict]) -> str:
    pred = [{"name": c["name"], "arguments": dict(c["arguments"])} for c in gold]
    roll = rng.random()
    if roll < 0.1:
        pred[0]["arguments"]["origin"] = "XXX"
    elif roll < 0.2 and len(pred) > 1:
        pred.pop()
    elif roll < 0.3:
        pred.append({"name": "get_weather", "arguments": {"location": "Nowhere"}})
    blocks = "\n".join(f"<tool_call>\n{json.dumps(c)}\n</tool_call>" for c in pred)
    if roll > 0.97:
        blocks = blocks[: len(blocks) // 2] + "\n</tool_call>"  # a broken block
    return ("<think>\nThe user wants flights first.\n</think>\n\n" + blocks) if rng.random() < 0.5 else blocks


def workload(n_prompts: int, group: int = 8, seed: int = 0) -> tuple[list[str], list[str]]:
    """``group`` completions per prompt, each with the prompt's gold JSON string."""
    rng = random.Random(seed)
    completions, golds = [], []
    for _ in range(n_prompts):
        gold = _gold(rng)
        text = json.dumps(gold)
        for _ in range(group):
            completions.append(_completion(rng, gold))
            golds.append(text)
    return completions, golds


_BLOCK = re.compile(r"<tool_call>(.*?)</tool_call>", re.S)


def baseline_reward(completion: str, gold_json: str) -> float:
    """The bare baseline: json.loads each block, count (name, arguments) equal to a gold call's."""
    gold = [(c["name"], c["arguments"]) for c in json.loads(gold_json)]
    try:
        pred = [(c["name"], c["arguments"]) for c in (json.loads(b) for b in _BLOCK.findall(completion))]
    except (ValueError, KeyError, TypeError):
        return 0.0
    if not pred and not gold:
        return 1.0
    left = list(gold)
    matched = 0
    for call in pred:
        if call in left:
            left.remove(call)
            matched += 1
    return 2 * matched / (len(pred) + len(gold))


def _rounds(contenders: dict[str, Callable[[], object]], rounds: int) -> dict[str, list[float]]:
    times: dict[str, list[float]] = {name: [] for name in contenders}
    for _ in range(rounds):
        for name, run in contenders.items():
            start = time.process_time()
            run()
            times[name].append(time.process_time() - start)
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="a smaller batch and fewer rounds, for a smoke run")
    args = parser.parse_args()
    n_prompts, rounds = (40, 5) if args.quick else (250, 15)
    completions, golds = workload(n_prompts)
    queries = [PROMPT + c + "<|im_end|>" for c in completions]
    extra = {"num_turns": 1, "rollout_reward_scores": {}}

    base = [baseline_reward(c, g) for c, g in zip(completions, golds)]
    ours = tool_call_reward(completions, gold_calls=golds)
    agree = sum(abs(a - b) < 1e-12 for a, b in zip(base, ours))
    contenders: dict[str, Callable[[], object]] = {
        "baseline": lambda: [baseline_reward(c, g) for c, g in zip(completions, golds)],
        "tool_call_reward": lambda: tool_call_reward(completions, gold_calls=golds),
        "verl compute_score": lambda: [verl_compute_score(data_source="tools", solution_str=c, ground_truth=g,
                                                          extra_info=extra) for c, g in zip(completions, golds)],
        "openrlhf reward_func": lambda: [openrlhf_reward([q], [PROMPT], [g]) for q, g in zip(queries, golds)],
    }
    times = _rounds(contenders, rounds)
    n = len(completions)
    print(f"python {sys.version.split()[0]} on {platform.machine()}; {n} completions ({n_prompts} prompts x 8), "
          f"median of {rounds} interleaved rounds, CPU time")
    print(f"ek and the baseline give the same reward on {agree}/{n} completions"
          + ("" if agree == n else " (the rest: strings ek canonicalizes, or blocks only ek reads)"))
    base_median = statistics.median(times["baseline"])
    print(f"{'contender':<22} {'median s':>10} {'us/completion':>14} {'x baseline':>11}")
    for name, samples in times.items():
        median = statistics.median(samples)
        print(f"{name:<22} {median:>10.4f} {median / n * 1e6:>14.1f} {median / base_median:>10.2f}x")
    ratio = statistics.median(times["tool_call_reward"]) / base_median
    print(f"tool_call_reward: {ratio:.2f}x the baseline (target <= 8x): {'met' if ratio <= 8 else 'NOT met'}")


if __name__ == "__main__":
    main()
