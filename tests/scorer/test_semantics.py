"""The documented value rules, held exactly: symmetric defaults, bare OMITTABLE, exact tolerances.

Each test is one rule of docs/scoring.md; the BFCL-mode rules are in test_bfcl_consistency.py.
"""

import math

import pytest

from ek import OMITTABLE, Omittable, OneOf
from ek.agents.toolcalls import ToolCallMetric
from ek.canon import fold
from ek.grammar import parse

SCHEMA = parse("""grammar sem 1
tool search {
    origin: str
    passengers: int = 1 importance 2
    note: str?
}
tool move {
    dx: float compare tol(0.1)
    dy: float compare tol(0.5)
}
""")


def units(score):
    """Every unit as plain data, without the indexes (they differ between the cases compared)."""
    return sorted(((u.kind, u.reason, u.weight, u.tool, u.arg, repr(u.expected), repr(u.got))
                   for u in score.explanation.units), key=repr)


def run(level, pred_args, gold_args, tool="search"):
    return ToolCallMetric(level, grammar=SCHEMA)([(tool, pred_args)], [(tool, gold_args)])


# ---------------------------------------------------------------- defaults are symmetric


@pytest.mark.parametrize("level", ["call", "arg"])
def test_omitting_an_argument_whose_default_is_wrong_is_the_same_error_as_giving_that_value(level):
    gold = {"origin": "BER", "passengers": 2}
    omitted = run(level, {"origin": "BER"}, gold)
    explicit = run(level, {"origin": "BER", "passengers": 1}, gold)
    assert units(omitted) == units(explicit)
    assert (omitted.tp, omitted.fp, omitted.fn) == ((0, 1, 1) if level == "call" else (2, 2, 2))
    wrong = [u for u in omitted.explanation.errors() if u.arg == "passengers"]
    if level == "arg":  # the same reason, expected and got; the detail says the value came from the default
        assert {(u.kind, u.reason, u.expected, u.got) for u in wrong} == {("fp", "wrong_value", 2, 1),
                                                                         ("fn", "wrong_value", 2, 1)}
        assert {u.detail for u in wrong} == {"the prediction omits it: its default applies"}
    else:
        assert {u.detail for u in omitted.explanation.errors()} == {"passengers: wrong_value"}


@pytest.mark.parametrize("level", ["call", "arg"])
@pytest.mark.parametrize(("pred_args", "gold_args"), [
    ({"origin": "BER", "note": None}, {"origin": "BER"}),             # OpenAI strict mode's null: left out
    ({"origin": "BER", "passengers": None}, {"origin": "BER"}),       # left out, so the default applies
    ({"origin": "BER"}, {"origin": "BER", "note": None}),             # a gold null is an omission too
    ({"origin": "BER", "note": None}, {"origin": "BER", "note": None}),
])
def test_a_null_for_an_optional_argument_is_scored_as_left_out(level, pred_args, gold_args):
    """The grammar reads null for an optional argument as not given (its validator, its generated classes,
    ek import of a strict tool): so does the scorer, on both sides; it was a hallucinated or a wrong value."""
    score = run(level, pred_args, gold_args)
    assert score.f1 == 1.0 and units(score) == units(run(level, {"origin": "BER"}, {"origin": "BER"}))
    prepared = ToolCallMetric(level, grammar=SCHEMA)
    assert units(prepared([("search", pred_args)], prepared.prepare([("search", gold_args)]))) == units(score)


@pytest.mark.parametrize("level", ["call", "arg"])
def test_a_null_stays_a_value_where_nothing_says_the_argument_is_optional(level):
    """A required argument's null is a wrong value (the validator refuses it); without a grammar, or in BFCL
    mode (BFCL's checker takes None as a value of the wrong type), a null is a value like any other."""
    assert run(level, {"origin": None}, {"origin": "BER"}).f1 < 1.0
    for metric in (ToolCallMetric(level), ToolCallMetric(level, grammar=SCHEMA, canonicalizer="bfcl")):
        assert metric([("search", {"origin": "BER", "note": None})], [("search", {"origin": "BER"})]).f1 < 1.0


