"""ToolCallMetric and match_calls: the scoring contract of SCORING.md, case by case."""

import pytest

from ek import OMITTABLE, Omittable, OneOf, Step
from ek.agents.toolcalls import ToolCallMetric, match_calls
from ek.grammar.model import ComparePolicy, FieldSpec, GraphGrammar, ListType, PrimitiveType, ToolSpec

STR, INT, FLOAT = PrimitiveType("str"), PrimitiveType("int"), PrimitiveType("float")


def counts(score):
    return score.tp, score.fp, score.fn


# ---------------------------------------------------------------- multiset semantics


def test_identical_repeated_calls_need_as_many_predictions():
    gold = [("search", {"q": "cats"}), ("search", {"q": "cats"})]
    assert counts(ToolCallMetric()([("search", {"q": "cats"})], gold)) == (1, 0, 1)
    assert counts(ToolCallMetric()(gold, gold)) == (2, 0, 0)
    assert counts(ToolCallMetric()(gold * 2, gold)) == (2, 2, 0)


def test_reordered_calls_are_all_matched():
    pred = [("b", {"y": 2}), ("a", {"x": 1}), ("b", {"y": 1})]
    gold = [("a", {"x": 1}), ("b", {"y": 1}), ("b", {"y": 2})]
    assert counts(ToolCallMetric()(pred, gold)) == (3, 0, 0)


def test_wrong_tool_never_matches():
    pairs, up, ug = match_calls([("search", {"q": "x"})], [("find", {"q": "x"})])
    assert pairs == [] and up == [("search", {"q": "x"})] and ug == [("find", {"q": "x"})]


def test_strong_pair_is_not_stolen_by_weaker_pair_that_came_first():
    # pred #0 partially matches both golds; pred #1 matches gold #1 exactly.
    pred = [("s", {"q": "a", "n": 9}), ("s", {"q": "a", "n": 2})]
    gold = [("s", {"q": "a", "n": 1}), ("s", {"q": "a", "n": 2})]
    pairs, _, _ = match_calls(pred, gold)
    assert (pred[1], gold[1]) in pairs and (pred[0], gold[0]) in pairs


def test_empty_vs_empty_is_perfect():
    score = ToolCallMetric()([], [])
    assert score.f1 == 1.0 and counts(score) == (0, 0, 0)


def test_calls_nothing_when_something_expected_scores_zero():
    assert ToolCallMetric()([], [("a", {})]).f1 == 0.0
    assert ToolCallMetric()([("a", {})], []).f1 == 0.0


# ---------------------------------------------------------------- values


@pytest.mark.parametrize(
    "gold, pred, agree",
    [
        ("New  York", " new york ", True),
        ("Straße", "STRASSE", True),
        (True, 1, False),
        (1, True, False),
        (1.0, 1, True),
        (1, 1.0, True),  # no schema: numbers compare by value
        ([1, 2], [2, 1], False),  # list order matters
        ([1, 2], [1, 2], True),
        ({"a": {"b": "X  Y"}}, {"a": {"b": "x y"}}, True),  # nested strings canonicalized
        ({"a": 1}, {"a": 1, "b": 2}, False),
        (None, None, True),
        (None, "None", False),
        (float("nan"), float("nan"), False),
        ("1", 1, False),
    ],
)
def test_value_rules(gold, pred, agree):
    score = ToolCallMetric()([("t", {"v": pred})], [("t", {"v": gold})])
    assert (score.tp == 1.0) is agree


def test_canonicalizer_by_name_and_callable():
    gold, pred = [("t", {"v": "San Francisco"})], [("t", {"v": "san-francisco"})]
    assert ToolCallMetric()(pred, gold).f1 == 0.0
    assert ToolCallMetric(canonicalizer="bfcl")(pred, gold).f1 == 1.0
    assert ToolCallMetric(canonicalizer="exact")([("t", {"v": "a"})], [("t", {"v": "A"})]).f1 == 0.0
    assert ToolCallMetric(canonicalizer=str.upper)([("t", {"v": "a"})], [("t", {"v": "A"})]).f1 == 1.0
    with pytest.raises(ValueError, match="unknown canonicalizer"):
        ToolCallMetric(canonicalizer="lower")


def test_one_of_accepts_any_alternative_at_any_depth():
    gold = [("weather", {"city": OneOf("NYC", "New York"), "opts": {"unit": OneOf("c", "celsius")}})]
    assert ToolCallMetric()([("weather", {"city": "new york", "opts": {"unit": "C"}})], gold).f1 == 1.0
    assert ToolCallMetric()([("weather", {"city": "Boston", "opts": {"unit": "c"}})], gold).f1 == 0.0


