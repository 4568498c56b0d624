"""Order constraints in the metric: strict and gold order keep the best order-respecting pairs, the rest is out_of_order."""

from __future__ import annotations

import itertools

import pytest
from cputime import growth
from hypothesis import given, settings
from hypothesis import strategies as st

from ek.calls import GoldCall, Step, must_precede
from ek.canon import fold
from ek.scorer import metric as metric_module
from ek.scorer.accounting import FN, FP, REASONS
from ek.scorer.metric import ToolCallMetric, TooManyPairs, _Context, _evaluate, match_calls

SETTINGS = settings(max_examples=150, deadline=None)

values = st.sampled_from([0, 1, "a", "b"])
args = st.dictionaries(st.sampled_from(["x", "y"]), values, max_size=2)
calls = st.lists(st.tuples(st.sampled_from(["s", "t"]), args), max_size=4)
levels = st.sampled_from(["call", "arg"])


@st.composite
def ordered_gold(draw: st.DrawFn) -> list[Step]:
    """Gold calls with random acyclic ``after`` constraints (each only on earlier-ranked calls)."""
    plain = draw(calls)
    rank = draw(st.permutations(range(len(plain))))
    out: list[Step] = []
    for j, (name, a) in enumerate(plain):
        after = [k for k in range(len(plain)) if rank.index(k) < rank.index(j) and draw(st.booleans())]
        out.append(GoldCall(name, a, after=after) if after else Step(name, a))
    return out


def _best(pred: list[Step], gold: list[Step], respects) -> tuple[int, float]:
    """Brute force: the most exact pairs, then the most agreement, over every same-tool matching that respects order."""
    ctx = _Context(fold, None, validate=False)
    edges = [(i, j) for i, p in enumerate(pred) for j, g in enumerate(gold) if p.name == g.name]
    best = (0, 0.0)
    for size in range(1, min(len(pred), len(gold)) + 1):
        for subset in itertools.combinations(edges, size):
            if len({i for i, _ in subset}) < size or len({j for _, j in subset}) < size or not respects(subset):
                continue
            evs = [_evaluate(pred[i], gold[j], ctx, {}) for i, j in subset]
            best = max(best, (sum(e.exact for e in evs), sum(e.agreement for e in evs)))
    return best


def _kept(metric: ToolCallMetric, pred: list[Step], gold: list[Step]) -> tuple[int, float]:
    explanation = metric.explain(pred, gold)
    ctx = _Context(fold, None, validate=False)
    evs = [_evaluate(pred[p.pred_index], gold[p.gold_index], ctx, {}) for p in explanation.pairs]
    return sum(e.exact for e in evs), sum(e.agreement for e in evs)


def _steps(raw: list[tuple[str, dict]]) -> list[Step]:
    return [Step(n, a) for n, a in raw]


@SETTINGS
@given(calls, calls, levels, st.booleans())
def test_strict_keeps_the_best_common_subsequence(pred_raw, gold_raw, level, optimal):
    pred, gold = _steps(pred_raw), _steps(gold_raw)
    metric = ToolCallMetric(level, order="strict", optimal=optimal)
    pairs = [(p.pred_index, p.gold_index) for p in metric.explain(pred, gold).pairs]
    assert sorted(pairs) == sorted(pairs, key=lambda ij: ij[1])  # increasing on both sides
    best = _best(pred, gold, lambda s: all((i1 < i2) == (j1 < j2) for (i1, j1), (i2, j2) in itertools.combinations(s, 2)))
    exact, agreement = _kept(metric, pred, gold)
    assert exact == best[0] and agreement == pytest.approx(best[1])