@pytest.mark.parametrize("level", ["call", "arg"])
def test_gold_omitting_an_argument_mirrors_the_prediction_omitting_it(level):
    """Swap the sides: the same units, FP and FN exchanged (wrong_value has both, so equal)."""
    pred_omits = run(level, {"origin": "BER"}, {"origin": "BER", "passengers": 2})
    gold_omits = run(level, {"origin": "BER", "passengers": 2}, {"origin": "BER"})
    assert [(k, r, w) for k, r, w, *_ in units(pred_omits)] == [(k, r, w) for k, r, w, *_ in units(gold_omits)]
    assert (pred_omits.tp, pred_omits.fp, pred_omits.fn) == (gold_omits.tp, gold_omits.fn, gold_omits.fp)
    agree_pred_omits = run(level, {"origin": "BER"}, {"origin": "BER", "passengers": 1})
    agree_gold_omits = run(level, {"origin": "BER", "passengers": 1}, {"origin": "BER"})
    assert agree_pred_omits.f1 == agree_gold_omits.f1 == 1.0
    assert units(agree_pred_omits) == units(agree_gold_omits)


def test_an_omittable_gold_value_accepts_the_default_given_explicitly():
    """Leaving the argument out means its default, so giving the default is what OMITTABLE allows."""
    for level in ("call", "arg"):
        assert run(level, {"origin": "BER", "passengers": 1}, {"origin": "BER", "passengers": Omittable(4)}).f1 == 1.0
        assert run(level, {"origin": "BER", "passengers": 3}, {"origin": "BER", "passengers": Omittable(4)}).f1 < 1.0


# ---------------------------------------------------------------- a bare OMITTABLE gold value


@pytest.mark.parametrize("level", ["call", "arg"])
@pytest.mark.parametrize("pred", [{"origin": "BER"}, {"origin": "BER", "note": "x"},
                                  {"origin": "BER", "passengers": 1}, {"origin": "BER", "passengers": 3}])
def test_a_bare_omittable_counts_exactly_as_if_gold_left_the_argument_out(level, pred):
    for arg in ("note", "passengers"):  # without a default, and with one
        marked = run(level, pred, {"origin": "BER", arg: OMITTABLE})
        left_out = run(level, pred, {"origin": "BER"})
        assert units(marked) == units(left_out), arg


def test_a_value_given_for_a_bare_omittable_is_hallucinated_not_missed():
    score = run("arg", {"origin": "BER", "note": "x"}, {"origin": "BER", "note": OMITTABLE})
    assert (score.tp, score.fp, score.fn) == (2, 1, 0)
    assert [(u.kind, u.reason, u.arg) for u in score.explanation.errors()] == [("fp", "hallucinated_arg", "note")]
    omitted = run("arg", {"origin": "BER"}, {"origin": "BER", "note": OMITTABLE})
    assert (omitted.tp, omitted.fp, omitted.fn) == (2, 0, 0)  # nothing expected, nothing given: no unit
    unmatched = ToolCallMetric("arg")([], [("search", {"origin": "BER", "note": OMITTABLE})])
    assert (unmatched.tp, unmatched.fp, unmatched.fn) == (0, 0, 2)


# ---------------------------------------------------------------- numbers


@pytest.mark.parametrize("gold, pred, agree", [
    (0.7, 0.8, True),              # 0.8 - 0.7 is 0.10000000000000009 in floats; the written decimals differ by 0.1
    (0.8, 0.7, True),
    (1.1, 1.2, True),
    (0.7, 0.8000001, False),
    (100, 100.1, True),            # an int and a float
    (0.3, 0.4, True),
    (1e16, 1e16 + 2, False),
    (math.inf, math.inf, True),
    (-math.inf, -math.inf, True),
    (math.inf, -math.inf, False),
    (math.inf, 1e308, False),
    (math.nan, math.nan, False),
    (math.nan, 0.7, False),
])
def test_tolerance_compares_the_written_decimals_exactly(gold, pred, agree):
    score = run("call", {"dx": pred, "dy": 0.0}, {"dx": gold, "dy": 0.0}, tool="move")
    assert (score.f1 == 1.0) is agree


