"""The metric's fast paths for wrong outputs count what the general path counts (ek.scorer.metric)."""

from hypothesis import given, settings
from hypothesis import strategies as st

from ek.calls import Step
from ek.canon import bfcl, fold
from ek.grammar.model import FieldSpec, GraphGrammar, PrimitiveType, ToolSpec
from ek.scorer.accounting import ABSENT, Score, one_pair_parts, tally_pair_rows, tally_unit_rows
from ek.scorer.exact import _counted, _same_counted
from ek.scorer.metric import ToolCallMetric, _count_pair, _PairEval, coerce_calls
from ek.values import OMITTABLE

GRAMMAR = GraphGrammar("fast", 1, tools=(
    ToolSpec("s", (
        FieldSpec("x", PrimitiveType("int"), importance=3),
        FieldSpec("y", PrimitiveType("str"), required=False, default="a"),
        FieldSpec("q", PrimitiveType("float"), required=False, importance=0.3),
    ), weight=2),
    ToolSpec("t", (FieldSpec("x", PrimitiveType("int")),), weight=0.7),
))

STATUSES = ["match", "wrong_value", "invalid_value", "missing_arg", "hallucinated_arg", "ignored"]
rows = st.lists(st.tuples(st.sampled_from(["a", "b", "c"]), st.sampled_from(STATUSES + ["match", "match"]),
                          st.sampled_from([1.0, 1.0, 0.3, 2.5, 0.0, 1]), st.sampled_from([ABSENT, 1, "x"]),
                          st.sampled_from([ABSENT, 2]), st.just("")), max_size=7)


def _general(metric, pred, gold):
    """The general path's score of the same episode (every fast path skipped)."""
    ctx = metric._ctx
    # a null for an optional argument is left out as the calls are read, before any path (without_nulls)
    p, g = ctx.without_nulls(coerce_calls(pred, "pred")), ctx.without_nulls(coerce_calls(gold, "gold"))
    return metric._score_paired(p, g, ctx, [ctx.violations(s) for s in p], None)


def _same(fast, general):
    assert fast.exact_counts == general.exact_counts
    assert dict(fast.tally) == dict(general.tally)
    assert fast.explanation.failed_checks() == general.explanation.failed_checks()
    assert fast.explanation.to_dict() == general.explanation.to_dict()


@settings(max_examples=300, deadline=None)
@given(rows, st.sampled_from(["arg", "call"]), st.sampled_from([1.0, 2.0, 0.7, 0.1, 1e-300]))
def test_a_pair_is_counted_as_its_unit_rows_count(checks, level, weight):
    """_count_pair against ToolCallMetric._pair_units then tally_unit_rows: the same tally, the same verdict."""
    metric = ToolCallMetric(level, grammar=GRAMMAR)
    exact = all(row[1] in ("match", "ignored") for row in checks)
    units: list = []
    metric._ctx._weights["s"] = weight
    metric._pair_units(units, "s", 0, 0, _PairEval(exact, 1.0, tuple(checks)), metric._ctx)
    expected: dict = {}
    tally_unit_rows(units, expected)
    tally: dict = {}
    assert _count_pair(tally, "s", weight, checks, level) is exact
    fast, general = Score.from_exact_tally(tally, None), Score.from_exact_tally(expected, None)
    assert fast == general
    assert [(key, type(w), w, n) for key, (w, n) in fast.tally.items()] == \
        [(key, type(w), w, n) for key, (w, n) in general.tally.items()]
    assert [type(n) for n in fast.exact_counts] == [type(n) for n in general.exact_counts]