@SETTINGS
@given(calls, ordered_gold(), levels, st.booleans())
def test_gold_order_keeps_the_best_pairs_that_respect_every_constraint(pred_raw, gold, level, optimal):
    pred = _steps(pred_raw)
    before = must_precede([getattr(g, "after", ()) for g in gold])

    def respects(subset):
        return all(not (j1 in before[j2] and i1 > i2) for (i1, j1), (i2, j2) in itertools.permutations(subset, 2))

    metric = ToolCallMetric(level, order="gold", optimal=optimal)
    explanation = metric.explain(pred, gold)
    assert respects([(p.pred_index, p.gold_index) for p in explanation.pairs])
    if optimal or any(getattr(g, "after", ()) for g in gold):  # pairs kept exactly under the order
        best = _best(pred, gold, respects)
        exact, agreement = _kept(metric, pred, gold)
        assert exact == best[0] and agreement == pytest.approx(best[1])
    else:  # no after and not optimal: the multiset's greedy, which need not be the best (see below)
        assert explanation == ToolCallMetric(level, order="any").explain(pred, gold)
    # every out-of-order pair is a same-tool pair of calls left unmatched, counted FP and FN
    for i, j in explanation.out_of_order:
        assert i in explanation.unmatched_pred and j in explanation.unmatched_gold
        assert pred[i].name == gold[j].name
    late = [u for u in explanation.units if u.reason == "out_of_order"]
    assert {u.pred_index for u in late if u.kind == FP} == {i for i, _ in explanation.out_of_order}
    assert {u.gold_index for u in late if u.kind == FN} == {j for _, j in explanation.out_of_order}


@pytest.mark.parametrize("order", ["any", "gold"])
def test_with_no_after_the_greedy_may_keep_less_agreement_than_the_optimal_assignment(order: str) -> None:
    # Hypothesis drew it: the greedy takes tied pairs by their content and has no look-ahead, so s(x=0, y=1) goes
    # to the gold s(x=0, y=0) before s(x=0), and s(y=0) is left the gold it agrees with in nothing. The optimal
    # assignment keeps one more argument (docs: the greedy is the default, optimal=True the exact answer).
    pred = [Step("s", {"x": 0, "y": 1}), Step("s", {"y": 0})]
    gold = [Step("s", {"x": 0}), Step("s", {"x": 0, "y": 0})]
    greedy = ToolCallMetric("arg", order=order).explain(pred, gold)
    optimal = ToolCallMetric("arg", order=order, optimal=True).explain(pred, gold)
    assert [(p.pred_index, p.gold_index) for p in greedy.pairs] == [(1, 0), (0, 1)]
    assert [(p.pred_index, p.gold_index) for p in optimal.pairs] == [(0, 0), (1, 1)]
    assert _kept(ToolCallMetric("arg", order=order), pred, gold) == (0, 3.0)
    assert _kept(ToolCallMetric("arg", order=order, optimal=True), pred, gold) == _best(pred, gold, lambda s: True)


@SETTINGS
@given(calls, calls, levels, st.booleans())
def test_without_after_gold_order_is_todays_multiset(pred_raw, gold_raw, level, optimal):
    pred, gold = _steps(pred_raw), _steps(gold_raw)
    any_order = ToolCallMetric(level, order="any", optimal=optimal)(pred, gold)
    default = ToolCallMetric(level, optimal=optimal)(pred, gold)
    assert default == any_order and default.explanation == any_order.explanation


@pytest.mark.slow
@SETTINGS
@given(calls, ordered_gold(), levels)
def test_any_order_ignores_after(pred_raw, gold, level):
    pred = _steps(pred_raw)
    plain = [Step(g.name, g.args) for g in gold]
    assert ToolCallMetric(level, order="any")(pred, gold) == ToolCallMetric(level, order="any")(pred, plain)


@SETTINGS
@given(calls, ordered_gold(), levels, st.sampled_from(["strict", "gold"]))
def test_order_moves_units_to_out_of_order_and_never_adds_tp(pred_raw, gold, level, order):
    pred = _steps(pred_raw)
    ordered = ToolCallMetric(level, order=order, optimal=True)(pred, gold)
    free = ToolCallMetric(level, order="any", optimal=True)(pred, gold)
    assert ordered.tp <= free.tp + 1e-9
    # every unit is still counted once per side: TP + FN covers all of gold, TP + FP all of the prediction
    assert ordered.tp + ordered.fn == pytest.approx(free.tp + free.fn)


