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

from ek import OMITTABLE, OneOf
from ek.agents.toolcalls import ToolCallMetric
from ek.bfcl import check, gold_calls, load_category, to_grammar
from ek.bfcl.oracle import load_bfcl_checker

DATA = Path(__file__).resolve().parents[1] / "data" / "bfcl"


def _records():
    episodes = {}
    for path in DATA.glob("BFCL_v4_*.json"):
        if "relevance" not in path.name:  # irrelevance, live_relevance: no possible answers
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
        GRAMMARS[key] = ToolCallMetric(canonicalizer="bfcl", format="bfcl", grammar=to_grammar(e.functions).grammar,
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


# ---------------------------------------------------------------- defaults, required arguments and "" in BFCL mode
#
# Constructed entries, each judged by ek.bfcl.check (BFCL's checker reimplemented, pinned against BFCL's own
# verdicts in tests/bfcl) and, when bfcl-eval is installed, by BFCL's checker itself.

ORACLE = load_bfcl_checker()
WEATHER = [{"name": "weather", "description": "Weather.", "parameters": {"type": "dict", "properties": {
    "city": {"type": "string"}, "unit": {"type": "string", "default": "celsius"}, "days": {"type": "integer"},
    "tags": {"type": "array", "items": {"type": "string"}}}, "required": ["city", "days"]}}]


def _verdicts(functions, call_args, answer, level="call"):
    """(BFCL's verdict or None, ek.bfcl.check's verdict, ToolCallMetric's score) for one call."""
    output, truth = [{functions[0]["name"]: call_args}], [{functions[0]["name"]: answer}]
    bfcl = ORACLE(json.loads(json.dumps(functions)), output, truth, "simple_python")["valid"] if ORACLE else None
    metric = ToolCallMetric(level, canonicalizer="bfcl", format="bfcl", grammar=to_grammar(functions).grammar, validate=False)
    return bfcl, check(functions, output, truth, "simple_python").valid, metric(output, gold_calls(truth))


def test_bfcl_mode_an_explicit_default_is_unexpected_when_gold_leaves_it_out():
    bfcl, ours, score = _verdicts(WEATHER, {"city": "Paris", "days": 1, "unit": "celsius"}, {"city": ["Paris"], "days": [1]},
                                  level="arg")
    assert bfcl in (None, False) and ours is False and score.f1 < 1.0
    assert [(u.kind, u.reason, u.arg) for u in score.explanation.errors()] == [("fp", "hallucinated_arg", "unit")]
    # and gold naming the default without "" requires it: leaving it out is a miss (BFCL: missing_optional)
    bfcl, ours, score = _verdicts(WEATHER, {"city": "Paris", "days": 1}, {"city": ["Paris"], "days": [1], "unit": ["celsius"]},
                                  level="arg")
    assert bfcl in (None, False) and ours is False
    assert [(u.kind, u.reason, u.arg) for u in score.explanation.errors()] == [("fn", "missing_arg", "unit")]
    # outside BFCL mode the default is the effective value of the omitted argument (docs/scoring.md)
    fold = ToolCallMetric(grammar=to_grammar(WEATHER).grammar, validate=False, format="bfcl")
    assert fold([("weather", {"city": "Paris", "days": 1, "unit": "celsius"})], [("weather", {"city": "Paris", "days": 1})]).f1 == 1.0


def test_bfcl_mode_an_omitted_required_argument_is_missing_even_where_gold_allows_omission():
    for answer in ({"city": ["Paris"], "days": [1, ""]}, {"city": ["Paris"], "days": [""]}, {"city": ["Paris"]}):
        bfcl, ours, score = _verdicts(WEATHER, {"city": "Paris"}, answer, level="arg")
        assert bfcl in (None, False) and ours is False and score.f1 < 1.0, answer
        missing = [(u.kind, u.reason, u.arg, u.detail) for u in score.explanation.errors()]
        assert missing == [("fn", "missing_arg", "days", "a required argument (BFCL: missing_required)")], answer
    # outside BFCL mode gold decides: an omittable gold argument may be left out
    fold = ToolCallMetric(grammar=to_grammar(WEATHER).grammar, validate=False, format="bfcl")
    assert fold([("weather", {"city": "Paris"})], [("weather", {"city": "Paris", "days": OneOf(1, OMITTABLE)})]).f1 == 1.0


@pytest.mark.parametrize("value, answer, valid", [
    ("", ["", "celsius"], True),        # "" is BFCL's omission marker, and a string value equal to it
    (" ", ["celsius", ""], True),       # standardised to ""
    ("", [""], True),
    ("", ["celsius"], False),
    ("x", [""], False),
])
def test_bfcl_mode_an_empty_string_value_is_bfcls_omission_marker(value, answer, valid):
    bfcl, ours, score = _verdicts(WEATHER, {"city": "Paris", "days": 1, "unit": value},
                                  {"city": ["Paris"], "days": [1], "unit": answer})
    assert bfcl in (None, valid) and ours is valid and (score.f1 == 1.0) is valid


def test_bfcl_mode_an_empty_value_of_another_type_follows_bfcls_type_check():
    cases = [({"days": ""}, {"days": [1, ""]}, False),          # "" is not an integer
             ({"tags": []}, {"tags": [["a"], ""]}, True),        # BFCL reads "" as an empty list for an array
             ({"tags": ""}, {"tags": [["a"], ""]}, False),
             ({"days": ""}, {"days": ["n_days", ""]}, True)]     # a "variable" answer: `"" in answers`
    for extra, answer, valid in cases:
        args = {"city": "Paris", "days": 1, **extra}
        bfcl, ours, score = _verdicts(WEATHER, args, {"city": ["Paris"], "days": [1], **answer})
        assert bfcl in (None, valid) and ours is valid and (score.f1 == 1.0) is valid, (extra, answer)


TYPES = {
    "string": ({"type": "string"}, "celsius", "kelvin"),
    "integer": ({"type": "integer"}, 3, 4),
    "float": ({"type": "float"}, 0.5, 1.5),
    "boolean": ({"type": "boolean"}, False, True),
    "array": ({"type": "array", "items": {"type": "string"}}, ["a"], ["b"]),
    "dict": ({"type": "dict", "properties": {"k": {"type": "string"}, "j": {"type": "integer"}}},
             {"k": ["a", ""], "j": [1]}, {"k": ["b"], "j": [2, ""]}),
    "any": ({"type": "any"}, "x", "y"),
    "enum": ({"type": "string", "enum": ["celsius", "kelvin"]}, "celsius", "kelvin"),
}
EMPTY_LIKE = ["", " ", "-", [], {}, {"k": ""}, {"k": " ", "j": 1}, {"j": 2}]


def _grid():
    for type_name, (schema, first, second) in TYPES.items():
        for required, default in ((False, False), (False, True), (True, False)):
            prop = {**schema, **({"default": first} if default else {})}
            functions = [{"name": "f", "description": "d", "parameters": {"type": "dict", "properties": {
                "id": {"type": "integer"}, "p": prop}, "required": ["id", "p"] if required else ["id"]}}]
            for answer in (None, [""], [first, ""], ["", second], [first], [second], ["variable", ""]):
                for value in ("OMIT", *EMPTY_LIKE, first, second):
                    args = {"id": 1} if value == "OMIT" else {"id": 1, "p": value}
                    yield type_name, functions, args, {"id": [1]} if answer is None else {"id": [1], "p": answer}


def test_bfcl_mode_agrees_with_bfcls_checker_on_defaults_required_arguments_and_empty_values():
    """Every declared type x required/default/optional x answer with and without "" x empty-like values."""
    disagreements, n = [], 0
    for type_name, functions, args, answer in _grid():
        bfcl, ours, score = _verdicts(functions, args, answer)
        n += 1
        if (score.f1 == 1.0) is not ours or bfcl not in (None, ours):
            disagreements.append((type_name, functions[0]["parameters"]["required"], args, answer, bfcl, ours))
    assert n > 1500 and disagreements == []


@pytest.mark.skipif(ORACLE is None, reason="bfcl-eval is not installed (pip install --no-deps bfcl-eval)")
@pytest.mark.parametrize("category", ["simple_python", "multiple", "parallel", "parallel_multiple", "live_simple",
                                      "live_multiple", "live_parallel", "live_parallel_multiple"])
def test_exact_match_is_exactly_check_on_all_of_bfcls_data(category):
    """Every entry of BFCL v4 and its derived outputs (ek.bfcl.variants): 27 disagreed before BFCL mode
    followed BFCL on required arguments and defaults (e.g. simple_python_200, live_simple_124-80-0)."""
    import importlib.util
    import random

    from ek.bfcl.variants import variants

    spec = importlib.util.find_spec("bfcl_eval")
    assert spec is not None and spec.origin is not None
    rng = random.Random(category)
    disagreements = []
    for e in load_category(Path(spec.origin).parent / "data" / f"BFCL_v4_{category}.json"):
        metric = ToolCallMetric(canonicalizer="bfcl", format="bfcl", grammar=e.grammar(), validate=False)
        gold = e.gold()
        for label, output in variants(e.functions, e.ground_truth, category, rng):
            verdict = check(e.functions, output, e.ground_truth, category)
            if (metric(output, gold).f1 == 1.0) is not verdict.valid:
                disagreements.append((e.id, label, verdict.error_type))
    assert disagreements == []