def test_infinity_equals_infinity_and_nan_equals_nothing_without_a_tolerance():
    m = ToolCallMetric()
    assert m([("t", {"x": math.inf})], [("t", {"x": math.inf})]).f1 == 1.0
    assert m([("t", {"x": math.nan})], [("t", {"x": math.nan})]).f1 == 0.0
    assert m([("t", {"x": [math.nan]})], [("t", {"x": [math.nan]})]).f1 == 0.0
    assert m([("t", {"x": math.nan})], [("t", {"x": OneOf(math.nan, 1)})]).f1 == 0.0


# ---------------------------------------------------------------- the fold canonicalizer and Unicode


@pytest.mark.parametrize("gold, pred", [
    ("Café", "Cafe\u0301"),                  # precomposed é vs e + combining acute (NFC)
    ("Ångström", "A\u030angstro\u0308m"),
    ("NEW YORK", "ＮＥＷ\u3000ＹＯＲＫ"),        # full-width letters and the ideographic space (NFKC)
    ("file", "\ufb01le"),                    # the fi ligature
    ("25 °C", "25 ℃"),
    ("straße", "STRASSE"),                   # full case folding
    ("İstanbul", "i\u0307stanbul"),          # İ case-folds to i + combining dot above, and so does its NFD form
    ("İstanbul", "I\u0307stanbul"),
])
def test_fold_normalizes_unicode_before_comparing(gold, pred):
    assert fold(gold) == fold(pred)
    assert ToolCallMetric()([("t", {"v": pred})], [("t", {"v": gold})]).f1 == 1.0
    assert ToolCallMetric(canonicalizer="exact")([("t", {"v": pred})], [("t", {"v": gold})]).f1 == 0.0


@pytest.mark.parametrize("gold, pred", [
    ("İstanbul", "istanbul"),    # default (not Turkish) case folding keeps the dot, as fold keeps every accent
    ("İstanbul", "Istanbul"),
    ("café", "cafe"),
    ("ı", "i"),                  # dotless i stays itself
])
def test_fold_keeps_accents_and_the_dot_of_turkish_i(gold, pred):
    assert fold(gold) != fold(pred)


def test_fold_is_idempotent_and_its_result_is_nfkc():
    import unicodedata

    from hypothesis import given, settings
    from hypothesis import strategies as st

    @settings(max_examples=400, deadline=None)
    @given(st.text(st.characters(codec="utf-8"), max_size=12))
    def check(text):
        folded = fold(text)
        assert fold(folded) == folded
        assert unicodedata.is_normalized("NFKC", folded)

    check()


# ---------------------------------------------------------------- importance inside an object


def test_importance_on_an_object_field_is_refused_and_the_argument_carries_it():
    """Never parsed and ignored: the DSL reports it (tests/grammar), the importer drops it with a warning
    (tests/interop), the model refuses it; the argument holding the object weighs every mistake inside it."""
    from ek.grammar.model import FieldSpec, ObjectType, PrimitiveType

    with pytest.raises(ValueError, match="not to object field 'level'"):
        ObjectType((FieldSpec("level", PrimitiveType("int"), importance=3),))
    schema = parse("grammar obj 1\ntool t {\n    meta: {\n        level: int\n        note: str?\n    } importance 3\n"
                   "    name: str\n}\n")
    m = ToolCallMetric("arg", grammar=schema)
    gold = [("t", {"meta": {"level": 1, "note": "a"}, "name": "x"})]
    for wrong_inside in ({"level": 2, "note": "a"}, {"level": 1, "note": "b"}, {"level": 1}):
        score = m([("t", {"meta": wrong_inside, "name": "x"})], gold)
        assert (score.tp, score.fp, score.fn) == (2, 3, 3), wrong_inside  # name + `name`; `meta` wrong: 3 each way
