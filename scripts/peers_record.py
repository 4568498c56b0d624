"""Score tests/data/peers/trajectories.json with ek's peers and write tests/data/peers/answers.json.

Run it in a venv of its own, never ek's (the peers are not ek dependencies; none needs an API key for these
metrics, and none makes a network call here):

    python3.11 -m venv /tmp/peers-venv && /tmp/peers-venv/bin/pip install agentevals deepeval ragas
    DEEPEVAL_TELEMETRY_OPT_OUT=1 /tmp/peers-venv/bin/python scripts/peers_record.py

tests/test_peers_agreement.py reads the answers back and checks, case by case, which of them ek's mapped call
reproduces and which it does not (docs/peers.md gives the mapping and says why they differ).
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
import warnings
from importlib.metadata import version
from pathlib import Path
from typing import Any

os.environ.setdefault("DEEPEVAL_TELEMETRY_OPT_OUT", "1")
HERE = Path(__file__).resolve().parents[1] / "tests" / "data" / "peers"

TRAJECTORY_MODES = ("strict", "unordered", "subset", "superset")
ARGS_MODES = ("exact", "ignore", "subset", "superset")


def openai_messages(calls: list[list[Any]], parallel: bool) -> list[dict[str, Any]]:
    """A trajectory as OpenAI chat messages: the user's turn, then each call in an assistant message of its
    own (one message holding them all when ``parallel``) with its tool result, then the final answer."""
    messages: list[dict[str, Any]] = [{"role": "user", "content": "help"}]
    groups = [calls] if parallel and calls else [[c] for c in calls]
    n = 0
    for group in groups:
        ids = [f"call_{n + i}" for i in range(len(group))]
        n += len(group)
        messages.append({"role": "assistant", "content": "", "tool_calls": [
            {"id": i, "type": "function", "function": {"name": name, "arguments": json.dumps(args)}}
            for i, (name, args) in zip(ids, group)]})
        messages.extend({"role": "tool", "tool_call_id": i, "content": "ok"} for i in ids)
    messages.append({"role": "assistant", "content": "done"})
    return messages


def agentevals_answers(case: dict[str, Any]) -> dict[str, bool]:
    from agentevals.trajectory.match import create_trajectory_match_evaluator

    parallel = bool(case.get("parallel"))
    out = openai_messages(case["pred"], parallel)
    ref = openai_messages(case["gold"], parallel)
    answers = {}
    for mode in TRAJECTORY_MODES:
        for args_mode in ARGS_MODES:
            evaluator = create_trajectory_match_evaluator(trajectory_match_mode=mode, tool_args_match_mode=args_mode)
            answers[f"{mode}/{args_mode}"] = bool(evaluator(outputs=out, reference_outputs=ref)["score"])
    return answers


def deepeval_answers(case: dict[str, Any]) -> dict[str, float]:
    from deepeval.metrics import ToolCorrectnessMetric
    from deepeval.models import DeepEvalBaseLLM
    from deepeval.test_case import LLMTestCase, ToolCall, ToolCallParams

    class NoJudge(DeepEvalBaseLLM):
        """The judge the metric insists on being given: without ``available_tools`` it asks none (its score is
        computed in code), and this one would fail loudly if it were asked."""

        def load_model(self) -> None:
            return None

        def generate(self, *args: Any, **kwargs: Any) -> str:
            raise AssertionError("ToolCorrectnessMetric asked a judge")

        async def a_generate(self, *args: Any, **kwargs: Any) -> str:
            raise AssertionError("ToolCorrectnessMetric asked a judge")

        def get_model_name(self) -> str:
            return "no judge"

    def calls(side: str) -> list[Any]:
        return [ToolCall(name=name, input_parameters=args) for name, args in case[side]]

    answers = {}
    for params_name, params in (("names", []), ("input_parameters", [ToolCallParams.INPUT_PARAMETERS])):
        for mode, options in (("default", {}), ("ordering", {"should_consider_ordering": True}),
                              ("exact_match", {"should_exact_match": True})):
            metric = ToolCorrectnessMetric(evaluation_params=params, model=NoJudge(), async_mode=False,
                                           include_reason=False, **options)
            test_case = LLMTestCase(input="help", actual_output="done", tools_called=calls("pred"),
                                    expected_tools=calls("gold"))
            answers[f"{mode}/{params_name}"] = float(metric.measure(test_case, _show_indicator=False))
    return answers


def ragas_answers(case: dict[str, Any]) -> dict[str, float | str]:
    from ragas.dataset_schema import MultiTurnSample
    from ragas.messages import AIMessage, HumanMessage, ToolCall, ToolMessage
    from ragas.metrics import ToolCallAccuracy, ToolCallF1

    messages: list[Any] = [HumanMessage(content="help")]
    groups = [case["pred"]] if case.get("parallel") and case["pred"] else [[c] for c in case["pred"]]
    for group in groups:
        messages.append(AIMessage(content="", tool_calls=[ToolCall(name=n, args=a) for n, a in group]))
        messages.extend(ToolMessage(content="ok") for _ in group)
    messages.append(AIMessage(content="done"))
    reference = [ToolCall(name=n, args=a) for n, a in case["gold"]]
    answers: dict[str, float | str] = {}
    for name, metric in (("ToolCallF1", ToolCallF1()), ("ToolCallAccuracy", ToolCallAccuracy()),
                         ("ToolCallAccuracy/strict_order=False", ToolCallAccuracy(strict_order=False))):
        sample = MultiTurnSample(user_input=messages, reference_tool_calls=reference)
        try:
            answers[name] = float(asyncio.run(metric._multi_turn_ascore(sample, None)))
        except Exception as exc:  # a peer's crash is an answer too: the page records it
            answers[name] = f"{type(exc).__name__}: {exc}"
    return answers


def main() -> int:
    warnings.simplefilter("ignore")
    cases = json.loads((HERE / "trajectories.json").read_text())["cases"]
    result = {
        "about": "Answers of ek's peers on trajectories.json, written by scripts/peers_record.py.",
        "versions": {name: version(name) for name in ("agentevals", "deepeval", "ragas")},
        "python": sys.version.split()[0],
        "answers": {case["id"]: {"agentevals": agentevals_answers(case), "deepeval": deepeval_answers(case),
                                 "ragas": ragas_answers(case)} for case in cases},
    }
    target = HERE / "answers.json"
    tmp = target.with_suffix(".tmp")
    tmp.write_text(json.dumps(result, indent=1, sort_keys=True) + "\n")
    tmp.replace(target)  # atomically: a crash never leaves half a file
    print(f"wrote {target}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