def test_omittable_gold_argument():
    gold = [("weather", {"city": "Paris", "unit": Omittable("celsius")})]
    assert ToolCallMetric()([("weather", {"city": "Paris"})], gold).f1 == 1.0
    assert ToolCallMetric()([("weather", {"city": "Paris", "unit": "celsius"})], gold).f1 == 1.0
    assert ToolCallMetric()([("weather", {"city": "Paris", "unit": "kelvin"})], gold).f1 == 0.0
    only_absent = [("weather", {"city": "Paris", "unit": OMITTABLE})]
    assert ToolCallMetric()([("weather", {"city": "Paris"})], only_absent).f1 == 1.0
    assert ToolCallMetric()([("weather", {"city": "Paris", "unit": "c"})], only_absent).f1 == 0.0


# ---------------------------------------------------------------- levels and weights


def test_arg_level_accounting_follows_the_contract():
    gold = [("book", {"flight": "LH1", "seat": "1A", "meal": "veg"})]
    pred = [("book", {"flight": "LH1", "seat": "2B", "pet": "cat"})]
    score = ToolCallMetric(level="arg")(pred, gold)
    # name TP + flight TP; seat FP+FN; meal FN; pet FP
    assert counts(score) == (2, 2, 2)
    reasons = sorted((u.kind, u.reason, u.arg) for u in score.explanation.errors())
    assert reasons == [
        ("fn", "missing_arg", "meal"),
        ("fn", "wrong_value", "seat"),
        ("fp", "hallucinated_arg", "pet"),
        ("fp", "wrong_value", "seat"),
    ]


def test_arg_level_unmatched_calls_count_every_unit():
    score = ToolCallMetric(level="arg")([("x", {"a": 1, "b": 2})], [("y", {"c": 3})])
    assert counts(score) == (0, 3, 2)


def test_call_level_inexact_pair_is_fp_and_fn_with_reason():
    score = ToolCallMetric()([("t", {"a": 1})], [("t", {"a": 2})])
    assert counts(score) == (0, 1, 1)
    units = score.explanation.errors()
    assert {u.reason for u in units} == {"inexact_call"} and "a: wrong_value" in units[0].detail


GRAMMAR = GraphGrammar(
    "travel", 2,
    tools=(
        ToolSpec("cancel_booking", (
            FieldSpec("booking_id", STR, importance=5, compare=ComparePolicy("exact")),
            FieldSpec("reason", STR, required=False, compare=ComparePolicy("ignore")),
        ), weight=10),
        ToolSpec("search", (
            FieldSpec("origin", STR, importance=2),
            FieldSpec("passengers", INT, required=False, default=1),
            FieldSpec("ratio", FLOAT, required=False),
            FieldSpec("names", ListType(STR), required=False, compare=ComparePolicy("unordered")),
            FieldSpec("y", FLOAT, required=False, compare=ComparePolicy("tol", 0.001)),
        )),
    ),
)


def test_grammar_weights_and_importance():
    m = ToolCallMetric(level="arg", grammar=GRAMMAR, validate=False)
    score = m([("cancel_booking", {"booking_id": "ab12"})], [("cancel_booking", {"booking_id": "AB12"})])
    # exact compare: wrong value costs w*i = 10*5 both ways, the name unit is a TP of weight 10
    assert counts(score) == (10, 50, 50)
    call = ToolCallMetric(grammar=GRAMMAR, validate=False)
    assert counts(call([("delete_all", {})], [("cancel_booking", {"booking_id": "X"})])) == (0, 1, 10)
    unknown = call([("delete_all", {})], []).explanation.units[0]
    assert unknown.reason == "unknown_tool" and unknown.weight == 1


def test_grammar_ignore_policy_is_never_scored():
    m = ToolCallMetric(level="arg", grammar=GRAMMAR, validate=False)
    score = m([("cancel_booking", {"booking_id": "X", "reason": "meh"})],
              [("cancel_booking", {"booking_id": "X", "reason": "changed plans"})])
    assert counts(score) == (60, 0, 0)


def test_grammar_defaults_equal_omitted_arguments():
    m = ToolCallMetric(grammar=GRAMMAR, validate=False)
    assert m([("search", {"origin": "BER"})], [("search", {"origin": "BER", "passengers": 1})]).f1 == 1.0
    assert m([("search", {"origin": "BER", "passengers": 1})], [("search", {"origin": "BER"})]).f1 == 1.0
    assert m([("search", {"origin": "BER", "passengers": 2})], [("search", {"origin": "BER"})]).f1 == 0.0


