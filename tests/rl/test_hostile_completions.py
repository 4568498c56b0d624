"""What a policy may emit mid-training, through the rewards of TRL, verl and OpenRLHF: a finite reward in the
documented range (or the unparseable one), never an exception, in time that grows with the output's length
at most linearly, and the same reward whatever the hash seed (docs/rl.md, "Completions")."""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from cputime import growth

from ek.rewards import RewardOptions, make_tool_call_reward
from ek.rl.openrlhf import make_reward_func, response_of
from ek.rl.verl import make_compute_score

GOLD = json.dumps([{"name": "f", "arguments": {"x": 1}}])
PROMPT = "<|im_start|>user\nCall f.<|im_end|>\n<|im_start|>assistant\n"


def _block(call: str) -> str:
    return f"<tool_call>{call}</tool_call>"


#: (completion, whether it parses): each a way a policy's output goes wrong, from the brief of docs/rl.md.
HOSTILE: dict[str, tuple[Any, bool]] = {
    "a megabyte of prose": ("word " * 199_000, True),
    "past the output size limit": ("x" * 2_000_000, False),
    "thousands of blocks": (_block('{"name": "f", "arguments": {"x": 2}}') * 5000, True),
    "arguments nested at the depth limit": (_block('{"name": "f", "arguments": {"x": ' + "[" * 62 + "]" * 62 + "}}"),
                                            True),
    "arguments nested 100,000 deep": (_block('{"name": "f", "arguments": {"x": ' + "[" * 100_000 + "]" * 100_000
                                             + "}}"), False),
    "a block cut short": ('<tool_call>{"name": "f", "arguments": {"x": ', False),
    "a think never closed": ("<think>" + "hmm " * 1000 + _block('{"name": "f", "arguments": {"x": 1}}'), False),
    "a raw NUL in a name": (_block('{"name": "f\x00", "arguments": {"x": 1}}'), False),
    "a lone surrogate": (_block('{"name": "f", "arguments": {"x": "\\ud800"}}'), True),
    "invalid UTF-8 bytes": (b'<tool_call>{"name": "f", "arguments": {"x": 1}}</tool_call>\xff', False),
    "1e999": (_block('{"name": "f", "arguments": {"x": 1e999}}'), False),
    "NaN": (_block('{"name": "f", "arguments": {"x": NaN}}'), False),
    "-0.0": (_block('{"name": "f", "arguments": {"x": -0.0}}'), True),
    "an integer of 5,000 digits": (_block('{"name": "f", "arguments": {"x": ' + "9" * 5000 + "}}"), False),
    "10**5000 as Python": ("f(x=10**5000)", False),
    "a hex integer of 20,000 digits": ("f(x=0x" + "f" * 20_000 + ")", False),
    "a key given twice": (_block('{"name": "f", "arguments": {"x": 1, "x": 2}}'), False),
    "a tool name of a megabyte": (_block('{"name": "' + "n" * 999_000 + '", "arguments": {"x": 1}}'), True),
    "not text": (12345, False),
    "None": (None, False),
}


@pytest.mark.parametrize("name", list(HOSTILE))
def test_a_hostile_completion_earns_a_reward_in_every_trainer(name: str) -> None:
    completion, parses = HOSTILE[name]
    for level in ("call", "partial"):
        options = RewardOptions(level=level, unparseable=-0.5)
        trl = make_tool_call_reward(level=level, unparseable=-0.5)([completion], gold_calls=[GOLD])[0]
        verl = make_compute_score(level=level, unparseable=-0.5)(data_source="t", solution_str=completion,
                                                                 ground_truth=GOLD, extra_info={})
        assert trl == verl["score"]
        assert all(type(v) is float and math.isfinite(v) for v in verl.values())
        assert options.range()[0] <= trl <= 1.0
        assert (trl != -0.5) == parses == (verl["format_ok"] == 1.0)
        if isinstance(completion, str):
            out = make_reward_func(level=level, unparseable=-0.5)([PROMPT + completion + "<|im_end|>"], [PROMPT],
                                                                   [GOLD])
            assert [float(r) for r in out["rewards"]] == [trl]