@settings(max_examples=500, deadline=None)
@given(rows, st.sampled_from([1.0, 2.0, 0.7, 0.5, 0.25, 0.1, 1e-300, 3]), st.sampled_from(["s", "t"]))
def test_one_pair_is_counted_into_its_score_as_the_tally_counts_it(checks, weight, tool):
    """one_pair_parts against tally_pair_rows into an empty tally then Score.from_exact_tally: the same counts,
    the same tally (keys in the same order, weights of the same types), the same verdict; or None."""
    parts = one_pair_parts(checks, tool, weight)
    tally: dict = {}
    exact = tally_pair_rows(checks, tool, weight, tally)
    general = Score.from_exact_tally(tally, None)
    counted_apart = [row for row in checks if row[1] != "ignored" and not (row[1] == "match" and row[2] == 1.0)]
    if parts is None:
        assert len(counted_apart) > 1 or (counted_apart and counted_apart[0][1] == "match")
        return
    tp, fp, fn, frozen, verdict = parts
    fast = Score.of_exact_parts(tp, fp, fn, frozen, None)
    assert verdict is exact
    assert fast == general
    assert [(key, type(w), w, type(n), n) for key, (w, n) in fast.tally.items()] == \
        [(key, type(w), w, type(n), n) for key, (w, n) in general.tally.items()]
    assert [(type(n), n) for n in fast.exact_counts] == [(type(n), n) for n in general.exact_counts]


def test_an_invalid_value_for_an_argument_gold_leaves_out_is_only_an_fp():
    """The one status whose units depend on the expected value (invalid_value with nothing expected)."""
    metric = ToolCallMetric("arg", grammar=GRAMMAR, canonicalizer=fold)
    pred, gold = [Step("s", {"x": 1, "q": "not a float"})], [Step("s", {"x": 2})]
    score = metric(pred, gold)
    _same(score, _general(metric, pred, gold))
    assert ("fp", "s", "invalid_value") in score.tally and ("fn", "s", "invalid_value") not in score.tally


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["s", "t", "u"]),
                          st.dictionaries(st.sampled_from(["x", "y", "q", "v"]),
                                          st.sampled_from([1, 2, 1.5, "a", "b", True, None]), max_size=3)),
                max_size=3),
       st.lists(st.tuples(st.sampled_from(["s", "t"]),
                          st.dictionaries(st.sampled_from(["x", "y", "q"]), st.sampled_from([1, 2, 1.5, "a"]),
                                          max_size=3)), max_size=3),
       st.sampled_from(["arg", "call"]), st.sampled_from([fold, bfcl]), st.booleans())
def test_wrong_outputs_score_as_the_general_path(pred, gold, level, canon, prepared):
    metric = ToolCallMetric(level, grammar=GRAMMAR, canonicalizer=canon, order="any")
    fast = metric(pred, metric.prepare(gold) if prepared else gold)
    _same(fast, _general(metric, pred, gold))


bfcl_values = st.one_of(st.integers(-2, 2), st.sampled_from(["a", "b", 1.5, float("nan"), None, True, 10 ** 5000]),
                        st.lists(st.sampled_from([1, "a", (1, 2)]), max_size=2), st.just({"k": [1]}))
bfcl_items = st.one_of(
    st.dictionaries(st.sampled_from(["s", "t", "", "u"]),
                    st.one_of(st.dictionaries(st.sampled_from(["x", "y", "q"]), bfcl_values, max_size=3),
                              st.sampled_from(['{"x": 1}', None, 3])), max_size=2),
    st.sampled_from(["text", 1, None, ("s", {"x": 1})]))


@settings(max_examples=400, deadline=None)
@given(st.lists(bfcl_items, max_size=3), st.booleans(), st.sampled_from([None, "bfcl", "json"]))
def test_a_decoded_bfcl_list_scores_as_read_by_parse_calls(output, prepared, format):
    """ToolCallMetric.__call__ asks read_plain_bfcl first for a list in format bfcl: the score of what the metric
    reads without it (_is_decoded_output, then _read, or coerce_calls), including the parse error."""
    from ek.parsing import ParseError
    from ek.scorer.metric import _is_decoded_output

    metric = ToolCallMetric("arg", grammar=GRAMMAR, canonicalizer=bfcl, format="bfcl")
    gold = [Step("s", {"x": 1}), Step("t", {"x": 2})]
    ctx = metric._ctx
    parse_error, cut_short = None, False
    try:
        if _is_decoded_output(output):
            try:
                steps = metric._read(output, ctx, format)
            except ParseError as exc:
                steps, parse_error, cut_short = (), str(exc), exc.cut_short
        else:
            steps = coerce_calls(output, "pred")
    except (TypeError, ValueError) as exc:  # not calls at all (or not even shown): the same error either way
        try:
            metric(output, gold, format=format)
        except type(exc) as again:
            assert str(again) == str(exc)
            return
        raise AssertionError("read without an error") from exc
    expected = metric._score_paired(steps, tuple(gold), ctx, [ctx.violations(s) for s in steps], parse_error,
                                    cut_short)
    _same(metric(output, metric.prepare(gold) if prepared else gold, format=format), expected)


