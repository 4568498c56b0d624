"""Scoring with a real grammar: the travel schemas parsed by the DSL, and their generated modules."""

from pathlib import Path

import pytest
from ekcli import run_ek

import ek.grammar
from ek.agents.toolcalls import ToolCallMetric
from ek.runtime import load_module

ROOT = Path(__file__).resolve().parents[2]
V1, V2 = ROOT / "schemas" / "travel-v1.ek", ROOT / "schemas" / "travel-v2.ek"


@pytest.fixture(scope="module")
def travel2():
    return ek.grammar.load(V2)


@pytest.fixture(scope="module")
def travel2_module(tmp_path_factory):
    out = tmp_path_factory.mktemp("gen")
    assert run_ek("gen", V2, "-o", out).returncode == 0
    return load_module(out / "travel_v2.py")


def counts(s):
    return s.tp, s.fp, s.fn


def test_tool_weight_and_argument_importance_from_the_schema(travel2):
    m = ToolCallMetric("arg", grammar=travel2)
    gold = [("cancel_booking", {"booking_id": "BK-1"})]
    assert counts(m([("cancel_booking", {"booking_id": "bk-1"})], gold)) == (10, 50, 50)  # compare exact, w=10, i=5
    assert counts(ToolCallMetric(grammar=travel2)([], gold)) == (0, 0, 10)


def test_defaults_unordered_and_ignore_from_the_schema(travel2):
    m = ToolCallMetric(grammar=travel2)
    gold = [("search_flights", {"origin": "BER", "destination": "LHR", "date": "2026-12-24", "passengers": 1}),
            ("book_flight", {"flight_id": "LH1", "passenger_names": ["Ann Lee", "Bo Chan"]}),
            ("cancel_booking", {"booking_id": "X1", "reason": "plans changed"})]
    pred = [("book_flight", {"flight_id": "LH1", "passenger_names": ["bo chan", "ANN LEE"]}),
            ("search_flights", {"origin": "BER", "destination": "LHR", "date": "2026-12-24", "cabin": "economy"}),
            ("cancel_booking", {"booking_id": "X1", "reason": "whatever"})]
    assert m(pred, gold).f1 == 1.0


def test_tolerance_policy_and_quoted_names(travel2):
    m = ToolCallMetric(grammar=travel2)
    gold = [("math.hypot", {"x": 3.0, "y": 4.0, "from": "origin"})]
    assert m([("math.hypot", {"x": 3, "y": 4.0009, "from": "Origin"})], gold).f1 == 1.0
    assert m([("math.hypot", {"x": 3, "y": 4.01, "from": "origin"})], gold).f1 == 0.0


def test_schema_violation_is_a_wrong_value_even_when_comparison_would_match(travel2):
    m = ToolCallMetric("arg", grammar=travel2)
    gold = [("search_flights", {"origin": "BER", "destination": "LHR", "date": "2026-12-24"})]
    score = m([("search_flights", {"origin": "ber", "destination": "LHR", "date": "2026-12-24"})], gold)
    bad = [u for u in score.explanation.errors() if u.arg == "origin"]
    assert {u.reason for u in bad} == {"invalid_value"} and "[A-Z]{3}" in bad[0].detail
    lenient = ToolCallMetric("arg", grammar=travel2, validate=False)
    assert lenient([("search_flights", {"origin": "ber", "destination": "LHR", "date": "2026-12-24"})], gold).f1 == 1.0


def test_argument_outside_the_schema_is_hallucinated(travel2):
    score = ToolCallMetric("arg", grammar=travel2)(
        [("get_weather", {"location": "Paris", "verbose": True})], [("get_weather", {"location": "Paris"})])
    assert [(u.kind, u.reason, u.arg) for u in score.explanation.errors()] == [("fp", "hallucinated_arg", "verbose")]


def test_generated_module_and_loaded_schema_score_identically(travel2, travel2_module):
    gold = [("search_flights", {"origin": "BER", "destination": "LHR", "date": "2026-12-24"}),
            ("cancel_booking", {"booking_id": "X1"})]
    preds = [
        [("search_flights", {"origin": "ber", "destination": "LHR", "date": "2026-12-24", "passengers": 12})],
        [("cancel_booking", {"booking_id": "x1"}), ("delete_everything", {})],
        gold,
    ]
    for level in ("call", "arg"):
        a = ToolCallMetric(level, grammar=travel2)
        b = ToolCallMetric(level, grammar=travel2_module)
        for pred in preds:
            sa, sb = a(pred, gold), b(pred, gold)
            assert sa == sb and sa.explanation.units == sb.explanation.units


def test_grammar_per_call_overrides_the_metric_default(travel2):
    v1 = ek.grammar.load(V1)
    m = ToolCallMetric("arg", grammar=v1)
    pred = [("cancel_booking", {"booking_id": "X"})]
    assert m(pred, pred).explanation.units[0].weight == 1  # travel@1 has no cancel_booking: unknown tool
    assert m(pred, pred, grammar=travel2).tp == 10 + 50


def test_metric_accepts_a_schema_path(travel2):
    assert ToolCallMetric(grammar=str(V2)).grammar == travel2