def _grows_linearly(make: Any, reward: Any, n: int = 2000) -> float:
    small, large = make(n), make(4 * n)
    return growth(lambda: reward([small], gold_calls=[GOLD]), lambda: reward([large], gold_calls=[GOLD]), rounds=3)


@pytest.mark.parametrize("family", ["blocks", "distinct blocks", "think", "long string", "cut short", "python calls"])
def test_a_reward_s_time_grows_linearly_with_the_output(family: str) -> None:
    make = {
        "blocks": lambda n: _block('{"name": "f", "arguments": {"x": 1}}') * n,
        "distinct blocks": lambda n: "".join(_block('{"name": "%s", "arguments": {"x": %d}}' % ("fg"[i % 2], i))
                                             for i in range(n)),
        "think": lambda n: "<think>" + "x" * (50 * n) + "</think>" + _block('{"name": "f", "arguments": {"x": 1}}'),
        "long string": lambda n: _block('{"name": "f", "arguments": {"x": "' + "s" * (50 * n) + '"}}'),
        "cut short": lambda n: '<tool_call>{"name": "f", "arguments": {"x": "' + "s" * (50 * n),
        "python calls": lambda n: "[" + ",".join("f(x=%d)" % i for i in range(4 * n)) + "]",  # past the fast path
    }[family]
    for level in ("call", "partial"):
        assert _grows_linearly(make, make_tool_call_reward(level=level)) < 9, (family, level)


def test_openrlhf_s_response_is_cut_in_linear_time() -> None:
    query = (lambda n: PROMPT + _block('{"name": "f", "arguments": {}}') + "<|im_end|>\n" * n)
    cut = (lambda n: (PROMPT * 40)[-n:])  # a prompt kept from the left, past what the query holds
    assert growth(lambda: response_of(query(5000), PROMPT), lambda: response_of(query(20_000), PROMPT)) < 9
    assert growth(lambda: response_of(query(1)[1:], cut(2000)), lambda: response_of(query(1)[1:], cut(8000))) < 9


def test_the_same_rewards_whatever_the_hash_seed(tmp_path: Path) -> None:
    """Ties everywhere (calls of one tool that fit several gold calls equally, sets of names): a reward computed in
    another process (a Ray worker, a process pool) must not depend on the order of a set or a dict."""
    calls = [{"name": n, "arguments": a} for n in ("f", "g") for a in ({"x": 1}, {"x": "A"}, {"x": 1, "y": [1]}, {})]
    samples = [("".join(_block(json.dumps(calls[(i * k) % 8])) for k in range(1, 4 + i % 3)),
                json.dumps([calls[(i + k) % 8] for k in range(i % 4)])) for i in range(40)]
    script = """
import json, sys
from ek.rewards import make_tool_call_reward
samples = json.loads(sys.argv[1])
print(json.dumps([make_tool_call_reward(level=lv, optimal=o)([c for c, _ in samples], gold_calls=[g for _, g in samples])
                  for lv in ("call", "arg", "partial", "exact") for o in (False, True)]))
"""
    src = str(Path(__file__).resolve().parents[2] / "src")
    runs = [subprocess.run([sys.executable, "-c", script, json.dumps(samples)], capture_output=True, text=True,
                           env={**os.environ, "PYTHONPATH": src, "PYTHONHASHSEED": seed}, check=False, timeout=120)
            for seed in ("1", "2", "3")]
    assert all(r.returncode == 0 for r in runs), [r.stderr for r in runs]
    assert runs[0].stdout == runs[1].stdout == runs[2].stdout
    assert len({x for level in json.loads(runs[0].stdout) for x in level}) > 4  # the samples score differently