def test_the_explanation_names_the_broken_constraint() -> None:
    gold = [Step("search_flights", {"to": "NYC"}), Step("get_weather", {"city": "NYC"}),
            GoldCall("book_flight", {"id": 7}, after=[0])]
    pred = [Step("book_flight", {"id": 7}), Step("search_flights", {"to": "NYC"}), Step("get_weather", {"city": "NYC"})]
    score = ToolCallMetric(order="strict")(pred, gold)
    assert (score.tp, score.fp, score.fn) == (2.0, 1.0, 1.0)
    assert score.by_reason() == {"out_of_order": (2.0, 2)}
    late = [u for u in score.explanation.units if u.reason == "out_of_order"]
    assert [(u.kind, u.pred_index, u.gold_index) for u in late] == [(FP, 0, None), (FN, None, 2)]
    assert late[0].detail == ("gold #2 book_flight must come after gold #0 search_flights (strict order); "
                              "predicted #0 came before predicted #1")
    gold_order = ToolCallMetric(order="gold")(pred, gold)
    assert (gold_order.tp, gold_order.fp, gold_order.fn) == (2.0, 1.0, 1.0)
    assert "must come" in gold_order.explanation.units[-1].detail
    assert ToolCallMetric(order="any")(pred, gold).f1 == 1.0
    assert "out_of_order" in REASONS


def test_repeated_calls_to_one_tool_in_the_wrong_order() -> None:
    gold = [Step("s", {"q": "a"}), GoldCall("s", {"q": "b"}, after=[0])]
    pred = [Step("s", {"q": "b"}), Step("s", {"q": "a"})]
    score = ToolCallMetric(order="gold")(pred, gold)
    assert (score.tp, score.fp, score.fn) == (1.0, 1.0, 1.0)  # one exact pair kept, the other is late
    (pair,) = score.explanation.pairs
    assert pair.exact
    (late,) = score.explanation.out_of_order
    assert score.explanation.units[-1].detail.startswith("gold #")
    # the same calls in the right order are perfect; unconstrained, the order does not matter
    assert ToolCallMetric(order="gold")(pred[::-1], gold).f1 == 1.0
    assert ToolCallMetric(order="gold")(pred, [Step(g.name, g.args) for g in gold]).f1 == 1.0


def test_a_call_made_in_both_orders_keeps_the_right_one() -> None:
    gold = [Step("search", {}), GoldCall("book", {}, after=[0])]
    pred = [Step("book", {}), Step("search", {}), Step("book", {})]
    score = ToolCallMetric(order="gold").explain(pred, gold)
    assert sorted((p.pred_index, p.gold_index) for p in score.pairs) == [(1, 0), (2, 1)]
    assert score.out_of_order == ()
    assert [u.reason for u in score.errors()] == ["extra_call"]


def test_transitive_constraints_are_honoured_and_named() -> None:
    gold = [Step("a", {}), GoldCall("b", {}, after=[0]), GoldCall("c", {}, after=[1])]
    pred = [Step("c", {}), Step("a", {})]  # b is missing, yet c still had to follow a
    explanation = ToolCallMetric(order="gold").explain(pred, gold)
    assert len(explanation.pairs) == 1 and len(explanation.out_of_order) == 1
    late = next(u for u in explanation.units if u.reason == "out_of_order")
    assert "(through other after constraints)" in late.detail


def test_unconstrained_tools_are_assigned_as_without_order() -> None:
    gold = [Step("w", {"c": "x"}), Step("w", {"c": "y"}), Step("a", {}), GoldCall("b", {}, after=[2])]
    pred = [Step("w", {"c": "y"}), Step("b", {}), Step("w", {"c": "x"}), Step("a", {})]
    explanation = ToolCallMetric(order="gold").explain(pred, gold)
    free = ToolCallMetric(order="any").explain(pred, gold)
    w_pairs = lambda e: [(p.pred_index, p.gold_index) for p in e.pairs if p.tool == "w"]  # noqa: E731
    assert w_pairs(explanation) == w_pairs(free)
    assert explanation.out_of_order in (((1, 3),), ((3, 2),))


@pytest.mark.parametrize(("gold", "message"), [
    ([Step("a", {}), GoldCall("b", {}, after=[2])], r"gold\[1\] b: after index 2 is out of range"),
    ([GoldCall("a", {}, after=[1]), GoldCall("b", {}, after=[0])], "form a cycle: gold #0 a after #1 b after #0 a"),
    ([GoldCall("a", {}, after=[0])], "cannot come after itself"),
])
def test_bad_constraints_are_clear_errors(gold, message) -> None:
    with pytest.raises(ValueError, match=message):
        ToolCallMetric()([Step("a", {})], gold)
    with pytest.raises(TypeError, match="after must"):
        GoldCall("a", {}, after=["0"])