def test_a_generated_module_validates_with_its_own_code(tmp_path):
    """The module a user passes is the code that runs: an edit to its validator shows in the score."""
    assert run_ek("gen", V2, "-o", tmp_path).returncode == 0
    path = tmp_path / "travel_v2.py"
    text = path.read_text(encoding="utf-8")
    marker = "def validate_get_weather(args: Any) -> list[Violation]:\n"
    assert marker in text
    path.write_text(text.replace(marker, marker + "    return [Violation('$.location', 'edited by hand')]\n"), encoding="utf-8")
    call = [("get_weather", {"location": "Paris"})]
    for grammar in (load_module(path), path):
        score = ToolCallMetric("arg", grammar=grammar)(call, call)
        assert {u.detail for u in score.explanation.errors()} == {"$.location: edited by hand"} and score.f1 < 1
    assert ToolCallMetric("arg", grammar=V2)(call, call).f1 == 1.0  # the schema itself is unchanged


def test_integer_enum_members_compare_as_ints():
    from ek.canon import fold
    from ek.scorer.agree import rules_for_tool, values_agree

    grammar = ek.grammar.parse("grammar g 1\ntool t {\n    n: enum(1, 2)\n    m: enum(a, 1)\n}\n")
    rules = rules_for_tool(grammar, grammar.tool("t"))
    assert rules["n"].kind == "int" and rules["m"].kind == "enum"
    assert values_agree(2, 2, rules["n"], fold) and not values_agree(2, 2.0, rules["n"], fold)


def test_tool_names_from_model_output_do_not_grow_the_metric_caches(travel2):
    """A corpus of outputs naming tools the grammar does not declare (hostile or hallucinated) keeps the
    metric's per-tool caches at the declared tools: each unknown name is looked up, never remembered."""
    metric = ToolCallMetric("arg", grammar=travel2)
    gold = [("search_flights", {"origin": "SFO", "destination": "JFK", "date": "2025-01-01"})]
    for k in range(300):
        score = metric([(f"made_up_{k}", {"x": k}), ("search_flights", {"origin": "SFO"})], gold)
        assert ("fp", f"made_up_{k}", "unknown_tool") in score.tally
    ctx = metric._ctx
    assert set(ctx._rules) | set(ctx._weights) | set(ctx._checks) <= {t.name for t in travel2.tools}


def test_each_argument_s_rule_says_its_kind_policy_weight_default_and_parts():
    from ek.grammar.model import NO_DEFAULT
    from ek.scorer.agree import ArgRule, rules_for_tool

    grammar = ek.grammar.parse(
        "grammar g 1\n"
        "type Code = str /[A-Z]{3}/\n"
        "type Codes = list[Code]\n"
        "tool t {\n"
        "    a: Code importance 2\n"
        "    b: Codes compare unordered\n"
        "    c: {\n"
        "        x: int\n"
        "        y: list[float]?\n"
        "    }\n"
        "    d: float = 1.5 compare tol(0.25)\n"
        "    e: enum(1, 2)?\n"
        "}\n")
    rules = rules_for_tool(grammar, grammar.tool("t"))
    assert list(rules) == ["a", "b", "c", "d", "e"]
    assert rules["a"] == ArgRule(importance=2.0, kind="str", order=0, required=True)
    assert rules["b"] == ArgRule(policy="unordered", kind="list", item=ArgRule(kind="str"), order=1, required=True)
    assert rules["c"] == ArgRule(kind="object", order=2, required=True, fields={
        "x": ArgRule(kind="int", order=0, required=True),
        "y": ArgRule(kind="list", item=ArgRule(kind="float"), order=1, required=False)})
    assert rules["d"] == ArgRule(policy="tol", tolerance=0.25, kind="float", default=1.5, order=3)
    assert rules["e"] == ArgRule(kind="int", default=NO_DEFAULT, order=4)


DECIMAL_WEIGHTS = """grammar decimals 1

tool get_weather weight 0.1 {
    city: str importance 0.7
    days: int importance 0.3
}
"""


@pytest.mark.parametrize("optimal", [False, True])
def test_an_arguments_unit_weighs_its_decimal_product(optimal: bool) -> None:
    """weight 0.1 x importance 0.7 is a unit of 0.07, so thirty of them sum to 2.1, as a user works it out, on
    every path that weighs a unit: a wrong value in a matched pair (fast and general), calls left unmatched
    (explained or not), and the exact parts of a right output."""
    grammar = ek.grammar.parse(DECIMAL_WEIGHTS)
    metric = ToolCallMetric("arg", grammar=grammar, optimal=optimal)
    gold = [("get_weather", {"city": "Paris", "days": 3})]
    wrong_city = [("get_weather", {"city": "Rome", "days": 3})]
    total = sum((metric(wrong_city, gold) for _ in range(30)), start=metric([], []))
    assert (total.fp, total.fn) == (2.1, 2.1) and total.tp == pytest.approx(3.9)
    explained = sum((metric(wrong_city, gold, explain_now=True) for _ in range(30)), start=metric([], []))
    assert (explained.fp, explained.fn) == (2.1, 2.1)
    missed = sum((metric([("other", {})], gold, explain_now=explain) for explain in (False, True) * 15),
                 start=metric([], []))
    assert missed.fn == 6.0 and missed.fp == 30.0  # each missed call: 0.1 + 0.07 + 0.03; "other" weighs 1
    right = sum((metric(gold, gold) for _ in range(30)), start=metric([], []))
    assert right.tp == 6.0 and (right.fp, right.fn) == (0.0, 0.0)
    units_of_days = sum((metric([("get_weather", {"city": "Paris"})], gold) for _ in range(30)), start=metric([], []))
    assert units_of_days.fn == 0.9  # 0.1 x 0.3: 0.03 a unit, not 0.030000000000000002
