"""ToolCallMetric agrees with ek.bfcl.check (BFCL's semantics) on real BFCL data and outputs.

tests/data/bfcl/verdicts.jsonl holds outputs derived from BFCL's answers with the verdict BFCL's own
checker gave them. An exact AST match (F1 1.0 at call level, BFCL's canonicalizer) must be exactly a
valid verdict. With schema validation on, ek is stricter than BFCL in one documented way: a value the
function's schema rejects (an enum member in the wrong case, a value outside the declared enum) is
wrong even when BFCL's possible answers would accept it.
"""

import json
from pathlib import Path

import pytest

from ek.agents.toolcalls import ToolCallMetric
from ek.bfcl import check, gold_calls, load_category, to_grammar

DATA = Path(__file__).resolve().parents[1] / "data" / "bfcl"


def _records():
    episodes = {}
    for path in DATA.glob("BFCL_v4_*.json"):
        if "irrelevance" not in path.name:
            episodes.update((e.id, e) for e in load_category(path))
    out = []
    for line in (DATA / "verdicts.jsonl").read_text(encoding="utf-8").splitlines():
        r = json.loads(line)
        e = episodes.get(r["id"])
        if e is not None and not r["category"].endswith(("java", "javascript")):
            out.append((r, e))
    return out


RECORDS = _records()
GRAMMARS: dict = {}


def _metric(e, validate):
    key = (e.id, validate)
    if key not in GRAMMARS:
        GRAMMARS[key] = ToolCallMetric(canonicalizer="bfcl", grammar=to_grammar(e.functions).grammar,
                                       validate=validate)
    return GRAMMARS[key]


def test_sample_is_real_and_large():
    assert len(RECORDS) > 1000
    assert {r["category"] for r, _ in RECORDS} >= {"simple_python", "multiple", "parallel", "parallel_multiple",
                                                   "live_simple", "live_multiple", "live_parallel"}


def test_exact_match_is_exactly_a_valid_bfcl_verdict():
    disagreements = []
    for r, e in RECORDS:
        verdict = check(e.functions, r["output"], e.ground_truth, e.category)
        exact = _metric(e, False)(r["output"], gold_calls(e.ground_truth)).f1 == 1.0
        if exact != verdict.valid:
            disagreements.append((r["id"], r["label"], verdict.error_type))
    assert disagreements == []


@pytest.mark.parametrize("category", ["live_simple", "live_multiple", "parallel", "parallel_multiple"])
def test_with_validation_ek_is_only_stricter_and_says_why(category):
    stricter = 0
    for r, e in RECORDS:
        if r["category"] != category:
            continue
        verdict = check(e.functions, r["output"], e.ground_truth, e.category)
        score = _metric(e, True)(r["output"], gold_calls(e.ground_truth))
        if (score.f1 == 1.0) != verdict.valid:
            assert verdict.valid, (r["id"], r["label"])  # ek never accepts what BFCL rejects
            assert any("invalid_value" in u.detail or u.reason == "invalid_value"
                       for u in score.explanation.errors()), (r["id"], str(score.explanation))
            stricter += 1
    assert stricter <= 10