def test_grammar_numbers_unordered_and_tolerance():
    m = ToolCallMetric(grammar=GRAMMAR, validate=False)
    g = [("search", {"origin": "BER", "ratio": 1.0, "names": ["Ann", "Bo"], "y": 4.0})]
    assert m([("search", {"origin": "BER", "ratio": 1, "names": ["bo", "ann"], "y": 4.0004})], g).f1 == 1.0
    assert m([("search", {"origin": "BER", "ratio": 1.0, "names": ["Ann", "Bo"], "y": 4.01})], g).f1 == 0.0
    assert m([("search", {"origin": "BER", "passengers": 1.0})], [("search", {"origin": "BER"})]).f1 == 0.0


def test_hallucinated_argument_outside_schema_costs_its_weight():
    m = ToolCallMetric(level="arg", grammar=GRAMMAR, validate=False)
    score = m([("search", {"origin": "BER", "sudo": True})], [("search", {"origin": "BER"})])
    assert counts(score) == (3, 1, 0)


# ---------------------------------------------------------------- greedy vs optimal


def test_greedy_and_optimal_agree_on_common_cases():
    cases = [
        ([("a", {"x": 1}), ("b", {"y": 2})], [("b", {"y": 2}), ("a", {"x": 1})]),  # distinct, reordered
        ([("s", {"q": "c"})] * 3, [("s", {"q": "c"})] * 2),  # repeats
        ([("s", {"q": "a"}), ("s", {"q": "b"}), ("s", {"q": "c"})],
         [("s", {"q": "c"}), ("s", {"q": "a"}), ("s", {"q": "b"})]),
    ]
    for level in ("call", "arg"):
        for pred, gold in cases:
            greedy = ToolCallMetric(level)(pred, gold)
            optimal = ToolCallMetric(level, optimal=True)(pred, gold)
            assert counts(greedy) == counts(optimal)


def test_constructed_case_where_optimal_beats_greedy():
    g1, g2 = {"a": 1, "b": 1, "c": 1, "d": 1}, {"a": 1, "b": 1, "c": 2, "d": 2}
    p1, p2 = {"a": 1, "b": 1, "c": 1, "d": 0}, {"a": 3, "b": 3, "c": 1, "d": 1}
    pred, gold = [("f", p1), ("f", p2)], [("f", g1), ("f", g2)]
    greedy_pairs, _, _ = match_calls(pred, gold)
    optimal_pairs, _, _ = match_calls(pred, gold, optimal=True)
    assert sorted(greedy_pairs, key=repr) == sorted([(pred[0], gold[0]), (pred[1], gold[1])], key=repr)
    assert sorted(optimal_pairs, key=repr) == sorted([(pred[0], gold[1]), (pred[1], gold[0])], key=repr)
    greedy = ToolCallMetric("arg")(pred, gold)
    optimal = ToolCallMetric("arg", optimal=True)(pred, gold)
    assert greedy.tp == 2 + 3 and optimal.tp == 2 + 4


# ---------------------------------------------------------------- bad input


@pytest.mark.parametrize(
    "pred, message",
    [
        ([42], r"pred call #0: expected a Step, a \(name, args\) tuple or a tool-call dict, got int"),
        ([("s", ["q"])], r"pred call #0 's': args must be a mapping"),
        ([("s", {"q": 1}), ("t", "x=1")], r"pred call #1 't': args must be a mapping"),
        (Step("s", {}), "expected a list of calls, got a single Step"),
        (7, "expected a list of calls, got int"),
    ],
)
def test_bad_calls_name_the_offender(pred, message):
    with pytest.raises(TypeError, match=message):
        ToolCallMetric()(pred, [("s", {"q": 1})])


def test_bad_gold_names_the_offender():
    with pytest.raises(TypeError, match=r"gold call #1"):
        ToolCallMetric()([], [("s", {}), None])
    with pytest.raises(TypeError, match="args must be a mapping"):
        Step("s", [1])


def test_unknown_level_is_rejected():
    with pytest.raises(ValueError, match="level must be one of"):
        ToolCallMetric(level="token")


# ---------------------------------------------------------------- explanations


