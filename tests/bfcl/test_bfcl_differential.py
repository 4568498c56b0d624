"""ek.bfcl.check against BFCL's own checker on all of BFCL's data (skipped without bfcl-eval).

Every disagreement must be one of the differences docs/bfcl.md documents.
"""

from __future__ import annotations

import importlib.util
import json
import random
from pathlib import Path
from typing import Any

import pytest

from ek.bfcl import check, pair_up, read_possible_answers, read_questions
from ek.bfcl.oracle import load_bfcl_checker
from ek.bfcl.variants import variants

oracle = load_bfcl_checker()
pytestmark = pytest.mark.skipif(oracle is None, reason="bfcl-eval is not installed (pip install --no-deps bfcl-eval)")

CATEGORIES = ("simple_python", "multiple", "parallel", "parallel_multiple", "live_simple", "live_multiple",
              "live_parallel", "live_parallel_multiple", "simple_java", "simple_javascript")


def _documented(category: str, label: str, output: list, bfcl: dict, ground_truth: Any) -> bool:
    import test_bfcl_sample as sample  # same rules as the sample test

    record = {"category": category, "label": label, "output": output, "bfcl_error_type": bfcl["error_type"]}
    return sample.documented_difference(record, ground_truth) is not None


@pytest.mark.parametrize("category", CATEGORIES)
def test_all_of_bfcl_data_agrees_but_for_documented_differences(category: str) -> None:
    spec = importlib.util.find_spec("bfcl_eval")
    assert spec is not None and spec.origin is not None and oracle is not None
    data = Path(spec.origin).parent / "data"
    pairs = pair_up(read_questions(data / f"BFCL_v4_{category}.json"),
                    read_possible_answers(data / "possible_answer" / f"BFCL_v4_{category}.json"))
    rng = random.Random(category)
    undocumented = []
    for question, answer in pairs:
        for label, output in variants(question.functions, answer.ground_truth, category, rng):
            bfcl = oracle(json.loads(json.dumps(question.functions)), json.loads(json.dumps(output)),
                          json.loads(json.dumps(answer.ground_truth)), category)
            ours = check(question.functions, output, answer.ground_truth, category)
            same = ours.valid == bfcl["valid"] and (ours.valid or ours.error_type == bfcl["error_type"])
            if not same and not _documented(category, label, output, bfcl, answer.ground_truth):
                undocumented.append((question.id, label, ours, bfcl["error_type"]))
    assert not undocumented, undocumented[:5]


def test_canon_bfcl_is_bfcls_standardize_string() -> None:
    from hypothesis import given, settings
    from hypothesis import strategies as st

    from ek.bfcl.oracle import _load_isolated
    from ek.canon import bfcl

    module = _load_isolated()
    assert module is not None

    @settings(max_examples=200, deadline=None)
    @given(st.text(alphabet=st.characters(codec="utf-8") | st.sampled_from(" ,./-_*^'\"\t\nAZ")))
    def same(text: str) -> None:
        assert bfcl(text) == module.standardize_string(text)

    same()


def test_every_fourth_bfcl_entry_imports_lint_clean_and_round_trips() -> None:
    from ek.bfcl import to_grammar
    from ek.grammar import format_grammar, parse
    from ek.interop import export_tools, import_tools

    spec = importlib.util.find_spec("bfcl_eval")
    assert spec is not None and spec.origin is not None
    data = Path(spec.origin).parent / "data"
    checked = 0
    for path in sorted(data.glob("BFCL_v4_*.json")):
        if any(skip in path.name for skip in ("multi_turn", "memory", "web_search", "format_sensitivity")):
            continue
        for number, question in enumerate(read_questions(path)):
            if number % 4 or not question.functions:
                continue
            result = to_grammar(list(question.functions))
            assert not result.errors, (question.id, result.errors)
            assert parse(format_grammar(result.grammar)) == result.grammar, question.id
            exported, _ = export_tools(result.grammar, "openai")
            again = import_tools(json.loads(json.dumps(exported)), "openai", name="bfcl", version=1)
            assert again.grammar == result.grammar, question.id
            checked += 1
    assert checked > 800


PYTHON_CATEGORIES = [c for c in CATEGORIES if "java" not in c]


@pytest.mark.parametrize("category", PYTHON_CATEGORIES)
def test_text_outputs_agree_with_bfcls_own_decoder_and_checker(category: str) -> None:
    """Outputs written as Python text: BFCL decodes them with its prompting decoder, ek with ek.parsing."""
    from ek.bfcl.oracle import load_bfcl_decoder
    from ek.calls import Step
    from ek.parsing import to_python

    decode = load_bfcl_decoder()
    assert decode is not None and oracle is not None
    spec = importlib.util.find_spec("bfcl_eval")
    assert spec is not None and spec.origin is not None
    data = Path(spec.origin).parent / "data"
    pairs = pair_up(read_questions(data / f"BFCL_v4_{category}.json"),
                    read_possible_answers(data / "possible_answer" / f"BFCL_v4_{category}.json"))
    rng = random.Random(category)
    undocumented, compared = [], 0
    for question, answer in pairs[::3]:
        for label, output in variants(question.functions, answer.ground_truth, category, rng):
            text = to_python([Step(name, args) for call in output for name, args in call.items()])
            text = rng.choice([text, text.removeprefix("[").removesuffix("]"), f"```\n{text}\n```", f"\n {text}\n"])
            try:
                bfcl = oracle(json.loads(json.dumps(question.functions)), decode(text),
                              json.loads(json.dumps(answer.ground_truth)), category)
            except Exception:  # noqa: BLE001 - BFCL's decoder raises anything on text it cannot read
                bfcl = {"valid": False, "error_type": "ast_decoder:decoder_failed"}
            ours = check(question.functions, text, answer.ground_truth, category)
            compared += 1
            same = ours.valid == bfcl["valid"] and (ours.valid or ours.error_type == bfcl["error_type"])
            if not same and not _documented(category, label, output, bfcl, answer.ground_truth):
                undocumented.append((question.id, label, text[:200], ours, bfcl.get("error_type")))
    assert compared > 30
    assert not undocumented, undocumented[:5]
