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
    """Every entry of BFCL v4 and its derived outputs (ek.bfcl.variants), and each value of its first right
    output changed at every depth (:func:`_depth_variants`): 27 disagreed before BFCL mode followed BFCL on
    required arguments and defaults (e.g. simple_python_200, live_simple_124-80-0), and 60 of the 12,725 depth
    variants of the eight categories before it judged values by BFCL's rules for their depth (simple_python_122,
    multiple_5, parallel_multiple_21, live_simple_42-17-2, live_multiple_63-25-0, ...)."""
    import importlib.util
    import random

    from ek.bfcl.variants import correct_output, variants

    spec = importlib.util.find_spec("bfcl_eval")
    assert spec is not None and spec.origin is not None
    rng = random.Random(category)
    disagreements = []
    for e in load_category(Path(spec.origin).parent / "data" / f"BFCL_v4_{category}.json"):
        metric = ToolCallMetric(canonicalizer="bfcl", format="bfcl", grammar=e.grammar(), validate=False)
        gold = e.gold()
        derived = [*variants(e.functions, e.ground_truth, category, rng),
                   *_depth_variants(correct_output(e.ground_truth, rng, first=True))]
        for label, output in derived:
            verdict = check(e.functions, output, e.ground_truth, category)
            if (metric(output, gold).f1 == 1.0) is not verdict.valid:
                disagreements.append((e.id, label, verdict.error_type))
    assert disagreements == []


def _depth_variants(output):
    """``output`` with one value changed, at every depth of every argument, in each way BFCL's rules tell apart
    by depth: a string upper-cased or given a trailing tab (standardised at the first level, compared as written
    deeper and for a "variable"), an int as a float and an integral float as an int (converted or type-checked at
    the first level, ``==`` deeper), a bool as an int (``True`` is never ``1`` where ek compares a scalar)."""
    for c, call in enumerate(output):
        ((name, args),) = call.items()
        for param, value in args.items():
            for path, changed in _changed(value, ()):
                mutated = json.loads(json.dumps(output))
                mutated[c][name][param] = changed
                yield f"depth:{c}:{param}{''.join(f'[{step!r}]' for step in path)}", mutated


def _changed(value, path):
    """Every ``(path, the whole value with one leaf changed)`` of ``value``."""
    if isinstance(value, dict):
        for key, item in value.items():
            for where, changed in _changed(item, (*path, key)):
                yield where, {**value, key: changed}
    elif isinstance(value, list):
        for i, item in enumerate(value):
            for where, changed in _changed(item, (*path, i)):
                yield where, [*value[:i], changed, *value[i + 1:]]
    elif isinstance(value, bool):
        yield path, int(value)
    elif isinstance(value, int):
        yield path, float(value)
    elif isinstance(value, float):
        if value.is_integer():
            yield path, int(value)
    elif isinstance(value, str):
        if value.upper() != value:
            yield path, value.upper()
        yield path, value + "\t"


# ---------------------------------------------------------------- values judged by their depth, as BFCL judges them
#
# BFCL type-checks and standardises a value at its first level only (a string, a list's items, a dict's values) and
# compares anything deeper by Python's ==; a "variable" (an answer of another type than the declared one) is
# compared as written. The metric's BFCL mode asks check's own rules (ek.bfclvalues). Each case: the real entry's
# shape it was found on (docs/bfcl.md), and whether BFCL accepts the value.

DEPTH = [{"name": "f", "description": "d", "parameters": {"type": "dict", "required": [], "properties": {
    "area": {"type": "dict", "properties": {"width": {"type": "integer"}, "height": {"type": "integer"}}},
    "table": {"type": "array", "items": {"type": "array"}},
    "rooms": {"type": "string", "enum": ["1", "2", "dontcare"]},
    "date": {"type": "string"},
    "x": {"type": "array", "items": {"type": "float"}},
    "cards": {"type": "dict", "properties": {"Alex": {"type": "array", "items": {"type": "string"}}}},
    "n": {"type": "integer"},
    "ratio": {"type": "float"}}}}]