def test_every_fp_fn_unit_has_a_reason_and_values():
    pred = [("search", {"q": "dogs"}), ("search", {"q": "x"}), ("rm", {})]
    gold = [("search", {"q": "cats"}), ("answer", {"a": "meow"})]
    score = ToolCallMetric(level="arg")(pred, gold)
    exp = score.explanation
    assert len(exp.pairs) == 1 and exp.unmatched_gold == (1,)
    by_reason = {u.reason for u in exp.errors()}
    assert by_reason == {"wrong_value", "extra_call", "wrong_tool", "missing_call"}
    wrong = [u for u in exp.errors() if u.reason == "wrong_value"]
    assert all(u.expected == "cats" and u.got in ("dogs", "x") for u in wrong)
    assert "expected 'cats', got" in str(exp)
    assert sum(u.weight for u in exp.units if u.kind == "fp") == score.fp


def test_absurdly_nested_values_are_a_clear_error_not_a_crash():
    from ek import evaluate

    deep: list = []
    for _ in range(50_000):
        deep = [deep]
    with pytest.raises(ValueError, match="nested too deeply"):
        ToolCallMetric("arg")([("a", {"x": deep})], [("a", {"x": deep})])
    with pytest.raises(ValueError, match="nested too deeply"):
        match_calls([("a", {"x": deep}), ("a", {"x": 1})], [("a", {"x": deep})], optimal=True)
    report = evaluate(ToolCallMetric(), [([("a", {"x": deep})], [("a", {"x": [1]})]), ([], [])])
    assert report.episodes == 1 and "nested too deeply" in report.errors[0].reason


def test_greedy_never_loses_an_exact_pair_to_another_exact_pair():
    # Best-first alone would pair pred #0 with gold #0 and leave pred #1 with no exact partner;
    # BFCL's parallel checker accepts any valid assignment, and so must the default matcher.
    pred = [("f", {"x": "a"}), ("f", {"x": "b"})]
    gold = [("f", {"x": OneOf("a", "b")}), ("f", {"x": OneOf("a", "c")})]
    pairs, up, ug = match_calls(pred, gold)
    assert sorted(pairs, key=repr) == sorted([(pred[0], gold[1]), (pred[1], gold[0])], key=repr)
    assert ToolCallMetric()(pred, gold).f1 == 1.0
    assert ToolCallMetric()(list(reversed(pred)), gold).f1 == 1.0


def test_argument_outside_the_schema_is_wrong_even_when_gold_lists_it():
    # BFCL's own answers sometimes list an argument the function does not declare (parallel_multiple_12).
    m = ToolCallMetric("arg", grammar=GRAMMAR)
    score = m([("search", {"origin": "BER", "permeability": 0.1})],
              [("search", {"origin": "BER", "permeability": OneOf(0.1, OMITTABLE)})])
    bad = [u for u in score.explanation.errors() if u.arg == "permeability"]
    assert {(u.kind, u.reason) for u in bad} == {("fp", "invalid_value"), ("fn", "invalid_value")}
    assert bad[0].detail == "$.permeability: unknown argument"


def test_decoded_model_output_lists_are_read_like_raw_output():
    gold = [Step("f", {"x": 1})]
    anthropic = [{"type": "text", "text": "Sure."}, {"type": "tool_use", "id": "t1", "name": "f", "input": {"x": 1}}]
    assert ToolCallMetric()(anthropic, gold).f1 == 1.0
    assert ToolCallMetric(format="bfcl")([{"f": {"x": 1}}], gold).f1 == 1.0  # BFCL shape: named, never guessed
    assert ToolCallMetric()([{"name": "f", "arguments": '{"x": 1}'}], gold).f1 == 1.0
    broken = ToolCallMetric()([{"no": "call here"}], gold)
    assert broken.f1 == 0.0 and broken.explanation.parse_error
    with pytest.raises(TypeError, match="pred call #1"):
        ToolCallMetric()([("f", {"x": 1}), {"x": 1}, 3], gold)  # mixed structured input stays strict


def test_abstention_reasons_spurious_call_and_missed_call():
    """Gold [] and no call is exact; a call where gold is [] is spurious_call; no call at all where gold
    wants some is missed_call (missing_call stays for a gold call left out beside other calls)."""
    metric = ToolCallMetric()
    right = metric("I cannot help with that.", [])
    assert (right.tp, right.fp, right.fn, right.f1) == (0, 0, 0, 1.0)
    spurious = metric("[get_weather(city='Paris')]", [])
    assert [(u.kind, u.reason) for u in spurious.explanation.units] == [("fp", "spurious_call")]
    missed = metric("Sorry, no.", [("get_weather", {"city": "Paris"})])
    assert [(u.kind, u.reason) for u in missed.explanation.units] == [("fn", "missed_call")]
    partial = metric("[f(x=1)]", [("f", {"x": 1}), ("g", {})])
    assert sorted(u.reason for u in partial.explanation.units) == ["match", "missing_call"]