def test_unknown_order_is_refused() -> None:
    with pytest.raises(ValueError, match="order must be one of"):
        ToolCallMetric(order="sorted")


def test_match_calls_takes_order() -> None:
    gold = [Step("a", {}), GoldCall("b", {}, after=[0])]
    pred = [("b", {}), ("a", {})]
    pairs, unmatched_pred, unmatched_gold = match_calls(pred, gold)
    assert len(pairs) == 1 and len(unmatched_pred) == 1 and len(unmatched_gold) == 1
    assert len(match_calls(pred, gold, order="any")[0]) == 2


def _distinct(n: int) -> list[Step]:
    return [Step(f"tool{i}", {"x": i}) for i in range(n)]


def _chain(n: int) -> list[Step]:
    """n calls to distinct tools, each after the one before."""
    return [GoldCall(f"tool{i}", {"x": i}, after=[i - 1]) if i else Step("tool0", {"x": 0}) for i in range(n)]


@pytest.mark.slow
@pytest.mark.parametrize(("order", "gold", "prediction"), [
    ("strict", _distinct, _distinct),                                        # right, call for call
    ("strict", _distinct, lambda n: _distinct(n)[n // 2:] + _distinct(n)[:n // 2]),  # halves swapped
    ("gold", _chain, _distinct),                                              # right
    ("gold", _chain, lambda n: _distinct(n)[-1:] + _distinct(n)[:-1]),        # the last call made first
], ids=["strict-right", "strict-halves-swapped", "gold-chain-right", "gold-chain-last-first"])
def test_ordered_scoring_grows_linearly_with_the_calls_of_distinct_tools(order: str, gold, prediction) -> None:
    """Four times the calls, about four times the CPU time (a bar of nine), in the shapes of a real trajectory:
    strict order built the table of every predicted x gold call (5,000 calls: 19 s and 250 MB), the out-of-order
    details tried every kept pair, and gold order closed the constraints (a chain of 5,000: 600 MB) and looked
    for a broken one among every two pairs (10,000: 90 s)."""
    metric = ToolCallMetric("arg", order=order)

    def scoring(n: int):
        pred, gold_calls = prediction(n), gold(n)
        return lambda: metric(pred, gold_calls)

    assert growth(scoring(1000), scoring(4000)) < 9


def test_a_right_sequence_of_one_tool_is_scored_under_strict_order_past_the_pair_limit() -> None:
    """A prediction that is the gold sequence call for call keeps every pair without ranking any: 3,000 calls of
    one tool (9 million pairs) are scored, where `any` pairs them by their normal forms; out of order they are
    still too many to pair."""
    gold = [Step("read", {"path": f"/f{i}"}) for i in range(3000)]
    score = ToolCallMetric("arg", order="strict")(list(gold), gold)
    assert (score.tp, score.fp, score.fn) == (6000.0, 0.0, 0.0)
    with pytest.raises(TooManyPairs, match="too many calls to pair"):
        ToolCallMetric("arg", order="strict")(gold[1:] + gold[:1], gold)


@SETTINGS
@given(calls, levels, st.booleans(), st.booleans())
def test_a_right_sequence_is_explained_as_the_general_path_explains_it(gold_raw, level, folded, optimal) -> None:
    """The fast path of strict order (the prediction is the gold sequence, each call an exact match, here in
    another case when ``folded``) gives the explanation the weighted LCS gives."""
    gold = _steps(gold_raw)
    pred = [Step(g.name, {k: v.upper() if folded and isinstance(v, str) else v for k, v in g.args.items()})
            for g in gold]
    metric = ToolCallMetric(level, order="strict", optimal=optimal)
    fast = metric.explain(pred, gold)
    general = metric_module._in_sequence
    metric_module._in_sequence = lambda *args: None
    try:
        assert metric.explain(pred, gold) == fast
    finally:
        metric_module._in_sequence = general