@pytest.mark.parametrize(("args", "answer", "valid"), [
    # simple_python_260: 20.0 for 20 inside a dict value (==, no type check there)
    ({"area": {"width": 20.0, "height": 12}}, {"area": [{"width": [20], "height": [12]}]}, True),
    # simple_python_122: 10.0 for 10 in a list inside a list
    ({"table": [[10.0, 20], [30, 40]]}, {"table": [[[10, 20], [30, 40]]]}, True),
    # live_multiple_595-158-1: 2.0 where the answer is the int 2 for a string parameter (neither type)
    ({"rooms": 2.0}, {"rooms": [2]}, False),
    ({"rooms": 2}, {"rooms": [2]}, True),
    # multiple_5: a tab is not in BFCL's standardisation (nor parsed as a date)
    ({"date": "2019-12-13\t"}, {"date": ["2019-12-13"]}, False),
    ({"date": "2019/12/13"}, {"date": ["2019-12-13"]}, True),
    # parallel_multiple_21: a variable (a string for an array) is compared as written
    ({"x": "Data['Sales']"}, {"x": ["data['sales']"]}, False),
    ({"x": "data['sales']"}, {"x": ["data['sales']"]}, True),
    # simple_python_337: a string in a list inside a dict value is compared as written
    ({"cards": {"Alex": ["A OF SPADES"]}}, {"cards": [{"Alex": [["A of spades"]]}]}, False),
    ({"cards": {"Alex": ["A of spades"]}}, {"cards": [{"Alex": [["A of spades"]]}]}, True),
    # the first level is standardised: a dict value, a list item
    ({"cards": {"Alex": "a-of-SPADES"}}, {"cards": [{"Alex": ["A of spades"]}]}, True),
    ({"x": [1, 2.5]}, {"x": [[1.0, 2.5]]}, True),  # an int for a float item: ek's difference 2 (BFCL: nested)
    ({"n": 2.0}, {"n": [2]}, False),
    ({"n": 2.0}, {"n": [2.0]}, True),               # an answer of another type: a variable, `in`
    ({"ratio": 2}, {"ratio": [2.0]}, True),
])
def test_bfcl_mode_judges_each_value_by_its_depth_as_check_does(args, answer, valid):
    truth = [{"f": answer}]
    output = [{"f": args}]
    metric = ToolCallMetric("arg", canonicalizer="bfcl", format="bfcl", grammar=to_grammar(DEPTH).grammar,
                            validate=False)
    assert check(DEPTH, output, truth, "simple_python").valid is valid
    assert (metric(output, gold_calls(truth)).f1 == 1.0) is valid
    if ORACLE is not None and not (args.get("x") == [1, 2.5]):  # (int for float in a list: difference 2)
        assert ORACLE(json.loads(json.dumps(DEPTH)), output, truth, "simple_python")["valid"] is valid


@pytest.mark.skipif(ORACLE is None, reason="bfcl-eval is not installed (pip install --no-deps bfcl-eval)")
@pytest.mark.parametrize(("category", "entry_id", "output"), [
    ("simple_python", "simple_python_260", [{"paint_requirement.calculate": {"area": {"width": 20.0, "height": 12},
                                             "paint_coverage": 350, "exclusion": {"type": "window", "area": 15}}}]),
    ("simple_python", "simple_python_122", [{"chi_squared_test": {"table": [[10.0, 20], [30, 40]], "alpha": 0.05}}]),
    ("live_multiple", "live_multiple_595-158-1", [{"Hotels_4_SearchHotel": {
        "location": "New York, NY", "star_rating": "3", "smoking_allowed": True, "number_of_rooms": 2.0}}]),
    ("multiple", "multiple_5", [{"weather.get_by_coordinates_date": {"coordinates": [46.603354, 1.888334],
                                                                      "date": "2019-12-13\t"}}]),
    ("simple_python", "simple_python_337", [{"poker_game_winner": {
        "players": ["Alex", "Sam", "Robert", "Steve"],
        "cards": {"Alex": ["A OF SPADES", "K of spades"], "Sam": ["2 of diamonds", "3 of clubs"],
                  "Robert": ["Q of hearts", "10 of hearts"], "Steve": ["4 of spades", "5 of spades"]},
        "type": "Texas Holdem"}}]),
    ("parallel_multiple", "parallel_multiple_21", [{"data_loading": {"file_path": "dataset.csv"}}, {
        "linear_regression_fit": {"x": "Data['Sales']", "y": "data['future_sales']", "return_residuals": True}}]),
])
def test_bfcl_mode_is_exactly_check_on_the_real_entries_the_audit_found(category, entry_id, output):
    import importlib.util

    spec = importlib.util.find_spec("bfcl_eval")
    e = next(e for e in load_category(Path(spec.origin).parent / "data" / f"BFCL_v4_{category}.json")
             if e.id == entry_id)
    metric = ToolCallMetric("arg", canonicalizer="bfcl", format="bfcl", grammar=e.grammar(), validate=False)
    verdict = check(e.functions, output, e.ground_truth, category)
    assert (metric(output, e.gold()).f1 == 1.0) is verdict.valid
    assert ORACLE(json.loads(json.dumps(e.functions)), output, json.loads(json.dumps(e.ground_truth)),
                  category)["valid"] is verdict.valid