def test_an_output_with_no_call_against_a_prepared_gold_scores_as_the_general_path():
    """_score_no_call reads the score from the prepared gold's plan: the same as counting it."""
    metric = ToolCallMetric("arg", grammar=GRAMMAR, canonicalizer=bfcl)
    gold = [Step("s", {"x": 1, "q": 2.0}), Step("t", {"x": 3}), Step("s", {"x": 2})]
    prepared = metric.prepare(gold)
    for output in ([], "[]", "no call here"):
        score = metric(output, prepared)
        _same(score, _general(metric, [], gold))
        assert set(score.tally) == {("fn", "s", "missed_call"), ("fn", "t", "missed_call")}
        assert score.explanation.unmatched_gold == (0, 1, 2)


args_with_omittable = st.dictionaries(st.sampled_from(["x", "y", "z"]), st.sampled_from([1, "a", OMITTABLE]),
                                      max_size=3)


@settings(max_examples=300, deadline=None)
@given(args_with_omittable, args_with_omittable)
def test_rivals_count_the_same_as_their_counted_arguments_say(a, b):
    """exact._same_counted (a repeated call's rivals left over count the same) is _counted's comparison."""
    assert _same_counted(a, b) == (_counted(a) == _counted(b))


@settings(max_examples=300, deadline=None)
@given(st.sampled_from(["s", "t"]),
       st.dictionaries(st.sampled_from(["x", "y", "q", "v"]), st.sampled_from([1, 2, 1.5, "a", "b", True, None]),
                       max_size=3),
       st.dictionaries(st.sampled_from(["x", "y", "q"]), st.sampled_from([1, 2, 1.5, "a"]), max_size=3),
       st.sampled_from([fold, bfcl]), st.booleans())
def test_one_pairs_explanation_is_the_general_paths(tool, pred_args, gold_args, canon, prepared):
    """A cover of one pair builds its explanation from the comparison it made (_score_cover's one_pair), not by
    pairing and comparing again: the general path's explanation, field for field."""
    metric = ToolCallMetric("arg", grammar=GRAMMAR, canonicalizer=canon, order="any")
    pred, gold = [(tool, pred_args)], [(tool, gold_args)]
    fast, general = metric(pred, metric.prepare(gold) if prepared else gold), _general(metric, pred, gold)
    _same(fast, general)
    assert fast.explanation == general.explanation and str(fast.explanation) == str(general.explanation)


def test_calls_already_read_as_a_tuple_skip_the_mapping_check(monkeypatch) -> None:
    """A tuple of calls (what ``ek score`` hands over for BFCL's saved calls) is scored as coerce_calls reads it,
    the score a list of the same calls gets, without asking whether it is a Mapping (an ABC check in Python)."""
    import ek.scorer.metric as metric_module

    asked = []

    class Counting(type):
        def __instancecheck__(cls, obj):
            asked.append(type(obj))
            return False

    monkeypatch.setattr(metric_module, "Mapping", Counting("Mapping", (), {}))
    metric = ToolCallMetric("arg")
    pred = (Step("f", {"x": 1}), Step("g", {"y": "a"}))
    gold = [Step("f", {"x": 1}), Step("g", {"y": "b"})]
    assert metric(pred, gold) == metric(list(pred), gold)
    assert metric(pred, gold).f1 == metric(list(pred), gold).f1 < 1
    assert tuple not in asked
